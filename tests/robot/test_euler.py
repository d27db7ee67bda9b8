"""The Euler-angle chart of a floating base (lagdyn.robot.euler) against the quaternion
model: M, g, inverse dynamics and energy mapped through E; the chart's maps against scipy's
rotations; the singularity at pitch = ±π/2."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.errors import LagdynError, ShapeError
from lagdyn.robot.euler import (
    check_chart,
    euler_chart,
    from_floating,
    to_floating,
    velocity_map,
)
from lagdyn.robot.floating import EXAMPLE_URDF

TOY = Path(__file__).resolve().parent.parent / "data" / "quadruped_toy.urdf"


@pytest.fixture(scope="module", params=["example", "toy"])
def models(request: pytest.FixtureRequest) -> tuple[Any, Any, Any]:
    source = EXAMPLE_URDF if request.param == "example" else TOY
    robot = ld.robot.from_urdf(source, base="floating", parameters="numeric")
    chart = euler_chart(robot)
    params = {"g": 9.81}
    quat = robot.lambdify(params, kernels=["M", "g", "inverse_dynamics", "energy"])
    # the chart's recursive programs (CRBA, RNEA) evaluated alone: lambdify would also
    # generate forward dynamics, 6 s more for the toy
    euler = {name: chart.program(name).lambdify(params) for name in ("M", "g", "tau")}
    return chart, quat, euler


def _states(n: int, count: int = 4) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    out = []
    for _ in range(count):
        q = rng.uniform(-1.2, 1.2, n)
        q[:3] = rng.normal(size=3)
        out.append((q, rng.normal(size=n), rng.normal(size=n)))
    return out


def test_mass_matrix_and_gravity_are_the_quaternion_model_through_E(models: Any) -> None:
    chart, quat, euler = models
    for q, qd, _ in _states(chart.n):
        qf, v = to_floating(q, qd)
        E = velocity_map(q)
        M = quat.M(qf)
        Me = euler["M"](q)
        assert np.allclose(Me, E.T @ M @ E, rtol=1e-12, atol=1e-12)
        assert np.allclose(euler["g"](q), E.T @ quat.g(qf), rtol=1e-12, atol=1e-12)
        # the kinetic energies agree (quat.energy adds the same potential to both sides)
        kinetic = quat.energy(qf, v) - quat.energy(qf, np.zeros_like(v))
        assert np.isclose(0.5 * qd @ Me @ qd, kinetic, rtol=1e-12)


def test_inverse_dynamics_through_E_and_its_rate(models: Any) -> None:
    chart, quat, euler = models
    eps = 1e-6
    for q, qd, qdd in _states(chart.n):
        qf, v = to_floating(q, qd)
        E = velocity_map(q)
        Edot = (velocity_map(q + eps * qd) - velocity_map(q - eps * qd)) / (2 * eps)
        want = E.T @ quat.inverse_dynamics(qf, v, E @ qdd + Edot @ qd)
        got = euler["tau"](q, qd, qdd)
        assert np.allclose(got, want, rtol=1e-7, atol=1e-7)


def test_the_chart_is_a_lagrangian_system_with_a_skew_proof() -> None:
    chart = euler_chart(ld.robot.from_urdf(EXAMPLE_URDF, base="floating"))
    assert isinstance(chart, ld.LagrangianSystem)
    assert chart.chain.joint_names[:6] == (
        "trunk_x",
        "trunk_y",
        "trunk_z",
        "trunk_yaw",
        "trunk_pitch",
        "trunk_roll",
    )
    assert chart.is_skew_symmetric() is True


def test_maps_against_scipy_rotations() -> None:
    Rotation = pytest.importorskip("scipy.spatial.transform").Rotation
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = np.concatenate([rng.normal(size=3), rng.uniform(-3, 3, 3), rng.normal(size=2)])
        q[4] = rng.uniform(-1.5, 1.5)  # pitch within the chart
        qf = to_floating(q)
        want = Rotation.from_euler("ZYX", q[3:6]).as_quat()  # x y z w, intrinsic z-y'-x''
        assert np.allclose(qf[3:7], want, atol=1e-12) or np.allclose(qf[3:7], -want, atol=1e-12)
        back = from_floating(qf)
        assert np.allclose(back[:3], q[:3]) and np.allclose(back[6:], q[6:])
        assert np.allclose(
            Rotation.from_euler("ZYX", back[3:6]).as_matrix(),
            Rotation.from_euler("ZYX", q[3:6]).as_matrix(),
            atol=1e-12,
        )
        qd = rng.normal(size=8)
        _, v = to_floating(q, qd)
        assert np.allclose(back[3:6], q[3:6], atol=1e-12)  # yaw, roll in (−3, 3)
        assert np.allclose(from_floating(qf, v)[1], qd, atol=1e-9)
        # the angular velocity in the base frame: R^T Ṙ from a finite difference
        eps = 1e-6
        R0 = Rotation.from_euler("ZYX", (q - eps * qd)[3:6]).as_matrix()
        R1 = Rotation.from_euler("ZYX", (q + eps * qd)[3:6]).as_matrix()
        R = Rotation.from_euler("ZYX", q[3:6]).as_matrix()
        W = R.T @ (R1 - R0) / (2 * eps)
        assert np.allclose(v[3:6], [W[2, 1], W[0, 2], W[1, 0]], atol=1e-7)
        assert np.allclose(v[:3], R.T @ qd[:3], atol=1e-12)


def test_the_singularity_is_reported() -> None:
    q = np.array([0.0, 0.0, 0.0, 0.3, math.pi / 2, 0.1, 0.0])
    with pytest.raises(LagdynError, match="singular at pitch"):
        check_chart(q)
    with pytest.raises(LagdynError, match="gimbal lock"):
        velocity_map(q)
    with pytest.raises(LagdynError, match="gimbal lock"):
        from_floating(to_floating(q))
    with pytest.raises(LagdynError, match="gimbal lock"):
        to_floating(q, np.zeros(7))
    check_chart(q - np.array([0, 0, 0, 0, 1e-6, 0, 0]))  # near it the chart still answers
    # the mass matrix of the chart is singular there: yaw and roll turn about one axis
    robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    M = euler_chart(robot).program("M").lambdify({"g": 9.81})
    at = np.zeros(9)
    at[4] = math.pi / 2
    eig = np.linalg.eigvalsh(M(at))
    assert eig[0] < 1e-12 * eig[-1]


def test_bad_input() -> None:
    with pytest.raises(LagdynError, match="needs a FloatingRobot, got RobotSystem"):
        euler_chart(ld.zoo.get("planar_3r"))
    with pytest.raises(ShapeError, match="at least 6 entries"):
        velocity_map([0.0, 0.0])
    with pytest.raises(LagdynError, match="non-finite"):
        check_chart([0, 0, 0, 0, math.nan, 0])
    with pytest.raises(LagdynError, match="zero norm"):
        from_floating([0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ShapeError, match="at least 7 entries"):
        from_floating([0, 0, 0, 1])


_angle = st.floats(-3.1, 3.1, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3),
    _angle,
    st.floats(-1.5, 1.5, allow_nan=False),
    _angle,
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=8, max_size=8),
)
def test_chart_round_trip(
    position: list[float], yaw: float, pitch: float, roll: float, rates: list[float]
) -> None:
    q = np.array([*position, yaw, pitch, roll, 0.3, -0.2])
    qf, v = to_floating(q, rates)
    assert np.isclose(np.linalg.norm(qf[3:7]), 1.0)
    back, qd = from_floating(qf, v)
    assert np.allclose(back, q, atol=1e-9)
    assert np.allclose(qd, rates, atol=1e-6 * (1 + np.abs(rates).max()))

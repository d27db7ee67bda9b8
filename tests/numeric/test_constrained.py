"""Constrained numerics: KKT vs analytic tension, ambient vs minimal coordinates, methods,
Baumgarte against drift, singular states."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.errors import ConstraintError, LagdynError, ShapeError
from lagdyn.zoo.mechanisms import (
    ambient_double_pendulum,
    cartesian_pendulum,
    four_bar,
    slider_crank,
)


@pytest.fixture(scope="module")
def pendulum():
    cs = cartesian_pendulum()
    return cs, cs.lambdify(cs.system.defaults)


@given(st.floats(-3.1, 3.1), st.floats(-4.0, 4.0))
def test_multiplier_is_the_rod_tension(pendulum, angle, speed):
    cs, num = pendulum
    m, l, g = 1.0, 1.0, 9.81
    q = np.array([l * np.sin(angle), -l * np.cos(angle)])
    qd = speed * np.array([np.cos(angle), np.sin(angle)])  # tangent: Φ̇ = 0
    qdd, lam = num.solve(q, qd)
    tension = -2 * lam[0] * l
    assert tension == pytest.approx(m * speed**2 / l - m * g * q[1] / l, rel=1e-12, abs=1e-12)
    # the acceleration keeps the constraint: J q̈ + J̇ q̇ = 0
    assert 2 * q @ qdd + 2 * qd @ qd == pytest.approx(0.0, abs=1e-12)


def test_methods_agree_and_penalty_converges(pendulum):
    _, num = pendulum
    rng = np.random.default_rng(0)
    ang = rng.uniform(-3, 3, 50)
    q = np.stack([np.sin(ang), -np.cos(ang)], axis=-1)
    qd = rng.uniform(-2, 2, 50)[:, None] * np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    ref, lam_ref = num.solve(q, qd, method="kkt")
    for method in ("schur", "augmented_lagrangian"):
        qdd, lam = num.solve(q, qd, method=method)
        assert np.allclose(qdd, ref, atol=1e-9) and np.allclose(lam, lam_ref, atol=1e-8)
    errors = [
        np.abs(num.solve(q, qd, method="penalty", stiffness=k)[0] - ref).max()
        for k in (1e2, 1e4, 1e6)
    ]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-4


def test_batched_equals_one_by_one(pendulum):
    _, num = pendulum
    q = np.array([[0.6, -0.8], [0.0, -1.0], [-0.28, 0.96]])
    qd = np.array([[0.8, 0.6], [1.0, 0.0], [0.96, 0.28]])
    qdd, lam = num.solve(q, qd)
    for i in range(3):
        a, b = num.solve(q[i], qd[i])
        assert np.allclose(a, qdd[i], atol=1e-14) and np.allclose(b, lam[i], atol=1e-14)


def test_baumgarte_stops_drift_over_10_seconds(pendulum):
    _, num = pendulum
    x0 = [1.0, 0.0, 0.0, 0.0]  # horizontal, at rest
    t = np.linspace(0, 10, 1001)  # RK4, h = 10 ms (drift 7e-5, held 2e-7)
    plain = num.simulate(x0, t)
    stable = num.simulate(x0, t, baumgarte=(5.0, 5.0))
    drift = np.abs(plain.phi).max()
    held = np.abs(stable.phi).max()
    assert drift > 1e-5, drift  # the twice-differentiated constraint drifts ...
    assert held <= 1e-6 and held < drift / 100, held  # ... Baumgarte holds it
    projected = num.simulate(x0, t[:201], project=True)
    assert np.abs(projected.phi).max() <= 1e-12


@pytest.mark.slow
def test_ambient_double_pendulum_matches_minimal_coordinates():
    amb = ambient_double_pendulum()
    num = amb.lambdify(amb.system.defaults)
    dp = ld.zoo.double_pendulum()
    minimal = dp.lambdify(dp.defaults)
    a0, b0 = 0.7, -0.4
    ad0, bd0 = 0.3, -0.2
    x1, y1 = np.sin(a0), -np.cos(a0)
    x2, y2 = x1 + np.sin(b0), y1 - np.cos(b0)
    z0 = [
        x1,
        y1,
        x2,
        y2,
        np.cos(a0) * ad0,
        np.sin(a0) * ad0,
        np.cos(a0) * ad0 + np.cos(b0) * bd0,
        np.sin(a0) * ad0 + np.sin(b0) * bd0,
    ]
    t = np.linspace(0, 1, 1001)  # RK4 with h = 1e-3 on both: global error ~2e-10
    ambient = num.simulate(z0, t)
    reduced = ld.simulate(minimal, [a0, b0, ad0, bd0], t)
    a, b = reduced.q[:, 0], reduced.q[:, 1]
    p2 = np.stack([np.sin(a) + np.sin(b), -np.cos(a) - np.cos(b)], axis=-1)
    assert np.abs(ambient.q[:, 2:] - p2).max() < 1e-9


def test_four_bar_and_slider_crank_keep_their_loops():
    for build, guess in (
        (four_bar, np.array([1.0, 0.4, 1.6])),
        (slider_crank, np.array([0.5, -0.2, 1.9])),
    ):
        cs = build()
        num = cs.lambdify(cs.system.defaults)
        q, qd = num.project(guess, np.array([1.0, 0.0, 0.0]))
        assert np.abs(num.phi(q)).max() < 1e-12 and np.abs(num.phi_dot(q, qd)).max() < 1e-12
        res = num.simulate(np.concatenate([q, qd]), np.linspace(0, 1, 201), baumgarte=(10, 10))
        assert np.abs(res.phi).max() < 1e-6
        assert res.lam.shape == (201, 2)


def test_singular_state_names_rows():
    x, y, z = ld.coordinates("x y z")
    sys = ld.LagrangianSystem(sum(v**2 for v in ld.velocities([x, y, z])) / 2, [x, y, z])
    cs = ld.ConstrainedSystem(sys, [x**2 + y**2 - 1, x - 1])  # dependent where y = 0
    num = cs.lambdify()
    with pytest.raises(ConstraintError, match=r"at q = \[1\., 0\., 0\.\]: row 1 \(x\(t\) - 1\)"):
        num.solve([1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    lsq = ld.ConstrainedSystem(sys, [x**2 + y**2 - 1, x - 1], redundant="lstsq").lambdify()
    qdd, lam = lsq.solve([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])  # consistent: both rows say ẍ = 0
    assert np.all(np.isfinite(qdd)) and np.all(np.isfinite(lam))
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    # moving along y, the circle demands ẍ = −ẏ² = −1 and the line ẍ = 0: inconsistent, and
    # lstsq must say so instead of returning a least-squares compromise (issue 11 item 5)
    for method in ("kkt", "schur"):
        with pytest.raises(ConstraintError, match="inconsistent constraints"):
            lsq.solve([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], method=method)


@pytest.mark.parametrize("method", ["penalty", "augmented_lagrangian"])
def test_penalty_methods_refuse_rank_deficient_jacobians(method):
    x, y, z = ld.coordinates("x y z")
    sys = ld.LagrangianSystem(sum(v**2 for v in ld.velocities([x, y, z])) / 2, [x, y, z])
    num = ld.ConstrainedSystem(sys, [x**2 + y**2 - 1, x - 1]).lambdify()
    with pytest.raises(ConstraintError, match=r"row 1 \(x\(t\) - 1\) of J_c"):
        num.solve([1.0, 0.0, 0.0], [0.0, 0.0, 0.0], method=method)


def test_project_at_a_singular_configuration_raises():
    x, y = ld.coordinates("x y")
    sys = ld.LagrangianSystem(sum(v**2 for v in ld.velocities([x, y])) / 2, [x, y])
    num = ld.ConstrainedSystem(sys, [x**2 + y**2 - 1]).lambdify()
    with pytest.raises(ConstraintError):
        num.project([0.0, 0.0], [0.0, 0.0])  # J_c = 0 at the centre: no step can help
    q, _ = num.project([0.0, 0.5], [0.0, 0.0])  # regular: projected
    assert abs(q[0] ** 2 + q[1] ** 2 - 1) < 1e-12


def test_bad_inputs(pendulum):
    _, num = pendulum
    with pytest.raises(ShapeError, match=r"q must have shape \(\.\.\., 2\)"):
        num.solve([0.0, 1.0, 2.0], [0.0, 0.0])
    with pytest.raises(LagdynError, match="method must be one of"):
        num.solve([0.0, -1.0], [0.0, 0.0], method="magic")
    with pytest.raises(LagdynError, match="baumgarte gains"):
        num.solve([0.0, -1.0], [0.0, 0.0], baumgarte=(-1, 0))


def test_solve_directly_on_the_system():
    cs = cartesian_pendulum()
    qdd, lam = cs.solve([0.0, -1.0], [1.0, 0.0])
    assert -2 * lam[0] == pytest.approx(1.0 + 9.81)


def test_scipy_integrator_path(pendulum):
    pytest.importorskip("scipy")
    _, num = pendulum
    t = np.linspace(0, 1, 51)
    res = num.simulate([0.6, -0.8, 0.8, 0.6], t, method="scipy-DOP853", baumgarte=(5.0, 5.0))
    ref = num.simulate([0.6, -0.8, 0.8, 0.6], np.linspace(0, 1, 501), baumgarte=(5.0, 5.0))
    assert np.abs(res.q[-1] - ref.q[-1]).max() < 1e-7
    assert np.abs(res.phi).max() < 1e-7
    with pytest.raises(LagdynError, match="unknown method"):
        num.simulate([0.6, -0.8, 0.8, 0.6], t, method="euler")


def test_per_call_parameters_of_the_constraints_only():
    x, y = ld.coordinates("x y")
    m, L = sp.symbols("m L", positive=True)
    free = ld.LagrangianSystem(
        m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2 - 9.81 * m * y, [x, y]
    )
    num = ld.ConstrainedSystem(free, [x**2 + y**2 - L**2]).lambdify()
    qdd, lam = num.solve([0.6, -0.8], [0.8, 0.6], params={"m": 2.0, "L": 1.0})
    # pendulum of length 1: tangential acceleration g sin θ, centripetal |v|² = 1
    np.testing.assert_allclose(qdd @ np.array([0.6, -0.8]), -1.0, atol=1e-12)

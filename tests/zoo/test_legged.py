"""Legged zoo entries (lagdyn.zoo.legged), their registry, and the five-bar's registration.

The example-robot-data models are checked against Pinocchio (M, nonlinear effects, feet
placements) when both are installed; the CI toy (tests/data/quadruped_toy.urdf) runs
without them."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import BackendUnavailableError, LagdynError
from lagdyn.robot.euler import euler_chart, from_floating
from lagdyn.robot.loops import frame_placement
from lagdyn.zoo.legged import FEET, SOURCES

TOY = Path(__file__).resolve().parent.parent / "data" / "quadruped_toy.urdf"


def _has_robot_data() -> bool:
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


needs_data = pytest.mark.skipif(not _has_robot_data(), reason="example-robot-data missing")


def test_registry_keeps_floating_robots_apart() -> None:
    assert ld.zoo.floating_names() == sorted(FEET) == sorted(SOURCES)
    plain, constrained = set(ld.zoo.names()), set(ld.zoo.constrained_names())
    assert not set(FEET) & (plain | constrained)
    assert "five_bar" in constrained and "five_bar" not in plain
    assert ld.zoo.options("solo12") == {"parameters": "numeric"}
    with pytest.raises(LagdynError, match="unknown model 'solo13' \\(did you mean 'solo12'"):
        ld.zoo.get("solo13")


def test_five_bar_from_the_registry() -> None:
    fb = ld.zoo.get("five_bar", vertical=True)
    assert isinstance(fb, ld.ConstrainedSystem)
    assert (fb.n, fb.m, fb.dof) == (4, 2, 2)
    assert [str(p) for p in fb.system.parameters] == ["g"]


def test_missing_robot_data_names_the_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.metadata.distribution

    def hidden(name: str) -> importlib.metadata.Distribution:
        if name == "example-robot-data":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "distribution", hidden)
    with pytest.raises(BackendUnavailableError, match=r"'solo12' reads solo_description/solo12"):
        ld.zoo.get("solo12")
    with pytest.raises(BackendUnavailableError, match=r"lagdyn\[robot\].*lagdyn\[crosscheck\]"):
        ld.zoo.get("talos_legs")


def test_the_ci_toy_quadruped() -> None:
    robot = ld.robot.from_urdf(TOY, base="floating", parameters="numeric")
    assert (robot.nq, robot.nv) == (15, 14)
    feet = [f"{leg}_FOOT" for leg in ("FL", "FR", "HL", "HR")]
    assert all(name in robot.frames for name in feet)
    num = robot.lambdify({"g": 9.81}, kernels=["M"])
    assert np.isclose(num.M(robot.neutral())[0, 0], 2 + 4 * (0.15 + 0.05))
    # feet at q = 0 on the Euler chart: below the hips by the two leg segments
    chart = euler_chart(robot)
    zero = {q: 0 for q in chart.q}
    _, p = frame_placement(chart, "HR_FOOT")
    assert [float(x) for x in p.subs(zero)] == pytest.approx([-0.2, -0.1, -0.32])


def _pinocchio(name: str) -> tuple[object, object]:
    pin = pytest.importorskip("pinocchio")
    from lagdyn.robot._data import urdf_path

    path = str(urdf_path(*SOURCES[name]))
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    if name == "talos_legs":  # the upper body locked at q = 0, as lagdyn's factory does
        lock = [model.getJointId(j) for j in list(model.names)[2:] if not j.startswith("leg_")]
        model = pin.buildReducedModel(model, lock, pin.neutral(model))
    return pin, model


@needs_data
@pytest.mark.parametrize("name", ["go1", "anymal", "talos_legs"])
def test_legged_entries_against_pinocchio(name: str) -> None:
    pin, model = _pinocchio(name)
    robot = ld.zoo.get(name)
    assert tuple(model.names)[2:] == robot.joint_names
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"])
    data = model.createData()
    rng = np.random.default_rng(26)
    for _ in range(2):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        v = rng.normal(size=model.nv)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.nonLinearEffects(model, data, q, v)
        assert np.allclose(num.M(q), M, rtol=1e-9, atol=1e-9 * np.abs(M).max())
        assert np.allclose(num.bias(q, v), h, rtol=1e-9, atol=1e-9 * np.abs(h).max())


@needs_data
@pytest.mark.parametrize("name", sorted(FEET))
def test_feet_are_the_files_frames(name: str) -> None:
    """Each foot's placement on the Euler chart (symbolic forward kinematics) is
    Pinocchio's ``oMf`` of the frame of that name."""
    pin, model = _pinocchio(name)
    robot = ld.zoo.get(name)
    chart = euler_chart(robot)
    data = model.createData()
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    pin.framesForwardKinematics(model, data, q)
    at = [float(x) for x in from_floating(q)]
    for foot in FEET[name]:
        R, p = frame_placement(chart, foot, q=at)
        placed = data.oMf[model.getFrameId(foot)]
        assert np.allclose(np.array(p, dtype=float).ravel(), placed.translation)
        assert np.allclose(np.array(R, dtype=float), placed.rotation)


def test_the_command_line_refuses_floating_robots(capsys: pytest.CaptureFixture[str]) -> None:
    from lagdyn.cli import main

    assert main(["derive", "solo12"]) == 2
    assert "solo12 is a floating-base robot" in capsys.readouterr().err

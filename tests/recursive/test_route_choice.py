"""lagdyn.recursive.route: the default route by the closed form's expected size, and its limit.

A two-joint URDF whose joint origins carry generic rotations (issue 21, item 17) has a
closed form whose expansion ran for minutes and gigabytes; the recursive route builds it in
seconds. The default route is chosen by :func:`closed_size` (joints plus distinct constant
angles along a path), and the closed route refuses sizes above ``closed_limit`` at once.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.codegen import Binding
from lagdyn.recursive import route as route_mod
from lagdyn.recursive.route import (
    CLOSED_LIMIT,
    RECURSIVE_FROM,
    check_closed_size,
    choose_route,
    closed_size,
)

GENERIC = """<?xml version="1.0"?>
<robot name="generic2">
  <link name="base"/>
  <link name="l1">
    <inertial>
      <origin xyz="0.05 -0.02 0.11" rpy="0 0 0"/>
      <mass value="1.7"/>
      <inertia ixx="0.031" ixy="0.002" ixz="-0.003" iyy="0.027" iyz="0.001" izz="0.019"/>
    </inertial>
  </link>
  <link name="l2">
    <inertial>
      <origin xyz="-0.03 0.07 0.09" rpy="0.2 -0.1 0.3"/>
      <mass value="0.9"/>
      <inertia ixx="0.012" ixy="-0.001" ixz="0.002" iyy="0.015" iyz="-0.0015" izz="0.011"/>
    </inertial>
  </link>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.123 -0.457 0.789"/>
    <axis xyz="0.267 0.535 0.802"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0.3 -0.1 0.25" rpy="-0.321 0.654 -0.987"/>
    <axis xyz="0.802 -0.267 0.535"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/>
  </joint>
</robot>
"""


@pytest.fixture(scope="module")
def generic_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("urdf") / "generic2.urdf"
    path.write_text(GENERIC)
    return path


@pytest.fixture(scope="module")
def generic(generic_path):
    return ld.robot.from_urdf(generic_path, parameters="numeric")


def test_closed_size_counts_joints_and_constant_angles(generic):
    # 2 joints; 3 + 3 rpy angles on the joint origins, 3 on l2's inertial frame
    assert closed_size(generic) == (11, "l2", 2, 9)
    assert closed_size(generic.chain) == closed_size(generic)
    # DH twists: a generic 0.3 rad counts, multiples of π/2 are exact and do not
    tilted = ld.robot.from_dh([dict(a=1, alpha=0.3), dict(a=1)])
    assert closed_size(tilted).size == 3
    square = ld.robot.from_dh([dict(a=1, alpha=sp.pi / 2), dict(a=1, alpha=-sp.pi / 2)])
    assert closed_size(square).size == 2
    alpha = sp.Symbol("alpha1")  # a symbolic twist is an angle of its own
    assert closed_size(ld.robot.from_dh([dict(a=1, alpha=alpha), dict(a=1)])).angles == 1


def test_zoo_default_routes_unchanged():
    expected = {
        "planar_3r": ("closed", 3),
        "spatial_3r": ("closed", 3),
        "puma560": ("recursive", 6),
        "ur5": ("recursive", 6),
        "panda": ("recursive", 7),
    }
    for name, (chosen, size) in expected.items():
        for parameters in ("numeric", "symbolic"):
            arm = ld.zoo.get(name, parameters=parameters)
            assert choose_route(arm, None) == chosen, (name, parameters)
            assert closed_size(arm) == (size, arm.chain.links[-1].name, arm.n, 0)
    assert (RECURSIVE_FROM, CLOSED_LIMIT) == (4, 6)


def test_generic_urdf_default_route_is_recursive_and_agrees_with_pinocchio(generic, generic_path):
    assert choose_route(generic, None) == "recursive"  # (the closed route before: minutes, GBs)
    start = time.perf_counter()
    num = generic.lambdify(generic.defaults, cache=False)
    assert time.perf_counter() - start < 30  # about 2 s alone on the 2-core machine
    assert num.route == "recursive"
    # the program holds the rotations' cosines as numbers, not as cos(123/1000) atoms
    binding = Binding(generic.parameters, generic.defaults)
    prog = route_mod.recursive_program(generic, binding, cse=False)
    atoms = set().union(
        *(e.atoms(sp.cos, sp.sin) for k in prog.kernels.values() for e in k.outputs)
    )
    atoms |= set().union(*(e.atoms(sp.cos, sp.sin) for _, e in prog.kernels["M"].body))
    assert all(not a.args[0].is_number for a in atoms)
    pin = pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")
    model = pin.buildModelFromUrdf(str(generic_path))
    data = model.createData()
    rng = np.random.default_rng(17)
    for _ in range(4):
        q, v, a = (rng.uniform(-2, 2, 2) for _ in range(3))
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        pairs = [
            (num.M(q), M),
            (num.inverse_dynamics(q, v, a), pin.rnea(model, data, q, v, a)),
            (num.forward_dynamics(q, v, a), pin.aba(model, data, q, v, a)),
            (num.g(q), pin.computeGeneralizedGravity(model, data, q)),
            (num.C(q, v) @ v, pin.computeCoriolisMatrix(model, data, q, v) @ v),
        ]
        for ours, theirs in pairs:
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


_REFUSALS = """
import sys, time
import lagdyn as ld
arm = ld.robot.from_urdf(sys.argv[1], parameters="numeric")
calls = {
    "lambdify": lambda: arm.lambdify(arm.defaults, route="closed", cache=False),
    "M": lambda: arm.M,
    "skew": lambda: arm.is_skew_symmetric(),
    "latex": lambda: arm.latex(),
}
for name, call in calls.items():
    start = time.perf_counter()
    try:
        call()
        print(name, "built")
    except ld.LagdynError as exc:
        print(name, round(time.perf_counter() - start, 3), str(exc).replace(chr(10), " "))
"""


def test_closed_route_on_generic_urdf_refuses_quickly(generic_path):
    # in a subprocess: the unbounded expansion ran for minutes and gigabytes
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_REFUSALS), str(generic_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert set(lines) == {"lambdify", "M", "skew", "latex"}, out.stdout + out.stderr
    for name, line in lines.items():
        seconds, message = line.split(" ", 1)
        assert float(seconds) < 5, (name, line)
        assert "closed form of this robot is too large" in message
        assert "size 11" in message and "route='recursive'" in message
        assert "closed_limit" in message


def test_closed_limit_is_an_option_and_a_module_constant(monkeypatch):
    arm = ld.robot.from_dh([dict(a=1), dict(a=1)], parameters="symbolic")
    arm.closed_limit = 1
    with pytest.raises(ld.LagdynError, match=r"size 2 \(2 joints on the path to link"):
        arm.lambdify(arm.defaults, route="closed")
    arm.closed_limit = None
    monkeypatch.setattr(route_mod, "CLOSED_LIMIT", 1)
    with pytest.raises(ld.LagdynError, match="too large"):
        check_closed_size(arm)
    with pytest.raises(ld.LagdynError, match="too large"):
        arm.M  # noqa: B018 (the closed form itself)
    monkeypatch.setattr(route_mod, "CLOSED_LIMIT", 6)
    assert arm.M.shape == (2, 2)


def test_small_tilted_chain_takes_recursive_by_default_and_closed_on_request(tmp_path):
    text = GENERIC.replace('rpy="-0.321 0.654 -0.987"', 'rpy="0 0 0"').replace(
        'rpy="0.2 -0.1 0.3"', 'rpy="0 0 0"'
    )
    text = text.replace('<axis xyz="0.267 0.535 0.802"/>', '<axis xyz="0 0 1"/>')
    text = text.replace('<axis xyz="0.802 -0.267 0.535"/>', '<axis xyz="0 0 1"/>')
    path = tmp_path / "tilted.urdf"
    path.write_text(text)
    arm = ld.robot.from_urdf(path, parameters="numeric")
    assert closed_size(arm) == (5, "l2", 2, 3)
    assert choose_route(arm, None) == "recursive"
    rec = arm.lambdify(arm.defaults, cache=False)
    closed = arm.lambdify(arm.defaults, route="closed", cache=False)  # size 5 ≤ 6: built
    assert (rec.route, closed.route) == ("recursive", "closed")
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v, u = (rng.uniform(-2, 2, 2) for _ in range(3))
        np.testing.assert_allclose(rec.M(q), closed.M(q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            rec.forward_dynamics(q, v, u), closed.forward_dynamics(q, v, u), rtol=0, atol=1e-10
        )


def test_recursive_skew_proof_says_neither_route_decides_generic_rotations(generic):
    with pytest.raises(ld.LagdynError, match="neither exact route decides"):
        generic.is_skew_symmetric(route="recursive")

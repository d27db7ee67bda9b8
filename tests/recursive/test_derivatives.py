"""Derivative kernels of robot chains (recursive route) against Pinocchio and differences.

``forward_dynamics_derivatives`` against ``pin.computeABADerivatives`` and
``inverse_dynamics_derivatives`` against ``pin.computeRNEADerivatives`` on the same URDF
(UR5, Panda with its fingers locked, the small tree of tests/data/rrp_tree.urdf with its
prismatic and fixed joints, and that tree with two roots) to 1e-9 relative, by both
methods (the analytical derivatives and forward mode); the PUMA 560 (no URDF in
example-robot-data) and a chain with friction against central differences; the pass of
the analytical derivatives in other frames, armature, and parameters left symbolic until
the call; the recursive and closed routes agree; :func:`tangents` on a hand-written program.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from helpers import pin_config, robot_path
from lagdyn import recursive
from lagdyn.codegen import Binding
from lagdyn.codegen.python import batch_function
from lagdyn.recursive import rnea_derivatives
from lagdyn.recursive.algebra import _Builder
from lagdyn.recursive.derivatives import derivative_program, tangents

TREE = Path(__file__).parents[1] / "data" / "rrp_tree.urdf"
RTOL = 1e-9


def close(a, b, rtol=RTOL):
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


def central(f, x, h=1e-3):
    """Columns ∂f/∂x_k by the five-point stencil (error O(h⁴) + rounding/h)."""
    eye = np.eye(len(x))
    cols = [
        (8 * (f(x + h * e) - f(x - h * e)) - (f(x + 2 * h * e) - f(x - 2 * h * e))) / (12 * h)
        for e in eye
    ]
    return np.stack(cols, axis=-1)


def kernels(system, method="analytical"):
    """The two derivative kernels as numpy functions (no joint CSE: the suite stays fast;
    the NumericModel path is tested on the 3-joint arms below)."""
    prog = derivative_program(
        system, Binding(system.parameters, system.defaults), cse=False, method=method
    )
    n = system.n

    def split(name):
        f = batch_function(prog, name)
        return lambda q, qd, x: tuple(np.split(f(q=q, qd=qd, **{KEYS[name]: x}), 3, axis=-1))

    assert all(k.shape == (n, 3 * n) for k in prog.kernels.values())
    return split("forward_dynamics_derivatives"), split("inverse_dynamics_derivatives")


KEYS = {"forward_dynamics_derivatives": "tau", "inverse_dynamics_derivatives": "qdd"}


def against_pinocchio(pin, model, system, seed, count=2, method="analytical"):
    data = model.createData()
    assert model.nv == system.n
    fd, inv = kernels(system, method)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q, v, a, u = (rng.uniform(-2, 2, system.n) for _ in range(4))
        qp = pin_config(model, q)
        dq, dv, Minv = fd(q, v, u)
        pq, pv, pm = pin.computeABADerivatives(model, data, qp, v, u)
        pm = np.triu(pm) + np.triu(pm, 1).T  # Pinocchio fills the upper triangle
        close(dq, pq)
        close(dv, pv)
        close(Minv, pm)
        tq, tv, M = inv(q, v, a)
        rq, rv, rm = pin.computeRNEADerivatives(model, data, qp, v, a)
        rm = np.triu(rm) + np.triu(rm, 1).T
        close(tq, rq)
        close(tv, rv)
        close(M, rm)


METHODS = ("analytical", "forward")


@pytest.mark.parametrize("method", METHODS)
def test_tree_matches_pinocchio(method):
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(TREE))
    system = ld.robot.from_urdf(TREE, parameters="numeric")
    against_pinocchio(pin, model, system, seed=1, method=method)


def test_tree_with_two_roots_matches_pinocchio():
    """Two joints on the base: the analytical pass works in the frame of the root with the
    larger subtree, the other root's placement composed through the base."""
    pin = pytest.importorskip("pinocchio")
    xml = TREE.read_text().replace(
        '<parent link="turret"/><child link="sensor"/>',
        '<parent link="base"/><child link="sensor"/>',
    )
    system = ld.robot.from_urdf(xml, parameters="numeric")
    assert system.chain.parents.count(-1) == 2
    assert rnea_derivatives._reference(system.chain) == 1
    against_pinocchio(pin, pin.buildModelFromXML(xml), system, seed=11)


@pytest.mark.parametrize("method", METHODS)
def test_ur5_matches_pinocchio(method):
    pin = pytest.importorskip("pinocchio")
    path = robot_path("ur_description", "ur5_robot.urdf")
    model = pin.buildModelFromUrdf(str(path))
    system = ld.robot.from_urdf(path, parameters="numeric")
    against_pinocchio(pin, model, system, seed=2, method=method)


@pytest.mark.slow
def test_panda_matches_pinocchio_with_fingers_locked():
    pin = pytest.importorskip("pinocchio")
    path = robot_path("panda_description", "panda.urdf")
    full = pin.buildModelFromUrdf(str(path))
    fingers = [full.getJointId(n) for n in ("panda_finger_joint1", "panda_finger_joint2")]
    model = pin.buildReducedModel(full, fingers, pin.neutral(full))
    system = ld.robot.from_urdf(
        path, parameters="numeric", locked=("panda_finger_joint1", "panda_finger_joint2")
    )
    against_pinocchio(pin, model, system, seed=3, count=1)


def test_puma560_matches_finite_differences():
    puma = ld.zoo.get("puma560")
    fd, inv = kernels(puma)
    forward = recursive.forward_dynamics(puma.chain).lambdify(puma.defaults)
    tau = recursive.rnea(puma.chain).lambdify(puma.defaults)
    mass = recursive.crba(puma.chain).lambdify(puma.defaults)
    rng = np.random.default_rng(4)
    q, v, u = (rng.uniform(-1, 1, 6) for _ in range(3))
    dq, dv, Minv = fd(q, v, u)
    close(dq, central(lambda x: forward(q=x, qd=v, tau=u), q), 1e-8)
    close(dv, central(lambda x: forward(q=q, qd=x, tau=u), v), 1e-8)
    close(Minv @ mass(q=q), np.eye(6), 1e-12)
    tq, tv, M = inv(q, v, u)
    close(tq, central(lambda x: tau(q=x, qd=v, qdd=u), q), 1e-8)
    close(tv, central(lambda x: tau(q=q, qd=x, qdd=u), v), 1e-8)
    close(M, mass(q=q), 1e-14)


def test_friction_is_differentiated():
    """Viscous friction enters ∂τ/∂q̇; Coulomb's sign(q̇) has derivative 0 off q̇ = 0."""
    chain = ld.zoo.get("planar_3r").chain
    links = [
        replace(link, viscous=sp.Rational(3, 10), coulomb=sp.Rational(1, 2)) for link in chain.links
    ]
    arm = ld.robot.RobotSystem(replace(chain, links=tuple(links)), friction=True)
    params = ld.zoo.get("planar_3r").defaults
    rec = arm.lambdify(params, route="recursive")
    closed = arm.lambdify(params, route="closed")
    rng = np.random.default_rng(9)
    q, v, u = (rng.uniform(-1, 1, 3) for _ in range(3))
    for num in (rec, closed):
        tq, tv, _ = num.inverse_dynamics_derivatives(q, v, u)
        close(tv, central(lambda x, m=num: m.inverse_dynamics(q, x, u), v), 1e-8)
        dq, dv, _ = num.forward_dynamics_derivatives(q, v, u)
        close(dv, central(lambda x, m=num: m.forward_dynamics(q, x, u), v), 1e-8)
    for a, b in zip(
        rec.forward_dynamics_derivatives(q, v, u), closed.forward_dynamics_derivatives(q, v, u)
    ):
        close(a, b, 1e-12)


def test_routes_agree_on_a_spatial_arm():
    arm = ld.zoo.get("spatial_3r")
    rec = arm.lambdify(arm.defaults, route="recursive")
    closed = arm.lambdify(arm.defaults, route="closed")
    rng = np.random.default_rng(10)
    q, v, u = rng.uniform(-2, 2, (3, 4, 3))
    for name in ("forward_dynamics_derivatives", "inverse_dynamics_derivatives"):
        for a, b in zip(getattr(rec, name)(q, v, u), getattr(closed, name)(q, v, u)):
            close(a, b, 1e-12)


def test_tangents_of_a_hand_written_program():
    x, y = sp.symbols("x y", real=True)
    b = _Builder("w")
    w = b.let(sp.cos(x) * y)
    z = b.let(w * w + y)
    (dz,) = tangents(b, [z], {x: 0, y: 1}, 2)
    sub = {}
    for s, e in b.body:
        sub[s] = e.xreplace(sub)
    exact = (sp.cos(x) * y) ** 2 + y
    assert sp.simplify(dz[0].xreplace(sub) - exact.diff(x)) == 0
    assert sp.simplify(dz[1].xreplace(sub) - exact.diff(y)) == 0
    # a held symbol has no tangent
    (held,) = tangents(b, [z], {x: 0}, 1, fixed={w})
    assert held == [sp.Integer(0)]


def test_linearize_a_chain_without_its_closed_form():
    """linearize takes the derivative kernels of the recursive route: a chain whose closed
    form is refused (closed_limit 0) linearizes, A and B match five-point differences."""
    table = [dict(a=1, alpha=sp.pi / 2 * (i % 2), d=sp.Rational(1, 10)) for i in range(4)]
    inertia = [dict(m=1 + i, com=[sp.Rational(1, 2), 0, 0], I=[0.1, 0.2, 0.3]) for i in range(4)]
    arm = ld.robot.from_dh(table, inertia=inertia, parameters="numeric")
    arm.closed_limit = 0
    with pytest.raises(ld.LagdynError, match="too large"):
        _ = arm.M
    q0, qd0, tau0 = np.array([0.1, -0.4, 0.7, 0.2]), np.array([0.3, 0.0, -0.5, 1.0]), np.ones(4)
    A, B = arm.linearize(q0, qd0, tau0, params=arm.defaults)
    forward = recursive.forward_dynamics(arm.chain).lambdify(arm.defaults)
    close(A[:4, 4:], np.eye(4), 0)
    close(A[4:, :4], central(lambda x: forward(q=x, qd=qd0, tau=tau0), q0), 1e-8)
    close(A[4:, 4:], central(lambda x: forward(q=q0, qd=x, tau=tau0), qd0), 1e-8)
    close(B[4:], central(lambda x: forward(q=q0, qd=qd0, tau=x), tau0), 1e-8)
    np.testing.assert_array_equal(B[:4], 0)


def _random_call(fd, inv, n, seed):
    rng = np.random.default_rng(seed)
    q, v, x = rng.uniform(-2, 2, (3, n))
    return [*fd(q, v, x), *inv(q, v, x)]


@pytest.fixture(scope="module")
def puma_expected():
    puma = ld.zoo.get("puma560")
    return puma, _random_call(*kernels(puma), 6, seed=12)


@pytest.mark.parametrize("ref", [-1, 2, 5])
def test_analytical_pass_in_another_frame(monkeypatch, puma_expected, ref):
    """The products of the analytical derivatives do not depend on the frame of the pass:
    the base frame, and the frame of a middle or the last link (rotations composed towards
    the base too) give what the root's frame gives (checked against finite differences
    above)."""
    puma, expected = puma_expected
    monkeypatch.setattr(rnea_derivatives, "_reference", lambda chain: ref)
    got = _random_call(*kernels(puma), 6, seed=12)
    for a, b in zip(got, expected):
        close(a, b, 1e-11)


def test_armature_enters_M_and_the_forward_derivatives():
    chain = ld.zoo.get("spatial_3r").chain
    links = [replace(link, armature=sp.Rational(i + 1, 5)) for i, link in enumerate(chain.links)]
    arm = ld.robot.RobotSystem(replace(chain, links=tuple(links)))
    params = ld.zoo.get("spatial_3r").defaults
    arm_params = {s: v for s, v in params.items() if s in arm.parameters}
    fd, inv = kernels_with(arm, arm_params, "analytical")
    fd_f, inv_f = kernels_with(arm, arm_params, "forward")
    got, expected = _random_call(fd, inv, 3, 13), _random_call(fd_f, inv_f, 3, 13)
    for a, b in zip(got, expected):
        close(a, b, 1e-12)
    plain = _random_call(*kernels_with(ld.zoo.get("spatial_3r"), params, "analytical"), 3, 13)
    np.testing.assert_allclose(got[5] - plain[5], np.diag([0.2, 0.4, 0.6]), atol=1e-12)


def kernels_with(system, params, method):
    prog = derivative_program(system, Binding(system.parameters, params), cse=False, method=method)

    def split(name, key):
        f = batch_function(prog, name)
        return lambda q, qd, x: tuple(np.split(f(q=q, qd=qd, **{key: x}), 3, axis=-1))

    return (
        split("forward_dynamics_derivatives", "tau"),
        split("inverse_dynamics_derivatives", "qdd"),
    )


def test_parameters_bound_at_the_call():
    """A 4-joint arm with symbolic inertial parameters: the kernels with half the
    parameters left to the call (inputs of the program) equal those with all bound."""
    table = [dict(a=1, alpha=sp.pi / 2 * (i % 2), d=sp.Rational(1, 10)) for i in range(4)]
    arm = ld.robot.from_dh(table, parameters="symbolic")
    values = {s: 0.5 + 0.1 * i for i, s in enumerate(arm.parameters)}
    values.update({s: 9.81 for s in arm.parameters if s.name == "g"})
    early = {s: v for i, (s, v) in enumerate(values.items()) if i % 2}
    late = Binding(arm.parameters, early)
    assert len(late.free) >= 10
    partial = derivative_program(arm, late, cse=False)
    full = derivative_program(arm, Binding(arm.parameters, values), cse=False)
    rng = np.random.default_rng(14)
    q, v, x = rng.uniform(-1, 1, (3, 4))
    p = np.array([values[s] for s in late.free])
    for name, key in KEYS.items():
        a = batch_function(partial, name)(q=q, qd=v, params=p, **{key: x})
        b = batch_function(full, name)(q=q, qd=v, **{key: x})
        close(a, b, 1e-12)


def test_unknown_method_is_refused():
    arm = ld.zoo.get("planar_3r")
    with pytest.raises(ld.LagdynError, match="unknown derivative method 'reverse'"):
        derivative_program(arm, Binding(arm.parameters, arm.defaults), method="reverse")

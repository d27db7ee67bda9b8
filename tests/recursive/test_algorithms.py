"""The recursive algorithms (ABA against CRBA + LDLᵀ, joint frames, forward-dynamics choice)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from helpers import closed_numeric, rel, states, tree_model, zoo
from lagdyn import recursive as programs
from lagdyn.codegen import Binding


@pytest.mark.parametrize("name", ["ur5", "panda", "tree"])
def test_aba_equals_crba_ldlt(name):
    """Featherstone's ABA against CRBA + RNEA + LDLᵀ (different algorithms, same chain)."""
    arm = tree_model()["tree"] if name == "tree" else zoo(name)
    aba = programs.forward_dynamics(arm.chain, method="aba")
    crba = programs.forward_dynamics(arm.chain, method="crba")
    # ABA holds no mass matrix: no LDLᵀ pivot 1/D_j of an n × n factorization
    assert aba.count_ops() != crba.count_ops()
    fa, fc = aba.lambdify(arm.defaults), crba.lambdify(arm.defaults)
    rng = np.random.default_rng(21)
    Q, V, U = rng.uniform(-2, 2, (3, 20, arm.n))
    a, c = fa(q=Q, qd=V, tau=U), fc(q=Q, qd=V, tau=U)
    for x, y in zip(a, c):
        assert rel(x, y) < 1e-12


def test_aba_with_armature_friction_and_prismatic_joints():
    spec = {"m": 1, "com": (-0.5, 0.1, 0), "armature": 0.3, "viscous": 0.2, "coulomb": 0.1}
    arm = ld.robot.from_dh([(0, 1, 0)] * 3, inertia=[spec] * 3, parameters="numeric", friction=True)
    tree = tree_model()["tree"]  # prismatic and revolute joints, a branch
    for system in (arm, tree):
        fa = programs.forward_dynamics(system.chain, method="aba", friction=True)
        fc = programs.forward_dynamics(system.chain, method="crba", friction=True)
        fa, fc = fa.lambdify(system.defaults), fc.lambdify(system.defaults)
        for q, v, _, u in states(system.n, 4, count=3):
            assert rel(fa(q=q, qd=v, tau=u), fc(q=q, qd=v, tau=u)) < 1e-12


def test_forward_method_default_and_errors():
    assert programs.choose_forward(programs.ABA_FROM) == "aba"
    assert programs.choose_forward(programs.ABA_FROM - 1) == "crba"
    with pytest.raises(ld.LagdynError, match="unknown forward-dynamics method 'lu'"):
        programs.forward_dynamics(zoo("planar_3r").chain, method="lu")


def test_recursive_route_forward_by_aba_and_cse_agree():
    """The route with ABA or CRBA, with and without the joint CSE: the same numbers; the
    CSE'd body defines every name before its use and is no larger."""
    from lagdyn.recursive.route import recursive_program

    arm = zoo("spatial_3r")
    binding = Binding(arm.parameters, arm.defaults)
    progs = {
        (f, c): recursive_program(arm, binding, forward=f, cse=c)
        for f in ("aba", "crba")
        for c in (True, False)
    }
    ref = progs["crba", False]
    rng = np.random.default_rng(5)
    point = {s: rng.uniform(-2, 2) for v in ref.vectors.values() for s in v}
    for key, prog in progs.items():
        for name, kernel in prog.kernels.items():
            defined = set(point)
            for s, e in kernel.body:
                assert e.free_symbols <= defined, (key, name, s)
                defined.add(s)
            val = dict(point)
            for s, e in kernel.body:
                val[s] = float(e.xreplace(val))
            got = [float(sp.sympify(e).xreplace(val)) for e in kernel.outputs]
            refk = ref.kernels[name]
            rval = dict(point)
            for s, e in refk.body:
                rval[s] = float(e.xreplace(rval))
            want = [float(sp.sympify(e).xreplace(rval)) for e in refk.outputs]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    ops = {
        k: sum(sp.count_ops(e) for _, e in p.kernels["C"].body)
        + sum(sp.count_ops(e) for e in p.kernels["C"].outputs)
        for k, p in progs.items()
    }
    assert ops["crba", True] < ops["crba", False]


def test_joint_frames_keep_the_dynamics_and_bare_the_axes():
    """Standard-DH PUMA moved to its joint frames: every motion subspace is (±e_k, 0), the
    mass matrix and gravity are unchanged (against the closed form of the original chain),
    and the programs are smaller."""
    from lagdyn.recursive.chain import in_joint_frames

    puma = zoo("puma560")
    moved = in_joint_frames(puma.chain)
    assert in_joint_frames(moved) is moved
    for link in moved.links:
        sw, sv = link.motion_subspace
        assert sv == sp.zeros(3, 1) and sorted(abs(x) for x in sw) == [0, 0, 1]
    M_closed, g_closed, _ = closed_numeric(puma)
    from lagdyn.robot.system import build

    other = build(moved)
    f = {k: other.program(k).lambdify(puma.defaults) for k in ("M", "g")}
    for q, *_ in states(6, 9, count=2):
        assert rel(f["M"](q=q), M_closed(q)) < 1e-12
        assert rel(f["g"](q=q), g_closed(q)) < 1e-12


def test_lambdify_forward_keyword_chooses_the_algorithm():
    """``lambdify(forward=...)`` selects ABA or CRBA + LDLᵀ for the recursive route: different
    kernels (so different cache entries), the same q̈; refused where it means nothing."""
    arm = zoo("ur5")
    aba = arm.lambdify(arm.defaults, route="recursive", forward="aba")
    crba = arm.lambdify(arm.defaults, route="recursive", forward="crba")
    assert aba.key != crba.key and aba.source != crba.source
    rng = np.random.default_rng(11)
    q, qd, tau = rng.uniform(-1.5, 1.5, (3, 4, arm.n))
    a, c = aba.forward_dynamics(q, qd, tau), crba.forward_dynamics(q, qd, tau)
    np.testing.assert_allclose(a, c, rtol=1e-11, atol=1e-11 * np.abs(c).max())
    with pytest.raises(ld.LagdynError, match="unknown forward-dynamics method 'lu'"):
        arm.lambdify(arm.defaults, route="recursive", forward="lu")
    with pytest.raises(ld.LagdynError, match="closed route"):
        zoo("planar_3r").lambdify(zoo("planar_3r").defaults, route="closed", forward="aba")
    with pytest.raises(ld.LagdynError, match="need a robot chain"):
        ld.zoo.double_pendulum().lambdify(forward="aba")

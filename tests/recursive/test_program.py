"""lagdyn.recursive.program: straight-line programs, their evaluation through codegen, customization at build time."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from helpers import TREE, compiled, states, zoo
from lagdyn import recursive as programs


def test_batched_program_evaluation():
    arm = ld.zoo.get("spatial_3r")
    M = compiled(arm, "M")
    q = np.random.default_rng(1).uniform(-2, 2, (4, 2, 3))
    out = M(q=q)
    assert out.shape == (4, 2, 3, 3)
    np.testing.assert_allclose(out[3, 1], M(q=q[3, 1]), rtol=0, atol=0)


def test_program_evaluates_through_codegen():
    """A program's lambdify is a one-kernel codegen program printed by codegen.python."""
    arm = ld.robot.from_dh(
        [(0, 1, 0)], parameters="numeric", inertia=[{"m": 2, "com": (-0.5, 0, 0)}]
    )
    prog = arm.program("M")
    kernel = prog.kernel_program(arm.defaults).kernels["M"]
    assert kernel.shape == prog.shape == (1, 1)  # a 1 × 1 matrix stays a matrix
    M = prog.lambdify(arm.defaults)
    assert M(q=np.zeros(1)).shape == (1, 1) and M(q=np.zeros((4, 1))).shape == (4, 1, 1)
    assert "def M_batch(" in prog.source(arm.defaults)
    f = arm.program("qdd").lambdify(arm.defaults)
    with pytest.raises(ld.LagdynError, match="reads tau"):
        f(q=np.zeros(1), qd=np.zeros(1))
    out = f(q=np.zeros(1) + 1e-30j, qd=np.zeros(1), tau=np.ones(1))  # complex step
    assert out.dtype == np.complex128
    with pytest.raises(ld.UnboundParameterError):
        ld.zoo.get("puma560", parameters="symbolic").program("g").lambdify({})


def test_recursive_model_is_a_deprecated_alias():
    arm = ld.zoo.get("planar_3r")
    with pytest.warns(DeprecationWarning, match="recursive_model"):
        model = arm.recursive_model()
    assert model.route == "recursive"
    q = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(
        model.g(q), arm.program("g").lambdify(arm.defaults)(q=q), rtol=1e-13, atol=1e-13
    )


def test_programs_have_no_dead_code_and_no_trivial_terms():
    for name in ("planar_3r", "puma560"):
        arm = zoo(name)
        for key in ("tau", "M", "qdd", "C") if name == "planar_3r" else ("tau", "M"):
            prog = arm.program(key)
            used: set = set()
            for e in prog.outputs:
                used |= e.free_symbols
            for s, e in reversed(prog.body):
                assert s in used, f"{name} {key}: {s} = {e} is never used"
                used |= e.free_symbols
                assert not e.is_Number
                assert not e.has(sp.pi)  # cos(π/2) and friends are folded away
    planar = ld.zoo.get("planar_3r").program("tau")
    assert not any(e.has(sp.Symbol("_ldq0", real=True)) and e.is_Add for _, e in planar.body[:1])
    # a planar arm about z needs no rotation about x or y: every sin/cos is of one joint angle
    funcs = {f for _, e in planar.body for f in e.atoms(sp.sin, sp.cos)}
    assert len(funcs) == 6


def test_numeric_parameters_shrink_the_program():
    sym = programs.rnea(ld.zoo.get("puma560", parameters="symbolic").chain)
    num = zoo("puma560").program("tau")
    assert len(num.body) < len(sym.body)
    assert num.parameters == (sp.Symbol("g", positive=True),)
    # link 1 turns about its own z axis at the base: only ZZ1 of its ten parameters remains
    assert len(sym.parameters) == 52


def test_symbolic_defaults_reproduce_numeric_chain():
    sym = ld.robot.from_urdf(TREE)
    num = ld.robot.from_urdf(TREE, parameters="numeric")
    assert sym.defaults.keys() >= set(sym.parameters)
    for q, v, a, _ in states(4, 3, 2):
        np.testing.assert_allclose(
            compiled(sym, "tau")(q=q, qd=v, qdd=a),
            compiled(num, "tau")(q=q, qd=v, qdd=a),
            rtol=1e-12,
        )


def test_unbound_parameter_is_named():
    arm = ld.robot.from_dh([(0, 1, 0)])
    with pytest.raises(ld.UnboundParameterError, match="M1"):
        arm.program("M").lambdify({})

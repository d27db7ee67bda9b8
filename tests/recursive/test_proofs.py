"""Exact identities of the recursive programs (lagdyn.recursive.proofs).

Every identity is checked to hold on the zoo arms and on random DH chains, and to FAIL on
programs tampered with in ways a bug could produce (a Coriolis matrix with the same C q̇ but
not Christoffel-consistent, a one-part-in-2^80 change of a coefficient, a wrong sign in one
entry) — a randomized test that said "True" too easily would fail here.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn import recursive as programs
from lagdyn.errors import LagdynError
from lagdyn.recursive import proofs

FEW = settings(max_examples=4, deadline=None)


@functools.cache
def arm(name):
    return ld.zoo.get(name, parameters="symbolic") if name != "planar_3r" else ld.zoo.get(name)


def tampered(system, name, outputs):
    """A copy of ``system`` whose program ``name`` has new ``outputs`` (others shared)."""
    copy = type(system)(system.chain)
    prog = system.program(name)
    copy.__dict__["_programs"] = {name: dataclasses.replace(prog, outputs=tuple(outputs))}
    return copy


@pytest.mark.parametrize("name", ["planar_3r", "spatial_3r", "puma560"])  # UR5: examples/ur5.py
def test_every_identity_holds_on_the_zoo_arms(name):
    report = proofs.prove(arm(name))
    assert report.results == {c: True for c in proofs.CHECKS}
    assert report.ok
    assert all(0 < report.error_bound[c] < 2.0**-100 for c in proofs.CHECKS)
    assert all(report.draws[c] >= 2 for c in proofs.CHECKS)


def test_security_sets_the_error_bound():
    loose = proofs.prove(arm("spatial_3r"), ["skew"], security=20)
    tight = proofs.prove(arm("spatial_3r"), ["skew"], security=300)
    assert loose.error_bound["skew"] < 2.0**-20 and tight.error_bound["skew"] < 2.0**-300
    assert loose.draws["skew"] < tight.draws["skew"]


def test_a_coriolis_matrix_with_the_same_c_qdot_but_not_christoffel_is_caught():
    """C' = C + S with S q̇ = 0: C' q̇ + g = h still holds, Ṁ − 2C' is not skew."""
    base = arm("spatial_3r")
    C = list(base.program("C").outputs)
    v = programs.input_symbols(3)["qd"]
    C[0] += v[1]  # row 0 of S = (q̇₁, −q̇₀, 0): S q̇ = 0
    C[1] -= v[0]
    bad = tampered(base, "C", C)
    report = proofs.prove(bad, ["skew", "coriolis"])
    assert report.results == {"skew": False, "coriolis": True}
    assert report.draws["skew"] == 1  # the first exact point is a counterexample


def test_a_change_of_one_part_in_2_to_the_80_is_caught():
    base = arm("puma560")
    M = list(base.program("M").outputs)
    M[4] = M[4] * (1 + sp.Rational(1, 2**80))  # M[0, 4] only: no longer symmetric either
    bad = tampered(base, "M", M)
    report = proofs.prove(bad, ["symmetric", "inverse", "skew"])
    assert report.results == {"symmetric": False, "inverse": False, "skew": False}


def test_a_sign_error_in_the_energy_is_caught():
    base = arm("spatial_3r")
    prog = proofs._Programs(base).energy()
    body = list(prog.body)
    sym, rhs = body[-1]
    body[-1] = (sym, -rhs)
    bad = type(base)(base.chain)
    bad.__dict__["_proof_programs"] = {"E": dataclasses.replace(prog, body=tuple(body))}
    assert proofs.prove(bad, ["passive"]).results == {"passive": False}


def test_a_wrong_forward_dynamics_is_caught():
    base = arm("spatial_3r")
    qdd = list(base.program("qdd").outputs)
    qdd[2] = qdd[2] * (1 + sp.Rational(1, 10**20))
    report = proofs.prove(tampered(base, "qdd", qdd), ["forward"])
    assert report.results == {"forward": False}


_ANGLES = st.sampled_from([0, sp.pi / 2, -sp.pi / 2, sp.Rational(3, 10), sp.Rational(7, 10)])
_LENGTHS = st.sampled_from([0, sp.Rational(1, 2), sp.Rational(3, 7), sp.Symbol("l", positive=True)])


@FEW
@given(
    st.lists(
        st.tuples(_LENGTHS, _LENGTHS, _ANGLES, st.sampled_from("RRP")), min_size=2, max_size=4
    ),
    st.sampled_from(["standard", "modified"]),
)
def test_random_dh_chains_satisfy_every_identity(rows, convention):
    """Prismatic joints, symbolic lengths, transcendental constant angles cos(3/10)."""
    table = [{"d": d, "a": a, "alpha": al, "joint": j} for d, a, al, j in rows]
    system = ld.robot.from_dh(table, convention)
    report = proofs.prove(system)
    assert report.results == {c: True for c in proofs.CHECKS}, report.lines()


def test_constant_angles_are_drawn_on_the_circle():
    """cos(3/10), sin(3/10) in the programs: each pair is one more circle variable."""
    system = ld.robot.from_dh([(0, 1, sp.Rational(3, 10)), (0, 1, 0), (0, 1, 0)])
    problem = proofs._Problem.scan(system.chain, {"M": system.program("M")})
    assert (sp.cos(sp.Rational(3, 10)), sp.sin(sp.Rational(3, 10)), None) in problem.circles
    assert proofs.prove(system, ["skew", "symmetric"]).ok


def test_floating_point_rotations_give_unknown_not_false():
    """A rotation rounded to floats is not exactly orthogonal: undecided, never 'fails'."""
    system = ld.robot.from_dh([(0, 1, sp.Float(0.3)), (0, 1, sp.Float(1.1)), (0, 1, 0)])
    report = proofs.prove(system, ["skew", "passive", "inverse"])
    assert report.floats
    # CRBA, RNEA and the Coriolis program use orthogonality differently: no exact identity
    assert report.results == {"skew": None, "passive": None, "inverse": None}
    assert "floating-point" in " ".join(report.lines())


def test_circle_points_are_exact_and_distinct():
    import secrets

    rng = secrets.SystemRandom()
    pts = {proofs._circle_point(rng) for _ in range(50)}
    assert len(pts) == 50
    for X, Y, h in pts:
        assert X * X + Y * Y == h * h
    (h,) = {p[2] for p in pts}
    assert h == math.prod(a * a + b * b for a, b in proofs._gaussian_primes())


_VARS = sp.symbols("c0 s0 c1 s1 v")


@settings(max_examples=40, deadline=None)
@given(
    st.recursive(
        st.sampled_from([*_VARS, sp.Integer(2), sp.Rational(-1, 3)]),
        lambda sub: st.one_of(
            st.tuples(sub, sub).map(lambda ab: ab[0] + ab[1]),
            st.tuples(sub, sub).map(lambda ab: ab[0] * ab[1]),
            st.tuples(sub, st.integers(0, 3)).map(lambda be: be[0] ** be[1]),
        ),
        max_leaves=12,
    )
)
def test_degree_bounds_are_upper_bounds(expr):
    """The bound the error probability rests on, against sympy's exact degrees."""
    c0, s0, c1, s1, v = _VARS
    dom = proofs._Degrees(2)
    env = {c0: dom.unit(0), s0: dom.unit(0), c1: dom.unit(1), s1: dom.unit(1), v: dom.unit(2)}
    (num, den) = proofs._evaluate(sp.sympify(expr), env, dom)
    assert den == (0, 0, 0)
    poly = sp.Poly(sp.expand(expr), *_VARS) if sp.expand(expr).free_symbols else None
    if poly is None:
        return
    for mono in poly.monoms():
        assert mono[0] + mono[1] <= num[0]
        assert mono[2] + mono[3] <= num[1]
        assert mono[4] <= num[2]


def test_scaled_arithmetic_equals_fractions():
    H = 7 * 12
    sc = proofs._Scaled(H)
    a, b = sc.const(Fraction(5, 12)), sc.const(Fraction(-3))
    x = sc.add([sc.mul([a, a, b]), sc.pow(a, 3), b])
    assert sc.fraction(x) == Fraction(5, 12) ** 2 * -3 + Fraction(5, 12) ** 3 - 3


def test_bad_inputs_are_named():
    with pytest.raises(LagdynError, match="robot chain"):
        proofs.prove(ld.zoo.double_pendulum())
    with pytest.raises(LagdynError, match="unknown check"):
        proofs.prove(arm("planar_3r"), ["skw"])
    with pytest.raises(LagdynError, match="security"):
        proofs.prove(arm("planar_3r"), security=5)


def test_report_lines_and_attribute_access():
    report = proofs.prove(arm("planar_3r"), ["skew", "passive"])
    assert report.skew is True and report.passive is True
    with pytest.raises(AttributeError):
        _ = report.forward
    lines = report.lines()
    assert lines[0].startswith("Ṁ − 2C skew-symmetric") and "proved" in lines[0]


def test_recursive_route_of_is_skew_symmetric():
    system = arm("ur5")
    assert system.is_skew_symmetric(route="recursive") is True
    with pytest.raises(LagdynError, match="route"):
        system.is_skew_symmetric(route="fast")
    with pytest.raises(LagdynError, match="closed route"):
        system.is_skew_symmetric(sp.zeros(6, 6), route="recursive")
    rounded = ld.robot.from_dh([(0, 1, sp.Float(0.3)), (0, 1, sp.Float(1.1)), (0, 1, 0)])
    with pytest.raises(LagdynError, match="floating-point"):
        rounded.is_skew_symmetric(route="recursive")


def test_arms_with_friction_and_armature():
    """Friction is left out of the identities, armature (in M and E) is in."""
    spec = {"m": 1, "com": (-0.5, 0, 0), "I": (0, 0.08, 0.08, 0, 0, 0)}
    spec |= {"viscous": 0.3, "coulomb": 0.1, "armature": 0.2}
    system = ld.robot.from_dh([(0, 1, 0)] * 3, inertia=[spec] * 3, friction=True)
    assert proofs.prove(system).ok


def test_cli_check_route_recursive(capsys):
    from lagdyn.cli import main

    assert main(["check", "spatial_3r", "--route", "recursive"]) == 0
    out = capsys.readouterr().out
    assert "recursive programs" in out and out.count("proved (error probability") == 6
    assert "all proofs passed" in out
    assert main(["check", "double_pendulum", "--route", "recursive"]) == 2
    assert "needs a robot arm" in capsys.readouterr().err


def test_a_counterexample_at_a_non_generic_constant_angle_is_undecided():
    """cos(π/7) is algebraic: failing elsewhere on the circle does not refute it there."""
    base = ld.robot.from_dh([(0, 1, sp.pi / 7), (0, 1, 0)])
    problem = proofs._Problem.scan(base.chain, {"M": base.program("M")})
    assert problem.inexact and not problem.floats
    assert proofs.prove(base, ["skew", "inverse"]).ok  # True stays sound
    C = list(base.program("C").outputs)
    C[0] += programs.input_symbols(2)["qd"][1]
    assert proofs.prove(tampered(base, "C", C), ["skew"]).results == {"skew": None}

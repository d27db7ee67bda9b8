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
    sampled = [c for c in proofs.CHECKS if c not in proofs.EXACT_BY_DEFAULT]
    assert all(0 < report.error_bound[c] < 2.0**-100 for c in sampled)
    assert all(report.draws[c] >= 2 for c in sampled)
    for c in proofs.EXACT_BY_DEFAULT:  # decisions: no draws, no error probability
        assert report.exact[c] and report.error_bound[c] == 0 and report.draws[c] == 0


def test_security_sets_the_error_bound():
    loose = proofs.prove(arm("spatial_3r"), ["skew"], security=20, method="sample")
    tight = proofs.prove(arm("spatial_3r"), ["skew"], security=300, method="sample")
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
    assert report.exact["skew"] and not report.exact["coriolis"]
    sampled = proofs.prove(bad, ["skew"], method="sample")
    assert sampled.results == {"skew": False}
    assert sampled.draws["skew"] == 1  # the first exact point is a counterexample


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
    assert proofs.is_passive(bad) is False  # the exact decision refutes it too


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
    assert "recursive programs" in out and out.count(": proved (") == 6
    assert out.count("proved (exact") == len(proofs.EXACT_BY_DEFAULT)
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


# ---------------------------------------------------------------- exact decisions (issue 25)
@pytest.mark.parametrize("name", ["ur5", "puma560"])
def test_the_skew_proof_on_the_programs_is_a_decision(name):
    """Symbolic inertial parameters, ten per link: the exact route, no closed form."""
    system = ld.zoo.get(name, parameters="symbolic")
    report = proofs.prove(system, ["skew"])
    assert report.results == {"skew": True}
    assert report.exact == {"skew": True} and report.error_bound == {"skew": 0.0}
    assert "M" not in system.__dict__ and "C" not in system.__dict__  # closed form not built


def test_the_skew_proof_of_the_panda_is_a_decision():
    system = ld.zoo.get("panda", parameters="symbolic")
    assert system.is_skew_symmetric() is True
    assert "M" not in system.__dict__


def test_a_wrong_coriolis_matrix_of_a_six_joint_arm_is_refuted_exactly():
    """C' = C + S with S q̇ = 0 on the PUMA 560's program: the exact proof says False."""
    base = arm("puma560")
    C = list(base.program("C").outputs)
    v = programs.input_symbols(6)["qd"]
    C[6 * 2 + 4] += v[3]  # S[2, 4] = q̇₃, S[3, ... ] keeps S q̇ = 0 with S[2, 3] = -q̇₄
    C[6 * 2 + 3] -= v[4]
    bad = tampered(base, "C", C)
    report = proofs.prove(bad, ["skew"], method="exact")
    assert report.results == {"skew": False} and report.exact["skew"]


def test_a_tiny_change_of_m_is_refuted_exactly():
    base = arm("spatial_3r")
    M = list(base.program("M").outputs)
    M[1] = M[1] * (1 + sp.Rational(1, 2**80))  # M[0, 1] only: no longer symmetric either
    report = proofs.prove(tampered(base, "M", M), ["symmetric", "skew", "inverse"], method="exact")
    assert report.results == {"symmetric": False, "skew": False, "inverse": False}
    assert all(report.exact.values())


def test_passivity_on_the_programs_is_a_decision():
    report = proofs.prove(arm("spatial_3r"), ["passive", "coriolis", "inverse"], method="exact")
    assert report.results == {"passive": True, "coriolis": True, "inverse": True}
    assert all(report.exact.values())
    assert proofs.is_passive(arm("planar_3r")) is True


def test_structure_and_robot_is_skew_symmetric_take_the_program_route():
    """``structure.is_skew_symmetric`` and ``RobotSystem.is_skew_symmetric()`` decide on
    the programs: the closed-form M and C are never built (the old route built both)."""
    system = ld.zoo.get("spatial_3r", parameters="symbolic")
    assert ld.structure.is_skew_symmetric(system) is True
    assert system.is_skew_symmetric() is True
    assert "M" not in system.__dict__ and "C" not in system.__dict__
    assert system.is_skew_symmetric(route="closed") is True  # the closed form on request
    assert "C" in system.__dict__
    with pytest.raises(LagdynError, match="route"):
        ld.structure.is_skew_symmetric(system, route="recursive")


def test_floating_point_programs_are_undecided_on_the_programs():
    """(The default route then hands them to the closed form, as before this route.)"""
    rounded = ld.robot.from_dh([(0, 1, sp.Float(0.3)), (0, 1, sp.Float(1.1)), (0, 1, 0)])
    assert proofs.is_skew_symmetric(rounded) is None
    assert proofs.prove(rounded, ["skew"]).exact == {"skew": True}


def test_bad_method_is_named():
    with pytest.raises(LagdynError, match="method"):
        proofs.prove(arm("planar_3r"), ["skew"], method="guess")


_TORUS = sp.symbols("c0 s0 c1 s1 p")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.tuples(*[st.integers(0, 4)] * 5)), max_size=6),
    st.lists(st.tuples(st.integers(-3, 3), st.tuples(*[st.integers(0, 3)] * 5)), max_size=4),
)
def test_torus_normal_form_is_zero_exactly_on_the_ideal(p_terms, q_terms):
    """NF(P + (c0² + s0² − 1) Q) = NF(P), and NF(P) = 0 only when P vanishes on the torus."""
    import symengine as se

    c0, s0, c1, s1, p = (se.Symbol(str(x)) for x in _TORUS)

    def poly(terms):
        return se.Add(*[k * c0**a * s0**b * c1**c * s1**d * p**e for k, (a, b, c, d, e) in terms])

    dom = proofs._Torus([(c0, s0), (c1, s1)])
    P, Q = poly(p_terms), poly(q_terms)
    assert dom.normal_form(P + (c0**2 + s0**2 - 1) * Q) == dom.normal_form(P)
    nf = dom.normal_form(P)
    assert all(
        not (a.is_Pow and a.args[0] in (s0, s1) and int(a.args[1]) >= 2) for a in nf.atoms(se.Pow)
    )
    if nf != 0:  # nonzero normal form: a point of the torus where P does not vanish
        import math as m

        vals = [(m.cos(t), m.sin(t)) for t in (0.3, 1.1, 2.0, 2.9, 4.4)]
        f = se.lambdify([c0, s0, c1, s1, p], [P])
        assert any(
            abs(f(a, b, c, d, e)) > 1e-9 for (a, b) in vals for (c, d) in vals for e in (0.7, 1.9)
        )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.tuples(*[st.integers(0, 3)] * 5)), max_size=5),
    st.lists(st.tuples(st.integers(-3, 3), st.tuples(*[st.integers(0, 3)] * 5)), max_size=5),
    st.integers(0, 3),
)
def test_torus_products_are_the_reduced_products(x_terms, y_terms, e):
    """The domain's product (split on a shared sine, or reduced after expanding) and power
    equal the normal form of the plain product."""
    import symengine as se

    c0, s0, c1, s1, p = (se.Symbol(str(x)) for x in _TORUS)
    dom = proofs._Torus([(c0, s0), (c1, s1)])

    def value(terms):  # a reduced value of the domain, built through it
        parts = []
        for k, (a, b, c, d, f) in terms:
            parts.append(dom.mul([se.Integer(k), dom.pow(c0, a), dom.pow(s0, b), c1**c, s1**d]))
            parts[-1] = dom.mul([parts[-1], dom.pow(p, f)])
        return dom.add(parts)

    X, Y = value(x_terms), value(y_terms)
    assert dom.is_zero(dom.mul([X, Y]) - se.expand(X * Y))
    assert dom.is_zero(dom.mul([X, s0, Y, s0]) - se.expand(X * Y * s0**2))
    assert dom.is_zero(dom.pow(X, e) - se.expand(X**e))


def test_a_floating_base_is_refused_not_half_checked():
    """A floating robot's programs are (n + 6)² wide: the fixed-base residuals would read
    only a corner of them (before: a verdict on 9 of the 81 entries of M)."""
    from lagdyn.robot.floating import EXAMPLE_URDF

    robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
    with pytest.raises(LagdynError, match="fixed-base"):
        proofs.prove(robot, ["skew"])

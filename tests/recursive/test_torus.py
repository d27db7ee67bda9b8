"""The packed torus arithmetic of the exact proofs (lagdyn.recursive.torus).

Checked against independent references: the symengine domain of the proofs
(``proofs._Torus``, expand-then-reduce), sympy's own differentiation of the polynomial
with c = cos θ, s = sin θ, and ``fractions.Fraction`` arithmetic for the coefficients. The
fallback to the symengine domain when an exponent outgrows the packed fields is exercised
on a real arm, with a tampered Coriolis program that must still be refuted.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.recursive import proofs
from lagdyn.recursive.torus import PackedTorus, TorusOverflowError

NAMES = sp.symbols("c0 s0 c1 s1 x0")
COEF = st.fractions(min_value=-5, max_value=5, max_denominator=7)
TERMS = st.lists(st.tuples(COEF, st.tuples(*[st.integers(0, 3)] * 5)), max_size=5)


def packed(dom, terms):
    """Σ coef · c0^a s0^b c1^c s1^d x0^e built through the domain's own operations."""
    (c0, s0), (c1, s1) = dom.circle(0), dom.circle(1)
    x0 = dom.var(0)
    parts = []
    for coef, (a, b, c, d, e) in terms:
        factors = [dom.const(Fraction(coef))]
        factors += [dom.pow(v, k) for v, k in ((c0, a), (s0, b), (c1, c), (s1, d), (x0, e))]
        parts.append(dom.mul(factors))
    return dom.add(parts)


def as_sympy(dom, value):
    by_name = {str(s): s for s in NAMES}
    return sp.Add(
        *[
            sp.Rational(c.numerator, c.denominator)
            * sp.Mul(*[by_name[k] ** e for k, e in powers.items()])
            for c, powers in dom.terms(value)
        ]
    )


def plain(terms):
    c0, s0, c1, s1, x0 = NAMES
    return sp.Add(
        *[
            sp.Rational(q.numerator, q.denominator) * c0**a * s0**b * c1**c * s1**d * x0**e
            for q, (a, b, c, d, e) in terms
        ]
    )


def symengine_normal_form(expr):
    import symengine as se

    c0, s0, c1, s1, _ = (se.Symbol(str(s)) for s in NAMES)
    nf = proofs._Torus([(c0, s0), (c1, s1)]).normal_form(se.sympify(expr))
    return sp.sympify(nf)


@settings(max_examples=40, deadline=None)
@given(TERMS, TERMS, st.integers(0, 3))
def test_products_and_powers_are_the_normal_forms_of_the_plain_ones(x_terms, y_terms, e):
    """The packed product and power equal the symengine domain's normal form of the plain
    (unreduced) product: one canonical form, two implementations."""
    dom = PackedTorus(circles=2, others=1)
    X, Y = packed(dom, x_terms), packed(dom, y_terms)
    px, py = plain(x_terms), plain(y_terms)
    for value, reference in (
        (X, px),
        (dom.mul([X, Y]), px * py),
        (dom.pow(X, e), px**e),
        (dom.add([X, dom.mul([dom.const(Fraction(-3, 2)), Y])]), px - sp.Rational(3, 2) * py),
    ):
        assert sp.expand(as_sympy(dom, value) - symengine_normal_form(reference)) == 0
        # the normal form: no sine above degree one
        assert all(p.get("s0", 0) <= 1 and p.get("s1", 0) <= 1 for _, p in dom.terms(value))


@settings(max_examples=40, deadline=None)
@given(TERMS, TERMS)
def test_zero_exactly_on_the_torus_ideal(p_terms, q_terms):
    """P + (c0² + s0² − 1) Q has the normal form of P; it is zero only when P is."""
    dom = PackedTorus(circles=2, others=1)
    P, Q = packed(dom, p_terms), packed(dom, q_terms)
    c0, s0 = dom.circle(0)
    ideal = dom.add([dom.mul([c0, c0]), dom.mul([s0, s0]), dom.const(Fraction(-1))])
    assert dom.is_zero(ideal)
    total = dom.add([P, dom.mul([ideal, Q])])
    assert dom.terms(total) == dom.terms(P)
    assert dom.is_zero(P) == (symengine_normal_form(plain(p_terms)) == 0)


@settings(max_examples=30, deadline=None)
@given(TERMS)
def test_rate_is_the_time_derivative(terms):
    """rate(P) with ċ = −s ω, ṡ = c ω and ẋ = r equals d/dt P(cos θ, sin θ, x) computed by
    sympy, at exact random points of the circles."""
    dom = PackedTorus(circles=2, others=3)  # x0, then the rates ω0 (x1) and r (x2)
    P = packed(dom, terms)
    omega, r = dom.var(1), dom.var(2)
    rate = dom.rate(P, [(0, omega)], [(4, r)])  # circle 0 moves; circle 1 is a constant angle
    t = sp.Symbol("t")
    c0, s0, c1, s1, x0 = NAMES
    w, v = sp.symbols("w v")
    theta, xt = sp.Function("theta")(t), sp.Function("x")(t)
    along = {c0: sp.cos(theta), s0: sp.sin(theta), x0: xt}
    reference = plain(terms).subs(along).diff(t)
    reference = reference.subs({theta.diff(t): w, xt.diff(t): v})
    names = {"x1": w, "x2": v, **{str(s): s for s in NAMES}}
    got = sp.Add(
        *[
            sp.Rational(c.numerator, c.denominator)
            * sp.Mul(*[names[k] ** e for k, e in powers.items()])
            for c, powers in dom.terms(rate)
        ]
    ).subs(along)
    for a, b in ((3, 4), (5, 12), (8, 15)):  # exact points (cos θ, sin θ) = (a, b)/h
        h = math.isqrt(a * a + b * b)
        point = {sp.cos(theta): sp.Rational(a, h), sp.sin(theta): sp.Rational(b, h)}
        point.update({xt: sp.Rational(2, 3), w: sp.Rational(5, 7), v: sp.Rational(-3, 2)})
        point.update({c1: sp.Rational(3, 5), s1: sp.Rational(-4, 5)})
        assert sp.expand(got.subs(point) - reference.subs(point)) == 0


def test_large_denominators_stay_exact():
    """Many fractions multiplied and added: the common factor is divided out, the value kept."""
    dom = PackedTorus(circles=0, others=1)
    x = dom.var(0)
    value, reference = dom.one, Fraction(1)
    for k in range(2, 40):
        f = Fraction(10**k + 1, 7**k)
        value = dom.mul([value, dom.add([x, dom.const(f)])])
        reference *= f
    constant = [c for c, powers in dom.terms(value) if not powers]
    assert constant == [reference]
    terms, den = value
    assert den <= 2**64 or math.gcd(den, *terms.values()) == 1  # reduced once it grew


def test_exponents_beyond_the_fields_are_refused():
    dom = PackedTorus(circles=1, others=1)
    x = dom.var(0)
    assert dom.terms(dom.pow(x, 127)) == [(Fraction(1), {"x0": 127})]
    with pytest.raises(TorusOverflowError):
        dom.pow(x, 128)
    with pytest.raises(ZeroDivisionError, match="no division"):
        dom.inv(x)


class _Overflowing(PackedTorus):
    """A packed domain whose products always overflow (forces the fallback path)."""

    def _mul2(self, a, b):
        raise TorusOverflowError("forced")


class _Counted(proofs._Torus):
    made = 0

    def __init__(self, *args, **kwargs):
        type(self).made += 1
        super().__init__(*args, **kwargs)


def test_the_symengine_domain_decides_when_the_packed_fields_overflow(monkeypatch):
    """The fallback path: with the packed domain made to overflow, the proofs still decide
    in symengine (True for the arm and a floating robot, False for a Coriolis program with
    one entry doubled)."""
    from lagdyn.recursive.floating import decide_skew
    from lagdyn.robot.floating import EXAMPLE_URDF

    monkeypatch.setattr(proofs, "PackedTorus", _Overflowing)
    monkeypatch.setattr(proofs, "_Torus", _Counted)
    arm = ld.zoo.get("spatial_3r", parameters="symbolic")
    assert proofs.is_skew_symmetric(arm) is True
    C = arm.program("C")
    outputs = list(C.outputs)
    outputs[1] = 2 * outputs[1]
    bad = type(arm)(arm.chain)
    bad.__dict__["_programs"] = {"C": dataclasses.replace(C, outputs=tuple(outputs))}
    assert proofs.is_skew_symmetric(bad) is False
    robot = ld.robot.from_urdf(
        EXAMPLE_URDF.replace('rpy="0.1 0 0"', 'rpy="0 0 0"'), base="floating"
    )
    assert decide_skew(robot.base) is True
    assert _Counted.made == 3

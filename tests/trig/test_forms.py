"""The natural form: equal to the canonical form, free of cancelling constants."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.trig.forms import natural_form
from lagdyn.zoo.robots import LARGE

ZOO = [n for n in ld.zoo.names() if n not in ("n_link_pendulum", *LARGE)]


@pytest.mark.parametrize("name", ZOO)
def test_natural_form_equals_the_canonical_form(name):
    sys = ld.zoo.get(name)
    for e in [*sys.M, *sys.h, *sys.g, sys.U]:
        assert ld.structure.is_zero(natural_form(e) - e), e


def test_spherical_pendulum_reads_as_written():
    sys = ld.zoo.get("spherical_pendulum")
    theta = sys.q[0]
    l, m = sp.Symbol("l", positive=True), sp.Symbol("m", positive=True)
    assert sys.M[1, 1] != l**2 * m * sp.sin(theta) ** 2  # canonical: cos 2θ
    assert natural_form(sys.M[1, 1]) == l**2 * m * sp.sin(theta) ** 2
    assert not natural_form(sys.h[1]).has(sp.sin(2 * theta))


def test_furuta_constants_cancel_symbolically():
    sys = ld.zoo.get("furuta_pendulum")
    m11 = natural_form(sys.M[0, 0])
    theta2 = sys.q[1]
    # no constant half of J2 left over to cancel against a cos(2θ2) term numerically
    assert not m11.has(sp.cos(2 * theta2))
    assert sp.Symbol("J2", positive=True) * sp.sin(theta2) ** 2 in sp.expand(m11).args


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    st.integers(1, 4),
    st.integers(1, 4),
)
def test_random_multiple_angle_sums(coeffs, j, k):
    a, b = sp.symbols("a b")
    e = (
        coeffs[0]
        + coeffs[1] * sp.cos(j * a)
        + coeffs[2] * sp.sin(k * (a - b))
        + coeffs[3] * sp.cos(j * a) * sp.sin(k * b)
    )
    out = natural_form(e)
    assert ld.structure.is_zero(out - e, [a, b])
    # no multiple angles remain
    assert all(
        sp.factor_terms(f.args[0]).as_coeff_Mul()[0] in (1, -1) for f in out.atoms(sp.sin, sp.cos)
    )


def test_natural_form_evaluates_accurately_near_zero():
    theta = sp.Symbol("theta")
    canonical = sp.Rational(1, 2) - sp.cos(2 * theta) / 2
    natural = natural_form(canonical)
    value = 1e-9
    exact = sp.sin(sp.Float(value, 50)) ** 2
    f_nat = sp.lambdify(theta, natural, "math")(value)
    f_can = sp.lambdify(theta, canonical, "math")(value)
    assert abs(f_nat - float(exact)) <= 1e-15 * float(exact)
    assert abs(f_can - float(exact)) > 1e-3 * float(exact)  # the canonical form cancels


def test_kinetic_energy_comes_from_the_canonical_mass_matrix():
    # the raw split of a particle Lagrangian carries sin² + cos² pairs; T must not
    sys = ld.zoo.double_pendulum()
    a = sys.q[0]
    assert not sp.expand(sys.T).has(sp.sin(a) ** 2)
    assert ld.structure.is_zero(
        sys.T - (sp.Matrix(sys.qd).T * sys._M_dyn * sp.Matrix(sys.qd))[0] / 2
    )

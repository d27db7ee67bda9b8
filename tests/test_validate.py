"""Models are validated before anything is derived or compiled (issue 11, items 3 and 4).

Undefined or complex mass matrices are refused with a message naming the entry; valid
mass matrices with a wide dynamic range or huge values are never called singular; and a
singular M hidden behind a cancellation is still found.
"""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.errors import SingularMassMatrixError, UndefinedExpressionError

x, y = ld.coordinates("x y")
xd, yd = ld.velocities([x, y])


@pytest.mark.parametrize(
    ("coefficient", "words"),
    [
        (2 / (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1), "divides by sin(x(t))**2 + cos(x(t))**2 - 1"),
        (1 / (sp.cos(x - y) - sp.cos(x) * sp.cos(y) - sp.sin(x) * sp.sin(y)), "identically zero"),
        (sp.sqrt(-1), "imaginary unit"),
        (sp.log(-1), "imaginary unit"),
        (sp.asin(2), "asin(2) is not a real number"),
        (sp.acos(3), "acos(3) is not a real number"),
        (sp.Integer(0) ** -1, "zoo"),
    ],
)
def test_undefined_or_complex_mass_matrix_is_refused(coefficient, words):
    L = coefficient * xd**2 / 2 + yd**2 / 2
    with pytest.raises(UndefinedExpressionError, match="M\\[1, 1\\]") as info:
        ld.LagrangianSystem(L, [x, y])
    assert words in str(info.value)


def test_undefined_potential_and_forces_are_refused():
    with pytest.raises(UndefinedExpressionError, match="^V is not real"):
        ld.LagrangianSystem(xd**2 / 2 - sp.asin(3) * x, [x])
    with pytest.raises(UndefinedExpressionError, match=r"forces\[1\]"):
        ld.LagrangianSystem(xd**2 / 2, [x], forces=[sp.log(-2) * x])


def test_float_constant_outside_double_range_is_refused():
    with pytest.raises(UndefinedExpressionError, match="outside the range of a double"):
        ld.LagrangianSystem(sp.Float("1e310") * xd**2 + yd**2, [x, y])


def test_undefined_model_fails_the_cli_with_one_line(capsys):
    from lagdyn.cli import main

    code = main(
        ["check", "--lagrangian", "dot(x)**2/(sin(x)**2+cos(x)**2-1)", "--coordinates", "x"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "identically zero" in err
    assert "all proofs passed" not in err


def test_valid_definitions_are_accepted():
    # a real square root and a real arcsine of a coordinate are fine away from the edge
    sys = ld.LagrangianSystem((2 + sp.asin(sp.Rational(1, 2)) + sp.cos(x)) * xd**2 + yd**2, [x, y])
    assert sys.n == 2


# ---------------------------------------------------------------------------- singularity
def test_heavy_cart_with_light_rotor_is_not_singular():
    sys = ld.LagrangianSystem(sp.Float(1e4) * xd**2 / 2 + sp.Float(1e-6) * yd**2 / 2, [x, y])
    assert sys.M == sp.diag(sp.Float(1e4), sp.Float(1e-6))
    assert ld.structure.is_positive_definite(sys.M) is True


def test_coupled_wide_range_model_is_not_singular():
    # a cart of 1e5 kg carrying a 1e-5 kg pendulum: the coupling is tiny, M is regular
    M_cart, m, l = sp.Float(1e5), sp.Float(1e-5), sp.Float(0.3)
    T = (M_cart + m) * xd**2 / 2 + m * l * sp.cos(y) * xd * yd + m * l**2 * yd**2 / 2
    sys = ld.LagrangianSystem(T, [x, y])
    assert sys.n == 2


def test_values_that_overflow_a_double_are_not_singular():
    # at the random states exp(±800 x) overflows / underflows a double
    sys = ld.LagrangianSystem(sp.exp(800 * x) * xd**2 + sp.exp(-800 * x) * yd**2, [x, y])
    assert sys.n == 2


def test_singular_mass_matrix_behind_a_cancellation_is_found():
    T = (xd + sp.cos(x) * yd) ** 2 / 2 + (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) * yd**2
    with pytest.raises(SingularMassMatrixError, match="rank 1 of 2"):
        ld.LagrangianSystem(T, [x, y])


@settings(max_examples=25, deadline=None)
@given(
    exponents=st.lists(st.integers(-8, 8), min_size=3, max_size=3),
    entries=st.lists(st.integers(-3, 3), min_size=9, max_size=9),
    singular=st.booleans(),
)
def test_scaled_constant_mass_matrices(exponents, entries, singular):
    """M = D AᵀA D with D = diag(10^e): regular iff A is, whatever the scaling."""
    a = sp.Matrix(3, 3, entries)
    if singular:
        a[2, :] = a[0, :] + a[1, :]
    base = a.T * a
    regular = base.det() != 0
    d = sp.diag(*[sp.Integer(10) ** e for e in exponents])
    M = d * base * d
    q = ld.coordinates("u v w")
    if any(M[i, i] == 0 for i in range(3)):
        return  # a zero row has its own message
    if regular:
        sys = ld.LagrangianSystem.from_mass_matrix(M, 0, q)
        assert sys.n == 3
    else:
        with pytest.raises(SingularMassMatrixError):
            ld.LagrangianSystem.from_mass_matrix(M, 0, q)


# ---------------------------------------------------------------------------- definiteness
def test_indefinite_constant_matrix_is_not_positive_definite():
    assert ld.structure.is_positive_definite(sp.Matrix([[0, 1], [1, 0]])) is False
    assert ld.structure.is_positive_definite(sp.Matrix([[1, 1], [1, 1]])) is False
    assert ld.structure.is_positive_definite(sp.Matrix([[2, 1], [1, 1]])) is True


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=9, max_size=9))
def test_constant_matrices_positive_definite_decided(entries):
    a = sp.Matrix(3, 3, entries)
    M = (a + a.T) / 2
    minors = [M[:k, :k].det() for k in range(1, 4)]
    expected = all(m > 0 for m in minors)
    got = ld.structure.is_positive_definite(M)
    assert got is expected


def test_every_principal_permutation_of_an_indefinite_matrix_is_refuted():
    base = sp.Matrix([[1, 0, 0], [0, 0, 1], [0, 1, 0]])  # det −1, leading pivots 1, 0
    for perm in itertools.permutations(range(3)):
        p = sp.Matrix.hstack(*[sp.eye(3)[:, i] for i in perm])
        assert ld.structure.is_positive_definite(p.T * base * p) is False


# ---------------------------------------------------------------------------- deep polynomials
def test_polynomial_of_degree_100_is_derived_proved_and_printed():
    sys = ld.LagrangianSystem((x + 1) ** 100 * xd**2 / 2, [x])
    report = ld.structure.check(sys)
    assert report.skew_symmetric and report.passive
    assert report.positive_definite is not True  # M = (x + 1)^100 vanishes at x = −1
    assert "x" in sp.pretty(sys.equations())
    assert sys.latex()
    # no Horner scheme in the coordinate: the expanded polynomial, flat
    assert sys.M[0, 0] == sp.expand((x + 1) ** 100)
    assert sys.M[0, 0].is_Add and len(sys.M[0, 0].args) == 101

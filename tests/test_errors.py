"""Every bad input raises a LagdynError subclass whose message names the culprit."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.errors import (
    CoordinateError,
    LagdynError,
    NotQuadraticError,
    ShapeError,
    SingularMassMatrixError,
)

q1, q2 = ld.coordinates("q1 q2")
q1d, q2d = ld.velocities([q1, q2])
m = sp.Symbol("m", positive=True)
L_ok = m * (q1d**2 + q2d**2) / 2


def test_errors_are_value_errors():
    assert issubclass(LagdynError, ValueError)
    assert issubclass(ld.BackendUnavailableError, ImportError)


def test_plain_symbols_are_rejected_with_advice():
    x = sp.Symbol("x")
    with pytest.raises(CoordinateError, match=r"x is a plain Symbol.*ld.coordinates\('x'\)"):
        ld.LagrangianSystem(x**2, [x])


def test_duplicated_coordinates():
    with pytest.raises(CoordinateError, match="duplicated coordinate.*q1"):
        ld.LagrangianSystem(L_ok, [q1, q1])
    with pytest.raises(CoordinateError, match="duplicated"):
        ld.coordinates("a a")


def test_empty_and_rate_coordinates():
    with pytest.raises(CoordinateError, match="no coordinates"):
        ld.LagrangianSystem(L_ok, [])
    with pytest.raises(CoordinateError, match="is a rate"):
        ld.LagrangianSystem(L_ok, [q1d, q2])


def test_accelerations_in_L():
    with pytest.raises(NotQuadraticError, match="higher derivatives.*q1"):
        ld.LagrangianSystem(L_ok + q1.diff(ld.t, 2) * q1, [q1, q2])


def test_not_quadratic_quartic_velocity():
    with pytest.raises(NotQuadraticError, match="not quadratic.*depends on"):
        ld.LagrangianSystem(L_ok + q1d**4, [q1, q2])


def test_mass_matrix_depending_on_velocity():
    with pytest.raises(NotQuadraticError, match="Derivative\\(q2"):
        ld.LagrangianSystem(L_ok + q1d**2 * q2d, [q1, q2])


def test_non_sympy_input():
    with pytest.raises(LagdynError, match="string"):
        ld.LagrangianSystem("m*q1**2", [q1])
    with pytest.raises(LagdynError, match="sympy expression"):
        ld.LagrangianSystem(object(), [q1])
    with pytest.raises(LagdynError, match="string"):
        ld.LagrangianSystem(L_ok, ["q1", "q2"])


def test_foreign_function_of_time():
    x = sp.Function("x")(ld.t)
    with pytest.raises(CoordinateError, match=r"x\(t\).*not among the coordinates"):
        ld.LagrangianSystem(L_ok + x * q1, [q1, q2])


def test_explicit_time_dependence_rejected():
    with pytest.raises(LagdynError, match="explicitly on t"):
        ld.LagrangianSystem(L_ok * (1 + ld.t), [q1, q2])


def test_forces_wrong_length():
    with pytest.raises(
        ShapeError, match="forces has 1 entries, expected one per coordinate \\(2\\)"
    ):
        ld.LagrangianSystem(L_ok, [q1, q2], forces=[q1d])


def test_singular_mass_matrix_zero_row():
    with pytest.raises(SingularMassMatrixError, match="q2\\(t\\) have no inertia"):
        ld.LagrangianSystem(m * q1d**2 / 2 - q2**2, [q1, q2])


def test_singular_mass_matrix_rank_deficient():
    with pytest.raises(SingularMassMatrixError, match="rank 1 of 2"):
        ld.LagrangianSystem(m * (q1d + q2d) ** 2 / 2, [q1, q2])


def test_equations_bad_tau():
    sys = ld.LagrangianSystem(L_ok, [q1, q2])
    with pytest.raises(ShapeError, match="tau has 1 entries"):
        sys.equations([0])


def test_user_C_wrong_shape():
    sys = ld.LagrangianSystem(L_ok, [q1, q2])
    with pytest.raises(ShapeError, match="C has shape"):
        sys.is_skew_symmetric(sp.zeros(3, 3))


def test_zoo_unknown_name_and_bad_option():
    with pytest.raises(LagdynError, match="unknown model 'nope'.*double_pendulum"):
        ld.zoo.get("nope")
    with pytest.raises(LagdynError, match="coordinates must be"):
        ld.zoo.double_pendulum(coordinates="polar")

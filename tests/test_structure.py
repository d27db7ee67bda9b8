"""Exact structure proofs: symmetry, skew-symmetry (also of a user C), passivity, definiteness."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn import structure
from lagdyn.zoo.robots import LARGE

ZOO = [n for n in ld.zoo.names() if n not in LARGE]  # robot arms: tests/robot/test_robot.py


@pytest.mark.parametrize("name", ZOO)
def test_every_zoo_model_passes_every_proof(name):
    sys = ld.zoo.get(name)
    report = structure.check(sys)
    assert report.symmetric
    assert report.skew_symmetric
    assert report.passive
    assert report.positive_definite is not False
    assert report.ok


@pytest.mark.parametrize("name", ["two_link_planar", "double_pendulum", "double_pendulum_relative"])
def test_positive_definite_decided_for_seed_models(name):
    assert structure.is_positive_definite(ld.zoo.get(name).M) is True


def test_non_christoffel_factorization_is_not_skew():
    arm = ld.zoo.two_link_planar()
    q1d, q2d = arm.qd
    S = sp.Matrix([[q2d, -q1d], [0, 0]])
    assert sp.expand((S * sp.Matrix(arm.qd))[0]) == 0  # same C q̇ ...
    assert structure.is_skew_symmetric(arm, arm.C + S) is False  # ... but Ṁ − 2C not skew
    assert structure.is_skew_symmetric(arm, arm.C) is True


def test_wrong_C_is_not_skew():
    dp = ld.zoo.double_pendulum()
    assert not dp.is_skew_symmetric(2 * dp.C)


def test_positive_definite_unknown_and_false():
    x, y = ld.coordinates("x y")
    assert structure.is_positive_definite(sp.Matrix([[x**2 + 1, 0], [0, 1]])) is True
    assert structure.is_positive_definite(sp.Matrix([[sp.cos(x), 0], [0, 1]])) is False
    assert structure.is_positive_definite(sp.Matrix([[x**2]])) is None
    k = sp.Symbol("k")  # sign unknown: cannot be proved
    assert structure.is_positive_definite(sp.Matrix([[k]])) in (None, False)


def test_seed_003_determinant_proves_positive():
    a, b = ld.coordinates("a b")
    m1, m2, l1, l2 = sp.symbols("m1 m2 l1 l2", positive=True)
    det = m2 * l1**2 * l2**2 * (m1 + m2 * sp.sin(a - b) ** 2)
    assert structure._is_positive(*_plain(det))
    # m1 may not be dropped: with m1 → 0 the determinant vanishes at a = b
    det0 = m2**2 * l1**2 * l2**2 * sp.sin(a - b) ** 2
    assert not structure._is_positive(*_plain(det0))


def _plain(expr):
    (e,), qs = structure._plainify([expr])
    return e, qs


def test_is_zero_decides_trig_identities():
    a, b = ld.coordinates("a b")
    assert structure.is_zero(sp.sin(a + b) - sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b))
    assert structure.is_zero(sp.cos(2 * a) - 1 + 2 * sp.sin(a) ** 2)
    assert not structure.is_zero(sp.cos(2 * a) - 1 + sp.sin(a) ** 2)


def test_symmetry_detects_asymmetric():
    (x,) = ld.coordinates("x")
    assert not structure.is_symmetric(sp.Matrix([[1, x], [0, 1]]))
    with pytest.raises(ld.ShapeError):
        structure.is_symmetric(sp.Matrix([[1, 2]]))


def test_report_lines():
    lines = structure.check(ld.zoo.double_pendulum()).lines()
    assert len(lines) == 4 and all("proved" in line for line in lines)


class _WrongC:
    """A system whose C is replaced: the passivity identity must then fail."""

    def __init__(self, system, C):
        self._system, self.C = system, C

    def __getattr__(self, name):
        return getattr(self._system, name)


@pytest.mark.parametrize("name", ["double_pendulum", "two_link_planar"])
def test_passivity_detects_a_wrong_coriolis_matrix(name):
    sys = ld.zoo.get(name)
    assert structure.is_passive(sys)
    assert not structure.is_passive(_WrongC(sys, 2 * sys.C))
    q1d, q2d = sys.qd
    S = sp.Matrix([[q2d, -q1d], [0, 0]])  # S q̇ = 0: same C q̇, passivity unaffected
    assert structure.is_passive(_WrongC(sys, sys.C + S))


def test_passivity_on_the_sympy_path():
    """A Lagrangian symengine cannot hold (Piecewise) still gets the exact proof."""
    (x,) = ld.coordinates("x")
    (xd,) = ld.velocities([x])
    k = sp.Symbol("k", positive=True)
    L = xd**2 / 2 - sp.Piecewise((k * x**2, k > 1), (x**2, True))
    sys = ld.LagrangianSystem(L, [x])
    assert structure.is_passive(sys)

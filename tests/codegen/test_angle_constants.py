"""Large constants in trig arguments are reduced modulo 2π exactly before printing.

The probe (issue 22): a URDF with ``rpy="1e10 0 0"`` gave a closed-route M off by 6e-9
relative (Pinocchio and the recursive route agree with the exact value), because
``cos(2 q + 20000000000)`` was printed as such and the constant was added in doubles,
where its rounding step is ~4e-6 rad.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import lagdyn as ld


def _exact(q: float, c: int) -> float:
    with mpmath.workdps(60):
        return float(2 + mpmath.cos(mpmath.mpf(q) + c))


@pytest.mark.parametrize("c", [10**10, -(10**12), 3 * 10**8 + 1])
def test_a_large_constant_angle_is_reduced_exactly(c: int) -> None:
    x = ld.coordinates("x")[0]
    xd = x.diff(ld.t)
    system = ld.LagrangianSystem((2 + sp.cos(x + c)) * xd**2 / 2, [x])
    got = float(system.lambdify({}).M([0.3])[0, 0])
    assert got == pytest.approx(_exact(0.3, c), rel=4e-16)


def test_a_bound_parameter_angle_is_reduced_too() -> None:
    """A bound value is folded in as the double it is, then reduced exactly."""
    x = ld.coordinates("x")[0]
    a = ld.parameters("a")[0]
    xd = x.diff(ld.t)
    system = ld.LagrangianSystem((2 + sp.cos(x + a)) * xd**2 / 2, [x])
    got = float(system.lambdify({"a": 1e10}).M([0.3])[0, 0])
    assert got == pytest.approx(_exact(0.3, 10**10), rel=4e-16)


def test_small_and_symbolic_constants_are_left_alone() -> None:
    from lagdyn.codegen.trig import reduced_angle_constants

    q = sp.Symbol("q")
    for e in (sp.cos(q + 3), sp.sin(q + sp.pi / 2), sp.cos(q) + 10**10):
        assert reduced_angle_constants(e) == e

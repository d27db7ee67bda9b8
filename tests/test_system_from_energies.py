"""Swapped energies are refused (issue 21, item 3): ``from_energies(U, T, q)`` used to build a
system with a negative-definite M that lambdified and simulated."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld

(th,) = ld.coordinates("theta")
m, l, g = ld.parameters("m l g")
T = m * l**2 * th.diff(ld.t) ** 2 / 2
U = -m * g * l * sp.cos(th)


def test_swapped_energies_are_refused() -> None:
    with pytest.raises(ld.LagdynError, match="did you swap T and U"):
        ld.LagrangianSystem.from_energies(U, T, [th])


def test_swapped_double_pendulum_is_refused() -> None:
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.LagdynError, match=r"U depends on the rates .*did you swap"):
        ld.LagrangianSystem.from_energies(dp.U, dp.T, dp.q)


def test_negative_kinetic_energy_is_refused() -> None:
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.LagdynError, match="not positive semidefinite.*did you swap"):
        ld.LagrangianSystem.from_energies(-dp.T, dp.U, dp.q)


def test_kinetic_energy_without_rates_is_refused() -> None:
    with pytest.raises(ld.LagdynError, match="T does not depend on the rates"):
        ld.LagrangianSystem.from_energies(U, 0, [th])


def test_right_order_still_works() -> None:
    s = ld.LagrangianSystem.from_energies(T, U, [th])
    assert s.M[0, 0] == m * l**2
    assert s.g[0] == g * l * m * sp.sin(th)


def test_semidefinite_kinetic_energy_is_accepted_by_this_check() -> None:
    # a massless coordinate is singular (refused elsewhere), never called "swapped"
    x, y = ld.coordinates("x y")
    with pytest.raises(ld.LagdynError) as err:
        ld.LagrangianSystem.from_energies(m * x.diff(ld.t) ** 2 / 2, y**2, [x, y])
    assert "swap" not in str(err.value)

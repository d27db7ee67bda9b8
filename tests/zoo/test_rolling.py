"""The rolling models of lagdyn.zoo.rolling against their textbook solutions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.structure import is_zero


@pytest.fixture(scope="module")
def disc():
    cs = ld.zoo.get("rolling_disc")
    return cs, cs.reduced(), cs.lambdify(cs.system.defaults)


def test_registered_as_constrained_models() -> None:
    assert {"rolling_disc", "chaplygin_sleigh"} <= set(ld.zoo.constrained_names())
    assert "rolling_disc" not in ld.zoo.names()  # names() stays LagrangianSystem-only
    assert isinstance(ld.zoo.get("chaplygin_sleigh"), ld.ConstrainedSystem)


def test_disc_steady_turning_relation_is_exact(disc) -> None:
    cs, red, _ = disc
    x, y, psi, theta, phi = cs.system.q
    m, r, g = (sp.Symbol(n, positive=True) for n in "mrg")
    W, w = sp.symbols("Omega omega", real=True)
    # θ, ψ̇ = Ω, φ̇ = ω constant: M_r u̇ = F holds with u̇ = 0 iff F = 0 at θ̇ = 0
    F = red.forcing([0] * 5).xreplace({psi.diff(ld.t): W, theta.diff(ld.t): 0, phi.diff(ld.t): w})
    assert F[0] == 0 and F[2] == 0
    s, c = sp.sin(theta), sp.cos(theta)
    # the textbook relation (angular momentum about the centre, Newton for the centre):
    # Ω cos θ (I_d Ω sin θ − (I_a + m r²)(ω + Ω sin θ)) = m g r sin θ
    textbook = W * c * (m * r**2 / 4 * W * s - (m * r**2 / 2 + m * r**2) * (w + W * s))
    textbook -= m * g * r * s
    assert is_zero(F[1] + textbook, cs.system.q) is True


def test_disc_straight_rolling_and_steady_turning_numerically(disc) -> None:
    cs, red, num = disc
    # straight upright rolling: no acceleration at any spin
    qdd, lam = num.solve(
        [0.3, -1.0, 0.7, 0.0, 2.0], [4.0 * np.cos(0.7), 4.0 * np.sin(0.7), 0, 0, 4]
    )
    np.testing.assert_allclose(qdd, 0, atol=1e-12)
    np.testing.assert_allclose(lam, 0, atol=1e-12)
    # steady turning at a lean of 0.3 and Ω = 2: θ̈ = ψ̈ = φ̈ = 0, the centre turns
    th, W = 0.3, 2.0
    s, c = np.sin(th), np.cos(th)
    w = (0.25 * W * s - 9.81 * s / (W * c)) / 1.5 - W * s
    qdd, lam = num.solve([0, 0, 0, th, 0], [w, 0, W, 0, w])
    np.testing.assert_allclose(qdd[2:], 0, atol=1e-12)
    assert qdd[1] == pytest.approx(W * w, rel=1e-12)  # ÿ = d/dt(r φ̇ sin ψ) = r ω Ω
    # the multipliers are the friction force at the contact (x, y are its coordinates):
    # it keeps the centre, at speed V = r(ω + Ω sin θ) along a₁, on its circle: m V Ω a₂
    np.testing.assert_allclose(lam, [0.0, 1.0 * (w + W * s) * W], atol=1e-12)
    res = num.simulate(np.r_[[0, 0, 0, th, 0], [w, 0, W, 0, w]], np.linspace(0, 2, 201))
    np.testing.assert_allclose(res.q[:, 3], th, atol=1e-9)  # the lean holds
    np.testing.assert_allclose(res.qd[:, 2], W, atol=1e-9)


def test_disc_energy_conserved_and_no_slip_held_with_projection(disc) -> None:
    cs, red, num = disc
    x0 = np.r_[[0.0, 0.0, 0.0, 0.2, 0.0], [3.0, 0.0, 0.5, 0.3, 3.0]]
    grid = np.linspace(0, 3, 301)
    held = num.simulate(x0, grid, project=True)
    assert np.abs(held.phi_dot).max() < 1e-12  # |A q̇ + b| over the run
    assert held.phi is None  # no holonomic rows
    assert np.ptp(held.energy) < 1e-6 * abs(held.energy[0])
    free = num.simulate(x0, grid)
    assert np.ptp(free.energy) < 1e-6 * abs(free.energy[0])  # no work by the constraints
    assert 1e-12 < np.abs(free.phi_dot).max() < 1e-5  # it drifts without projection


def test_disc_upright_rolling_stable_above_the_textbook_speed(disc) -> None:
    cs, red, _ = disc
    x, y, psi, theta, phi = cs.system.q
    w, g = sp.Symbol("omega", positive=True), sp.Symbol("g", positive=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a steady motion once x, y, ψ, φ are dropped
        A, _ = red.linearize(
            [0, 0, 0, 0, 0], [w, 0, 0, 0, w], ignorable=[x, y, psi, phi], params={"m": 1, "r": 1}
        )
    assert A == sp.Matrix(
        [[0, 0, 1, 0], [0, 0, -2 * w, 0], [4 * g / 5, 6 * w / 5, 0, 0], [0, 0, 0, 0]]
    )
    lam = sp.Symbol("lambda")
    # λ²(5λ² + 12ω² − 4g): the weave is stable iff ω² r > g/3 (v² > g r / 3, r = 1)
    assert sp.expand(5 * A.charpoly(lam).as_expr() - lam**2 * (5 * lam**2 + 12 * w**2 - 4 * g)) == 0


def test_disc_structure(disc) -> None:
    cs, red, _ = disc
    assert [r["integrable"] for r in cs.integrability_report()] == [False, False]
    assert red.is_symmetric() is True
    rep = red.positive_definite_report()
    assert rep["singular"] == [sp.cos(cs.system.q[3])]  # lying flat: yaw and spin coincide


def test_sleigh_energy_and_asymptotic_straight_motion() -> None:
    sleigh = ld.zoo.get("chaplygin_sleigh")
    num = sleigh.lambdify(sleigh.system.defaults)
    th0 = 0.4
    x0 = np.r_[[0.0, 0.0, th0], [np.cos(th0), np.sin(th0), 1.0]]
    res = num.simulate(x0, np.linspace(0, 20, 401), project=True)
    assert np.abs(res.phi_dot).max() < 1e-12
    assert np.ptp(res.energy) < 1e-6 * res.energy[0]
    # the rotation dies out and the sleigh slides straight, with all the energy in it
    assert abs(res.qd[-1, 2]) < 1e-3
    speed = np.hypot(res.qd[-1, 0], res.qd[-1, 1])
    assert 0.5 * speed**2 == pytest.approx(res.energy[0], rel=1e-3)

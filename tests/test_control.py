"""Linearization, equilibria and LQR (lagdyn.control)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.zoo.robots import LARGE

# every small model of the zoo (the 3-link chains differ only in size, and cost seconds)
ZOO = [
    n
    for n in ld.zoo.names()
    if isinstance(ld.zoo.get(n), ld.LagrangianSystem)
    and n not in ("planar_arm", "n_link_pendulum_relative", *LARGE)
]


def _fd_jacobians(num, q, qd, tau, h=1e-6):
    """Central finite differences of f(x, τ) = (q̇, forward_dynamics) — the reference."""
    n = q.size

    def f(x, u):
        return np.concatenate([x[n:], num.forward_dynamics(x[:n], x[n:], u)])

    x0 = np.concatenate([q, qd])
    A = np.empty((2 * n, 2 * n))
    B = np.empty((2 * n, n))
    for k in range(2 * n):
        e = np.zeros(2 * n)
        e[k] = h
        A[:, k] = (f(x0 + e, tau) - f(x0 - e, tau)) / (2 * h)
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        B[:, k] = (f(x0, tau + e) - f(x0, tau - e)) / (2 * h)
    return A, B


@pytest.mark.parametrize("name", ZOO)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_numeric_linearization_matches_finite_differences(name, seed):
    system = ld.zoo.get(name)
    num = system.lambdify(system.defaults)
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.5, 1.5, system.n)
    if name == "elastic_pendulum":
        q[0] = 1.0 + abs(q[0])
    if name == "spherical_pendulum":
        q[0] = 0.5 + abs(q[0]) / 2  # away from the pole θ = 0, where M is singular
    qd = rng.normal(size=system.n)
    tau = rng.normal(size=system.n)
    A, B = system.linearize(q, qd, tau, params=system.defaults)
    assert isinstance(A, np.ndarray) and A.shape == (2 * system.n, 2 * system.n)
    Af, Bf = _fd_jacobians(num, q, qd, tau)
    scale = 1.0 + np.abs(Af).max()
    np.testing.assert_allclose(A, Af, atol=1e-7 * scale, rtol=0)
    np.testing.assert_allclose(B, Bf, atol=1e-7 * (1 + np.abs(Bf).max()), rtol=0)


def test_cart_pole_symbolic_linearization_equals_the_hand_derivation():
    cp = ld.zoo.cart_pole()
    mc, mp, l, Ip, g = ld.parameters("mc mp l Ip g")
    A, B = cp.linearize([0, 0])
    # by hand: M0 = [[mc + mp, mp l], [mp l, Ip + mp l²]], ∂g/∂θ = −mp g l at θ = 0
    d = (mc + mp) * (Ip + mp * l**2) - mp**2 * l**2
    A_hand = sp.Matrix(
        [
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [0, -(mp**2) * g * l**2 / d, 0, 0],
            [0, (mc + mp) * mp * g * l / d, 0, 0],
        ]
    )
    B_hand = sp.Matrix(
        [[0, 0], [0, 0], [(Ip + mp * l**2) / d, -mp * l / d], [-mp * l / d, (mc + mp) / d]]
    )
    assert (A - A_hand).applyfunc(sp.simplify) == sp.zeros(4, 4)
    assert (B - B_hand).applyfunc(sp.simplify) == sp.zeros(4, 2)
    # the numeric path agrees with the exact matrices at the defaults
    An, Bn = cp.linearize([0.0, 0.0], params=cp.defaults)
    sub = {**cp.defaults}
    np.testing.assert_allclose(An, np.array(A.subs(sub), dtype=float), rtol=1e-12)
    np.testing.assert_allclose(Bn, np.array(B.subs(sub), dtype=float), rtol=1e-12)


def test_symbolic_linearization_away_from_equilibrium_matches_numeric():
    dp = ld.zoo.cart_pole()
    q0, qd0, tau0 = [0.3, -0.4], [0.5, 0.2], [0.1, -0.2]
    R = sp.Rational
    As, Bs = dp.linearize([R(3, 10), R(-2, 5)], [R(1, 2), R(1, 5)], [R(1, 10), R(-1, 5)])
    An, Bn = dp.linearize(q0, qd0, tau0, params=dp.defaults)
    np.testing.assert_allclose(
        np.array(As.subs(dp.defaults).evalf(), dtype=float), An, rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(np.array(Bs.subs(dp.defaults).evalf(), dtype=float), Bn, rtol=1e-10)


def test_symbolic_point_keeps_symbols():
    (th,) = ld.coordinates("theta")
    m, l, g, th0 = ld.parameters("m l g theta0")
    pend = ld.LagrangianSystem(m * l**2 * th.diff(ld.t) ** 2 / 2 + m * g * l * sp.cos(th), [th])
    A, _ = pend.linearize([th0], params={"m": 2})
    assert sp.simplify(A[1, 0] + g * sp.cos(th0) / l) == 0


def test_linearize_bad_input():
    cp = ld.zoo.cart_pole()
    with pytest.raises(ld.ShapeError, match="q0 has 3 entries"):
        cp.linearize([0, 0, 0])
    with pytest.raises(ld.LagdynError, match="string"):
        cp.linearize("0 0")
    with pytest.raises(ld.LagdynError, match="not parameters"):
        cp.linearize([0, 0], params={"mass": 1.0})


# ---------------------------------------------------------------------------- equilibria
def test_equilibrium_with_and_without_torque():
    (th,) = ld.coordinates("theta")
    m, l, g = ld.parameters("m l g")
    pend = ld.LagrangianSystem(m * l**2 * th.diff(ld.t) ** 2 / 2 + m * g * l * sp.cos(th), [th])
    vals = {m: 2.0, l: 0.5, g: 9.81}
    assert ld.control.equilibrium(pend, [0.4], params=vals) == pytest.approx([0.0], abs=1e-12)
    q = ld.control.equilibrium(pend, [0.4], tau=[3.0], params=vals)
    assert np.sin(q[0]) == pytest.approx(3.0 / (2.0 * 0.5 * 9.81), rel=1e-12)
    cp = ld.zoo.cart_pole()
    qc = ld.control.equilibrium(cp, [0.7, 0.2])
    assert qc == pytest.approx([0.7, 0.0], abs=1e-12)  # the cart stays, the pole rises
    with pytest.raises(ld.LagdynError, match="no equilibrium"):
        ld.control.equilibrium(pend, [0.4], tau=[100.0], params=vals, max_iter=20)
    with pytest.raises(ld.UnboundParameterError):
        ld.control.equilibrium(pend, [0.4], params={m: 1.0})


# ---------------------------------------------------------------------------- LQR
def test_cart_pole_lqr_stabilises_the_upright_pole():
    cp = ld.zoo.cart_pole()
    A, B = cp.linearize([0.0, 0.0], params=cp.defaults)
    K, P, E = ld.control.lqr(A, B[:, :1], np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
    assert np.all(E.real < 0)
    # the Riccati equation holds
    Bu = B[:, :1]
    np.testing.assert_allclose(
        A.T @ P + P @ A - P @ Bu @ Bu.T @ P + np.diag([10.0, 10, 1, 1]), 0, atol=1e-8
    )

    def tau(t, q, qd):
        x = np.concatenate([q, qd], axis=-1)
        u = -(x @ K.T)[..., 0]
        return np.stack([u, np.zeros_like(u)], axis=-1)

    res = ld.simulate(cp, [0.1, 0.2, 0.0, 0.0], 10.0, tau=tau, dt=0.01)
    assert np.abs(res.q[-1]).max() < 1e-3 and np.abs(res.qd[-1]).max() < 1e-3
    # without control the pole falls
    free = ld.simulate(cp, [0.1, 0.2, 0.0, 0.0], 3.0, dt=0.01)
    assert np.abs(free.q[-1, 1]) > 1.0


def test_acrobot_lqr_with_the_elbow_only():
    acro = ld.zoo.acrobot()
    up = ld.control.equilibrium(acro, [1.5, 0.05])
    A, B = acro.linearize(up, params=acro.defaults)
    K, _, E = ld.control.lqr(A, B[:, 1:], np.eye(4), np.eye(1))
    assert np.all(E.real < 0)
    x_up = np.concatenate([up, np.zeros(2)])

    def tau(t, q, qd):
        x = np.concatenate([q, qd], axis=-1) - x_up
        u = -(x @ K.T)[..., 0]
        return np.stack([np.zeros_like(u), u], axis=-1)

    res = ld.simulate(acro, x_up + np.array([0.03, -0.02, 0.0, 0.0]), 8.0, tau=tau, dt=0.005)
    np.testing.assert_allclose(res.q[-1], up, atol=1e-4)


def test_lqr_errors(monkeypatch):
    with pytest.raises(ld.ShapeError, match="Q has shape"):
        ld.control.lqr(np.zeros((2, 2)), np.ones((2, 1)), np.eye(3), np.eye(1))
    with pytest.raises(ld.LagdynError, match="free symbols"):
        ld.control.lqr(
            ld.zoo.cart_pole().linearize([0, 0])[0], np.ones((4, 1)), np.eye(4), np.eye(1)
        )
    with pytest.raises(ld.LagdynError, match="positive definite"):
        ld.control.lqr(np.zeros((1, 1)), np.ones((1, 1)), np.eye(1), -np.eye(1))
    with pytest.raises(ld.LagdynError, match="stabilis"):
        ld.control.lqr(np.eye(1), np.zeros((1, 1)), np.eye(1), np.eye(1))
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    with pytest.raises(ld.BackendUnavailableError, match="scipy"):
        ld.control.lqr(np.zeros((1, 1)), np.ones((1, 1)), np.eye(1), np.eye(1))

"""Finite-difference cross-checks of the derivation, independent of the symbolic algebra.

With only the numeric M(q) and E(q, q̇) of a model, central differences give
Ṁq̇ − ½ ∂(q̇ᵀMq̇)/∂q (the Coriolis/centrifugal vector, which must equal C q̇),
∂E/∂q at q̇ = 0 (which must equal g) and ∂E/∂q̇ (which must equal M q̇).
"""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.zoo.robots import LARGE

H = 1e-5


def _models():
    for name in [n for n in ld.zoo.names() if n not in LARGE]:
        sys = ld.zoo.get(name)
        yield pytest.param(sys, id=name)


@pytest.fixture(scope="module", params=list(_models()))
def model(request):
    sys = request.param
    return sys.lambdify(sys.defaults)


def _states(n, rng):
    q = rng.uniform(-1.2, 1.2, n) + 0.3  # away from r = 0 / θ = 0 singular points
    return q, rng.uniform(-1.0, 1.0, n)


def test_coriolis_vector_by_finite_differences(model):
    rng = np.random.default_rng(1)
    n = model.n
    for _ in range(5):
        q, qd = _states(n, rng)
        eye = np.eye(n)
        dM = [(model.M(q + H * eye[k]) - model.M(q - H * eye[k])) / (2 * H) for k in range(n)]
        mdot_qd = sum(dM[k] * qd[k] for k in range(n)) @ qd
        grad_t = np.array([qd @ dM[i] @ qd for i in range(n)]) / 2
        expected = mdot_qd - grad_t
        got = model.C(q, qd) @ qd
        np.testing.assert_allclose(
            got, expected, rtol=1e-6, atol=1e-6 * (1 + np.abs(expected).max())
        )


def test_gravity_and_momentum_by_finite_differences(model):
    rng = np.random.default_rng(2)
    n = model.n
    eye = np.eye(n)
    zero = np.zeros(n)
    for _ in range(5):
        q, qd = _states(n, rng)
        dV = np.array(
            [
                (model.energy(q + H * eye[k], zero) - model.energy(q - H * eye[k], zero)) / (2 * H)
                for k in range(n)
            ]
        )
        np.testing.assert_allclose(model.g(q), dV, rtol=1e-6, atol=1e-6)
        dE = np.array(
            [
                (model.energy(q, qd + H * eye[k]) - model.energy(q, qd - H * eye[k])) / (2 * H)
                for k in range(n)
            ]
        )
        np.testing.assert_allclose(model.M(q) @ qd, dE, rtol=1e-6, atol=1e-6)


def test_energy_balance_along_a_driven_motion():
    """dE/dt = q̇ᵀτ, with dE/dt from central differences of E along an RK4 run."""
    sys = ld.zoo.two_link_planar()
    num = sys.lambdify(sys.defaults)
    tau = np.array([0.7, -0.4])
    t = np.linspace(0, 1, 2001)
    res = ld.simulate(num, [0.3, -0.2, 0.5, 0.1], t, tau=tau)
    E, h = res.energy, t[1] - t[0]
    dE = (-E[4:] + 8 * E[3:-1] - 8 * E[1:-3] + E[:-4]) / (12 * h)  # 4th-order central
    power = res.qd[2:-2] @ tau
    np.testing.assert_allclose(dE, power, rtol=1e-7, atol=1e-7)

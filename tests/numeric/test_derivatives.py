"""Derivative kernels of the closed form against central finite differences.

``forward_dynamics_derivatives`` and ``inverse_dynamics_derivatives`` of every zoo model
(the closed route; the 6/7-joint arms are in tests/recursive/test_derivatives.py) and of
random Lagrangians (hypothesis: gyroscopic terms, forces), compared with central
differences of the model's own ``forward_dynamics`` / ``inverse_dynamics``; batching,
the one-state path, per-call parameters, the C backend and the errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.zoo.robots import LARGE

from ..strategies import random_lagrangians

H = 1e-6


def central(f, x, h=H):
    """Columns ∂f/∂x_k by central differences."""
    eye = np.eye(len(x))
    return np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in eye], axis=-1)


def fd_reference(num, q, qd, tau, **kw):
    fd = num.forward_dynamics
    return (
        central(lambda x: fd(x, qd, tau, **kw), q),
        central(lambda x: fd(q, x, tau, **kw), qd),
        central(lambda x: fd(q, qd, x, **kw), tau),
    )


def id_reference(num, q, qd, qdd, **kw):
    inv = num.inverse_dynamics
    return (
        central(lambda x: inv(x, qd, qdd, **kw), q),
        central(lambda x: inv(q, x, qdd, **kw), qd),
        central(lambda x: inv(q, qd, x, **kw), qdd),
    )


def assert_close(got, expected, rtol=1e-6):
    for g, e in zip(got, expected):
        scale = 1.0 + float(np.max(np.abs(e)))
        np.testing.assert_allclose(g, e, rtol=0, atol=rtol * scale)


def _models():
    for name in ld.zoo.names():
        if name not in LARGE:
            yield pytest.param(name, id=name)


@pytest.fixture(scope="module", params=list(_models()))
def model(request):
    sys = ld.zoo.get(request.param)
    return sys.lambdify(sys.defaults)


def _state(rng, n):
    q = rng.uniform(-1.2, 1.2, n) + 0.3  # away from the spherical pendulum's θ = 0
    return q, rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)


def test_zoo_forward_dynamics_derivatives_match_finite_differences(model):
    rng = np.random.default_rng(5)
    for _ in range(2):
        q, qd, tau = _state(rng, model.n)
        got = model.forward_dynamics_derivatives(q, qd, tau)
        assert_close(got, fd_reference(model, q, qd, tau))
        # ∂q̈/∂τ is M⁻¹ to rounding
        np.testing.assert_allclose(got[2] @ model.M(q), np.eye(model.n), atol=1e-10)


def test_zoo_inverse_dynamics_derivatives_match_finite_differences(model):
    rng = np.random.default_rng(6)
    for _ in range(2):
        q, qd, qdd = _state(rng, model.n)
        got = model.inverse_dynamics_derivatives(q, qd, qdd)
        assert_close(got, id_reference(model, q, qd, qdd))
        np.testing.assert_array_equal(got[2], model.M(q))


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(random_lagrangians(max_n=3), st.integers(0, 2**31 - 1))
def test_random_lagrangians_derivatives_match_finite_differences(rl, seed):
    system = ld.LagrangianSystem(rl.L, list(rl.q), forces=rl.forces)
    params = {s: v for s, v in rl.params.items() if s in system.parameters}
    num = system.lambdify(params)
    rng = np.random.default_rng(seed)
    q, qd, u = _state(rng, system.n)
    assert_close(num.forward_dynamics_derivatives(q, qd, u), fd_reference(num, q, qd, u), 1e-5)
    assert_close(num.inverse_dynamics_derivatives(q, qd, u), id_reference(num, q, qd, u), 1e-5)


@pytest.fixture(scope="module")
def pendulum():
    dp = ld.zoo.double_pendulum()
    return dp, dp.lambdify({k: v for k, v in dp.defaults.items() if str(k) != "g"})


def test_batches_equal_one_state_calls(pendulum):
    _, num = pendulum
    rng = np.random.default_rng(7)
    q, qd, tau = (rng.uniform(-1, 1, (2, 3, 2)) for _ in range(3))
    g = np.full((2, 3), 9.81)
    for method in (num.forward_dynamics_derivatives, num.inverse_dynamics_derivatives):
        batch = method(q, qd, tau, params={"g": g})
        assert [b.shape for b in batch] == [(2, 3, 2, 2)] * 3
        for i in range(2):
            for j in range(3):
                one = method(q[i, j], qd[i, j], tau[i, j], params={"g": 9.81})
                for b, o in zip(batch, one):
                    np.testing.assert_allclose(b[i, j], o, rtol=1e-13, atol=1e-13)
        # a broadcast state against a batch of parameters
        wide = method(q[0, 0], qd[0, 0], tau[0, 0], params={"g": np.array([9.81, 1.0])})
        assert wide[0].shape == (2, 2, 2)


def test_free_parameters_per_call(pendulum):
    dp, num = pendulum
    full = dp.lambdify(dp.defaults)
    g = next(v for k, v in dp.defaults.items() if str(k) == "g")
    q, qd, tau = np.array([0.3, -0.2]), np.array([0.5, 1.0]), np.array([0.1, 0.0])
    for name in ("forward_dynamics_derivatives", "inverse_dynamics_derivatives"):
        got = getattr(num, name)(q, qd, tau, params={"g": g})
        assert_close(got, getattr(full, name)(q, qd, tau), 1e-13)


def test_wrong_shapes_are_named(pendulum):
    _, num = pendulum
    with pytest.raises(ld.ShapeError, match="q has shape"):
        num.forward_dynamics_derivatives(np.zeros(3), np.zeros(2), params={"g": 9.81})
    with pytest.raises(ld.ShapeError, match="qdd has shape"):
        num.inverse_dynamics_derivatives(np.zeros(2), np.zeros(2), np.zeros(5), params={"g": 1})
    with pytest.raises(ld.UnboundParameterError):
        num.forward_dynamics_derivatives(np.zeros(2), np.zeros(2))


def test_c_backend_matches_numpy():
    pytest.importorskip("cffi")
    ac = ld.zoo.acrobot()
    a = ac.lambdify(ac.defaults)
    c = ac.lambdify(ac.defaults, backend="c")
    rng = np.random.default_rng(8)
    q, qd, tau = rng.uniform(-1, 1, (3, 5, 2))
    for name in ("forward_dynamics_derivatives", "inverse_dynamics_derivatives"):
        for x, y in zip(getattr(a, name)(q, qd, tau), getattr(c, name)(q, qd, tau)):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)
        for x, y in zip(
            getattr(a, name)(q[0], qd[0], tau[0]), getattr(c, name)(q[0], qd[0], tau[0])
        ):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def test_pendulum_derivatives_are_exact():
    import sympy as sp

    th = ld.coordinates("theta")[0]
    m, length, g = 2.0, 0.5, 9.81
    L = m * length**2 * th.diff(ld.t) ** 2 / 2 + m * g * length * sp.cos(th)
    num = ld.LagrangianSystem(L, [th]).lambdify()
    x = 0.7
    dq, dv, Minv = num.forward_dynamics_derivatives([x], [0.3], [0.2])
    assert dq[0, 0] == pytest.approx(-g / length * np.cos(x), rel=1e-14)
    assert dv[0, 0] == 0.0
    assert Minv[0, 0] == pytest.approx(1 / (m * length**2), rel=1e-14)


# ---------------------------------------------------------------- discrete-step derivatives
@pytest.fixture(scope="module")
def acrobot():
    ac = ld.zoo.acrobot()
    return ac.lambdify(ac.defaults)


def test_rk4_step_is_the_simulators_step(acrobot):
    x0, u = np.array([0.3, -0.5, 0.8, 0.1]), np.array([0.4, -0.2])
    res = ld.simulate(acrobot, x0, [0.0, 0.02], tau=u, method="rk4")
    np.testing.assert_allclose(acrobot.step(x0, u, 0.02), res.x[-1], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("method", ["rk4", "midpoint"])
def test_step_derivatives_match_differences_of_the_step(acrobot, method):
    rng = np.random.default_rng(11)
    x0, u = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 2)
    dt = 0.05
    x1, A, B = acrobot.step_derivatives(x0, u, dt, method=method)
    np.testing.assert_allclose(x1, acrobot.step(x0, u, dt, method=method), rtol=0, atol=1e-15)

    def step(x, uu):
        return acrobot.step(x, uu, dt, method=method)

    assert_close((A, B), (central(lambda x: step(x, u), x0), central(lambda w: step(x0, w), u)))
    if method == "midpoint":  # the step solves its implicit equation
        m = 0.5 * (x0 + x1)
        rate = acrobot.rhs(0.0, m, u)
        np.testing.assert_allclose(x1, x0 + dt * rate, rtol=0, atol=1e-12)


def test_step_derivatives_batch(acrobot):
    rng = np.random.default_rng(12)
    x, u = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, 2)
    for method in ("rk4", "midpoint"):
        x1, A, B = acrobot.step_derivatives(x, u, 0.01, method=method)
        assert (x1.shape, A.shape, B.shape) == ((3, 4), (3, 4, 4), (3, 4, 2))
        one = acrobot.step_derivatives(x[1], u, 0.01, method=method)
        for a, b in zip((x1[1], A[1], B[1]), one):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_step_refuses_bad_options(acrobot):
    with pytest.raises(ld.LagdynError, match="unknown step method 'euler'"):
        acrobot.step(np.zeros(4), None, 0.01, method="euler")
    with pytest.raises(ld.LagdynError, match="dt must be a positive number"):
        acrobot.step(np.zeros(4), None, -0.01)
    with pytest.raises(ld.ShapeError, match="x has shape"):
        acrobot.step_derivatives(np.zeros(3), None, 0.01)
    with pytest.raises(ld.LagdynError, match="did not converge"):
        acrobot.step(np.array([0.0, 0.0, 50.0, -50.0]), None, 10.0, method="midpoint", max_iter=2)


def test_casadi_automatic_differentiation_agrees(acrobot):
    """CasADi's own AD of the exported graphs gives the generated kernels' Jacobians."""
    pytest.importorskip("casadi")
    ac = ld.zoo.acrobot()
    cm = ac.to_casadi(ac.defaults)
    rng = np.random.default_rng(13)
    q, qd, u = rng.uniform(-1, 1, (3, 2))
    pairs = (
        (cm.forward_dynamics_derivatives, acrobot.forward_dynamics_derivatives),
        (cm.inverse_dynamics_derivatives, acrobot.inverse_dynamics_derivatives),
    )
    for theirs, ours in pairs:
        for a, b in zip(theirs(q, qd, u), ours(q, qd, u)):
            np.testing.assert_allclose(np.asarray(a.full()), b, rtol=1e-12, atol=1e-12)
    x = np.concatenate([q, qd])
    A, B = cm.step_rk4_derivatives(x, u, 0.02)
    x1 = cm.step_rk4(x, u, 0.02)
    mine = acrobot.step_derivatives(x, u, 0.02)
    for a, b in zip((x1, A, B), mine):
        np.testing.assert_allclose(np.asarray(a.full()).reshape(b.shape), b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", ["numba", "jax"])
def test_jit_backends_match_numpy(backend, acrobot):
    pytest.importorskip(backend)
    ac = ld.zoo.acrobot()
    other = ac.lambdify(ac.defaults, backend=backend)
    rng = np.random.default_rng(14)
    q, qd, u = rng.uniform(-1, 1, (3, 4, 2))
    for name in ("forward_dynamics_derivatives", "inverse_dynamics_derivatives"):
        for x, y in zip(getattr(other, name)(q, qd, u), getattr(acrobot, name)(q, qd, u)):
            np.testing.assert_allclose(np.asarray(x), y, rtol=1e-10, atol=1e-10)

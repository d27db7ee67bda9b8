"""lambdify remembers the last programs it built (by a backend-independent key)."""

from __future__ import annotations

import importlib

import numpy as np

import lagdyn as ld

lam = importlib.import_module("lagdyn.numeric.lambdify")


def test_second_lambdify_reuses_the_program(monkeypatch):
    calls = []
    real = lam.system_program

    def counted(system, binding):
        calls.append(binding.key())
        return real(system, binding)

    monkeypatch.setattr(lam, "system_program", counted)
    monkeypatch.setattr(lam, "_PROGRAMS", type(lam._PROGRAMS)())
    dp = ld.zoo.double_pendulum()
    a = ld.numeric.lambdify(dp, dp.defaults, cache=False)
    b = ld.numeric.lambdify(dp, dp.defaults, cache=False)
    assert len(calls) == 1
    q, qd = np.array([0.3, -0.2]), np.array([0.1, 0.4])
    assert np.array_equal(a.M(q), b.M(q)) and np.array_equal(a.bias(q, qd), b.bias(q, qd))
    # another binding is another program
    other = dict(dp.defaults)
    other[next(iter(other))] = 2.5
    c = ld.numeric.lambdify(dp, other, cache=False)
    assert len(calls) == 2
    assert not np.array_equal(a.M(q), c.M(q))
    # free parameters: a third program
    ld.numeric.lambdify(dp, cache=False)
    assert len(calls) == 3


def test_routes_are_apart_and_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(lam, "_PROGRAMS", type(lam._PROGRAMS)())
    arm = ld.zoo.get("planar_3r")
    rec = ld.numeric.lambdify(arm, arm.defaults, route="recursive", cache=False)
    clo = ld.numeric.lambdify(arm, arm.defaults, route="closed", cache=False)
    assert len(lam._PROGRAMS) == 2
    assert rec.route == "recursive" and clo.route == "closed"
    q = np.array([0.1, 0.2, -0.3])
    np.testing.assert_allclose(rec.M(q), clo.M(q), rtol=1e-12, atol=1e-12)
    dp = ld.zoo.double_pendulum()
    for m in (1.0, 2.0, 3.0, 4.0):
        ld.numeric.lambdify(dp, {**dp.defaults, "m1": m}, cache=False)
    assert len(lam._PROGRAMS) == lam._PROGRAMS_KEPT


def test_derivative_kernels_are_remembered_too(monkeypatch):
    calls = []
    real = lam.derivative_program

    def counted(system, binding):
        calls.append(binding.key())
        return real(system, binding)

    monkeypatch.setattr(lam, "derivative_program", counted)
    monkeypatch.setattr(lam, "_PROGRAMS", type(lam._PROGRAMS)())
    dp = ld.zoo.double_pendulum()
    a = ld.numeric.derivative_model(dp, dp.defaults, cache=False)
    b = ld.numeric.lambdify(dp, dp.defaults, cache=False)
    q, v, tau = np.array([0.3, -0.2]), np.array([0.1, 0.4]), np.array([0.5, -1.0])
    da = a.forward_dynamics_derivatives(q, v, tau)
    db = b.forward_dynamics_derivatives(q, v, tau)  # built on first use: the same program
    assert len(calls) == 1
    for x, y in zip(da, db, strict=True):
        assert np.array_equal(x, y)

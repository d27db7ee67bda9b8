"""Every available numeric backend agrees with the numpy backend; C-specific cache checks; dask."""

from __future__ import annotations

import logging
import os
import shutil

import numpy as np
import pytest

import lagdyn as ld
from helpers import n_link_pendulum
from lagdyn.numeric import backends, lambdify


def _available(name: str) -> bool:
    if name == "c":
        pytest.importorskip("cffi")
    elif name == "numba":
        pytest.importorskip("numba")
    elif name == "jax":
        pytest.importorskip("jax")
    return True


@pytest.fixture(scope="module")
def cache_dir(lagdyn_cache_dir):
    return lagdyn_cache_dir  # the session cache: each compiled module is built once per run


@pytest.fixture(scope="module")
def systems():
    dp = ld.zoo.double_pendulum()
    six = n_link_pendulum(6)
    return {"dp": (dp, dp.defaults), "six": (six, six.defaults)}


@pytest.mark.parametrize("backend", ["c", "numba", "jax"])
class TestBackendAgreesWithNumpy:
    @pytest.fixture
    def models(self, backend, systems, cache_dir):
        _available(backend)
        out = {}
        for key, (system, params) in systems.items():
            try:
                out[key] = (
                    lambdify(system, params, backend=backend, cache_dir=cache_dir),
                    lambdify(system, params, cache_dir=cache_dir),
                )
            except ld.BackendUnavailableError as exc:
                pytest.skip(str(exc))
        return out

    @pytest.mark.parametrize("which", ["dp", "six"])
    def test_all_functions_batched_and_single(self, backend, models, which):
        num, ref = models[which]
        n = num.n
        rng = np.random.default_rng(5)
        q, qd, tau = rng.uniform(-2, 2, (3, 33, n))
        cases = [
            ("M", (q,)),
            ("C", (q, qd)),
            ("g", (q,)),
            ("energy", (q, qd)),
            ("bias", (q, qd)),
            ("forward_dynamics", (q, qd, tau)),
            ("inverse_dynamics", (q, qd, tau)),
        ]
        if which == "six" and backend in ("numba", "jax"):  # jitting all seven takes ~10 s
            cases = [c for c in cases if c[0] == "forward_dynamics"]
        for name, args in cases:
            a = getattr(num, name)(*args)
            b = getattr(ref, name)(*args)
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(b).max()))
            one = getattr(num, name)(*(x[3] for x in args))
            np.testing.assert_allclose(
                one, b[3], rtol=1e-12, atol=1e-12 * max(1.0, np.abs(b).max())
            )
        # broadcasting: one tau for all states, q broadcast against qd
        np.testing.assert_allclose(
            num.forward_dynamics(q[:1], qd, tau[0]),
            ref.forward_dynamics(q[:1], qd, tau[0]),
            rtol=1e-12,
            atol=1e-12,
        )

    def test_free_parameters(self, backend, systems, cache_dir):
        _available(backend)
        dp, _ = systems["dp"]
        try:
            num = lambdify(dp, {"l1": 1.0, "l2": 0.5}, backend=backend, cache_dir=cache_dir)
        except ld.BackendUnavailableError as exc:
            pytest.skip(str(exc))
        ref = lambdify(dp, {"l1": 1.0, "l2": 0.5}, cache_dir=cache_dir)
        q = np.random.default_rng(0).uniform(-1, 1, (4, 2))
        p = np.array([[9.8, 1.0, 2.0], [9.8, 1.5, 0.5], [1.0, 1.0, 1.0], [3.0, 2.0, 1.0]])
        np.testing.assert_allclose(
            num.forward_dynamics(q, q, params=p), ref.forward_dynamics(q, q, params=p), rtol=1e-12
        )
        np.testing.assert_allclose(
            num.forward_dynamics(q[0], q[0], params=p[0]),
            ref.forward_dynamics(q[0], q[0], params=p[0]),
            rtol=1e-12,
        )
        with pytest.raises(ld.UnboundParameterError):
            num.M(q)


def test_unknown_backend():
    with pytest.raises(ld.LagdynError, match="unknown numeric backend"):
        lambdify(ld.zoo.double_pendulum(), backend="fortran")


def test_missing_optional_backend_raises_backend_unavailable(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name in ("numba", "jax", "cffi") or name.startswith(("jax.", "numba.")):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    dp = ld.zoo.double_pendulum()
    for name in ("numba", "jax", "c"):
        with pytest.raises(ld.BackendUnavailableError, match=r"pip install 'lagdyn\[") as exc:
            lambdify(dp, dp.defaults, backend=name, cache=False)
        assert isinstance(exc.value, ImportError)


def test_c_cache_hit_and_tamper(tmp_path, caplog, lagdyn_cache_dir):
    pytest.importorskip("cffi")
    dp = ld.zoo.double_pendulum()
    try:
        a = lambdify(dp, dp.defaults, backend="c")  # the session cache: compiled once per run
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    assert a.source.startswith("// generated by lagdyn — do not edit")
    # a private copy of the session's cache entry (the files named after its C source), to
    # tamper with
    (c_file,) = [p for p in lagdyn_cache_dir.glob("*.c") if p.read_text() == a.source]
    for p in lagdyn_cache_dir.glob(c_file.stem + ".*"):
        shutil.copy2(p, tmp_path / p.name)
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    b = lambdify(dp, dp.defaults, backend="c", cache_dir=tmp_path)
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before  # a hit
    q = np.random.default_rng(1).uniform(size=(20, 2))
    np.testing.assert_array_equal(a.forward_dynamics(q, q), b.forward_dynamics(q, q))
    (so,) = [p for p in tmp_path.iterdir() if p.suffix == ".so" or p.name.endswith(".pyd")]
    data = bytearray(so.read_bytes())
    data[-10] ^= 0xFF
    # replace the file (new inode), as an attacker would: rewriting a loaded .so in
    # place would corrupt this very process's mapping of it
    tmp = tmp_path / "evil.tmp"
    tmp.write_bytes(bytes(data))
    os.replace(tmp, so)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        c = lambdify(dp, dp.defaults, backend="c", cache_dir=tmp_path)
    assert "rejecting cached compiled module" in caplog.text
    np.testing.assert_array_equal(c.forward_dynamics(q, q), a.forward_dynamics(q, q))


def test_dask_million_states_match_numpy():
    da = pytest.importorskip("dask.array")
    dp = ld.zoo.double_pendulum()
    num = lambdify(dp, dp.defaults, cache=False)
    rng = np.random.default_rng(7)
    N = 10**6
    q = rng.uniform(-2, 2, (N, 2))
    qd = rng.uniform(-2, 2, (N, 2))
    dq = da.from_array(q, chunks=(250_000, 2))
    dqd = da.from_array(qd, chunks=(250_000, 2))
    lazy = num.forward_dynamics(dq, dqd, np.array([0.1, 0.0]))
    assert isinstance(lazy, da.Array) and lazy.shape == (N, 2)
    np.testing.assert_array_equal(lazy.compute(), num.forward_dynamics(q, qd, np.array([0.1, 0.0])))
    small = slice(0, 1000)
    for name, args in [
        ("M", (dq[small],)),
        ("C", (dq[small], dqd[small])),
        ("g", (dq[small],)),
        ("energy", (dq[small], dqd[small])),
        ("inverse_dynamics", (dq[small], dqd[small], dqd[small])),
    ]:
        res = getattr(num, name)(*args)
        assert isinstance(res, da.Array)
        ref = getattr(num, name)(*(np.asarray(a) for a in args))
        np.testing.assert_array_equal(res.compute(), ref)
    x = da.concatenate([dq[small], dqd[small]], axis=-1)
    np.testing.assert_array_equal(num.rhs(0.0, x).compute(), num.rhs(0.0, np.asarray(x)))


def test_dask_free_parameters_and_errors():
    da = pytest.importorskip("dask.array")
    dp = ld.zoo.double_pendulum()
    num = lambdify(dp, {"l1": 1.0, "l2": 1.0}, cache=False)
    q = da.from_array(np.zeros((10, 2)), chunks=(5, 2))
    p = np.array([9.81, 1.0, 1.0])
    np.testing.assert_allclose(num.M(q, params=p).compute(), num.M(np.zeros((10, 2)), params=p))
    with pytest.raises(ld.UnboundParameterError):
        num.M(q)
    with pytest.raises(ld.ShapeError, match="q has shape"):
        num.M(da.zeros((10, 3), chunks=5), params=p)


def test_jax_does_not_switch_the_process_to_float64():
    """Issue 11 item 11: building or calling a jax model leaves jax_enable_x64 alone."""
    jax = pytest.importorskip("jax")
    before = bool(jax.config.jax_enable_x64)
    dp = ld.zoo.double_pendulum()
    num = lambdify(dp, dp.defaults, backend="jax", cache=False)
    ref = lambdify(dp, dp.defaults, cache=False)
    q = np.array([[0.3, -0.4], [0.1, 0.2]])
    # numpy in: float64 inside the call
    np.testing.assert_allclose(num.M(q), ref.M(q), rtol=1e-15)
    assert bool(jax.config.jax_enable_x64) == before


def test_jax_end_to_end_jit_vmap_grad():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        _jax_end_to_end(jax)


def _jax_end_to_end(jax):
    jnp = jax.numpy
    dp = ld.zoo.double_pendulum()
    num = lambdify(dp, dp.defaults, backend="jax", cache=False)
    ref = lambdify(dp, dp.defaults, cache=False)
    q, qd = jnp.array([0.3, -0.4]), jnp.array([0.5, 0.2])
    # jax in, jax out; the same values as numpy
    e = num.energy(q, qd)
    assert isinstance(e, jax.Array)
    np.testing.assert_allclose(float(e), ref.energy(np.asarray(q), np.asarray(qd)), rtol=1e-14)
    # grad of the energy through the model: dE/dqd = M qd, dE/dq = ∂V/∂q + ½ qdᵀ ∂M/∂q qd
    dE_dqd = jax.grad(lambda v: num.energy(q, v))(qd)
    np.testing.assert_allclose(dE_dqd, ref.M(np.asarray(q)) @ np.asarray(qd), rtol=1e-13)
    dE_dq = jax.grad(lambda x: num.energy(x, jnp.zeros(2)))(q)
    np.testing.assert_allclose(dE_dq, ref.g(np.asarray(q)), rtol=1e-13)
    # jit and vmap of a model method, batched and with free parameters
    fd = jax.jit(lambda x, v: num.forward_dynamics(x, v))
    qb = jnp.array(np.random.default_rng(0).uniform(-1, 1, (5, 2)))
    np.testing.assert_allclose(
        fd(qb, qb), ref.forward_dynamics(np.asarray(qb), np.asarray(qb)), rtol=1e-12
    )
    np.testing.assert_allclose(jax.vmap(num.M)(qb), ref.M(np.asarray(qb)), rtol=1e-13)
    free = lambdify(dp, {"l1": 1.0, "l2": 1.0}, backend="jax", cache=False)
    dM_dm2 = jax.grad(lambda m2: free.M(q, params={"g": 10.0, "m1": 1.0, "m2": m2})[1, 1])(2.0)
    np.testing.assert_allclose(dM_dm2, 1.0)
    with pytest.raises(ld.UnboundParameterError):
        free.M(q)
    with pytest.raises(ld.ShapeError):
        num.M(jnp.zeros(3))


def test_expressions_on_compiled_backend(tmp_path):
    pytest.importorskip("cffi")
    import sympy as sp

    from lagdyn.numeric import lambdify_expressions

    dp = ld.zoo.double_pendulum()
    a, b = dp.q
    outs = {"tip": sp.Matrix([sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b)]), "one": sp.eye(2)}
    try:
        c = lambdify_expressions(dp, outs, dp.defaults, backend="c", cache_dir=tmp_path)
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    ref = lambdify_expressions(dp, outs, dp.defaults, cache=False)
    q = np.random.default_rng(2).uniform(-2, 2, (7, 2))
    np.testing.assert_allclose(c.tip(q), ref.tip(q), rtol=1e-14)
    np.testing.assert_allclose(c.tip(q[0]), ref.tip(q[0]), rtol=1e-14)
    np.testing.assert_array_equal(c.one(q), np.broadcast_to(np.eye(2), (7, 2, 2)))


def test_c_single_results_do_not_alias():
    pytest.importorskip("cffi")
    dp = ld.zoo.double_pendulum()
    try:
        c = lambdify(dp, dp.defaults, backend="c")
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    q = np.random.default_rng(3).uniform(-2, 2, (200, 2))
    outs = [c.forward_dynamics(x, x) for x in q]  # more calls than one output block holds
    np.testing.assert_allclose(np.array(outs), c.forward_dynamics(q, q), rtol=1e-13, atol=1e-13)
    assert len({id(o) for o in outs}) == len(outs) and not np.shares_memory(outs[0], outs[1])
    assert c.energy(q[0], q[0]).shape == ()


def test_backend_registry():
    assert {"numpy", "c", "numba", "jax"} <= set(backends.names())


def test_c_one_state_entry_points_match_and_fall_back():
    """The METH_FASTCALL one-state path: same numbers, fresh arrays, general path otherwise."""
    import numpy as np
    import pytest

    import lagdyn as ld

    sys = ld.zoo.double_pendulum()
    try:
        model = sys.lambdify(sys.defaults, backend="c")
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))
    ref = sys.lambdify(sys.defaults)
    assert "forward_dynamics" in model._compiled  # the compiled entry points were built
    q, qd, tau = np.array([0.3, -0.2]), np.array([0.5, 0.1]), np.array([0.2, -0.4])
    for name, args in (
        ("M", (q,)),
        ("C", (q, qd)),
        ("g", (q,)),
        ("energy", (q, qd)),
        ("bias", (q, qd)),
        ("forward_dynamics", (q, qd, tau)),
        ("inverse_dynamics", (q, qd, tau)),
    ):
        got = getattr(model, name)(*args)
        assert type(got) is type(getattr(ref, name)(*args))
        np.testing.assert_allclose(got, getattr(ref, name)(*args), rtol=1e-13, atol=1e-13)
    a, b = model.M(q), model.M(q)
    assert a is not b and not np.shares_memory(a, b)
    # inputs the entry points do not take go the general way, with the same result
    expected = ref.forward_dynamics(q, qd, tau)
    for variant in (
        (list(q), qd, tau),
        (q.astype(np.float32).astype(np.float64)[::1], qd, tau),
        (np.stack([q, q])[:, 0:2][0], qd, tau),
        (q, qd, None),
    ):
        out = model.forward_dynamics(*variant)
        want = ref.forward_dynamics(*variant)
        np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(model.forward_dynamics(q, qd, tau, t=1), expected, rtol=1e-13)
    strided = np.array([0.3, 9.0, -0.2])[::2]  # not contiguous: general path
    np.testing.assert_allclose(model.M(strided), ref.M(q), rtol=1e-13)
    assert np.isnan(model.M(np.array([np.nan, 0.0]))).any()
    with pytest.raises(ld.ShapeError):
        model.M(np.zeros(3))

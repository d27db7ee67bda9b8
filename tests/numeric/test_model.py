"""lagdyn.numeric: generated numeric models (numpy backend, cache, shapes, errors)."""

from __future__ import annotations

import logging
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from helpers import evalf_matrix, n_link_pendulum, numeric_subs
from lagdyn.numeric import lambdify
from lagdyn.zoo.robots import LARGE
from strategies import random_lagrangians


@pytest.fixture(scope="module")
def dp() -> ld.LagrangianSystem:
    return ld.zoo.double_pendulum()


@pytest.fixture(scope="module")
def dp_num(dp, tmp_path_factory):
    return lambdify(dp, dp.defaults, cache_dir=tmp_path_factory.mktemp("cache"))


def _symbolic(system, params, q, qd):
    sub = numeric_subs(system, q, qd, params)
    return (
        evalf_matrix(system.M, sub),
        evalf_matrix(system.C, sub),
        evalf_matrix(system.g, sub).ravel(),
    )


def _check_against_symbolic(system, params, rng, states=3, tmp=None):
    num = lambdify(system, params, cache=False)
    n = system.n
    for _ in range(states):
        q = rng.uniform(-3, 3, n)
        qd = rng.uniform(-3, 3, n)
        M, C, g = _symbolic(system, params, q, qd)
        np.testing.assert_allclose(num.M(q), M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.C(q, qd), C, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.g(q), g, rtol=1e-12, atol=1e-12)
        # the batched path on the same states
        np.testing.assert_allclose(num.M(q[None])[0], M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(num.C(q[None], qd[None])[0], C, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in ld.zoo.names() if n not in LARGE])
def test_zoo_matches_symbolic(name):
    system = ld.zoo.get(name)
    _check_against_symbolic(system, system.defaults, np.random.default_rng(0))


@settings(max_examples=6)  # a derivation, a code generation and a 20-digit evalf each
@given(random_lagrangians(max_n=3), st.integers(0, 2**31))
def test_random_lagrangians_match_symbolic(rl, seed):
    system = ld.LagrangianSystem(rl.L, rl.q, rl.forces)
    params = {s: v for s, v in rl.params.items() if s in system.parameters}
    _check_against_symbolic(system, params, np.random.default_rng(seed), states=1)


@settings(max_examples=6)  # a derivation and a code generation each
@given(random_lagrangians(max_n=3), st.integers(0, 2**31))
def test_forward_inverse_are_inverses(rl, seed):
    system = ld.LagrangianSystem(rl.L, rl.q, rl.forces)
    params = {s: v for s, v in rl.params.items() if s in system.parameters}
    num = lambdify(system, params, cache=False)
    rng = np.random.default_rng(seed)
    n = system.n
    q, qd, tau = rng.uniform(-2, 2, (3, 7, n))
    qdd = num.forward_dynamics(q, qd, tau, t=0.3)
    back = num.inverse_dynamics(q, qd, qdd, t=0.3)
    np.testing.assert_allclose(back, tau, rtol=1e-9, atol=1e-9)
    # residual of the solve, relative
    M = num.M(q)
    h = num.bias(q, qd, t=0.3)
    res = np.einsum("bij,bj->bi", M, qdd) + h - tau
    scale = np.abs(tau).max() + np.abs(h).max() + np.abs(np.einsum("bij,bj->bi", M, qdd)).max()
    assert np.abs(res).max() <= 1e-12 * scale


def test_forward_dynamics_matches_symbolic_with_forces():
    q1, q2 = ld.coordinates("q1 q2")
    v1, v2 = ld.velocities([q1, q2])
    c = sp.Symbol("c", positive=True)
    L = (2 * v1**2 + v2**2 + sp.cos(q1 - q2) * v1 * v2) / 2 - sp.cos(q1)
    forces = [-c * v1 + sp.sin(ld.t), -c * v2]
    system = ld.LagrangianSystem(L, [q1, q2], forces)
    num = lambdify(system, {c: 0.3}, cache=False)
    q, qd, tau = np.array([0.3, -0.2]), np.array([0.5, 0.1]), np.array([0.2, 0.0])
    sub = numeric_subs(system, q, qd, {c: 0.3})
    sub[ld.t] = 1.1
    M = evalf_matrix(system.M, sub)
    h = evalf_matrix(system.C * sp.Matrix(system.qd) + system.g - system.forces, sub).ravel()
    expected = np.linalg.solve(M, tau - h)
    np.testing.assert_allclose(num.forward_dynamics(q, qd, tau, t=1.1), expected, rtol=1e-12)
    np.testing.assert_allclose(
        num.forward_dynamics(q[None], qd[None], tau, t=np.array([1.1]))[0], expected, rtol=1e-12
    )


def test_six_link_unrolled_ldlt_residual():
    system = n_link_pendulum(6)
    num = lambdify(system, system.defaults, cache=False)
    rng = np.random.default_rng(1)
    q, qd, tau = rng.uniform(-2, 2, (3, 50, 6))
    qdd = num.forward_dynamics(q, qd, tau)
    M, h = num.M(q), num.bias(q, qd)
    expected = np.linalg.solve(M, (tau - h)[..., None])[..., 0]
    np.testing.assert_allclose(qdd, expected, rtol=1e-10, atol=1e-10)
    res = np.einsum("bij,bj->bi", M, qdd) + h - tau
    rel = np.linalg.norm(res, axis=-1) / (
        np.linalg.norm(M, axis=(-2, -1)) * np.linalg.norm(qdd, axis=-1)
        + np.linalg.norm(tau - h, axis=-1)
    )
    assert rel.max() <= 1e-12
    # single-state path agrees with batched
    np.testing.assert_allclose(
        num.forward_dynamics(q[0], qd[0], tau[0]), qdd[0], rtol=1e-13, atol=1e-13
    )


def test_large_n_uses_stacked_solve():
    n = 9
    q = ld.coordinates([f"x{i}" for i in range(n)])
    v = ld.velocities(q)
    L = (
        sum((2 + sp.cos(q[i])) * v[i] ** 2 / 2 for i in range(n))
        + sum(v[i] * v[i + 1] / 4 for i in range(n - 1))
        - sum(x**2 for x in q) / 2
    )
    num = lambdify(ld.LagrangianSystem(L, q), cache=False)
    assert "forward_dynamics_batch" not in num.source
    rng = np.random.default_rng(2)
    qq, qd, tau = rng.uniform(-1, 1, (3, 4, n))
    qdd = num.forward_dynamics(qq, qd, tau)
    np.testing.assert_allclose(num.inverse_dynamics(qq, qd, qdd), tau, atol=1e-12)
    np.testing.assert_allclose(num.forward_dynamics(qq[0], qd[0], tau[0]), qdd[0], atol=1e-13)


# ---------------------------------------------------------------------------- shapes
def test_shapes_single_batched_broadcast(dp_num):
    n = 2
    assert dp_num.M(np.zeros(n)).shape == (n, n)
    assert dp_num.M(np.zeros((4, n))).shape == (4, n, n)
    assert dp_num.M(np.zeros((3, 4, n))).shape == (3, 4, n, n)
    assert dp_num.C(np.zeros((3, 1, n)), np.zeros((4, n))).shape == (3, 4, n, n)
    assert dp_num.g(np.zeros((5, n))).shape == (5, n)
    assert dp_num.energy(np.zeros((5, n)), np.zeros(n)).shape == (5,)
    assert np.ndim(dp_num.energy(np.zeros(n), np.zeros(n))) == 0
    assert dp_num.forward_dynamics(np.zeros((2, 1, n)), np.zeros((3, n)), np.ones(n)).shape == (
        2,
        3,
        n,
    )
    assert dp_num.rhs(0.0, np.zeros((6, 2 * n))).shape == (6, 2 * n)
    assert dp_num.M(np.zeros((0, n))).shape == (0, n, n)
    # constant entries broadcast (sympy #5642, #19259, #27632)
    M = dp_num.M(np.random.default_rng(0).uniform(size=(7, n)))
    np.testing.assert_array_equal(M[:, 0, 0], 2.0)


def test_single_and_batched_agree(dp_num):
    rng = np.random.default_rng(3)
    q, qd, tau = rng.uniform(-2, 2, (3, 10, 2))
    batched = dp_num.forward_dynamics(q, qd, tau)
    for k in range(10):
        np.testing.assert_allclose(
            dp_num.forward_dynamics(q[k], qd[k], tau[k]), batched[k], rtol=1e-14
        )
        np.testing.assert_allclose(
            dp_num.forward_dynamics(list(q[k]), tuple(qd[k]), tau[k]), batched[k], rtol=1e-14
        )
        np.testing.assert_allclose(dp_num.energy(q[k], qd[k]), dp_num.energy(q, qd)[k], rtol=1e-14)


def test_energy_conserved_rk4(dp_num):
    dt, steps = 1e-3, 5000
    x = np.array([1.2, -0.7, 0.0, 0.3])
    f = dp_num.rhs
    e0 = dp_num.energy(x[:2], x[2:])
    for _ in range(steps):
        k1 = f(0.0, x)
        k2 = f(0.0, x + dt / 2 * k1)
        k3 = f(0.0, x + dt / 2 * k2)
        k4 = f(0.0, x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    e1 = dp_num.energy(x[:2], x[2:])
    assert abs(e1 - e0) / abs(e0) <= 1e-6


def test_solve_ivp_interface(dp_num):
    scipy_integrate = pytest.importorskip("scipy.integrate")
    sol = scipy_integrate.solve_ivp(
        dp_num.rhs, (0.0, 0.5), [0.5, 0.0, 0.0, 0.0], rtol=1e-10, atol=1e-10
    )
    assert sol.success
    e = dp_num.energy(sol.y[:2].T, sol.y[2:].T)
    assert np.ptp(e) < 1e-6


def test_nan_in_nan_out(dp_num):
    q = np.array([[np.nan, 0.0], [0.1, 0.2]])
    out = dp_num.forward_dynamics(q, np.zeros((2, 2)))
    assert np.isnan(out[0]).all() and np.isfinite(out[1]).all()


# ---------------------------------------------------------------------------- parameters
def test_free_parameters_per_call(dp):
    num = lambdify(dp, {"l1": 1.0, "l2": 1.0}, cache=False)
    assert [s.name for s in num.free_parameters] == ["g", "m1", "m2"]
    full = lambdify(dp, dp.defaults, cache=False)
    q = np.array([[0.3, -0.1], [0.2, 0.4]])
    p = {"g": 10.0, "m1": 1.0, "m2": 1.0}
    np.testing.assert_allclose(num.M(q, params=p), full.M(q), rtol=1e-14)
    np.testing.assert_allclose(num.M(q, params=np.array([10.0, 1.0, 1.0])), full.M(q), rtol=1e-14)
    np.testing.assert_allclose(
        num.M(q[0], params=np.array([10.0, 1.0, 1.0])), full.M(q[0]), rtol=1e-14
    )
    # batched parameters: one set per state
    pb = np.array([[10.0, 1.0, 1.0], [10.0, 2.0, 3.0]])
    M = num.M(q, params=pb)
    np.testing.assert_allclose(M[1, 1, 1], 3.0)
    np.testing.assert_allclose(
        num.g(q[0], params={"g": np.array([1.0, 2.0]), "m1": 1.0, "m2": 1.0}).shape, (2, 2)
    )


def test_unbound_parameters_named(dp):
    num = lambdify(dp, {"l1": 1.0, "l2": 1.0}, cache=False)
    with pytest.raises(ld.UnboundParameterError) as exc:
        num.forward_dynamics([0.0, 0.0], [0.0, 0.0])
    assert {s.name for s in exc.value.missing} == {"g", "m1", "m2"}
    assert all(name in str(exc.value) for name in ("g", "m1", "m2"))
    with pytest.raises(ld.UnboundParameterError) as exc:
        num.M(np.zeros((3, 2)), params={"g": 1.0})
    assert {s.name for s in exc.value.missing} == {"m1", "m2"}
    with pytest.raises(ld.LagdynError, match="not parameters"):
        lambdify(dp, {"mass": 1.0}, cache=False, strict=True)


def test_parameters_not_in_system_accepted(dp):
    """Issue 11 item 11: a full parameter set may name symbols that do not occur."""
    num = lambdify(dp, {**dp.defaults, "l3": 2.0}, cache=False)
    assert num.free_parameters == ()
    assert num.M([0.0, 0.0]).shape == (2, 2)
    from lagdyn.codegen import Binding

    assert Binding(dp.parameters, {"l3": 2.0}).ignored == ("l3",)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.M(np.zeros(3)), r"q has shape \(3,\), expected \(\.\.\., 2\)"),
        (lambda m: m.M(1.0), r"q has shape \(\), expected"),
        (lambda m: m.C(np.zeros((4, 2)), np.zeros((3, 2))), "batch shapes do not broadcast"),
        (lambda m: m.forward_dynamics(np.zeros(2), np.zeros(2), np.zeros(5)), r"tau has shape"),
        (lambda m: m.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(1)), r"qdd has shape"),
        (lambda m: m.M(np.zeros(2, complex)), "q has dtype complex"),
        (lambda m: m.M(np.array([None, None])), "q has dtype object"),
        (lambda m: m.M(["a", "b"]), "q has dtype"),
        (lambda m: m.rhs(0.0, np.zeros(3)), r"x has shape \(3,\), expected \(\.\.\., 4\)"),
    ],
)
def test_bad_input_raises_shape_error(dp_num, call, match):
    with pytest.raises(ld.ShapeError, match=match):
        call(dp_num)


# ---------------------------------------------------------------------------- generated source, cache
def test_source_is_generated_python(dp_num):
    src = dp_num.source
    assert src.startswith("# generated by lagdyn — do not edit")
    compile(src, "<generated>", "exec")
    assert "def forward_dynamics_batch(q, qd, tau, params, t, out):" in src


def test_one_joint_cse_shared_by_functions(dp):
    from lagdyn.codegen import Binding, system_program

    spec = system_program(dp, Binding(dp.parameters, dp.defaults))
    fd = {str(s) for s, _ in spec.kernels["forward_dynamics"].body}
    m = {str(s) for s, _ in spec.kernels["M"].body}
    # the same CSE symbols (w...) appear in several kernels: one CSE pass
    shared = {s for s in fd & m if s.startswith("w")}
    assert shared or not any(s.startswith("w") for s in m)


def test_cache_hit_identical(dp, tmp_path):
    a = lambdify(dp, dp.defaults, cache_dir=tmp_path)
    files = list(tmp_path.glob("*.py"))
    assert len(files) == 1
    b = lambdify(dp, dp.defaults, cache_dir=tmp_path)
    assert a.source == b.source
    q = np.random.default_rng(0).uniform(size=(50, 2))
    np.testing.assert_array_equal(a.forward_dynamics(q, q), b.forward_dynamics(q, q))


def test_cache_env_var(dp, tmp_path, monkeypatch):
    monkeypatch.setenv("LAGDYN_CACHE_DIR", str(tmp_path / "env"))
    lambdify(dp, dp.defaults)
    assert list((tmp_path / "env").glob("*.py"))


def test_cache_disabled_writes_nothing(dp, tmp_path, monkeypatch):
    monkeypatch.setenv("LAGDYN_CACHE_DIR", str(tmp_path / "env"))
    lambdify(dp, dp.defaults, cache=False)
    assert not (tmp_path / "env").exists()


def test_tampered_cache_rejected(dp, tmp_path, caplog):
    a = lambdify(dp, dp.defaults, cache_dir=tmp_path)
    (path,) = tmp_path.glob("*.py")
    text = path.read_text()
    marker = tmp_path / "pwned"
    evil = text.replace(
        '"""Numeric kernels', f'open({str(marker)!r}, "w").close()\n"""Numeric kernels', 1
    )
    assert evil != text
    path.write_text(evil)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        b = lambdify(dp, dp.defaults, cache_dir=tmp_path)
    assert not marker.exists()
    assert "rejecting cache file" in caplog.text
    assert b.source == a.source
    assert path.read_text() == text  # regenerated


def test_import_lagdyn_does_not_load_numeric():
    code = (
        "import sys, lagdyn; "
        "bad = [m for m in sys.modules if m.startswith('lagdyn.numeric') or m in ('cffi', 'numba', 'jax', 'dask')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# ---------------------------------------------------------------------------- lambdify_expressions
@pytest.fixture(scope="module")
def cartesian_pendulum():
    x, y = ld.coordinates("x y")
    xd, yd = ld.velocities([x, y])
    m, g, ell = sp.symbols("m g l", positive=True)
    system = ld.LagrangianSystem(m * (xd**2 + yd**2) / 2 - m * g * y, [x, y])
    h = sp.Matrix([x**2 + y**2 - ell**2])
    J = h.jacobian([x, y])
    Jdot_qd = sp.Matrix([(J * sp.Matrix([xd, yd]))[0].diff(ld.t)]).subs(
        {xd.diff(ld.t): 0, yd.diff(ld.t): 0}
    )
    return system, {"h": h, "J": J, "Jdot_qd": Jdot_qd}, ell


def test_expressions_constraint_jacobian_matches_sympy(cartesian_pendulum):
    from lagdyn.numeric import lambdify_expressions

    system, outputs, ell = cartesian_pendulum
    em = lambdify_expressions(system, outputs, {"m": 1.0, "g": 9.81}, cache=False)
    assert em.free_parameters == (ell,)
    assert em.shapes == {"h": (1,), "J": (1, 2), "Jdot_qd": (1,)}
    assert em.source.startswith("# generated by lagdyn — do not edit")
    rng = np.random.default_rng(7)
    q, qd = rng.uniform(-2, 2, (2, 20, 2))
    lv = rng.uniform(0.5, 2, 20)
    J = em.J(q, qd, params=lv[:, None])
    Jd = em.Jdot_qd(q, qd, params={"l": lv})
    assert J.shape == (20, 1, 2) and Jd.shape == (20, 1)
    for k in range(0, 20, 5):
        sub = numeric_subs(system, q[k], qd[k], {ell: lv[k]})
        np.testing.assert_allclose(J[k], evalf_matrix(outputs["J"], sub), rtol=1e-13)
        np.testing.assert_allclose(Jd[k], evalf_matrix(outputs["Jdot_qd"], sub).ravel(), rtol=1e-13)
        # single-state path agrees
        np.testing.assert_allclose(em.J(q[k], params=[lv[k]]), J[k], rtol=1e-15)
        np.testing.assert_allclose(
            em.evaluate("h", list(q[k]), params=[lv[k]]), em.h(q[k : k + 1], params=[lv[k]])[0]
        )


def test_expressions_constant_output_broadcasts(dp):
    from lagdyn.numeric import lambdify_expressions

    l1 = next(s for s in dp.parameters if s.name == "l1")
    em = lambdify_expressions(
        dp,
        {"eye": sp.eye(2), "k": sp.Matrix([1, l1]), "zero": sp.Integer(0)},
        dp.defaults,
        cache=False,
    )
    q = np.zeros((3, 4, 2))
    np.testing.assert_array_equal(em.eye(q), np.broadcast_to(np.eye(2), (3, 4, 2, 2)))
    np.testing.assert_array_equal(em.k(q), np.broadcast_to([1.0, dp.defaults[l1]], (3, 4, 2)))
    assert em.zero(q).shape == (3, 4)
    np.testing.assert_array_equal(em.eye([0.0, 0.0]), np.eye(2))
    assert np.ndim(em.zero([0.0, 0.0])) == 0


def test_expressions_errors(cartesian_pendulum, dp):
    from lagdyn.numeric import lambdify_expressions

    system, outputs, ell = cartesian_pendulum
    em = lambdify_expressions(system, outputs, {"m": 1.0}, cache=False)
    with pytest.raises(ld.UnboundParameterError) as exc:
        em.J(np.zeros((3, 2)))
    assert {s.name for s in exc.value.missing} == {"g", "l"}
    with pytest.raises(ld.ShapeError, match=r"q has shape \(3,\)"):
        em.J(np.zeros(3), params={"g": 1.0, "l": 1.0})
    with pytest.raises(ld.LagdynError, match="depends on the rates"):
        em.Jdot_qd(np.zeros(2), params={"g": 1.0, "l": 1.0})
    with pytest.raises(AttributeError):
        em.nope  # noqa: B018
    for bad in ("source", "_x", "not an identifier", "class"):
        with pytest.raises(ld.LagdynError, match="invalid"):
            lambdify_expressions(system, {bad: sp.eye(1)}, cache=False)
    with pytest.raises(ld.LagdynError, match="neither coordinates"):
        lambdify_expressions(
            dp, {"a": sp.Matrix([dp.q[0].diff(ld.t, 2)])}, dp.defaults, cache=False
        )


def test_expressions_cached(cartesian_pendulum, tmp_path):
    from lagdyn.numeric import lambdify_expressions

    system, outputs, _ = cartesian_pendulum
    a = lambdify_expressions(system, outputs, {"m": 1.0, "g": 1.0, "l": 1.0}, cache_dir=tmp_path)
    b = lambdify_expressions(system, outputs, {"m": 1.0, "g": 1.0, "l": 1.0}, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("*.py"))) == 1 and a.source == b.source
    c = lambdify_expressions(
        system, {"h": outputs["h"]}, {"m": 1.0, "g": 1.0, "l": 1.0}, cache_dir=tmp_path
    )
    assert c.key != a.key


def test_constant_entries_come_back_as_floats_for_one_state():
    """A constant mass matrix (integer entries) must not produce an int array."""
    import numpy as np

    import lagdyn as ld

    x, y = ld.coordinates("x y")
    sys = ld.LagrangianSystem((x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2 - x, [x, y])
    model = sys.lambdify(cache=False)
    one = np.array([0.1, 0.2])
    for out in (model.M(one), model.g(one), model.C(one, one), model.M([0.1, 0.2])):
        assert out.dtype == np.float64
    np.testing.assert_array_equal(model.M(one), np.eye(2))


@pytest.mark.parametrize("name", [n for n in ld.zoo.names() if n not in LARGE])
def test_one_state_equals_its_row_of_a_batch_for_every_method(name):
    """The one-state fast paths (generated scalar code) and the batched kernels agree, in dtype
    and value, for every method of every zoo model."""
    sys = ld.zoo.get(name)
    model = sys.lambdify(sys.defaults)
    rng = np.random.default_rng(3)
    n = sys.n
    q, qd, u = (rng.uniform(0.2, 1.0, (3, n)) for _ in range(3))
    for method, args in (
        ("M", (q,)),
        ("C", (q, qd)),
        ("g", (q,)),
        ("energy", (q, qd)),
        ("bias", (q, qd)),
        ("forward_dynamics", (q, qd, u)),
        ("inverse_dynamics", (q, qd, u)),
    ):
        fn = getattr(model, method)
        batch = fn(*args)
        one = fn(*(a[1] for a in args))
        assert np.asarray(one).dtype == np.float64, method
        np.testing.assert_allclose(one, batch[1], rtol=1e-12, atol=1e-12, err_msg=method)

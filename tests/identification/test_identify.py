"""Regressors, base parameters and least-squares identification (lagdyn.identification)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn import identification as idf
from lagdyn.zoo.robots import LARGE

ZOO = [
    n
    for n in ld.zoo.names()
    if n not in LARGE
    and isinstance(ld.zoo.get(n), ld.LagrangianSystem)
    and any(p.name != "g" for p in ld.zoo.get(n).parameters)  # numeric arms have none
]
_CACHE: dict[str, tuple] = {}


def _setup(name):
    """(system, standard params, numeric Y, numeric inverse dynamics, π at the defaults)."""
    if name not in _CACHE:
        sys_ = ld.zoo.get(name)
        params = idf.linear_parameters(sys_, [s for s in sys_.parameters if s.name != "g"])
        Yf = idf.regressor_function(sys_, params, sys_.defaults)
        num = sys_.lambdify(sys_.defaults)
        pi = np.array([float(p.subs(sys_.defaults)) for p in params])
        _CACHE[name] = (sys_, params, Yf, num, pi)
    return _CACHE[name]


def _states(seed, N, n):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, (N, n)), rng.normal(size=(N, n)), rng.normal(size=(N, n))


# ---------------------------------------------------------------------------- regressor
@pytest.mark.parametrize("name", ZOO)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_regressor_times_parameters_is_inverse_dynamics(name, seed):
    sys_, params, Yf, num, pi = _setup(name)
    q, qd, qdd = _states(seed, 16, sys_.n)
    if name == "elastic_pendulum":
        q[:, 0] = np.abs(q[:, 0]) + 0.5  # a positive spring length
    tau = Yf(q, qd, qdd) @ pi
    ref = num.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(tau, ref, rtol=1e-10, atol=1e-9 * (1 + np.abs(ref).max()))


@pytest.mark.parametrize("name", ["double_pendulum", "two_link_planar", "cart_pole", "acrobot"])
def test_regressor_is_exact_for_small_models(name):
    sys_, params, *_ = _setup(name)
    Y = ld.regressor(sys_, params)
    assert Y.shape == (sys_.n, len(params))
    residual = (Y * sp.Matrix(params) - sys_.equations([0] * sys_.n)).applyfunc(sp.expand)
    assert residual == sp.zeros(sys_.n, 1)
    # Y contains no identification symbol (only g and the state)
    ids = {s for p in params for s in p.free_symbols}
    assert not (Y.free_symbols & ids)


def test_parameters_by_name_symbol_or_product_agree():
    dp = ld.zoo.double_pendulum()
    m1, m2 = ld.parameters("m1 m2")
    assert ld.regressor(dp, ["m1", "m2"]) == ld.regressor(dp, [m1, m2])


def test_nonlinear_parameters_name_the_product_and_suggest_products():
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.LagdynError, match=r"l2\*\*2\*m2") as err:
        ld.regressor(dp, ["m1", "m2", "l2"])
    assert "params=[m1, m2, l2*m2, l2**2*m2]" in str(err.value)


def test_term_without_parameters_is_reported():
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.LagdynError, match="contains none of them"):
        ld.regressor(dp, ["m2"])


def test_parameter_inside_a_function_is_refused():
    (x,) = ld.coordinates("x")
    m, k = ld.parameters("m k")
    sys_ = ld.LagrangianSystem(m * x.diff(ld.t) ** 2 / 2 + sp.cos(k * x), [x])
    with pytest.raises(ld.LagdynError, match="not a positive integer power"):
        ld.regressor(sys_, ["m", "k"])


@pytest.mark.parametrize(
    "params, match",
    [
        (["m9"], "not a parameter"),
        (["m1", "m1"], "duplicated"),
        ([], "empty"),
        ([sp.Integer(3)], "a number"),
    ],
)
def test_bad_params(params, match):
    with pytest.raises(ld.LagdynError, match=match):
        ld.regressor(ld.zoo.double_pendulum(), params)


def test_linearly_dependent_parameter_combinations_are_refused():
    arm = ld.zoo.two_link_planar()
    m1, m2, l1, lc1, lc2, I1, I2 = ld.parameters("m1 m2 l1 lc1 lc2 I1 I2")
    combos = [I1 + I2, I1, I2]
    with pytest.raises(ld.LagdynError, match="linearly dependent"):
        ld.regressor(arm, combos)


# ---------------------------------------------------------------------------- seed 001
def _seed001():
    m1, m2, l1, lc1, lc2, I1, I2 = ld.parameters("m1 m2 l1 lc1 lc2 I1 I2")
    alpha = I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2)
    beta = m2 * l1 * lc2
    delta = I2 + m2 * lc2**2
    return [alpha, beta, delta, m1 * lc1 + m2 * l1, m2 * lc2]


def test_seed001_regressor_in_alpha_beta_delta_matches_the_seed_mass_matrix():
    arm = ld.zoo.two_link_planar()
    Y = ld.regressor(arm, _seed001())
    q1, q2 = arm.q
    a1, a2 = arm.qdd
    # τ = M q̈ + ...: the α column is ∂τ/∂α = (q̈1, 0), δ's is (q̈2, q̈1 + q̈2) (seed 001's M)
    assert Y[:, 0] == sp.Matrix([a1, 0])
    assert sp.expand(Y[0, 2] - a2) == 0 and sp.expand(Y[1, 2] - a1 - a2) == 0
    g = sp.Symbol("g", positive=True)
    assert Y[:, 3] == sp.Matrix([g * sp.cos(q1), 0])


def test_seed001_base_parameters_are_alpha_beta_delta_and_gravity_terms():
    arm = ld.zoo.two_link_planar()
    seed = _seed001()
    bp = idf.base_parameters(arm, seed)
    assert bp.rank == 5 and bp.base == tuple(sp.expand(b) for b in seed)
    # the standard (product) parameters reduce to the same 5-dimensional span
    std = idf.linear_parameters(arm, ["m1", "m2", "l1", "lc1", "lc2", "I1", "I2"])
    bstd = idf.base_parameters(arm, std)
    assert bstd.rank == 5
    assert all(k.is_Rational for k in bstd.K)  # parameter-free grouping
    monos = sorted(
        {m for b in (*seed, *bstd.base) for m in sp.Add.make_args(sp.expand(b))}, key=str
    )

    def coeffs(e):
        d = sp.expand(e).as_coefficients_dict()
        return [d.get(m, 0) for m in monos]

    S = sp.Matrix([coeffs(b) for b in seed])
    B = sp.Matrix([coeffs(b) for b in bstd.base])
    assert S.rank() == B.rank() == sp.Matrix.vstack(S, B).rank() == 5


@pytest.mark.parametrize("name", ZOO)
def test_symbolic_rank_equals_numeric_rank_and_base_regressor_reproduces_tau(name):
    sys_, params, Yf, num, pi = _setup(name)
    bp = idf.base_parameters(sys_, params)
    nb = idf.numeric_base_parameters(sys_, params, sys_.defaults, function=Yf)
    assert bp.rank == nb.rank
    assert len(bp.independent) + len(bp.dependent) == len(params)
    # the symbolic combination, evaluated independently, reproduces the torques
    q, qd, qdd = _states(7, 12, sys_.n)
    if name == "elastic_pendulum":
        q[:, 0] = np.abs(q[:, 0]) + 0.5
    Yb = bp.function(sys_.defaults)
    pib = np.array([float(b.subs(sys_.defaults)) for b in bp.base])
    ref = num.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(
        Yb(q, qd, qdd) @ pib, ref, rtol=1e-10, atol=1e-9 * (1 + abs(ref).max())
    )
    # the symbolically independent columns are numerically independent
    W = Yf(q, qd, qdd).reshape(-1, len(params))
    assert np.linalg.matrix_rank(W[:, list(bp.independent)]) == bp.rank


def test_numeric_K_matches_exact_K_on_the_same_columns():
    arm, params, Yf, *_ = _setup("two_link_planar")
    nb = idf.numeric_base_parameters(arm, params, arm.defaults, function=Yf)
    W = Yf(*_states(3, 30, 2)).reshape(-1, len(params))
    Wi = W[:, list(nb.independent)]
    np.testing.assert_allclose(Wi @ nb.K, W[:, list(nb.dependent)], atol=1e-9)
    assert nb.diagonal[nb.rank - 1] > 1e-3 and nb.diagonal[nb.rank] < 1e-12


def test_base_parameters_text_lists_rank_and_combinations():
    txt = idf.base_parameters_text(ld.zoo.two_link_planar())
    assert "5 base parameters (rank 5)" in txt
    assert "I2 + lc2**2*m2" in txt  # δ


def test_pivoted_qr_reconstructs():
    from lagdyn.identification.base import pivoted_qr

    A = np.random.default_rng(0).normal(size=(8, 5))
    A[:, 3] = A[:, 0] + 2 * A[:, 1]
    Q, R, perm = pivoted_qr(A)
    np.testing.assert_allclose(Q @ R, A[:, perm], atol=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(5), atol=1e-12)
    assert abs(R[4, 4]) < 1e-12 < abs(R[3, 3])


# ---------------------------------------------------------------------------- identification
@pytest.fixture(scope="module")
def arm_experiment():
    arm = ld.zoo.two_link_planar()
    std = idf.linear_parameters(arm, ["m1", "m2", "l1", "lc1", "lc2", "I1", "I2"])
    bp = idf.base_parameters(arm, std)
    Yb = bp.function(arm.defaults)
    traj, cond = idf.excitation_trajectory(
        Yb, n_harmonics=3, period=8.0, n_samples=60, amplitude=1.2, maxiter=30
    )
    num = arm.lambdify(arm.defaults)
    t = np.linspace(0, traj.period, 400, endpoint=False)
    q, qd, qdd = traj(t)
    tau = num.inverse_dynamics(q, qd, qdd)
    truth = np.array([float(b.subs(arm.defaults)) for b in bp.base])
    return arm, bp, Yb, traj, cond, num, (q, qd, qdd, tau), truth


def test_excitation_beats_random_trajectories_of_the_same_amplitude(arm_experiment):
    from lagdyn.identification.excitation import _excursion

    arm, bp, Yb, traj, cond = arm_experiment[:5]
    times = np.linspace(0, traj.period, 60, endpoint=False)
    A = Yb(*traj(times)).reshape(-1, bp.rank)
    assert cond == pytest.approx(np.linalg.cond(A), rel=1e-9)
    assert _excursion(traj.a, traj.b, traj.omega) == pytest.approx(1.2)
    rng = np.random.default_rng(123)
    others = []
    for _ in range(10):
        a, b = rng.normal(size=(2, 2, 3))
        k = 1.2 / _excursion(a, b, traj.omega)
        rand = idf.FourierTrajectory(traj.omega, a * k, b * k, np.zeros(2))
        others.append(np.linalg.cond(Yb(*rand(times)).reshape(-1, bp.rank)))
    assert cond < min(others)


def test_identification_without_noise_recovers_base_parameters(arm_experiment):
    arm, bp, Yb, traj, cond, num, (q, qd, qdd, tau), truth = arm_experiment
    res = ld.identify(bp, q, qd, qdd, tau, function=Yb)
    np.testing.assert_allclose(res.estimates, truth, rtol=1e-8)
    assert res.residual_rms < 1e-9
    assert res.condition_number == pytest.approx(
        np.linalg.cond(Yb(q, qd, qdd).reshape(-1, bp.rank)), rel=1e-9
    )


@pytest.mark.parametrize("weights", [None, "joint"])
def test_identification_with_one_percent_noise(arm_experiment, weights):
    arm, bp, Yb, traj, cond, num, (q, qd, qdd, tau), truth = arm_experiment
    rng = np.random.default_rng(2026)
    noisy = tau + 0.01 * tau.std(axis=0) * rng.normal(size=tau.shape)
    res = ld.identify(bp, q, qd, qdd, noisy, function=Yb, weights=weights)
    assert np.all(np.abs(res.estimates - truth) <= 0.01 * np.abs(truth))
    # standard errors are honest: the true values lie within 5 σ
    assert np.all(np.abs(res.estimates - truth) <= 5 * res.std_errors)
    # held-out torques, on a different trajectory, predicted to ~the noise level
    rng2 = np.random.default_rng(5)
    qh, qdh, qddh = rng2.uniform(-1, 1, (3, 200, 2))
    ref = num.inverse_dynamics(qh, qdh, qddh)
    err = res.predict(qh, qdh, qddh) - ref
    assert np.sqrt(np.mean(err**2)) < 0.01 * np.sqrt(np.mean(ref**2))


def test_identify_from_a_system_and_bad_data(arm_experiment):
    arm, bp, Yb, traj, cond, num, (q, qd, qdd, tau), truth = arm_experiment
    res = ld.identify(arm, q, qd, qdd, tau, params=bp.params)
    np.testing.assert_allclose(res.estimates, truth, rtol=1e-8)
    assert "condition number" in res.text()
    with pytest.raises(ld.ShapeError, match="tau"):
        ld.identify(bp, q, qd, qdd, tau[:, :1], function=Yb)
    with pytest.raises(ld.ShapeError, match="rows"):
        ld.identify(bp, q, qd, qdd[:-1], tau, function=Yb)
    with pytest.raises(ld.LagdynError, match="excite"):
        z = np.zeros_like(q)
        ld.identify(bp, z, z, z, tau, function=Yb)
    with pytest.raises(ld.LagdynError, match="params is given"):
        ld.identify(bp, q, qd, qdd, tau, params=["m1"])
    with pytest.raises(ld.LagdynError, match="weights"):
        ld.identify(bp, q, qd, qdd, tau, function=Yb, weights="heavy")
    with pytest.raises(ld.LagdynError, match="LagrangianSystem or BaseParameters"):
        ld.identify("arm", q, qd, qdd, tau)


def test_random_search_excitation_without_scipy_optimizer():
    dp = ld.zoo.double_pendulum()
    bp = idf.base_parameters(dp, ["m1", "m2"])
    traj, cond = idf.excitation_trajectory(bp, n_harmonics=2, maxiter=20, optimizer="random")
    q, _, _ = traj(np.linspace(0, traj.period, 200))
    assert np.abs(q).max() <= 1.0 + 1e-12  # the amplitude bound holds
    assert np.isfinite(cond)


def test_fourier_trajectory_derivatives_by_finite_differences():
    rng = np.random.default_rng(1)
    traj = idf.FourierTrajectory(
        0.7, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=3)
    )
    t = np.linspace(0, 5, 11)
    h = 1e-5
    qp, qdp, _ = traj(t + h)
    qm, qdm, _ = traj(t - h)
    _, qd, qdd = traj(t)
    np.testing.assert_allclose((qp - qm) / (2 * h), qd, atol=1e-7)
    np.testing.assert_allclose((qdp - qdm) / (2 * h), qdd, atol=1e-7)
    q0, _, _ = traj(np.array([0.0, traj.period]))
    np.testing.assert_allclose(q0[0], q0[1], atol=1e-12)  # periodic


# ---------------------------------------------------------------------------- consistency
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_pseudo_inertia_of_point_clouds_is_their_second_moment(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(6, 3))
    m = rng.uniform(0.1, 2.0, 6)
    mass = m.sum()
    h = m @ x
    I = sum(mi * (xi @ xi * np.eye(3) - np.outer(xi, xi)) for mi, xi in zip(m, x))
    xh = np.hstack([x, np.ones((6, 1))])
    ref = (xh * m[:, None]).T @ xh
    np.testing.assert_allclose(idf.pseudo_inertia(mass, h, I), ref, atol=1e-12)
    assert idf.is_physically_consistent(mass, h, I)


def test_inconsistent_parameters_are_detected():
    # triangle inequality violated about the centre of mass: Ixx > Iyy + Izz
    assert not idf.is_physically_consistent(1.0, np.zeros(3), np.diag([3.0, 1.0, 1.0]))
    assert not idf.is_physically_consistent(0.0)
    assert idf.is_physically_consistent(2.0)
    with pytest.raises(ld.ShapeError):
        idf.pseudo_inertia(1.0, [0, 0], np.eye(3))
    with pytest.raises(ld.ShapeError):
        idf.is_physically_consistent(1.0, [0, 0, 0])


def test_parameters_without_effect_are_reported_as_not_identifiable():
    dp = ld.zoo.double_pendulum()
    m1, m2 = ld.parameters("m1 m2")
    bp = idf.base_parameters(dp, [m1, m2, m1 * m2])
    assert bp.rank == 2 and bp.dependent == (2,)
    assert "not identifiable (no effect on τ): m1*m2" in bp.text()


def test_friction_parameters_enter_the_regressor():
    (th,) = ld.coordinates("theta")
    m, l, g, fv, fc = ld.parameters("m l g fv fc")
    thd = th.diff(ld.t)
    forces = [-fv * thd - fc * sp.sign(thd)]
    pend = ld.LagrangianSystem(m * l**2 * thd**2 / 2 + m * g * l * sp.cos(th), [th], forces)
    params = idf.linear_parameters(pend, ["m", "fv", "fc"])
    assert params == (fc, fv, m)
    Y = ld.regressor(pend, params)
    assert sp.expand(Y * sp.Matrix(params) - pend.equations([0]))[0] == 0
    assert idf.base_parameters(pend, params).rank == 3


def test_excitation_falls_back_to_random_search_without_scipy(monkeypatch):
    import sys

    dp = ld.zoo.double_pendulum()
    Yb = idf.base_parameters(dp, ["m1", "m2"]).function(dp.defaults)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    traj, cond = idf.excitation_trajectory(Yb, n_harmonics=2, maxiter=10)
    assert np.isfinite(cond)
    with pytest.raises(ld.BackendUnavailableError, match="scipy"):
        idf.excitation_trajectory(Yb, n_harmonics=2, maxiter=10, optimizer="scipy")


def test_regressor_function_needs_the_known_parameters():
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.UnboundParameterError) as err:
        idf.regressor_function(dp, ["m1", "m2"], {"g": 10.0})
    assert {str(s) for s in err.value.missing} == {"l1", "l2"}
    with pytest.raises(ld.ShapeError, match="qdd"):
        idf.regressor_function(dp, ["m1", "m2"], dp.defaults)(np.zeros(2), np.zeros(2), np.zeros(3))

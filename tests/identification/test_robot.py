"""The recursive regressor of robot chains and identification of the UR5 (issue 13)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn import identification as idf
from lagdyn.recursive.regressor import is_standard, regressor_program, standard_parameters_of
from lagdyn.trig.identities import is_zero

_FUNCS: dict[str, tuple] = {}


def _arm(name):
    """(symbolic arm, standard params, generated Y, true π, numeric RNEA of the true arm)."""
    if name not in _FUNCS:
        arm = ld.zoo.get(name, parameters="symbolic")
        params = standard_parameters_of(arm)
        Yf = idf.regressor_function(arm, params, arm.defaults)
        pi = np.array([arm.defaults[p] for p in params])
        true = ld.zoo.get(name)  # numeric parameters
        rnea = true.lambdify(true.defaults, route="recursive")  # generated RNEA
        _FUNCS[name] = (arm, params, Yf, pi, rnea)
    return _FUNCS[name]


@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_recursive_regressor_times_parameters_is_rnea(name):
    arm, params, Yf, pi, rnea = _arm(name)
    assert Yf.model.key and "Y" in Yf.model.names  # generated code, not a closed form
    rng = np.random.default_rng(11)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, 25, arm.n))
    tau = Yf(q, qd, qdd) @ pi
    ref = rnea.inverse_dynamics(q, qd, qdd)
    scale = np.abs(ref).max(axis=-1, keepdims=True)
    np.testing.assert_array_less(np.abs(tau - ref) / scale, 1e-12)
    # one state takes the scalar path and agrees with the batch
    np.testing.assert_allclose(Yf(q[3], qd[3], qdd[3]) @ pi, tau[3], rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("name", ["planar_3r", "spatial_3r"])
def test_recursive_regressor_is_exactly_the_closed_form_regressor(name):
    arm = ld.zoo.get(name, parameters="symbolic")
    params = standard_parameters_of(arm)
    Yr = ld.regressor(arm, params)  # the default route for a chain: recursive
    Yc = ld.regressor(arm, params, route="closed")
    qs = arm.plain_symbols[0]
    assert Yr.shape == Yc.shape == (3, 30)
    assert all(is_zero(arm.plain(a - b), qs) for a, b in zip(Yr, Yc))
    # and it reproduces the equations of motion exactly
    res = Yr * sp.Matrix(params) - arm.equations([0, 0, 0])
    assert all(is_zero(arm.plain(e), qs) for e in res)


def test_ur5_regressor_is_smaller_than_sympybotics():
    arm = ld.zoo.get("ur5", parameters="symbolic")
    prog = regressor_program(arm)
    assert prog.shape == (6, 60)
    # SymPyBotics' UR5 regressor: 1,784 operations after CSE (issue 13)
    assert prog.count_ops() < 1784


def _friction_arm():
    """planar_3r with symbolic armature, viscous and Coulomb coefficients per joint."""
    base = ld.zoo.get("planar_3r", parameters="symbolic")
    links, defaults = [], dict(base.defaults)
    for i, link in enumerate(base.chain.links):
        ia, fv, fc = sp.symbols(f"Ia{i + 1} Fv{i + 1} Fc{i + 1}", positive=True)
        defaults.update({ia: 0.1 * (i + 1), fv: 0.3 + i, fc: 0.2})
        links.append(replace(link, armature=ia, viscous=fv, coulomb=fc))
    chain = replace(base.chain, links=tuple(links), defaults=defaults)
    return ld.robot.system.build(chain, friction=True)


def test_armature_and_friction_columns():
    arm = _friction_arm()
    params = standard_parameters_of(arm)
    assert len(params) == 39 and {"Ia2", "Fv2", "Fc2"} <= {p.name for p in params}
    Yf = idf.regressor_function(arm, params, arm.defaults)
    pi = np.array([arm.defaults[p] for p in params])
    num = arm.lambdify(arm.defaults, route="recursive")
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, 10, 3))
    np.testing.assert_allclose(
        Yf(q, qd, qdd) @ pi, num.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12
    )
    Y = ld.regressor(arm, params)
    k = params.index(sp.Symbol("Fc2", positive=True))
    assert Y[1, k] == sp.sign(arm.qd[1]) and Y[0, k] == 0


def test_a_symbol_in_several_entries_sums_their_columns():
    base = ld.zoo.get("spatial_3r", parameters="symbolic")
    links = list(base.chain.links)
    XX3, M2 = sp.Symbol("XX3", nonnegative=True), sp.Symbol("M2", nonnegative=True)
    I3 = links[2].inertia
    links[2] = replace(
        links[2], inertia=I3.subs(sp.Symbol("YY3", nonnegative=True), XX3)
    )  # XX = YY
    links[2] = replace(links[2], mass=M2)  # links 2 and 3 share their mass
    defaults = {k: v for k, v in base.defaults.items() if k.name not in ("YY3", "M3")}
    defaults[XX3] = defaults[M2] = 0.7
    arm = ld.robot.system.build(replace(base.chain, links=tuple(links), defaults=defaults))
    params = standard_parameters_of(arm)
    assert len(params) == 28
    Yf = idf.regressor_function(arm, params, defaults)
    pi = np.array([defaults[p] for p in params])
    num = arm.lambdify(defaults, route="recursive")
    q, qd, qdd = np.random.default_rng(4).normal(size=(3, 6, 3))
    np.testing.assert_allclose(
        Yf(q, qd, qdd) @ pi, num.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12
    )


def test_non_standard_parameters_refuse_the_recursive_route():
    arm = ld.zoo.get("planar_3r", parameters="symbolic")
    params = standard_parameters_of(arm)
    assert is_standard(arm, params)
    assert not is_standard(arm, params[:-1])  # M3 left out but nonzero
    with pytest.raises(ld.LagdynError, match="standard parameter set"):
        idf.regressor_function(arm, params[:-1], arm.defaults, route="recursive")
    with pytest.raises(ld.LagdynError, match="unknown route"):
        ld.regressor(arm, params, route="fast")
    with pytest.raises(ld.LagdynError, match='parameters="symbolic"'):
        standard_parameters_of(ld.zoo.get("planar_3r"))
    with pytest.raises(ld.UnboundParameterError):
        idf.regressor_function(arm, params, {})  # g unknown


# ---------------------------------------------------------------------------- base parameters
@pytest.mark.parametrize(("name", "rank"), [("planar_3r", 9), ("spatial_3r", 15)])
def test_numeric_rank_equals_exact_rank_on_3r_arms(name, rank):
    arm = ld.zoo.get(name, parameters="symbolic")
    params = standard_parameters_of(arm)
    bp = idf.base_parameters(arm, params)  # the inlined recursive regressor
    closed = idf.base_parameters(arm, params, route="closed")  # the closed form, independent
    nb = idf.numeric_base_parameters(arm, params, arm.defaults)
    assert bp.rank == closed.rank == nb.rank == rank
    assert bp.independent == closed.independent and bp.K == closed.K
    # Y_b of the exact reduction on the recursive numerics reproduces RNEA
    Yb = bp.function(arm.defaults)
    assert isinstance(Yb, idf.BaseColumns)
    pib = np.array([float(b.subs(arm.defaults)) for b in bp.base])
    q, qd, qdd = np.random.default_rng(2).normal(size=(3, 8, 3))
    true = ld.zoo.get(name)
    ref = true.lambdify(true.defaults, route="recursive").inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(Yb(q, qd, qdd) @ pib, ref, rtol=1e-12, atol=1e-12)


def test_ur5_has_36_base_parameters():
    arm, params, Yf, pi, rnea = _arm("ur5")
    ranks = {
        idf.numeric_base_parameters(arm, params, arm.defaults, function=Yf, seed=s).rank
        for s in (0, 1)
    }
    assert ranks == {36}


# ---------------------------------------------------------------------------- identification
@pytest.fixture(scope="module")
def ur5_experiment():
    arm, params, Yf, pi, rnea = _arm("ur5")
    nb = idf.numeric_base_parameters(arm, params, arm.defaults, function=Yf)
    truth = nb.base_values(arm.defaults)
    traj, cond = idf.excitation_trajectory(
        nb.function(),
        n_harmonics=3,
        period=10.0,
        n_samples=40,
        maxiter=100,
        seed=0,
        optimizer="random",
    )
    t = np.linspace(0, traj.period, 600, endpoint=False)
    q, qd, qdd = traj(t)
    tau = rnea.inverse_dynamics(q, qd, qdd)  # the true arm, not the regressor
    return arm, nb, truth, (q, qd, qdd, tau), rnea


def test_ur5_base_values_are_the_true_base_parameters(ur5_experiment):
    arm, nb, truth, (q, qd, qdd, tau), rnea = ur5_experiment
    np.testing.assert_allclose(
        nb.function()(q, qd, qdd) @ truth, tau, rtol=1e-11, atol=1e-11 * np.abs(tau).max()
    )


def test_ur5_identification_without_noise(ur5_experiment):
    arm, nb, truth, (q, qd, qdd, tau), rnea = ur5_experiment
    res = ld.identify(nb, q, qd, qdd, tau)
    big = np.abs(truth) > 1e-6 * np.abs(truth).max()
    rel = np.abs(res.estimates - truth)[big] / np.abs(truth)[big]
    assert rel.max() < 1e-8
    assert np.abs(res.estimates - truth).max() < 1e-8 * np.linalg.norm(truth)


def test_ur5_identification_with_one_percent_noise(ur5_experiment):
    arm, nb, truth, (q, qd, qdd, tau), rnea = ur5_experiment
    rng = np.random.default_rng(2026)
    sigma = 0.01 * tau.std(axis=0)  # 1 % noise, a known deviation per joint
    noisy = tau + sigma * rng.normal(size=tau.shape)
    res = ld.identify(nb, q, qd, qdd, noisy, weights="joint")
    err = res.estimates - truth
    # The covariance of the weighted estimate under the true noise, computed here and not by
    # identify: (Σ_k Y_kᵀ diag(σ)⁻² Y_k)⁻¹. No bound on ‖err‖/‖truth‖: it depends on which
    # column of a tied group the pivoted QR of numeric_base_parameters represents (M2, column
    # norm 0.27 and base value 18.5, or ZZ1 / MY2: ‖truth‖ 19.2 or about 5, an expected
    # relative error of 1.1 % or 0.3 %), a round-off tie; the checks below are invariant.
    Yw = nb.function()(q, qd, qdd) / sigma[:, None]
    cov = np.linalg.inv(np.einsum("kir,kis->rs", Yw, Yw))
    # the reported standard errors are the true ones: Gautier's weights recover each σ_j
    # (3 % sampling error; the global ordinary residual overstated a wrist σ up to 18-fold)
    np.testing.assert_allclose(res.std_errors, np.sqrt(np.diag(cov)), rtol=0.15)
    # the error is as small as the noise allows: errᵀ cov⁻¹ err ~ χ²(36), here bounded at
    # its upper 1e-6 quantile (scipy.stats.chi2.isf(1e-6, 36) = 91.50)
    assert nb.rank == 36
    assert err @ np.linalg.solve(cov, err) < 91.5
    # the estimate is as good as its statistics say: every error within 5 standard errors
    assert np.all(np.abs(err) <= 5 * res.std_errors)
    rng2 = np.random.default_rng(5)
    qh, qdh, qddh = rng2.uniform(-1.5, 1.5, (3, 200, 6))
    ref = rnea.inverse_dynamics(qh, qdh, qddh)
    perr = res.predict(qh, qdh, qddh) - ref
    assert np.sqrt(np.mean(perr**2)) < 0.01 * np.sqrt(np.mean(ref**2))


def test_numeric_base_values_need_every_standard_parameter():
    dp = ld.zoo.double_pendulum()
    nb = idf.numeric_base_parameters(dp, ["m1", "m2"], dp.defaults)
    with pytest.raises(ld.LagdynError, match="m2"):
        nb.base_values({"m1": 1.0})
    with pytest.raises(ld.ShapeError):
        nb.base_values([1.0])
    with pytest.raises(ld.LagdynError, match="params is given"):
        ld.identify(nb, *np.zeros((4, 5, 2)), params=["m1"])


@pytest.mark.slow
def test_ur5_exact_base_parameters_match_the_numeric_rank():
    # 10–40 s on the shared 2-core machine: the exact reduction of the inlined regressor
    arm, params, Yf, pi, rnea = _arm("ur5")
    bp = idf.base_parameters(arm, params)
    assert bp.rank == 36
    assert all(k.is_Rational for k in bp.K)  # numeric geometry: rational groupings
    # the exact combinations at the true values reproduce the torques through Y_b
    pib = np.array([float(b.subs(arm.defaults)) for b in bp.base])
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.uniform(-2, 2, (3, 10, 6))
    Yb = Yf(q, qd, qdd)[..., list(bp.independent)]
    ref = rnea.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(Yb @ pib, ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())


def test_symengine_split_equals_the_sympy_split(monkeypatch):
    import importlib

    import lagdyn.trig.convert as conv

    # the package re-exports the function ``regressor``: fetch the module itself
    reg = importlib.import_module("lagdyn.identification.regressor")

    arm = ld.zoo.planar_arm(3)
    syms = [s for s in arm.parameters if s.name != "g"]
    params = idf.linear_parameters(arm, syms)
    rows, _ = reg._lhs_plain(arm)
    ids = frozenset(syms)
    fast = reg._equation_tables(arm, rows, ids, params)
    monkeypatch.setattr(conv, "to_symengine", lambda e: None)  # forces the sympy fallback
    slow = reg._equation_tables(arm, rows, ids, params)
    assert [set(t) for t in fast] == [set(t) for t in slow]
    for a, b in zip(fast, slow):
        assert all(sp.expand(a[k] - b[k]) == 0 for k in a)

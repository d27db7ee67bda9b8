"""Tests of lagdyn.simulate: integrators, energy behaviour, batching, passivity, errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.simulation import SimulationResult, simulate


class Pendulum:
    """A hand-written simple pendulum (m = l = 1, g = 9.81): only n, forward_dynamics, energy."""

    n = 1

    def forward_dynamics(self, q, qd, tau=None):
        q = np.asarray(q, float)
        acc = -9.81 * np.sin(q)
        return acc if tau is None else acc + np.asarray(tau, float)

    def energy(self, q, qd):
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        return (0.5 * qd**2 - 9.81 * np.cos(q))[..., 0]


@pytest.fixture(scope="module")
def dp():
    system = ld.zoo.double_pendulum()
    return system.lambdify(system.defaults)


X0 = np.array([1.0, 1.5, 0.0, 0.0])


# ----------------------------------------------------------------------------- basics
def test_duck_typed_model_small_angle_period():
    t = np.linspace(0.0, 2 * np.pi / np.sqrt(9.81), 201)  # one small-angle period
    for method in ("rk4", "midpoint", "scipy-DOP853"):
        res = simulate(Pendulum(), [1e-3, 0.0], t, method=method)
        assert res.q.shape == (201, 1)
        assert res.q[-1, 0] == pytest.approx(1e-3, rel=1e-3), method
        assert res.names == ("q0",)


def test_system_is_lambdified_with_defaults_and_params():
    system = ld.zoo.double_pendulum()
    g = next(s for s in system.defaults if str(s) == "g")
    a = simulate(system, [0.1, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
    b = simulate(system, [0.1, 0.0, 0.0, 0.0], np.linspace(0, 1, 11), params={g: 20.0})
    assert a.energy[0] == pytest.approx(-30.0 * np.cos(0.1) * 1.0 - 0.0, rel=0.1)
    assert not np.allclose(a.q, b.q)


def test_scalar_final_time_grid(dp):
    res = simulate(dp, X0, 1.0, dt=0.1)
    assert res.t.shape == (11,)
    assert res.t[-1] == 1.0


def test_rk4_converges_at_fourth_order(dp):
    ref = simulate(dp, X0, np.linspace(0, 1, 11), method="scipy-DOP853", rtol=1e-12, atol=1e-12)
    errs = [
        np.abs(simulate(dp, X0, np.linspace(0, 1, 11), substeps=s).q[-1] - ref.q[-1]).max()
        for s in (10, 20)
    ]
    assert 12 < errs[0] / errs[1] < 20


def test_midpoint_converges_at_second_order(dp):
    ref = simulate(dp, X0, np.linspace(0, 1, 11), method="scipy-DOP853", rtol=1e-12, atol=1e-12)
    errs = [
        np.abs(
            simulate(dp, X0, np.linspace(0, 1, 11), method="midpoint", substeps=s).q[-1] - ref.q[-1]
        ).max()
        for s in (10, 20)
    ]
    assert 3.5 < errs[0] / errs[1] < 4.5


# ----------------------------------------------------------------------------- energy
def test_energy_drift_rk4_small_midpoint_bounded(dp):
    """Over 10 s: RK4 drifts slowly and steadily; implicit midpoint stays bounded."""
    t = np.linspace(0.0, 10.0, 1001)
    rk4 = np.abs(simulate(dp, X0, t, method="rk4").energy_drift)
    mid = np.abs(simulate(dp, X0, t, method="midpoint").energy_drift)
    e_scale = 30.0
    assert rk4.max() < 1e-5 * e_scale
    # RK4: secular growth (the second half drifts more than the first)
    assert rk4[501:].max() > 1.5 * rk4[:501].max()
    # midpoint: O(h²) fluctuation, no growth between the first and the second 5 s
    assert mid.max() < 1e-3 * e_scale
    assert mid[501:].max() < 2.0 * mid[:501].max()
    assert (
        np.abs(simulate(dp, X0, t, method="midpoint").energy_drift[-100:]).mean() < 5e-4 * e_scale
    )


def test_midpoint_energy_fluctuation_shrinks_as_h_squared(dp):
    t = np.linspace(0.0, 2.0, 101)
    d1 = np.abs(simulate(dp, X0, t, method="midpoint").energy_drift).max()
    d2 = np.abs(simulate(dp, X0, t, method="midpoint", substeps=2).energy_drift).max()
    assert 3.0 < d1 / d2 < 5.0


def test_midpoint_without_mass_matrix_falls_back_to_velocity_form():
    t = np.linspace(0.0, 20.0, 2001)
    res = simulate(Pendulum(), [2.0, 0.0], t, method="midpoint")
    drift = np.abs(res.energy_drift)
    assert drift.max() < 1e-2
    assert drift[1000:].max() < 1.5 * drift[:1001].max()


def test_midpoint_reports_non_convergence(dp):
    # the fixed-point iteration (a model without a system) cannot take a 2 s step
    with (
        pytest.raises(ld.LagdynError, match="fixed-point iteration did not converge"),
        pytest.warns(ld.LagdynWarning, match="the step 2 is 4.04 times the fastest time scale"),
    ):
        simulate(Pendulum(), [2.0, 10.0], [0.0, 2.0], method="midpoint")
    # Newton can (the implicit midpoint rule is A-stable), but not in one iteration
    with pytest.raises(ld.LagdynError, match="Newton iteration did not converge"):
        simulate(dp, [2.0, 2.0, 10.0, 10.0], [0.0, 2.0], method="midpoint", max_iter=1)


class _WithoutSystem:
    """A NumericModel seen through the DynamicsModel protocol plus M and C only: the
    midpoint method then solves the same canonical equations by fixed-point iteration."""

    def __init__(self, num):
        self.n, self.M, self.C = num.n, num.M, num.C
        self.forward_dynamics, self.energy = num.forward_dynamics, num.energy


class _Counting:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def _damped_driven():
    """A pendulum on a spring-loaded cart with viscous damping, a time-dependent force and a
    position-dependent mass matrix: Q depends on q̇ and t, M on q."""
    t = ld.t
    x, th = ld.coordinates("x theta")
    m, mc, l, k, c, g = 1.0, 2.0, 0.8, 3.0, 0.4, 9.81
    xd, thd = x.diff(t), th.diff(t)
    T = mc * xd**2 / 2 + m * ((xd + l * sp.cos(th) * thd) ** 2 + (l * sp.sin(th) * thd) ** 2) / 2
    U = k * x**2 / 2 - m * g * l * sp.cos(th)
    forces = [-c * xd + sp.sin(2 * t), -c * thd]
    return ld.LagrangianSystem(T - U, [x, th], forces=forces)


def test_midpoint_newton_solves_the_same_equations_as_the_fixed_point_form(dp):
    t = np.linspace(0.0, 1.0, 101)
    x0 = np.array([[1.0, 1.5, 0.0, 0.0], [0.3, -0.2, 1.0, 0.5]])
    fb = lambda t, q, qd: -0.5 * qd + 0.2 * np.sin(3 * t)  # noqa: E731  feedback enters R only
    for num, tau in ((dp, None), (dp, fb), (_damped_driven().lambdify(), fb)):
        newton = simulate(num, x0, t, method="midpoint", tau=tau)
        fixed = simulate(_WithoutSystem(num), x0, t, method="midpoint", tau=tau)
        np.testing.assert_allclose(newton.q, fixed.q, rtol=0, atol=1e-10)
        np.testing.assert_allclose(newton.qd, fixed.qd, rtol=0, atol=1e-9)


def test_midpoint_newton_takes_few_evaluations_per_step(dp):
    """Newton with the generated Jacobian converges in about two evaluations a step where
    the fixed-point iteration needed ten or more (and one forward-dynamics solve each)."""
    from lagdyn.simulation import integrators

    steps = 200
    t = np.linspace(0.0, 2.0, steps + 1)
    kernel = integrators.newton_kernel(dp)
    counting = _Counting(kernel)
    integrators._NEWTON[dp] = counting
    try:
        simulate(dp, X0, t, method="midpoint")
    finally:
        integrators._NEWTON[dp] = kernel
    assert counting.calls <= 2.5 * steps
    fd = _Counting(dp.forward_dynamics)
    fixed = _WithoutSystem(dp)
    fixed.forward_dynamics = fd
    simulate(fixed, X0, t, method="midpoint")
    assert fd.calls >= 5 * steps  # the old path, for scale: the test measures a real change


def test_midpoint_newton_is_stable_where_fixed_point_iteration_diverges():
    """A stiff spring (ω h = 5): the fixed-point iteration diverges; Newton solves the step
    and the midpoint rule conserves the quadratic energy of a linear system exactly."""
    x = ld.coordinates("x")[0]
    system = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - 10000 * x**2 / 2, [x])
    num = system.lambdify()
    t = np.linspace(0.0, 5.0, 101)  # h = 0.05, ω = 100
    # stable, energy exact, but the phase is wrong (2 atan(2.5) a step instead of 5): said
    with pytest.warns(ld.LagdynWarning, match="the step 0.05 is 5 times the fastest time"):
        res = simulate(num, [0.01, 0.0], t, method="midpoint")
    assert np.abs(res.energy_drift).max() < 1e-12 * res.energy[0] + 1e-15
    assert np.all(np.abs(res.q) <= 0.01 + 1e-12)
    with pytest.raises(ld.LagdynError, match="did not converge"), pytest.warns(ld.LagdynWarning):
        simulate(_WithoutSystem(num), [0.01, 0.0], t, method="midpoint")


# ----------------------------------------------------------------------------- batches
@pytest.mark.parametrize("method", ["rk4", "midpoint", "scipy-RK45"])
def test_batch_equals_one_by_one(dp, method):
    rng = np.random.default_rng(1)
    x0 = rng.uniform(-1, 1, size=(2, 3, 4))
    t = np.linspace(0.0, 1.0, 21)
    batch = simulate(dp, x0, t, method=method)
    assert batch.q.shape == (2, 3, 21, 2)
    assert batch.energy.shape == (2, 3, 21)
    for idx in np.ndindex(2, 3):
        one = simulate(dp, x0[idx], t, method=method)
        # the scipy step control sees the whole batch, so it agrees only to tolerance
        tol = 1e-6 if method.startswith("scipy") else 1e-12
        np.testing.assert_allclose(batch.q[idx], one.q, atol=tol)
        np.testing.assert_allclose(batch.qd[idx], one.qd, atol=tol * 10)
        np.testing.assert_allclose(batch[idx].energy, one.energy, atol=tol * 100)


# ----------------------------------------------------------------------------- actuation
def test_passivity_balance_under_random_torque(dp):
    rng = np.random.default_rng(7)
    t = np.linspace(0.0, 3.0, 301)
    tau = rng.normal(scale=2.0, size=(301, 2))
    res = simulate(dp, X0, t, tau=tau, substeps=4)
    work = np.abs(res.work).max()
    assert work > 1.0  # the torque really does work
    r1 = np.abs(res.passivity_residual).max()
    assert r1 < 5e-3 * work
    # the residual is integration + quadrature error: finer grids shrink it
    t2 = np.linspace(0.0, 3.0, 601)
    tau2 = np.stack([np.interp(t2, t, tau[:, i]) for i in range(2)], axis=-1)
    res2 = simulate(dp, X0, t2, tau=tau2, substeps=2)
    assert np.abs(res2.passivity_residual).max() < 0.35 * r1  # O(h²)


def test_tau_forms_agree(dp):
    t = np.linspace(0.0, 1.0, 51)
    const = simulate(dp, X0, t, tau=[0.5, -0.2])
    series = simulate(dp, X0, t, tau=np.tile([0.5, -0.2], (51, 1)))
    feedback = simulate(dp, X0, t, tau=lambda t, q, qd: np.array([0.5, -0.2]))
    np.testing.assert_allclose(const.q, series.q, atol=1e-13)
    np.testing.assert_allclose(const.q, feedback.q, atol=1e-13)
    np.testing.assert_allclose(const.tau[-1], [0.5, -0.2])


def test_feedback_damping_dissipates_energy(dp):
    res = simulate(
        dp, X0, np.linspace(0, 5, 501), tau=lambda t, q, qd: -2.0 * qd, method="midpoint"
    )
    assert np.all(np.diff(res.energy) < 1e-9)
    assert np.abs(res.passivity_residual).max() < 1e-2 * np.abs(res.work).max()


def test_batched_feedback(dp):
    x0 = np.stack([X0, 0.5 * X0])
    res = simulate(dp, x0, np.linspace(0, 1, 11), tau=lambda t, q, qd: -q)
    assert res.tau.shape == (2, 11, 2)
    np.testing.assert_allclose(res.tau, -res.q)


# ----------------------------------------------------------------------------- reports
def test_report_and_phi(dp):
    res = simulate(dp, X0, np.linspace(0, 1, 11), phi=lambda q: q[..., 0] - q[..., 1])
    assert res.phi.shape == (11, 1)
    rep = res.report()
    assert rep.phi == pytest.approx(np.abs(res.q[:, 0] - res.q[:, 1]).max())
    assert "constraint error" in rep.lines()
    assert rep.steps == 10


def test_model_phi_attribute_is_recorded():
    class WithPhi(Pendulum):
        def phi(self, q):
            return np.sin(q)

    res = simulate(WithPhi(), [0.3, 0.0], np.linspace(0, 1, 11))
    assert res.phi is not None and res.report().phi > 0


def test_to_dataframe(dp):
    pd = pytest.importorskip("pandas")
    res = simulate(
        dp,
        np.stack([X0, X0]),
        np.linspace(0, 1, 11),
        phi=lambda q: np.stack([q[..., 0], q[..., 1]], -1),
    )
    df = res.to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 22
    assert {"member", "t", "a", "b", "a_d", "tau_a", "energy", "phi0", "phi1"} <= set(df.columns)


def test_to_dataframe_without_pandas(dp, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    res = simulate(dp, X0, [0.0, 0.1])
    with pytest.raises(ld.BackendUnavailableError, match="pandas"):
        res.to_dataframe()


def test_result_indexing_errors(dp):
    res = simulate(dp, X0, [0.0, 0.1])
    assert isinstance(res, SimulationResult)
    with pytest.raises(ld.ShapeError):
        res[0]


# ----------------------------------------------------------------------------- errors
def test_invalid_inputs(dp):
    t = np.linspace(0, 1, 11)
    with pytest.raises(ld.ShapeError, match=r"\(\.\.\., 4\)"):
        simulate(dp, [0.0, 0.0, 0.0], t)
    with pytest.raises(ld.LagdynError, match="strictly increasing"):
        simulate(dp, X0, [0.0, 0.2, 0.1])
    with pytest.raises(ld.LagdynError, match="strictly increasing"):
        simulate(dp, X0, [0.0, 0.0])
    with pytest.raises(ld.ShapeError):
        simulate(dp, X0, [0.0])
    with pytest.raises(ld.LagdynError, match="NaN"):
        simulate(dp, [np.nan, 0, 0, 0], t)
    with pytest.raises(ld.LagdynError, match="unknown method"):
        simulate(dp, X0, t, method="euler")
    with pytest.raises(ld.LagdynError, match="positive"):
        simulate(dp, X0, -1.0)
    with pytest.raises(ld.LagdynError, match="substeps"):
        simulate(dp, X0, t, substeps=0)
    with pytest.raises(ld.ShapeError, match="tau has shape"):
        simulate(dp, X0, t, tau=[1.0, 2.0, 3.0])
    with pytest.raises(ld.ShapeError, match=r"tau\(t, q, qd\) returned shape \(3,\)"):
        simulate(dp, X0, t, tau=lambda t, q, qd: np.zeros(3))
    with pytest.raises(ld.LagdynError, match="LagrangianSystem or a numeric model"):
        simulate(object(), X0, t)
    with pytest.raises(ld.LagdynError, match="params"):
        simulate(dp, X0, t, params={"g": 1.0})


def test_scipy_missing_raises_backend_unavailable(dp, monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.integrate", None)
    with pytest.raises(ld.BackendUnavailableError, match=r"lagdyn\[sim\]"):
        simulate(dp, X0, [0.0, 0.1], method="scipy-RK45")


def test_scipy_bad_method_name(dp):
    with pytest.raises(ld.LagdynError, match="nonsense"):
        simulate(dp, X0, [0.0, 0.1], method="scipy-nonsense")


# ----------------------------------------------------------------------------- progress
def test_progress_bar_on_stderr(dp, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain stderr fallback
    simulate(dp, X0, np.linspace(0, 1, 101), progress=True)
    err = capsys.readouterr().err
    assert "100%" in err


def test_progress_off_by_default_when_not_interactive(dp, capsys):
    simulate(dp, X0, np.linspace(0, 1, 101))
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- CLI
def test_simulate_cli_writes_files(tmp_path):
    import argparse
    import io

    pytest.importorskip("matplotlib")
    from lagdyn.cli.simulate import add_cli_arguments, simulate_cli

    parser = argparse.ArgumentParser()
    add_cli_arguments(parser)
    gif, png = tmp_path / "out.gif", tmp_path / "ts.png"
    args = parser.parse_args(
        ["double_pendulum", "--t", "0.5", "--gif", str(gif), "--png", str(png), "--fps", "10"]
    )
    buf = io.StringIO()
    assert simulate_cli(args, buf) == 0
    assert gif.exists() and png.exists()
    assert "energy drift" in buf.getvalue()


def test_simulate_cli_params_and_errors(tmp_path):
    import argparse
    import io

    from lagdyn.cli.simulate import add_cli_arguments, simulate_cli

    parser = argparse.ArgumentParser()
    add_cli_arguments(parser)
    buf = io.StringIO()
    args = parser.parse_args(
        ["n_link_pendulum", "-o", "n=2", "--t", "0.2", "--set", "g=1.0", "--x0", "0.1,0,0,0"]
    )
    assert simulate_cli(args, buf) == 0
    assert "n_link_pendulum: n = 2" in buf.getvalue()
    with pytest.raises(ld.LagdynError, match="--set"):
        simulate_cli(parser.parse_args(["double_pendulum", "--set", "zz=1"]), buf)
    with pytest.raises(ld.LagdynError, match="--x0"):
        simulate_cli(parser.parse_args(["double_pendulum", "--x0", "a,b"]), buf)
    with pytest.raises(ld.ShapeError):
        simulate_cli(parser.parse_args(["double_pendulum", "--x0", "1,2", "--t", "0.1"]), buf)


def test_simulate_cli_with_caller_built_system():
    import argparse
    import io

    from lagdyn.cli.simulate import add_cli_arguments, simulate_cli

    parser = argparse.ArgumentParser()
    add_cli_arguments(parser, model_arguments=False)
    args = parser.parse_args(["--t", "0.1", "--x0", "0.3,0"])
    x = ld.coordinates("x")[0]
    (k,) = ld.parameters("k")
    osc = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - k * x**2 / 2, [x])
    buf = io.StringIO()
    with pytest.raises(ld.UnboundParameterError):
        simulate_cli(args, buf, system=osc, label="oscillator")
    args = parser.parse_args(["--t", "0.1", "--x0", "0.3,0", "--set", "k=4"])
    assert simulate_cli(args, buf, system=osc, label="oscillator") == 0
    assert "oscillator: n = 1" in buf.getvalue()

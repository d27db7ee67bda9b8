"""Issue 22 item 9, simulation: inputs named, output bounded before it is allocated, no
silent result from a blown-up step or a start off the constraints."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import ConstraintError, LagdynError, ShapeError


@pytest.fixture(scope="module")
def dp_num():
    dp = ld.zoo.double_pendulum()
    return dp.lambdify(dp.defaults, cache=False)


@pytest.fixture(scope="module")
def pendulum():
    x, y = ld.coordinates("x y")
    m, l, g = ld.parameters("m l g")
    free = ld.LagrangianSystem.from_energies(
        m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2, m * g * y, [x, y]
    )
    return ld.ConstrainedSystem(free, [x**2 + y**2 - l**2]).lambdify({m: 1.0, l: 1.0, g: 9.81})


def _lagdyn_warnings(run):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run()
    return out, [str(w.message) for w in caught if issubclass(w.category, ld.LagdynWarning)]


# ------------------------------------------------------------------ inputs
def test_complex_and_ragged_initial_states_are_named(dp_num, pendulum) -> None:
    # complex x0 was "TypeError: float() argument must be ... not 'complex'"
    for sim in (lambda x0: ld.simulate(dp_num, x0, 0.1), lambda x0: pendulum.simulate(x0, 0.1)):
        with pytest.raises(ShapeError, match="x0 holds complex values; states"):
            sim([1j, 0.0, 0.0, 0.0])
        with pytest.raises(ShapeError, match="x0 is ragged"):
            sim([[0.0, 0.0, 0.0, 0.0], [1.0]])
        with pytest.raises(LagdynError, match="x0 holds an integer of 401 digits"):
            sim([10**400, 0, 0, 0])
    with pytest.raises(ShapeError, match="tau is ragged"):
        ld.simulate(dp_num, [0.1, 0, 0, 0], 0.1, tau=[[1.0], [1.0, 2.0]])
    with pytest.raises(LagdynError, match="dt must be a positive number, got 1j"):
        ld.simulate(dp_num, [0.1, 0, 0, 0], 1.0, dt=1j)
    with pytest.raises(ShapeError, match=r"phi\(q\) returned a non-real value of dtype <U1"):
        ld.simulate(dp_num, [0.1, 0, 0, 0], 0.1, phi=lambda q: "x")  # was a raw ValueError


def test_the_output_is_bounded_before_it_is_allocated(dp_num, pendulum) -> None:
    # t=1e12 at dt=0.01 asked numpy for 728 TiB (MemoryError) just for the grid
    start = time.perf_counter()
    with pytest.raises(
        LagdynError,
        match=r"t = 1e\+12 with dt = 0\.01 gives 100000000000001 output times × 4 state "
        r"values: about 2\.84 PiB for the states alone, above the limit of 1 GiB",
    ):
        ld.simulate(dp_num, [0.1, 0.0, 0.0, 0.0], 1e12)
    with pytest.raises(LagdynError, match="about 2.98 GiB for the states alone"):
        ld.simulate(dp_num, np.zeros((1000, 4)), 100.0, dt=1e-3)  # batch × grid
    with pytest.raises(LagdynError, match="MAX_OUTPUT_BYTES"):
        pendulum.simulate(np.zeros((10_000, 4)), np.linspace(0.0, 1.0, 10_000))
    assert time.perf_counter() - start < 2.0
    assert ld.simulation.MAX_OUTPUT_BYTES == 2**30


@pytest.mark.parametrize(
    "options, message",
    [
        ({"method": "midpoint", "tol": -1}, "tol must be a positive number, got -1"),
        ({"method": "midpoint", "tol": 0.0}, "tol must be a positive number"),
        ({"method": "midpoint", "max_iter": 0}, "max_iter must be a positive integer"),
        ({"method": "scipy-RK45", "rtol": -1e-9}, "rtol must be a positive number"),
        ({"method": "scipy-RK45", "atol": -1.0}, "atol must be a non-negative number"),
    ],
)
def test_tolerances_that_cannot_be_met_are_refused(dp_num, options, message: str) -> None:
    # tol=-1 was "the Newton iteration did not converge ... (change 1.5e-17 > tol -1)"
    with pytest.raises(LagdynError, match=message):
        ld.simulate(dp_num, [0.1, 0.0, 0.0, 0.0], [0.0, 0.5, 1.0], **options)


# ------------------------------------------------------------------ silent results
def test_a_blown_up_fixed_step_warns_with_the_drift(dp_num) -> None:
    # one RK4 step of 1e6 s: energy from -29.9 to 1.4e169, returned without a word
    res, caught = _lagdyn_warnings(lambda: ld.simulate(dp_num, [0.1, 0, 0, 0], [0.0, 1e6]))
    assert res.energy[-1] > 1e100
    drift = [c for c in caught if "the energy is off by" in c]
    assert len(drift) == 1 and "the energy is off by 1.43e+169" in drift[0], caught
    assert "the step (1e+06) is too large" in drift[0]
    # a resolved run, forced or not, says nothing
    for kw in ({}, {"tau": lambda t, q, qd: -5.0 * q - qd}, {"method": "midpoint"}):
        _, quiet = _lagdyn_warnings(
            lambda kw=kw: ld.simulate(dp_num, [1.0, 0, 0, 0], np.linspace(0, 2, 201), **kw)
        )
        assert quiet == [], (kw, quiet)


def test_a_state_that_leaves_the_doubles_stops_the_run(dp_num) -> None:
    # the old run returned NaN trajectories with a log line only
    with (
        pytest.raises(
            LagdynError,
            match=r"state became NaN or infinite between t = 1\.42857e\+06 and "
            r"t = 2\.85714e\+06 for batch member \(1,\) \(1 of 2\)",
        ),
        pytest.warns(ld.LagdynWarning, match="8.35e\\+06 times the fastest time scale"),
    ):
        ld.simulate(dp_num, [[0.0, 0, 0, 0], [3.0, 0, 0, 0]], np.linspace(0, 1e7, 8))


def test_the_constrained_solver_blow_up_is_named_not_an_svd_failure(pendulum) -> None:
    # the constraint solve raised LinAlgError("SVD did not converge") on the NaN state
    with (
        pytest.raises(LagdynError, match="state became NaN or infinite between t = 600000"),
        pytest.warns(ld.LagdynWarning, match="times the fastest time scale"),
    ):
        pendulum.simulate([1.0, 0.0, 0.0, 0.0], np.linspace(0, 1e6, 6))


def test_a_constrained_blow_up_warns(pendulum) -> None:
    res, caught = _lagdyn_warnings(
        lambda: pendulum.simulate([1.0, 0.0, 0.0, 0.0], np.linspace(0, 1e6, 3))
    )
    assert np.abs(res.q).max() > 1e50
    assert any("the energy is off by" in c for c in caught), caught
    assert any("times the fastest time scale of the motion" in c for c in caught), caught


# ------------------------------------------------------------------ constrained start
def test_a_start_off_the_constraints_is_refused_with_the_residual(pendulum) -> None:
    # x0 = (0, -2) on x² + y² = 1: the run went on with |Φ| = 3 and said nothing
    t = np.linspace(0, 0.1, 11)
    with pytest.raises(
        ConstraintError,
        match=r"x0 is off the constraints: max \|Φ\(q0\)\| = 3 \(tolerance 9\.0e-08\) and "
        r"max \|J_c q̇0\| = 0 .*row 0 \(-l\*\*2 \+ x\(t\)\*\*2 \+ y\(t\)\*\*2\)",
    ):
        pendulum.simulate([0.0, -2.0, 0.0, 0.0], t)
    with pytest.raises(ConstraintError, match=r"max \|J_c q̇0\| = 2 .*of batch member 1"):
        pendulum.simulate([[0.0, -1.0, 1.0, 0.0], [0.0, -1.0, 0.0, 1.0]], t)  # radial rate
    projected = pendulum.simulate([0.0, -2.0, 0.0, 0.0], t, start="project")
    assert np.abs(projected.phi).max() < 1e-12 and projected.q[0, 1] == pytest.approx(-1.0)
    again = pendulum.simulate([0.0, -2.0, 0.0, 0.0], t, project=True)
    assert np.abs(again.phi).max() < 1e-12
    # Baumgarte pulls it back, doing work: no energy warning for a start given off
    given, caught = _lagdyn_warnings(
        lambda: pendulum.simulate(
            [0.0, -2.0, 0.0, 0.0], np.linspace(0, 1, 11), start="as_given", baumgarte=(5, 5)
        )
    )
    assert given.phi[0, 0] == pytest.approx(3.0) and caught == []
    with pytest.raises(LagdynError, match="start must be 'check', 'project' or 'as_given'"):
        pendulum.simulate([0.0, -1.0, 0.0, 0.0], t, start="fix")


def test_a_step_longer_than_the_motion_warns_even_when_energy_is_kept() -> None:
    # midpoint conserves the energy of a linear oscillator exactly, so the drift check is
    # blind; with ω h = 20 the phase was off by 3.55 and nothing was said
    x = ld.coordinates("x")[0]
    osc = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - 4 * x**2 / 2, [x]).lambdify(cache=False)
    t = np.linspace(0.0, 100.0, 11)  # h = 10, ω = 2
    res, caught = _lagdyn_warnings(lambda: ld.simulate(osc, [1.0, 0.0], t, method="midpoint"))
    assert np.abs(res.energy_drift).max() < 1e-9  # the energy is fine ...
    assert np.abs(res.q[:, 0] - np.cos(2 * t)).max() > 1.0  # ... the motion is not
    assert caught == [
        "simulate: the step 10 is 20 times the fastest time scale of the motion at the start "
        "(1/ρ = 0.5, ρ the largest |eigenvalue| of the linearized dynamics): midpoint "
        "resolves it poorly (accurate for h·ρ well below 1); use a smaller dt or "
        "substeps=... (LagdynWarning; lagdyn.simulation.STEP_SCALE_WARNING)"
    ]
    _, quiet = _lagdyn_warnings(
        lambda: ld.simulate(osc, [1.0, 0.0], np.linspace(0, 1, 101), method="midpoint")
    )
    assert quiet == []


def test_an_absurd_step_count_is_refused_before_it_runs(dp_num) -> None:
    start = time.perf_counter()
    with pytest.raises(
        LagdynError,
        match=r"2 grid intervals × 1000000000000 substeps are 2000000000000 steps, above "
        r"the limit of 100000000",
    ):
        ld.simulate(dp_num, [0.1, 0.0, 0.0, 0.0], [0.0, 0.5, 1.0], substeps=10**12)
    assert time.perf_counter() - start < 1.0 and ld.simulation.MAX_STEPS == 10**8

"""The whole vector step in one generated C call (lagdyn.gym._vstep): the same transitions as
the numpy path, Gymnasium's autoreset rules with the counter-based reset draws, actions
checked, blow-ups named, returned arrays never overwritten while held."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import sympy as sp

gym = pytest.importorskip("gymnasium")
pytest.importorskip("cffi")

import lagdyn as ld  # noqa: E402
from lagdyn.errors import BackendUnavailableError, LagdynError, ShapeError  # noqa: E402
from lagdyn.gym._core import UNIFORM  # noqa: E402

#: (task, gymnasium_compat, options): the acrobot's episodes cut at 3 steps to see restarts
TASKS = [
    ("cart_pole", True, {}),
    ("acrobot", True, {"max_episode_steps": 3}),
    ("pendulum", False, {}),
]


def _pair(task, num_envs, **options):
    """The task's vector env on C (the whole step) and on numpy (the Python path)."""
    try:
        fast = ld.gym.make_vec(task, num_envs, backend="c", **options)
    except BackendUnavailableError as exc:  # pragma: no cover - no compiler
        pytest.skip(str(exc))
    slow = ld.gym.make_vec(task, num_envs, backend="numpy", **options)
    assert fast.whole_step and not slow.whole_step
    return fast, slow


def _task(name, compat):
    return ld.gym.tasks.get(name, **({"gymnasium_compat": True} if compat else {}))


@pytest.mark.parametrize(("name", "compat", "options"), TASKS)
def test_steps_equal_the_numpy_path(name, compat, options):
    """The whole step is the Python path's transition: states to 1e-12, float32
    observations to 1e-6, the same terminations and truncations, rewards to 1e-12. A copy
    that ended restarts in the next step (NextStep: reward 0, not terminated, t = 0) from a
    draw inside the task's reset box; the numpy env, which drew other states, is then given
    the same ones."""
    task = _task(name, compat)
    low, high, _, shift = getattr(task.options["reset"], UNIFORM)
    fast, slow = _pair(task, 64, **options)
    o1, _ = fast.reset(seed=5)
    o2, _ = slow.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    rng = np.random.default_rng(0)
    ended = np.zeros(64, dtype=bool)
    terminations = restarts = 0
    for _ in range(40):
        if name == "pendulum":
            a = rng.uniform(-3, 3, size=(64, 1)).astype(np.float32)  # some clipped at ±2
        else:
            a = rng.integers(0, fast.single_action_space.n, size=64)
        r1, r2 = fast.step(a), slow.step(a)
        assert r1[0].dtype == np.float32 and r1[1].dtype == np.float64
        assert r1[2].dtype == r1[3].dtype == np.bool_
        keep = ~ended
        np.testing.assert_allclose(r1[0][keep], r2[0][keep], rtol=0, atol=1e-6)
        np.testing.assert_allclose(r1[1][keep], r2[1][keep], rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(r1[2][keep], r2[2][keep])
        np.testing.assert_array_equal(r1[3][keep], r2[3][keep])
        np.testing.assert_allclose(fast.state[keep], slow.state[keep], rtol=1e-12, atol=1e-12)
        terminations += int(r1[2].sum())
        if ended.any():
            restarts += int(ended.sum())
            assert (r1[1][ended] == 0.0).all() and not (r1[2] | r1[3])[ended].any()
            assert (fast.t[ended] == 0.0).all()
            fresh = fast.state[ended]
            assert ((low - shift <= fresh) & (fresh <= high - shift)).all()
            slow.reset(options={"reset_mask": ended, "state": fresh})
        ended = r1[2] | r1[3]
    if name == "cart_pole":
        assert terminations > 0 and restarts > 0
    if name == "acrobot":
        assert restarts >= 64 * 9


def test_autoreset_draws_are_reproducible_and_follow_the_seed():
    task = _task("acrobot", True)
    runs = []
    for seed in (3, 3, 4):
        envs = ld.gym.make_vec(task, 64, backend="c", **TASKS[1][2])
        assert envs.whole_step
        envs.reset(seed=seed)
        actions = np.random.default_rng(0).integers(0, 3, size=(8, 64))
        runs.append(np.array([envs.step(a)[0] for a in actions]))
        state = envs.state
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0][3], runs[2][3])
    # steps 4 and 8 restart every copy: draws of Acrobot-v1's reset, in float32, θ1 → q1
    fresh = runs[0][3]
    assert (np.abs(fresh[:, 4:]) <= np.float32(0.1)).all()
    assert len({tuple(row) for row in fresh}) == 64
    # the state after the 8th step is a reset: each draw a float32 number, q1 = θ1 − π/2
    theta1 = state[:, 0] + np.pi / 2
    np.testing.assert_allclose(theta1, theta1.astype(np.float32), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(state[:, 1:], state[:, 1:].astype(np.float32))
    assert np.abs(theta1).max() <= 0.1 and np.abs(state[:, 1:]).max() <= 0.1


def test_same_step_autoreset_gives_the_final_observations():
    task = _task("cart_pole", True)
    fast, slow = _pair(task, 64, autoreset_mode="SameStep")
    fast.reset(seed=2)
    slow.reset(seed=2)
    seen = 0
    for _ in range(40):
        a = np.zeros(64, dtype=np.int64)  # push left: the poles fall within a few dozen steps
        obs, r, term, trunc, info = fast.step(a)
        o2, r2, term2, trunc2, info2 = slow.step(a)
        np.testing.assert_array_equal(term, term2)
        np.testing.assert_array_equal(r, r2)
        ended = term | trunc
        if ended.any():
            seen += int(ended.sum())
            assert info["_final_obs"].tolist() == ended.tolist()
            for i in np.flatnonzero(ended):
                np.testing.assert_allclose(info["final_obs"][i], info2["final_obs"][i], atol=1e-6)
            assert (np.abs(obs[ended]) <= np.float32(0.05)).all()
            assert (fast.t[ended] == 0.0).all()
            slow.reset(options={"reset_mask": ended, "state": fast.state[ended]})
        else:
            assert info == {}
    assert seen >= 64


def test_invalid_actions_are_errors_and_leave_the_state():
    envs = ld.gym.make_vec(_task("cart_pole", True), 8, backend="c")
    assert envs.whole_step
    envs.reset(seed=0)
    before, t = envs.state, envs.t
    for bad, shown in ((2, "2"), (-1, "-1"), (2**63 - 1, str(2**63 - 1))):
        a = np.ones(8, dtype=np.int64)
        a[5] = bad
        with pytest.raises(
            LagdynError, match=rf"actions must be in 0\.\.1 \(Discrete\(2\)\); got {shown}"
        ):
            envs.step(a)
    with pytest.raises(LagdynError, match="got 7"):
        envs.step(np.full(8, 7, dtype=np.uint8))
    with pytest.raises(ShapeError, match=r"actions must be integers of shape \(8,\)"):
        envs.step(np.ones(8))
    with pytest.raises(ShapeError, match=r"shape \(8,\)"):
        envs.step(np.ones(7, dtype=np.int64))
    np.testing.assert_array_equal(envs.state, before)
    np.testing.assert_array_equal(envs.t, t)
    # a list, other integer dtypes and strided views take the converting path: same steps
    twin = ld.gym.make_vec(_task("cart_pole", True), 8, backend="c")
    twin.reset(seed=0)
    pattern = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    for a in ([1, 0, 1, 0, 1, 0, 1, 0], pattern.astype(np.int32), np.repeat(pattern, 2)[::2]):
        obs, *_ = envs.step(a)
        np.testing.assert_array_equal(obs, twin.step(pattern)[0])
    pend = ld.gym.make_vec("pendulum", 4, backend="c")
    assert pend.whole_step
    pend.reset(seed=0)
    a = np.zeros((4, 1))
    a[2, 0] = np.nan
    with pytest.raises(LagdynError, match="the action of environment 2 is not finite"):
        pend.step(a)
    a[2, 0] = np.inf  # clipped to the bound 2, as numpy's clip does
    pend.step(a)


def test_returned_arrays_are_not_overwritten_while_held():
    envs = ld.gym.make_vec(_task("cart_pole", True), 16, backend="c")
    envs.reset(seed=0)
    kept = envs.step(np.ones(16, dtype=np.int64))
    copies = [np.array(a) for a in kept[:4]]
    row = envs.step(np.zeros(16, dtype=np.int64))[0][3]  # a view holds its array too
    row_copy = row.copy()
    for _ in range(6):
        out = envs.step(np.zeros(16, dtype=np.int64))
    del out
    for a, c in zip(kept[:4], copies):
        np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(row, row_copy)
    del kept, row
    gc.collect()
    ids = {id(envs.step(np.ones(16, dtype=np.int64))[0]) for _ in range(6)}
    assert len(ids) <= 2  # nobody holds them: the two output sets are reused


def test_user_callables_keep_the_python_path():
    task = _task("cart_pole", True)
    envs = ld.gym.make_vec(task, 4, backend="c", termination=lambda x: np.abs(x[:, 1]) > 0.5)
    assert envs.fused and not envs.whole_step
    envs.reset(seed=0)
    obs, *_ = envs.step(np.ones(4, dtype=np.int64))
    assert obs.shape == (4, 4)


@pytest.fixture(scope="module")
def forced():
    """A unit mass pushed by cos 3t: q̈ = cos 3t + τ."""
    (x,) = ld.coordinates("x")
    return ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x], forces=[sp.cos(3 * ld.t)])


def test_time_dependent_forces_and_substeps_in_the_whole_step(forced):
    """The time of each copy (steps since its reset × dt, + the substep) reaches the forces."""
    fast, slow = _pair(forced, 3, autoreset_mode="Disabled", dt=0.1, substeps=3)
    a = np.random.default_rng(2).uniform(-1, 1, size=(6, 3, 1)).astype(np.float32)
    mask = np.array([True, False, True])
    for env in (fast, slow):
        env.reset(options={"state": [0.0, 0.0]})
        for k, ak in enumerate(a):
            if k == 2:
                env.reset(options={"reset_mask": mask, "state": [0.5, -0.5]})
            env.step(ak)
    np.testing.assert_allclose(fast.t, [0.4, 0.6, 0.4])
    np.testing.assert_allclose(fast.state, slow.state, rtol=1e-13, atol=1e-13)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_a_blow_up_is_named(forced):
    envs = ld.gym.make_vec(forced, 3, autoreset_mode="Disabled", dt=0.1, substeps=3, backend="c")
    assert envs.whole_step
    envs.reset(options={"state": [[0.0, 0.0], [0.0, 1.79e308], [0.0, 0.0]]})
    before = envs.state
    with pytest.raises(LagdynError, match="environment 1: the state became NaN or infinite"):
        envs.step(np.array([[0.0], [1.79e308], [0.0]]))
    np.testing.assert_array_equal(envs.state, before)  # the step was not taken

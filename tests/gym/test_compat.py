"""The Gymnasium-compatible tasks reproduce CartPole-v1 and Acrobot-v1 step by step.

Same seeds, same actions: the observations, rewards, terminations and truncations of
``ld.gym.tasks.cart_pole(gymnasium_compat=True)`` and ``acrobot(gymnasium_compat=True)`` match
``gymnasium.make("CartPole-v1")`` / ``"Acrobot-v1"``. The dynamics are lagdyn's (derived from
the zoo models, generated code), Gymnasium's are hand-written formulas: they agree to
rounding, which the float32 observations hide (the runs below agree bit for bit).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import lagdyn as ld  # noqa: E402


@pytest.fixture(scope="module")
def cart_poles():
    return (
        ld.gym.make(ld.gym.tasks.cart_pole(gymnasium_compat=True), backend="numpy"),
        gym.make("CartPole-v1"),
    )


@pytest.fixture(scope="module")
def acrobots():
    return (
        ld.gym.make(ld.gym.tasks.acrobot(gymnasium_compat=True), backend="numpy"),
        gym.make("Acrobot-v1"),
    )


def _episode(ours, theirs, seed, policy):
    """Both environments through one episode under ``policy(obs)``; the steps taken."""
    o1, _ = ours.reset(seed=seed)
    o2, _ = theirs.reset(seed=seed)
    assert o1.dtype == o2.dtype == np.float32
    np.testing.assert_array_equal(o1, o2)
    for k in range(1, 501):
        a = policy(o2)
        o1, r1, te1, tr1, _ = ours.step(a)
        o2, r2, te2, tr2, _ = theirs.step(a)
        np.testing.assert_allclose(o1, o2, rtol=0, atol=1e-6, err_msg=f"seed {seed} step {k}")
        assert (r1, te1, tr1) == (r2, te2, tr2), f"seed {seed} step {k}"
        if te2 or tr2:
            return k
    raise AssertionError("Gymnasium's episode did not end in 500 steps")


@pytest.mark.parametrize("seed", range(6))
def test_cart_pole_reproduces_gymnasium(cart_poles, seed):
    ours, theirs = cart_poles
    rng = np.random.default_rng(seed)
    steps = _episode(ours, theirs, seed, lambda obs: int(rng.integers(2)))
    assert steps < 100  # random pushes drop the pole: the termination was compared


def test_cart_pole_one_step_map_matches_along_a_balanced_run(cart_poles):
    """From every state of a 500-step balanced Gymnasium run, one lagdyn step lands on
    Gymnasium's next state to 1e-12 (a balanced pole amplifies rounding about e-fold every 13
    steps, so two open-loop runs part after ~400 steps: the map is compared state by state)."""
    ours, theirs = cart_poles
    obs, _ = theirs.reset(seed=11)
    worst = 0.0
    for _ in range(499):
        s = np.array(theirs.unwrapped.state, dtype=float)  # Gymnasium's (x, ẋ, θ, θ̇)
        ours.reset(options={"state": s[[0, 2, 1, 3]]})
        a = int(obs[2] + 0.5 * obs[3] + 0.05 * obs[1] > 0)
        _, r1, te1, _, _ = ours.step(a)
        obs, r2, te2, tr2, _ = theirs.step(a)
        worst = max(worst, float(np.abs(ours.state[[0, 2, 1, 3]] - theirs.unwrapped.state).max()))
        assert (r1, te1) == (r2, te2) and not tr2
    assert worst < 1e-12


def test_cart_pole_truncates_after_500_steps_like_gymnasium(cart_poles):
    """A balancing policy (each environment on its own observations): both end by truncation
    at step 500 exactly."""
    ours, theirs = cart_poles

    def run(env):
        obs, _ = env.reset(seed=3)
        for k in range(1, 600):
            obs, _, terminated, truncated, _ = env.step(int(obs[2] + 0.5 * obs[3] > 0))
            if terminated or truncated:
                return k, terminated, truncated
        raise AssertionError("no end")

    assert run(ours) == run(theirs) == (500, False, True)


@pytest.mark.parametrize("seed", range(4))
def test_acrobot_reproduces_gymnasium_up_to_the_goal(acrobots, seed):
    """Pumping energy with the elbow reaches the goal: every step and the termination agree."""
    ours, theirs = acrobots
    steps = _episode(ours, theirs, seed, lambda obs: 2 if obs[5] > 0 else 0)
    assert steps < 500  # terminated, not truncated


def test_acrobot_one_step_map_matches_from_gymnasiums_states(acrobots):
    """From every state Gymnasium visits over 200 random steps (its RK4 on the book
    equations, wrapping, clipping), one lagdyn step lands on Gymnasium's next state to 1e-12."""
    ours, theirs = acrobots
    rng = np.random.default_rng(0)
    theirs.reset(seed=5)
    worst = 0.0
    for _ in range(200):
        s = np.array(theirs.unwrapped.state, dtype=float)
        ours.reset(options={"state": [s[0] - math.pi / 2, s[1], s[2], s[3]]})  # θ1 → q1
        a = int(rng.integers(3))
        _, r1, te1, _, _ = ours.step(a)
        _, r2, te2, _, _ = theirs.step(a)
        s2, x = theirs.unwrapped.state, ours.state
        worst = max(
            worst,
            abs(math.remainder(x[0] + math.pi / 2 - s2[0], 2 * math.pi)),
            abs(math.remainder(x[1] - s2[1], 2 * math.pi)),
            abs(x[2] - s2[2]),
            abs(x[3] - s2[3]),
        )
        assert (r1, te1) == (r2, te2)
    assert worst < 1e-12

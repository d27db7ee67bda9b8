"""Environment steps per second: lagdyn.gym against Gymnasium's own environments.

* 1,024 cart-poles: ``ld.gym.make_vec(tasks.cart_pole(gymnasium_compat=True), 1024)`` (the
  same model, explicit Euler, termination and autoreset as CartPole-v1) against
  ``gymnasium.make_vec("CartPole-v1", num_envs=1024, vectorization_mode="vector_entry_point")``
  (Gymnasium's numpy-vectorised CartPoleVectorEnv) — target ≥ 10×;
* acrobots: ``ld.gym.make_vec(tasks.acrobot(gymnasium_compat=True), N)`` (RK4, dt 0.2, the
  "book" dynamics as Acrobot-v1) for N = 64 and 1,024 against Gymnasium's ``SyncVectorEnv``
  of 64 ``Acrobot-v1`` (which has no vector entry point; a Python RK4 per environment) —
  target ≥ 100×;
* one environment: ``ld.gym.make`` against ``gymnasium.make`` (µs per step).

lagdyn runs on its fastest backend (C through cffi, one thread): a step of all N
environments is one call of one generated C function (``envs.whole_step``: action lookup and
check, the integrator's stages of the model's dynamics, angle wrap and rate clip, termination,
reward, autoreset, float32 observations). Actions are drawn beforehand; each figure is the
best of several rounds (``--rounds``, default 7), the rounds of the two sides interleaved,
timed in CPU time of the process (``time.process_time``: the machine is shared, and both
sides run on one thread); the table gives steps per second and µs per vector step of each
side, and the load average when the run started. The cart-poles are also timed at
N = 16,384. Run ``python benchmarks/bench_gym.py [--rounds R]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import lagdyn as ld

ROUNDS = 7


def steps_per_second(env: Any, actions: np.ndarray, steps: int) -> Callable[[], float]:
    """A round: ``steps`` steps of ``env`` → environment steps per second."""
    n = env.num_envs if hasattr(env, "num_envs") else 1

    def run() -> float:
        t0 = time.process_time()
        for k in range(steps):
            env.step(actions[k % len(actions)])
        return n * steps / max(time.process_time() - t0, 1e-9)

    return run


def single_steps(env: Any, actions: np.ndarray, steps: int) -> Callable[[], float]:
    """A round of one environment, resetting when an episode ends → steps per second."""

    def run() -> float:
        t0 = time.process_time()
        for k in range(steps):
            _, _, terminated, truncated, _ = env.step(int(actions[k % len(actions)]))
            if terminated or truncated:
                env.reset()
        return steps / max(time.process_time() - t0, 1e-9)

    return run


def best_of(rounds: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Best rate of each side over interleaved rounds (after one warm-up round each)."""
    for run in rounds.values():
        run()
    best = dict.fromkeys(rounds, 0.0)
    for _ in range(ROUNDS):
        for key, run in rounds.items():
            best[key] = max(best[key], run())
    return best


def fmt(rate: float) -> str:
    return f"{rate / 1e6:8.3f} M" if rate >= 1e5 else f"{rate / 1e3:8.2f} k"


def per_step(rate: float, n: int) -> str:
    """µs per step of all ``n`` environments."""
    return f"{1e6 * n / rate:.1f} µs"


def main() -> None:
    global ROUNDS
    import gymnasium as gym

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="timed rounds per side")
    ROUNDS = parser.parse_args().rounds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    rng = np.random.default_rng(0)
    tasks = ld.gym.tasks
    print(
        f"lagdyn.gym vs Gymnasium {gym.__version__} — {platform.processor() or platform.machine()}"
        f", {os.cpu_count()} CPUs, load average {load:.2f} at the start, {ROUNDS} rounds"
    )

    # ---------------------------------------------------------------- cart-pole, 1,024 envs
    N = 1024
    ours = ld.gym.make_vec(tasks.cart_pole(gymnasium_compat=True), N)
    theirs = gym.make_vec("CartPole-v1", num_envs=N, vectorization_mode="vector_entry_point")
    ours.reset(seed=0)
    theirs.reset(seed=0)
    acts = rng.integers(0, 2, size=(64, N))
    print(
        f"\nlagdyn: backend {ours.backend!r}, one C call per vector step: {ours.whole_step} "
        f"(step kernel fused: {ours.fused})"
    )
    cp = best_of(
        {
            "lagdyn": steps_per_second(ours, acts, 300),
            "gymnasium": steps_per_second(theirs, acts, 100),
        }
    )

    big = 16384
    ours_big = ld.gym.make_vec(tasks.cart_pole(gymnasium_compat=True), big)
    theirs_big = gym.make_vec("CartPole-v1", num_envs=big, vectorization_mode="vector_entry_point")
    ours_big.reset(seed=0)
    theirs_big.reset(seed=0)
    acts_big = rng.integers(0, 2, size=(8, big))
    cp_big = best_of(
        {
            "lagdyn": steps_per_second(ours_big, acts_big, 50),
            "gymnasium": steps_per_second(theirs_big, acts_big, 20),
        }
    )

    # ---------------------------------------------------------------- acrobot
    a64 = ld.gym.make_vec(tasks.acrobot(gymnasium_compat=True), 64)
    a1k = ld.gym.make_vec(tasks.acrobot(gymnasium_compat=True), N)
    sync = gym.make_vec("Acrobot-v1", num_envs=64, vectorization_mode="sync")
    for env in (a64, a1k, sync):
        env.reset(seed=0)
    ac = best_of(
        {
            "lagdyn 64": steps_per_second(a64, rng.integers(0, 3, size=(64, 64)), 300),
            "lagdyn 1024": steps_per_second(a1k, rng.integers(0, 3, size=(64, N)), 100),
            "gymnasium sync 64": steps_per_second(sync, rng.integers(0, 3, size=(64, 64)), 5),
        }
    )

    # ---------------------------------------------------------------- one environment
    single = {}
    for name, gid in (("cart_pole", "CartPole-v1"), ("acrobot", "Acrobot-v1")):
        env = ld.gym.make(tasks.get(name, gymnasium_compat=True))
        ref = gym.make(gid)
        env.reset(seed=0)
        ref.reset(seed=0)
        k = 2 if name == "cart_pole" else 3
        a = rng.integers(0, k, size=1000)
        single[name] = best_of(
            {"lagdyn": single_steps(env, a, 1000), "gymnasium": single_steps(ref, a, 1000)}
        )

    print(
        "\n| environments | lagdyn steps/s (µs per vector step) | Gymnasium steps/s "
        "(µs per vector step) | ratio | target |"
    )
    print("| --- | --- | --- | --- | --- |")
    for label, rates, n, peer, target in (
        ("1,024 cart-poles (CartPole-v1, Euler)", cp, N, "vector entry point", "≥ 10×"),
        ("16,384 cart-poles (CartPole-v1, Euler)", cp_big, big, "vector entry point", "—"),
    ):
        print(
            f"| {label} | {fmt(rates['lagdyn'])} ({per_step(rates['lagdyn'], n)}) | "
            f"{fmt(rates['gymnasium'])} ({per_step(rates['gymnasium'], n)}, {peer}) | "
            f"{rates['lagdyn'] / rates['gymnasium']:.1f}× | {target} |"
        )
    sync = ac["gymnasium sync 64"]
    for label, n in (("lagdyn 64", 64), ("lagdyn 1024", N)):
        print(
            f"| {n:,} acrobots (Acrobot-v1, RK4) | {fmt(ac[label])} ({per_step(ac[label], n)}) | "
            f"{fmt(sync)} ({per_step(sync, 64)}, SyncVectorEnv of 64) | "
            f"{ac[label] / sync:.0f}× | ≥ 100× |"
        )
    for name, rates in single.items():
        print(
            f"| one {name.replace('_', '-')} (µs per step) | {1e6 / rates['lagdyn']:.1f} µs | "
            f"{1e6 / rates['gymnasium']:.1f} µs | "
            f"{rates['lagdyn'] / rates['gymnasium']:.2f}× | — |"
        )


if __name__ == "__main__":
    main()

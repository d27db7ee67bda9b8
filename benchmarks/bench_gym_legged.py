"""Legged environments (lagdyn.gym.legged): robot steps per second, one env against make_vec.

A step of ``ld.gym.make_vec(task, N)`` is ``substeps`` (4) calls of ``Contacts.step``
batched over the N robots (numpy: M, h, the contact Jacobians, the Cholesky solves and the
Gauss–Seidel or ADMM sweeps vectorised over the robots). The baseline a user would otherwise
write is N single environments (``ld.gym.make``) stepped in a Python loop: its rate in robot
steps per second is the single environment's. Actions are the nominal ones plus uniform
noise of ±0.3 (the robots stand and sway; no episode ends in the run); each figure is the
best of ``--rounds`` rounds (default 3) in CPU time of the process (``time.process_time``:
the machine is shared). Tasks: the toy quadruped (soft contacts, ADMM, tol 1e-6 m/s) and
Solo12 (rigid, Gauss–Seidel, tol 1e-6 m/s; skipped without example-robot-data).

The robots' kernels (M, h, the feet's Jacobians) run on C (the default when cffi and a
compiler are there) and on numpy; the contact solve is numpy on both.

Run ``python benchmarks/bench_gym_legged.py [--rounds R] [--steps S] [--backend B]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import lagdyn as ld
from lagdyn.errors import BackendUnavailableError
from lagdyn.gym import tasks


def rate(env, actions: np.ndarray, rounds: int) -> tuple[float, int]:
    """Best robot steps per second over ``rounds`` runs of ``len(actions)`` steps, and the
    number of contact failures seen."""
    best, failures = 0.0, 0
    for _ in range(rounds):
        env.reset(seed=0)
        start = time.process_time()
        for a in actions:
            info = env.step(a)[4]
            if "contact_failed" in info:
                failures += int(np.sum(info["contact_failed"]))
        elapsed = time.process_time() - start
        robots = actions.shape[1] if actions.ndim == 3 else 1
        best = max(best, robots * len(actions) / elapsed)
    return best, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--backend", choices=["c", "numpy", "both"], default="both")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    backends = ["c", "numpy"] if args.backend == "both" else [args.backend]
    for name, backend in ((n, b) for n in ("quadruped", "solo12") for b in backends):
        try:
            task = tasks.get(name, backend=backend)
        except BackendUnavailableError as exc:
            print(f"{name} ({backend}): skipped ({exc})")
            continue
        name = f"{name} ({backend})"
        nj = task.model.nj
        single = ld.gym.make(task)
        acts = rng.uniform(-0.3, 0.3, size=(args.steps, nj)).astype(np.float32)
        base, fails = rate(single, acts, args.rounds)
        print(
            f"{name}: one env {base:9.1f} robot steps/s ({1e3 / base:.2f} ms a step)"
            f"{f', {fails} contact failures' if fails else ''}"
        )
        for N in (16, 64, 256):
            envs = ld.gym.make_vec(task, N)
            acts = rng.uniform(-0.3, 0.3, size=(args.steps, N, nj)).astype(np.float32)
            r, fails = rate(envs, acts, args.rounds)
            print(
                f"{name}: make_vec N = {N:3d} {r:9.1f} robot steps/s ({r / base:5.1f}x)"
                f"{f', {fails} contact failures' if fails else ''}"
            )


if __name__ == "__main__":
    main()

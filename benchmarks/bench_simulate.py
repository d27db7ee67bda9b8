"""Cost of a fixed step of ``lagdyn.simulate``: implicit midpoint by Newton against the
fixed-point iteration it replaced, and RK4 for scale, in one process.

The fixed-point figures come from the same NumericModel seen without its system (only
``n``, ``M``, ``C``, ``forward_dynamics``, ``energy``), which is the path such models
still take; both solve the same equations to ``tol = 1e-12`` (the trajectories agree to
1e-10, ``tests/simulation/test_simulate.py``). Run: ``python benchmarks/bench_simulate.py``.
"""

from __future__ import annotations

import time

import numpy as np

import lagdyn as ld
from lagdyn.simulation import integrators


class WithoutSystem:
    def __init__(self, num):
        self.n, self.M, self.C = num.n, num.M, num.C
        self.forward_dynamics, self.energy = num.forward_dynamics, num.energy


class Counting:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def per_step(model, x0, t, method, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        ld.simulate(model, x0, t, method=method)
        best = min(best, time.perf_counter() - start)
    return best / (len(t) - 1) * 1e6


def main() -> None:
    cases = [
        ("double_pendulum", {}),
        ("cart_pole", {}),
        ("n_link_pendulum", {"n": 4}),
        ("n_link_pendulum", {"n": 6}),
    ]
    steps = 200
    t = np.linspace(0.0, 2.0, steps + 1)
    print("µs per step (min of 3 runs of 200 steps, h = 0.01, one state; backend c)")
    header = "model", "rk4", "midpoint Newton", "fixed point", "ratio", "evals/step N | FP"
    print("{:<22} {:>8} {:>16} {:>12} {:>7} {:>18}".format(*header))
    for name, opts in cases:
        system = ld.zoo.get(name, **opts)
        num = system.lambdify(system.defaults, backend="c")
        n = system.n
        x0 = np.r_[np.full(n, 0.6), np.zeros(n)]
        ld.simulate(num, x0, t[:3], method="midpoint")  # generates the Newton kernel
        rk4 = per_step(num, x0, t, "rk4")
        newton = per_step(num, x0, t, "midpoint")
        fixed = per_step(WithoutSystem(num), x0, t, "midpoint")
        kernel = integrators.newton_kernel(num)
        counting = Counting(kernel)
        integrators._NEWTON[num] = counting
        ld.simulate(num, x0, t, method="midpoint")
        integrators._NEWTON[num] = kernel
        slow = WithoutSystem(num)
        fd = Counting(num.forward_dynamics)
        slow.forward_dynamics = fd
        ld.simulate(slow, x0, t, method="midpoint")
        label = name + "".join(f" {k}={v}" for k, v in opts.items())
        evals = f"{counting.calls / steps:.1f} | {fd.calls / steps:.1f}"
        print(
            f"{label:<22} {rk4:8.1f} {newton:16.1f} {fixed:12.1f} {fixed / newton:6.1f}x "
            f"{evals:>18}"
        )


if __name__ == "__main__":
    main()

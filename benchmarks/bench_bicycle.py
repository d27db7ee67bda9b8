"""The Whipple bicycle: lagdyn's derivation + linearization against KanesMethod + linearize.

Issue 24's target: lagdyn derives the full nonlinear equations of the benchmark bicycle of
Meijaard et al. (2007) — the Lagrangian system of the four bodies (M, h), the holonomic
front-contact row and the four rolling rows of the ConstrainedSystem — and linearizes them
about upright straight running into M, C1, K0, K2, at least 10× faster than sympy's own
bicycle (``sympy/physics/mechanics/tests/test_kane3.py``: ``KanesMethod`` with the same
constraints, ``kanes_equations``, ``linearize(A_and_B=True)``, the benchmark values
substituted and checked). Both run in this process, lagdyn first with its caches cleared;
CPU time (``time.process_time``) is reported next to the wall time because the machine may
be shared.

Run ``python benchmarks/bench_bicycle.py [--lagdyn-only]``; sympy's side takes minutes.
"""

from __future__ import annotations

import sys
import time
from typing import Any


class _Clock:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        out = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return out


def lagdyn_side() -> dict[str, tuple[float, float]]:
    """(wall, cpu) seconds of each stage of lagdyn's pipeline, from empty caches."""
    from lagdyn.zoo import bicycle

    for cached in (bicycle._model, bicycle._base, bicycle._derivatives):
        cached.cache_clear()
    laps: dict[str, tuple[float, float]] = {}
    clock = _Clock()
    bicycle._model()
    laps["energies, constraint rows, LagrangianSystem (M)"] = clock.lap()
    bike = bicycle.whipple_bicycle()
    laps["ConstrainedSystem (W = [J_c; A])"] = clock.lap()
    _ = bike.system.h
    laps["h = C q̇ + g (lagdyn's derivation)"] = clock.lap()
    M, C1, K0, K2 = bike.benchmark_matrices()
    laps["linearization → M, C1, K0, K2"] = clock.lap()
    weave, capsize = bike.stability_speeds()
    laps["(weave and capsize speeds, not in the total)"] = clock.lap()
    print(f"lagdyn: M {M.tolist()}, C1 {C1.tolist()}, K0 {K0.tolist()}, K2 {K2.tolist()}")
    print(f"lagdyn: weave {weave:.8f} m/s, capsize {capsize:.8f} m/s")
    return laps


def sympy_side() -> dict[str, tuple[float, float]]:
    """(wall, cpu) seconds of sympy's test_kane3 bicycle, split at its two heavy calls."""
    from sympy.physics.mechanics import KanesMethod
    from sympy.physics.mechanics.tests import test_kane3

    laps: dict[str, tuple[float, float]] = {}
    clock = _Clock()
    original = KanesMethod.kanes_equations, KanesMethod.linearize

    def timed(name: str, method: Any) -> Any:
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            laps["model construction (frames, points, bodies)"] = clock.lap()
            out = method(self, *args, **kwargs)
            laps[name] = clock.lap()
            return out

        return wrapper

    KanesMethod.kanes_equations = timed("KanesMethod.kanes_equations", original[0])
    KanesMethod.linearize = timed("KanesMethod.linearize(A_and_B=True)", original[1])
    try:
        test_kane3.test_bicycle()  # builds, derives, linearizes, substitutes and checks
    finally:
        KanesMethod.kanes_equations, KanesMethod.linearize = original
    laps["substitution of the benchmark values + check"] = clock.lap()
    return laps


def _table(title: str, laps: dict[str, tuple[float, float]]) -> tuple[float, float]:
    print(f"\n{title}\n| stage | wall (s) | CPU (s) |\n| --- | ---: | ---: |")
    total = [0.0, 0.0]
    for name, (wall, cpu) in laps.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
        if not name.startswith("("):
            total[0] += wall
            total[1] += cpu
    print(f"| **total** | {total[0]:.2f} | {total[1]:.2f} |")
    return total[0], total[1]


def main(argv: list[str]) -> None:
    ours = _table("lagdyn", lagdyn_side())
    if "--lagdyn-only" in argv:
        return
    theirs = _table("sympy test_kane3 (KanesMethod)", sympy_side())
    print(
        f"\nratio (sympy / lagdyn): wall {theirs[0] / ours[0]:.1f}×, CPU {theirs[1] / ours[1]:.1f}×"
    )


if __name__ == "__main__":
    main(sys.argv[1:])

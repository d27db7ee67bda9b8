"""from_mechanics against the KanesMethod it reads (issue 24's target).

sympy's n-link pendulum on a cart (``sympy.physics.mechanics.models.n_link_pendulum_on_cart``):
reading the model with ``ld.from_mechanics`` plus lagdyn's M, C, g and the exact skew proof
of Ṁ − 2C, against ``KanesMethod.kanes_equations`` alone on the same model (built afresh
for each side, in this process). Target: lagdyn's whole pipeline faster than Kane's call.

Run ``python benchmarks/bench_mechanics.py [n ...]`` (default n = 3 6 10).
"""

from __future__ import annotations

import sys
import time

import lagdyn as ld


def _model(n: int):  # a sympy KanesMethod
    from sympy.physics.mechanics.models import n_link_pendulum_on_cart

    return n_link_pendulum_on_cart(n)


def kane(n: int) -> float:
    """Seconds of ``kanes_equations`` (the model built beforehand, not timed)."""
    from sympy.physics.mechanics import KanesMethod

    km = _model(n)
    # n_link_pendulum_on_cart returns a formed KanesMethod: build an unformed twin
    fresh = KanesMethod(km._inertial, km.q, km.u, kd_eqs=[q.diff() - u for q, u in zip(km.q, km.u)])
    start = time.perf_counter()
    fresh.kanes_equations(km.bodies, km.loads)
    return time.perf_counter() - start


def lagdyn_pipeline(n: int) -> tuple[float, bool | None]:
    """Seconds of from_mechanics + M, C, g + the skew proof, and the proof's verdict."""
    km = _model(n)
    start = time.perf_counter()
    system = ld.from_mechanics(km)
    _ = system.M, system.C, system.g
    verdict = system.is_skew_symmetric()
    return time.perf_counter() - start, verdict


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [3, 6, 10]
    print(
        "| n | KanesMethod.kanes_equations (s) | lagdyn: read + M, C, g + skew proof (s) | ratio | proof |"
    )
    print("| ---: | ---: | ---: | ---: | --- |")
    for n in sizes:
        tk = kane(n)
        tl, verdict = lagdyn_pipeline(n)
        print(f"| {n} | {tk:.2f} | {tl:.2f} | {tk / tl:.1f}× | {verdict} |")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Derivation benchmark: lagdyn vs sympy.physics.mechanics on the planar n-link pendulum.

What it shows: time to build M, C, g (and the exact skew proof) with lagdyn, against
``LagrangesMethod`` (mass matrix + forcing) and ``KanesMethod`` (mass_matrix + forcing),
all in one process, with ratios and operation counts (``sympy.count_ops`` of M plus
C q̇ + g — lagdyn's ``system.h``, built directly and factored, timed in its own column —
against Kane's mass matrix plus forcing).

Model: point masses m_i on massless rods l_i, gravity g, angles from the downward
vertical; "absolute" link angles θ_i or "relative" joint angles q_i (θ_i = q_1 + … + q_i).

Usage::

    python benchmarks/bench_derive.py            # n = 2, 4, 6, 8, 10
    python benchmarks/bench_derive.py --quick    # n <= 4
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from collections.abc import Callable
from typing import Any

import sympy as sp
from sympy.physics import mechanics as me

import lagdyn as ld

LAGRANGE_LIMIT = 60.0  # seconds; skip LagrangesMethod beyond this (estimated from smaller n)


def build(n: int, convention: str) -> dict[str, Any]:
    """Positions, Lagrangian and symbols of the n-link pendulum."""
    q = me.dynamicsymbols(f"q1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    lengths = sp.symbols(f"l1:{n + 1}", positive=True)
    grav = sp.Symbol("g", positive=True)
    t = me.dynamicsymbols._t
    theta = list(q) if convention == "absolute" else [sum(q[: i + 1]) for i in range(n)]
    xs, ys = [], []
    x = y = sp.S.Zero
    for i in range(n):
        x = x + lengths[i] * sp.sin(theta[i])
        y = y - lengths[i] * sp.cos(theta[i])
        xs.append(x)
        ys.append(y)
    T = sum(m[i] * (xs[i].diff(t) ** 2 + ys[i].diff(t) ** 2) for i in range(n)) / 2
    V = sum(m[i] * grav * ys[i] for i in range(n))
    return {"q": q, "m": m, "l": lengths, "g": grav, "theta": theta, "L": T - V}


def plain(expr: Any, q: list[Any]) -> Any:
    """Replace q(t), q̇(t) (and Kane's u(t)) with plain symbols for op counting."""
    t = me.dynamicsymbols._t
    funcs = {f for f in expr.atoms(sp.Function) if f.args == (t,)}
    derivs = {d: sp.Symbol(f"{d.expr.func.__name__}d") for d in expr.atoms(sp.Derivative)}
    expr = expr.xreplace(derivs)
    return expr.xreplace({f: sp.Symbol(f.func.__name__) for f in funcs})


def run_lagdyn(model: dict[str, Any]) -> tuple[float, float, float, int, int, float]:
    q = model["q"]
    t0 = time.perf_counter()
    system = ld.LagrangianSystem(model["L"], q)
    M, _, _ = system.M, system.C, system.g  # what the timing covers
    t1 = time.perf_counter()
    assert system.is_skew_symmetric()
    t2 = time.perf_counter()
    fast = system._fast  # the trig-polynomial derivation (None on the general path)
    assert fast is None or fast.skew_proof()
    t3 = time.perf_counter()
    t4 = time.perf_counter()
    h = system.h  # C q̇ + G q̇ + g built directly, factored (lazy; timed separately)
    t5 = time.perf_counter()
    exprs = [plain(M, q), plain(h, q)]
    ops = sum(sp.count_ops(e) for e in exprs)
    return t1 - t0, t2 - t1, t3 - t2, int(ops), cse_ops(exprs), t5 - t4


def cse_ops(exprs: list[Any]) -> int:
    """Operations after one joint ``sympy.cse`` (what generated code evaluates)."""
    flat = [x for e in exprs for x in e]
    repl, reduced = sp.cse(flat, order="none")
    return int(sum(sp.count_ops(r) for _, r in repl) + sum(sp.count_ops(r) for r in reduced))


def run_lagrange(model: dict[str, Any]) -> float:
    t0 = time.perf_counter()
    lm = me.LagrangesMethod(model["L"], model["q"])
    lm.form_lagranges_equations()
    _ = lm.mass_matrix, lm.forcing
    return time.perf_counter() - t0


def run_kane(model: dict[str, Any]) -> tuple[float, int, int]:
    q, n = model["q"], len(model["q"])
    t0 = time.perf_counter()
    u = me.dynamicsymbols(f"u1:{n + 1}")
    frame = me.ReferenceFrame("N")
    origin = me.Point("O")
    origin.set_vel(frame, 0)
    particles, loads = [], []
    point = origin
    for i in range(n):
        th = model["theta"][i]
        point = point.locatenew(
            f"P{i + 1}", model["l"][i] * (sp.sin(th) * frame.x - sp.cos(th) * frame.y)
        )
        point.set_vel(frame, point.pos_from(origin).dt(frame))
        particles.append(me.Particle(f"pa{i + 1}", point, model["m"][i]))
        loads.append((point, -model["m"][i] * model["g"] * frame.y))
    kd = [qi.diff(me.dynamicsymbols._t) - ui for qi, ui in zip(q, u)]
    kane = me.KanesMethod(frame, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(particles, loads)
    MM, forcing = kane.mass_matrix, kane.forcing
    elapsed = time.perf_counter() - t0
    exprs = [plain(MM, q), plain(forcing, q)]
    return elapsed, int(sum(sp.count_ops(e) for e in exprs)), cse_ops(exprs)


def timed(fn: Callable[[], Any]) -> Any:
    gc.collect()
    return fn()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only n <= 4")
    parser.add_argument("--no-lagrange", action="store_true", help="skip LagrangesMethod")
    args = parser.parse_args()
    sizes = [2, 4] if args.quick else [2, 4, 6, 8, 10]
    print(f"python {platform.python_version()}, sympy {sp.__version__}, lagdyn {ld.__version__}")
    print()
    print(
        "| coords | n | lagdyn M,C,g (s) | h = Cq̇+g (s) | skew proof (s) | dictionary skew proof (s) "
        "| Kane (s) | Kane/lagdyn "
        "| Lagrange (s) | Lagrange/lagdyn | ops lagdyn | ops Kane | ops ratio "
        "| CSE ops lagdyn | CSE ops Kane | CSE ratio |"
    )
    print("| --- " * 16 + "|")
    warm = build(2, "relative")  # one-time costs (imports, sympy caches) out of the table
    run_lagdyn(warm)
    run_kane(warm)
    for convention in ("absolute", "relative"):
        lagrange_prev: tuple[int, float] | None = None
        for n in sizes:
            model = build(n, convention)
            t_ld, t_skew, t_dict, ops_ld, cse_ld, t_h = timed(lambda: run_lagdyn(model))  # noqa: B023
            t_kane, ops_kane, cse_kane = timed(lambda: run_kane(model))  # noqa: B023
            skip = args.no_lagrange
            if lagrange_prev is not None:
                n0, t0 = lagrange_prev
                # LagrangesMethod grows roughly like n**4 on these models or worse
                skip = skip or t0 * (n / n0) ** 5 > LAGRANGE_LIMIT
            if args.no_lagrange:
                lag_cell, lag_ratio = "not run", "–"
            elif skip:
                lag_cell, lag_ratio = "skipped (>60 s)", "–"
            else:
                t_lag = timed(lambda: run_lagrange(model))  # noqa: B023
                lagrange_prev = (n, t_lag)
                lag_cell, lag_ratio = f"{t_lag:.3f}", f"{t_lag / t_ld:.1f}×"
            print(
                f"| {convention} | {n} | {t_ld:.3f} | {t_h:.3f} | {t_skew:.4f} | {t_dict:.4f} | {t_kane:.3f} "
                f"| {t_kane / t_ld:.1f}× | {lag_cell} | {lag_ratio} | {ops_ld} | {ops_kane} "
                f"| {ops_ld / ops_kane:.2f} | {cse_ld} | {cse_kane} | {cse_ld / cse_kane:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

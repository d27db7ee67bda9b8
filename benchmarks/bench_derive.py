"""Derivation benchmark: lagdyn vs sympy.physics.mechanics on the planar n-link pendulum.

What it shows: time to build M, C, g (and the exact skew proof) with lagdyn, against
``LagrangesMethod`` (mass matrix + forcing) and ``KanesMethod`` (mass_matrix + forcing),
all in one process, with ratios and operation counts (``sympy.count_ops`` of M plus
C q̇ + g — lagdyn's ``system.h``, built directly and factored, timed in its own column —
against Kane's mass matrix plus forcing).

Model: point masses m_i on massless rods l_i, gravity g, angles from the downward
vertical; "absolute" link angles θ_i or "relative" joint angles q_i (θ_i = q_1 + … + q_i).

``--fresh`` (issue 25, item 4) measures instead what a user pays in a *fresh* Python
process, one child process per cell (imports of sympy, symengine, numpy, mechanics and the
lagdyn modules the derivation uses excluded; sympy's caches cold), tools alternating,
minimum of ``--repeat``: lagdyn from the user's L (``LagrangianSystem(L, q)``, ``.M``,
``.C``, ``.g`` and the exact skew proof; building L with sympy is shown apart) against
KanesMethod (points, velocities, ``kanes_equations``, ``mass_matrix``, ``forcing``), wall
and CPU time, and the targets: n = 10 absolute and n = 8 joint angles at least 10×
KanesMethod, n <= 6 answered (M, C, g and the skew proof) in under 0.1 s.

Usage::

    python benchmarks/bench_derive.py            # n = 2, 4, 6, 8, 10
    python benchmarks/bench_derive.py --quick    # n <= 4
    python benchmarks/bench_derive.py --fresh    # the issue-25 targets, fresh processes
    python benchmarks/bench_derive.py --fresh --sizes 2 4 6 8 10 --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import sympy as sp
from sympy.physics import mechanics as me

import lagdyn as ld

LAGRANGE_LIMIT = 60.0  # seconds; skip LagrangesMethod beyond this (estimated from smaller n)


def symbols(n: int, convention: str, positive: bool = True) -> dict[str, Any]:
    """The symbols of the n-link pendulum and its link angles (what both tools start from)."""
    kw = {"positive": True} if positive else {}
    q = me.dynamicsymbols(f"q1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}", **kw)
    lengths = sp.symbols(f"l1:{n + 1}", **kw)
    grav = sp.Symbol("g", **kw)
    theta = list(q) if convention == "absolute" else [sum(q[: i + 1]) for i in range(n)]
    return {"q": q, "m": m, "l": lengths, "g": grav, "theta": theta}


def lagrangian(model: dict[str, Any]) -> Any:
    """L = T - V written with sympy the way a user writes it (positions, their time
    derivatives)."""
    q, m, lengths, grav, theta = (model[k] for k in ("q", "m", "l", "g", "theta"))
    n = len(q)
    t = me.dynamicsymbols._t
    xs, ys = [], []
    x = y = sp.S.Zero
    for i in range(n):
        x = x + lengths[i] * sp.sin(theta[i])
        y = y - lengths[i] * sp.cos(theta[i])
        xs.append(x)
        ys.append(y)
    T = sum(m[i] * (xs[i].diff(t) ** 2 + ys[i].diff(t) ** 2) for i in range(n)) / 2
    V = sum(m[i] * grav * ys[i] for i in range(n))
    return T - V


def build(n: int, convention: str, positive: bool = True) -> dict[str, Any]:
    """Positions, Lagrangian and symbols of the n-link pendulum."""
    model = symbols(n, convention, positive)
    model["L"] = lagrangian(model)
    return model


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
    t0 = time.perf_counter()
    MM, forcing = kane_model(model)
    elapsed = time.perf_counter() - t0
    q = model["q"]
    exprs = [plain(MM, q), plain(forcing, q)]
    return elapsed, int(sum(sp.count_ops(e) for e in exprs)), cse_ops(exprs)


def kane_model(model: dict[str, Any]) -> Any:
    """Points, velocities, particles and loads, ``KanesMethod.kanes_equations``."""
    q, n = model["q"], len(model["q"])
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
    return kane.mass_matrix, kane.forcing


# every module the derivation loads, imported before the clock starts in a fresh child
FRESH_IMPORTS = (
    "numpy",
    "symengine",
    "sympy.assumptions.wrapper",
    "sympy.sets.setexpr",
    "lagdyn.system",
    "lagdyn.structure",
    "lagdyn._validate",
    "lagdyn.trig.derive",
    "lagdyn.trig.identities",
    "lagdyn.trig.linear",
    "lagdyn.trig.forms",
)


def _fresh_child(tool: str, n: int, convention: str, positive: bool) -> dict[str, float]:
    import importlib

    for name in FRESH_IMPORTS:
        importlib.import_module(name)
    model = symbols(n, convention, positive)
    clocks = (time.perf_counter, time.process_time)
    if tool == "kane":
        w0, c0 = (c() for c in clocks)
        kane_model(model)
        return {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0}
    w0, c0 = (c() for c in clocks)
    L = lagrangian(model)
    w1, c1 = (c() for c in clocks)
    system = ld.LagrangianSystem(L, model["q"])
    _ = system.M, system.C, system.g
    w2, _ = (c() for c in clocks)
    assert system.is_skew_symmetric()
    w3, c3 = (c() for c in clocks)
    return {
        "lagrangian": w1 - w0,
        "mcg": w2 - w1,
        "skew": w3 - w2,
        "wall": w3 - w1,
        "cpu": c3 - c1,
    }


def _fresh_run(tool: str, n: int, convention: str, positive: bool) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", tool, "--n", str(n), "--convention", convention]
    if positive:
        cmd.append("--positive")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def fresh(sizes: list[int], conventions: list[str], repeat: int, positive: bool) -> None:
    """The issue-25 table: every cell a fresh process, minimum of ``repeat``."""
    print(f"python {platform.python_version()}, sympy {sp.__version__}, lagdyn {ld.__version__}")
    label = "positive=True" if positive else "plain (no assumptions)"
    print(
        f"symbols {label}; fresh process per cell, imports excluded, min of {repeat}; "
        f"load average {os.getloadavg()[0]:.1f}\n"
    )
    print(
        "| coords | n | L built (s) | lagdyn M,C,g (s) | skew proof (s) | lagdyn from L (s) "
        "| lagdyn CPU (s) | Kane (s) | Kane CPU (s) | Kane/lagdyn | Kane/lagdyn CPU | target |"
    )
    print("| --- " * 12 + "|")
    for convention in conventions:
        for n in sizes:
            best: dict[str, dict[str, float]] = {}
            for _ in range(repeat):
                for tool in ("lagdyn", "kane"):
                    r = _fresh_run(tool, n, convention, positive)
                    if tool not in best or r["wall"] < best[tool]["wall"]:
                        best[tool] = r
                    if "cpu" in best[tool]:
                        best[tool]["cpu"] = min(best[tool]["cpu"], r["cpu"])
            ld_, k = best["lagdyn"], best["kane"]
            ratio, ratio_cpu = k["wall"] / ld_["wall"], k["cpu"] / ld_["cpu"]
            if n <= 6:
                target = "< 0.1 s: " + ("met" if ld_["wall"] < 0.1 else "not met")
            elif (convention, n) in (("absolute", 10), ("relative", 8)):
                target = ">= 10×: " + ("met" if ratio >= 10 else "not met")
            else:
                target = "–"
            print(
                f"| {convention} | {n} | {ld_['lagrangian']:.3f} | {ld_['mcg']:.3f} "
                f"| {ld_['skew']:.3f} | {ld_['wall']:.3f} | {ld_['cpu']:.3f} | {k['wall']:.3f} "
                f"| {k['cpu']:.3f} | {ratio:.1f}× | {ratio_cpu:.1f}× | {target} |",
                flush=True,
            )
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


def timed(fn: Callable[[], Any]) -> Any:
    gc.collect()
    return fn()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only n <= 4")
    parser.add_argument("--no-lagrange", action="store_true", help="skip LagrangesMethod")
    parser.add_argument("--fresh", action="store_true", help="issue-25 fresh-process targets")
    parser.add_argument("--sizes", type=int, nargs="*", help="--fresh: n (default 4 6 8 10)")
    parser.add_argument("--conventions", nargs="*", default=["absolute", "relative"])
    parser.add_argument("--repeat", type=int, default=3, help="--fresh: runs per cell (min)")
    parser.add_argument("--positive", action="store_true", help="--fresh: positive symbols")
    parser.add_argument("--child", choices=("lagdyn", "kane"), help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--convention", default="absolute", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_fresh_child(args.child, args.n, args.convention, args.positive)))
        return
    if args.fresh:
        fresh(args.sizes or [4, 6, 8, 10], args.conventions, args.repeat, args.positive)
        return
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

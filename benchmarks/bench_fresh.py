"""Fresh-process derivation benchmark: lagdyn vs KanesMethod, assumption-free symbols.

What it shows (issue 12, planar target): for the planar n-link pendulum in absolute and
relative (joint) angles, n = 2…10, the time a user pays in a *fresh* Python process
(imports excluded: sympy, symengine, numpy and the lagdyn modules are loaded first;
every sympy cache is cold) to go from symbols to

* lagdyn: the Lagrangian written with sympy (positions, their time derivatives, T − V;
  column "L built"), ``LagrangianSystem(L, q)``, ``.M``, ``.C``, ``.g`` and the exact
  skew proof ``is_skew_symmetric()``; the last column leaves out building L, which is
  the user's input;
* KanesMethod: points located and their velocities set the way a sympy user writes it,
  ``KanesMethod(...).kanes_equations(particles, loads)``, ``mass_matrix`` and ``forcing``.

Symbols are created exactly as KanesMethod users create them: ``dynamicsymbols`` for the
coordinates and plain ``symbols("m1 ... l1 ... g")`` with **no assumptions**
(``--positive`` repeats the run with ``positive=True`` for comparison).

Each measurement runs in its own child process (``python bench_fresh.py --child ...``);
the tools alternate and each (tool, n, convention) is repeated ``--repeat`` times (minimum
reported), so the lagdyn and Kane figures of one row are taken minutes apart at most under
the same machine load.

Usage::

    python benchmarks/bench_fresh.py                 # n = 2..10, both conventions
    python benchmarks/bench_fresh.py --sizes 2 6 10 --repeat 3 --positive
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def _model(n: int, convention: str, positive: bool):
    import sympy as sp
    from sympy.physics import mechanics as me

    kw = {"positive": True} if positive else {}
    q = me.dynamicsymbols(f"q1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}", **kw)
    lengths = sp.symbols(f"l1:{n + 1}", **kw)
    grav = sp.symbols("g", **kw)
    theta = list(q) if convention == "absolute" else [sum(q[: i + 1]) for i in range(n)]
    return sp, me, q, m, lengths, grav, theta


def child_lagdyn(n: int, convention: str, positive: bool) -> dict:
    import lagdyn as ld

    sp, me, q, m, lengths, grav, theta = _model(n, convention, positive)
    t = me.dynamicsymbols._t
    t0 = time.perf_counter()
    x = y = sp.S.Zero
    T = V = sp.S.Zero
    for i in range(n):
        x = x + lengths[i] * sp.sin(theta[i])
        y = y - lengths[i] * sp.cos(theta[i])
        T += m[i] * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
        V += m[i] * grav * y
    t1 = time.perf_counter()
    system = ld.LagrangianSystem(T - V, q)
    t2 = time.perf_counter()
    _ = system.M, system.C, system.g
    t3 = time.perf_counter()
    assert system.is_skew_symmetric()
    t4 = time.perf_counter()
    return {
        "total": t4 - t0,
        "lagrangian": t1 - t0,
        "construct": t2 - t1,
        "MCg": t3 - t2,
        "skew": t4 - t3,
    }


def child_kane(n: int, convention: str, positive: bool) -> dict:
    sp, me, q, m, lengths, grav, theta = _model(n, convention, positive)
    t0 = time.perf_counter()
    u = me.dynamicsymbols(f"u1:{n + 1}")
    frame = me.ReferenceFrame("N")
    origin = me.Point("O")
    origin.set_vel(frame, 0)
    particles, loads = [], []
    point = origin
    for i in range(n):
        th = theta[i]
        point = point.locatenew(
            f"P{i + 1}", lengths[i] * (sp.sin(th) * frame.x - sp.cos(th) * frame.y)
        )
        point.set_vel(frame, point.pos_from(origin).dt(frame))
        particles.append(me.Particle(f"pa{i + 1}", point, m[i]))
        loads.append((point, -m[i] * grav * frame.y))
    kd = [qi.diff(me.dynamicsymbols._t) - ui for qi, ui in zip(q, u)]
    kane = me.KanesMethod(frame, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(particles, loads)
    _ = kane.mass_matrix, kane.forcing
    return {"total": time.perf_counter() - t0}


def _child(args: argparse.Namespace) -> None:
    # imports are not part of the measurement (both tools import sympy)
    import numpy  # noqa: F401
    import symengine  # noqa: F401
    import sympy
    import sympy.physics.mechanics  # noqa: F401

    fn = child_lagdyn if args.tool == "lagdyn" else child_kane
    print(json.dumps(fn(args.n, args.convention, args.positive)))


def _run(tool: str, n: int, convention: str, positive: bool) -> dict:
    cmd = [sys.executable, __file__, "--child", tool, "--n", str(n), "--convention", convention]
    if positive:
        cmd.append("--positive")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=("lagdyn", "kane"), dest="tool")
    parser.add_argument("--n", type=int)
    parser.add_argument("--convention", default="absolute")
    parser.add_argument("--positive", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(range(2, 11)))
    parser.add_argument("--conventions", nargs="*", default=["absolute", "relative"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.tool:
        _child(args)
        return
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    label = "positive=True" if args.positive else "plain (no assumptions)"
    print(f"symbols: {label}; min of {args.repeat} fresh processes per cell\n")
    print(
        "| coords | n | lagdyn total (s) | L built | construct | M,C,g | skew proof "
        "| Kane (s) | Kane/lagdyn | Kane/(lagdyn from L) |"
    )
    print("| --- " * 10 + "|")
    for convention in args.conventions:
        for n in args.sizes:
            best_ld: dict | None = None
            best_k: dict | None = None
            for _ in range(args.repeat):
                r = _run("lagdyn", n, convention, args.positive)
                if best_ld is None or r["total"] < best_ld["total"]:
                    best_ld = r
                k = _run("kane", n, convention, args.positive)
                if best_k is None or k["total"] < best_k["total"]:
                    best_k = k
            assert best_ld is not None and best_k is not None
            print(
                f"| {convention} | {n} | {best_ld['total']:.3f} | {best_ld['lagrangian']:.3f} "
                f"| {best_ld['construct']:.3f} | {best_ld['MCg']:.3f} | {best_ld['skew']:.3f} "
                f"| {best_k['total']:.3f} | {best_k['total'] / best_ld['total']:.1f}× "
                f"| {best_k['total'] / (best_ld['total'] - best_ld['lagrangian']):.1f}× |",
                flush=True,
            )
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

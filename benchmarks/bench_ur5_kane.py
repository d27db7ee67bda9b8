"""UR5 with symbolic inertial parameters: lagdyn against sympy's KanesMethod (issue 12 target).

One process, in this order:

1. **KanesMethod** for the UR5 of ``ld.zoo.get("ur5")`` (the URDF of ``ur_description``):
   frames from each joint's fixed placement rotation (``orient_explicit``) and the joint
   rotation (``orient_axis`` about the joint axis), joint origins by ``locatenew`` and
   ``v2pt_theory``, mass centres likewise, ``RigidBody`` with ``inertia(...)`` about the mass
   centre, gravity as loads, ``KanesMethod(...).kanes_equations(bodies, loads)``, then
   ``mass_matrix`` and ``forcing``. Ten symbols per link, as a sympy user writes them
   (no assumptions): mass ``m``, **plain COM coordinates** ``cx, cy, cz`` in the link frame
   (not m·c: c = (m c)/m would put 1/m everywhere) and the six entries of the inertia about
   the COM. Timed with the URDF's numbers bound as well ("numeric"). ``count_ops`` of
   mass_matrix + forcing (skipped when the symbolic build took more than 60 s) and, with
   ``--cse``, the count after ``sympy.cse``.
2. **Verification** that this is the same arm: at a random state, with (a) the URDF's
   numbers (read here from ``UR5_URDF`` with ``xml.etree``, converted to lagdyn's barycentric
   parameters h = m c, I_O = I_C − m [c]ײ) and (b) random inertial parameters, Kane's mass
   matrix equals lagdyn's CRBA M, Kane's forcing equals −h (RNEA with q̈ = 0), and
   M_kane q̈ − forcing equals lagdyn's RNEA τ, each to 1e-9 relative (max-norm).
3. **lagdyn** with symbolic parameters (``ld.zoo.get("ur5", parameters="symbolic")``:
   ten barycentric symbols per link, m, m·c and the inertia about the link origin): chain
   construction, the recursive programs M (CRBA), h and τ (RNEA), the recursive
   (Christoffel-consistent) Coriolis program C, the skew proof on the programs
   (``is_skew_symmetric(route="recursive")``: an exact decision, the programs expanded on
   the torus with Ṁ by the chain rule, see ``lagdyn.recursive.proofs``; the sampled proof,
   exact arithmetic at random points, timed apart for comparison), and the exact skew proof
   on the closed form
   (``.M`` — which runs the canonical trig-polynomial derivation of M, Γ, C and g —, ``.C``
   and ``.L``, which the proof builds to share its encoding with the passivity proof, timed
   apart, then ``is_skew_symmetric()``).

Every timed run starts with sympy's cache cleared (``sympy.core.cache.clear_cache``); each
figure is the minimum of ``--repeat`` runs (default 2; 1 when a Kane run takes more than
30 s). Prints a Markdown table.

``--fresh`` (issue 25) measures instead what a user pays in a *fresh* Python process, one
child process per run, the two tools alternating, minimum of ``--repeat`` (wall and CPU
apart): KanesMethod (the model above, symbolic parameters) against lagdyn's chain from
the URDF, its M, h, τ and Coriolis programs and the exact skew proof on the programs
(the sampled proof is not run). Imports are excluded: a first child runs lagdyn's
workload once and lists the modules it imported; every timed lagdyn child imports those
before its clock starts (sympy's caches stay cold; the KanesMethod child has
``sympy.physics.mechanics`` imported, as the script does). Usage::

    python benchmarks/bench_ur5_kane.py [--repeat 2] [--cse]
    python benchmarks/bench_ur5_kane.py --fresh --repeat 5
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache
from sympy.physics import mechanics as me

import lagdyn as ld
from lagdyn.zoo.robots import UR5_URDF

KEYS = ("m", "cx", "cy", "cz", "ixx", "iyy", "izz", "ixy", "iyz", "ixz")


# ---------------------------------------------------------------------- KanesMethod model
def urdf_inertials() -> dict[str, dict[str, float]]:
    """Mass, COM and inertia about the COM of every link of ``UR5_URDF``, by link name."""
    root = ET.fromstring(UR5_URDF)
    out = {}
    for link in root.iter("link"):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        origin = inertial.find("origin")
        assert float(sum(abs(float(x)) for x in origin.get("rpy", "0 0 0").split())) == 0
        c = [float(x) for x in origin.get("xyz").split()]
        ine = inertial.find("inertia")
        vals = {"m": float(inertial.find("mass").get("value")), "cx": c[0], "cy": c[1]}
        vals["cz"] = c[2]
        vals.update({k: float(ine.get(k)) for k in KEYS[4:]})
        out[link.get("name")] = vals
    return out


def kane_symbols(n: int) -> list[dict[str, sp.Symbol]]:
    """Ten plain (assumption-free) symbols per link, as a sympy user writes them."""
    return [{k: sp.Symbol(f"{k}{i + 1}") for k in KEYS} for i in range(n)]


def kane_ur5(chain, values=None):
    """KanesMethod for the chain's kinematics; symbolic inertials unless ``values`` given.

    Returns ``(mass_matrix, forcing, q, u, link symbols, g)``.
    """
    n = chain.n
    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"u1:{n + 1}")
    g = sp.Symbol("g")
    syms = kane_symbols(n)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frames, origins, bodies, loads = [], [], [], []
    for i, link in enumerate(chain.links):
        parent_frame = frames[link.parent] if link.parent >= 0 else N
        parent_origin = origins[link.parent] if link.parent >= 0 else O
        RA, pA = link.pre
        assert (
            link.joint == "revolute"
            and link.post[0] == sp.eye(3)
            and link.post[1] == sp.zeros(3, 1)
        )
        if RA == sp.eye(3):
            J = parent_frame
        else:
            J = me.ReferenceFrame(f"J{i + 1}")
            J.orient_explicit(parent_frame, sp.Matrix(RA))  # parent.dcm(J) = RA
        L = me.ReferenceFrame(f"L{i + 1}")
        axis = link.axis[0] * J.x + link.axis[1] * J.y + link.axis[2] * J.z
        L.orient_axis(J, axis, q[i])
        L.set_ang_vel(J, u[i] * axis)
        P = parent_origin.locatenew(
            f"P{i + 1}", pA[0] * parent_frame.x + pA[1] * parent_frame.y + pA[2] * parent_frame.z
        )
        P.v2pt_theory(parent_origin, N, parent_frame)
        s = syms[i] if values is None else {k: sp.Float(v) for k, v in values[link.name].items()}
        G = P.locatenew(f"G{i + 1}", s["cx"] * L.x + s["cy"] * L.y + s["cz"] * L.z)
        G.v2pt_theory(P, N, L)
        I = me.inertia(L, s["ixx"], s["iyy"], s["izz"], s["ixy"], s["iyz"], s["ixz"])
        bodies.append(me.RigidBody(f"B{i + 1}", G, L, s["m"], (I, G)))
        loads.append((G, -s["m"] * g * N.z))
        frames.append(L)
        origins.append(P)
    kd = [qi.diff(me.dynamicsymbols._t) - ui for qi, ui in zip(q, u)]
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(bodies, loads)
    return kane.mass_matrix, kane.forcing, q, u, syms, g


# ---------------------------------------------------------------------- lagdyn
def lagdyn_run(
    skew: bool = True, sampled: bool = True
) -> tuple[dict[str, tuple[float, float]], object]:
    """One fresh symbolic UR5 and its pieces: ``{piece: (wall s, CPU s)}`` and the arm."""
    out = {}
    clock = [time.perf_counter(), time.process_time()]

    def lap(key):
        now = [time.perf_counter(), time.process_time()]
        out[key] = (now[0] - clock[0], now[1] - clock[1])
        clock[:] = now

    arm = ld.zoo.get("ur5", parameters="symbolic")
    lap("chain")
    for key in ("M", "h", "tau", "C"):
        arm.program(key)
        lap(f"prog {key}")
    proved = arm.is_skew_symmetric(route="recursive")
    lap("program skew proof")
    assert proved is True, proved
    if not sampled:
        return out, arm
    from lagdyn.recursive import proofs

    lap("-")  # (import)
    proved = proofs.prove(arm, ["skew"], method="sample").results["skew"]
    lap("sampled program skew proof")
    assert proved is True, proved
    if skew:
        _ = arm.M
        lap("closed M")
        _ = arm.C
        lap("closed C")
        _ = arm.L  # the skew proof registers L for the passivity proof; timed apart
        lap("closed L")
        proved = arm.is_skew_symmetric(route="closed")
        lap("skew proof")
        assert proved is True, proved
    return out, arm


# ---------------------------------------------------------------------- verification
def _rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def verify(arm, MM, forcing, q, u, syms, g, inertials, rng, label) -> float:
    """Largest relative difference of M, −h and τ between Kane and lagdyn at one state."""
    n = arm.n
    lsyms = {s.name: s for s in arm.parameters}
    kvals, lvals = {g: 9.81}, {lsyms["g"]: 9.81}
    for i, link in enumerate(arm.chain.links):
        v = inertials[link.name]
        m, c = v["m"], np.array([v["cx"], v["cy"], v["cz"]])
        Ic = np.array(
            [
                [v["ixx"], v["ixy"], v["ixz"]],
                [v["ixy"], v["iyy"], v["iyz"]],
                [v["ixz"], v["iyz"], v["izz"]],
            ]
        )
        S = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        Io = Ic - m * S @ S
        h = m * c
        for k in KEYS:
            kvals[syms[i][k]] = v[k]
        j = i + 1
        lvals.update({lsyms[f"M{j}"]: m, lsyms[f"MX{j}"]: h[0], lsyms[f"MY{j}"]: h[1]})
        lvals[lsyms[f"MZ{j}"]] = h[2]
        for name, (a, b) in zip(
            ("XX", "XY", "XZ", "YY", "YZ", "ZZ"), ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))
        ):
            lvals[lsyms[f"{name}{j}"]] = Io[a, b]
    qv, qdv, qddv = rng.uniform(-np.pi, np.pi, n), rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    sub = {sym: sp.Float(val, 17) for sym, val in kvals.items()}
    sub.update({qi: sp.Float(x, 17) for qi, x in zip(q, qv)})
    sub.update({ui: sp.Float(x, 17) for ui, x in zip(u, qdv)})
    Mk = np.array(MM.xreplace(sub).evalf(17).tolist(), dtype=float)
    fk = np.array(forcing.xreplace(sub).evalf(17).tolist(), dtype=float).ravel()
    Ml = arm.program("M").lambdify(lvals)(q=qv)
    hl = arm.program("h").lambdify(lvals)(q=qv, qd=qdv)
    taul = arm.program("tau").lambdify(lvals)(q=qv, qd=qdv, qdd=qddv)
    errs = (_rel(Mk, Ml), _rel(fk, -hl), _rel(Mk @ qddv - fk, taul))
    print(
        f"verify ({label}): rel. diff M {errs[0]:.1e}, forcing vs -h {errs[1]:.1e}, "
        f"M qdd - forcing vs tau {errs[2]:.1e}"
    )
    return max(errs)


def random_inertials(arm, rng) -> dict[str, dict[str, float]]:
    """Random physically plausible inertials (positive mass, COM, SPD inertia) per link."""
    out = {}
    for link in arm.chain.links:
        A = rng.normal(size=(3, 3))
        Ic = A @ A.T * 0.05 + np.eye(3) * 0.01
        c = rng.uniform(-0.3, 0.3, 3)
        out[link.name] = {
            "m": rng.uniform(0.5, 5),
            "cx": c[0],
            "cy": c[1],
            "cz": c[2],
            "ixx": Ic[0, 0],
            "iyy": Ic[1, 1],
            "izz": Ic[2, 2],
            "ixy": Ic[0, 1],
            "iyz": Ic[1, 2],
            "ixz": Ic[0, 2],
        }
    return out


# ---------------------------------------------------------------------- main
def _timed(fn):
    """(wall s, CPU s, result) of ``fn()`` with sympy's cache cleared first."""
    clear_cache()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


# ---------------------------------------------------------------------- fresh processes
def _fresh_child(tool: str, imports: str | None) -> dict[str, object]:
    """One run in this (fresh) process: KanesMethod, lagdyn, or the import probe."""
    if tool == "probe":
        before = set(sys.modules)
        lagdyn_run(skew=False, sampled=False)
        return {"modules": sorted(set(sys.modules) - before)}
    if tool == "kane":
        chain = ld.zoo.get("ur5").chain  # kinematics only, before the clock
        t0, c0 = time.perf_counter(), time.process_time()
        kane_ur5(chain)
        return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    import importlib

    with open(imports or "", encoding="utf-8") as f:
        for name in json.load(f):
            with contextlib.suppress(ImportError):  # (modules only their package imports)
                importlib.import_module(name)
    out, _ = lagdyn_run(skew=False, sampled=False)
    return {k: list(v) for k, v in out.items()}


def _child(tool: str, imports: str | None = None) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--child", tool]
    if imports:
        cmd += ["--imports", imports]
    res = subprocess.run(cmd, check=True, capture_output=True, text=True, env=os.environ)
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def fresh(repeat: int) -> None:
    """The issue-25 UR5 target: lagdyn (chain, M, h, τ, C programs, exact program skew
    proof) against KanesMethod, each in fresh processes, imports excluded."""
    print(
        f"fresh process per run, imports excluded, min of {repeat}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(_child("probe")["modules"], f)
        imports = f.name
    try:
        kane: list[tuple[float, float]] = []
        runs: list[dict[str, tuple[float, float]]] = []
        for _ in range(repeat):
            k = _child("kane")
            kane.append((float(k["wall"]), float(k["cpu"])))  # type: ignore[arg-type]
            r = _child("lagdyn", imports)
            runs.append({key: (float(v[0]), float(v[1])) for key, v in r.items()})  # type: ignore[index]
            print(
                f"KanesMethod {kane[-1][0]:.2f}/{kane[-1][1]:.2f} s; lagdyn (wall/CPU s): "
                + ", ".join(f"{key} {w:.3f}/{c:.3f}" for key, (w, c) in runs[-1].items()),
                flush=True,
            )
    finally:
        os.unlink(imports)
    keys = list(runs[0])
    best = {key: (min(r[key][0] for r in runs), min(r[key][1] for r in runs)) for key in keys}
    total = tuple(min(sum(r[key][j] for key in keys) for r in runs) for j in (0, 1))
    t_kane = (min(w for w, _ in kane), min(c for _, c in kane))
    print("\n| piece | wall s | CPU s |")
    print("| --- | --- | --- |")
    print(
        f"| KanesMethod, symbolic parameters (mass_matrix + forcing) | {t_kane[0]:.3f} | {t_kane[1]:.3f} |"
    )
    for key in keys:
        print(f"| lagdyn {key} | {best[key][0]:.3f} | {best[key][1]:.3f} |")
    print(
        f"| **lagdyn chain + M, h, τ, C programs + exact skew proof** | {total[0]:.3f} | {total[1]:.3f} |"
    )
    for j, what in ((0, "wall"), (1, "CPU")):
        print(f"{what}: Kane / lagdyn = {t_kane[j] / total[j]:.1f}× (target ≥ 10×)")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--cse", action="store_true", help="also count Kane's ops after sympy.cse")
    parser.add_argument("--fresh", action="store_true", help="issue-25 target, fresh processes")
    parser.add_argument("--child", choices=("kane", "lagdyn", "probe"), help=argparse.SUPPRESS)
    parser.add_argument("--imports", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_fresh_child(args.child, args.imports)))
        return
    if args.fresh:
        fresh(args.repeat)
        return
    chain = ld.zoo.get("ur5").chain  # kinematics only (the placements, axes)
    inertials = urdf_inertials()

    # 1. KanesMethod
    kane_sym, kane_num, kane_out = [], [], None
    for _ in range(args.repeat):
        wall, cpu, kane_out = _timed(lambda: kane_ur5(chain))
        kane_sym.append((wall, cpu))
        print(f"KanesMethod symbolic: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
        if wall > 30:
            break
    for _ in range(args.repeat):
        wall, cpu, _unused = _timed(lambda: kane_ur5(chain, inertials))
        kane_num.append((wall, cpu))
        print(f"KanesMethod numeric: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
        if wall > 30:
            break
    t_kane = min(w for w, _ in kane_sym), min(c for _, c in kane_sym)
    t_num = min(w for w, _ in kane_num), min(c for _, c in kane_num)
    MM, forcing, q, u, syms, g = kane_out
    ops_kane = cse_kane = None
    if t_kane[0] < 60:
        t0 = time.perf_counter()
        ops_kane = int(sum(sp.count_ops(e) for e in MM) + sum(sp.count_ops(e) for e in forcing))
        print(f"count_ops(mass_matrix + forcing) = {ops_kane} ({time.perf_counter() - t0:.1f} s)")
    if args.cse:
        t0 = time.perf_counter()
        repl, red = sp.cse(list(MM) + list(forcing), order="none")
        cse_kane = int(sum(sp.count_ops(e) for _, e in repl) + sum(sp.count_ops(e) for e in red))
        print(f"after sympy.cse: {cse_kane} ({time.perf_counter() - t0:.1f} s)")

    # 3. lagdyn
    runs = []
    for _ in range(args.repeat):
        _w, _c, (out, arm) = _timed(lagdyn_run)
        runs.append(out)
        print(
            "lagdyn (wall/CPU s): " + ", ".join(f"{k} {w:.3f}/{c:.3f}" for k, (w, c) in out.items())
        )
    keys = list(runs[0])
    best = {k: (min(r[k][0] for r in runs), min(r[k][1] for r in runs)) for k in keys}
    rec_keys = ("chain", "prog M", "prog h", "prog tau")
    skew_keys = ("closed M", "closed C", "closed L", "skew proof")

    def total(group):
        return tuple(min(sum(r[k][j] for k in group) for r in runs) for j in (0, 1))

    rec = total(rec_keys)
    rec_skew = total(rec_keys + skew_keys)
    rec_all = total((*rec_keys, "prog C", *skew_keys))
    rec_prog = total((*rec_keys, "prog C", "program skew proof"))
    ops = {k: arm.program(k).count_ops() for k in ("M", "h", "tau", "C")}

    # 2. verification
    rng = np.random.default_rng(12)
    err = max(
        verify(arm, MM, forcing, q, u, syms, g, inertials, rng, "URDF numbers"),
        verify(
            arm, MM, forcing, q, u, syms, g, random_inertials(arm, rng), rng, "random inertials"
        ),
    )
    assert err < 1e-9, err

    # table
    def cells(t):
        return f"{t[0]:.3f} | {t[1]:.3f}"

    ops_cell = "skipped (> 60 s)" if ops_kane is None else f"{ops_kane} (no CSE)"
    if cse_kane is not None:
        ops_cell += f", {cse_kane} after `sympy.cse`"
    print("\n| piece | wall s | CPU s | ops |")
    print("| --- | --- | --- | --- |")
    print(
        f"| KanesMethod, symbolic parameters (mass_matrix + forcing) | {cells(t_kane)} | {ops_cell} |"
    )
    print(f"| KanesMethod, URDF numbers bound | {cells(t_num)} | |")
    labels = {
        "chain": 'lagdyn chain construction (`ld.zoo.get("ur5", parameters="symbolic")`)',
        "prog M": "lagdyn M program (CRBA)",
        "prog h": "lagdyn h program (RNEA, q̈ = 0)",
        "prog tau": "lagdyn τ program (RNEA)",
        "prog C": "lagdyn recursive Coriolis program C",
        "closed M": "lagdyn closed-form M (Jacobians + canonical derivation of M, Γ, C, g)",
        "closed C": "lagdyn closed-form C (rest of `.C`)",
        "closed L": "lagdyn closed-form L = ½q̇ᵀMq̇ − V (built by the skew proof)",
        "skew proof": 'lagdyn `is_skew_symmetric(route="closed")` (after M, C, L)',
        "program skew proof": 'lagdyn `is_skew_symmetric(route="recursive")` (CRBA M, recursive C; exact decision: programs expanded on the torus, Ṁ by the chain rule on the expanded M)',
        "sampled program skew proof": 'lagdyn `prove(arm, ["skew"], method="sample")` (exact arithmetic at random points, error < 2^-100; for comparison)',
    }
    opk = {"prog M": "M", "prog h": "h", "prog tau": "tau", "prog C": "C"}
    for k in keys:
        if k == "-":
            continue
        op = f"{ops[opk[k]]} (after CSE)" if k in opk else ""
        print(f"| {labels[k]} | {cells(best[k])} | {op} |")
    print(f"| **lagdyn chain + M + h + τ programs** (A) | {cells(rec)} | |")
    print(f"| **A + closed-form M, C + skew proof** (B) | {cells(rec_skew)} | |")
    print(f"| B + recursive C program | {cells(rec_all)} | |")
    print(f"| **A + recursive C program + its exact skew proof** (R) | {cells(rec_prog)} | |")
    for j, what in ((0, "wall"), (1, "CPU")):
        print(
            f"\n{what}: Kane / A = {t_kane[j] / rec[j]:.1f}×; Kane / B = {t_kane[j] / rec_skew[j]:.1f}×; "
            f"Kane / (B + recursive C) = {t_kane[j] / rec_all[j]:.1f}×; "
            f"Kane / R = {t_kane[j] / rec_prog[j]:.1f}×  (target ≥ 10×)"
        )
    print(f"\nverification: largest relative difference {err:.1e} (≤ 1e-9)")


if __name__ == "__main__":
    main()

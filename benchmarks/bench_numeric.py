"""Numeric speed: lagdyn's generated models against the peers a user would pick.

Double pendulum (absolute angles) and a 6-link pendulum in joint angles, forward
dynamics, all in one process:

* sympy.lambdify(cse=True) of KanesMethod's mass matrix and forcing + np.linalg.solve;
* a hand-written numpy closed form (Cramer's rule, double pendulum);
* PyDy's generated rhs and Pinocchio's ``aba`` when installed;
* lagdyn numpy, lagdyn C on 1 and 2 threads, numba and JAX when installed;
* one-state calls of every NumericModel method on the numpy and C paths.

Run ``python benchmarks/bench_numeric.py [--write]``; ``--write`` replaces the
"## Numerics (bench_numeric.py)" section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from sympy.physics import mechanics as me

import lagdyn as ld
from lagdyn.numeric import lambdify

N = 100_000
HERE = Path(__file__).resolve().parent


def n_link_pendulum(n: int) -> ld.LagrangianSystem:
    """Point masses on massless rods in joint angles (the zoo's model)."""
    return ld.zoo.n_link_pendulum(n, coordinates="relative")


def kane_lambdified(n: int, params: dict[str, float]):
    """sympy.lambdify(cse=True) of KanesMethod output for the n-link chain (joint angles)."""
    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"u1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}")
    ln = sp.symbols(f"l1:{n + 1}")
    g = sp.Symbol("g")
    N_ = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N_, 0)
    particles, loads = [], []
    prev_frame, prev_point = N_, O
    kd = []
    for i in range(n):
        Fi = prev_frame.orientnew(f"F{i}", "Axis", [q[i], prev_frame.z])
        Fi.set_ang_vel(prev_frame, u[i] * prev_frame.z)
        Pi = prev_point.locatenew(f"P{i}", -ln[i] * Fi.y)
        Pi.v2pt_theory(prev_point, N_, Fi)
        particles.append(me.Particle(f"pa{i}", Pi, m[i]))
        loads.append((Pi, -m[i] * g * N_.y))
        kd.append(q[i].diff() - u[i])
        prev_frame, prev_point = Fi, Pi
    km = me.KanesMethod(N_, q_ind=q, u_ind=u, kd_eqs=kd)
    km.kanes_equations(particles, loads)
    subs = {s: params[str(s)] for s in (*m, *ln, g)}
    MM = km.mass_matrix.subs(subs)
    F = km.forcing.subs(subs).subs({q[i].diff(): u[i] for i in range(n)})
    qs = sp.symbols(f"x0:{n}")
    us = sp.symbols(f"v0:{n}")
    rep = {**dict(zip(u, us)), **dict(zip(q, qs))}
    MM = MM.xreplace(rep)
    F = F.xreplace(rep)
    # a flat list: lambdify(cse=True) silently skips CSE on a list of lists
    f = sp.lambdify([qs, us], [*MM, *F], cse=True, modules="numpy")

    def fd_batched(qb, ub):
        vals = f(qb.T, ub.T)
        B = qb.shape[0]
        arr = np.empty((B, n * n + n))
        for i, v in enumerate(vals):
            arr[:, i] = v  # constant entries come back as Python floats: broadcast by hand
        Mv = arr[:, : n * n].reshape(B, n, n)
        return np.linalg.solve(Mv, arr[:, n * n :, None])[..., 0]

    def fd_one(q1, u1):
        vals = f(q1, u1)
        Mv = np.array(vals[: n * n], float).reshape(n, n)
        return np.linalg.solve(Mv, np.array(vals[n * n :], float))

    return fd_batched, fd_one


def pinocchio_chain(n: int, g: float):
    """Pinocchio model of the n-link pendulum in joint angles (unit point masses and rods,
    revolute z joints, gravity along −y, angle 0 hanging down), or None if not installed."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -g, 0.0])
    parent, placement = 0, pin.SE3.Identity()
    for i in range(n):
        jid = model.addJoint(parent, pin.JointModelRZ(), placement, f"joint{i + 1}")
        mass = pin.Inertia(1.0, np.array([0.0, -1.0, 0.0]), np.zeros((3, 3)))
        model.appendBodyToJoint(jid, mass, pin.SE3.Identity())
        parent, placement = jid, pin.SE3(np.eye(3), np.array([0.0, -1.0, 0.0]))
    data = model.createData()
    return lambda q, v, tau: pin.aba(model, data, q, v, tau)


def cramer_dp(q, qd, m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=10.0):
    """Hand-written numpy closed form of the double pendulum (absolute angles)."""
    a, b = q[..., 0], q[..., 1]
    va, vb = qd[..., 0], qd[..., 1]
    d = a - b
    c, s = np.cos(d), np.sin(d)
    m11 = (m1 + m2) * l1 * l1
    m12 = m2 * l1 * l2 * c
    m22 = m2 * l2 * l2
    r1 = -m2 * l1 * l2 * s * vb * vb - (m1 + m2) * g * l1 * np.sin(a)
    r2 = m2 * l1 * l2 * s * va * va - m2 * g * l2 * np.sin(b)
    det = m11 * m22 - m12 * m12
    return np.stack([(m22 * r1 - m12 * r2) / det, (m11 * r2 - m12 * r1) / det], axis=-1)


def rate(f, *args, number=5, repeat=5) -> float:
    """States per second of a batched call (best of repeats)."""
    f(*args)
    best = min(timeit.repeat(lambda: f(*args), number=number, repeat=repeat)) / number
    return args[0].shape[0] / best


def one_call_us(f, *args, number=20000, repeat=7) -> float:
    f(*args)
    return min(timeit.repeat(lambda: f(*args), number=number, repeat=repeat)) / number * 1e6


METHODS = ("M", "C", "g", "energy", "bias", "forward_dynamics", "inverse_dynamics")


def single_calls(model, q0, qd0) -> dict[str, float]:
    """Best-of µs per one-state call of every method."""
    args = {"M": (q0,), "g": (q0,), "inverse_dynamics": (q0, qd0, qd0)}
    return {
        m: one_call_us(getattr(model, m), *args.get(m, (q0, qd0)), number=2000, repeat=5)
        for m in METHODS
    }


def cold_hit_subprocess(which: str, backend: str, cache_dir: str) -> float:
    """Seconds for lambdify on a cache hit, in a fresh process (system derived first)."""
    code = f"""
import sys, time
sys.path.insert(0, {str(HERE)!r})
import bench_numeric as b, lagdyn as ld
s = ld.zoo.double_pendulum() if {which!r} == "dp" else b.n_link_pendulum(6)
s.M; s.C; s.g; s.energy; s.b; s.U
from lagdyn.numeric import lambdify
t0 = time.perf_counter()
lambdify(s, s.defaults, backend={backend!r}, cache_dir={cache_dir!r})
print(time.perf_counter() - t0)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> list[str]:
    notes: list[str] = []
    rng = np.random.default_rng(0)
    systems = {"dp": ld.zoo.double_pendulum(), "six": n_link_pendulum(6)}
    res: dict[str, dict[str, str]] = {"dp": {}, "six": {}}
    single: dict[str, dict[str, dict[str, float]]] = {"numpy": {}, "C": {}}
    gen: dict[str, dict[str, str]] = {"dp": {}, "six": {}}
    num_models: dict[str, Any] = {}
    for key, s in systems.items():
        n = s.n
        _ = (s.M, s.C, s.g, s.energy)  # derivation is not what this benchmark measures
        q = rng.uniform(-2, 2, (N, n))
        qd = rng.uniform(-2, 2, (N, n))
        q0, qd0 = q[0].copy(), qd[0].copy()
        cache = tempfile.mkdtemp(prefix="lagdyn-bench-")
        t0 = time.perf_counter()
        num = lambdify(s, s.defaults, cache=False)
        num_models[key] = num
        gen[key]["numpy lambdify (no cache)"] = f"{time.perf_counter() - t0:.2f} s"
        ref = num.forward_dynamics(q, qd)
        res[key]["lagdyn numpy, batched"] = f"{rate(num.forward_dynamics, q, qd) / 1e6:.1f} M/s"
        res[key]["lagdyn numpy (`math` code), one call"] = (
            f"{one_call_us(num.forward_dynamics, q0, qd0, number=2000 if n > 2 else 20000):.2f} µs"
        )
        single["numpy"][key] = single_calls(num, q0, qd0)
        try:
            t0 = time.perf_counter()
            c1 = lambdify(s, s.defaults, backend="c", cache_dir=cache, threads=1)
            gen[key]["C cold build"] = f"{time.perf_counter() - t0:.2f} s"
            t0 = time.perf_counter()
            c2 = lambdify(s, s.defaults, backend="c", cache_dir=cache, threads=2)
            gen[key]["C cache hit (same process)"] = f"{(time.perf_counter() - t0) * 1e3:.1f} ms"
            gen[key]["C cache hit (fresh process)"] = (
                f"{cold_hit_subprocess(key, 'c', cache) * 1e3:.1f} ms"
            )
            err = np.abs(c1.forward_dynamics(q, qd) - ref).max() / np.abs(ref).max()
            notes.append(f"{key}: C vs numpy max rel diff {err:.1e}")
            res[key]["lagdyn C, batched, 1 thread"] = (
                f"{rate(c1.forward_dynamics, q, qd, number=20) / 1e6:.1f} M/s"
            )
            res[key]["lagdyn C, batched, 2 threads"] = (
                f"{rate(c2.forward_dynamics, q, qd, number=20) / 1e6:.1f} M/s"
            )
            res[key]["lagdyn C, one call"] = f"{one_call_us(c1.forward_dynamics, q0, qd0):.2f} µs"
            single["C"][key] = single_calls(c1, q0, qd0)
        except ld.BackendUnavailableError as exc:
            res[key]["lagdyn C"] = f"unavailable: {exc}"
        for bname in ("numba", "jax"):
            try:
                t0 = time.perf_counter()
                other = lambdify(s, s.defaults, backend=bname, cache=False)
                other.forward_dynamics(q[:10], qd[:10])  # jit compilation
                gen[key][f"{bname} lambdify + first call"] = f"{time.perf_counter() - t0:.2f} s"
                err = np.abs(other.forward_dynamics(q, qd) - ref).max() / np.abs(ref).max()
                notes.append(f"{key}: {bname} vs numpy max rel diff {err:.1e}")
                res[key][f"lagdyn {bname}, batched, 1 thread"] = (
                    f"{rate(other.forward_dynamics, q, qd, number=5) / 1e6:.1f} M/s"
                )
                res[key][f"lagdyn {bname}, one call"] = (
                    f"{one_call_us(other.forward_dynamics, q0, qd0, number=2000):.2f} µs"
                )
            except ld.BackendUnavailableError:
                notes.append(f"{bname}: not installed")
        params = {str(k): v for k, v in s.defaults.items()}
        if key == "dp":
            params = {"m1": 1.0, "m2": 1.0, "l1": 1.0, "l2": 1.0, "g": 10.0}
            err = np.abs(cramer_dp(q, qd) - ref).max()
            notes.append(f"dp: hand-written Cramer vs lagdyn max abs diff {err:.1e}")
            res[key]["hand-written numpy Cramer, batched"] = (
                f"{rate(cramer_dp, q, qd) / 1e6:.1f} M/s"
            )
            res[key]["hand-written numpy Cramer, one call"] = (
                f"{one_call_us(cramer_dp, q0, qd0):.2f} µs"
            )
        try:
            t0 = time.perf_counter()
            kb, k1 = kane_lambdified(n, params)
            gen[key]["KanesMethod + sympy.lambdify(cse=True)"] = f"{time.perf_counter() - t0:.2f} s"
            if key == "dp":  # Kane's chain uses joint angles; compare in absolute angles for dp
                qk = np.stack([q[:, 0], q[:, 1] - q[:, 0]], -1)
                uk = np.stack([qd[:, 0], qd[:, 1] - qd[:, 0]], -1)
            else:
                qk, uk = q, qd
            kq = kb(qk[:100], uk[:100])
            if key == "dp":
                kq = np.stack([kq[:, 0], kq[:, 0] + kq[:, 1]], -1)
            notes.append(
                f"{key}: Kane + lambdify vs lagdyn max abs diff {np.abs(kq - ref[:100]).max():.1e}"
            )
            res[key]["sympy.lambdify(cse=True) of Kane + solve, batched"] = (
                f"{rate(kb, qk, uk, number=2, repeat=3) / 1e6:.2f} M/s"
            )
            res[key]["sympy.lambdify(cse=True) of Kane + solve, one call"] = (
                f"{one_call_us(k1, qk[0], uk[0], number=500, repeat=5):.1f} µs"
            )
        except Exception as exc:  # a peer failing must not stop the benchmark
            res[key]["sympy.lambdify of Kane"] = f"failed: {type(exc).__name__}: {exc}"
    for key, s in systems.items():  # Pinocchio's aba, in joint angles
        n = s.n
        aba = pinocchio_chain(n, 10.0 if key == "dp" else 9.81)
        if aba is None:
            notes.append("Pinocchio: not installed")
            break
        qj = rng.uniform(-2, 2, (2000, n))
        vj = rng.uniform(-2, 2, (2000, n))
        tj = rng.uniform(-1, 1, (2000, n))
        if key == "dp":  # lagdyn's dp is in absolute angles: compare through the joint map
            qa, va = np.cumsum(qj, -1), np.cumsum(vj, -1)
            ta = np.stack([tj[:, 0] - tj[:, 1], tj[:, 1]], -1)  # τ_abs = A⁻ᵀ τ_joint
            ours = num_models[key].forward_dynamics(qa, va, ta)
            ours = np.stack([ours[:, 0], ours[:, 1] - ours[:, 0]], -1)
        else:
            ours = num_models[key].forward_dynamics(qj, vj, tj)
        theirs = np.array([aba(qj[i], vj[i], tj[i]) for i in range(len(qj))])
        notes.append(
            f"{key}: Pinocchio aba vs lagdyn max abs diff {np.abs(theirs - ours).max():.1e}"
        )
        q1, v1, t1 = qj[0].copy(), vj[0].copy(), tj[0].copy()
        res[key]["Pinocchio aba, one call from Python"] = f"{one_call_us(aba, q1, v1, t1):.2f} µs"

        def loop(qs=qj, vs=vj, ts=tj, f=aba):
            for i in range(len(qs)):
                f(qs[i], vs[i], ts[i])

        best = min(timeit.repeat(loop, number=1, repeat=5))
        res[key]["Pinocchio aba in a Python loop"] = f"{len(qj) / best / 1e6:.2f} M/s"
    try:
        __import__("pydy")
        notes.append("PyDy: installed but not wired into this benchmark yet")
    except ImportError:
        notes.append("PyDy: not installed")
    labels = list(dict.fromkeys([*res["dp"], *res["six"]]))
    lines = ["| forward dynamics | double pendulum | 6-link |", "| --- | --- | --- |"]
    for lab in labels:
        lines.append(f"| {lab} | {res['dp'].get(lab, '–')} | {res['six'].get(lab, '–')} |")
    lines += ["", "| generation | double pendulum | 6-link |", "| --- | --- | --- |"]
    for lab in dict.fromkeys([*gen["dp"], *gen["six"]]):
        lines.append(f"| {lab} | {gen['dp'].get(lab, '–')} | {gen['six'].get(lab, '–')} |")
    lines += [
        "",
        "| one call, µs | " + " | ".join(METHODS) + " |",
        "| --- |" + " --- |" * len(METHODS),
    ]
    for bname, per in single.items():
        for key, label in (("dp", "double pendulum"), ("six", "6-link")):
            if key in per:
                lines.append(
                    f"| {bname}, {label} | "
                    + " | ".join(f"{per[key][m]:.2f}" for m in METHODS)
                    + " |"
                )
    lines += ["", *[f"- {x}" for x in notes]]
    return lines


def write_results(lines: list[str]) -> None:
    path = HERE / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    head = "## Numerics (bench_numeric.py)"
    env = (
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, sympy {sp.__version__}; N = {N:,} states for batched figures; "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}. Shared machine: other "
        "jobs were running, so figures (2-thread ones especially) are noisy lower bounds. "
        f"Load average at the start: {os.getloadavg()[0]:.1f}."
    )
    section = f"{head}\n\n{env}\n\n" + "\n".join(lines) + "\n"
    pattern = re.compile(rf"{re.escape(head)}\n.*?(?=\n## |\Z)", re.S)
    if pattern.search(text):
        text = pattern.sub(section.rstrip("\n"), text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


if __name__ == "__main__":
    out = main()
    print("\n".join(out))
    if "--write" in sys.argv:
        write_results(out)

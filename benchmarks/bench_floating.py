"""Floating-base quadrupeds (issue 26): generated C, one call, against Pinocchio's free flyer.

Usage: ``python benchmarks/bench_floating.py [--robot solo12|go1|anymal|talos_legs|both|targets]
[--cse] [--forward aba|crba] [--kernels M,bias,forward_dynamics]``; ``--robot targets``: the
issue's three targets (Solo12, Talos' legs, Go1; kernels forward_dynamics, inverse_dynamics,
M; ratios against Pinocchio's aba, rnea, crba in one C++ program, target ≤ 0.5, summary
table at the end); ``--contacts [--batch 4096]``:
only forward dynamics with four point contacts on the feet for a batch of states in one call
(the fused generated kernel, and the numpy KKT path) against ``pin.constraintDynamics`` in a
Python loop, per-state cost printed (the issue's target: ≥ 10×).

For each robot (example-robot-data, numeric parameters, g = 9.81): the build time of the
chain (``from_urdf``), of the programs (``floating_program``: M, C, g, h, inverse and forward
dynamics, joint CSE) and of the C module (print + compile; no disk cache), the operations
per kernel, then the time of one call of each generated C kernel — its METH_FASTCALL entry
``f(q, v, x, t)`` with float64 arrays, the entry :class:`~lagdyn.robot.floating.FloatingModel`
uses, and per state in a batch of 10⁴ (one thread: the C cost without Python) — against
Pinocchio's ``aba``, ``rnea``, ``crba``, ``nonLinearEffects`` and
``computeCoriolisMatrix`` called from Python in the same process (both sides pay one Python
call). Values are checked against Pinocchio first (relative error printed).

The robots come from :mod:`lagdyn.zoo.legged` (``talos_legs``: Talos with every joint
but ``leg_*`` locked at q = 0; Pinocchio's side is the same URDF reduced by
``buildReducedModel`` at its neutral configuration, q = 0 for those revolute joints).

The fair comparison: with ``benchmarks/_pinocchio_cpp.py`` (Pinocchio instantiated from its
C++ headers), lagdyn's exported C (:func:`lagdyn.codegen.c.export_files` of the same
program, compiled by gcc with the harness's flags) and Pinocchio are timed in one C++
program, the same loop over 64 random states, after that program has checked, state by
state, lagdyn's C output against Pinocchio's (``ddq``, ``tau``, the upper triangle of ``M``;
the largest relative difference is printed and a mismatch stops the benchmark); without it
only the Python-level timings are
printed (and the output says so). Always: lagdyn's exported C timed in a C program of its own
(``pure C µs``, the same loop, no Python), its ratio taken against Pinocchio's Python call
(which includes about a microsecond of binding).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import timeit
from functools import partial
from pathlib import Path

import numpy as np
import sympy as sp

import lagdyn as ld
from lagdyn.numeric import backends
from lagdyn.recursive.floating import floating_program
from lagdyn.robot._data import urdf_path

ROBOTS = {"solo12": ("solo_description", "solo12.urdf"), "go1": ("go1_description", "go1.urdf")}
PIN = {
    "forward_dynamics": "aba",
    "inverse_dynamics": "rnea",
    "M": "crba",
    "bias": "nonLinearEffects",
    "C": "computeCoriolisMatrix",
}


def _models(name):
    """(lagdyn's FloatingRobot, Pinocchio's model) of zoo entry ``name``: the same URDF, the
    same locked joints (``talos_legs``: all but ``leg_*``, at q = 0)."""
    import pinocchio as pin

    from lagdyn.zoo.legged import SOURCES

    robot = ld.zoo.get(name)
    model = pin.buildModelFromUrdf(str(urdf_path(*SOURCES[name])), pin.JointModelFreeFlyer())
    if name == "talos_legs":
        lock = [model.getJointId(j) for j in list(model.names)[2:] if not j.startswith("leg_")]
        model = pin.buildReducedModel(model, lock, pin.neutral(model))
    if tuple(model.names)[2:] != robot.joint_names:
        raise SystemExit(f"{name}: lagdyn's joints are not Pinocchio's")
    return robot, model


def _min_us(fn, number, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def _ops(kernel):
    return int(
        sum(sp.count_ops(e) for _, e in kernel.body) + sum(sp.count_ops(e) for e in kernel.outputs)
    )


def _cpp_timings(model, prog, robot, kernels):
    """Pinocchio (C++, from its headers) and lagdyn's exported C in one C++ program, timed
    by helper C's harness (``benchmarks/_pinocchio_cpp.py``), or None when it is absent."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import _pinocchio_cpp as pcpp  # type: ignore[import-not-found]
    except ImportError:
        return None
    from lagdyn.codegen.c import export_files

    third = {"forward_dynamics": "AP", "inverse_dynamics": "AP"}
    with tempfile.TemporaryDirectory() as tmp:
        files = export_files(prog, "lagdyn")
        stem = Path(tmp) / "lagdyn_floating"
        src = files["lagdyn.c"].replace('#include "lagdyn.h"', f'#include "{stem}.h"')
        Path(f"{stem}.h").write_text(files["lagdyn.h"])
        Path(f"{stem}.c").write_text(src)
        subprocess.run(
            ["gcc", *pcpp.FLAGS, "-std=c99", "-c", f"{stem}.c", "-o", f"{stem}.o"], check=True
        )
        decls, calls = [], []
        for kname in kernels:
            k = prog.kernels[kname]
            decls.append(
                f'extern "C" void lagdyn_{kname}('
                + ", ".join("double" if vec == "t" else "const double *" for vec in k.inputs)
                + ", double *);"
            )
            args = []
            for vec in k.inputs:
                args.append(
                    {"q": "Q[k].data()", "qd": "VP[k].data()", "params": "nullptr", "t": "0.0"}.get(
                        vec, f"{third.get(kname, 'AP')}[k].data()"
                    )
                )
            calls.append(
                f'TIME("lagdyn:{kname}", (lagdyn_{kname}({", ".join(args)}, out), sink += out[0]));'
            )
        # lagdyn's per-state vectors have nq entries: v and a padded with one zero
        padded = (
            "std::vector<Eigen::VectorXd> VP(NS), AP(NS);\n"
            "for (int k = 0; k < NS; ++k) {\n"
            f"  VP[k] = Eigen::VectorXd::Zero({robot.nq}); AP[k] = Eigen::VectorXd::Zero({robot.nq});\n"
            f"  VP[k].head({robot.nv}) = V[k]; AP[k].head({robot.nv}) = A[k];\n"
            "}\n"
        )
        parts = pcpp.harness(model)
        algos = [PIN[k] for k in kernels]
        body = _cpp_checks(prog, kernels, calls=parts["calls"], nv=robot.nv)
        body += "\n".join(f'TIME("{a}", {parts["calls"][a]});' for a in algos)
        source = (
            parts["includes"]
            + "\n".join(decls)
            + "\n#define ITERS 20000\n#define REPEATS 7\n"
            + parts["timing"]
            + "\nint main() {\n"
            + parts["states"]
            + padded
            + body
            + "\n"
            + "\n".join(calls)
            + '\nstd::printf("sink %f\\n", (double)sink);\nreturn 0;\n}\n'
        )
        try:
            return pcpp.build_and_run(source, parts["model"], [f"{stem}.o"])
        except Exception as exc:  # report, never hide, a harness failure
            print(f"  C++ harness failed: {str(exc)[-2000:]}")
            return None


_PIN_OUT = {
    "forward_dynamics": ("data.ddq", "i < NV", "i"),
    "inverse_dynamics": ("data.tau", "i < NV", "i"),
    "bias": ("data.nle", "i < NV", "i"),
    # crba fills the upper triangle; lagdyn's M is the full row-major matrix
    "M": ("data.M", "r <= c", "r * NV + c"),
    "C": ("data.C", "1", "r * NV + c"),
}


def _cpp_checks(prog, kernels, *, calls, nv):
    """C++ statements comparing, over the 64 states, lagdyn's C output with Pinocchio's
    result at the same state; prints ``check:KERNEL max-relative-difference``."""
    lines = ["static double out[4096];", f"const int NV = {nv};"]
    for kname in kernels:
        k = prog.kernels[kname]
        args = [
            {"q": "Q[k].data()", "qd": "VP[k].data()", "params": "nullptr", "t": "0.0"}.get(
                vec, "AP[k].data()"
            )
            for vec in k.inputs
        ]
        ref, cond, idx = _PIN_OUT[kname]
        if kname in ("M", "C"):
            loop = (
                f"for (int r = 0; r < NV; ++r) for (int c = 0; c < NV; ++c) if ({cond}) {{"
                f" double d = std::abs(out[{idx}] - {ref}(r, c)); if (d > err) err = d;"
                f" if (std::abs({ref}(r, c)) > scale) scale = std::abs({ref}(r, c)); }}"
            )
        else:
            loop = (
                f"for (int i = 0; i < NV; ++i) {{ double d = std::abs(out[{idx}] - {ref}[i]);"
                f" if (d > err) err = d; if (std::abs({ref}[i]) > scale) scale = "
                f"std::abs({ref}[i]); }}"
            )
        lines.append(
            "{ double worst = 0; for (int k = 0; k < NS; ++k) { "
            f"lagdyn_{kname}({', '.join(args)}, out); {calls[PIN[kname]]} "
            f"double err = 0, scale = 1; {loop} if (err / scale > worst) worst = err / scale; }}"
            f' std::printf("check:{kname} %.3e\\n", worst); }}'
        )
    return "\n".join(lines) + "\n"


FLAGS = ["-O3", "-march=native", "-fno-math-errno", "-DNDEBUG"]  # _pinocchio_cpp.FLAGS


def _pure_c_timings(prog, robot, kernels, states):
    """µs per call of lagdyn's exported C, timed in C (no Python): one C program looping
    over the 64 ``states`` ((q, v, a), v and a padded to nq), minimum of 7 repeats."""
    from lagdyn.codegen.c import export_files

    nq = robot.nq

    def arr(name, rows):
        flat = ", ".join(repr(float(x)) for row in rows for x in row)
        return f"static const double {name}[{len(rows)}][{nq}] = {{{flat}}};"

    pad = [np.r_[x, np.zeros(nq - len(x))] for _, x, _ in states]
    pada = [np.r_[x, np.zeros(nq - len(x))] for _, _, x in states]
    lines = [
        '#include <stdio.h>\n#include <time.h>\n#include "lagdyn.h"',
        arr("Q", [q for q, _, _ in states]),
        arr("V", pad),
        arr("A", pada),
        "static volatile double sink;",
        "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); "
        "return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }",
        "int main(void) {\n  static double out[4096];",
    ]
    for kname in kernels:
        k = prog.kernels[kname]
        args = [
            {"q": "Q[i % 64]", "qd": "V[i % 64]", "params": "0", "t": "0.0"}.get(vec, "A[i % 64]")
            for vec in k.inputs
        ]
        lines.append(
            "  { double best = 1e300; for (int r = 0; r < 7; ++r) { double t0 = now();\n"
            f"    for (long i = 0; i < 20000; ++i) {{ lagdyn_{kname}({', '.join(args)}, out); "
            "sink += out[0]; }\n"
            "    double us = (now() - t0) / 20000; if (us < best) best = us; }\n"
            f'    printf("{kname} %.6f\\n", best); }}'
        )
    lines.append("  return 0;\n}")
    with tempfile.TemporaryDirectory() as tmp:
        files = export_files(prog, "lagdyn")
        for fname, text in files.items():
            (Path(tmp) / fname).write_text(text)
        (Path(tmp) / "main.c").write_text("\n".join(lines))
        exe = Path(tmp) / "bench"
        subprocess.run(
            [
                "gcc",
                *FLAGS,
                "-std=gnu99",
                "-I",
                tmp,
                str(Path(tmp) / "main.c"),
                str(Path(tmp) / "lagdyn.c"),
                "-o",
                str(exe),
                "-lm",
            ],
            check=True,
        )
        run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return {ln.rsplit(" ", 1)[0]: float(ln.rsplit(" ", 1)[1]) for ln in run.stdout.splitlines()}


def bench(name, *, cse=True, forward="aba", kernels=None, with_cpp=True):
    import pinocchio as pin

    start = time.perf_counter()
    robot, model = _models(name)
    t_chain = time.perf_counter() - start
    start = time.perf_counter()
    prog = floating_program(
        robot.base, {"g": 9.81}, forward=forward, cse=cse, outputs_wanted=kernels
    )
    t_prog = time.perf_counter() - start
    start = time.perf_counter()
    kernels = backends.get("c").build(lambda: prog, f"bench-floating-{name}-{time.time()}", None)
    t_c = time.perf_counter() - start
    total = t_chain + t_prog + t_c
    print(
        f"{name}: nq = {robot.nq}, nv = {robot.nv}; build: chain (and Pinocchio's model) "
        f"{t_chain:.2f} s, programs "
        f"{t_prog:.1f} s (CSE {'on' if cse else 'off'}), C print + compile {t_c:.1f} s; "
        f"total {total:.1f} s (target < 30 s)"
    )
    print("  operations: " + ", ".join(f"{k} {_ops(v)}" for k, v in prog.kernels.items()))
    fast = kernels.array_functions()
    data = model.createData()
    rng = np.random.default_rng(0)
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    pad = np.zeros(robot.nq)
    vp, ap = pad.copy(), pad.copy()
    vp[: robot.nv], ap[: robot.nv] = v, a
    args = {
        "forward_dynamics": ((q, vp, ap, 0.0), (model, data, q, v, a)),
        "inverse_dynamics": ((q, vp, ap, 0.0), (model, data, q, v, a)),
        "M": ((q, pad, pad, 0.0), (model, data, q)),
        "bias": ((q, vp, pad, 0.0), (model, data, q, v)),
        "C": ((q, vp, pad, 0.0), (model, data, q, v)),
    }
    timed = [k for k in PIN if k in prog.kernels]
    states = []
    for _ in range(64):
        qs = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        states.append((qs, rng.normal(size=model.nv), rng.normal(size=model.nv)))
    pure = _pure_c_timings(prog, robot, timed, states)
    cpp = _cpp_timings(model, prog, robot, timed) if with_cpp else None
    if cpp:
        checks = {k: v for k, v in cpp.items() if k.startswith("check:")}
        print(
            "  lagdyn's C vs Pinocchio in the C++ program, 64 states, max relative difference: "
            + ", ".join(f"{k[6:]} {v:.1e}" for k, v in checks.items())
        )
        bad = [k[6:] for k, v in checks.items() if not v < 1e-9]
        if bad:
            raise SystemExit(f"{name}: lagdyn's C disagrees with Pinocchio on {bad}")
    ratios = {}
    print(
        f"  {'kernel':18} {'lagdyn C µs':>12} {'pin (Python) µs':>16} {'ratio':>7}"
        + (f" {'lagdyn C in C++ µs':>19} {'pin C++ µs':>11} {'ratio':>7}" if cpp else "")
        + f" {'C batch µs/state':>17} {'pure C µs':>10} {'ratio':>6}  rel. error"
    )
    B = 10_000
    Q = np.stack(
        [pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq)) for _ in range(B)]
    )
    X = np.zeros((B, robot.nq))
    X[:, : robot.nv] = rng.normal(size=(B, robot.nv))
    for kname, pname in PIN.items():
        if kname not in fast:
            continue
        ours, theirs = args[kname]
        f = fast[kname]
        g = getattr(pin, pname)
        mine = np.asarray(f(*ours))
        ref = np.asarray(g(*theirs))
        if kname == "M":
            ref = np.triu(ref) + np.triu(ref, 1).T
        err = np.max(np.abs(mine - ref)) / max(1.0, np.max(np.abs(ref)))
        t_ours = _min_us(partial(f, *ours), 20_000)
        t_pin = _min_us(partial(g, *theirs), 20_000)
        line = f"  {kname:18} {t_ours:12.2f} {t_pin:16.2f} {t_ours / t_pin:7.2f}"
        if cpp and pname in cpp:
            mine_cpp = cpp[f"lagdyn:{kname}"]
            line += f" {mine_cpp:19.3f} {cpp[pname]:11.3f} {mine_cpp / cpp[pname]:7.2f}"
            ratios[kname] = (mine_cpp, cpp[pname])
        out = np.empty((B, *prog.kernels[kname].shape))
        t_batch = (
            _min_us(
                partial(kernels.batch, kname, Q, X, X, np.zeros((1, 0)), np.zeros((1, 1)), out),
                1,
                5,
            )
            / B
        )
        pc = pure[kname]
        print(line + f" {t_batch:17.3f} {pc:10.3f} {pc / t_pin:6.2f}  {err:.1e}")
    if not cpp:
        print(
            "  (Pinocchio timed through its Python bindings: benchmarks/_pinocchio_cpp.py, the "
            "C++ harness, was not available)"
        )
    return ratios


FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")


def bench_contacts(name="solo12", batch=4096, rounds=5):
    """Forward dynamics with four point contacts for ``batch`` states in one call (the
    fused generated kernel of ``model.contacts(..., fused=True)``, and the numpy KKT path)
    against ``pin.constraintDynamics`` called in a Python loop (issue 26 target: ≥ 10×).

    The C kernel evaluates eight states at a time in vector lanes (its struct-of-arrays
    entry); ``kernel alone`` is that C call without lagdyn's Python around it (checks,
    padding, the pivot test). The load average is printed: on a shared machine both sides
    slow down, the ratio less so."""
    import os

    import pinocchio as pin

    load0 = os.getloadavg()[0]

    path = urdf_path(*ROBOTS[name])
    start = time.perf_counter()
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"], backend="c", cache=False)
    t_model = time.perf_counter() - start
    feet = [f for f in FEET if f in robot.frames] or list(robot.frame_names[-4:])
    fused = num.contacts([(f, 3) for f in feet], fused=True)
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    data = model.createData()
    rng = np.random.default_rng(0)
    Q = np.stack(
        [
            pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
            for _ in range(batch)
        ]
    )
    V, T = rng.normal(size=(batch, model.nv)), rng.normal(size=(batch, model.nv))
    start = time.perf_counter()
    fused.dynamics(Q[:1], V[:1], T[:1])  # builds the fused kernel (program + compile)
    t_fused = time.perf_counter() - start
    print(
        f"{name}, {len(feet)} point contacts, {batch} states: build M, h {t_model:.1f} s, "
        f"fused contact kernel {t_fused:.1f} s (total {t_model + t_fused:.1f} s, target < 30 s)"
    )
    plain = num.contacts([(f, 3) for f in feet])
    plain.dynamics(Q[:1], V[:1], T[:1])
    kind = pin.ContactType.CONTACT_3D
    cms = []
    for f in feet:
        fr = model.frames[model.getFrameId(f)]
        cms.append(
            pin.RigidConstraintModel(
                kind, model, fr.parentJoint, fr.placement, pin.LOCAL_WORLD_ALIGNED
            )
        )
    cms = pin.StdVec_RigidConstraintModel(cms)
    cds = pin.StdVec_RigidConstraintData([c.createData() for c in cms])
    pin.initConstraintDynamics(model, data, cms, cds)
    prox = pin.ProximalSettings(1e-14, 0.0, 1)

    def pin_loop():
        A = np.empty((batch, model.nv))
        L = np.empty((batch, 3 * len(feet)))
        for k in range(batch):
            A[k] = pin.constraintDynamics(model, data, Q[k], V[k], T[k], cms, cds, prox)
            L[k] = data.lambda_c
        return A, L

    A_pin, L_pin = pin_loop()
    A, L = fused.dynamics(Q, V, T)
    err = max(
        float(np.max(np.abs(A - A_pin)) / np.max(np.abs(A_pin))),
        float(np.max(np.abs(L - L_pin)) / np.max(np.abs(L_pin))),
    )
    t_pin = _min_us(pin_loop, 1, rounds) / batch
    t_fused = _min_us(partial(fused.dynamics, Q, V, T), 1, rounds) / batch
    t_plain = _min_us(partial(plain.dynamics, Q, V, T), 1, rounds) / batch
    num2 = robot.lambdify({"g": 9.81}, kernels=["M", "bias"], backend="c", threads=2)
    two = num2.contacts([(f, 3) for f in feet], fused=True)
    two.dynamics(Q[:1], V[:1], T[:1])
    t_two = _min_us(partial(two.dynamics, Q, V, T), 1, rounds) / batch
    kernels = fused._fused._kernels
    pad_v, pad_t = np.zeros((batch, model.nq)), np.zeros((batch, model.nq))
    pad_v[:, : model.nv], pad_t[:, : model.nv] = V, T
    out = np.empty((batch, model.nv + 6 * len(feet)))
    args = ("contact_dynamics", np.ascontiguousarray(Q), pad_v, pad_t, out)
    t_kernel = _min_us(partial(kernels.batch_soa, *args), 1, rounds) / batch
    print(f"  {'':34} {'µs per state':>13} {'× Pinocchio loop':>17}")
    print(f"  {'pin.constraintDynamics, Python loop':34} {t_pin:13.2f} {1.0:17.1f}")
    print(f"  {'lagdyn fused kernel, one call':34} {t_fused:13.2f} {t_pin / t_fused:17.1f}")
    print(f"  {'lagdyn fused kernel, threads=2':34} {t_two:13.2f} {t_pin / t_two:17.1f}")
    print(f"  {'  kernel alone (C, one thread)':34} {t_kernel:13.2f} {t_pin / t_kernel:17.1f}")
    print(f"  {'lagdyn numpy KKT (M, h, J_c kernels)':34} {t_plain:13.2f} {t_pin / t_plain:17.1f}")
    print(f"  max relative difference to Pinocchio (v̇, λ): {err:.1e}; target ≥ 10×")
    print(f"  load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--robot",
        choices=("solo12", "go1", "anymal", "talos_legs", "both", "targets"),
        default="solo12",
        help="both: solo12 and go1; targets: solo12, talos_legs and go1, the target kernels",
    )
    parser.add_argument("--cse", action="store_true", help="the joint CSE (off by default)")
    parser.add_argument("--no-cpp", action="store_true", help="skip the Pinocchio C++ harness")
    parser.add_argument("--forward", choices=("aba", "crba"), default="aba")
    parser.add_argument(
        "--kernels",
        help="comma-separated kernels to build (default all), e.g. M,bias,forward_dynamics",
    )
    parser.add_argument(
        "--contacts",
        action="store_true",
        help="only the batched forward dynamics with four point contacts (4,096 states)",
    )
    parser.add_argument("--batch", type=int, default=4096, help="states of --contacts")
    args = parser.parse_args(argv)
    names = {"both": ("solo12", "go1"), "targets": ("solo12", "talos_legs", "go1")}.get(
        args.robot, (args.robot,)
    )
    if args.contacts:
        for name in names:
            bench_contacts(name, args.batch)
        return
    kernels = args.kernels.split(",") if args.kernels else None
    if args.robot == "targets" and kernels is None:
        kernels = list(TARGETS)
    results = {}
    for name in names:
        results[name] = bench(
            name, cse=args.cse, forward=args.forward, kernels=kernels, with_cpp=not args.no_cpp
        )
    rows = [(n, k, r) for n, res in results.items() for k, r in res.items() if k in TARGETS]
    if rows:
        print("\nIssue 26 targets: generated C, one call, vs Pinocchio in the same C++ program")
        print(f"  {'robot':11} {'kernel':17} {'lagdyn µs':>10} {'Pinocchio':>20} {'ratio':>6}")
        for n, k, (mine, theirs) in rows:
            verdict = "met" if mine / theirs <= TARGETS[k] else "NOT met"
            print(
                f"  {n:11} {k:17} {mine:10.3f} {PIN[k] + f' {theirs:.3f}':>20} "
                f"{mine / theirs:6.2f}  (≤ {TARGETS[k]}: {verdict})"
            )


#: issue 26: lagdyn's generated C at most this fraction of Pinocchio's time
TARGETS = {"forward_dynamics": 0.5, "inverse_dynamics": 0.5, "M": 0.5}


if __name__ == "__main__":
    main()

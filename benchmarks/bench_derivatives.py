"""Derivative kernels against Pinocchio's analytical derivatives, in one C++ program.

For the UR5 and the Panda (fingers locked), from the same URDF on both sides:

* lagdyn's generated C (the exported C of :func:`lagdyn.codegen.c.export_files`) for
  ``forward_dynamics_derivatives``, ``inverse_dynamics_derivatives`` (the analytical
  derivatives of RNEA, :mod:`lagdyn.recursive.rnea_derivatives`, the default of
  :mod:`lagdyn.recursive.derivatives`) and ``inverse_dynamics``, ``forward_dynamics``,
  ``M`` (the recursive programs), compiled with gcc and the same flags as Pinocchio
  (``_pinocchio_cpp.FLAGS``) and called from the same C++ timing loop;
* Pinocchio 4 instantiated from its headers with g++ (``_pinocchio_cpp``):
  ``computeABADerivatives``, ``computeRNEADerivatives``, ``rnea``, ``aba``, ``crba``.

Printed side by side with the ratios and the issue's targets (FD derivatives ≤ 0.3×
computeABADerivatives, ID derivatives ≤ 0.3× computeRNEADerivatives, inverse dynamics
≤ 0.5× rnea), the operation counts of the programs, the time to generate them, and the
Panda's ``linearize`` (first call with the kernels cached, then per call).

``--rounds R`` times everything R times in the same program, interleaved; the ratio is
that of the fastest rounds (other processes only ever add time), the ratio of each round
follows. lagdyn's kernels loop 8× as many calls as Pinocchio's, so that both timings span
about the same wall time. ``--forward`` adds the derivative kernels by forward-mode
differentiation (``method="forward"``, the route before the analytical one) to the same
program; ``--fp-contract`` adds the analytical kernels compiled with
``-ffp-contract=fast`` (fused multiply-adds: g++'s default for the C++ side, which
lagdyn's ``-std=c99`` turns off).

Usage: ``python benchmarks/bench_derivatives.py [--robot ur5|panda|both] [--iters N]
[--rounds R] [--forward] [--fp-contract]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pinocchio_cpp as pcpp

import lagdyn as ld
from lagdyn.codegen import Binding
from lagdyn.codegen.c import export_files
from lagdyn.recursive.derivatives import derivative_program
from lagdyn.recursive.route import recursive_program
from lagdyn.robot._data import urdf_path

ROBOTS = {
    "ur5": (("ur_description", "ur5_robot.urdf"), ()),
    "panda": (
        ("panda_description", "panda.urdf"),
        ("panda_finger_joint1", "panda_finger_joint2"),
    ),
}
#: lagdyn kernel → (Pinocchio algorithm, target ratio or None)
PAIRS = {
    "forward_dynamics_derivatives": ("computeABADerivatives", 0.3),
    "inverse_dynamics_derivatives": ("computeRNEADerivatives", 0.3),
    "inverse_dynamics": ("rnea", 0.5),
    "forward_dynamics": ("aba", None),
    "M": ("crba", None),
}


def _ops(kernel) -> int:
    return int(
        sum(sp.count_ops(e) for _, e in kernel.body) + sum(sp.count_ops(e) for e in kernel.outputs)
    )


#: The derivative kernels (timed for every variant).
DERIVS = ("forward_dynamics_derivatives", "inverse_dynamics_derivatives")
THIRD = {
    "forward_dynamics_derivatives": "U",
    "inverse_dynamics_derivatives": "A",
    "inverse_dynamics": "A",
    "forward_dynamics": "U",
    "M": None,
}


def _call(prefix: str, name: str, kernel) -> str:
    """A C++ call of the exported ``prefix_name`` on the harness's state ``k``."""
    args = []
    for vec in kernel.inputs:
        if vec == "q":
            args.append("QL[k].data()")
        elif vec == "qd":
            args.append("V[k].data()")
        elif vec in ("qdd", "tau"):
            args.append(f"{THIRD[name]}[k].data()")
        elif vec == "params":
            args.append("nullptr")
        elif vec == "t":
            args.append("0.0")
    return f"({prefix}_{name}({', '.join(args)}, out), sink += out[1])"


def _decl(prefix: str, name: str, kernel) -> str:
    args = ["double" if vec == "t" else "const double *" for vec in kernel.inputs]
    return f'extern "C" void {prefix}_{name}({", ".join(args)}, double *);'


def bench(name: str, iters: int, rounds: int, forward: bool, contract: bool) -> None:
    import pinocchio as pin

    (package, filename), locked = ROBOTS[name]
    path = urdf_path(package, filename)
    arm = ld.robot.from_urdf(path, parameters="numeric", locked=locked)
    binding = Binding(arm.parameters, arm.defaults)
    t0 = time.perf_counter()
    dprog = derivative_program(arm, binding)
    t1 = time.perf_counter()
    base = recursive_program(
        arm, binding, outputs_wanted=["inverse_dynamics", "forward_dynamics", "M"]
    )
    t2 = time.perf_counter()
    kernels = {**base.kernels, **dprog.kernels}
    print(
        f"\n{name}: n = {arm.n}; derivative program generated in {t1 - t0:.1f} s "
        f"(base programs {t2 - t1:.1f} s)"
    )
    print("  operations: " + ", ".join(f"{k} {_ops(v)}" for k, v in kernels.items()))
    # (label, C prefix, program, kernels timed, extra gcc flags)
    variants = [("lagdyn", "lagdyn", dprog, DERIVS, []), ("lagdyn", "lagdynb", base, (), [])]
    if forward:
        t3 = time.perf_counter()
        fprog = derivative_program(arm, binding, method="forward")
        print(
            f"  forward mode: generated in {time.perf_counter() - t3:.1f} s; operations: "
            + ", ".join(f"{k} {_ops(fprog.kernels[k])}" for k in DERIVS)
        )
        variants.append(("forward mode", "lagdynfm", fprog, DERIVS, []))
    if contract:
        variants.append(("-ffp-contract=fast", "lagdynfma", dprog, DERIVS, ["-ffp-contract=fast"]))

    model = pin.buildModelFromUrdf(str(path))
    if locked:
        ids = [model.getJointId(j) for j in locked]
        model = pin.buildReducedModel(model, ids, pin.neutral(model))
    joint_nq = [model.joints[j].nq for j in range(1, model.njoints)]

    with tempfile.TemporaryDirectory() as tmp:
        objs, decls, calls = [], [], []
        for label, prefix, prog, timed, extra in variants:
            files = export_files(prog, prefix)
            stem = Path(tmp) / prefix
            src = files[f"{prefix}.c"].replace(f'#include "{prefix}.h"', f'#include "{stem}.h"')
            Path(f"{stem}.h").write_text(files[f"{prefix}.h"])
            Path(f"{stem}.c").write_text(src)
            subprocess.run(
                ["gcc", *pcpp.FLAGS, *extra, "-std=c99", "-c", f"{stem}.c", "-o", f"{stem}.o"],
                check=True,
            )
            objs.append(f"{stem}.o")
            for kname in timed or [k for k in PAIRS if k not in DERIVS]:
                decls.append(_decl(prefix, kname, prog.kernels[kname]))
                calls.append((f"{label}:{kname}", _call(prefix, kname, prog.kernels[kname])))
        # lagdyn's joint angles from Pinocchio's configurations ((cos, sin) of continuous joints)
        angles = [
            "std::vector<Eigen::VectorXd> QL(NS), U(NS);",
            "for (int k = 0; k < NS; ++k) {",
            f"  QL[k].resize({arm.n}); U[k] = Eigen::VectorXd::Random({arm.n});",
            "  int iq = 0;",
        ]
        for j, nq in enumerate(joint_nq):
            if nq == 2:
                angles.append(f"  QL[k][{j}] = std::atan2(Q[k][iq + 1], Q[k][iq]); iq += 2;")
            else:
                angles.append(f"  QL[k][{j}] = Q[k][iq]; iq += 1;")
        angles.append("}")
        parts = pcpp.harness(model)
        body = ["static double out[4096];"]
        for r in range(rounds):
            body += [f'TIME("{a}#{r}", {parts["calls"][a]});' for a, _ in PAIRS.values()]
            # lagdyn's calls looped 8× as often: each timing spans about as much wall time
            # as Pinocchio's (a short loop would more often fall in a quiet moment)
            body += ["#undef ITERS", f"#define ITERS {8 * iters}"]
            body += [f'TIME("{label}#{r}", {c});' for label, c in calls]
            body += ["#undef ITERS", f"#define ITERS {iters}"]
        src = (
            parts["includes"]
            + "#include <cmath>\n"
            + "\n".join(decls)
            + f"\n#define ITERS {iters}\n#define REPEATS 7\n"
            + parts["timing"]
            + "\nint main() {\n"
            + parts["states"]
            + "\n".join(angles)
            + "\n"
            + "\n".join(body)
            + '\nstd::printf("sink %f\\n", (double)sink);\nreturn 0;\n}\n'
        )
        t3 = time.perf_counter()
        times = pcpp.build_and_run(src, parts["model"], objs)
        print(f"  (C and C++ compiled and run in {time.perf_counter() - t3:.0f} s)")
    labels = sorted({label for label, *_ in variants if label != "lagdyn"})
    print(
        f"  {'kernel':30} {'lagdyn µs':>10} {'Pinocchio C++':>24} {'µs':>8} "
        f"{'ratio':>7}  ratio by round"
    )
    for kname, (pname, target) in PAIRS.items():
        theirs = [times[f"{pname}#{r}"] for r in range(rounds)]
        for label in ["lagdyn", *labels] if kname in DERIVS else ["lagdyn"]:
            mine = [times[f"{label}:{kname}#{r}"] for r in range(rounds)]
            ratio = min(mine) / min(theirs)
            each = " ".join(f"{a / b:.2f}" for a, b in zip(mine, theirs))
            goal = ""
            if target is not None and label == "lagdyn":
                goal = f"  target ≤ {target}: {'met' if ratio <= target else 'NOT met'}"
            head = f"  {kname:30}" if label == "lagdyn" else f"    {label:28}"
            print(
                f"{head} {min(mine):10.3f} {pname:>24} {min(theirs):8.3f} {ratio:7.2f}  "
                f"{each}{goal}"
            )


def panda_linearize() -> None:
    panda = ld.zoo.get("panda")
    q = np.full(7, 0.3)
    t0 = time.perf_counter()
    panda.linearize(q, params=panda.defaults, backend="c")
    t1 = time.perf_counter()
    for _ in range(100):
        panda.linearize(q, params=panda.defaults, backend="c")
    t2 = time.perf_counter()
    print(
        f"\nPanda linearize (backend c): first call {t1 - t0:.2f} s (generation and compile "
        f"on a cold cache, loading on a warm one), then {1e3 * (t2 - t1) / 100:.2f} ms a call"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", choices=("ur5", "panda", "both"), default="both")
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--forward", action="store_true", help="also forward-mode kernels")
    parser.add_argument("--fp-contract", action="store_true", help="also with -ffp-contract=fast")
    parser.add_argument("--no-linearize", action="store_true")
    args = parser.parse_args(argv)
    for name in ("ur5", "panda") if args.robot == "both" else (args.robot,):
        bench(name, args.iters, args.rounds, args.forward, args.fp_contract)
    if not args.no_linearize:
        panda_linearize()


if __name__ == "__main__":
    main()

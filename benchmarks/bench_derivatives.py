"""Derivative kernels against Pinocchio's analytical derivatives, in one C++ program.

For the UR5 and the Panda (fingers locked), from the same URDF on both sides:

* lagdyn's generated C (the exported C of :func:`lagdyn.codegen.c.export_files`) for
  ``forward_dynamics_derivatives``, ``inverse_dynamics_derivatives`` (the recursive
  route's programs differentiated in forward mode, :mod:`lagdyn.recursive.derivatives`)
  and ``inverse_dynamics``, ``forward_dynamics``, ``M`` (the recursive programs), compiled
  with gcc and the same flags as Pinocchio (``_pinocchio_cpp.FLAGS``) and called from
  the same C++ timing loop;
* Pinocchio 4 instantiated from its headers with g++ (``_pinocchio_cpp``):
  ``computeABADerivatives``, ``computeRNEADerivatives``, ``rnea``, ``aba``, ``crba``.

Printed side by side with the ratios and the issue's targets (FD derivatives ≤ 0.3×
computeABADerivatives, ID derivatives ≤ 0.3× computeRNEADerivatives, inverse dynamics
≤ 0.5× rnea), the operation counts of the programs, the time to generate them, and the
Panda's ``linearize`` (first call with the kernels cached, then per call).

Usage: ``python benchmarks/bench_derivatives.py [--robot ur5|panda|both] [--iters N]``.
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


def _lagdyn_calls(prog_kernels: dict[str, object]) -> str:
    """C++ TIME lines calling the exported lagdyn functions on the harness's states."""
    third = {
        "forward_dynamics_derivatives": "U",
        "inverse_dynamics_derivatives": "A",
        "inverse_dynamics": "A",
        "forward_dynamics": "U",
        "M": None,
    }
    lines = ["static double out[4096];"]
    for name in PAIRS:
        k = prog_kernels[name]
        args = []
        for vec in k.inputs:
            if vec == "q":
                args.append("QL[k].data()")
            elif vec == "qd":
                args.append("V[k].data()")
            elif vec in ("qdd", "tau"):
                args.append(f"{third[name]}[k].data()")
            elif vec == "params":
                args.append("nullptr")
            elif vec == "t":
                args.append("0.0")
        lines.append(
            f'TIME("lagdyn:{name}", (lagdyn_{name}({", ".join(args)}, out), sink += out[0]));'
        )
    return "\n".join(lines)


def bench(name: str, iters: int) -> None:
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

    model = pin.buildModelFromUrdf(str(path))
    if locked:
        ids = [model.getJointId(j) for j in locked]
        model = pin.buildReducedModel(model, ids, pin.neutral(model))
    joint_nq = [model.joints[j].nq for j in range(1, model.njoints)]

    # lagdyn's exported C: one file per program, compiled as C with the same flags
    with tempfile.TemporaryDirectory() as tmp:
        objs = []
        for label, prog in (("d", dprog), ("b", base)):
            files = export_files(prog, "lagdyn")
            stem = Path(tmp) / f"lagdyn_{label}"
            src = files["lagdyn.c"].replace('#include "lagdyn.h"', f'#include "{stem}.h"')
            Path(f"{stem}.h").write_text(files["lagdyn.h"])
            Path(f"{stem}.c").write_text(src)
            subprocess.run(
                ["gcc", *pcpp.FLAGS, "-std=c99", "-c", f"{stem}.c", "-o", f"{stem}.o"],
                check=True,
            )
            objs.append(f"{stem}.o")
        decls = []
        for kname in PAIRS:
            k = kernels[kname]
            args = []
            for vec in k.inputs:
                args.append("double" if vec == "t" else "const double *")
            decls.append(f'extern "C" void lagdyn_{kname}({", ".join(args)}, double *);')
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
        algos = [p for p, _ in PAIRS.values()]
        parts = pcpp.harness(model)
        body = "\n".join(f'TIME("{a}", {parts["calls"][a]});' for a in algos)
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
            + body
            + "\n"
            + _lagdyn_calls(kernels)
            + '\nstd::printf("sink %f\\n", (double)sink);\nreturn 0;\n}\n'
        )
        t3 = time.perf_counter()
        times = pcpp.build_and_run(src, parts["model"], objs)
        print(f"  (C and C++ compiled and run in {time.perf_counter() - t3:.0f} s)")
    print(f"  {'lagdyn kernel':30} {'lagdyn µs':>10} {'Pinocchio C++':>24} {'µs':>8} {'ratio':>7}")
    for kname, (pname, target) in PAIRS.items():
        ours, theirs = times[f"lagdyn:{kname}"], times[pname]
        ratio = ours / theirs
        goal = ""
        if target is not None:
            goal = f"  target ≤ {target}: {'met' if ratio <= target else 'NOT met'}"
        print(f"  {kname:30} {ours:10.3f} {pname:>24} {theirs:8.3f} {ratio:7.2f}{goal}")


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
    parser.add_argument("--no-linearize", action="store_true")
    args = parser.parse_args(argv)
    for name in ("ur5", "panda") if args.robot == "both" else (args.robot,):
        bench(name, args.iters)
    if not args.no_linearize:
        panda_linearize()


if __name__ == "__main__":
    main()

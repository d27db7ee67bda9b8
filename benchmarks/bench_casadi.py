"""CasADi function evaluation against lagdyn's own kernels (and Pinocchio's CasADi bindings).

For the cart-pole, the double pendulum and the UR5 (every parameter bound to its default),
``system.to_casadi()`` gives SX ``casadi.Function``\\ s of M, h, forward and inverse dynamics
built from the same CSE program lagdyn compiles. Measured in one process:

* one call from Python: ``f(q, qd, u)`` on numpy vectors (casadi's virtual machine, numpy →
  DM conversion included) and on ``casadi.DM`` vectors, against the NumericModel methods of lagdyn's C backend (cffi, the
  METH_FASTCALL one-state path) and numpy backend;
* a batch of B states: ``f.map(B)`` on ``(n, B)`` DM matrices, run by casadi's virtual
  machine and as CasADi-generated C (``Function.generate``, gcc -O2, ``casadi.external``),
  against the batched C and numpy kernels (one thread each), per state;
* Pinocchio's CasADi bindings (``pinocchio.casadi``: ``aba``/``rnea`` on ``SX`` of the UR5
  URDF) when importable; otherwise the reason is printed.

Run ``python benchmarks/bench_casadi.py [--write]``; ``--write`` replaces the
"## CasADi (bench_casadi.py)" section of benchmarks/RESULTS.md (appending it the first time).
"""

from __future__ import annotations

import os
import platform
import re
import sys
import timeit
from pathlib import Path
from typing import Any

import numpy as np

import lagdyn as ld

HERE = Path(__file__).resolve().parent
B = 10_000
MODELS = ("cart_pole", "double_pendulum", "ur5")
FUNCTIONS = (
    ("M", "M", 1),
    ("h", "bias", 2),
    ("forward_dynamics", "forward_dynamics", 3),
    ("inverse_dynamics", "inverse_dynamics", 3),
)


def best(stmt: Any, number: int, repeat: int = 5) -> float:
    """Seconds per call: the minimum over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def one_call_number(seconds: float) -> int:
    return max(10, int(0.05 / max(seconds, 1e-7)))


def measure(name: str, rows: list[str]) -> None:
    import casadi as ca

    system = ld.zoo.get(name)
    cm = system.to_casadi(system.defaults)
    num_c = system.lambdify(system.defaults, backend="c")
    num_np = system.lambdify(system.defaults)
    n = system.n
    rng = np.random.default_rng(0)
    q, qd, u = rng.uniform(-1.0, 1.0, (3, n))
    Q, QD, U = rng.uniform(-1.0, 1.0, (3, B, n))
    for attr, method, nargs in FUNCTIONS:
        f = getattr(cm, attr)
        args = (q, qd, u)[:nargs]
        batch = (Q, QD, U)[:nargs]
        cols = [np.ascontiguousarray(a.T) for a in batch]
        fm = f.map(B)
        mc, mn = getattr(num_c, method), getattr(num_np, method)
        # the same numbers first (a benchmark of wrong functions is worthless)
        ref = mc(*args)
        got = np.asarray(f(*args).full()).reshape(ref.shape)
        assert np.allclose(got, ref, rtol=1e-10, atol=1e-10), (name, attr)
        dms = [ca.DM(a) for a in args]
        dm_cols = [ca.DM(c) for c in cols]
        calls = {
            "casadi": lambda f=f, a=args: f(*a),
            "casadi DM": lambda f=f, a=dms: f(*a),
            "c": lambda f=mc, a=args: f(*a),
            "numpy": lambda f=mn, a=args: f(*a),
        }
        t1 = {}
        for label, call in calls.items():
            t = best(call, 200, repeat=2)
            t1[label] = best(call, one_call_number(t))
        batched = {
            "casadi": lambda f=fm, a=dm_cols: f(*a),
            "c": lambda f=mc, a=batch: f(*a),
            "numpy": lambda f=mn, a=batch: f(*a),
        }
        compiled = compile_map(f, B)
        if compiled is not None:
            batched["casadi C"] = lambda f=compiled, a=dm_cols: f(*a)
        tb = {label: best(call, 1, repeat=5) / B for label, call in batched.items()}
        tcc = f"{tb['casadi C'] * 1e6:.3f}" if "casadi C" in tb else "—"
        rows.append(
            f"| {name} | {attr} | {f.n_instructions():,} | "
            f"{t1['casadi'] * 1e6:.2f} | {t1['casadi DM'] * 1e6:.2f} | {t1['c'] * 1e6:.2f} | "
            f"{t1['numpy'] * 1e6:.2f} | {t1['casadi DM'] / t1['c']:.0f}× | "
            f"{tb['casadi'] * 1e6:.3f} | {tcc} | {tb['c'] * 1e6:.3f} | {tb['numpy'] * 1e6:.3f} | "
            f"{tb['casadi'] / tb['c']:.0f}× |"
        )
        print(rows[-1], flush=True)


def regressor_build() -> str:
    """Build time and size of the UR5's regressor Function (its 60 standard parameters)."""
    import time

    arm = ld.zoo.get("ur5", parameters="symbolic")
    params = ld.robot.regressor.standard_parameters_of(arm)
    cm = arm.to_casadi(arm.defaults, regressor_params=params)
    start = time.perf_counter()
    Y = cm.regressor
    seconds = time.perf_counter() - start
    return (
        f"UR5 regressor `to_casadi(..., regressor_params=standard_parameters_of(arm)).regressor` "
        f"({Y.size_out(0)[0]} × {Y.size_out(0)[1]}, recursive regressor program): built in "
        f"{seconds:.2f} s, {Y.n_instructions():,} SX instructions."
    )


def compile_map(f: Any, batch: int) -> Any:
    """``f.map(batch)`` through CasADi's own C code generation (gcc -O2), or None."""
    import shutil
    import subprocess
    import tempfile

    import casadi as ca

    if shutil.which("gcc") is None:
        return None
    fm = f.map(batch)
    tmp = tempfile.mkdtemp(prefix="bench-casadi-")
    name = f"{f.name()}_map"
    args = fm.mx_in()
    fm = ca.Function(name, args, [fm(*args)])
    src = fm.generate(f"{name}.c", {"with_header": False})
    os.replace(src, os.path.join(tmp, src))
    lib = os.path.join(tmp, f"{name}.so")
    subprocess.run(
        ["gcc", "-O2", "-shared", "-fPIC", os.path.join(tmp, src), "-o", lib, "-lm"], check=True
    )
    return ca.external(name, lib)


def pinocchio_casadi(rows: list[str]) -> str:
    """Pinocchio's CasADi ABA/RNEA on the UR5, or the reason they were not measured."""
    try:
        import pinocchio as pin
    except ImportError as exc:
        return f"Pinocchio is not installed ({exc}): not measured."
    try:
        import pinocchio.casadi as cpin
    except ImportError as exc:
        return (
            f"pinocchio {pin.__version__} is installed but `pinocchio.casadi` is not importable "
            f"({exc}: this build has no CasADi support): Pinocchio's CasADi bindings were "
            "not measured."
        )
    try:  # pragma: no cover - needs a CasADi-enabled Pinocchio build
        import casadi as ca
        from example_robot_data import load

        model = load("ur5").model
        cmodel = cpin.Model(model)
        cdata = cmodel.createData()
        qs, vs, ts = ca.SX.sym("q", model.nq), ca.SX.sym("v", model.nv), ca.SX.sym("t", model.nv)
        aba = ca.Function("aba", [qs, vs, ts], [cpin.aba(cmodel, cdata, qs, vs, ts)])
        rnea = ca.Function("rnea", [qs, vs, ts], [cpin.rnea(cmodel, cdata, qs, vs, ts)])
        rng = np.random.default_rng(0)
        q, v, t = rng.uniform(-1, 1, (3, model.nq))
        for label, f in (("forward_dynamics (aba)", aba), ("inverse_dynamics (rnea)", rnea)):
            t1 = best(lambda f=f: f(q, v, t), 2000)
            fm = f.map(B)
            cols = [rng.uniform(-1, 1, (model.nq, B)) for _ in range(3)]
            tb = best(lambda fm=fm, c=cols: fm(*c), 1) / B
            rows.append(
                f"| ur5 (Pinocchio casadi) | {label} | {f.n_instructions():,} | "
                f"{t1 * 1e6:.2f} | | | | | {tb * 1e6:.3f} | | | | |"
            )
            print(rows[-1], flush=True)
        return f"Pinocchio {pin.__version__} CasADi bindings measured on its UR5 URDF."
    except Exception as exc:  # a broken optional stack is reported, not fatal
        return f"Pinocchio's CasADi bindings failed ({type(exc).__name__}: {exc}): not measured."


def main() -> None:
    import casadi as ca

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    header = [
        f"python {platform.python_version()}, casadi {ca.__version__}, numpy {np.__version__}, "
        f"lagdyn {ld.__version__}; {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the start (a shared, loaded machine: "
        "ratios are indicative, run-to-run spread up to 2×).",
        "",
        f"One call from Python (µs, min of 5 repeats) and a batch of B = {B:,} states (µs per "
        "state; casadi `f.map(B)` on DM matrices, lagdyn batched kernels on one thread). Every parameter is "
        "bound; SX instructions = `f.n_instructions()`; ratios are casadi / lagdyn C.",
        "",
        "| model | function | SX instr. | casadi 1 call (numpy in) | casadi 1 call (DM in) | "
        "C 1 call | numpy 1 call | ratio DM / C | casadi map /state | casadi map, "
        "generated C /state | C batch /state | numpy batch /state | ratio map / C |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for line in header:
        print(line)
    rows: list[str] = []
    for name in MODELS:
        measure(name, rows)
    note = pinocchio_casadi(rows)
    print(note)
    built = regressor_build()
    print(built)
    text = "\n".join([*header, *rows, "", note, "", built]) + "\n"
    if "--write" in sys.argv:
        path = HERE / "RESULTS.md"
        old = path.read_text(encoding="utf-8")
        section = "## CasADi (bench_casadi.py)\n\n" + text
        pattern = re.compile(r"## CasADi \(bench_casadi\.py\)\n.*?(?=\n## |\Z)", re.S)
        new = (
            pattern.sub(lambda _: section.rstrip("\n"), old)
            if pattern.search(old)
            else (old.rstrip("\n") + "\n\n" + section)
        )
        path.write_text(new if new.endswith("\n") else new + "\n", encoding="utf-8")
        print("updated", path)


if __name__ == "__main__":
    main()

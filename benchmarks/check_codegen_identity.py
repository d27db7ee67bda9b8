"""Byte-identity check of generated code: print every program with every printer.

Writes the text of every runtime module (C with and without SIMD, its cdef, numpy, numba,
jax) and every exported file (c, cpp, jax, numba, julia, matlab, js) of: every zoo model
(closed route with defaults bound and with free parameters, the recursive route of robot
chains), the derivative kernels of five models, the tree URDF tests/data/rrp_tree.urdf on
both routes, Solo12 floating (ABA and CRBA, with and without the joint CSE) and Panda
(CRBA), plus ``hashes.json`` (sha256 of each file). Compare two runs with ``--compare``.

To check a change to code generation against the code before it::

    git archive <old-commit> src | tar -x -C /tmp/old
    PYTHONHASHSEED=0 PYTHONPATH=/tmp/old/src python benchmarks/check_codegen_identity.py /tmp/a
    PYTHONHASHSEED=0 python benchmarks/check_codegen_identity.py /tmp/b
    python benchmarks/check_codegen_identity.py --compare /tmp/a /tmp/b

``--quick`` leaves out UR5, Panda, Puma 560, the derivatives and Solo12 (~1 min instead of
~5). The printing time (CPU) is reported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]


def generate(out: pathlib.Path, quick: bool) -> None:
    import lagdyn as ld
    from lagdyn.codegen import TARGETS, Binding, c, export_files, jax, numba, python, system_program
    from lagdyn.codegen import javascript as js
    from lagdyn.numeric.lambdify import derivative_plan, plan_program

    out.mkdir(parents=True, exist_ok=True)
    hashes: dict[str, str] = {}
    spent = {"programs": 0.0, "printing": 0.0}

    def save(name: str, text: str) -> None:
        (out / name).write_text(text)
        hashes[name] = hashlib.sha256(text.encode()).hexdigest()

    def emit(tag: str, prog: Any) -> None:
        t0 = time.process_time()
        src, cdef = c.runtime_source(prog, "k", simd=False)
        texts = {
            "c_simd.c": c.runtime_source(prog, "k", simd=True)[0],
            "c.c": src,
            "c.cdef": cdef,
            "py.py": python.runtime_source(prog, "k"),
            "numba.py": numba.runtime_source(prog, "k"),
            "jax.py": jax.runtime_source(prog, "k"),
        }
        system_kernels = ("M", "C", "g", "energy", "bias", "inverse_dynamics", "forward_dynamics")
        if prog.n <= 12 and all(k in system_kernels for k in prog.kernels):
            for tg in TARGETS:
                try:
                    for fn, txt in export_files(prog, tg, "m").items():
                        texts[f"x_{tg}_{fn}"] = txt
                except Exception as e:  # a refusal is part of what is compared
                    texts[f"x_{tg}_ERR"] = f"{type(e).__name__}: {e}"
        spent["printing"] += time.process_time() - t0
        for k, v in texts.items():
            save(f"{tag}__{k}", v)

    def gen(tag: str, make: Callable[[], Any]) -> None:
        t0 = time.process_time()
        prog = make()
        spent["programs"] += time.process_time() - t0
        emit(tag, prog)
        print(tag, flush=True)

    for nm in ld.zoo.names():
        if quick and nm in ("panda", "puma560", "ur5"):
            continue
        s = ld.zoo.get(nm)
        b = Binding(s.parameters, s.defaults)
        route, _, make = plan_program(s, b, "numpy", keyed=False)
        gen(f"{nm}_{route}", make)
        if route == "closed":
            gen(f"{nm}_free", lambda s=s: system_program(s, Binding(s.parameters)))
            if hasattr(s, "numeric_plan"):
                gen(
                    f"{nm}_rec",
                    lambda s=s, b=b: plan_program(s, b, "numpy", "recursive", keyed=False)[2](),
                )
        elif s.n <= 6 and nm != "ur5":
            gen(f"{nm}_closedfree", lambda s=s: system_program(s, Binding(s.parameters)))
        if not quick and nm in ("double_pendulum", "planar_3r", "cart_pole", "ur5", "acrobot"):
            gen(f"{nm}_der", lambda s=s, b=b, r=route: derivative_plan(s, b, "numpy", r)[1]())
    for nm in ("double_pendulum", "cart_pole", "spherical_pendulum"):
        s = ld.zoo.get(nm)
        for fn, txt in js.export_files(
            system_program(s, Binding(s.parameters, s.defaults)), nm
        ).items():
            save(f"{nm}__js_{fn}", txt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ld.robot.from_urdf(str(ROOT / "tests" / "data" / "rrp_tree.urdf"))
    tb = Binding(tree.parameters, tree.defaults)
    for rt in ("recursive", "closed"):
        gen(f"rrp_tree_{rt}", lambda rt=rt: plan_program(tree, tb, "numpy", rt, keyed=False)[2]())
    if not quick:
        from lagdyn.recursive.floating import floating_program

        robot = ld.zoo.get("solo12")
        for fw, cse in (("aba", False), ("crba", False), ("aba", True)):
            gen(
                f"solo12_{fw}_cse{int(cse)}",
                lambda fw=fw, cse=cse: floating_program(
                    robot.base, dict(robot.defaults), forward=fw, friction=robot.friction, cse=cse
                ),
            )
        s = ld.zoo.get("panda")
        b = Binding(s.parameters, s.defaults)
        gen(
            "panda_crba", lambda: plan_program(s, b, "numpy", "recursive", "crba", keyed=False)[2]()
        )
    (out / "hashes.json").write_text(json.dumps(hashes, indent=0, sort_keys=True))
    print(
        f"{len(hashes)} files; programs {spent['programs']:.1f} s CPU, "
        f"printing {spent['printing']:.1f} s CPU"
    )


def compare(a: pathlib.Path, b: pathlib.Path) -> int:
    ha = json.loads((a / "hashes.json").read_text())
    hb = json.loads((b / "hashes.json").read_text())
    only = sorted(set(ha) ^ set(hb))
    differ = sorted(k for k in set(ha) & set(hb) if ha[k] != hb[k])
    print(f"{len(ha)} and {len(hb)} files; only in one: {len(only)}; differ: {len(differ)}")
    for k in only[:20] + differ[:20]:
        print("  ", k)
    return 1 if only or differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=pathlib.Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--compare", nargs=2, type=pathlib.Path, metavar=("A", "B"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("give an output directory or --compare A B")
    generate(args.out, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())

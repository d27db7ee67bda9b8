"""Robot arms: derivation time and operation counts (after CSE) of the recursive programs
against the closed form (M by geometric Jacobians), numeric and symbolic parameters.

Usage: ``python benchmarks/bench_robot.py [--closed]`` (``--closed`` also counts the
closed-form M, which takes much longer).
"""

import sys
import time

import symengine as se
import sympy as sp

import lagdyn as ld
from lagdyn.robot.programs import _floats
from lagdyn.robot.system import closed_form_symengine

closed = "--closed" in sys.argv
print(
    f"{'arm':10} {'params':9} {'build':>6} "
    + " ".join(f"{k:>14}" for k in ("M", "h", "tau", "g", "qdd", "C"))
)
for name in ("puma560", "ur5", "panda"):
    for parameters in ("numeric", "symbolic"):
        start = time.perf_counter()
        arm = ld.zoo.get(name, parameters=parameters)
        built = time.perf_counter() - start
        cells = []
        for key in ("M", "h", "tau", "g", "qdd", "C"):
            prog = arm.program(key)
            cells.append(f"{prog.count_ops():6d} {prog.seconds:5.2f}s")
        print(f"{name:10} {parameters:9} {built:5.2f}s " + " ".join(f"{c:>14}" for c in cells))
        if closed:
            start = time.perf_counter()
            M, U, q = closed_form_symengine(arm.chain)
            entries = [M[i, j] for i in range(arm.n) for j in range(i, arm.n)]
            t_build = time.perf_counter() - start
            repl, red = se.cse(entries)
            ops = sum(sp.count_ops(_floats(sp.sympify(e))) for _, e in repl) + sum(
                sp.count_ops(_floats(sp.sympify(e))) for e in red
            )
            print(
                f"{'':10} closed-form M (Jacobians, symengine): {t_build:.2f} s, {ops} ops after CSE"
            )

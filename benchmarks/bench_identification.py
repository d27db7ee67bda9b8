"""Identification: time of each step (regressor, base parameters, generated code) and the
size of robot regressors.

Usage::

    python benchmarks/bench_identification.py            # planar_arm(5) steps + robot regressors
    python benchmarks/bench_identification.py --arm-only # planar_arm(5) steps only

``planar_arm(5)``: every parameter but g unknown (55 standard parameters, products of the
physical symbols), best of three runs of each step on a fresh system (the system's own
derivation of M and h is timed separately). Robot arms (symbolic barycentric parameters,
ten per link): the recursive regressor program's build time and operations after CSE (sympy
``count_ops`` of the joint CSE of body and outputs, rationals counted as numbers, as
``Program.count_ops`` and ``benchmarks/bench_robot.py`` count), and the generation time
of the numpy and C regressor functions. Results: ``benchmarks/RESULTS.md``.
"""

import os
import sys
import tempfile
import time

import lagdyn as ld
from lagdyn import identification as idf


def _best(fn, repeat=3):
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def arm_steps(n=5):
    """Seconds per step of the regressor workflow on planar_arm(n)."""

    def derive():
        arm = ld.zoo.planar_arm(n)
        arm.M, arm.h  # noqa: B018
        return arm

    t_derive, _ = _best(derive)
    rows = {"derive M, h": t_derive}
    steps = {
        "linear_parameters": lambda a, s: idf.linear_parameters(a, s),
        "regressor": lambda a, s: ld.regressor(a, idf.linear_parameters(a, s)),
        "base_parameters": lambda a, s: idf.base_parameters(a, idf.linear_parameters(a, s)),
    }
    for name, step in steps.items():

        def run(step=step):
            arm = derive()
            syms = [s for s in arm.parameters if s.name != "g"]
            start = time.perf_counter()
            out = step(arm, syms)
            return time.perf_counter() - start, out

        times = [run() for _ in range(3)]
        rows[name] = min(t for t, _ in times)
    arm = derive()
    syms = [s for s in arm.parameters if s.name != "g"]
    params = idf.linear_parameters(arm, syms)
    bp = idf.base_parameters(arm, params)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        idf.regressor_function(arm, params, arm.defaults, cache=False, cache_dir=tmp)
        rows["regressor_function (numpy, no cache)"] = time.perf_counter() - start
    print(f"planar_arm({n}): {len(params)} standard parameters, {bp.rank} base parameters")
    for name, t in rows.items():
        print(f"  {name:40} {t:6.2f} s")
    total = sum(t for k, t in rows.items() if k != "derive M, h")
    print(f"  {'total (without derive)':40} {total:6.2f} s")


def robots(names=("planar_3r", "spatial_3r", "ur5", "puma560", "panda")):
    from lagdyn.robot.regressor import regressor_program, standard_parameters_of

    print(f"{'arm':10} {'params':>6} {'build':>7} {'ops':>6} {'numpy':>7} {'C':>7}")
    for name in names:
        arm = ld.zoo.get(name, parameters="symbolic")
        params = standard_parameters_of(arm)
        t_build, prog = _best(lambda a=arm, p=params: regressor_program(a, p))
        ops = prog.count_ops()
        gen = {}
        for backend in ("numpy", "c"):
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                try:
                    idf.regressor_function(
                        arm, params, arm.defaults, backend=backend, cache=False, cache_dir=tmp
                    )
                    gen[backend] = f"{time.perf_counter() - start:6.2f}s"
                except ld.BackendUnavailableError:
                    gen[backend] = "   n/a"
        print(
            f"{name:10} {len(params):6d} {t_build:6.2f}s {ops:6d} {gen['numpy']:>7} {gen['c']:>7}"
        )


if __name__ == "__main__":
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    arm_steps()
    if "--arm-only" not in sys.argv:
        robots()

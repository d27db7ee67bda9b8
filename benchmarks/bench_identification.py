"""Identification: time of each step (regressor, base parameters, generated code) and the
size of robot regressors.

Usage::

    python benchmarks/bench_identification.py            # planar_arm(5) steps + robot regressors
    python benchmarks/bench_identification.py --arm-only # planar_arm(5) steps only

``planar_arm(5)``: every parameter but g unknown (55 standard parameters, products of the
physical symbols); each step runs in a fresh process (cold sympy caches), best of three,
after the system's own derivation of M and h (timed separately); every step includes
``linear_parameters``. Robot arms (symbolic barycentric parameters,
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


STEPS = ("derive M, h", "linear_parameters", "regressor", "base_parameters", "regressor_function")


def _one_step(step, n=5):
    """Seconds of one step on a fresh planar_arm(n), in this (fresh) process."""
    start = time.perf_counter()
    arm = ld.zoo.planar_arm(n)
    arm.M, arm.h  # noqa: B018
    t_derive = time.perf_counter() - start
    if step == "derive M, h":
        return t_derive
    syms = [s for s in arm.parameters if s.name != "g"]
    start = time.perf_counter()
    params = idf.linear_parameters(arm, syms)
    if step == "regressor":
        ld.regressor(arm, params)
    elif step == "base_parameters":
        idf.base_parameters(arm, params)
    elif step == "regressor_function":
        with tempfile.TemporaryDirectory() as tmp:
            idf.regressor_function(arm, params, arm.defaults, cache=False, cache_dir=tmp)
    return time.perf_counter() - start


def arm_steps(n=5):
    """Seconds per step on planar_arm(n): each step in a fresh process (sympy's caches are
    cold, as for a user), best of three; every step includes linear_parameters."""
    import subprocess

    rows = {}
    for step in STEPS:
        times = []
        for _ in range(3):
            out = subprocess.run(
                [sys.executable, __file__, "--step", step],
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(out.stdout.split()[-1]))
        rows[step] = min(times)
    print(f"planar_arm({n}): 55 standard parameters (every parameter but g unknown)")
    for name, t in rows.items():
        print(f"  {name:40} {t:6.2f} s")


def robots(names=("planar_3r", "spatial_3r", "ur5", "puma560", "panda")):
    from lagdyn.recursive.regressor import regressor_program, standard_parameters_of

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
    if "--step" in sys.argv:
        print(_one_step(sys.argv[sys.argv.index("--step") + 1]))
        sys.exit(0)
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    arm_steps()
    if "--arm-only" not in sys.argv:
        robots()

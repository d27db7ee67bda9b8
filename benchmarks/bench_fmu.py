"""FMU Co-Simulation speed: the double pendulum's FMU driven by FMPy against lagdyn's own step.

Issue 23's target: 10⁶ Co-Simulation steps of 1 ms driven by FMPy, the time *inside the unit*
per step within 2× of lagdyn's own compiled step, the FMI call overhead measured and printed.

* FMPy loop: ``FMU3Slave.doStep(t, 1e-3)`` called 10⁶ times from Python (FMPy's ctypes
  wrapper, status check included): wall time per step.
* Inside the unit: one ``doStep`` over 10⁶ × 1 ms (the unit takes its 10⁶ internal RK4
  steps of 1 ms in C): time per step, no FMI call per step. The difference to the FMPy loop
  is the FMI call overhead (Python + ctypes + FMPy) per call.
* lagdyn: ``ld.simulate(method="rk4")`` per step (its RK4 loop in Python over the compiled
  forward dynamics), and the compiled forward dynamics alone (4 one-state calls = one RK4
  step's model evaluations).

Run ``python benchmarks/bench_fmu.py [--steps N]`` (default 10⁶; needs fmpy and a C compiler).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

import lagdyn as ld
from lagdyn.export.fmu import export_fmu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    args = ap.parse_args()
    steps, h = args.steps, 1e-3

    import fmpy
    from fmpy.fmi3 import FMU3Slave

    dp = ld.zoo.double_pendulum()
    tmp = tempfile.mkdtemp(prefix="bench-fmu-")
    t0 = time.perf_counter()
    path = export_fmu(dp, tmp, name="dp", step="rk4", step_size=h)
    export_s = time.perf_counter() - t0
    md = fmpy.read_model_description(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzipped = fmpy.extract(str(path))

    def fresh() -> FMU3Slave:
        unit = FMU3Slave(
            guid=md.guid,
            unzipDirectory=unzipped,
            modelIdentifier="dp",
            instanceName="bench",
        )
        unit.instantiate()
        unit.enterInitializationMode(startTime=0.0)
        unit.setFloat64([vr["q.a"], vr["q.b"]], [0.5, -0.3])
        unit.exitInitializationMode()
        return unit

    # FMPy-driven: one doStep per 1 ms step
    unit = fresh()
    t, do_step = 0.0, unit.doStep
    t0 = time.perf_counter()
    for _ in range(steps):
        do_step(t, h)
        t += h
    fmpy_s = time.perf_counter() - t0
    end_fmpy = unit.getFloat64([vr["q.a"], vr["q.b"]])
    unit.terminate()
    unit.freeInstance()

    # inside the unit: one call, `steps` internal steps
    unit = fresh()
    t0 = time.perf_counter()
    unit.doStep(0.0, steps * h)
    inside_s = time.perf_counter() - t0
    end_inside = unit.getFloat64([vr["q.a"], vr["q.b"]])
    unit.terminate()
    unit.freeInstance()

    # lagdyn: simulate's RK4 (fewer steps: its loop is in Python) and the compiled kernel
    num = dp.lambdify(dp.defaults, backend="c")  # compiled (and cached) before timing
    n_sim = min(steps, 20_000)
    ld.simulate(num, [0.5, -0.3, 0.0, 0.0], 10 * h, dt=h, method="rk4", progress=False)
    t0 = time.perf_counter()
    ld.simulate(num, [0.5, -0.3, 0.0, 0.0], n_sim * h, dt=h, method="rk4", progress=False)
    sim_s = (time.perf_counter() - t0) / n_sim
    q, qd, tau = np.array([0.5, -0.3]), np.zeros(2), np.zeros(2)
    num.forward_dynamics(q, qd, tau)
    reps = 100_000
    t0 = time.perf_counter()
    for _ in range(reps):
        num.forward_dynamics(q, qd, tau)
    kernel_s = (time.perf_counter() - t0) / reps

    per_fmpy, per_inside = fmpy_s / steps, inside_s / steps
    print(f"FMU export (derive, C, compile): {export_s:.2f} s")
    print(f"{steps} Co-Simulation steps of 1 ms, double pendulum, RK4:")
    print(f"  FMPy doStep loop        {per_fmpy * 1e6:8.3f} µs/step ({fmpy_s:.2f} s)")
    print(f"  inside the unit         {per_inside * 1e6:8.3f} µs/step ({inside_s:.3f} s)")
    print(f"  FMI call overhead       {(per_fmpy - per_inside) * 1e6:8.3f} µs/call")
    print(f"  lagdyn simulate rk4     {sim_s * 1e6:8.3f} µs/step ({n_sim} steps)")
    print(f"  lagdyn C kernel x4      {4 * kernel_s * 1e6:8.3f} µs/step (one-state calls)")
    print(f"  ratio inside / simulate {per_inside / sim_s:8.4f} (target ≤ 2)")
    print(f"  ratio inside / kernel×4 {per_inside / (4 * kernel_s):8.4f}")
    print(f"  same end state: {np.allclose(end_fmpy, end_inside, rtol=1e-9, atol=1e-12)}")


if __name__ == "__main__":
    main()

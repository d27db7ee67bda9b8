"""The Whipple bicycle benchmark: linearize about upright straight running, find the stable speeds.

Builds the bicycle of Meijaard, Papadopoulos, Ruina and Schwab (2007) from its four rigid
bodies with rolling constraints (ld.zoo "whipple_bicycle"), linearizes the full nonlinear
equations about upright straight running, prints the benchmark's M, C1, K0, K2
(M q̈ + v C1 q̇ + (g K0 + v² K2) q = f, q = (roll, steer)), the eigenvalues at 5 m/s and the
weave and capsize speeds that bound the self-stable range, and plots the real parts of the
eigenvalues against the forward speed 0..10 m/s.

Usage: ``python examples/whipple_bicycle.py [OUTDIR]``; with OUTDIR (and matplotlib), writes
``whipple_bicycle_eigenvalues.png`` there; without it, writes no file.
"""

import sys
from pathlib import Path

import numpy as np

import lagdyn as ld
from lagdyn._files import atomic_path

bike = ld.zoo.get("whipple_bicycle")  # the derivation (~20-40 s) happens once per process
M, C1, K0, K2 = bike.benchmark_matrices()
np.set_printoptions(precision=10, suppress=True)
for name, value in (("M", M), ("C1", C1), ("K0", K0), ("K2", K2)):
    print(f"{name} =\n{value}")

A, B = bike.linearize(speed=5.0)  # states (roll, steer, roll rate, steer rate)
print("eigenvalues at 5 m/s:", np.round(bike.eigenvalues(5.0), 6))
weave, capsize = bike.stability_speeds()
print(f"weave speed   {weave:.8f} m/s   (published 4.29238254)")
print(f"capsize speed {capsize:.8f} m/s   (published 6.02426202)")
print(f"self-stable between {weave:.3f} and {capsize:.3f} m/s")

speeds = np.linspace(0.0, 10.0, 101)
spectra = np.array([bike.eigenvalues(v) for v in speeds])  # sorted by real part

if len(sys.argv) < 2:
    print("no output directory given: no figure written")
    sys.exit(0)
try:
    from matplotlib.figure import Figure
except ImportError:  # the plot is optional: pip install 'lagdyn[plot]'
    print("matplotlib is not installed: no figure written")
    sys.exit(0)

fig = Figure(figsize=(7, 4.2), layout="constrained")
ax = fig.subplots()
for k in range(4):
    ax.plot(speeds, spectra[:, k].real, ".", markersize=3, color="C0")
ax.plot(speeds, np.abs(spectra.imag).max(axis=1), "--", lw=1, color="C1", label="|Im| (weave)")
ax.axhline(0.0, color="k", lw=0.8)
ax.axvspan(weave, capsize, color="C2", alpha=0.15, label="self-stable")
ax.set_xlabel("forward speed v [m/s]")
ax.set_ylabel("eigenvalues: real part [1/s]")
ax.set_ylim(-10, 10)
ax.set_title("Whipple bicycle (Meijaard et al. 2007): linearized about upright running")
ax.legend(fontsize="small")
ax.grid(alpha=0.3)
out = Path(sys.argv[1]) / "whipple_bicycle_eigenvalues.png"
with atomic_path(out, force=True) as tmp:
    fig.savefig(tmp, dpi=80)
print("wrote", out)

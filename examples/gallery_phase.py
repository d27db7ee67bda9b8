"""Gallery: phase portraits of the double pendulum for a fan of release angles.

Twelve initial states simulated as one batch (x0 of shape (12, 4)): from small, nearly
periodic oscillations to large, irregular ones. One curve per member.

Usage: ``python examples/gallery_phase.py [OUTDIR]``; writes ``phase.png`` and
``timeseries.png``.
"""

import sys
from pathlib import Path

import numpy as np

import lagdyn as ld
from lagdyn import plot
from lagdyn.simulation import simulate

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)

system = ld.zoo.double_pendulum()
angles = np.linspace(0.1, 1.2, 12)
x0 = np.stack([angles, angles, 0 * angles, 0 * angles], axis=-1)  # shape (12, 4)
batch = simulate(system, x0, np.linspace(0.0, 10.0, 1001), method="midpoint")
print("batch shape", batch.batch_shape, "max relative drift", batch.report().relative_energy_drift)

fig = plot.plot_phase(batch)
fig.savefig(out / "phase.png", dpi=80)
fig = plot.plot_timeseries(batch[-1])
fig.savefig(out / "timeseries.png", dpi=80)
print("wrote", out / "phase.png", out / "timeseries.png")

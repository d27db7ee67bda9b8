"""Gallery: a five-link pendulum released from horizontal, animated.

Shows a chain built from point masses by the zoo (``n_link_pendulum(5)``, absolute angles
from the downward vertical), integrated with RK4 over a batch of one, and drawn from the
positions that :func:`lagdyn.plot.positions_for` knows for the zoo model.

Usage: ``python examples/gallery_n_link.py [OUTDIR]``; writes ``n_link.gif`` and
``n_link.png``.
"""

import sys
from pathlib import Path

import numpy as np

import lagdyn as ld
from lagdyn import plot
from lagdyn.simulation import simulate

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)

system = ld.zoo.get("n_link_pendulum", n=5)
x0 = np.concatenate([np.full(5, np.pi / 2), np.zeros(5)])  # all links horizontal, at rest
result = simulate(system, x0, np.linspace(0.0, 4.0, 401), substeps=2)
print(result.report())

positions = plot.positions_for("n_link_pendulum", system)
fig = plot.plot_chain(result, positions, count=6)
fig.axes[0].set_title("five-link pendulum released from horizontal")
fig.savefig(out / "n_link.png", dpi=80)
plot.animate(
    result,
    positions,
    out / "n_link.gif",
    fps=15,
    figsize=(3.2, 3.2),
    dpi=60,
    trail=1.0,
    force=True,  # regenerating the gallery replaces its GIF
)
print("wrote", out / "n_link.png", out / "n_link.gif")

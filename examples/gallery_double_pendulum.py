"""Gallery: a double pendulum swinging — a stroboscopic PNG and an animated GIF.

Shows the whole path in a few lines: the zoo model (seed 003, absolute angles from the
downward vertical) is lambdified, simulated with the symplectic implicit midpoint rule,
drawn with :func:`lagdyn.plot.plot_chain` and animated with :func:`lagdyn.plot.animate`.

Usage: ``python examples/gallery_double_pendulum.py [OUTDIR]`` (default
``docs/assets/gallery``); writes ``double_pendulum.png`` and ``double_pendulum.gif``.
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
model = system.lambdify(system.defaults)
t = np.linspace(0.0, 6.0, 601)
result = simulate(model, [2.0, 2.4, 0.0, 0.0], t, method="midpoint", substeps=2)
print(result.report())

positions = plot.positions_for("double_pendulum", system)
fig = plot.plot_chain(result, positions, count=10)
fig.axes[0].set_title("double pendulum, a(0) = 2.0, b(0) = 2.4 (rad)")
fig.savefig(out / "double_pendulum.png", dpi=80)
plot.animate(
    result,
    positions,
    out / "double_pendulum.gif",
    fps=15,
    figsize=(3.2, 3.2),
    dpi=60,
    trail=1.5,
    force=True,  # regenerating the gallery replaces its GIF
)
print("wrote", out / "double_pendulum.png", out / "double_pendulum.gif")

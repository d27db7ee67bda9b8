"""Gallery: chaos in the double pendulum — two initial states 10⁻⁸ rad apart.

The distance between the two trajectories grows exponentially (a straight line on the log
scale, slope ≈ the largest Lyapunov exponent) until it saturates at the size of the
attractor; the angles then have nothing in common.

Usage: ``python examples/gallery_chaos.py [OUTDIR]``; writes ``chaos.png``.
"""

import sys
from pathlib import Path

from lagdyn import plot

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)

fig = plot.plot_chaos(x0=[2.0, 2.4, 0.0, 0.0], delta=1e-8, t=20.0, dt=0.01)
print(f"fitted growth rate λ ≈ {fig.lyapunov:.2f} / s")
fig.savefig(out / "chaos.png", dpi=80)
print("wrote", out / "chaos.png")

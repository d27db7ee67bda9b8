"""Gallery: energy behaviour of RK4 and the implicit midpoint rule, and a passivity balance.

Left: the double pendulum released from rest, integrated for 60 s with the same step
h = 0.02 by classical RK4 (accurate, but its energy error creeps upward) and by the
symplectic implicit midpoint rule (a larger but bounded error with no drift). Right: the
same pendulum driven by a random torque; E(t) − E(0) follows the injected work ∫q̇ᵀτ dt
and the passivity residual stays at integration error.

Usage: ``python examples/gallery_energy.py [OUTDIR]``; writes ``energy.png``.
"""

import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import lagdyn as ld
from lagdyn import plot
from lagdyn.simulation import simulate

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)

system = ld.zoo.double_pendulum()
model = system.lambdify(system.defaults)
x0 = [1.0, 1.5, 0.0, 0.0]
t = np.linspace(0.0, 60.0, 3001)

fig = Figure(figsize=(10, 3.6), layout="constrained")
ax_e, ax_p = fig.subplots(1, 2)
for method in ("rk4", "midpoint"):
    res = simulate(model, x0, t, method=method)
    print(method, res.report().lines().splitlines()[1])
    plot.plot_energy(res, ax=ax_e, relative=True, log=True)
for line, color in zip(ax_e.lines, ("C0", "C1")):
    line.set_color(color)
ax_e.legend(fontsize="small")
ax_e.set_title("conservative: |E(t) − E(0)| / |E(0)|, step 0.02")

rng = np.random.default_rng(0)
t2 = np.linspace(0.0, 10.0, 1001)
tau = np.cumsum(rng.normal(scale=0.3, size=(1001, 2)), axis=0)  # a random-walk torque
driven = simulate(model, x0, t2, tau=tau)
ax_p.plot(driven.t, driven.energy_drift, label="E(t) − E(0)")
ax_p.plot(driven.t, driven.work, "--", label="∫ q̇ᵀτ dt")
ax_p.plot(driven.t, 100 * driven.passivity_residual, ":", label="residual × 100")
ax_p.set_xlabel("t")
ax_p.set_title("driven by a random torque: the passivity balance")
ax_p.grid(alpha=0.3)
ax_p.legend(fontsize="small")
print("driven:", driven.report().lines().splitlines()[2])
fig.savefig(out / "energy.png", dpi=80)
print("wrote", out / "energy.png")

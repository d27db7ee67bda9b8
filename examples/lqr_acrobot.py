"""Balance Spong's acrobot upright with LQR on the elbow motor only.

Shows ld.control on an underactuated arm: the upright equilibrium found by Newton's
method, the numeric linearization, an LQR gain using only the elbow column of B, and
the nonlinear closed loop from a perturbed state.

Usage: ``python examples/lqr_acrobot.py [OUTDIR]``; writes ``lqr_acrobot.png`` (states and
input against time) to OUTDIR, by default the gallery (``docs/assets/gallery``).
"""

import sys
from pathlib import Path

import numpy as np

import lagdyn as ld

acro = ld.zoo.acrobot()
up = ld.control.equilibrium(acro, [1.5, 0.05])
print("upright equilibrium:", up.round(12))
A, B = acro.linearize(up, params=acro.defaults)
K, _, E = ld.control.lqr(A, B[:, 1:], np.eye(4), np.eye(1))
print("K =", K.round(2), " closed-loop eigenvalues:", np.sort_complex(E).round(3))
x_up = np.concatenate([up, np.zeros(2)])


def tau(t, q, qd):
    u = -((np.concatenate([q, qd], axis=-1) - x_up) @ K.T)[..., 0]
    return np.stack([np.zeros_like(u), u], axis=-1)


res = ld.simulate(acro, x_up + np.array([0.05, -0.03, 0.0, 0.0]), 8.0, tau=tau, dt=0.005)
err = np.abs(res.q[-1] - up).max()
print(
    f"final deviation from upright: {err:.2e} rad; peak elbow torque "
    f"{np.abs(tau(res.t, res.q, res.qd)[:, 1]).max():.2f} N m"
)
assert err < 1e-4

try:
    from matplotlib.figure import Figure
except ImportError:  # the plot is optional: pip install 'lagdyn[plot]'
    print("matplotlib is not installed: no figure written")
    sys.exit(0)

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)
fig = Figure(figsize=(10, 3.4), layout="constrained")
ax_q, ax_v, ax_u = fig.subplots(1, 3)
for k, name in enumerate(("q1", "q2")):
    ax_q.plot(res.t, res.q[:, k] - up[k], label=f"{name} − {name}* [rad]")
    ax_v.plot(res.t, res.qd[:, k], label=f"d{name}/dt [rad/s]")
ax_q.set_title("deviation from upright")
ax_v.set_title("rates")
ax_u.plot(res.t, tau(res.t, res.q, res.qd)[:, 1], color="C3", label="elbow torque [N m]")
ax_u.set_title("input u = −K (x − x*)")
for ax in (ax_q, ax_v, ax_u):
    ax.set_xlabel("t [s]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
fig.suptitle("acrobot: LQR on the elbow motor only, nonlinear closed loop")
fig.savefig(out / "lqr_acrobot.png", dpi=80)
print("wrote", out / "lqr_acrobot.png")

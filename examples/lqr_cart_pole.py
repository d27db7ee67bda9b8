"""Stabilise the cart-pole upright with LQR designed on the exact linearization.

Shows ld.control: the equilibrium, the linearization (exact symbolic and numeric
from generated Jacobians), the LQR gain, and the closed loop simulated on the full
nonlinear model from a perturbed state.

Usage: ``python examples/lqr_cart_pole.py [OUTDIR]``; writes ``lqr_cart_pole.png`` (states
and input against time) to OUTDIR, by default the gallery (``docs/assets/gallery``).
"""

import sys
from pathlib import Path

import numpy as np

import lagdyn as ld

cp = ld.zoo.cart_pole()
A_sym, B_sym = cp.linearize([0, 0])  # exact, in the parameters
print("A (symbolic) row theta_dd:", A_sym[3, :])
A, B = cp.linearize([0.0, 0.0], params=cp.defaults)  # numbers, from generated kernels
B_force = B[:, :1]  # only the cart is pushed
K, P, E = ld.control.lqr(A, B_force, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
print("K =", K.round(3), " closed-loop eigenvalues:", np.sort_complex(E).round(3))


def tau(t, q, qd):
    x = np.concatenate([q, qd], axis=-1)
    u = -(x @ K.T)[..., 0]
    return np.stack([u, np.zeros_like(u)], axis=-1)


x0 = [0.2, 0.25, 0.0, 0.0]  # cart 0.2 m off, pole tilted 0.25 rad
res = ld.simulate(cp, x0, 10.0, tau=tau, dt=0.01)
print(f"final state: q = {res.q[-1].round(6)}, qd = {res.qd[-1].round(6)}")
assert np.abs(res.q[-1]).max() < 1e-3

# gallery figure: states and input against time
try:
    from matplotlib.figure import Figure
except ImportError:  # the plot is optional: pip install 'lagdyn[plot]'
    print("matplotlib is not installed: no figure written")
    sys.exit(0)

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs/assets/gallery"
out.mkdir(parents=True, exist_ok=True)
fig = Figure(figsize=(10, 3.4), layout="constrained")
ax_q, ax_v, ax_u = fig.subplots(1, 3)
ax_q.plot(res.t, res.q[:, 0], label="x [m]")
ax_q.plot(res.t, res.q[:, 1], label="θ [rad]")
ax_q.set_title("positions")
ax_v.plot(res.t, res.qd[:, 0], label="dx/dt [m/s]")
ax_v.plot(res.t, res.qd[:, 1], label="dθ/dt [rad/s]")
ax_v.set_title("rates")
ax_u.plot(res.t, tau(res.t, res.q, res.qd)[:, 0], color="C3", label="force on the cart [N]")
ax_u.set_title("input u = −K x")
for ax in (ax_q, ax_v, ax_u):
    ax.set_xlabel("t [s]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
fig.suptitle("cart-pole: LQR on the exact linearization, nonlinear closed loop")
fig.savefig(out / "lqr_cart_pole.png", dpi=80)
print("wrote", out / "lqr_cart_pole.png")

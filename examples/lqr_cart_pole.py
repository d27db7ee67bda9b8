"""Stabilise the cart-pole upright with LQR designed on the exact linearization.

Shows ld.control: the equilibrium, the linearization (exact symbolic and numeric
from generated Jacobians), the LQR gain, and the closed loop simulated on the full
nonlinear model from a perturbed state. With an output directory as first argument
and matplotlib installed, a plot of the response is written there.
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

if len(sys.argv) > 1:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        sys.exit(0)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(6, 3))
    ax = fig.subplots()
    ax.plot(res.t, res.q[:, 0], label="x [m]")
    ax.plot(res.t, res.q[:, 1], label="θ [rad]")
    ax.set_xlabel("t [s]")
    ax.legend()
    fig.savefig(out / "lqr_cart_pole.png", dpi=100)

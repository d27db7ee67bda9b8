"""Balance Spong's acrobot upright with LQR on the elbow motor only.

Shows ld.control on an underactuated arm: the upright equilibrium found by Newton's
method, the numeric linearization, an LQR gain using only the elbow column of B, and
the nonlinear closed loop from a perturbed state.
"""

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

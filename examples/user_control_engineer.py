"""A control engineer's first session: linearize a cart-pole, design an LQR, simulate.

Written from the docs alone (docs/control.md): the zoo's cart-pole (x the cart, θ the pole
from the upward vertical) is linearized at the upright equilibrium — exactly, in its
parameters, then numerically at the default values —, checked for controllability from the
cart force alone, stabilized by an LQR on that force, and the closed loop is simulated on
the full nonlinear model from a 15° tilt; the script reports the closed-loop poles, the peak
force and how close to upright it ends.
"""

import numpy as np

import lagdyn as ld

cp = ld.zoo.cart_pole()
print(f"cart-pole: q = {[str(c) for c in cp.q]}, parameters {cp.defaults}")

A_exact, B_exact = cp.linearize([0, 0])  # sympy matrices in mc, mp, l, Ip, g
print("∂θ̈/∂θ at the top:", A_exact[3, 1])
A, B = cp.linearize([0.0, 0.0], params=cp.defaults)  # numpy arrays
B1 = B[:, :1]  # only the cart is pushed
ctrb = np.hstack([np.linalg.matrix_power(A, k) @ B1 for k in range(4)])
print(f"open-loop poles {np.sort_complex(np.linalg.eigvals(A)).round(3)}")
print(f"controllability matrix rank {np.linalg.matrix_rank(ctrb)} of 4")
assert np.linalg.matrix_rank(ctrb) == 4

K, P, poles = ld.control.lqr(A, B1, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
print(f"LQR gain K = {K.round(2)}; closed-loop poles {np.sort_complex(poles).round(3)}")
assert np.all(poles.real < 0)


def tau(t, q, qd):  # u = −K x on the cart, nothing on the pole
    u = -(np.concatenate([q, qd], axis=-1) @ K.T)[..., 0]
    return np.stack([u, np.zeros_like(u)], axis=-1)


res = ld.simulate(cp, [0.0, np.radians(15.0), 0.0, 0.0], 8.0, tau=tau, dt=0.01)
print(res.report())
force = np.abs(res.tau[:, 0]).max()
print(f"peak force {force:.2f} N; final |x| = {abs(res.q[-1, 0]):.1e} m, ", end="")
print(f"|θ| = {abs(res.q[-1, 1]):.1e} rad")
assert np.abs(res.q[-1]).max() < 1e-3

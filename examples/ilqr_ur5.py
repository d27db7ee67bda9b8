"""iLQR on a real arm: the UR5 reaches a target configuration with exact step derivatives.

Shows the derivative kernels for optimal control: the UR5's recursive programs
differentiated once (``forward_dynamics_derivatives``, no closed form, no finite
differences), the RK4 step and its Jacobians ∂x_{k+1}/∂(x_k, u_k) along the whole
trajectory in one batched call (``num.step_derivatives``), and iterative LQR (Li &
Todorov 2004: a Riccati backward pass on the linearized step and quadratic cost,
Levenberg–Marquardt regularisation, a line search on the nonlinear rollout) moving the
arm from rest at q0 to rest at a target configuration in one second. The cost decrease
and the final position and velocity errors are printed.

Usage: ``python examples/ilqr_ur5.py``; ``LAGDYN_FAST=1`` (the test suite) runs fewer
iterations.
"""

import os
import time

import numpy as np

import lagdyn as ld

FAST = os.environ.get("LAGDYN_FAST") == "1"
arm = ld.zoo.get("ur5")
n = arm.n
start = time.perf_counter()
num = arm.lambdify(arm.defaults)  # recursive route: RNEA, CRBA, LDLᵀ
num.forward_dynamics_derivatives(np.zeros(n), np.zeros(n))  # generates the derivative kernels
print(f"UR5 kernels and derivative kernels generated in {time.perf_counter() - start:.1f} s")

dt, N = 0.02, 50  # one second
q0 = np.array([0.0, -1.2, 1.0, -1.4, -1.5, 0.0])
q_goal = np.array([0.8, -0.6, 0.5, -1.0, -1.2, 0.6])
x0 = np.concatenate([q0, np.zeros(n)])
x_goal = np.concatenate([q_goal, np.zeros(n)])
u_goal = num.g(q_goal)  # holding torque at the target
Q = np.diag([1.0] * n + [0.1] * n)
Qf = np.diag([1e4] * n + [1e3] * n)
R = 1e-3 * np.eye(n)


def cost(X, U):
    dx, dxf, du = X[:-1] - x_goal, X[-1] - x_goal, U - u_goal
    running = np.einsum("ki,ij,kj->", dx, Q, dx) + np.einsum("ki,ij,kj->", du, R, du)
    return 0.5 * dt * running + 0.5 * dxf @ Qf @ dxf


def rollout(U, X_ref=None, K=None, k_ff=None, alpha=1.0):
    X = np.empty((N + 1, 2 * n))
    X[0] = x0
    U_new = U.copy()
    for k in range(N):
        if K is not None:
            U_new[k] = U[k] + alpha * k_ff[k] + K[k] @ (X[k] - X_ref[k])
        X[k + 1] = num.step(X[k], U_new[k], dt)
    return X, U_new


def backward(X, U, mu):
    # the step's Jacobians along the whole trajectory: one batched call
    _, A, B = num.step_derivatives(X[:-1], U, dt)
    Vx, Vxx = Qf @ (X[-1] - x_goal), Qf.copy()
    K, k_ff = np.zeros((N, n, 2 * n)), np.zeros((N, n))
    for k in range(N - 1, -1, -1):
        lx, lu = dt * Q @ (X[k] - x_goal), dt * R @ (U[k] - u_goal)
        Qx = lx + A[k].T @ Vx
        Qu = lu + B[k].T @ Vx
        Qxx = dt * Q + A[k].T @ Vxx @ A[k]
        Quu = dt * R + B[k].T @ Vxx @ B[k] + mu * np.eye(n)
        Qux = B[k].T @ Vxx @ A[k]
        try:
            L = np.linalg.cholesky(Quu)
        except np.linalg.LinAlgError:
            return None
        k_ff[k] = -np.linalg.solve(L.T, np.linalg.solve(L, Qu))
        K[k] = -np.linalg.solve(L.T, np.linalg.solve(L, Qux))
        Vx = Qx + K[k].T @ Quu @ k_ff[k] + K[k].T @ Qu + Qux.T @ k_ff[k]
        Vxx = Qxx + K[k].T @ Quu @ K[k] + K[k].T @ Qux + Qux.T @ K[k]
        Vxx = 0.5 * (Vxx + Vxx.T)
    return K, k_ff


start = time.perf_counter()
U = np.tile(num.g(q0), (N, 1))  # gravity compensation at the start
X, U = rollout(U)
J0 = J = cost(X, U)
mu = 1e-6
iterations = 0
for _ in range(8 if FAST else 30):
    iterations += 1
    gains = backward(X, U, mu)
    if gains is None:
        mu *= 10
        continue
    for alpha in (1.0, 0.5, 0.25, 0.1, 0.03):
        X_new, U_new = rollout(U, X, *gains, alpha)
        J_new = cost(X_new, U_new)
        if J_new < J:
            break
    else:
        mu *= 10
        continue
    improvement = (J - J_new) / J
    X, U, J = X_new, U_new, J_new
    mu = max(mu / 10, 1e-9)
    if improvement < 1e-6:
        break
took = time.perf_counter() - start
err_q = np.abs(X[-1, :n] - q_goal).max()
err_v = np.abs(X[-1, n:]).max()
print(f"iLQR: {iterations} iterations in {took:.2f} s, cost {J0:.4g} -> {J:.4g}")
print(f"final joint error {err_q:.2e} rad, final speed {err_v:.2e} rad/s")
print(f"peak torque {np.abs(U).max():.1f} N m")
assert J < 0.05 * J0 and err_q < 0.05

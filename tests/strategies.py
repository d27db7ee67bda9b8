"""Hypothesis strategies: random quadratic Lagrangians and random states.

A random Lagrangian has a configuration-dependent mass matrix M = A(q)ᵀA(q) + εI
(trig and polynomial entries), a random potential, optionally a gyroscopic term
b(q)ᵀq̇ and optionally viscous generalized forces.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from hypothesis import strategies as st

import lagdyn as ld


@dataclass
class RandomLagrangian:
    L: sp.Expr
    q: tuple
    forces: list | None
    params: dict
    gyroscopic: bool


def _atom(draw, q, k: int) -> sp.Expr:
    n = len(q)
    kind = draw(st.sampled_from(["const", "cos", "sin", "cosdiff", "poly", "sinsum"]))
    c = sp.Integer(draw(st.integers(-2, 2))) or sp.Integer(1)
    i = draw(st.integers(0, n - 1))
    j = draw(st.integers(0, n - 1))
    if kind == "const":
        return c
    if kind == "cos":
        return c * sp.cos(q[i])
    if kind == "sin":
        return c * sp.sin(q[i])
    if kind == "cosdiff":
        return c * sp.cos(q[i] - q[j])
    if kind == "sinsum":
        return c * sp.sin(q[i] + 2 * q[j])
    return c * q[i] / 2


@st.composite
def random_lagrangians(
    draw, max_n: int = 4, gyroscopic: bool | None = None, forces: bool | None = None
):
    n = draw(st.integers(1, max_n))
    q = ld.coordinates([f"q{i + 1}" for i in range(n)])
    qd = ld.velocities(q)
    k_sym, eps = sp.symbols("k_p eps_p", positive=True)
    A = sp.Matrix(n, n, lambda i, j: _atom(draw, q, i * n + j) * (k_sym if (i + j) % 2 else 1))
    M = A.T * A + eps * sp.eye(n)
    v = sp.Matrix(qd)
    T = (v.T * M * v)[0, 0] / 2
    V = sum((_atom(draw, q, 0) * k_sym for _ in range(draw(st.integers(0, 3)))), sp.Integer(0))
    L = T - V
    use_gyro = draw(st.booleans()) if gyroscopic is None else gyroscopic
    if use_gyro:
        B = sp.Symbol("B_p", positive=True)
        L += sum(B * _atom(draw, q, 1) * qd[i] for i in range(n))
    use_forces = draw(st.booleans()) if forces is None else forces
    fl = None
    if use_forces:
        c = sp.Symbol("c_p", positive=True)
        fl = [-c * qd[i] + (sp.sin(q[(i + 1) % n]) if n > 1 else 0) for i in range(n)]
    params = {
        k_sym: 0.7,
        eps: 1.3,
        sp.Symbol("B_p", positive=True): 0.4,
        sp.Symbol("c_p", positive=True): 0.2,
    }
    return RandomLagrangian(L, q, fl, params, use_gyro)


def states(n: int):
    """Random (q, qd) pairs as float lists."""
    ang = st.floats(-3.0, 3.0, allow_nan=False)
    return st.tuples(st.lists(ang, min_size=n, max_size=n), st.lists(ang, min_size=n, max_size=n))

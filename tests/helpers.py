"""Test helpers: numeric evaluation of symbolic results and independent references."""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod

import lagdyn as ld


def numeric_subs(system, q, qd, params, tau=None):
    """Substitution dict for a state (q, qd) and parameter values."""
    sub = dict(params)
    for s, v in zip(system.qd, qd):
        sub[s] = v
    for s, v in zip(system.q, q):
        sub[s] = v
    if tau is not None:
        for s, v in zip(system.tau, tau):
            sub[s] = v
    return sub


def evalf_matrix(expr, sub) -> np.ndarray:
    """Evaluate a sympy matrix at a substitution (rates replaced before coordinates)."""
    rates = {k: v for k, v in sub.items() if isinstance(k, sp.Derivative)}
    rest = {k: v for k, v in sub.items() if not isinstance(k, sp.Derivative)}
    m = sp.Matrix(expr).subs(rates).subs(rest)
    return np.array(m.evalf(20), dtype=float)


def lagdyn_qdd(system, q, qd, params, tau) -> np.ndarray:
    """q̈ from lagdyn's M, C, G, g and forces at one state."""
    sub = numeric_subs(system, q, qd, params)
    M = evalf_matrix(system.M, sub)
    h = evalf_matrix(
        system.C * sp.Matrix(system.qd) + system.G * sp.Matrix(system.qd) + system.g, sub
    )
    Q = evalf_matrix(system.forces, {**sub, ld.t: 0.0})
    return np.linalg.solve(M, np.asarray(tau, float) + Q.ravel() - h.ravel())


def lagranges_qdd(L, q, forces, q0, qd0, params, tau) -> np.ndarray:
    """q̈ from sympy.physics.mechanics.LagrangesMethod for the same L (forces added to its forcing)."""
    lm = LagrangesMethod(L, list(q))
    lm.form_lagranges_equations()
    qd = [x.diff(ld.t) for x in q]
    sub_r = dict(zip(qd, qd0))
    sub_q = {**dict(zip(q, q0)), **params}
    MM = np.array(lm.mass_matrix.subs(sub_r).subs(sub_q).evalf(20), dtype=float)
    F = np.array(lm.forcing.subs(sub_r).subs(sub_q).evalf(20), dtype=float).ravel()
    if forces is not None:
        F = F + np.array(sp.Matrix(forces).subs(sub_r).subs(sub_q).evalf(20), dtype=float).ravel()
    return np.linalg.solve(MM, np.asarray(tau, float) + F)


def n_link_pendulum(n: int) -> ld.LagrangianSystem:
    """n point masses on massless rods, joint (relative) angles th1..thn."""
    q = ld.coordinates([f"th{i + 1}" for i in range(n)])
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    ln = sp.symbols(f"l1:{n + 1}", positive=True)
    g = sp.Symbol("g", positive=True)
    x = y = ang = T = U = sp.Integer(0)
    for i in range(n):
        ang = ang + q[i]
        x = x + ln[i] * sp.sin(ang)
        y = y - ln[i] * sp.cos(ang)
        vx, vy = x.diff(ld.t), y.diff(ld.t)
        T += m[i] * (vx**2 + vy**2) / 2
        U += m[i] * g * y
    defaults = {**{s: 1.0 + 0.1 * i for i, s in enumerate(m)}, **{s: 0.5 for s in ln}, g: 9.81}
    return ld.LagrangianSystem.from_energies(T, U, q, defaults=defaults)

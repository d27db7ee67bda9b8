"""Test helpers: numeric evaluation of symbolic results and independent references."""

from __future__ import annotations

import functools
import numbers
from pathlib import Path

import numpy as np
import symengine as se
import sympy as sp
from sympy.physics.mechanics import LagrangesMethod

import lagdyn as ld
from lagdyn import recursive as recursive_programs
from lagdyn.robot.system import closed_form_symengine


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


def _floats(sub) -> dict:
    return {
        k: v if isinstance(v, sp.Basic) or not isinstance(v, numbers.Real) else sp.Float(v, 30)
        for k, v in sub.items()
    }


def evalf_matrix(expr, sub) -> np.ndarray:
    """Evaluate a sympy matrix at a substitution (rates replaced before coordinates).

    ``xreplace`` (structural, exact for the rate and coordinate atoms) with 30-digit floats
    is many times faster than ``subs`` on large derived expressions.
    """
    rates = {k: v for k, v in sub.items() if isinstance(k, sp.Derivative)}
    rest = {k: v for k, v in sub.items() if not isinstance(k, sp.Derivative)}
    m = sp.Matrix(expr).xreplace(_floats(rates)).xreplace(_floats(rest))
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
    sub = {**dict(zip(qd, qd0)), **dict(zip(q, q0)), **params}
    MM = evalf_matrix(lm.mass_matrix, sub)
    F = evalf_matrix(lm.forcing, sub).ravel()
    if forces is not None:
        F = F + evalf_matrix(sp.Matrix(forces), sub).ravel()
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


def tiny_system() -> ld.LagrangianSystem:
    """A one-coordinate quartic oscillator (cheap to generate and compile)."""
    x = ld.coordinates("x")[0]
    (xd,) = ld.velocities([x])
    return ld.LagrangianSystem(xd**2 / 2 - x**4 / 4, [x])


def cache_worker(args: tuple[str, str]) -> list[float]:
    """Generate (writer) and load again (reader) the tiny system in ``cache_dir``; run in
    spawned processes by tests/codegen/test_cache.py, so it must live in an importable
    module."""
    from lagdyn.numeric import lambdify

    cache_dir, backend = args
    num = lambdify(tiny_system(), backend=backend, cache_dir=cache_dir)
    again = lambdify(tiny_system(), backend=backend, cache_dir=cache_dir)
    return [float(num.forward_dynamics([0.5], [0.0])[0]), float(again.g([2.0])[0])]


# ---------------------------------------------------------------------- robot chains
# Shared by tests/robot and tests/recursive: closed forms evaluated without a derivation,
# zoo arms and their compiled programs cached once per worker, the rrp tree of tests/data.
DATA = Path(__file__).parent / "data"
TREE = DATA / "rrp_tree.urdf"


def closed_numeric(system):
    """Closed-form M(q), ∂U/∂q and U(q) evaluated by symengine substitution (no derivation path)."""
    M, U, qs = closed_form_symengine(system.chain)
    n = system.n
    bind = {se.Symbol(s.name): v for s, v in system.defaults.items()}
    Mb = M.subs(bind)
    gb = [U.subs(bind).diff(s) for s in qs]

    def at(q):
        return {s: float(x) for s, x in zip(qs, q)}

    return (
        lambda q: np.array([float(x) for x in Mb.subs(at(q))]).reshape(n, n),
        lambda q: np.array([float(e.subs(at(q))) for e in gb]),
        lambda q: float(U.subs(bind).subs(at(q))),
    )


@functools.cache
def zoo(name):
    """Zoo arms shared by the tests of this module (their programs are cached on them)."""
    return ld.zoo.get(name)


_COMPILED: dict = {}


def compiled(system, name):
    key = (id(system), name)
    if key not in _COMPILED:
        _COMPILED[key] = (system, system.program(name).lambdify(system.defaults))
    return _COMPILED[key][1]


def states(n, seed, count=4):
    rng = np.random.default_rng(seed)
    return [tuple(rng.uniform(-2, 2, n) for _ in range(4)) for _ in range(count)]


_TREE = {}


def tree_model():
    if not _TREE:
        tree = ld.robot.from_urdf(TREE, parameters="numeric")
        _TREE["tree"] = tree
        _TREE["closed"] = closed_numeric(tree)
        _TREE["f"] = {k: compiled(tree, k) for k in ("M", "g", "C", "h", "tau")}
        aba = recursive_programs.forward_dynamics(tree.chain, method="aba")
        _TREE["f"]["aba"] = aba.lambdify(tree.defaults)
        _TREE["E"] = tree.lambdify(tree.defaults, route="recursive").energy
    return _TREE


@functools.cache
def recursive(name):
    """The recursive-route NumericModel (numpy) of a zoo arm with its defaults, shared."""
    return zoo(name).lambdify(zoo(name).defaults, route="recursive")


def rel(a, b):
    """Largest absolute difference relative to the largest entry of ``b``."""
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def pendulum_bodies(n, relative, positive=True):
    """Point masses of an n-link planar pendulum (absolute or relative angles) as bodies."""
    q = ld.coordinates(" ".join(f"q{i}" for i in range(1, n + 1)))
    kw = {"positive": True} if positive else {}
    m = sp.symbols(f"m1:{n + 1}", **kw)
    lengths = sp.symbols(f"l1:{n + 1}", **kw)
    angles = [sum(q[: k + 1]) for k in range(n)] if relative else list(q)
    x = y = sp.Integer(0)
    bodies = []
    for k in range(n):
        x, y = x + lengths[k] * sp.sin(angles[k]), y - lengths[k] * sp.cos(angles[k])
        bodies.append(ld.kinematics.Particle(m[k], (x, y)))
    return bodies, q, m, lengths


def robot_path(package, filename):
    """The path of an example-robot-data URDF, or skip the calling test when it is missing."""
    import pytest

    from lagdyn.robot._data import urdf_path

    try:
        return urdf_path(package, filename)
    except ImportError as exc:
        pytest.skip(f"example-robot-data is not installed: {exc}")


def pin_config(model, q):
    """Pinocchio's configuration vector of joint angles q (continuous joints are (cos θ, sin θ))."""
    out = []
    for joint, x in zip(model.joints[1:], q):
        out.extend([np.cos(x), np.sin(x)] if joint.nq == 2 else [x])
    return np.array(out)

r"""Frictional, unilateral point contacts with a level ground: one time step at a time.

The contact problem of Moreau–Jean time stepping at the velocity level, as Pinocchio 4's
constraint solvers, MuJoCo's and Drake's discrete solvers pose it. Over a step of length
``dt`` from (q, v) with torques τ:

.. math::
    v_{free} = v + dt\,M^{-1}(\tau - h), \qquad
    G = J M^{-1} J^T + R, \qquad g = J v_{free} + c,

    \sigma = G\lambda + g,\quad \lambda \in K_\mu,\quad
    \sigma + \mu\lVert\sigma_t\rVert e_n \in K_\mu^*,\quad
    \lambda \perp \sigma + \mu\lVert\sigma_t\rVert e_n,

    v^+ = v_{free} + M^{-1}J^T\lambda, \qquad q^+ = q \oplus dt\,v^+.

- the rows J are the *point* contacts' rows in ``local_world_aligned`` axes (x, y tangent,
  z the ground normal, world z up); the ground is the plane z = ``ground`` (or one height
  under each contact); a contact is **active** when its frame's origin is within
  ``margin`` of the ground, or would reach it during the step at its free velocity
  (φ + dt (J v_free)_n ≤ margin, φ = p_z − ground its gap: "speculative" contacts, so a
  fast foot cannot pass through the ground in one step); an inactive contact has λ = 0;
- λ (..., 3k) are **impulses** (N s), one (λ_x, λ_y, λ_n) a contact, in the Coulomb cone
  K_μ = {‖λ_t‖ ≤ μ λ_n}; σ is the contact velocity after the step (plus c); the
  De Saxcé correction μ‖σ_t‖e_n makes the cone complementarity the Coulomb law: a contact
  separates (λ = 0, σ_n ≥ 0), sticks (‖λ_t‖ < μλ_n, σ = 0) or slides (‖λ_t‖ = μλ_n,
  σ_n = 0, λ_t = −μλ_n σ_t/‖σ_t‖: maximum dissipation);
- R = ``compliance`` · I (default 0, rigid): soft contacts (σ = J v⁺ + Rλ: a sticking
  contact sinks at Rλ_n); it makes the solution unique where G is singular (more contacts
  than the robot has freedoms to oppose), but a small R makes Gauss–Seidel slow there
  (docs/contacts.md);
- c is the gap term of the normal rows: c_n = φ/dt for a contact above the ground (the
  foot may close the gap during the step, not go past it) and ``correction`` · φ/dt for
  a penetration (φ < 0: a fraction ``correction`` of it, 0.2 by default, is removed per
  step, Baumgarte-like; ``correction=0``: none).

The problem is solved by projected Gauss–Seidel over the contacts (:func:`solve_ncp`): each
contact's normal impulse is updated exactly (a clamp), then its tangential impulse by the
exact minimiser of the contact's 2 × 2 quadratic over the disc ‖λ_t‖ ≤ μλ_n (a trust-region
step, Newton on its secular equation); the fixed points are exactly the De Saxcé solutions.
It iterates until the natural-map residual of every contact, in m/s,
‖λ − P_K(λ − ρ(σ + μ‖σ_t‖e_n))‖ / ρ (ρ = 3 / trace G_ii), is at most ``tol``.
Vectorised over the states: the loops run over iterations and contacts only. A state
left above ``tol`` after ``max_iter`` sweeps is handed to ADMM (the alternating direction
method of multipliers on G + ρI, as Pinocchio's ``ADMMConstraintSolver``; ``method="admm"``
runs it first), which converges where Gauss–Seidel is slow — a singular G, a rigid body on
more contacts than it has freedoms, a small compliance — or cycles (a large μ with a strong
normal–tangent coupling); a state left after that gets a last pass (nonsmooth Gauss–Seidel:
each contact's 3 × 3 problem solved exactly, in floats); a state still above ``tol`` is
reported (``on_failure``), never returned silently.

Not supported (refused by name): surface contacts (6 rows), loops, contacts in ``"local"``
axes, other ground shapes than a level plane, rolling or torsional friction, restitution
(impacts are plastic: a landing foot stops along the normal).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.robot.friction import EXAMPLE_BOX
>>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
>>> num = box.lambdify({"g": 9.81}, kernels=["M", "bias"])
>>> feet = num.contacts(["c1", "c2", "c3", "c4"])       # the four bottom corners
>>> q, v = box.neutral(), np.zeros(7)
>>> q[2] = 0.05                                          # the corners on z = 0
>>> v[0] = 1.0                                           # sliding along x at 1 m/s
>>> s = feet.step(q, v, np.zeros(7), 0.01, mu=0.5)
>>> round(float(s.v[0]), 6)                              # 1 − μ g dt
0.95095
>>> s.active.tolist(), bool(s.converged)
([True, True, True, True], True)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..errors import ConstraintError, LagdynError, LagdynWarning, ShapeError
from ..numeric.model import chol_solve as _chol_solve
from ..numeric.model import real_last as _real

__all__ = [
    "EXAMPLE_BOX",
    "FrictionStep",
    "FrictionWarning",
    "NCPSolution",
    "Rollout",
    "cone_projection",
    "rollout",
    "solve_ncp",
    "step",
]

#: A 1 kg box (0.2 × 0.2 × 0.1 m) with a point frame at each of its four bottom corners
#: (``c1`` … ``c4``), 5 cm below its centre of mass, and a flywheel (0.2 kg of the 1 kg)
#: on a joint about z through the centre (lagdyn's floating bases need one joint): the
#: sliding-block example. nq = 8, nv = 7.
EXAMPLE_BOX = """<robot name="box">
  <link name="box"><inertial><mass value="0.8"/>
    <inertia ixx="0.0033333" ixy="0" ixz="0" iyy="0.0033333" iyz="0" izz="0.0053333"/>
  </inertial></link>
  <joint name="rotor" type="continuous"><parent link="box"/><child link="wheel"/>
    <axis xyz="0 0 1"/></joint>
  <link name="wheel"><inertial><mass value="0.2"/>
    <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0002"/>
  </inertial></link>
  <joint name="j1" type="fixed"><parent link="box"/><child link="c1"/>
    <origin xyz="0.1 0.1 -0.05"/></joint><link name="c1"/>
  <joint name="j2" type="fixed"><parent link="box"/><child link="c2"/>
    <origin xyz="0.1 -0.1 -0.05"/></joint><link name="c2"/>
  <joint name="j3" type="fixed"><parent link="box"/><child link="c3"/>
    <origin xyz="-0.1 0.1 -0.05"/></joint><link name="c3"/>
  <joint name="j4" type="fixed"><parent link="box"/><child link="c4"/>
    <origin xyz="-0.1 -0.1 -0.05"/></joint><link name="c4"/>
</robot>"""

OnFailure = Literal["raise", "warn", "status"]
#: Batches of at most this many states are solved state by state in Python floats.
_SCALAR_STATES = 2
_ON_FAILURE = ("raise", "warn", "status")
_HUGE = 1e150  # |G|, |g| beyond this: squares overflow in the sweeps
#: The first pass of :func:`solve_ncp` (the other one takes the states it leaves).
SOLVERS = ("pgs", "admm")


class FrictionWarning(LagdynWarning):
    """The contact solver stopped at ``max_iter`` above ``tol`` (``on_failure="warn"``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.friction import EXAMPLE_BOX
    >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(
    ...     ["c1", "c2", "c3", "c4"])
    >>> q, v = box.neutral(), np.zeros(7)
    >>> q[2], v[0] = 0.05, 1.0                      # sliding on its four corners
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     s = feet.step(q, v, np.zeros(7), 0.01, mu=0.5, max_iter=1, tol=1e-15,
    ...                   on_failure="warn")
    >>> [w.category.__name__ for w in caught], bool(s.converged)
    (['FrictionWarning'], False)
    """


@dataclass(frozen=True)
class NCPSolution:
    """The result of :func:`solve_ncp`.

    Attributes
    ----------
    lam : ndarray (..., 3k)
        Impulses, (λ_x, λ_y, λ_n) a contact, each in its cone (0 on inactive contacts).
    sigma : ndarray (..., 3k)
        G λ + g.
    residual : ndarray (...)
        The largest natural-map residual over the contacts (m/s).
    iterations : int
        Gauss–Seidel sweeps run: those of the vectorised pass (it stops when every state
        has converged) plus the longest second pass.
    converged : ndarray (...) of bool
        ``residual <= tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.friction import solve_ncp
    >>> s = solve_ncp(np.eye(3), [0.0, 0.0, -1.0], 0.5)     # pressed down, no slip
    >>> np.round(s.lam, 12) + 0.0, bool(s.converged)
    (array([0., 0., 1.]), True)
    """

    lam: np.ndarray
    sigma: np.ndarray
    residual: np.ndarray
    iterations: int
    converged: np.ndarray


@dataclass(frozen=True)
class FrictionStep:
    """One time step of :func:`step`.

    Attributes
    ----------
    q : ndarray (..., nq)
        q ⊕ dt v⁺.
    v : ndarray (..., nv)
        v⁺.
    lam : ndarray (..., 3k)
        The contact impulses over the step (N s; divide by dt for a mean force), world axes,
        (λ_x, λ_y, λ_n) a contact in the order of the contacts.
    active : ndarray (..., k) of bool
        The contacts at or below ``ground + margin`` at q.
    residual, converged, iterations
        Of :func:`solve_ncp` (residual in m/s).

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.friction import EXAMPLE_BOX
    >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(["c1", "c2"])
    >>> q = box.neutral()
    >>> q[2] = 1.0                                          # in the air
    >>> s = feet.step(q, np.zeros(7), np.zeros(7), 0.01, mu=0.5)
    >>> s.active.tolist(), s.lam.shape, round(float(s.v[2]), 6)
    ([False, False], (6,), -0.0981)
    """

    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    active: np.ndarray
    residual: np.ndarray
    converged: np.ndarray
    iterations: int


@dataclass(frozen=True)
class Rollout:
    """Steps of :func:`rollout`, time first.

    Attributes
    ----------
    t : ndarray (steps + 1,)
    q : ndarray (steps + 1, ..., nq)
    v : ndarray (steps + 1, ..., nv)
    lam : ndarray (steps, ..., 3k)
        The impulses of each step.
    active : ndarray (steps, ..., k) of bool
    residual : ndarray (steps, ...)
    converged : ndarray (steps, ...) of bool

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.friction import EXAMPLE_BOX
    >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(["c1", "c2"])
    >>> q = box.neutral()
    >>> q[2] = 1.0
    >>> r = feet.rollout(q, np.zeros(7), np.zeros(7), 0.01, 3, mu=0.5)
    >>> r.t.shape, r.q.shape, r.lam.shape
    ((4,), (4, 8), (3, 6))
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    active: np.ndarray
    residual: np.ndarray
    converged: np.ndarray


# ---------------------------------------------------------------------- the cone
def cone_projection(x: Any, mu: Any) -> np.ndarray:
    r"""The Euclidean projection of x = (x_t1, x_t2, x_n) (..., 3) onto the Coulomb cone
    K_μ = {‖x_t‖ ≤ μ x_n}; ``mu`` broadcasts against x's leading axes.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.friction import cone_projection
    >>> cone_projection([0.1, 0.0, 1.0], 0.5)          # inside: unchanged
    array([0.1, 0. , 1. ])
    >>> cone_projection([0.0, 0.0, -1.0], 0.5)         # in the polar cone: the apex
    array([0., 0., 0.])
    >>> cone_projection([2.0, 0.0, 1.0], 1.0)          # onto the boundary
    array([1.5, 0. , 1.5])
    """
    x = np.asarray(x, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    xt, xn = x[..., :2], x[..., 2]
    t = np.sqrt(xt[..., 0] ** 2 + xt[..., 1] ** 2)
    inside = t <= mu * xn
    polar = mu * t <= -xn
    a = (mu * t + xn) / (1.0 + mu * mu)
    scale = np.where(t > 0, mu * a / np.where(t > 0, t, 1.0), 0.0)
    out = np.empty(np.broadcast_shapes(x.shape, (*np.shape(mu), 3)))
    out[..., :2] = xt * scale[..., None]
    out[..., 2] = a
    out = np.where(inside[..., None], x, out)
    return np.where((polar & ~inside)[..., None], 0.0, out)


def _residual(
    lam: np.ndarray, sigma: np.ndarray, mu: np.ndarray, rho: np.ndarray, active: np.ndarray
) -> np.ndarray:
    """max over contacts of ‖λ − P_K(λ − ρ y)‖/ρ, y = σ + μ‖σ_t‖e_n; lam, sigma (B, k, 3)."""
    y = sigma.copy()
    y[..., 2] += mu * np.sqrt(sigma[..., 0] ** 2 + sigma[..., 1] ** 2)
    r = lam - cone_projection(lam - rho[..., None] * y, mu)
    r = np.sqrt(np.sum(r * r, axis=-1)) / rho
    return np.max(np.where(active, r, 0.0), axis=-1, initial=0.0)


def _disc_step(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, c0: np.ndarray, c1: np.ndarray, r: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """argmin ½xᵀWx + (c0, c1)·x over ‖x‖ ≤ r, W = [[a, b], [b, c]] ≻ 0, batched (B,)."""
    det = a * c - b * b
    x0 = (b * c1 - c * c0) / det
    x1 = (b * c0 - a * c1) / det
    big = x0 * x0 + x1 * x1 > r * r
    if not big.any():
        return x0, x1
    idx = np.nonzero(big)[0]
    ab, bb, cb, rb = a[idx], b[idx], c[idx], r[idx]
    # W = Q diag(d) Qᵀ, Q the rotation by θ
    th = 0.5 * np.arctan2(2 * bb, ab - cb)
    co, si = np.cos(th), np.sin(th)
    d0 = ab * co * co + 2 * bb * si * co + cb * si * si
    d1 = ab * si * si - 2 * bb * si * co + cb * co * co
    e0 = co * c0[idx] + si * c1[idx]  # Qᵀ c
    e1 = -si * c0[idx] + co * c1[idx]
    y0, y1 = np.zeros(len(idx)), np.zeros(len(idx))
    ok = rb > 0.0  # r = 0: the apex
    if ok.any():
        e0, e1, d0, d1, rb = e0[ok], e1[ok], d0[ok], d1[ok], rb[ok]
        nu = np.zeros(len(rb))
        # Moré–Sorensen: Newton on φ(ν) = 1/‖x(ν)‖ − 1/r, x(ν) = −(D + ν)⁻¹ Qᵀc: φ is
        # concave and increasing, so the iterates increase monotonically to the root
        for _ in range(50):
            p0, p1 = d0 + nu, d1 + nu
            n2 = (e0 / p0) ** 2 + (e1 / p1) ** 2
            s3 = e0 * e0 / p0**3 + e1 * e1 / p1**3  # φ' = s3 / ‖x‖³
            nrm = np.sqrt(n2)
            step = -(1.0 / nrm - 1.0 / rb) * n2 * nrm / s3
            nu = nu + step
            if np.all(np.abs(step) <= 1e-15 * (nu + d0 + d1)):
                break
        z0, z1 = -e0 / (d0 + nu), -e1 / (d1 + nu)
        scale = rb / np.sqrt(z0 * z0 + z1 * z1)  # on the circle exactly
        y0[ok], y1[ok] = z0 * scale, z1 * scale
    x0[idx] = co * y0 - si * y1
    x1[idx] = si * y0 + co * y1
    return x0, x1


def _sweep(
    G: np.ndarray,
    sigma: np.ndarray,
    lam: np.ndarray,
    mus: np.ndarray,
    act: np.ndarray,
) -> None:
    """One Gauss–Seidel sweep over the contacts, in place: per contact the exact normal
    clamp, then the exact tangential disc step (σ kept up to date by G's columns)."""
    k = lam.shape[1]
    for i in range(k):
        n = 3 * i
        on = act[:, i]
        l0, l1, ln = lam[:, i, 0], lam[:, i, 1], lam[:, i, 2]
        new_n = np.maximum(0.0, ln - sigma[:, n + 2] / G[:, n + 2, n + 2]) * on
        sigma += G[:, :, n + 2] * (new_n - ln)[:, None]
        a, b, c = G[:, n, n], G[:, n, n + 1], G[:, n + 1, n + 1]
        c0 = sigma[:, n] - a * l0 - b * l1
        c1 = sigma[:, n + 1] - b * l0 - c * l1
        x0, x1 = _disc_step(a, b, c, c0, c1, mus[i] * new_n)
        x0, x1 = x0 * on, x1 * on
        sigma += G[:, :, n] * (x0 - l0)[:, None] + G[:, :, n + 1] * (x1 - l1)[:, None]
        lam[:, i, 0], lam[:, i, 1], lam[:, i, 2] = x0, x1, new_n


def _residual_one(
    lam: list[float], sigma: list[float], mus: list[float], rho: list[float], act: list[bool]
) -> float:
    """:func:`_residual` of one state, in floats."""
    worst = 0.0
    for i, on in enumerate(act):
        if not on:
            continue
        n, mu, r = 3 * i, mus[i], rho[i]
        s0, s1 = sigma[n], sigma[n + 1]
        yn = sigma[n + 2] + mu * math.hypot(s0, s1)
        x0, x1, xn = lam[n] - r * s0, lam[n + 1] - r * s1, lam[n + 2] - r * yn
        t = math.hypot(x0, x1)
        if t <= mu * xn:
            p0, p1, pn = x0, x1, xn
        elif mu * t <= -xn:
            p0 = p1 = pn = 0.0
        else:
            pn = (mu * t + xn) / (1.0 + mu * mu)
            f = mu * pn / t if t > 0 else 0.0
            p0, p1 = x0 * f, x1 * f
        e = math.sqrt((lam[n] - p0) ** 2 + (lam[n + 1] - p1) ** 2 + (lam[n + 2] - pn) ** 2) / r
        worst = max(worst, e)
    return worst


def _disc_one(a: float, b: float, c: float, c0: float, c1: float, r: float) -> tuple[float, float]:
    """:func:`_disc_step` of one contact, in floats."""
    det = a * c - b * b
    x0 = (b * c1 - c * c0) / det
    x1 = (b * c0 - a * c1) / det
    if x0 * x0 + x1 * x1 <= r * r:
        return x0, x1
    if r <= 0.0:
        return 0.0, 0.0
    th = 0.5 * math.atan2(2 * b, a - c)
    co, si = math.cos(th), math.sin(th)
    d0 = a * co * co + 2 * b * si * co + c * si * si
    d1 = a * si * si - 2 * b * si * co + c * co * co
    e0, e1 = co * c0 + si * c1, -si * c0 + co * c1
    nu = 0.0
    for _ in range(50):
        p0, p1 = d0 + nu, d1 + nu
        n2 = (e0 / p0) ** 2 + (e1 / p1) ** 2
        nrm = math.sqrt(n2)
        step = -(1.0 / nrm - 1.0 / r) * n2 * nrm / (e0 * e0 / p0**3 + e1 * e1 / p1**3)
        nu += step
        if abs(step) <= 1e-15 * (nu + d0 + d1):
            break
    z0, z1 = -e0 / (d0 + nu), -e1 / (d1 + nu)
    f = r / math.hypot(z0, z1)
    y0, y1 = z0 * f, z1 * f
    return co * y0 - si * y1, si * y0 + co * y1


def _local_exact(
    W: list[list[float]], b: list[float], mu: float
) -> tuple[float, float, float] | None:
    """The one-contact De Saxcé problem σ = Wλ + b solved exactly (W 3 × 3 ≻ 0): take-off
    if b_n ≥ 0, else sticking if −W⁻¹b is in the cone, else sliding — λ_t = −μλ_n u with
    σ_n = 0 and σ_t = αu, α ≥ 0: the slip direction u by bisection on the angle (24
    brackets). None if no sliding root is found (then the caller keeps the split step)."""
    bn = b[2]
    if bn >= 0.0:
        return 0.0, 0.0, 0.0
    nn = W[2][2]
    if mu == 0.0:
        return 0.0, 0.0, -bn / nn
    (a, p, w0), (_, c, w1) = W[0], W[1]
    # sticking, Cramer's rule on W λ = −b
    det = a * (c * nn - w1 * w1) - p * (p * nn - w1 * w0) + w0 * (p * w1 - c * w0)
    if det > 0:
        r0, r1, r2 = -b[0], -b[1], -bn
        x0 = (r0 * (c * nn - w1 * w1) - p * (r1 * nn - w1 * r2) + w0 * (r1 * w1 - c * r2)) / det
        x1 = (a * (r1 * nn - w1 * r2) - r0 * (p * nn - w1 * w0) + w0 * (p * r2 - r1 * w0)) / det
        xn = (a * (c * r2 - r1 * w1) - p * (p * r2 - r1 * w0) + r0 * (p * w1 - c * w0)) / det
        if xn > 0 and math.hypot(x0, x1) <= mu * xn:
            return x0, x1, xn

    def slide(phi: float) -> tuple[float, float, float, float, float] | None:
        u0, u1 = math.cos(phi), math.sin(phi)
        d = nn - mu * (w0 * u0 + w1 * u1)
        if d <= 0:
            return None
        ln = -bn / d
        s0 = ln * (w0 - mu * (a * u0 + p * u1)) + b[0]
        s1 = ln * (w1 - mu * (p * u0 + c * u1)) + b[1]
        return -u1 * s0 + u0 * s1, u0 * s0 + u1 * s1, ln, u0, u1

    n = 24
    phis = [2 * math.pi * j / n for j in range(n + 1)]
    vals = [slide(x) for x in phis]
    for j in range(n):
        lo_v, hi_v = vals[j], vals[j + 1]
        if lo_v is None or hi_v is None or lo_v[0] * hi_v[0] > 0:
            continue
        lo, hi, flo = phis[j], phis[j + 1], lo_v[0]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            v = slide(mid)
            if v is None:
                break
            if (v[0] > 0) == (flo > 0):
                lo, flo = mid, v[0]
            else:
                hi = mid
        v = slide(0.5 * (lo + hi))
        if v is None or v[1] < 0:
            continue
        _, _, ln, u0, u1 = v
        return -mu * ln * u0, -mu * ln * u1, ln
    return None


def _solve_one(
    G: list[list[float]],
    g: list[float],
    lam: list[float],
    mus: list[float],
    act: list[bool],
    rho: list[float],
    tol: float,
    max_iter: int,
    exact: bool = False,
) -> tuple[list[float], int]:
    """The sweeps of :func:`solve_ncp` for one state in Python floats (a few states: numpy's
    per-call cost on arrays of one element is larger than the arithmetic). ``exact``: each
    contact's block by :func:`_local_exact` (nonsmooth Gauss–Seidel), not the split."""
    m = len(g)
    cols = [list(c) for c in zip(*G)]
    rng = range(m)

    def fresh() -> list[float]:
        return [g[r] + math.fsum(x * y for x, y in zip(G[r], lam)) for r in rng]

    sigma = fresh()
    sweeps = 0
    while _residual_one(lam, sigma, mus, rho, act) > tol and sweeps < max_iter:
        sweeps += 1
        for i, on in enumerate(act):
            if not on:
                continue
            n = 3 * i
            l0, l1, ln = lam[n], lam[n + 1], lam[n + 2]
            a, b, c = G[n][n], G[n][n + 1], G[n + 1][n + 1]
            block = None
            if exact:
                W = [G[n][n : n + 3], G[n + 1][n : n + 3], G[n + 2][n : n + 3]]
                own = [sum(W[r][j] * lam[n + j] for j in range(3)) for r in range(3)]
                block = _local_exact(W, [sigma[n + r] - own[r] for r in range(3)], mus[i])
            if block is not None:
                x0, x1, new_n = block
            else:
                new_n = max(0.0, ln - sigma[n + 2] / G[n + 2][n + 2])
                dn = new_n - ln  # σ_t after the normal update, the rest of σ below
                s0, s1 = sigma[n] + G[n][n + 2] * dn, sigma[n + 1] + G[n + 1][n + 2] * dn
                x0, x1 = _disc_one(
                    a, b, c, s0 - a * l0 - b * l1, s1 - b * l0 - c * l1, mus[i] * new_n
                )
            d0, d1, dn = x0 - l0, x1 - l1, new_n - ln
            ca, cb, cn = cols[n], cols[n + 1], cols[n + 2]
            sigma = [s_ + p * d0 + q * d1 + r * dn for s_, p, q, r in zip(sigma, ca, cb, cn)]
            lam[n], lam[n + 1], lam[n + 2] = x0, x1, new_n
        if sweeps % 50 == 0:
            sigma = fresh()
    return lam, sweeps


def solve_ncp(
    G: Any,
    g: Any,
    mu: Any,
    *,
    active: Any = None,
    lam0: Any = None,
    tol: float = 1e-9,
    max_iter: int = 1000,
    method: str = "pgs",
) -> NCPSolution:
    r"""Solve the De Saxcé complementarity problem of k point contacts by projected
    Gauss–Seidel or ADMM (the module docstring).

    Parameters
    ----------
    G : array_like (..., 3k, 3k)
        The Delassus matrix (symmetric, positive semi-definite, each 3 × 3 diagonal block
        positive definite), rows (x, y, n) a contact.
    g : array_like (..., 3k)
        The free contact velocity (σ at λ = 0).
    mu : float or array_like (k,)
        Friction coefficients (≥ 0, finite).
    active : array_like (..., k) of bool, optional
        Contacts taking part (default all); the others get λ = 0.
    lam0 : array_like (..., 3k), optional
        A warm start (projected onto the cones first).
    tol : float
        On the natural-map residual of every contact (m/s).
    max_iter : int
        Iterations at most, per pass: the first method's, then for the states left the
        other method's (ADMM after Gauss–Seidel, Gauss–Seidel after ADMM), then the exact
        per-contact Gauss–Seidel sweeps.
    method : {"pgs", "admm"}
        The first pass: ``"pgs"`` (default) the split Gauss–Seidel sweeps, fast when the
        Delassus matrix is well conditioned; ``"admm"`` the alternating direction method of
        multipliers on (G + ρI), robust where G is singular or ill-conditioned (more
        contacts than the body can oppose independently, small compliance), as Pinocchio's
        ``ADMMConstraintSolver``.

    Returns
    -------
    NCPSolution
        ``converged`` says which states reached ``tol``; this function does not raise on
        non-convergence (:func:`step` does, by default).

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.friction import solve_ncp
    >>> G = np.eye(3)
    >>> s = solve_ncp(G, [1.0, 0.0, -1.0], 0.5)     # pressed down, pushed along x
    >>> np.round(s.lam, 12) + 0.0                    # sliding: on the cone, against x
    array([-0.5,  0. ,  1. ])
    >>> np.round(s.sigma, 12) + 0.0                  # no normal velocity, still slipping
    array([0.5, 0. , 0. ])
    >>> s.converged
    array(True)
    """
    from ..numeric.model import check_option

    check_option("tol", tol)
    check_option("max_iter", max_iter, integer=True)
    if method not in SOLVERS:
        raise LagdynError(f"method must be one of {', '.join(SOLVERS)}; got {method!r}")
    Ga = np.asarray(G, dtype=np.float64)
    ga = np.asarray(g, dtype=np.float64)
    if Ga.ndim < 2 or Ga.shape[-1] != Ga.shape[-2] or Ga.shape[-1] % 3:
        raise ShapeError(f"G must be (..., 3k, 3k), got shape {Ga.shape}")
    m = Ga.shape[-1]
    k = m // 3
    if ga.ndim < 1 or ga.shape[-1] != m:
        raise ShapeError(f"g must be (..., {m}) for G of shape {Ga.shape}, got {ga.shape}")
    mus = _friction(mu, k)
    batch = np.broadcast_shapes(Ga.shape[:-2], ga.shape[:-1])
    act = np.ones((*batch, k), dtype=bool) if active is None else np.asarray(active, dtype=bool)
    if act.ndim < 1 or act.shape[-1] != k:
        raise ShapeError(f"active must be (..., {k}), got {act.shape}")
    batch = np.broadcast_shapes(batch, act.shape[:-1])
    B = math.prod(batch)
    Gf = np.broadcast_to(Ga, (*batch, m, m)).reshape(B, m, m)
    gf = np.broadcast_to(ga, (*batch, m)).reshape(B, m)
    af = np.broadcast_to(act, (*batch, k)).reshape(B, k)
    if not (np.isfinite(Gf).all() and np.isfinite(gf).all()):
        raise LagdynError("G and g must be finite (a NaN or infinity in the contact problem)")
    big = max(float(np.abs(Gf).max(initial=0.0)), float(np.abs(gf).max(initial=0.0)))
    if big > _HUGE:
        raise LagdynError(
            f"the contact problem holds numbers up to {big:.3g} (G, g): their squares leave "
            "floating point; a time step or a velocity this large is not a contact problem "
            "(take a smaller dt)"
        )
    if lam0 is None:
        lam = np.zeros((B, k, 3))
    else:
        l0 = np.asarray(lam0, dtype=np.float64)
        if l0.ndim < 1 or l0.shape[-1] != m:
            raise ShapeError(f"lam0 must be (..., {m}), got {l0.shape}")
        lam = cone_projection(np.broadcast_to(l0, (*batch, m)).reshape(B, k, 3), mus)
    lam = np.where(af[..., None], lam, 0.0)
    lam = np.ascontiguousarray(lam)
    diag = np.diagonal(Gf, axis1=1, axis2=2).reshape(B, k, 3)
    bad = ~(diag[..., 2] > 0) & af
    if bad.any():
        b0, i0 = (int(x[0]) for x in np.nonzero(bad))
        raise ConstraintError(
            f"contact {i0} has a zero normal row of the Delassus matrix at state {b0}: "
            "J M⁻¹ Jᵀ is singular on it"
        )
    rho = 3.0 / np.sum(diag, axis=-1)
    mlist = mus.tolist()

    def one(b: int, exact: bool = False) -> tuple[list[float], int]:
        """State b solved in Python floats (``exact``: each contact's block exactly)."""
        args = (Gf[b].tolist(), gf[b].tolist(), lam[b].reshape(m).tolist(), mlist)
        return _solve_one(*args, af[b].tolist(), rho[b].tolist(), tol, max_iter, exact=exact)

    if method == "admm":
        sweeps = _admm(Gf, gf, lam, mus, af, rho, tol, max_iter)
    elif B <= _SCALAR_STATES:  # plain floats: numpy's cost per call dominates here
        sweeps = 0
        for b in range(B):
            out, n_sw = one(b)
            lam[b] = np.reshape(out, (k, 3))
            sweeps = max(sweeps, n_sw)
    else:
        sweeps = _vector_sweeps(Gf, gf, lam, mus, af, rho, tol, max_iter)
    sigma = gf + np.einsum("bij,bj->bi", Gf, lam.reshape(B, m))
    if B <= _SCALAR_STATES:  # (numpy's reductions over four contacts cost ~50 µs)
        resid = np.array(
            [
                _residual_one(
                    lam[b].reshape(m).tolist(),
                    sigma[b].tolist(),
                    mlist,
                    rho[b].tolist(),
                    af[b].tolist(),
                )
                for b in range(B)
            ]
        )
    else:
        resid = _residual(lam, sigma.reshape(B, k, 3), mus, rho, af)
    left = np.nonzero(~(resid <= tol))[0]
    if left.size:  # the other method for the states left, warm-started where they stopped
        sub = lam[left]
        other = _vector_sweeps if method == "admm" else _admm
        sweeps += other(Gf[left], gf[left], sub, mus, af[left], rho[left], tol, max_iter)
        lam[left] = sub
        sigma[left] = gf[left] + np.einsum("bij,bj->bi", Gf[left], sub.reshape(-1, m))
        resid[left] = _residual(sub, sigma[left].reshape(-1, k, 3), mus, rho[left], af[left])
    # a second pass for the states left: nonsmooth Gauss–Seidel, each contact's block
    # solved exactly (it cures the split's cycling on a strongly coupled contact)
    more = 0
    for b in np.nonzero(~(resid <= tol))[0].tolist():
        out, n_sw = one(b, exact=True)
        new = np.reshape(out, (k, 3))
        s_new = gf[b] + Gf[b] @ new.reshape(m)
        r_new = _residual(new[None], s_new.reshape(1, k, 3), mus, rho[b][None], af[b][None])[0]
        if r_new < resid[b]:
            lam[b], sigma[b], resid[b] = new, s_new, r_new
        more = max(more, n_sw)
    return NCPSolution(
        lam=lam.reshape((*batch, m)),
        sigma=sigma.reshape((*batch, m)),
        residual=resid.reshape(batch),
        iterations=sweeps + more,
        converged=(resid <= tol).reshape(batch),
    )


def _admm(
    Gf: np.ndarray,
    gf: np.ndarray,
    lam: np.ndarray,
    mus: np.ndarray,
    af: np.ndarray,
    rho_res: np.ndarray,
    tol: float,
    max_iter: int,
) -> int:
    """ADMM on the De Saxcé problem, vectorised across the states (B, …); λ (B, k, 3)
    updated in place (it is the warm start). Returns the iterations run.

    With s = μ‖σ_t‖e_n from the current σ (the De Saxcé correction, a fixed point), each
    iteration minimises ½xᵀGx + (g + s)ᵀx + ρ/2‖x − z + y/ρ‖² + η/2‖x − x_prev‖² (one
    solve with the factor of G + (ρ + η)I), projects z = P_K(x + y/ρ) and moves the
    multiplier y += ρ(x − z); ρ starts at √(λ_max λ_min) of G (λ_min floored at 1e-8
    λ_max) and is scaled by 4 when the primal and dual residuals differ by 10×; η =
    1e-6 λ_max. Inactive contacts are decoupled (their rows of G replaced by identity rows)
    and kept at zero. Stops on the natural-map residual of every contact (as the sweeps).
    """
    B, m = gf.shape
    k = m // 3
    if B == 0:
        return 0
    rows = np.repeat(af, 3, axis=-1).astype(np.float64)
    eye = np.eye(m)
    Ga = Gf * rows[:, :, None] * rows[:, None, :] + eye * (1.0 - rows)[:, :, None]
    ga = gf * rows
    ev = np.linalg.eigvalsh(Ga)
    top = ev[:, -1]
    rho = np.sqrt(top * np.maximum(ev[:, 0], 1e-8 * top))
    eta = 1e-6 * top
    z = lam.reshape(B, m).copy()
    x = z.copy()
    y = np.zeros((B, m))
    cur = np.arange(B)

    def factor(r: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return np.linalg.cholesky(Ga[idx] + (r + eta[idx])[:, None, None] * eye)

    C = factor(rho, cur)
    it = 0
    while True:
        sigma = np.einsum("bij,bj->bi", Ga[cur], z[cur]) + ga[cur]
        s3 = sigma.reshape(-1, k, 3)
        resid = _residual(z[cur].reshape(-1, k, 3), s3, mus, rho_res[cur], af[cur])
        done = resid <= tol
        if done.all() or it >= max_iter:
            break
        if done.any():  # converged states leave
            keep = ~done
            cur, C, rho, s3 = cur[keep], C[keep], rho[keep], s3[keep]
        it += 1
        corr = np.zeros_like(s3)
        corr[..., 2] = mus * np.sqrt(s3[..., 0] ** 2 + s3[..., 1] ** 2)
        rhs = rho[:, None] * z[cur] - y[cur] + eta[cur, None] * x[cur] - ga[cur]
        rhs -= corr.reshape(-1, m) * rows[cur]
        xn = _chol_solve(C, rhs[..., None])[..., 0]
        zn = cone_projection((xn + y[cur] / rho[:, None]).reshape(-1, k, 3), mus)
        zn = (zn * af[cur][..., None]).reshape(-1, m)
        primal = np.linalg.norm(xn - zn, axis=-1)
        dual = rho * np.linalg.norm(zn - z[cur], axis=-1)
        y[cur] += rho[:, None] * (xn - zn)
        x[cur], z[cur] = xn, zn
        if it % 10 == 0:
            up, down = primal > 10 * dual, dual > 10 * primal
            if up.any() or down.any():
                scale = np.where(up, 4.0, np.where(down, 0.25, 1.0))
                rho = rho * scale
                C = factor(rho, cur)
    lam[...] = z.reshape(B, k, 3)
    return it


def _vector_sweeps(
    Gf: np.ndarray,
    gf: np.ndarray,
    lam: np.ndarray,
    mus: np.ndarray,
    af: np.ndarray,
    rho: np.ndarray,
    tol: float,
    max_iter: int,
) -> int:
    """Split Gauss–Seidel sweeps vectorised across the states (B, …), λ (B, k, 3) updated in
    place; a state leaves the working set as soon as it converges (so its λ does not depend
    on the other states of the batch). Returns the sweeps run."""
    B, m = gf.shape
    k = m // 3
    sigma = gf + np.einsum("bij,bj->bi", Gf, lam.reshape(B, m))
    cur = np.arange(B)
    Gw, sw, lw, aw, fw, rw = Gf, sigma, lam, af, af.astype(np.float64), rho
    sweeps = 0
    while True:
        resid = _residual(lw, sw.reshape(-1, k, 3), mus, rw, aw)
        done = resid <= tol
        if done.all() or sweeps >= max_iter:
            break
        if done.any():  # converged states leave at once: a state's λ is its own, whatever
            # else is in the batch (it would otherwise move within tol with the others)
            lam[cur] = lw
            keep = ~done
            cur = cur[keep]
            Gw, sw, lw, aw, fw, rw = Gw[keep], sw[keep], lw[keep], aw[keep], fw[keep], rw[keep]
        sweeps += 1
        _sweep(Gw, sw, lw, mus, fw)
        if sweeps % 50 == 0:  # σ afresh: the increments accumulate rounding
            sw = gf[cur] + np.einsum("bij,bj->bi", Gw, lw.reshape(-1, m))
    lam[cur] = lw
    return sweeps


# ---------------------------------------------------------------------- checks
def _floats(name: str, value: Any, what: str) -> np.ndarray:
    """``value`` as float64 numbers, or a LagdynError saying it must be ``what`` (strings are
    not read as numbers)."""
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError(value)
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise LagdynError(f"{name} must be {what}, got {value!r:.60}") from None


def _friction(mu: Any, k: int) -> np.ndarray:
    """μ per contact (k,), checked."""
    arr = _floats("mu", mu, "a number or one number a contact")
    if arr.ndim == 0:
        arr = np.full(k, float(arr))
    if arr.shape != (k,):
        raise ShapeError(
            f"mu must be a number or {k} numbers (one a contact), got shape {arr.shape}"
        )
    bad = [i for i in range(k) if not (np.isfinite(arr[i]) and arr[i] >= 0)]
    if bad:
        raise LagdynError(
            "mu (the friction coefficient) must be finite and >= 0; got "
            + ", ".join(f"{arr[i]!r} (contact {i})" for i in bad)
        )
    return arr


def _number(name: str, value: Any, *, low: float, high: float = math.inf, open_low: bool) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    x = float(value) if ok else math.nan
    if not (math.isfinite(x) and (x > low if open_low else x >= low) and x <= high):
        rng = f"{'>' if open_low else '>='} {low:g}" + (
            f" and <= {high:g}" if high < math.inf else ""
        )
        raise LagdynError(f"{name} must be a finite number {rng}, got {value!r}")
    return x


def _ground(ground: Any, k: int) -> np.ndarray:
    """The ground height, a number or one a contact (..., k), finite."""
    arr = _floats("ground", ground, "a number (the height of the plane)")
    if arr.ndim and arr.shape[-1] != k:
        raise ShapeError(
            f"ground must be a number or (..., {k}) heights, one under each contact; got shape "
            f"{arr.shape}"
        )
    if not np.isfinite(arr).all():
        raise LagdynError(f"ground must be finite, got {ground!r:.60}")
    return arr


def _check_contacts(contacts: Any) -> list[str]:
    """The frames of a :class:`Contacts` fit for friction, or a named refusal."""
    problems = []
    surfaces = [n for n, d in contacts.contacts if d != 3]
    if surfaces:
        problems.append(
            f"surface contacts ({', '.join(repr(s) for s in surfaces)}: 6 rows) have no "
            "friction model here"
        )
    if contacts.loops:
        problems.append(f"loops ({len(contacts.loops)}) are not contacts with the ground")
    if contacts.reference != "local_world_aligned":
        problems.append(
            f"reference={contacts.reference!r}: the cone's normal is world z, so the rows must "
            "be 'local_world_aligned'"
        )
    if not contacts.contacts:
        problems.append("there are no ground contacts")
    if problems:
        raise LagdynError(
            "frictional contacts support point contacts (frame, 3) with the ground, in "
            "'local_world_aligned' axes, and nothing else: " + "; ".join(problems)
        )
    return [n for n, _ in contacts.contacts]


# ---------------------------------------------------------------------- the step
def step(
    contacts: Any,
    q: Any,
    v: Any,
    tau: Any,
    dt: float,
    *,
    mu: Any,
    ground: float = 0.0,
    margin: float = 0.0,
    correction: float = 0.2,
    compliance: float = 0.0,
    tol: float = 1e-9,
    max_iter: int = 1000,
    lam0: Any = None,
    on_failure: OnFailure = "raise",
    params: Any = None,
    method: str = "pgs",
) -> FrictionStep:
    r"""One Moreau–Jean step with frictional, unilateral point contacts on the plane
    z = ``ground`` (the module docstring), batched over leading axes.

    Parameters
    ----------
    contacts : Contacts
        Point contacts (``(frame, 3)``) in ``"local_world_aligned"`` axes, no loops.
    q, v, tau : array_like (..., nq), (..., nv), (..., nv)
        The state at the start of the step and the torques held over it (τ's six base
        entries are a wrench on the base; zero for a robot).
    dt : float
        The step (s), > 0.
    mu : float or array_like (k,)
        Coulomb friction coefficients, ≥ 0 (0: frictionless).
    ground : float or array_like (..., k)
        The height of the level ground (world z up), or one height under each contact.
    margin : float
        ≥ 0. A contact is active when its frame's origin is at most ``margin`` above the
        ground, or would get there during the step at its free velocity.
    correction : float in [0, 1]
        The fraction of a penetration removed per step (c_n = correction · φ/dt for a gap
        φ < 0; a positive gap gives c_n = φ/dt).
    compliance : float
        R = compliance · I added to the Delassus matrix (≥ 0; s/kg).
    tol, max_iter, method
        Of :func:`solve_ncp` (tol in m/s; ``method="admm"`` for many contacts on one body,
        where the Delassus matrix is singular).
    lam0 : array_like (..., 3k), optional
        A warm start for the impulses (:func:`rollout` passes the previous step's).
    on_failure : {"raise", "warn", "status"}
        When a state's solve stops at ``max_iter`` above ``tol``: a
        :class:`~lagdyn.errors.ConstraintError` naming the state and its residual
        (default); a :class:`FrictionWarning` and the result; or the result alone, whose
        ``converged`` and ``residual`` say which states failed.
    params : mapping or array_like (..., n_free), optional
        The values of the model's free parameters for this step (its M and h read them;
        see :class:`~lagdyn.robot.floating.FloatingModel`).

    Returns
    -------
    FrictionStep
        ``(q, v, lam, active, residual, converged, iterations)``.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.friction import EXAMPLE_BOX
    >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(
    ...     ["c1", "c2", "c3", "c4"])
    >>> q = box.neutral()
    >>> q[2] = 0.05                                  # resting on its corners
    >>> s = feet.step(q, np.zeros(7), np.zeros(7), 0.01, mu=0.5)
    >>> bool(np.allclose(s.v, 0, atol=1e-9))         # stays at rest
    True
    >>> round(float(s.lam[2::3].sum()), 6)           # the impulses carry m g dt
    0.0981
    >>> q[2] = 1.0                                   # in the air: free fall
    >>> s = feet.step(q, np.zeros(7), np.zeros(7), 0.01, mu=0.5)
    >>> s.active.tolist(), round(float(s.v[2]), 6)
    ([False, False, False, False], -0.0981)
    """
    from ..numeric.model import check_option

    names = _check_contacts(contacts)
    k = len(names)
    dt = _number("dt", dt, low=0.0, open_low=True)
    mus = _friction(mu, k)
    heights = _ground(ground, k)
    margin = _number("margin", margin, low=0.0, open_low=False)
    correction = _number("correction", correction, low=0.0, high=1.0, open_low=False)
    compliance = _number("compliance", compliance, low=0.0, open_low=False)
    check_option("tol", tol)
    check_option("max_iter", max_iter, integer=True)
    if on_failure not in _ON_FAILURE:
        raise LagdynError(f"on_failure must be one of {', '.join(_ON_FAILURE)}; got {on_failure!r}")
    model = contacts.model
    nv = model.nv
    qa = model._q(q)
    va = _real("v", v, nv)
    ta = _real("tau", tau, nv)
    for name, x in (("q", qa), ("v", va), ("tau", ta)):
        if not np.isfinite(x).all():
            raise LagdynError(f"{name} must be finite (a NaN or infinity in the state or torques)")
    kw = {} if params is None else {"params": params}
    M = np.asarray(model.M(qa, **kw))
    h = np.asarray(model.nonlinear_effects(qa, va, **kw))
    J, _, _, p = contacts._rows(qa, None)
    m = 3 * k
    batch = np.broadcast_shapes(
        M.shape[:-2], h.shape[:-1], J.shape[:-2], ta.shape[:-1], va.shape[:-1]
    )
    M = np.broadcast_to(M, (*batch, nv, nv))
    J = np.broadcast_to(J, (*batch, m, nv))
    idx = [contacts._index[n] for n in names]
    gap = np.broadcast_to(p[..., idx, 2] - heights, (*batch, k))
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        raise LagdynError("the mass matrix is not positive definite at a state") from None
    Jt = np.swapaxes(J, -1, -2)
    f = np.broadcast_to(ta - h, (*batch, nv))[..., None]
    both = _chol_solve(L, np.concatenate([Jt, f], axis=-1))  # M⁻¹ [Jᵀ | τ − h], one pass
    MinvJt, Minvf = both[..., :m], both[..., m]
    v_free = np.broadcast_to(va, (*batch, nv)) + dt * Minvf
    G = J @ MinvJt
    if compliance:
        G = G + compliance * np.eye(m)
    g = np.einsum("...ij,...j->...i", J, v_free)
    # active: within the margin, or reaching it during the step at the free velocity
    active = (gap <= margin) | (gap + dt * g[..., 2::3] <= margin)
    g[..., 2::3] += np.where(gap > 0, gap, correction * gap) / dt
    sol = solve_ncp(G, g, mus, active=active, lam0=lam0, tol=tol, max_iter=max_iter, method=method)
    if not np.all(sol.converged):
        bad = np.nonzero(~np.asarray(sol.converged).reshape(-1))[0]
        where = f"state {int(bad[0])} (of {int(np.prod(batch))})" if batch else "the state"
        worst = float(np.max(sol.residual))
        text = (
            f"the frictional contact problem did not converge at {where}, "
            f"{len(bad)} state(s) in all: residual {worst:.3g} m/s > tol {tol:g} after "
            f"{max_iter} iterations a pass (Gauss–Seidel, ADMM, exact contact sweeps): "
            "try a larger max_iter or tol"
        )
        if on_failure == "raise":
            raise ConstraintError(text)
        if on_failure == "warn":
            warnings.warn(text, FrictionWarning, stacklevel=3)
    v_plus = v_free + np.einsum("...ij,...j->...i", MinvJt, sol.lam)
    q_plus = model.integrate(np.broadcast_to(qa, (*batch, qa.shape[-1])), v_plus, dt)
    return FrictionStep(
        q=q_plus,
        v=v_plus,
        lam=sol.lam,
        active=active,
        residual=sol.residual,
        converged=sol.converged,
        iterations=sol.iterations,
    )


def rollout(
    contacts: Any,
    q0: Any,
    v0: Any,
    tau: Any,
    dt: float,
    steps: int,
    *,
    mu: Any,
    t0: float = 0.0,
    **options: Any,
) -> Rollout:
    r"""``steps`` steps of :func:`step` from (q0, v0), each warm-started with the impulses of
    the one before.

    Parameters
    ----------
    contacts : Contacts
    q0, v0 : array_like (..., nq), (..., nv)
    tau : array_like (..., nv) or callable
        Held torques, or a law ``tau(t, q, v)`` evaluated at the start of every step (its
        result (..., nv)).
    dt : float
    steps : int
        > 0.
    mu : float or array_like (k,)
    t0 : float
        The time of the first state.
    **options
        Of :func:`step` (``ground``, ``margin``, ``correction``, ``compliance``, ``tol``,
        ``max_iter``, ``on_failure``, ``params``: held over the rollout).

    Returns
    -------
    Rollout
        ``t (steps + 1,)``, ``q (steps + 1, ..., nq)``, ``v``, ``lam (steps, ..., 3k)``,
        ``active``, ``residual``, ``converged``.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.friction import EXAMPLE_BOX
    >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(
    ...     ["c1", "c2", "c3", "c4"])
    >>> q, v = box.neutral(), np.zeros(7)
    >>> q[2], v[0] = 0.05, 1.0                       # on its corners, sliding at 1 m/s
    >>> run = feet.rollout(q, v, np.zeros(7), 0.01, 30, mu=0.5)
    >>> run.q.shape, run.lam.shape
    ((31, 8), (30, 12))
    >>> np.round(run.v[[0, 10, 20, 30], 0], 6) + 0.0  # −μ g a second, then at rest
    array([1.    , 0.5095, 0.019 , 0.    ])
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps <= 0:
        raise LagdynError(f"steps must be a positive integer, got {steps!r}")
    if "lam0" in options:
        raise LagdynError("rollout warm-starts each step itself: lam0 is not an option here")
    t0 = _number("t0", t0, low=-math.inf, open_low=True)
    dtf = _number("dt", dt, low=0.0, open_low=True)
    law: Callable[..., Any] | None = tau if callable(tau) else None
    model = contacts.model
    q = np.asarray(model._q(q0), dtype=np.float64)
    v = _real("v0", v0, model.nv)
    qs, vs, lams, acts, res, conv = [q], [v], [], [], [], []
    lam = None
    for n in range(int(steps)):
        t = t0 + n * dtf
        u = _real("tau(t, q, v)", law(t, q, v), model.nv) if law is not None else tau
        s = step(contacts, q, v, u, dtf, mu=mu, lam0=lam, **options)
        q, v, lam = s.q, s.v, s.lam
        qs.append(q)
        vs.append(v)
        lams.append(s.lam)
        acts.append(s.active)
        res.append(s.residual)
        conv.append(s.converged)
    shape = np.broadcast_shapes(*(x.shape[:-1] for x in qs[1:]))
    return Rollout(
        t=t0 + dtf * np.arange(int(steps) + 1),
        q=np.stack([np.broadcast_to(x, (*shape, x.shape[-1])) for x in qs]),
        v=np.stack([np.broadcast_to(x, (*shape, x.shape[-1])) for x in vs]),
        lam=np.stack(lams),
        active=np.stack(acts),
        residual=np.stack(res),
        converged=np.stack(conv),
    )

"""Serial chains: the n-link pendulum and the n-link planar arm, built from their bodies.

Both factories assemble M = Σ JᵀWJ with :mod:`lagdyn.kinematics` (point masses for the
pendulum, planar rigid bodies for the arm), so n = 2 reproduces
:func:`lagdyn.zoo.double_pendulum` and :func:`lagdyn.zoo.two_link_planar` exactly.
"""

from __future__ import annotations

from typing import Literal

import sympy as sp

from ..errors import LagdynError
from ..geometry import Drawing, attach
from ..kinematics import RigidBody2D, from_bodies, from_particles
from ..symbols import coordinates as _coords
from ..symbols import parameters
from ..system import LagrangianSystem

__all__ = ["n_link_pendulum", "planar_arm"]


def _check_n(n: object, who: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise LagdynError(f"{who}: n must be a positive integer, got {n!r}")
    return n


def _names(stem: str, n: int) -> str:
    return " ".join(f"{stem}{i}" for i in range(1, n + 1))


def n_link_pendulum(
    n: int = 3, *, coordinates: Literal["absolute", "relative"] = "absolute"
) -> LagrangianSystem:
    r"""The planar n-link pendulum: point masses on massless rigid rods, fixed pivot.

    ::

            o  fixed pivot
             \  l1, θ1 from the downward vertical
              m1
              |  l2, θ2
              m2
               \  ...
                mn            gravity g along −y

    Positions :math:`p_k = \sum_{i \le k} l_i (\sin\theta_i, -\cos\theta_i)`.

    Conventions: ``coordinates="absolute"`` uses ``theta1 … thetan``, every angle
    measured from the downward vertical (counter-clockwise positive, as seen with x to
    the right and y up). ``coordinates="relative"`` uses ``phi1 … phin`` with
    ``phi1 = theta1`` and ``phi_k = theta_k − theta_(k−1)`` (the joint angles); rates
    map the same way. For n = 2 this is :func:`lagdyn.zoo.double_pendulum`.

    Parameters
    ----------
    n : int
        Number of links (≥ 1).
    coordinates : {"absolute", "relative"}
        Angle convention, see above.

    Returns
    -------
    LagrangianSystem

    Notes
    -----
    Model parameters (positive symbols): ``m1 … mn``, ``l1 … ln``, ``g``. Defaults:
    unit masses and lengths, g = 9.81.

    Examples
    --------
    >>> from lagdyn.zoo.chains import n_link_pendulum
    >>> pend = n_link_pendulum(3)
    >>> pend.q
    (theta1(t), theta2(t), theta3(t))
    >>> pend.M[2, 2]
    l3**2*m3
    >>> n_link_pendulum(2, coordinates="relative").q
    (phi1(t), phi2(t))
    """
    n = _check_n(n, "n_link_pendulum")
    if coordinates not in ("absolute", "relative"):
        raise LagdynError(
            f"n_link_pendulum: coordinates must be 'absolute' or 'relative', got {coordinates!r}"
        )
    m = parameters(_names("m", n))
    lengths = parameters(_names("l", n))
    (g,) = parameters("g")
    if coordinates == "absolute":
        q = _coords(_names("theta", n))
        angles = list(q)
    else:
        q = _coords(_names("phi", n))
        angles = [sum(q[: k + 1], sp.Integer(0)) for k in range(n)]
    positions = []
    x, y = sp.Integer(0), sp.Integer(0)
    for li, th in zip(lengths, angles):
        x, y = x + li * sp.sin(th), y - li * sp.cos(th)
        positions.append((x, y))
    defaults = {**dict.fromkeys(m, 1.0), **dict.fromkeys(lengths, 1.0), g: 9.81}
    system = from_particles(positions, m, q, gravity=(0, -g), defaults=defaults)
    return attach(system, Drawing.chain([(0, 0), *positions]))


def planar_arm(n: int = 3) -> LagrangianSystem:
    r"""The n-link planar serial arm with link inertias (revolute joints), gravity along −y.

    ::

              y
              ^                  o  link 3 (m3, I3 at lc3)
              |          l2     /  q3 (relative to link 2)
              |     o----------o
              |    / q2 (relative to link 1)
              |   /  l1
              |  / q1 (from the horizontal x axis)
              o-----------> x     joint 1 fixed at the origin

    Conventions: ``q1`` is the angle of link 1 from the horizontal, ``q_k`` (k ≥ 2)
    the joint angle of link k relative to link k − 1, all counter-clockwise; link k
    has absolute angle ``θ_k = q1 + … + q_k``, length ``l_k``, mass ``m_k``, centre of
    mass at distance ``lc_k`` from its proximal joint and inertia ``I_k`` about its
    centre of mass. For n = 2 this is :func:`lagdyn.zoo.two_link_planar` (seed 001).

    Parameters
    ----------
    n : int
        Number of links (≥ 1).

    Returns
    -------
    LagrangianSystem

    Notes
    -----
    Model parameters (positive symbols): ``m1 … mn``, ``l1 … l(n−1)`` (the last
    length does not enter the dynamics), ``lc1 … lcn``, ``I1 … In``, ``g``. Defaults:
    uniform unit rods: m = 1, l = 1, lc = 0.5, I = 1/12, g = 9.81.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.zoo.chains import planar_arm
    >>> arm = planar_arm(2)
    >>> arm.M[1, 1]
    I2 + lc2**2*m2
    >>> planar_arm(3).n
    3
    """
    n = _check_n(n, "planar_arm")
    q = _coords(_names("q", n))
    m = parameters(_names("m", n))
    lengths = parameters(_names("l", n - 1)) if n > 1 else ()
    lc = parameters(_names("lc", n))
    inertia = parameters(_names("I", n))
    (g,) = parameters("g")
    bodies = []
    joints: list[tuple[sp.Expr, sp.Expr]] = [(sp.Integer(0), sp.Integer(0))]
    x, y, th = sp.Integer(0), sp.Integer(0), sp.Integer(0)
    for k in range(n):
        th = th + q[k]
        com = (x + lc[k] * sp.cos(th), y + lc[k] * sp.sin(th))
        bodies.append(RigidBody2D(m[k], inertia[k], com, th))
        # the last link has no length parameter: it is drawn to twice its centre of mass
        reach = lengths[k] if k < n - 1 else 2 * lc[k]
        x, y = x + reach * sp.cos(th), y + reach * sp.sin(th)
        joints.append((x, y))
    defaults = {
        **dict.fromkeys(m, 1.0),
        **dict.fromkeys(lengths, 1.0),
        **dict.fromkeys(lc, 0.5),
        **dict.fromkeys(inertia, 1 / 12),
        g: 9.81,
    }
    system = from_bodies(bodies, q, gravity=(0, -g), defaults=defaults)
    return attach(system, Drawing.chain(joints))

"""Constrained mechanisms: :class:`~lagdyn.ConstrainedSystem` models (seed 004).

These are closed kinematic loops and redundant (ambient) coordinates, handled with
Lagrange multipliers rather than minimal coordinates. Every factory returns a
:class:`~lagdyn.ConstrainedSystem` whose ``system.defaults`` hold numeric
parameters, so ``model.solve(q, qd, tau)`` and ``model.simulate(x0, t)`` work directly.

Examples
--------
>>> from lagdyn.zoo.mechanisms import four_bar
>>> fb = four_bar()
>>> fb.n, fb.m, fb.dof
(3, 2, 1)
"""

from __future__ import annotations

import sympy as sp

from ..constraints import ConstrainedSystem
from ..kinematics import RigidBody2D, from_bodies, from_particles
from ..symbols import coordinates, parameters

__all__ = ["ambient_double_pendulum", "cartesian_pendulum", "four_bar", "slider_crank"]


def cartesian_pendulum() -> ConstrainedSystem:
    r"""A point mass on a rod of length l, in Cartesian coordinates (x, y).

    ::

        o (0, 0)          Φ = x² + y² − l² = 0
         \\
          \\  l           the multiplier gives the rod tension
           m (x, y)       T = −2λl = m(v²/l − g y/l)

    Gravity g along −y. Parameters ``m l g``; defaults m = 1, l = 1, g = 9.81.

    Examples
    --------
    >>> from lagdyn.zoo.mechanisms import cartesian_pendulum
    >>> cartesian_pendulum().constraints
    Matrix([[-l**2 + x(t)**2 + y(t)**2]])
    """
    x, y = coordinates("x y")
    m, l, g = parameters("m l g")
    free = from_particles(
        [(x, y)], [m], [x, y], gravity=(0, -g), defaults={m: 1.0, l: 1.0, g: 9.81}
    )
    return ConstrainedSystem(free, [x**2 + y**2 - l**2])


def ambient_double_pendulum() -> ConstrainedSystem:
    r"""The seed 003 double pendulum in its four ambient coordinates z = (x1, y1, x2, y2).

    ::

        o (0, 0)
         \\ l1        Φ1 = x1² + y1² − l1²
          m1          Φ2 = (x2 − x1)² + (y2 − y1)² − l2²
           \\ l2
            m2        gravity g along −y

    Parameters ``m1 m2 l1 l2 g``; defaults as the seed: unit masses and lengths, g = 10.
    The motion equals :func:`lagdyn.zoo.double_pendulum` with
    p1 = l1 (sin a, −cos a), p2 = p1 + l2 (sin b, −cos b).

    Examples
    --------
    >>> from lagdyn.zoo.mechanisms import ambient_double_pendulum
    >>> ambient_double_pendulum().dof
    2
    """
    x1, y1, x2, y2 = coordinates("x1 y1 x2 y2")
    m1, m2, l1, l2, g = parameters("m1 m2 l1 l2 g")
    free = from_particles(
        [(x1, y1), (x2, y2)],
        [m1, m2],
        [x1, y1, x2, y2],
        gravity=(0, -g),
        defaults={m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 10.0},
    )
    return ConstrainedSystem(free, [x1**2 + y1**2 - l1**2, (x2 - x1) ** 2 + (y2 - y1) ** 2 - l2**2])


def four_bar() -> ConstrainedSystem:
    r"""A planar four-bar linkage: crank, coupler and rocker as uniform rods, one loop.

    ::

               B ________ C          crank  O–B, length a, angle th1
              /            \\         coupler B–C, length b, angle th2
           a /        b     \\ c      rocker D–C, length c, angle th3
            /                \\
           O ---------------- D      ground O–D, length d (fixed), gravity along −y

    Coordinates (th1, th2, th3), all absolute angles from the +x axis; the loop
    closure a e(th1) + b e(th2) − c e(th3) − (d, 0) = 0 gives two constraints, so one
    degree of freedom. Parameters ``a b c d m1 m2 m3 g`` (rod i has mass m_i and inertia
    m_i L²/12 about its centre). Defaults: a = 1, b = 2.5, c = 2, d = 2.5 (a Grashof
    crank-rocker), masses 1, 2.5, 2, g = 9.81.

    Examples
    --------
    >>> from lagdyn.zoo.mechanisms import four_bar
    >>> four_bar().J.shape
    (2, 3)
    """
    th1, th2, th3 = coordinates("th1 th2 th3")
    a, b, c, d, m1, m2, m3, g = parameters("a b c d m1 m2 m3 g")

    def e(th: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
        return sp.cos(th), sp.sin(th)

    B = (a * sp.cos(th1), a * sp.sin(th1))
    bodies = [
        RigidBody2D(m1, m1 * a**2 / 12, (a / 2 * e(th1)[0], a / 2 * e(th1)[1]), th1),
        RigidBody2D(m2, m2 * b**2 / 12, (B[0] + b / 2 * e(th2)[0], B[1] + b / 2 * e(th2)[1]), th2),
        RigidBody2D(m3, m3 * c**2 / 12, (d + c / 2 * e(th3)[0], c / 2 * e(th3)[1]), th3),
    ]
    defaults = {a: 1.0, b: 2.5, c: 2.0, d: 2.5, m1: 1.0, m2: 2.5, m3: 2.0, g: 9.81}
    free = from_bodies(bodies, [th1, th2, th3], gravity=(0, -g), defaults=defaults)
    loop = [
        a * sp.cos(th1) + b * sp.cos(th2) - c * sp.cos(th3) - d,
        a * sp.sin(th1) + b * sp.sin(th2) - c * sp.sin(th3),
    ]
    return ConstrainedSystem(free, loop)


def slider_crank() -> ConstrainedSystem:
    r"""A slider–crank: crank (r, th), connecting rod (l, ph), slider at (s, 0).

    ::

              B
             / \\  l            crank O–B, length r, angle th
          r /   \\              rod   B–S, length l, angle ph (absolute)
           /     \\             slider S = (s, 0) on the x axis, mass ms
          O ------[S]---- x     gravity along −y

    Coordinates (th, ph, s); constraints S = B + l e(ph), i.e.
    r cos th + l cos ph − s = 0 and r sin th + l sin ph = 0: one degree of freedom.
    Parameters ``r l mc mr ms g``; defaults r = 0.5, l = 1.5, mc = 1, mr = 1.5, ms = 2,
    g = 9.81.

    Examples
    --------
    >>> from lagdyn.zoo.mechanisms import slider_crank
    >>> slider_crank().dof
    1
    """
    th, ph, s = coordinates("th ph s")
    r, l, mc, mr, ms, g = parameters("r l mc mr ms g")
    B = (r * sp.cos(th), r * sp.sin(th))
    bodies = [
        RigidBody2D(mc, mc * r**2 / 12, (r / 2 * sp.cos(th), r / 2 * sp.sin(th)), th),
        RigidBody2D(mr, mr * l**2 / 12, (B[0] + l / 2 * sp.cos(ph), B[1] + l / 2 * sp.sin(ph)), ph),
        RigidBody2D(ms, 0, (s, 0), 0),
    ]
    defaults = {r: 0.5, l: 1.5, mc: 1.0, mr: 1.5, ms: 2.0, g: 9.81}
    free = from_bodies(bodies, [th, ph, s], gravity=(0, -g), defaults=defaults)
    return ConstrainedSystem(
        free, [r * sp.cos(th) + l * sp.cos(ph) - s, r * sp.sin(th) + l * sp.sin(ph)]
    )

r"""Rolling without slipping: nonholonomic :class:`~lagdyn.ConstrainedSystem` models.

Each factory returns a :class:`~lagdyn.ConstrainedSystem` with ``velocity_constraints``
(see :mod:`lagdyn.nonholonomic`) whose ``system.defaults`` hold numeric parameters.

Examples
--------
>>> from lagdyn.zoo.rolling import rolling_disc
>>> disc = rolling_disc()
>>> disc.n, disc.m_velocity, disc.dof
(5, 2, 3)
"""

from __future__ import annotations

import sympy as sp

from ..constraints import ConstrainedSystem
from ..symbols import coordinates, parameters, t
from ..system import LagrangianSystem

__all__ = ["chaplygin_sleigh", "rolling_disc"]


def rolling_disc() -> ConstrainedSystem:
    r"""A thin uniform disc (coin) rolling without slipping on a horizontal plane.

    Coordinates q = (x, y, ψ, θ, φ): the contact point (x, y) on the plane, the heading
    (yaw) ψ of the disc's rolling direction a₁ = (cos ψ, sin ψ, 0), the lean θ from
    the upright (θ = 0 upright, positive leaning towards −a₂, a₂ = (−sin ψ, cos ψ, 0))
    and the spin φ about the disc's axle. The centre is at

    .. math:: C = (x + r\sin\theta\sin\psi,\; y - r\sin\theta\cos\psi,\; r\cos\theta),

    the angular velocity is :math:`\dot\psi\,e_z + \dot\theta\,a_1 + \dot\phi\,b_2`
    (b₂ the axle) with moments of inertia ½mr² about the axle and ¼mr² about a
    diameter. Rolling without slipping makes the contact point of the disc still:

    .. math:: \dot x - r\cos\psi\,\dot\phi = 0, \qquad \dot y - r\sin\psi\,\dot\phi = 0,

    two constraints that are not integrable. Gravity g along −z. Parameters ``m r g``;
    defaults m = 1, r = 1, g = 9.81.

    Steady motions (θ, ψ̇ = Ω, φ̇ = ω constant) satisfy

    .. math:: \Omega\cos\theta\,\bigl(\tfrac14 m r^2\,\Omega\sin\theta
              - \tfrac32 m r^2(\omega + \Omega\sin\theta)\bigr) = m g r\sin\theta,

    with straight upright rolling (θ = 0, Ω = 0, any ω) among them.

    Examples
    --------
    >>> from lagdyn.zoo.rolling import rolling_disc
    >>> rolling_disc().A
    Matrix([
    [1, 0, 0, 0, -r*cos(psi(t))],
    [0, 1, 0, 0, -r*sin(psi(t))]])
    """
    x, y, psi, theta, phi = coordinates("x y psi theta phi")
    m, r, g = parameters("m r g")
    xd, yd, psid, thetad, phid = (c.diff(t) for c in (x, y, psi, theta, phi))
    s, c = sp.sin(theta), sp.cos(theta)
    centre = sp.Matrix([x + r * s * sp.sin(psi), y - r * s * sp.cos(psi), r * c])
    v = centre.diff(t)
    i_axle, i_diam = m * r**2 / 2, m * r**2 / 4
    T = (
        m * (v.T * v)[0, 0] / 2
        + i_diam * thetad**2 / 2
        + i_axle * (phid + psid * s) ** 2 / 2
        + i_diam * (psid * c) ** 2 / 2
    )
    V = m * g * r * c
    free = LagrangianSystem.from_energies(
        T, V, [x, y, psi, theta, phi], defaults={m: 1.0, r: 1.0, g: 9.81}
    )
    return ConstrainedSystem(
        free,
        velocity_constraints=[
            xd - r * sp.cos(psi) * phid,
            yd - r * sp.sin(psi) * phid,
        ],
    )


def chaplygin_sleigh() -> ConstrainedSystem:
    r"""Chaplygin's sleigh: a rigid body on a plane with a knife edge that cannot slide
    sideways.

    Coordinates q = (x, y, θ): the knife-edge contact point (x, y) and the heading θ of
    the body axis; the centre of mass sits at distance a ahead of the contact on that
    axis, (x + a cos θ, y + a sin θ); mass m, moment of inertia I about the centre of
    mass. The knife edge allows no velocity across the axis:

    .. math:: -\sin\theta\,\dot x + \cos\theta\,\dot y = 0 .

    Parameters ``m I a``; defaults m = 1, I = 1, a = 1. No gravity (a horizontal
    plane): the energy is conserved and straight sliding along the axis is a steady
    motion, unstable backwards and stable forwards.

    Examples
    --------
    >>> from lagdyn.zoo.rolling import chaplygin_sleigh
    >>> chaplygin_sleigh().A
    Matrix([[-sin(theta(t)), cos(theta(t)), 0]])
    """
    x, y, theta = coordinates("x y theta")
    m, inertia, a = parameters("m I a")
    centre = sp.Matrix([x + a * sp.cos(theta), y + a * sp.sin(theta)])
    v = centre.diff(t)
    T = m * (v.T * v)[0, 0] / 2 + inertia * theta.diff(t) ** 2 / 2
    free = LagrangianSystem.from_energies(
        T, 0, [x, y, theta], defaults={m: 1.0, inertia: 1.0, a: 1.0}
    )
    return ConstrainedSystem(
        free,
        velocity_constraints=[-sp.sin(theta) * x.diff(t) + sp.cos(theta) * y.diff(t)],
    )

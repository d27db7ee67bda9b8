"""Pendulums beyond the planar rigid rod: the spherical pendulum and the elastic pendulum."""

from __future__ import annotations

import sympy as sp

from ..geometry import Drawing, attach
from ..kinematics import from_particles
from ..symbols import coordinates, parameters
from ..system import LagrangianSystem

__all__ = ["elastic_pendulum", "spherical_pendulum"]


def spherical_pendulum() -> LagrangianSystem:
    r"""The spherical pendulum: a point mass on a massless rod of length l, free in 3-D.

    ::

                  o  fixed pivot (ball joint)
                 /:
                / :  θ from the downward vertical
               /  :
              m ..:.. φ azimuth about the vertical, from the x axis
                             gravity g along −z

    Position :math:`p = l(\sin\theta\cos\varphi, \sin\theta\sin\varphi, -\cos\theta)`,
    mass matrix ``diag(m l², m l² sin²θ)``. Conventions: ``theta`` is the polar angle
    from the downward vertical, ``phi`` the azimuth about the z axis. The chart is
    singular at ``theta = 0`` and ``pi`` (M loses rank there; away from them the
    dynamics are regular).

    Model parameters (positive symbols): ``m l g``. Defaults: m = 1, l = 1, g = 9.81.

    Returns
    -------
    LagrangianSystem

    Examples
    --------
    >>> from lagdyn.zoo.spatial import spherical_pendulum
    >>> sp_pend = spherical_pendulum()
    >>> sp_pend.M[0, 0]
    l**2*m
    >>> sp_pend.U
    -g*l*m*cos(theta(t))
    """
    th, ph = coordinates("theta phi")
    m, ell, g = parameters("m l g")
    p = (ell * sp.sin(th) * sp.cos(ph), ell * sp.sin(th) * sp.sin(ph), -ell * sp.cos(th))
    defaults = {m: 1.0, ell: 1.0, g: 9.81}
    system = from_particles([p], [m], [th, ph], gravity=(0, 0, -g), defaults=defaults)
    return attach(system, Drawing.chain([(0, 0, 0), p]))


def elastic_pendulum() -> LagrangianSystem:
    r"""The planar elastic (spring) pendulum: a point mass on a linear spring.

    ::

              o  fixed pivot
               \
                /\/\/\  spring: stiffness k, rest length l0, current length r
                 \   θ from the downward vertical
                  m           gravity g along −y

    Position :math:`p = r(\sin\theta, -\cos\theta)`; potential
    :math:`U = \tfrac12 k (r - l_0)^2 - m g r\cos\theta`; mass matrix
    ``diag(m, m r²)``. Conventions: ``r`` is the spring length (> 0), ``theta`` the
    angle from the downward vertical, counter-clockwise.

    Model parameters (positive symbols): ``m k l0 g``. Defaults: m = 1, k = 40, l0 = 1,
    g = 9.81 (a moderately stiff spring: static stretch m g / k ≈ 0.25 l0).

    Returns
    -------
    LagrangianSystem

    Examples
    --------
    >>> from lagdyn.zoo.spatial import elastic_pendulum
    >>> ep = elastic_pendulum()
    >>> ep.M
    Matrix([
    [m,         0],
    [0, m*r(t)**2]])
    >>> ep.g[0]
    -g*m*cos(theta(t)) + k*(-l0 + r(t))
    """
    r, th = coordinates("r theta")
    m, k, l0, g = parameters("m k l0 g")
    p = (r * sp.sin(th), -r * sp.cos(th))
    spring = k * (r - l0) ** 2 / 2
    defaults = {m: 1.0, k: 40.0, l0: 1.0, g: 9.81}
    system = from_particles([p], [m], [r, th], gravity=(0, -g), potential=spring, defaults=defaults)
    return attach(system, Drawing.chain([(0, 0), p]))

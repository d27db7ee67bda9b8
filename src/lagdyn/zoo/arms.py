"""Planar serial arms."""

from __future__ import annotations

import sympy as sp

from ..geometry import Drawing, attach
from ..symbols import coordinates, parameters, t
from ..system import LagrangianSystem

__all__ = ["two_link_planar"]


def two_link_planar() -> LagrangianSystem:
    r"""The 2-DOF planar arm of seed 001 (Spong, Hutchinson & Vidyasagar), gravity along −y.

    ::

              y
              ^           o  (link 2: mass m2, inertia I2 about its COM at lc2)
              |          / q1 + q2 (from the horizontal)
              |   l1    /
              |  .-----o  joint 2
              | / q1          (link 1: mass m1, inertia I1 about its COM at lc1)
              o-----------> x     (joint 1 fixed at the origin)

    Conventions: ``q1`` is the angle of link 1 from the horizontal x axis, ``q2`` the
    joint angle of link 2 relative to link 1; both counter-clockwise. Link i has its
    centre of mass at distance ``lc_i`` from its proximal joint; ``I_i`` is its inertia
    about the centre of mass; ``l1`` is the length of link 1; gravity ``g`` points
    along −y.

    With α = I1 + I2 + m1 lc1² + m2(l1² + lc2²), β = m2 l1 lc2, δ = I2 + m2 lc2²:

    .. math::
        M = \begin{bmatrix} α + 2β\cos q_2 & δ + β\cos q_2 \\ δ + β\cos q_2 & δ \end{bmatrix},
        \quad
        g = \begin{bmatrix} (m_1 l_{c1} + m_2 l_1) g\cos q_1 + m_2 l_{c2} g\cos(q_1 + q_2) \\
                            m_2 l_{c2} g \cos(q_1 + q_2) \end{bmatrix}.

    Parameters (positive symbols): ``m1 m2 l1 lc1 lc2 I1 I2 g``. Defaults: unit masses
    and lengths, lc = 0.5, I = 1/12 (uniform rods), g = 9.81.

    Examples
    --------
    >>> import lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> arm.M[1, 1]
    I2 + lc2**2*m2
    """
    q1, q2 = coordinates("q1 q2")
    m1, m2, l1, lc1, lc2, I1, I2, g = parameters("m1 m2 l1 lc1 lc2 I1 I2 g")
    c1 = sp.Matrix([lc1 * sp.cos(q1), lc1 * sp.sin(q1)])
    c2 = sp.Matrix(
        [l1 * sp.cos(q1) + lc2 * sp.cos(q1 + q2), l1 * sp.sin(q1) + lc2 * sp.sin(q1 + q2)]
    )
    v1, v2 = c1.diff(t), c2.diff(t)
    w1 = q1.diff(t)
    w2 = q1.diff(t) + q2.diff(t)
    T = (m1 * v1.dot(v1) + m2 * v2.dot(v2) + I1 * w1**2 + I2 * w2**2) / 2
    U = g * (m1 * c1[1] + m2 * c2[1])
    defaults = {m1: 1.0, m2: 1.0, l1: 1.0, lc1: 0.5, lc2: 0.5, I1: 1 / 12, I2: 1 / 12, g: 9.81}
    system = LagrangianSystem.from_energies(T, U, [q1, q2], defaults=defaults)
    elbow = (l1 * sp.cos(q1), l1 * sp.sin(q1))
    tip = (elbow[0] + 2 * lc2 * sp.cos(q1 + q2), elbow[1] + 2 * lc2 * sp.sin(q1 + q2))
    return attach(system, Drawing.chain([(0, 0), elbow, tip]))

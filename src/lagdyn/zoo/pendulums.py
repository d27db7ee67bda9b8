"""Pendulums: the double pendulum of seed 003."""

from __future__ import annotations

from typing import Literal

import sympy as sp

from ..errors import LagdynError
from ..geometry import Drawing, attach
from ..symbols import coordinates as _coords
from ..symbols import parameters, t
from ..system import LagrangianSystem

__all__ = ["double_pendulum"]


def double_pendulum(
    *, coordinates: Literal["absolute", "relative"] = "absolute"
) -> LagrangianSystem:
    r"""The planar double pendulum of seed 003: point masses on massless rigid rods.

    ::

              o  fixed pivot
              |\
              | \  l1, angle a from the downward vertical
              |  \
              |   m1
              |    |
              |    |  l2, angle b from the downward vertical
                   |
                   m2          gravity g along −y

    Positions ``p1 = l1 (sin a, −cos a)``, ``p2 = p1 + l2 (sin b, −cos b)``.

    Conventions: ``coordinates="absolute"`` uses ``(a, b)``, both measured from the
    downward vertical. ``coordinates="relative"`` uses ``(u1, u2) = (a, b − a)``: ``u2``
    is the angle of rod 2 relative to rod 1, and rates map as ``u̇ = (ȧ, ḃ − ȧ)``.

    .. math::
        M_{abs} = \begin{bmatrix} (m_1 + m_2) l_1^2 & m_2 l_1 l_2 \cos(a - b) \\
                                  m_2 l_1 l_2 \cos(a - b) & m_2 l_2^2 \end{bmatrix},
        \qquad M_{rel} = A^T M_{abs} A,\; A = \begin{bmatrix}1 & 0\\ 1 & 1\end{bmatrix}.

    Parameters (positive symbols): ``m1 m2 l1 l2 g``. Defaults: unit masses and
    lengths, g = 10 (the seed's values).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.double_pendulum().M[0, 1]
    l1*l2*m2*cos(a(t) - b(t))
    """
    if coordinates not in ("absolute", "relative"):
        raise LagdynError(
            f"double_pendulum: coordinates must be 'absolute' or 'relative', got {coordinates!r}"
        )
    m1, m2, l1, l2, g = parameters("m1 m2 l1 l2 g")
    if coordinates == "absolute":
        q = _coords("a b")
        a, b = q
    else:
        q = _coords("u1 u2")
        a, b = q[0], q[0] + q[1]
    p1 = sp.Matrix([l1 * sp.sin(a), -l1 * sp.cos(a)])
    p2 = p1 + sp.Matrix([l2 * sp.sin(b), -l2 * sp.cos(b)])
    v1, v2 = p1.diff(t), p2.diff(t)
    T = (m1 * v1.dot(v1) + m2 * v2.dot(v2)) / 2
    U = g * (m1 * p1[1] + m2 * p2[1])
    defaults = {m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 10.0}
    system = LagrangianSystem.from_energies(T, U, q, defaults=defaults)
    return attach(system, Drawing.chain([(0, 0), tuple(p1), tuple(p2)]))

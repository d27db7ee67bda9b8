"""Composite-rigid-body algorithm (CRBA): the mass matrix M(q) of a chain as a program.

Composite inertias are accumulated from the leaves (:func:`~lagdyn.recursive.algebra._composites`);
column i of M is the force the composite of link i exerts for a unit motion of joint i,
carried up to every ancestor. :func:`_crba_into` runs it on an existing builder
(:mod:`~lagdyn.recursive.forward` and :mod:`~lagdyn.recursive.route` share it).

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.recursive.crba import crba
>>> crba(ld.zoo.get("planar_3r").chain).inline()[2, 2]
1/3
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sympy as sp

from .algebra import (
    Vec,
    _apply_inertia,
    _Builder,
    _composites,
    _dot,
    _force_up,
    _Kinematics,
    _kinematics,
)
from .chain import Chain, in_joint_frames
from .program import Program, _finish, input_symbols

__all__ = ["crba"]


def _crba_into(
    chain: Chain, b: _Builder, kin: _Kinematics, top: _Top | None = None
) -> list[list[sp.Expr]]:
    """CRBA on an existing builder: the joints' M (n × n).

    ``top`` (a floating base under the links with parent −1) collects, per joint i, the
    wrench ``(n, f)`` of column i of M carried into the base frame (the base rows of M), and
    the composite inertia of every link with parent −1 (to be added to the base body's)."""
    n = chain.n
    M: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    done = _composites(chain, b, kin)
    for i in range(n - 1, -1, -1):
        link = chain.links[i]
        m, h, I = done(i)
        if top is not None and link.parent < 0:
            top.roots.append((i, (m, h, I)))
        Fn, Ff = _apply_inertia((m, h, I), kin.sw[i], kin.sv[i])
        Fn, Ff = b.vec(Fn), b.vec(Ff)
        M[i][i] = b.let(_dot(kin.sw[i], Fn) + _dot(kin.sv[i], Ff) + link.armature)
        j = i
        while chain.links[j].parent >= 0:
            Fn, Ff = _force_up(b, kin.R[j], kin.p[j], Fn, Ff)
            j = chain.links[j].parent
            M[i][j] = M[j][i] = b.let(_dot(kin.sw[j], Fn) + _dot(kin.sv[j], Ff))
        if top is not None:
            top.columns[i] = _force_up(b, kin.R[j], kin.p[j], Fn, Ff)
    return M


@dataclass
class _Top:
    """What :func:`_crba_into` hands to a floating base (see there)."""

    columns: dict[int, tuple[Vec, Vec]] = field(default_factory=dict)
    roots: list[tuple[int, tuple[sp.Expr, Vec, list[list[sp.Expr]]]]] = field(default_factory=list)


def crba(chain: Chain) -> Program:
    """Composite-rigid-body algorithm: the mass matrix M(q) as a program, shape (n, n).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.crba import crba
    >>> M = crba(ld.zoo.get("planar_3r").chain)
    >>> M.outputs[8], M.body[:2]   # q1 never appears: its cos and sin were pruned
    (1/3, ((x2, cos(_ldq1)), (x3, sin(_ldq1))))
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    b = _Builder()
    kin = _kinematics(chain, b, input_symbols(n)["q"])
    M = _crba_into(chain, b, kin)
    return _finish("M", b, [x for row in M for x in row], (n, n), start)

"""The building blocks of the recursive programs: the builder, 3-vectors, link kinematics.

Shared by :mod:`lagdyn.recursive.program` (RNEA, CRBA), :mod:`lagdyn.recursive.aba`,
:mod:`lagdyn.recursive.coriolis` and :mod:`lagdyn.recursive.regressor`. A ``_Builder`` hands out
named intermediates, so every program is straight-line code; vectors are lists of three
sympy expressions in the link frame; ``_Kinematics`` holds each link's rotation and offset
from its parent with cos/sin of the joint angle named once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import symengine as se
import sympy as sp

from ..trig.convert import SymbolTable
from .chain import Chain

Vec = list[sp.Expr]


def _floats(e: sp.Expr) -> sp.Expr:
    rats = {r: sp.Float(r, 17) for r in e.atoms(sp.Rational) if not r.is_Integer}
    return e.xreplace(rats) if rats else e


class _Builder:
    """Hands out named intermediates; shares identical right-hand sides; inlines trivia."""

    def __init__(self, prefix: str = "x") -> None:
        self.body: list[tuple[sp.Symbol, sp.Expr]] = []
        self._seen: dict[sp.Expr, sp.Symbol] = {}
        self._prefix = prefix

    def let(self, e: Any) -> sp.Expr:
        e = sp.sympify(e)
        if _cheap(e):
            return e
        hit = self._seen.get(e)
        if hit is not None:
            return hit
        neg = self._seen.get(-e)
        if neg is not None:
            return -neg
        s = sp.Symbol(f"{self._prefix}{len(self.body)}", real=True)
        self.body.append((s, e))
        self._seen[e] = s
        return s

    def vec(self, v: Sequence[Any]) -> Vec:
        return [self.let(x) for x in v]


def _cheap(e: sp.Expr) -> bool:
    if e.is_Atom:
        return True
    return bool(e.is_Mul and len(e.args) == 2 and e.args[0].is_Number and e.args[1].is_Atom)


def _cross(a: Vec, b: Vec) -> Vec:
    return [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]


def _dot(a: Vec, b: Vec) -> sp.Expr:
    return sp.Add(*(x * y for x, y in zip(a, b)))


def _add(*vs: Vec) -> Vec:
    return [sp.Add(*xs) for xs in zip(*vs)]


def _scale(c: Any, v: Vec) -> Vec:
    return [c * x for x in v]


def _mv(R: list[list[sp.Expr]], v: Vec) -> Vec:
    return [sp.Add(*(R[i][k] * v[k] for k in range(3))) for i in range(3)]


def _mtv(R: list[list[sp.Expr]], v: Vec) -> Vec:
    return [sp.Add(*(R[k][i] * v[k] for k in range(3))) for i in range(3)]


_ZERO: Vec = [sp.Integer(0)] * 3


@dataclass
class _Kinematics:
    R: list[list[list[sp.Expr]]]
    p: list[Vec]
    sw: list[Vec]
    sv: list[Vec]


@dataclass
class _FreeBase:
    """A floating base body under the links with parent −1, for ABA and the Coriolis matrix.

    ``w, v``: its angular and linear velocity in its own frame; ``inertia``: its own
    ``(m, h, I)`` (barycentric, base frame). ABA also reads ``wrench`` (the ``(n, f)``
    applied to the base), ``gravity`` (in the base frame) and ``solve(b, A, rhs)`` (a 6 × 6
    symmetric solve); the passes leave their base results in ``out``.
    """

    w: Vec
    v: Vec
    inertia: tuple[sp.Expr, Vec, list[list[sp.Expr]]]
    wrench: Vec | None = None
    gravity: Vec | None = None
    solve: Callable[[_Builder, list[list[sp.Expr]], Vec], Vec] | None = None
    out: dict[str, Any] = field(default_factory=dict)


def _kinematics(chain: Chain, b: _Builder, q: Sequence[sp.Symbol]) -> _Kinematics:
    """Per-link rotation and offset (parent → link) with cos/sin of q named once."""
    Rs, ps, sws, svs = [], [], [], []
    for i, link in enumerate(chain.links):
        R, p = link.transform(q[i])
        if link.joint == "revolute":
            trig = {sp.cos(q[i]): b.let(sp.cos(q[i])), sp.sin(q[i]): b.let(sp.sin(q[i]))}
            R, p = R.xreplace(trig), p.xreplace(trig)
        Rs.append([[b.let(sp.expand(R[r, c])) for c in range(3)] for r in range(3)])
        ps.append(b.vec([sp.expand(x) for x in p]))
        sw, sv = link.motion_subspace
        sws.append([sp.nsimplify(x) if x.is_Float else x for x in sw])
        svs.append(list(sv))
    return _Kinematics(Rs, ps, sws, svs)


def _inertia_add(
    b: _Builder,
    R: list[list[sp.Expr]],
    p: Vec,
    child: tuple[sp.Expr, Vec, list[list[sp.Expr]]],
    parent: tuple[sp.Expr, Vec, list[list[sp.Expr]]],
) -> tuple[sp.Expr, Vec, list[list[sp.Expr]]]:
    """Parent composite + child inertia moved into the parent frame (barycentric form)."""
    m, h, I = child
    mp, hp, Ip = parent
    Rh = b.vec(_mv(R, h))
    # R I Rᵀ, symmetric: six entries
    RI = [[sp.Add(*(R[r][k] * I[k][c] for k in range(3))) for c in range(3)] for r in range(3)]
    RI = [[b.let(x) for x in row] for row in RI]
    out = [[sp.Integer(0)] * 3 for _ in range(3)]
    pp = _dot(p, p)
    ph = _dot(p, Rh)
    for r in range(3):
        for c in range(r, 3):
            e = sp.Add(*(RI[r][k] * R[c][k] for k in range(3)))
            # − m[p]×² − [p]×[Rh]× − [Rh]×[p]× = m(p·p 1 − p pᵀ) + 2(p·Rh) 1 − p Rhᵀ − Rh pᵀ
            e += -m * p[r] * p[c] - p[r] * Rh[c] - Rh[r] * p[c]
            if r == c:
                e += m * pp + 2 * ph
            out[r][c] = b.let(Ip[r][c] + e)
            out[c][r] = out[r][c]
    mo = b.let(mp + m)
    ho = b.vec(_add(hp, Rh, _scale(m, p)))
    return mo, ho, out


def _composites(
    chain: Chain, b: _Builder, kin: _Kinematics
) -> Callable[[int], tuple[sp.Expr, Vec, list[list[sp.Expr]]]]:
    """Composite inertias, filled leaf to root by the returned step function."""
    comp: list[tuple[sp.Expr, Vec, list[list[sp.Expr]]]] = []
    for link in chain.links:
        I = link.inertia
        comp.append(
            (link.mass, list(link.first_moment), [[I[r, c] for c in range(3)] for r in range(3)])
        )

    def done(i: int) -> tuple[sp.Expr, Vec, list[list[sp.Expr]]]:
        """Link ``i``'s composite is complete: add it to its parent and return it."""
        j = chain.links[i].parent
        if j >= 0:
            comp[j] = _inertia_add(b, kin.R[i], kin.p[i], comp[i], comp[j])
        return comp[i]

    return done


def _apply_inertia(
    inertia: tuple[sp.Expr, Vec, list[list[sp.Expr]]], sw: Vec, sv: Vec
) -> tuple[Vec, Vec]:
    m, h, I = inertia
    return _add(_mv(I, sw), _cross(h, sv)), _add(_scale(m, sv), _scale(-1, _cross(h, sw)))


def _force_up(b: _Builder, R: list[list[sp.Expr]], p: Vec, fn: Vec, ff: Vec) -> tuple[Vec, Vec]:
    fr = b.vec(_mv(R, ff))
    return b.vec(_add(_mv(R, fn), _cross(p, fr))), fr


def _sk(v: Vec) -> sp.Matrix:
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _blocks(a: sp.Matrix, b: sp.Matrix, c: sp.Matrix, d: sp.Matrix) -> sp.Matrix:
    return sp.Matrix.vstack(sp.Matrix.hstack(a, b), sp.Matrix.hstack(c, d))


class _SymEngine:
    """sympy → symengine → sympy for matrix algebra on program symbols (names restored)."""

    def __init__(self) -> None:
        self._names: dict[str, sp.Expr] = {}
        self._table = SymbolTable(self._names)

    def mat(self, m: sp.Matrix) -> Any:
        for s in m.free_symbols:
            self._names.setdefault(s.name, s)
        return se.DenseMatrix(m.rows, m.cols, [se.sympify(x) for x in m])

    def back(self, e: Any) -> sp.Expr:
        return self._table.to_sympy(se.expand(e))

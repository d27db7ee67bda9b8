"""Featherstone's articulated-body algorithm as a straight-line program (symbolic ABA).

Used by :func:`lagdyn.recursive.program.forward_dynamics` (``method="aba"``) and the recursive
route of ``lambdify``: the three passes with 6 × 6 articulated inertias, rows dropped exactly
when a joint axis is a coordinate axis and there is no armature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .algebra import (
    _ZERO,
    Vec,
    _add,
    _Builder,
    _cross,
    _dot,
    _force_up,
    _FreeBase,
    _Kinematics,
    _mtv,
    _mv,
    _scale,
    _sk,
)
from .chain import Chain


def _sym6(b: _Builder, rows: Sequence[Sequence[Any]]) -> list[list[sp.Expr]]:
    """A named symmetric 6 × 6 matrix from the upper triangle of ``rows``."""
    out: list[list[sp.Expr]] = [[sp.Integer(0)] * 6 for _ in range(6)]
    for r in range(6):
        for c in range(r, 6):
            out[r][c] = out[c][r] = b.let(rows[r][c])
    return out


@dataclass
class _Body:
    """Inertial parameters as a :class:`~lagdyn.recursive.chain.Link` holds them."""

    mass: Any
    first_moment: Any
    inertia: Any


def _rigid6(link: Any) -> list[list[sp.Expr]]:
    """The spatial inertia [[I, [h]×], [−[h]×, m 1]] of a link (force = I₆ · motion)."""
    m, h, I = link.mass, list(link.first_moment), link.inertia
    S = _sk(h)
    out: list[list[sp.Expr]] = [[sp.Integer(0)] * 6 for _ in range(6)]
    for r in range(3):
        for c in range(3):
            out[r][c] = I[r, c]
            out[r][c + 3] = S[r, c]
            out[r + 3][c] = -S[r, c]
        out[r + 3][r + 3] = m
    return out


def _mul6(A: Sequence[Sequence[sp.Expr]], x: Vec) -> Vec:
    return [sp.Add(*(A[r][k] * x[k] for k in range(6))) for r in range(6)]


def _inertia6_up(
    b: _Builder, R: list[list[sp.Expr]], p: Vec, A6: Sequence[Sequence[sp.Expr]]
) -> list[list[sp.Expr]]:
    r"""A general symmetric spatial inertia moved from a link frame to its parent's.

    With blocks :math:`[[A, B], [B^T, C]]` rotated to the parent's orientation
    (:math:`A' = RAR^T`, …) and shifted by the offset p:
    :math:`A'' = A' - B'[p]_\times + [p]_\times B'^T - [p]_\times C' [p]_\times`,
    :math:`B'' = B' + [p]_\times C'`, :math:`C'' = C'` (:math:`X^T I X`).
    """
    A = [[A6[r][c] for c in range(3)] for r in range(3)]
    B = [[A6[r][c + 3] for c in range(3)] for r in range(3)]
    C = [[A6[r + 3][c + 3] for c in range(3)] for r in range(3)]

    def rot(M: list[list[sp.Expr]], sym: bool) -> list[list[sp.Expr]]:
        RM = [
            [b.let(sp.Add(*(R[r][k] * M[k][c] for k in range(3)))) for c in range(3)]
            for r in range(3)
        ]
        out: list[list[sp.Expr]] = [[sp.Integer(0)] * 3 for _ in range(3)]
        for r in range(3):
            for c in range(r if sym else 0, 3):
                out[r][c] = b.let(sp.Add(*(RM[r][k] * R[c][k] for k in range(3))))
                if sym:
                    out[c][r] = out[r][c]
        return out

    A1, B1, C1 = rot(A, True), rot(B, False), rot(C, True)
    P = _sk(p)
    Pm = [[P[r, c] for c in range(3)] for r in range(3)]
    # [p]× C' (general), then [p]× C' [p]× is symmetric up to sign: −[p]×C'[p]× = ([p]×C')[p]×ᵀ
    PC = [
        [b.let(sp.Add(*(Pm[r][k] * C1[k][c] for k in range(3)))) for c in range(3)]
        for r in range(3)
    ]
    PBt = [[sp.Add(*(Pm[r][k] * B1[c][k] for k in range(3))) for c in range(3)] for r in range(3)]
    out: list[list[sp.Expr]] = [[sp.Integer(0)] * 6 for _ in range(6)]
    for r in range(3):
        for c in range(r, 3):
            # −B'[p]× + [p]×B'ᵀ = S + Sᵀ with S = [p]×B'ᵀ
            e = A1[r][c] + PBt[r][c] + PBt[c][r] - sp.Add(*(PC[r][k] * Pm[k][c] for k in range(3)))
            out[r][c] = out[c][r] = e
    for r in range(3):
        for c in range(3):
            out[r][c + 3] = B1[r][c] + PC[r][c]
            out[c + 3][r] = out[r][c + 3]
            out[r + 3][c + 3] = C1[r][c]
    return out


def _unit_index(S: Sequence[sp.Expr]) -> int | None:
    """The index k when ``S`` is ±e_k, else None."""
    nz = [k for k, x in enumerate(S) if x != 0]
    return nz[0] if len(nz) == 1 and abs(S[nz[0]]) == 1 else None


def _aba_into(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    tau: Sequence[sp.Expr],
    root: _FreeBase | None = None,
) -> Vec:
    """Featherstone's articulated-body algorithm on an existing builder: q̈ from (q, q̇, τ).

    ``tau`` is the net joint force (friction already subtracted). Spatial vectors are
    (angular, linear) pairs in link frames; articulated inertias are symmetric 6 × 6 with
    only the entries that are not structurally zero named. With a floating ``root`` the
    links with parent −1 hang from it: its articulated inertia collects theirs, its
    acceleration solves ``Iᴬ a' = wrench − pᴬ`` (``root.solve``) and is left, gravity
    added back, in ``root.out["accel"]`` as ``(ω̇, v̇)`` in the base frame.
    """
    n = chain.n
    links = chain.links
    w: list[Vec] = []
    v: list[Vec] = []
    c: list[Vec] = []
    IA: list[list[list[sp.Expr]]] = []
    pA: list[Vec] = []
    base_w, base_v = (root.w, root.v) if root is not None else (_ZERO, _ZERO)
    for i, link in enumerate(links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        wl, vl = (w[link.parent], v[link.parent]) if link.parent >= 0 else (base_w, base_v)
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        w.append(wi)
        v.append(vi)
        swq, svq = _scale(qd[i], sw), _scale(qd[i], sv)
        c.append(b.vec(_cross(wi, swq)) + b.vec(_add(_cross(wi, svq), _cross(vi, swq))))
        m, h, I = link.mass, list(link.first_moment), link.inertia
        Il = [[I[r, cc] for cc in range(3)] for r in range(3)]
        Lw = b.vec(_add(_mv(Il, wi), _cross(h, vi)))
        Lv = b.vec(_add(_scale(m, vi), _scale(-1, _cross(h, wi))))
        pA.append(_add(_cross(wi, Lw), _cross(vi, Lv)) + _cross(wi, Lv))
        IA.append(_rigid6(link))
    IAb: list[list[sp.Expr]] = []
    pAb: Vec = []
    if root is not None:
        m, h, I = root.inertia
        Lw = b.vec(_add(_mv(I, base_w), _cross(h, base_v)))
        Lv = b.vec(_add(_scale(m, base_v), _scale(-1, _cross(h, base_w))))
        IAb = _rigid6(_Body(m, h, sp.Matrix(I)))
        pAb = _add(_cross(base_w, Lw), _cross(base_v, Lv)) + _cross(base_w, Lv)
    U: list[Vec] = [[]] * n
    Dinv: Vec = [sp.Integer(0)] * n
    u: Vec = [sp.Integer(0)] * n
    for i in range(n - 1, -1, -1):
        link = links[i]
        S = kin.sw[i] + kin.sv[i]
        Ui = b.vec(_mul6(IA[i], S))
        U[i] = Ui
        Dinv[i] = b.let(1 / b.let(_dot(S, Ui) + link.armature))
        u[i] = b.let(tau[i] - _dot(S, pA[i]))
        j = link.parent
        if j < 0 and root is None:
            continue
        UD = b.vec(_scale(Dinv[i], Ui))
        Ia = [[IA[i][r][cc] - Ui[r] * UD[cc] for cc in range(6)] for r in range(6)]
        # Iᵃ S = U J/D (J the armature): with J = 0 and S a signed unit vector e_k, row and
        # column k of Iᵃ vanish exactly
        k = _unit_index(S)
        if k is not None and link.armature == 0:
            for r in range(6):
                Ia[r][k] = Ia[k][r] = sp.Integer(0)
        Ia = _sym6(b, Ia)
        cI = _mul6(Ia, c[i])
        pa = b.vec([pA[i][r] + cI[r] + UD[r] * u[i] for r in range(6)])
        up = _inertia6_up(b, kin.R[i], kin.p[i], Ia)
        if j >= 0:
            IA[j] = _sym6(b, [[IA[j][r][cc] + up[r][cc] for cc in range(6)] for r in range(6)])
        else:
            IAb = _sym6(b, [[IAb[r][cc] + up[r][cc] for cc in range(6)] for r in range(6)])
        fn, ff = _force_up(b, kin.R[i], kin.p[i], pa[:3], pa[3:])
        if j >= 0:
            pA[j] = b.vec(_add(pA[j], fn + ff))
        else:
            pAb = b.vec(_add(pAb, fn + ff))
    base_dw, base_dv = _ZERO, [-x for x in chain.gravity]
    if root is not None:
        assert root.solve is not None and root.wrench is not None and root.gravity is not None
        IAb = _sym6(b, IAb)
        ab = root.solve(b, IAb, [b.let(root.wrench[r] - pAb[r]) for r in range(6)])
        base_dw, base_dv = ab[:3], ab[3:]
        root.out["accel"] = list(ab[:3]) + b.vec(_add(ab[3:], root.gravity))
    a: list[Vec] = []
    qdd: Vec = [sp.Integer(0)] * n
    for i, link in enumerate(links):
        R, p = kin.R[i], kin.p[i]
        dwl, dvl = (
            (a[link.parent][:3], a[link.parent][3:]) if link.parent >= 0 else (base_dw, base_dv)
        )
        ai = b.vec(
            _add(_mtv(R, dwl), c[i][:3]) + _add(_mtv(R, _add(dvl, _cross(dwl, p))), c[i][3:])
        )
        qdd[i] = b.let((u[i] - _dot(U[i], ai)) * Dinv[i])
        S = kin.sw[i] + kin.sv[i]
        a.append(b.vec(_add(ai, _scale(qdd[i], S))))
    return qdd

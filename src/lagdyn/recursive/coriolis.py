"""The Christoffel-consistent Coriolis matrix and the energy as straight-line programs.

The bodies of :func:`lagdyn.recursive.program.coriolis` (Echeandia & Wensing 2021, summed
over subtrees like Pinocchio's ``computeCoriolisMatrix``) and
:func:`lagdyn.recursive.program.energy`, on an existing builder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from .algebra import (
    _ZERO,
    Vec,
    _add,
    _apply_inertia,
    _blocks,
    _Builder,
    _composites,
    _cross,
    _dot,
    _force_up,
    _Kinematics,
    _mtv,
    _mv,
    _scale,
    _sk,
    _SymEngine,
)
from .chain import Chain


def _coriolis_into(
    chain: Chain, b: _Builder, kin: _Kinematics, qd: Sequence[sp.Expr]
) -> list[list[sp.Expr]]:
    """The Coriolis matrix of :func:`coriolis` on an existing builder."""
    n = chain.n
    w: list[Vec] = []
    v: list[Vec] = []
    Sd: list[tuple[Vec, Vec]] = []
    for i, link in enumerate(chain.links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        wl, vl = (w[link.parent], v[link.parent]) if link.parent >= 0 else (_ZERO, _ZERO)
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        w.append(wi)
        v.append(vi)
        Sd.append((b.vec(_cross(wi, sw)), b.vec(_add(_cross(wi, sv), _cross(vi, sw)))))
    # per-link B(I_i, v_i) in the link frame; the 6 × 6 algebra runs in symengine
    alg = _SymEngine()
    Bc: list[Any] = []
    for i, link in enumerate(chain.links):
        m, h, I = link.mass, list(link.first_moment), link.inertia
        I6 = alg.mat(_blocks(sp.Matrix(I), _sk(h), -_sk(h), m * sp.eye(3)))
        vel = alg.mat(sp.Matrix(w[i] + v[i]))
        crm = alg.mat(_blocks(_sk(w[i]), sp.zeros(3), _sk(v[i]), _sk(w[i])))
        Iv = [alg.back(x) for x in I6 * vel]
        bar = alg.mat(_blocks(-_sk(Iv[:3]), -_sk(Iv[3:]), -_sk(Iv[3:]), sp.zeros(3)))
        B = (-crm.T * I6 - I6 * crm + bar) / 2
        Bc.append(alg.mat(sp.Matrix(6, 6, [b.let(alg.back(x)) for x in B])))
    C: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    done = _composites(chain, b, kin)
    for i in range(n - 1, -1, -1):
        link = chain.links[i]
        m, h, I = done(i)
        Bi = Bc[i]
        if link.parent >= 0:
            R = sp.Matrix(kin.R[i])
            X = alg.mat(_blocks(R.T, sp.zeros(3), -R.T * _sk(kin.p[i]), R.T))
            up = X.T * Bi * X + Bc[link.parent]
            Bc[link.parent] = alg.mat(sp.Matrix(6, 6, [b.let(alg.back(x)) for x in up]))
        S = kin.sw[i] + kin.sv[i]
        In, If = _apply_inertia((m, h, I), Sd[i][0], Sd[i][1])
        BS = [alg.back(x) for x in Bi * alg.mat(sp.Matrix(S))]
        F1n, F1f = b.vec(_add(BS[:3], In)), b.vec(_add(BS[3:], If))
        BtS = [alg.back(x) for x in Bi.T * alg.mat(sp.Matrix(S))]
        F2n, F2f = b.vec(BtS[:3]), b.vec(BtS[3:])
        F3n, F3f = (b.vec(x) for x in _apply_inertia((m, h, I), kin.sw[i], kin.sv[i]))
        C[i][i] = b.let(_dot(S, F1n + F1f))
        j = i
        while chain.links[j].parent >= 0:
            R, p = kin.R[j], kin.p[j]
            F1n, F1f = _force_up(b, R, p, F1n, F1f)
            F2n, F2f = _force_up(b, R, p, F2n, F2f)
            F3n, F3f = _force_up(b, R, p, F3n, F3f)
            j = chain.links[j].parent
            Sj = kin.sw[j] + kin.sv[j]
            C[j][i] = b.let(_dot(Sj, F1n + F1f))
            C[i][j] = b.let(_dot(Sj, F2n + F2f) + _dot(Sd[j][0] + Sd[j][1], F3n + F3f))
    return C


def _energy_into(chain: Chain, b: _Builder, kin: _Kinematics, qd: Sequence[sp.Expr]) -> sp.Expr:
    """The total energy of :func:`energy` on an existing builder."""
    w: list[Vec] = []
    v: list[Vec] = []
    Rw: list[list[list[sp.Expr]]] = []
    pw: list[Vec] = []
    eye = [[sp.Integer(int(r == c)) for c in range(3)] for r in range(3)]
    T = sp.Integer(0)
    U = sp.Integer(0)
    for i, link in enumerate(chain.links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        if link.parent >= 0:
            wl, vl, Rl, pl = w[link.parent], v[link.parent], Rw[link.parent], pw[link.parent]
        else:
            wl, vl, Rl, pl = _ZERO, _ZERO, eye, _ZERO
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        Ri = [
            [b.let(sp.Add(*(Rl[r][k] * R[k][c] for k in range(3)))) for c in range(3)]
            for r in range(3)
        ]
        pi = b.vec(_add(pl, _mv(Rl, p)))
        w.append(wi)
        v.append(vi)
        Rw.append(Ri)
        pw.append(pi)
        m, h, I = link.mass, list(link.first_moment), link.inertia
        Il = [[I[r, c] for c in range(3)] for r in range(3)]
        T += b.let(
            (_dot(wi, _mv(Il, wi)) + 2 * _dot(vi, _cross(wi, h)) + m * _dot(vi, vi)) / 2
            + link.armature * qd[i] ** 2 / 2
        )
        U -= b.let(_dot(list(chain.gravity), _add(_scale(m, pi), _mv(Ri, h))))
    return T + U

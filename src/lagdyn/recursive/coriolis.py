"""The Christoffel-consistent Coriolis matrix C(q, q̇) and the energy of a chain as programs.

:func:`coriolis` (Echeandia & Wensing 2021, summed over subtrees like Pinocchio's
``computeCoriolisMatrix``) and :func:`energy`; their bodies :func:`_coriolis_into` and
:func:`_energy_into` run on an existing builder (the recursive route shares them).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.recursive.coriolis import coriolis
>>> arm = ld.zoo.get("planar_3r")
>>> C = coriolis(arm.chain).lambdify(arm.defaults)
>>> C(q=np.zeros(3), qd=np.zeros(3)).shape
(3, 3)
"""

from __future__ import annotations

import time
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
    _FreeBase,
    _Kinematics,
    _kinematics,
    _mtv,
    _mv,
    _scale,
    _sk,
    _SymEngine,
)
from .chain import Chain, in_joint_frames
from .program import Program, _finish, input_symbols

__all__ = ["coriolis", "energy"]


def _coriolis_into(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    root: _FreeBase | None = None,
) -> list[list[sp.Expr]]:
    """The Coriolis matrix of :func:`coriolis` on an existing builder (the joints' block).

    With a floating ``root`` the links with parent −1 hang from it and ``root.out`` receives
    what the base rows and columns need: ``"B"`` (the base's composite B, 6 × 6),
    ``"columns"`` ({i: (F1, F2, F3)}, the three wrenches of joint i carried into the base
    frame: C[base, i] = F1, C[i, base] = F2 + (v_b×)ᵀ F3) and ``"roots"`` (the composite
    inertias of the links with parent −1)."""
    n = chain.n
    w: list[Vec] = []
    v: list[Vec] = []
    Sd: list[tuple[Vec, Vec]] = []
    base_w, base_v = (root.w, root.v) if root is not None else (_ZERO, _ZERO)
    for i, link in enumerate(chain.links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        wl, vl = (w[link.parent], v[link.parent]) if link.parent >= 0 else (base_w, base_v)
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        w.append(wi)
        v.append(vi)
        Sd.append((b.vec(_cross(wi, sw)), b.vec(_add(_cross(wi, sv), _cross(vi, sw)))))
    # per-link B(I_i, v_i) in the link frame; the 6 × 6 algebra runs in symengine
    alg = _SymEngine()

    def body_b(m: Any, h: Vec, I: Any, wi: Vec, vi: Vec) -> Any:
        I6 = alg.mat(_blocks(sp.Matrix(I), _sk(h), -_sk(h), m * sp.eye(3)))
        vel = alg.mat(sp.Matrix(wi + vi))
        crm = alg.mat(_blocks(_sk(wi), sp.zeros(3), _sk(vi), _sk(wi)))
        Iv = [alg.back(x) for x in I6 * vel]
        bar = alg.mat(_blocks(-_sk(Iv[:3]), -_sk(Iv[3:]), -_sk(Iv[3:]), sp.zeros(3)))
        B = (-crm.T * I6 - I6 * crm + bar) / 2
        return alg.mat(sp.Matrix(6, 6, [b.let(alg.back(x)) for x in B]))

    Bc: list[Any] = []
    for i, link in enumerate(chain.links):
        Bc.append(body_b(link.mass, list(link.first_moment), link.inertia, w[i], v[i]))
    Bb: Any = None
    columns: dict[int, tuple[Vec, ...]] = {}
    roots: list[tuple[int, Any]] = []
    if root is not None:
        mb, hb, Ib = root.inertia
        Bb = body_b(mb, list(hb), sp.Matrix(Ib), list(base_w), list(base_v))
    C: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    done = _composites(chain, b, kin)
    for i in range(n - 1, -1, -1):
        link = chain.links[i]
        m, h, I = done(i)
        Bi = Bc[i]
        if link.parent >= 0 or root is not None:
            R = sp.Matrix(kin.R[i])
            X = alg.mat(_blocks(R.T, sp.zeros(3), -R.T * _sk(kin.p[i]), R.T))
            up = X.T * Bi * X + (Bc[link.parent] if link.parent >= 0 else Bb)
            up = alg.mat(sp.Matrix(6, 6, [b.let(alg.back(x)) for x in up]))
            if link.parent >= 0:
                Bc[link.parent] = up
            else:
                Bb = up
                roots.append((i, (m, h, I)))
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
        if root is not None:
            R, p = kin.R[j], kin.p[j]
            F1n, F1f = _force_up(b, R, p, F1n, F1f)
            F2n, F2f = _force_up(b, R, p, F2n, F2f)
            F3n, F3f = _force_up(b, R, p, F3n, F3f)
            columns[i] = (F1n + F1f, F2n + F2f, F3n + F3f)
    if root is not None:
        root.out["B"] = [[alg.back(Bb[r, c]) for c in range(6)] for r in range(6)]
        root.out["columns"] = columns
        root.out["roots"] = roots
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


def coriolis(chain: Chain) -> Program:
    r"""The Christoffel-consistent Coriolis matrix C(q, q̇) as a program, shape (n, n).

    :math:`C = \sum_i J_i^T (B_i J_i + I_i \dot J_i)` (Echeandia & Wensing 2021), where
    :math:`B(I, v) = \tfrac12[(v\times^*)I - I(v\times) + (Iv)\bar\times]`, and
    :math:`(f\bar\times) v = v\times^* f`; summed over subtrees as in Pinocchio's
    ``computeCoriolisMatrix``: with composites :math:`B^c_i, I^c_i` and
    :math:`\dot S_j = v_j \times S_j`, :math:`C_{ji} = S_j\cdot(B^c_i S_i + I^c_i \dot S_i)`
    and :math:`C_{ij} = (B^{cT}_i S_i)\cdot S_j + (I^c_i S_i)\cdot \dot S_j` for ancestors
    j of i. :math:`C\dot q = h - g` and :math:`\dot M - 2C` is skew.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.coriolis import coriolis, energy
    >>> arm = ld.zoo.get("planar_3r")
    >>> C = coriolis(arm.chain).inline()
    >>> import sympy as sp
    >>> [sp.simplify(C[i, j] - arm.plain(arm.C[i, j])) for i in range(3) for j in range(3)]
    [0, 0, 0, 0, 0, 0, 0, 0, 0]
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    C = _coriolis_into(chain, b, kin, ins["qd"])
    return _finish("C", b, [x for row in C for x in row], (n, n), start)


def energy(chain: Chain) -> Program:
    r"""The total energy E = T + U of the chain as a program, shape (1,).

    Per link, with body velocities (ω, v) from the forward pass,
    :math:`T_i = \tfrac12(\omega^T I \omega + 2 v\cdot(\omega\times h) + m\,v\cdot v)`, and
    :math:`U_i = -g\cdot(m\,p + R h)` from the world placement (R, p) of its frame.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive.coriolis import coriolis, energy
    >>> arm = ld.zoo.get("planar_3r")
    >>> E = energy(arm.chain).lambdify(arm.defaults)
    >>> float(E(q=np.zeros(3), qd=np.zeros(3))[0])
    0.0
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    return _finish("E", b, [_energy_into(chain, b, kin, ins["qd"])], (1,), start, n)

r"""The analytical derivatives of RNEA (Carpentier & Mansard, RSS 2018), world frame, as code.

:math:`\partial\tau/\partial q`, :math:`\partial\tau/\partial\dot q` and M of a chain (a tree)
at ``(q, q̇, q̈)`` as intermediates of a :class:`~lagdyn.recursive.algebra._Builder`: one
forward pass, one backward pass of composites, then one product of 6-vectors per entry
(O(n²), no transport of a derivative through the chain). Spatial vectors are pairs of
3-vectors in Plücker coordinates of one frame at its origin: a motion ``(ω, v)``, a force
``(n, f)``; an inertia ``(m, h, I)`` (first moment, rotational inertia about the origin).
Carpentier and Mansard (and Pinocchio) take the base frame; every quantity below is a
product of 6-vectors, which no change of frame alters, so the pass takes the frame of a
root link (:func:`_reference`), where that joint's angle drops out of its whole subtree
(only gravity is rotated; for the UR5 this makes the ID derivatives 2,379 operations
instead of 3,836).

Per body k (``λ(k)`` its parent; ``S_k`` its joint's unit twist; ``I_k`` its inertia; the
derivation needs an inertial frame, the root's frame serves because each formula is a
relation between 6-vectors that holds in any frame):

- ``v_k = v_λ + S_k q̇_k``, ``ν_k = v_λ × S_k`` (= ``Ṡ_k``),
  ``a_k = a_λ + S_k q̈_k + ν_k q̇_k`` (``a_base = −g``),
  ``A_k = a_λ × S_k − ν_k × v_λ``;
- ``h_k = I_k v_k`` (momentum), ``f_k = I_k a_k + v_k ×* h_k``,
  ``İ_k = v_k ×* I_k − I_k v_k ×`` (the rate of the base-frame inertia: no mass term, so
  nine numbers), ``B_k x = İ_k x + x ×* h_k``.

With composites over the subtree of ``i`` (``Ic_i``, ``İc_i``, ``hc_i``, ``F_i``: plain sums
in the base frame) and, per joint, ``Fc_i = Ic_i S_i``, ``β_i = İc_i S_i − S_i ×* hc_i``,
``G_i = Ic_i A_i + İc_i ν_i + ν_i ×* hc_i + S_i ×* F_i``,
``H_i = 2 Ic_i ν_i + İc_i S_i + S_i ×* hc_i``, for ``j`` an ancestor of ``i`` or ``i``:

.. math::

    \partial\tau_i/\partial q_j = Fc_i\cdot A_j + \beta_i\cdot\nu_j,\quad
    \partial\tau_i/\partial\dot q_j = 2\,Fc_i\cdot\nu_j + \beta_i\cdot S_j,\quad
    M_{ij} = Fc_i\cdot S_j,

    \partial\tau_j/\partial q_i = S_j\cdot G_i,\quad
    \partial\tau_j/\partial\dot q_i = S_j\cdot H_i,

and zero for joints on different branches. (Derivation: in the frame that moves with joint
j, every body-fixed quantity of its subtree is constant, the velocity of each body of the
subtree changes by the same ``ν_j`` and its acceleration by ``A_j + ν_j × v_k``; the sum of
``I_k(A_j + ν_j × v_k) + ν_j ×* h_k + v_k ×* I_k ν_j`` over the subtree is
``Ic_i A_j + İc_i ν_j + ν_j ×* hc_i``.) Viscous friction adds its coefficient to the
diagonal of ∂τ/∂q̇ (Coulomb's ``sign(q̇)``: 0), armature to the diagonal of M.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.codegen import Binding
>>> from lagdyn.codegen.python import batch_function
>>> from lagdyn.recursive.derivatives import derivative_program
>>> arm = ld.zoo.get("spatial_3r")
>>> b = Binding(arm.parameters, arm.defaults)
>>> name = "inverse_dynamics_derivatives"
>>> fa, ff = (batch_function(derivative_program(arm, b, method=m), name)
...           for m in ("analytical", "forward"))
>>> x = dict(q=[0.1, -0.7, 1.2], qd=[0.5, 0.2, -1.0], qdd=[1.0, -2.0, 0.3])
>>> bool(np.allclose(fa(**x), ff(**x), rtol=1e-13, atol=1e-12))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from .algebra import (
    _ZERO,
    Vec,
    _add,
    _Builder,
    _cross,
    _dot,
    _Kinematics,
    _mv,
    _scale,
)
from .chain import Chain

__all__: list[str] = []

Inertia = tuple[sp.Expr, Vec, list[list[sp.Expr]]]
Spatial = tuple[Vec, Vec]


def _v(b: _Builder, x: Spatial) -> Spatial:
    return b.vec(x[0]), b.vec(x[1])


def _mcross(a: Spatial, c: Spatial) -> Spatial:
    """Motion × motion: ``(ω_a × ω_c, ω_a × v_c + v_a × ω_c)``."""
    return _cross(a[0], c[0]), _add(_cross(a[0], c[1]), _cross(a[1], c[0]))


def _fcross(a: Spatial, f: Spatial) -> Spatial:
    """Motion ×* force: ``(ω × n + v × f, ω × f)``."""
    return _add(_cross(a[0], f[0]), _cross(a[1], f[1])), _cross(a[0], f[1])


def _apply(J: Inertia, x: Spatial) -> Spatial:
    m, h, I = J
    return _add(_mv(I, x[0]), _cross(h, x[1])), _add(_scale(m, x[1]), _scale(-1, _cross(h, x[0])))


def _apply_rate(Jd: tuple[Vec, list[list[sp.Expr]]], x: Spatial) -> Spatial:
    hd, Id = Jd
    return _add(_mv(Id, x[0]), _cross(hd, x[1])), _scale(-1, _cross(hd, x[0]))


def _sdot(f: Spatial, m: Spatial) -> sp.Expr:
    return _dot(f[0], m[0]) + _dot(f[1], m[1])


def _sadd(*xs: Spatial) -> Spatial:
    return _add(*(x[0] for x in xs)), _add(*(x[1] for x in xs))


def _rate(b: _Builder, J: Inertia, vel: Spatial) -> tuple[Vec, list[list[sp.Expr]]]:
    """``İ = v ×* I − I v ×`` of an inertia moving with ``vel``: ``(ḣ, İ_O)``."""
    m, h, I = J
    w, v = vel
    hd = b.vec(_add(_cross(w, h), _scale(m, v)))
    vh = _dot(v, h)
    Id: list[list[sp.Expr]] = [[sp.Integer(0)] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            # ([ω] I − I [ω])_rc − (h vᵀ + v hᵀ)_rc + 2 (v·h) δ_rc
            wI = sp.Add(*(_skew_row(w, r)[k] * I[k][c] for k in range(3)))
            Iw = sp.Add(*(I[r][k] * _skew_row(w, k)[c] for k in range(3)))
            e = wI - Iw - h[r] * v[c] - v[r] * h[c]
            if r == c:
                e += 2 * vh
            Id[r][c] = Id[c][r] = b.let(e)
    return hd, Id


def _world_inertia(b: _Builder, R: list[list[sp.Expr]], p: Vec, local: Inertia) -> Inertia:
    """A link's inertia ``(m, h, I)`` about the origin of the pass's frame, from its own.

    ``I = R I' Rᵀ − (p yᵀ + y pᵀ) + 2 (p·y) 1`` with ``y = m p / 2 + R h'`` (the parallel
    axis terms ``m(p·p 1 − p pᵀ) + 2(p·Rh') 1 − p (Rh')ᵀ − (Rh') pᵀ`` in one product).
    """
    m, h, I = local
    Rh = b.vec(_mv(R, h))
    RI = [
        [b.let(sp.Add(*(R[r][k] * I[k][c] for k in range(3)))) for c in range(3)] for r in range(3)
    ]
    y = b.vec(_add(_scale(m / 2, p), Rh))
    py = b.let(2 * _dot(p, y))
    out: list[list[sp.Expr]] = [[sp.Integer(0)] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            e = sp.Add(*(RI[r][k] * R[c][k] for k in range(3))) - p[r] * y[c] - y[r] * p[c]
            if r == c:
                e += py
            out[r][c] = out[c][r] = b.let(e)
    return m, b.vec(_add(Rh, _scale(m, p))), out


def _skew_row(w: Vec, r: int) -> Vec:
    return [
        [sp.Integer(0), -w[2], w[1]],
        [w[2], sp.Integer(0), -w[0]],
        [-w[1], w[0], sp.Integer(0)],
    ][r]


class _World:
    """The base-frame pass of a chain at ``q, q̇`` on builder ``b`` (see the module docstring).

    Built: the joints' twists ``S``, velocities, ``ν``, inertias and their composites
    ``Jc``, ``İc``, momenta ``hc``, and ``Fc``, ``β``, ``H`` and M. :meth:`accelerate` adds
    the accelerations and the composite forces at a ``q̈``; :meth:`bias` and :meth:`partials`
    read them.
    """

    def __init__(
        self,
        chain: Chain,
        b: _Builder,
        kin: _Kinematics,
        qd: Sequence[sp.Expr],
        ref: int | None = None,
    ):
        self.chain, self.b, self.qd = chain, b, qd
        n, links = chain.n, chain.links
        zero3 = list(_ZERO)
        Rf, pf, gravity = _frames(chain, b, kin, _reference(chain) if ref is None else ref)
        self.gravity = gravity
        self.S: list[Spatial] = []
        self.vel: list[Spatial] = []
        self.nu: list[Spatial] = []
        self.J: list[Inertia] = []
        mom: list[Spatial] = []
        Jd: list[tuple[Vec, list[list[sp.Expr]]]] = []
        for k, link in enumerate(links):
            lam = link.parent
            vl = self.vel[lam] if lam >= 0 else (zero3, zero3)
            Rk, pk = Rf[k], pf[k]
            sw = b.vec(_mv(Rk, kin.sw[k]))
            sv = b.vec(_add(_mv(Rk, kin.sv[k]), _cross(pk, sw)))
            Sk: Spatial = (sw, sv)
            self.S.append(Sk)
            vk = _v(b, _sadd(vl, (_scale(qd[k], sw), _scale(qd[k], sv))))
            self.vel.append(vk)
            self.nu.append(_v(b, _mcross(vl, Sk)))
            I = link.inertia
            local: Inertia = (
                link.mass,
                list(link.first_moment),
                [[I[r, c] for c in range(3)] for r in range(3)],
            )
            Jk = _world_inertia(b, Rk, pk, local)
            self.J.append(Jk)
            mom.append(_v(b, _apply(Jk, vk)))
            Jd.append(_rate(b, Jk, vk))
        # composites, leaves to root (plain sums in the base frame)
        Jc, Jdc, hc = list(self.J), list(Jd), list(mom)
        for k in range(n - 1, -1, -1):
            lam = links[k].parent
            if lam < 0:
                continue
            (m1, h1, I1), (m2, h2, I2) = Jc[lam], Jc[k]
            Jc[lam] = (b.let(m1 + m2), b.vec(_add(h1, h2)), _msum(b, I1, I2))
            (d1, D1), (d2, D2) = Jdc[lam], Jdc[k]
            Jdc[lam] = (b.vec(_add(d1, d2)), _msum(b, D1, D2))
            hc[lam] = _v(b, _sadd(hc[lam], hc[k]))
        self.Jc, self.Jdc, self.hc = Jc, Jdc, hc
        self.Fc: list[Spatial] = []
        self.beta: list[Spatial] = []
        self.H: list[Spatial] = []
        for k in range(n):
            Sk = self.S[k]
            self.Fc.append(_v(b, _apply(Jc[k], Sk)))
            IS = _v(b, _apply_rate(Jdc[k], Sk))
            Sh = _v(b, _fcross(Sk, hc[k]))
            self.beta.append(_v(b, _sadd(IS, (_scale(-1, Sh[0]), _scale(-1, Sh[1])))))
            Inu = _apply(Jc[k], self.nu[k])
            self.H.append(_v(b, _sadd((_scale(2, Inu[0]), _scale(2, Inu[1])), IS, Sh)))
        zero = sp.Integer(0)
        self.M = [[zero] * n for _ in range(n)]
        for i in range(n):
            for j in _ancestors(chain, i):
                self.M[i][j] = self.M[j][i] = b.let(_sdot(self.Fc[i], self.S[j]))
        for i, link in enumerate(links):
            if link.armature != 0:
                self.M[i][i] = b.let(self.M[i][i] + link.armature)
        self.acc: list[Spatial] = []
        self.F: list[Spatial] = []
        self.f0: list[Spatial] = []
        self.qdd: Sequence[sp.Expr] = [zero] * n

    def accelerate(self, qdd: Sequence[sp.Expr], *, gravity: bool = True) -> None:
        """Accelerations and composite forces at ``qdd``; if already accelerated (at q̈ = 0),
        ``qdd`` is added on (the velocity-product terms are not built again)."""
        b, chain, qd = self.b, self.chain, self.qd
        links = chain.links
        zero3 = list(_ZERO)
        again = bool(self.acc)
        acc: list[Spatial] = []
        delta: list[Spatial] = []
        force: list[Spatial] = []
        g0: Spatial = (zero3, self.gravity if gravity else zero3)
        for k, link in enumerate(links):
            lam = link.parent
            Sk, qk = self.S[k], qdd[k]
            if again:
                # Δa_k = Δa_λ + S_k q̈_k, a_k = a⁰_k + Δa_k, f_k = f⁰_k + I_k Δa_k
                dl = delta[lam] if lam >= 0 else (zero3, zero3)
                da = _v(b, _sadd(dl, (_scale(qk, Sk[0]), _scale(qk, Sk[1]))))
                delta.append(da)
                acc.append(_v(b, _sadd(self.acc[k], da)))
                force.append(_v(b, _sadd(self.f0[k], _apply(self.J[k], da))))
                continue
            al = self.acc_of(acc, lam, g0)
            nuk = self.nu[k]
            ak = _v(
                b,
                _sadd(
                    al,
                    (_scale(qk, Sk[0]), _scale(qk, Sk[1])),
                    (_scale(qd[k], nuk[0]), _scale(qd[k], nuk[1])),
                ),
            )
            vk = self.vel[k]
            hk = _v(b, _apply(self.J[k], vk))
            acc.append(ak)
            force.append(_v(b, _sadd(_apply(self.J[k], ak), _fcross(vk, hk))))
        if not again:
            self.f0 = list(force)
        self.acc = acc
        self.qdd = qdd
        for k in range(chain.n - 1, -1, -1):
            lam = links[k].parent
            if lam >= 0:
                force[lam] = _v(b, _sadd(force[lam], force[k]))
        self.F = force

    @staticmethod
    def acc_of(acc: list[Spatial], lam: int, g0: Spatial) -> Spatial:
        return acc[lam] if lam >= 0 else g0

    def bias(self) -> list[sp.Expr]:
        """τ at the last :meth:`accelerate` (without friction): ``S_i · F_i`` + armature q̈."""
        out = []
        for i, link in enumerate(self.chain.links):
            e = _sdot(self.F[i], self.S[i]) + link.armature * self.qdd[i]
            out.append(self.b.let(e))
        return out

    def partials(
        self, viscous: Sequence[sp.Expr] | None = None
    ) -> tuple[list[list[sp.Expr]], list[list[sp.Expr]]]:
        """``(∂τ/∂q, ∂τ/∂q̇)`` at the last :meth:`accelerate` (n × n each)."""
        b, chain = self.b, self.chain
        n, links = chain.n, chain.links
        S, nu, Fc, beta, H = self.S, self.nu, self.Fc, self.beta, self.H
        A: list[Spatial] = []
        G: list[Spatial] = []
        g0: Spatial = (list(_ZERO), self.gravity)
        for k, link in enumerate(links):
            lam = link.parent
            al = self.acc_of(self.acc, lam, g0)
            vl = self.vel[lam] if lam >= 0 else (list(_ZERO), list(_ZERO))
            # A_k = a_λ × S_k − ν_k × v_λ
            Ak = _v(b, _sadd(_mcross(al, S[k]), _mcross(vl, nu[k])))
            A.append(Ak)
            G.append(
                _v(
                    b,
                    _sadd(
                        _apply(self.Jc[k], Ak),
                        _apply_rate(self.Jdc[k], nu[k]),
                        _fcross(nu[k], self.hc[k]),
                        _fcross(S[k], self.F[k]),
                    ),
                )
            )
        zero = sp.Integer(0)
        dq = [[zero] * n for _ in range(n)]
        dv = [[zero] * n for _ in range(n)]
        for i in range(n):
            for j in _ancestors(chain, i):
                dq[i][j] = b.let(_sdot(Fc[i], A[j]) + _sdot(beta[i], nu[j]))
                dv[i][j] = b.let(2 * _sdot(Fc[i], nu[j]) + _sdot(beta[i], S[j]))
                if j != i:
                    dq[j][i] = b.let(_sdot(G[i], S[j]))
                    dv[j][i] = b.let(_sdot(H[i], S[j]))
        if viscous is not None:
            for i in range(n):
                if viscous[i] != 0:
                    dv[i][i] = b.let(dv[i][i] + viscous[i])
        return dq, dv


def _reference(chain: Chain) -> int:
    """The link whose frame the pass works in: the root with the largest subtree (its
    joint's angle then leaves the pass for all of that subtree)."""
    size = [1] * chain.n
    for k in range(chain.n - 1, -1, -1):
        if chain.links[k].parent >= 0:
            size[chain.links[k].parent] += size[k]
    roots = [i for i, link in enumerate(chain.links) if link.parent < 0]
    return max(roots, key=lambda i: (size[i], -i))


def _frames(
    chain: Chain, b: _Builder, kin: _Kinematics, ref: int
) -> tuple[list[list[list[sp.Expr]]], list[Vec], Vec]:
    """Every link's rotation and origin in the frame of link ``ref`` (-1: the base), and −g
    there. Products of 6-vectors do not depend on the frame they are taken in; a frame
    that moves with the first joints drops their angles from most of the pass."""
    n, links = chain.n, chain.links
    eye = [[sp.Integer(int(r == c)) for c in range(3)] for r in range(3)]
    R: list[Any] = [None] * n
    p: list[Any] = [None] * n
    base_R, base_p = eye, list(_ZERO)
    if ref >= 0:
        R[ref], p[ref] = eye, list(_ZERO)
        k = ref
        while True:  # up to the base: x_λ = R_k x_k + p_k
            Rk = [[R[k][r][c] for c in range(3)] for r in range(3)]
            Rl = _mmt(b, Rk, kin.R[k])
            pl = b.vec(
                [p[k][r] - sp.Add(*(Rl[r][c] * kin.p[k][c] for c in range(3))) for r in range(3)]
            )
            lam = links[k].parent
            if lam < 0:
                base_R, base_p = Rl, pl
                break
            R[lam], p[lam] = Rl, pl
            k = lam
    for k, link in enumerate(links):
        if R[k] is not None:
            continue
        lam = link.parent
        Rl, pl = (R[lam], p[lam]) if lam >= 0 else (base_R, base_p)
        R[k] = _mm(b, Rl, kin.R[k])
        p[k] = b.vec(_add(pl, _mv(Rl, kin.p[k])))
    gravity = b.vec(_mv(base_R, [-x for x in chain.gravity]))
    return R, p, gravity


def _mm(b: _Builder, X: list[list[sp.Expr]], Y: list[list[sp.Expr]]) -> list[list[sp.Expr]]:
    return [
        [b.let(sp.Add(*(X[r][i] * Y[i][c] for i in range(3)))) for c in range(3)] for r in range(3)
    ]


def _mmt(b: _Builder, X: list[list[sp.Expr]], Y: list[list[sp.Expr]]) -> list[list[sp.Expr]]:
    """``X Yᵀ``."""
    return [
        [b.let(sp.Add(*(X[r][i] * Y[c][i] for i in range(3)))) for c in range(3)] for r in range(3)
    ]


def _msum(b: _Builder, X: list[list[sp.Expr]], Y: list[list[sp.Expr]]) -> list[list[sp.Expr]]:
    return [[b.let(X[r][c] + Y[r][c]) for c in range(3)] for r in range(3)]


def _ancestors(chain: Chain, i: int) -> list[int]:
    """``i`` and its ancestors, ``i`` first."""
    out = []
    while i >= 0:
        out.append(i)
        i = chain.links[i].parent
    return out


def _rnea_derivatives_into(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    viscous: Sequence[sp.Expr] | None = None,
) -> tuple[list[list[sp.Expr]], list[list[sp.Expr]], list[list[sp.Expr]]]:
    """``(∂τ/∂q, ∂τ/∂q̇, M)`` of RNEA at ``(q, qd, qdd)``, each n × n, on builder ``b``.

    ``kin``: the links' local kinematics (:func:`~lagdyn.recursive.algebra._kinematics`);
    ``viscous``: friction coefficients added to the diagonal of ∂τ/∂q̇ (none: no friction).
    """
    world = _World(chain, b, kin, qd)
    world.accelerate(qdd)
    dq, dv = world.partials(viscous)
    return dq, dv, world.M

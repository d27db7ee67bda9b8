"""Recursive Newton–Euler (RNEA): τ = M q̈ + C q̇ + g of a chain as a program.

The forward pass (:func:`_forward_pass`: link velocities and accelerations in link frames,
gravity as the base's acceleration) is shared with the regressor
(:mod:`~lagdyn.recursive.regressor`); the backward pass projects each link's wrench on its
joint axis and hands it to the parent. :func:`_rnea_into` runs both on an existing builder
(:mod:`~lagdyn.recursive.forward` and :mod:`~lagdyn.recursive.route` share it).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.recursive.rnea import rnea
>>> arm = ld.zoo.get("planar_3r")
>>> np.round(rnea(arm.chain, qd=False, qdd=False).lambdify(arm.defaults)(q=np.zeros(3)), 4)
array([44.145, 19.62 ,  4.905])
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sympy as sp

from .algebra import (
    _ZERO,
    Vec,
    _add,
    _Builder,
    _cross,
    _dot,
    _Kinematics,
    _kinematics,
    _mtv,
    _mv,
    _scale,
)
from .chain import Chain, in_joint_frames
from .program import Program, _finish, input_symbols

__all__ = ["rnea"]


def _forward_pass(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    g0: Vec,
    root: tuple[Vec, Vec, Vec, Vec] | None = None,
) -> tuple[list[Vec], list[Vec], list[Vec], list[Vec]]:
    """RNEA's forward pass: angular and linear velocity and acceleration of every link in its
    own frame (``g0`` = −gravity as the base's linear acceleration, or zero).

    ``root``: the motion ``(ω, v, ω̇, v̇)`` of a floating base body in its own frame (the
    links with parent −1 hang from it; ``g0`` is then unused: the gravity offset is in v̇)."""
    w: list[Vec] = []
    v: list[Vec] = []
    dw: list[Vec] = []
    dv: list[Vec] = []
    for i, link in enumerate(chain.links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        if link.parent >= 0:
            wl, vl, dwl, dvl = w[link.parent], v[link.parent], dw[link.parent], dv[link.parent]
        elif root is not None:
            wl, vl, dwl, dvl = root
        else:
            wl, vl, dwl, dvl = _ZERO, _ZERO, _ZERO, g0
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        swq, svq = _scale(qd[i], sw), _scale(qd[i], sv)
        dwi = b.vec(_add(_mtv(R, dwl), _scale(qdd[i], sw), _cross(wi, swq)))
        dvi = b.vec(
            _add(
                _mtv(R, _add(dvl, _cross(dwl, p))),
                _scale(qdd[i], sv),
                _cross(wi, svq),
                _cross(vi, swq),
            )
        )
        w.append(wi)
        v.append(vi)
        dw.append(dwi)
        dv.append(dvi)
    return w, v, dw, dv


def _rnea_into(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    gravity: bool,
) -> tuple[Vec, list[tuple[Vec, Vec]]]:
    """RNEA on an existing builder; returns τ (without friction) and link velocities."""
    g0 = [-x for x in chain.gravity] if gravity else _ZERO
    tau, vel, _ = _rnea_tree(chain, b, kin, qd, qdd, g0)
    return tau, vel


def _rnea_tree(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    g0: Vec,
    root: tuple[Vec, Vec, Vec, Vec] | None = None,
) -> tuple[Vec, list[tuple[Vec, Vec]], tuple[Vec, Vec]]:
    """RNEA's passes on an existing builder: τ (without friction), link velocities, and the
    wrench ``(n, f)`` the links with parent −1 exert on what they hang from, in its frame
    (zero and unbuilt without a floating ``root``, see :func:`_forward_pass`)."""
    n = chain.n
    links = chain.links
    w, v, dw, dv = _forward_pass(chain, b, kin, qd, qdd, g0, root)
    nf: list[Vec] = []
    ff: list[Vec] = []
    for link, wi, vi, dwi, dvi in zip(links, w, v, dw, dv):
        m, h, I = link.mass, list(link.first_moment), link.inertia
        Il = [[I[r, c] for c in range(3)] for r in range(3)]
        Lw = b.vec(_add(_mv(Il, wi), _cross(h, vi)))
        Lv = b.vec(_add(_scale(m, vi), _scale(-1, _cross(h, wi))))
        nf.append(b.vec(_add(_mv(Il, dwi), _cross(h, dvi), _cross(wi, Lw), _cross(vi, Lv))))
        ff.append(b.vec(_add(_scale(m, dvi), _scale(-1, _cross(h, dwi)), _cross(wi, Lv))))
    tau: Vec = [sp.Integer(0)] * n
    base_n, base_f = list(_ZERO), list(_ZERO)
    for i in range(n - 1, -1, -1):
        link = links[i]
        tau[i] = b.let(_dot(kin.sw[i], nf[i]) + _dot(kin.sv[i], ff[i]) + link.armature * qdd[i])
        if link.parent >= 0 or root is not None:
            R, p = kin.R[i], kin.p[i]
            fr = b.vec(_mv(R, ff[i]))
            nr = _add(_mv(R, nf[i]), _cross(p, fr))
            j = link.parent
            if j >= 0:
                ff[j] = b.vec(_add(ff[j], fr))
                nf[j] = b.vec(_add(nf[j], nr))
            else:
                base_f = b.vec(_add(base_f, fr))
                base_n = b.vec(_add(base_n, nr))
    return tau, list(zip(w, v)), (base_n, base_f)


def rnea(
    chain: Chain, *, qd: bool = True, qdd: bool = True, gravity: bool = True, friction: bool = False
) -> Program:
    """Recursive Newton–Euler: the joint forces τ = M q̈ + C q̇ + g as a program.

    ``qdd=False`` gives h = C q̇ + g, ``qd=False, qdd=False`` gives g, ``gravity=False``
    drops g. ``friction=True`` adds the friction forces F_v q̇ + F_c sign(q̇) that the
    actuators must overcome.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive.rnea import rnea
    >>> puma = ld.zoo.get("puma560")
    >>> g = rnea(puma.chain, qd=False, qdd=False).lambdify(puma.defaults)
    >>> np.round(g(q=np.zeros(6)), 4) + 0.0
    array([ 0.    , 37.4837,  0.2489,  0.    ,  0.    ,  0.    ])
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    zero = [sp.Integer(0)] * n
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    tau, _ = _rnea_into(
        chain, b, kin, ins["qd"] if qd else zero, ins["qdd"] if qdd else zero, gravity
    )
    if friction and qd:
        tau = [
            tau[i] + link.viscous * ins["qd"][i] + link.coulomb * sp.sign(ins["qd"][i])
            for i, link in enumerate(chain.links)
        ]
    name = "tau" if qdd else ("h" if qd else "g")
    return _finish(name, b, tau, (n,), start)

r"""Frame kinematics of a floating-base tree as straight-line programs: placements,
Jacobians and the drift J̇ v of any frame fixed on a body.

A :class:`Frame` is a placement fixed on one body of a
:class:`~lagdyn.recursive.floating.FloatingChain` (``body = -1`` for the base, else a link
index): a URDF link's frame, a joint's frame, a fixed joint's child (Solo12's ``FL_FOOT``).
:func:`frames_program` generates, for a tuple of frames, three kernels through the program
IR (every backend):

``frame_placement`` (inputs q) — shape ``(F, 12)``
    each frame's rotation R (row-major, frame → world) then its origin p in the world;
``frame_jacobian`` (inputs q) — shape ``(6 F, nv)``
    each frame's 6 × nv Jacobian in Pinocchio's ``LOCAL_WORLD_ALIGNED`` convention: rows
    (ṗ, ω) — the velocity of the frame's origin and its angular velocity, both in world
    axes — for the velocity v of :mod:`lagdyn.recursive.floating` (base linear and angular
    velocity in the base frame, joint rates);
``frame_drift`` (inputs q, v) — shape ``(F, 6)``
    each frame's classical acceleration (p̈, ω̇) in world axes at v̇ = 0: the term J̇ v of
    p̈ = J v̇ + J̇ v (``pin.getFrameClassicalAcceleration`` after ``pin.forwardKinematics(q,
    v, 0)`` in ``LOCAL_WORLD_ALIGNED``).

A fixed-base chain (:func:`frames_program` given a ``Chain``) runs the same recursion from
the world (body −1), with q and v the joint values and rates.

The other reference frames of Pinocchio (``LOCAL``, ``WORLD``) follow from these by a
rotation and a change of reference point (:mod:`lagdyn.robot.contacts`).

The recursion runs in world axes: for a body c on its parent p (offset r = p_c − p_p, joint
twist (s_ω, s_v) in c's frame, rotated into the world as (σ, υ)),
ω_c = ω_p + σ q̇, u = υ q̇, v_c = v_p + ω_p × r + u, and at v̇ = 0
ω̇_c = ω̇_p + ω_p × σ q̇, a_c = a_p + ω̇_p × r + ω_p × (ω_p × r + u) + ω_c × u; the base starts
with ω_0 = R ω_b, v_0 = R v_b, ω̇_0 = 0, a_0 = ω_0 × v_0 (v̇ is the derivative of the
base-frame velocity).

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.recursive.kinematics import frames_program
>>> from lagdyn.robot.floating import EXAMPLE_URDF
>>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
>>> prog = frames_program(robot.base, [robot.frames["shank_r"]], {"g": 9.81})
>>> prog.kernels["frame_jacobian"].shape
(6, 9)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..codegen import Kernel
from ..codegen import Program as CodegenProgram
from ..codegen.ir import code_symbols, prune
from ..errors import LagdynError
from .algebra import Vec, _add, _Builder, _cross, _kinematics, _mv, _scale
from .chain import _EYE, _ZERO3, Chain, Mat
from .floating import FloatingChain, _bind, _rotation
from .program import _finish_outputs

__all__ = ["FRAME_KERNELS", "Frame", "contact_program", "frames_program"]

#: The kernels of :func:`frames_program`.
FRAME_KERNELS = ("frame_placement", "frame_jacobian", "frame_drift")
_INPUTS = {
    "frame_placement": ("q", "params"),
    "frame_jacobian": ("q", "params"),
    "frame_drift": ("q", "qd", "params"),
}


@dataclass(frozen=True)
class Frame:
    """A frame fixed on one body: its rotation and origin in that body's (link) frame.

    Parameters
    ----------
    name : str
    body : int
        ``-1`` for the floating base, else the index of a link of the chain.
    rotation, position
        The frame's placement in the body frame (3 × 3 and 3 × 1, exact numbers);
        default the body frame itself.

    Examples
    --------
    >>> from lagdyn.recursive.kinematics import Frame
    >>> Frame("toe", 2, position=(0, 0, -0.2)).position.T
    Matrix([[0, 0, -1/5]])
    """

    name: str
    body: int
    rotation: Any = _EYE
    position: Any = _ZERO3

    def __post_init__(self) -> None:
        rot = Mat(sp.Matrix(self.rotation).applyfunc(_exact))
        pos = Mat(sp.Matrix(self.position).reshape(3, 1).applyfunc(_exact))
        if rot.shape != (3, 3):
            raise LagdynError(f"frame {self.name!r}: the rotation must be 3 × 3, got {rot.shape}")
        if not isinstance(self.body, int) or self.body < -1:
            raise LagdynError(f"frame {self.name!r}: body must be −1 (the base) or a link index")
        object.__setattr__(self, "rotation", rot)
        object.__setattr__(self, "position", pos)


def _exact(x: Any) -> sp.Expr:
    e = sp.sympify(x)
    return sp.nsimplify(e, rational=True) if e.is_Float else e


class _Tree:
    """World placements, velocities and accelerations (v̇ = 0) of the bodies, built once."""

    def __init__(
        self,
        fc: FloatingChain,
        b: _Builder,
        q: Sequence[Any],
        v: Sequence[Any],
        fixed: bool = False,
    ) -> None:
        self.fc, self.b, self.n = fc, b, fc.n
        self.fixed = fixed  # a fixed base: body −1 is the world, q and v the joints only
        self.off = 0 if fixed else 6  # joint i's entry of v
        self.nv = fc.n if fixed else fc.nv
        self.kin = _kinematics(fc.chain, b, q[0 : fc.n] if fixed else q[7 : 7 + fc.n])
        self.q, self.v = q, v
        self._R: dict[int, list[list[sp.Expr]]] = {}
        self._p: dict[int, Vec] = {}
        self._axes: dict[int, tuple[Vec, Vec]] = {}
        self._vel: dict[int, tuple[Vec, Vec]] = {}
        self._acc: dict[int, tuple[Vec, Vec]] = {}

    def parent(self, i: int) -> int:
        return int(self.fc.chain.links[i].parent)

    def path(self, i: int) -> list[int]:
        """The links from the base to ``i`` (root first)."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent(i)
        return out[::-1]

    def R(self, i: int) -> list[list[sp.Expr]]:
        if i not in self._R:
            if i < 0 and self.fixed:
                one, zero = sp.Integer(1), sp.Integer(0)
                self._R[i] = [[one if r == c else zero for c in range(3)] for r in range(3)]
            elif i < 0:
                self._R[i] = _rotation(self.b, self.q[3:7])
            else:
                Rp, Rr = self.R(self.parent(i)), self.kin.R[i]
                self._R[i] = [
                    [self.b.let(sp.Add(*(Rp[r][k] * Rr[k][c] for k in range(3)))) for c in range(3)]
                    for r in range(3)
                ]
        return self._R[i]

    def p(self, i: int) -> Vec:
        if i not in self._p:
            if i < 0:
                self._p[i] = [sp.Integer(0)] * 3 if self.fixed else list(self.q[0:3])
            else:
                j = self.parent(i)
                self._p[i] = self.b.vec(_add(self.p(j), _mv(self.R(j), self.kin.p[i])))
        return self._p[i]

    def axes(self, i: int) -> tuple[Vec, Vec]:
        """The joint's unit twist (σ, υ) in world axes, at the link origin."""
        if i not in self._axes:
            R = self.R(i)
            sw, sv = self.kin.sw[i], self.kin.sv[i]
            self._axes[i] = (self.b.vec(_mv(R, sw)), self.b.vec(_mv(R, sv)))
        return self._axes[i]

    def velocity(self, i: int) -> tuple[Vec, Vec]:
        """(ω, velocity of the origin), world axes."""
        if i not in self._vel:
            b = self.b
            if i < 0 and self.fixed:
                self._vel[i] = ([sp.Integer(0)] * 3, [sp.Integer(0)] * 3)
            elif i < 0:
                R = self.R(-1)
                self._vel[i] = (b.vec(_mv(R, list(self.v[3:6]))), b.vec(_mv(R, list(self.v[0:3]))))
            else:
                j = self.parent(i)
                wp, vp = self.velocity(j)
                s, u0 = self.axes(i)
                qd = self.v[self.off + i]
                r = b.vec(_add(self.p(i), _scale(-1, self.p(j))))
                w = b.vec(_add(wp, _scale(qd, s)))
                vel = b.vec(_add(vp, _cross(wp, r), _scale(qd, u0)))
                self._vel[i] = (w, vel)
        return self._vel[i]

    def acceleration(self, i: int) -> tuple[Vec, Vec]:
        """(ω̇, classical acceleration of the origin) at v̇ = 0, world axes."""
        if i not in self._acc:
            b = self.b
            if i < 0:
                w, vel = self.velocity(-1)
                self._acc[i] = ([sp.Integer(0)] * 3, b.vec(_cross(w, vel)))  # 0 when fixed
            else:
                j = self.parent(i)
                wp, _ = self.velocity(j)
                dwp, ap = self.acceleration(j)
                w, _ = self.velocity(i)
                s, u0 = self.axes(i)
                qd = self.v[self.off + i]
                u = b.vec(_scale(qd, u0))
                r = b.vec(_add(self.p(i), _scale(-1, self.p(j))))
                dw = b.vec(_add(dwp, _cross(wp, _scale(qd, s))))
                inner = _add(_cross(wp, r), u)
                a = b.vec(_add(ap, _cross(dwp, r), _cross(wp, inner), _cross(w, u)))
                self._acc[i] = (dw, a)
        return self._acc[i]

    # ------------------------------------------------------------------ frames
    def placement(self, f: Frame) -> tuple[list[list[sp.Expr]], Vec]:
        R, p = self.R(f.body), self.p(f.body)
        Rf = [
            [sp.Add(*(R[r][k] * f.rotation[k, c] for k in range(3))) for c in range(3)]
            for r in range(3)
        ]
        pf = _add(p, _mv(R, list(f.position)))
        return [self.b.vec(row) for row in Rf], self.b.vec(pf)

    def jacobian(self, f: Frame) -> list[list[sp.Expr]]:
        """6 × nv, rows (ṗ, ω) in world axes."""
        b, N, off = self.b, self.nv, self.off
        _, pf = self.placement(f)
        J: list[list[sp.Expr]] = [[sp.Integer(0)] * N for _ in range(6)]
        R0, p0 = self.R(-1), self.p(-1)
        d0 = b.vec(_add(pf, _scale(-1, p0)))
        for k in range(0 if self.fixed else 3):
            col = [R0[r][k] for r in range(3)]
            lin = b.vec(_cross(col, d0))
            for r in range(3):
                J[r][k] = col[r]
                J[r][3 + k] = lin[r]
                J[3 + r][3 + k] = col[r]
        for i in self.path(f.body):
            s, u = self.axes(i)
            d = _add(pf, _scale(-1, self.p(i)))
            lin = b.vec(_add(u, _cross(s, d)))
            for r in range(3):
                J[r][off + i] = lin[r]
                J[3 + r][off + i] = s[r]
        return J

    def drift(self, f: Frame) -> Vec:
        """(p̈, ω̇) of the frame at v̇ = 0, world axes."""
        b = self.b
        _, pf = self.placement(f)
        w, _ = self.velocity(f.body)
        dw, a = self.acceleration(f.body)
        d = b.vec(_add(pf, _scale(-1, self.p(f.body))))
        af = _add(a, _cross(dw, d), _cross(w, _cross(w, d)))
        return b.vec(af) + list(dw)


def _in_joint_frames(fc: FloatingChain, frames: Sequence[Frame]) -> list[Frame]:
    """The frames re-expressed in the joint frames of :func:`in_joint_frames` (a link's
    frame there is its joint frame, the original link frame is that times ``post``)."""
    out = []
    for f in frames:
        if f.body < 0:
            out.append(f)
            continue
        RB, pB = fc.chain.links[f.body].post
        if RB == _EYE and pB == _ZERO3:
            out.append(f)
            continue
        out.append(Frame(f.name, f.body, Mat(RB * f.rotation), Mat(pB + RB * f.position)))
    return out


def check_frames(fc: FloatingChain, frames: Sequence[Frame]) -> None:
    """Refuse frames on bodies the chain does not have."""
    for f in frames:
        if not isinstance(f, Frame):
            raise LagdynError(f"expected Frame objects, got {type(f).__name__}")
        if f.body >= fc.n:
            raise LagdynError(
                f"frame {f.name!r} sits on body {f.body}, but the chain has {fc.n} links"
            )


def frames_program(
    fc: FloatingChain | Chain,
    frames: Sequence[Frame],
    params: Mapping[Any, float] | None = None,
    *,
    cse: bool = False,
) -> CodegenProgram:
    """The generated-code program of the frames' placements, Jacobians and drifts.

    Kernels ``frame_placement`` (F × 12: R row-major, then p), ``frame_jacobian``
    (6F × nv, ``LOCAL_WORLD_ALIGNED`` rows ṗ, ω per frame) and ``frame_drift`` (F × 6: p̈,
    ω̇ at v̇ = 0, world axes); see the module docstring. Given a
    :class:`~lagdyn.recursive.chain.Chain` instead of a floating chain, the base is fixed:
    body −1 is the world, q and v are the joints' (n entries), the Jacobian 6F × n. For a
    floating base every per-state vector has ``nq`` entries (``qd``: ``nv`` values, then one
    unused), as in :func:`~lagdyn.recursive.floating.floating_program`.

    Raises
    ------
    UnboundParameterError
        A parameter of ``fc`` without a value.
    LagdynError
        No frames, or a frame on a body the chain does not have.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.kinematics import frames_program
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> feet = [robot.frames["thigh_l"], robot.frames["shank_r"]]
    >>> prog = frames_program(robot.base, feet, {"g": 9.81})
    >>> [prog.kernels[k].shape for k in ("frame_placement", "frame_jacobian", "frame_drift")]
    [(2, 12), (12, 9), (2, 6)]
    """
    frames = list(frames)
    if not frames:
        raise LagdynError("frames_program needs at least one frame")
    fixed = isinstance(fc, Chain)
    if isinstance(fc, Chain):  # a fixed base: the world is body −1
        fc = FloatingChain(fc)
    check_frames(fc, frames)
    frames = _in_joint_frames(fc, frames)
    fc = _bind(fc, params)
    nq, nv, F = (fc.n, fc.n, len(frames)) if fixed else (fc.nq, fc.nv, len(frames))
    code = {k: code_symbols(k, nq) for k in ("q", "qd", "qdd", "tau")}
    code["params"] = ()
    b = _Builder("w")
    tree = _Tree(fc, b, code["q"], code["qd"], fixed)
    place: list[sp.Expr] = []
    jac: list[sp.Expr] = []
    drift: list[sp.Expr] = []
    for f in frames:
        R, p = tree.placement(f)
        place += [x for row in R for x in row] + list(p)
        jac += [x for row in tree.jacobian(f) for x in row]
    for f in frames:
        drift += tree.drift(f)
    outputs = {"frame_placement": place, "frame_jacobian": jac, "frame_drift": drift}
    body, outs = _finish_outputs(outputs, b.body, cse)
    names = [str(s) for s in fc.chain.joint_names] or [f"q{i + 1}" for i in range(fc.n)]
    prog = CodegenProgram(
        n=nq,
        vectors=code,
        t=sp.Symbol("t", real=True),
        coordinate_names=tuple(names if fixed else ["x", "y", "z", "qx", "qy", "qz", "qw", *names]),
    )
    shapes = {
        "frame_placement": (F, 12),
        "frame_jacobian": (6 * F, nv),
        "frame_drift": (F, 6),
    }
    for k, exprs in outs.items():
        prog.kernels[k] = Kernel(k, _INPUTS[k], prune(body, [], exprs), exprs, shapes[k])
    return prog


def _contact_rows_in_base(
    rel: _Tree, f: Frame, dim: int, local: bool, v: Sequence[Any]
) -> tuple[list[list[sp.Expr]], Vec, list[list[sp.Expr]] | None]:
    """One contact's rows of J_c and J̇_c v in the *base* axes (or the frame's own with
    ``local``), from the tree relative to the base (``rel``, a fixed-base tree): no world
    rotation of any body. With r, ṙ, r̈ the frame origin's position, velocity and
    acceleration (q̈ = 0) relative to the base in its axes, (v_b, ω) the base velocity:
    ṗ = v_b + ω × r + ṙ, p̈ = ω × v_b + ω × (ω × r) + 2 ω × ṙ + r̈ (all in base axes), the
    frame's angular velocity ω + ω_r and acceleration ω × ω_r + α_r. Returns the rows, the
    drift and, for rows in base axes, the rotation that takes the multipliers to the
    world-aligned ones (``None``: already in the frame's axes)."""
    b, n = rel.b, rel.n
    N = n + 6
    Rr, r = rel.placement(f)
    Jr = rel.jacobian(f)
    dr = rel.drift(f)
    vb, w, qd = list(v[0:3]), list(v[3:6]), list(v[6:N])
    rd = b.vec([sp.Add(*(Jr[k][j] * qd[j] for j in range(n))) for k in range(3)])
    one, zero = sp.Integer(1), sp.Integer(0)
    # linear rows: [I | −[r]× | J_r]; angular rows: [0 | I | J_rω]
    lin = [
        [one if c == k else zero for c in range(3)]
        + [[zero, r[2], -r[1]], [-r[2], zero, r[0]], [r[1], -r[0], zero]][k]
        + [Jr[k][j] for j in range(n)]
        for k in range(3)
    ]
    wr = _cross(w, r)
    acc = b.vec(_add(_cross(w, vb), _cross(w, wr), _scale(2, _cross(w, rd)), dr[:3]))
    rows = lin
    drift: Vec = list(acc)
    if dim == 6:
        ang = [
            [zero] * 3
            + [one if c == k else zero for c in range(3)]
            + [Jr[3 + k][j] for j in range(n)]
            for k in range(3)
        ]
        wrel = b.vec([sp.Add(*(Jr[3 + k][j] * qd[j] for j in range(n))) for k in range(3)])
        pdot = _add(vb, wr, rd)
        spatial = b.vec(_add(acc, _scale(-1, _cross(_add(w, wrel), pdot))))
        alpha = b.vec(_add(_cross(w, wrel), dr[3:6]))
        rows, drift = lin + ang, list(spatial) + list(alpha)
    if not local:
        return [[b.let(x) for x in row] for row in rows], drift, None
    out_rows: list[list[sp.Expr]] = []
    out_drift: Vec = []
    for k in range(0, dim, 3):  # R_rᵀ on each block of three
        blk = rows[k : k + 3]
        for c in range(3):
            out_rows.append(
                [b.let(sp.Add(*(Rr[s][c] * blk[s][j] for s in range(3)))) for j in range(N)]
            )
        out_drift += b.vec([sp.Add(*(Rr[s][c] * drift[k + s] for s in range(3))) for c in range(3)])
    return out_rows, out_drift, Rr


def _ldlt(b: _Builder, K: list[list[sp.Expr]], rhs: Vec, split: int) -> tuple[Vec, Vec]:
    """K x = rhs by an unrolled LDLᵀ (symmetric K, no pivoting, structural zeros kept):
    W = L D is kept beside L, so each update term costs one product. Also returns, for
    the pivots from ``split`` on, d_j / s_j: the pivot over its value after the first
    ``split`` eliminations only (in (0, 1] for a definite trailing block; near 0 for a row
    that depends on the rows before it)."""
    n = len(K)
    L: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    W: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    Dinv: Vec = [sp.Integer(0)] * n
    ratios: Vec = []
    for j in range(n):
        first = b.let(K[j][j] - sp.Add(*(W[j][k] * L[j][k] for k in range(min(j, split)))))
        d = b.let(first - sp.Add(*(W[j][k] * L[j][k] for k in range(split, j))))
        if j >= split:
            ratios.append(b.let(d / first))
        Dinv[j] = b.let(1 / d)
        for i in range(j + 1, n):
            W[i][j] = b.let(K[i][j] - sp.Add(*(W[i][k] * L[j][k] for k in range(j))))
            L[i][j] = b.let(W[i][j] * Dinv[j])
    y: Vec = [sp.Integer(0)] * n
    for i in range(n):
        y[i] = b.let(rhs[i] - sp.Add(*(L[i][k] * y[k] for k in range(i))))
    x: Vec = [sp.Integer(0)] * n
    for i in range(n - 1, -1, -1):
        x[i] = b.let(y[i] * Dinv[i] - sp.Add(*(L[k][i] * x[k] for k in range(i + 1, n))))
    return x, ratios


def contact_program(
    fc: FloatingChain,
    contacts: Sequence[tuple[Frame, int]],
    params: Mapping[Any, float] | None = None,
    *,
    reference: str = "local_world_aligned",
    friction: bool = False,
    cse: bool = False,
) -> CodegenProgram:
    r"""One kernel ``contact_dynamics`` (inputs q, v, τ): ``[v̇; λ; ρ]`` of the contact KKT
    system ``[[M, −J_cᵀ], [J_c, 0]] [v̇; λ] = [τ − h; −J̇_c v]`` as straight-line code.

    M (CRBA), h (RNEA), the contact rows and their drift (as :class:`Contacts
    <lagdyn.robot.contacts.Contacts>` defines them, without Baumgarte terms; computed from
    the tree relative to the base, in the base's axes — no world rotation of any body —
    and the multipliers turned to world axes at the end) and one
    unrolled LDLᵀ of the symmetric ``[[M, J_cᵀ], [J_c, 0]]`` (joint friction in h with
    ``friction``) in the order: the joints
    leaves first, the base, then the multipliers — the Schur complement ordering, so the
    pivots are those of M and then of −J_c M⁻¹ J_cᵀ (no fill across the legs before the
    base); structural zeros stay zero. A rank-deficient J_c gives a zero pivot (non-finite
    outputs), which the numeric wrapper reports.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.kinematics import contact_program
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> prog = contact_program(robot.base, [(robot.frames["shank_r"], 3)], {"g": 9.81})
    >>> prog.kernels["contact_dynamics"].shape
    (15,)
    """
    from .floating import _Floating

    if reference not in ("local_world_aligned", "local"):
        raise LagdynError(f"reference must be 'local_world_aligned' or 'local', got {reference!r}")
    contacts = list(contacts)
    if not contacts:
        raise LagdynError("contact_program needs at least one contact")
    frames = [f for f, _ in contacts]
    check_frames(fc, frames)
    frames = _in_joint_frames(fc, frames)
    fc = _bind(fc, params)
    nq, N = fc.nq, fc.nv
    code = {k: code_symbols(k, nq) for k in ("q", "qd", "qdd", "tau")}
    code["params"] = ()
    b = _Builder("w")
    F = _Floating(fc, b, code)
    M = F.mass_matrix()
    h = list(F.rnea(True, False, True))
    if friction:  # the joints' viscous and Coulomb friction, in h as in floating_program
        vj = code["qd"][6:N]
        for i, link in enumerate(fc.chain.links):
            h[6 + i] = h[6 + i] + link.viscous * vj[i] + link.coulomb * sp.sign(vj[i])
    # the contact rows in base axes (or the frames' own), from the tree relative to the base
    rel = _Tree(fc, b, code["q"][7:], code["qd"][6:], fixed=True)
    rows: list[list[sp.Expr]] = []
    gamma: Vec = []
    dims = []
    for f, (_, dim) in zip(frames, contacts):
        r, d, _ = _contact_rows_in_base(rel, f, dim, reference == "local", code["qd"])
        rows += r
        gamma += [-x for x in d]
        dims.append(dim)
    m = len(rows)
    tau = code["tau"]
    rhs = [b.let(tau[k] - h[k]) for k in range(N)] + gamma
    # order: joints leaves first (reverse index), the base (5 … 0), then the multipliers
    order = list(range(N - 1, -1, -1)) + list(range(N, N + m))

    def K(i: int, j: int) -> sp.Expr:
        if i < N and j < N:
            return M[i][j]
        if i >= N and j >= N:
            return sp.Integer(0)
        return rows[i - N][j] if i >= N else rows[j - N][i]

    Kp = [[K(i, j) for j in order] for i in order]
    x, ratios = _ldlt(b, Kp, [rhs[i] for i in order], N)
    sol: list[sp.Expr] = [sp.Integer(0)] * (N + m)
    for k, i in enumerate(order):
        sol[i] = x[k]
    lam = [-x for x in sol[N:]]  # the symmetric system's unknown is −λ
    if reference == "local_world_aligned":  # base axes → world axes, R λ per block of three
        R0 = F.rotation
        lam = [
            b.let(sp.Add(*(R0[r][s] * lam[k + s] for s in range(3))))
            for k in range(0, m, 3)
            for r in range(3)
        ]
    out = sol[:N] + lam + ratios
    body, outs = _finish_outputs({"contact_dynamics": out}, b.body, cse)
    prog = CodegenProgram(
        n=nq,
        vectors=code,
        t=sp.Symbol("t", real=True),
        coordinate_names=tuple(
            ["x", "y", "z", "qx", "qy", "qz", "qw"] + [str(s) for s in fc.chain.joint_names]
        ),
    )
    exprs = outs["contact_dynamics"]
    prog.kernels["contact_dynamics"] = Kernel(
        "contact_dynamics",
        ("q", "qd", "tau", "params"),
        prune(body, [], exprs),
        exprs,
        (N + 2 * m,),
    )
    return prog

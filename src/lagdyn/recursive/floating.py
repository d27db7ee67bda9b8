r"""Trees on a floating base: RNEA, CRBA, ABA and the Coriolis matrix as straight-line programs.

A :class:`FloatingChain` is a free rigid body (the *base*: a quadruped's trunk, a humanoid's
pelvis) with a :class:`~lagdyn.recursive.chain.Chain` of joints hanging from it (links with
parent −1 are attached to the base body, not to the world). Conventions are Pinocchio's
``JointModelFreeFlyer``, so that vectors can be exchanged with it unchanged:

- configuration ``q = (x, y, z, qx, qy, qz, qw, q_1 … q_n)``: the base position in the
  world, its orientation as a quaternion (x, y, z, w), the joint values — ``nq = 7 + n``;
- velocity ``v = (v_x, v_y, v_z, ω_x, ω_y, ω_z, q̇_1 … q̇_n)``: the base's linear and angular
  velocity *in the base frame*, the joint rates — ``nv = 6 + n``; the acceleration is
  ``v̇`` (its derivative, Featherstone's spatial acceleration of the base in the base frame);
- forces ``τ`` of size ``nv``: a wrench on the base (force, then torque, in the base frame),
  then the joint forces.

The equations are :math:`M(q_J)\,\dot v + C(q_J, v)\,v + g(q) = \tau`: M depends on the joint
values only (the base block too), g on the joints and the orientation (gravity seen in the
base frame, :math:`R^T g`); C is the Christoffel-consistent matrix, so that
:math:`\dot M - 2C` is skew-symmetric. The quaternion enters only through
:math:`R(q) = R(\hat q)`, :math:`\hat q = q/|q|`: the programs divide by :math:`|q|^2`, so a
quaternion that is not of unit norm is *normalized*, never rejected (the numeric models of
:mod:`lagdyn.robot.floating` refuse a zero or non-finite one with a
:class:`~lagdyn.LagdynError`).

The algorithms are those of the fixed-base tree (:mod:`~lagdyn.recursive.rnea`,
:mod:`~lagdyn.recursive.crba`, :mod:`~lagdyn.recursive.aba`,
:mod:`~lagdyn.recursive.coriolis`) with the base as a six-degree-of-freedom joint whose
motion subspace is the identity: its velocity starts the forward passes, the wrenches and
inertias of the links with parent −1 end in it, and ABA solves its 6 × 6 articulated
inertia (unrolled LDLᵀ). Forward dynamics is ABA or CRBA + RNEA + an LDLᵀ that eliminates
the leaves first (no fill-in across branches).

Every program reads the input vectors of :func:`~lagdyn.recursive.program.input_symbols` for
``nq`` entries: ``qd``, ``qdd`` and ``tau`` hold ``nv = nq − 1`` values and a last, unused,
entry (generated code has one length for every per-state vector).

Examples
--------
>>> import numpy as np, sympy as sp
>>> from lagdyn.recursive import Chain, Link
>>> from lagdyn.recursive.floating import FloatingChain, floating_program
>>> leg = Chain((Link("leg", "revolute", (0, 1, 0), mass=1, first_moment=(0, 0, -1),
...                   inertia=sp.diag(1, 1, 0)),), (sp.Symbol("q1"),), (0, 0, -10))
>>> body = FloatingChain(leg, mass=2, inertia=sp.diag(1, 1, 1))
>>> body.nq, body.nv
(8, 7)
>>> prog = floating_program(body)
>>> sorted(prog.kernels)[:5]
['C', 'M', 'bias', 'centroidal_bias', 'centroidal_map']
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import sympy as sp

from ..codegen import KERNELS, Kernel
from ..codegen import Program as CodegenProgram
from ..codegen.build import bound_number
from ..codegen.ir import CODEGEN_VERSION, code_symbols, prune
from ..errors import LagdynError, UnboundParameterError
from .aba import _aba_into
from .algebra import (
    Vec,
    _add,
    _Builder,
    _cross,
    _FreeBase,
    _inertia_add,
    _kinematics,
    _mv,
    _scale,
)
from .chain import Chain, _mat3, _vec3, in_joint_frames, standard_parameters
from .coriolis import _coriolis_into
from .crba import _crba_into, _Top
from .forward import _ldlt_solve
from .program import Program, _finish_outputs, _prune, input_symbols
from .rnea import _rnea_tree

__all__ = [
    "FLOATING_KERNELS",
    "FLOATING_VERSION",
    "FloatingChain",
    "decide_skew",
    "floating_key",
    "floating_program",
    "is_skew_symmetric",
    "program",
]

#: Bumped whenever the floating-base programs change shape (part of the cache key).
FLOATING_VERSION = "2"
#: The kernels of :func:`floating_program`, their inputs as in :data:`lagdyn.codegen.KERNELS`.
FLOATING_KERNELS = (
    "M",
    "C",
    "g",
    "bias",
    "inverse_dynamics",
    "forward_dynamics",
    "energy",
    "centroidal_map",
    "centroidal_bias",
)
#: The inputs of the kernels that :data:`lagdyn.codegen.KERNELS` does not name.
_INPUTS = {"centroidal_map": ("q", "params"), "centroidal_bias": ("q", "qd", "params")}
#: Pinocchio's order (linear, angular) of the base entries, as indices into lagdyn's
#: (angular, linear) spatial vectors.
_PIN = (3, 4, 5, 0, 1, 2)
_ZERO3 = sp.ImmutableMatrix.zeros(3, 1)
_ZERO33 = sp.ImmutableMatrix.zeros(3, 3)


@dataclass(frozen=True)
class FloatingChain:
    """A free-floating base body carrying a tree of joints (see the module docstring).

    Parameters
    ----------
    chain : Chain
        The joints; a link with parent ``-1`` hangs from the base body. ``chain.gravity``
        is the gravitational acceleration in the *world* frame.
    mass, first_moment, inertia
        The base body's barycentric inertial parameters in the base frame (m, h = m·c, I
        about the base frame's origin).
    name : str
        The base link's name (for messages).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.recursive import Chain, Link
    >>> from lagdyn.recursive.floating import FloatingChain
    >>> c = Chain((Link("l", "revolute", (0, 0, 1), mass=1),), (sp.Symbol("q1"),), (0, 0, -1))
    >>> FloatingChain(c, mass=3).nv
    7
    """

    chain: Chain
    mass: Any = 0
    first_moment: Any = _ZERO3
    inertia: Any = _ZERO33
    name: str = "base"

    def __post_init__(self) -> None:
        if not isinstance(self.chain, Chain):
            raise LagdynError(f"a floating base carries a Chain, got {type(self.chain).__name__}")
        object.__setattr__(self, "mass", sp.sympify(self.mass))
        object.__setattr__(
            self, "first_moment", _vec3(self.first_moment, f"base {self.name!r}: first moment")
        )
        I = _mat3(self.inertia, f"base {self.name!r}: inertia")
        if any(sp.expand(I[i, j] - I[j, i]) != 0 for i in range(3) for j in range(i + 1, 3)):
            raise LagdynError(f"base {self.name!r}: the inertia tensor is not symmetric")
        object.__setattr__(self, "inertia", I)
        if self.mass.is_number and self.mass.is_negative:
            raise LagdynError(f"base {self.name!r}: negative mass {self.mass}")

    @property
    def n(self) -> int:
        """The number of joints (without the base).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> ld.robot.from_urdf(EXAMPLE_URDF, base="floating").n
        3
        """
        return self.chain.n

    @property
    def nq(self) -> int:
        """Entries of q: 7 + joints."""
        return 7 + self.chain.n

    @property
    def nv(self) -> int:
        """Entries of v, v̇ and τ: 6 + joints."""
        return 6 + self.chain.n

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """Every free symbol of the base and the chain, sorted by name."""
        syms: set[sp.Basic] = set(self.chain.parameters)
        for obj in (self.mass, self.first_moment, self.inertia):
            syms |= obj.free_symbols
        return tuple(sorted(syms, key=str))

    def base_parameters(self) -> tuple[sp.Expr, ...]:
        """The base body's ten (XX, XY, XZ, YY, YZ, ZZ, MX, MY, MZ, M)."""
        I, h = self.inertia, self.first_moment
        return (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2], h[0], h[1], h[2], self.mass)

    def with_symbolic_base(self) -> FloatingChain:
        """A copy whose base parameters are the symbols ``XX0 … M0`` (link index 0)."""
        s = standard_parameters(0)
        I = sp.ImmutableMatrix(
            [
                [s["XX"], s["XY"], s["XZ"]],
                [s["XY"], s["YY"], s["YZ"]],
                [s["XZ"], s["YZ"], s["ZZ"]],
            ]
        )
        return replace(
            self,
            mass=s["M"],
            first_moment=sp.ImmutableMatrix([s["MX"], s["MY"], s["MZ"]]),
            inertia=I,
        )


# ---------------------------------------------------------------------- the programs
def _rotation(b: _Builder, quat: Sequence[sp.Expr]) -> list[list[sp.Expr]]:
    r"""The rotation (base → world) of the quaternion (x, y, z, w) divided by its norm."""
    x, y, z, w = quat
    s = b.let(2 / (x**2 + y**2 + z**2 + w**2))
    R = [
        [1 - s * (y**2 + z**2), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x**2 + z**2), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x**2 + y**2)],
    ]
    return [[b.let(sp.expand(e)) for e in row] for row in R]


def _base_inertia(fc: FloatingChain) -> tuple[sp.Expr, Vec, list[list[sp.Expr]]]:
    I = fc.inertia
    return fc.mass, list(fc.first_moment), [[I[r, c] for c in range(3)] for r in range(3)]


def _body_wrench(
    inertia: tuple[sp.Expr, Vec, list[list[sp.Expr]]], w: Vec, v: Vec, dw: Vec, dv: Vec
) -> tuple[Vec, Vec]:
    """``I a + v ×* I v`` of one body as ``(n, f)``."""
    m, h, I = inertia
    Lw = _add(_mv(I, w), _cross(h, v))
    Lv = _add(_scale(m, v), _scale(-1, _cross(h, w)))
    n = _add(_mv(I, dw), _cross(h, dv), _cross(w, Lw), _cross(v, Lv))
    f = _add(_scale(m, dv), _scale(-1, _cross(h, dw)), _cross(w, Lv))
    return n, f


class _Floating:
    """The floating-base algorithms on one builder (kinematics and base gravity shared)."""

    def __init__(
        self, fc: FloatingChain, b: _Builder, ins: Mapping[str, Sequence[sp.Symbol]]
    ) -> None:
        self.fc, self.b = fc, b
        n = fc.n
        q, qd = ins["q"], ins["qd"]
        self.qd, self.qdd, self.tau = qd, ins["qdd"], ins["tau"]
        self.kin = _kinematics(fc.chain, b, q[7 : 7 + n])
        self.vj = list(qd[6 : 6 + n])
        self.w, self.v = list(qd[3:6]), list(qd[0:3])
        self._quat = q[3:7]
        self._gb: Vec | None = None
        self._R: list[list[sp.Expr]] | None = None
        self._quat_position = (list(q[0:3]), q[3:7])
        self._M: list[list[sp.Expr]] | None = None
        self._comp: tuple[sp.Expr, Vec, list[list[sp.Expr]]] | None = None

    @property
    def rotation(self) -> list[list[sp.Expr]]:
        """R (base → world) of the normalized quaternion (built once)."""
        if self._R is None:
            self._R = _rotation(self.b, self._quat)
        return self._R

    @property
    def gravity(self) -> Vec:
        """Gravity in the base frame, Rᵀ g (built once)."""
        if self._gb is None:
            R, g = self.rotation, list(self.fc.chain.gravity)
            self._gb = self.b.vec([sp.Add(*(R[r][k] * g[r] for r in range(3))) for k in range(3)])
        return self._gb

    def _to_centroid(self, f: Vec, n: Vec) -> list[sp.Expr]:
        """A wrench (f, n) about the base origin in base axes → about the centre of mass in
        world axes: (R f, R (n − c × f)), c the centre of mass in the base frame."""
        b, R = self.b, self.rotation
        self.mass_matrix()
        assert self._comp is not None
        m, h, _ = self._comp
        inv = b.let(1 / m)
        c = [b.let(x * inv) for x in h]
        nc = _add(n, _scale(-1, _cross(c, f)))
        return [b.let(e) for e in _mv(R, f) + _mv(R, nc)]

    def centroidal_map(self) -> list[list[sp.Expr]]:
        """A_G (6 × nv, linear then angular momentum about the centre of mass, world axes):
        Orin and Goswami's centroidal momentum matrix, h_G = A_G v."""
        M, N = self.mass_matrix(), self.fc.nv
        cols = [
            self._to_centroid([M[r][j] for r in range(3)], [M[3 + r][j] for r in range(3)])
            for j in range(N)
        ]
        return [[cols[j][r] for j in range(N)] for r in range(6)]

    def centroidal_bias(self) -> list[sp.Expr]:
        """Ȧ_G v: the rate of h_G at v̇ = 0 (the base rows of C v carried to the centre)."""
        h = self.rnea(True, False, False)
        return self._to_centroid(h[0:3], h[3:6])

    def rnea(self, qd: bool, qdd: bool, gravity: bool) -> Vec:
        """τ (nv entries, Pinocchio's order) for v (``qd``), v̇ (``qdd``), gravity."""
        fc, b, n = self.fc, self.b, self.fc.n
        zero3 = [sp.Integer(0)] * 3
        w, v = (self.w, self.v) if qd else (zero3, zero3)
        dw = list(self.qdd[3:6]) if qdd else zero3
        dv = list(self.qdd[0:3]) if qdd else zero3
        if gravity:
            dv = b.vec(_add(dv, _scale(-1, self.gravity)))
        vj = self.vj if qd else [sp.Integer(0)] * n
        aj = list(self.qdd[6 : 6 + n]) if qdd else [sp.Integer(0)] * n
        tau, _, (nb, fb) = _rnea_tree(fc.chain, b, self.kin, vj, aj, zero3, (w, v, dw, dv))
        n_own, f_own = _body_wrench(_base_inertia(fc), w, v, dw, dv)
        nt = b.vec(_add(n_own, nb))
        ft = b.vec(_add(f_own, fb))
        return ft + nt + list(tau)

    def crba(self) -> list[list[sp.Expr]]:
        """M (nv × nv, Pinocchio's order)."""
        fc, b, n = self.fc, self.b, self.fc.n
        top = _Top()
        Mj = _crba_into(fc.chain, b, self.kin, top)
        comp = _base_inertia(fc)
        for r, sub in top.roots:
            comp = _inertia_add(b, self.kin.R[r], self.kin.p[r], sub, comp)
        self._comp = comp
        m, h, I = comp
        N = 6 + n
        M: list[list[sp.Expr]] = [[sp.Integer(0)] * N for _ in range(N)]
        # [[m 1, −[h]×], [[h]×, I]]
        hx = [[0, -h[2], h[1]], [h[2], 0, -h[0]], [-h[1], h[0], 0]]
        for r in range(3):
            M[r][r] = m
            for c in range(3):
                M[r][3 + c] = -hx[r][c]
                M[3 + r][c] = hx[r][c]
                M[3 + r][3 + c] = I[r][c]
        for i in range(n):
            Fn, Ff = top.columns[i]
            col = Ff + Fn
            for r in range(6):
                M[r][6 + i] = M[6 + i][r] = col[r]
            for j in range(n):
                M[6 + i][6 + j] = Mj[i][j]
        return M

    def mass_matrix(self) -> list[list[sp.Expr]]:
        """M, built once per builder."""
        if self._M is None:
            self._M = self.crba()
        return self._M

    def energy(self) -> sp.Expr:
        """E = ½ vᵀ M v + U, U = −m g·p − (Rᵀg)·h with the whole robot's mass m and first
        moment h in the base frame and p the base position."""
        b, N = self.b, self.fc.nv
        M = self.mass_matrix()
        assert self._comp is not None
        m, h, _ = self._comp
        v = list(self.qd[:N])
        T = sp.Add(*(M[i][i] * v[i] ** 2 / 2 for i in range(N))) + sp.Add(
            *(M[i][j] * v[i] * v[j] for i in range(N) for j in range(i + 1, N))
        )
        p, _ = self._quat_position
        g = list(self.fc.chain.gravity)
        U = -m * sp.Add(*(g[k] * p[k] for k in range(3))) - sp.Add(
            *(self.gravity[k] * h[k] for k in range(3))
        )
        return b.let(b.let(T) + b.let(U))

    def aba(self, tau: Sequence[sp.Expr]) -> Vec:
        """v̇ (nv entries) from the net forces ``tau`` (nv entries, Pinocchio's order)."""
        fc, b, n = self.fc, self.b, self.fc.n
        root = _FreeBase(
            self.w,
            self.v,
            _base_inertia(fc),
            wrench=list(tau[3:6]) + list(tau[0:3]),
            gravity=self.gravity,
            solve=_ldlt_solve,
        )
        qddj = _aba_into(fc.chain, b, self.kin, self.vj, list(tau[6 : 6 + n]), root)
        acc = root.out["accel"]
        return acc[3:] + acc[:3] + list(qddj)

    def coriolis(self) -> list[list[sp.Expr]]:
        """The Christoffel-consistent C (nv × nv, Pinocchio's order)."""
        fc, b, n = self.fc, self.b, self.fc.n
        root = _FreeBase(self.w, self.v, _base_inertia(fc))
        Cj = _coriolis_into(fc.chain, b, self.kin, self.vj, root)
        comp = _base_inertia(fc)
        for r, sub in root.out["roots"]:
            comp = _inertia_add(b, self.kin.R[r], self.kin.p[r], sub, comp)
        m, h, I = comp
        w, v = self.w, self.v
        # C_bb = B_b + I_b (v×), lagdyn order; (v×) = [[w×, 0], [v×, w×]]
        I6 = [[sp.Integer(0)] * 6 for _ in range(6)]
        hx = [[0, -h[2], h[1]], [h[2], 0, -h[0]], [-h[1], h[0], 0]]
        for r in range(3):
            for c in range(3):
                I6[r][c] = I[r][c]
                I6[r][3 + c] = hx[r][c]
                I6[3 + r][c] = -hx[r][c]
            I6[3 + r][3 + r] = m
        wx = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
        vx = [[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]
        crm = [[sp.Integer(0)] * 6 for _ in range(6)]
        for r in range(3):
            for c in range(3):
                crm[r][c] = crm[3 + r][3 + c] = wx[r][c]
                crm[3 + r][c] = vx[r][c]
        B = root.out["B"]
        Cb = [
            [B[r][c] + sp.Add(*(I6[r][k] * crm[k][c] for k in range(6))) for c in range(6)]
            for r in range(6)
        ]
        N = 6 + n
        C: list[list[sp.Expr]] = [[sp.Integer(0)] * N for _ in range(N)]
        for r in range(6):
            for c in range(6):
                C[r][c] = b.let(Cb[_PIN[r]][_PIN[c]])
        for i in range(n):
            F1, F2, F3 = root.out["columns"][i]
            n3, f3 = F3[:3], F3[3:]
            # (v×)ᵀ (n, f) = (−ω × n − v × f, −ω × f)
            ct = _add(_scale(-1, _cross(w, n3)), _scale(-1, _cross(v, f3))) + _scale(
                -1, _cross(w, f3)
            )
            row = _add(F2, ct)
            for k in range(6):
                C[k][6 + i] = F1[_PIN[k]]
                C[6 + i][k] = b.let(row[_PIN[k]])
            for j in range(n):
                C[6 + i][6 + j] = Cj[i][j]
        return C


def _solve_leaves_first(b: _Builder, M: list[list[sp.Expr]], rhs: Vec) -> Vec:
    """M x = rhs by LDLᵀ of M in reverse order: the leaves are eliminated first, so the
    factor has no fill-in across branches (Featherstone's LTDL)."""
    N = len(M)
    rev = list(range(N - 1, -1, -1))
    x = _ldlt_solve(b, [[M[i][j] for j in rev] for i in rev], [rhs[i] for i in rev])
    return [x[N - 1 - i] for i in range(N)]


def _outputs(
    fc: FloatingChain,
    b: _Builder,
    ins: Mapping[str, Sequence[sp.Symbol]],
    want: Sequence[str],
    forward: str,
    friction: bool,
) -> dict[str, list[sp.Expr]]:
    F = _Floating(fc, b, ins)
    n, N = fc.n, fc.nv
    fric = [sp.Integer(0)] * N
    if friction:
        vj = ins["qd"][6 : 6 + n]
        for i, link in enumerate(fc.chain.links):
            fric[6 + i] = link.viscous * vj[i] + link.coulomb * sp.sign(vj[i])
    out: dict[str, list[sp.Expr]] = {}
    M: list[list[sp.Expr]] = []
    if "M" in want or ("forward_dynamics" in want and forward == "crba"):
        M = F.mass_matrix()
    if "M" in want:
        out["M"] = [x for row in M for x in row]
    if "C" in want:
        out["C"] = [x for row in F.coriolis() for x in row]
    if "g" in want:
        out["g"] = F.rnea(False, False, True)
    bias: list[sp.Expr] = []
    if "bias" in want or ("forward_dynamics" in want and forward == "crba"):
        h = F.rnea(True, False, True)
        bias = [b.let(h[k] + fric[k]) for k in range(N)]
        if "bias" in want:
            out["bias"] = bias
    if "energy" in want:
        out["energy"] = [F.energy()]
    if "centroidal_map" in want:
        out["centroidal_map"] = [x for row in F.centroidal_map() for x in row]
    if "centroidal_bias" in want:
        out["centroidal_bias"] = F.centroidal_bias()
    if "inverse_dynamics" in want:
        tau = F.rnea(True, True, True)
        out["inverse_dynamics"] = [b.let(tau[k] + fric[k]) for k in range(N)]
    if "forward_dynamics" in want:
        u = ins["tau"]
        if forward == "aba":
            out["forward_dynamics"] = F.aba([b.let(u[k] - fric[k]) for k in range(N)])
        else:
            rhs = [b.let(u[k] - bias[k]) for k in range(N)]
            out["forward_dynamics"] = _solve_leaves_first(b, M, rhs)
    return out


def _padded(nq: int) -> dict[str, tuple[sp.Symbol, ...]]:
    return input_symbols(nq)


#: The shape of each kernel's output for ``nv`` velocities.
def _shape(name: str, nv: int) -> tuple[int, ...]:
    if name == "energy":
        return ()
    if name == "centroidal_map":
        return (6, nv)
    if name == "centroidal_bias":
        return (6,)
    return (nv, nv) if name in ("M", "C") else (nv,)


_NAMES = {
    "M": "M",
    "C": "C",
    "g": "g",
    "bias": "h",
    "inverse_dynamics": "tau",
    "energy": "E",
    "centroidal_map": "A_G",
    "centroidal_bias": "dA_G_v",
}


def program(fc: FloatingChain, name: str, *, forward: str = "aba") -> Program:
    """One floating-base program with symbolic parameters (for proofs and inspection).

    ``name``: ``"M"`` (CRBA), ``"C"`` (Coriolis), ``"g"``, ``"bias"`` (h = C v + g),
    ``"inverse_dynamics"`` (RNEA), ``"forward_dynamics"`` (``forward``: ABA or CRBA +
    LDLᵀ), ``"energy"`` (½ vᵀ M v + U), ``"centroidal_map"`` (A_G, 6 × nv) or
    ``"centroidal_bias"`` (Ȧ_G v). Inputs are
    :func:`~lagdyn.recursive.program.input_symbols` of ``nq`` (``qd``, ``qdd``, ``tau``: their
    last entry unused).

    Raises
    ------
    LagdynError
        An unknown ``name`` or ``forward``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import program
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
    >>> program(robot.base, "M").shape
    (9, 9)
    """
    if name not in FLOATING_KERNELS:
        raise LagdynError(f"unknown floating-base program {name!r}; choose from {FLOATING_KERNELS}")
    _check_forward(forward)
    start = time.perf_counter()
    fc = replace(fc, chain=in_joint_frames(fc.chain))
    ins = _padded(fc.nq)
    b = _Builder()
    outs = _outputs(fc, b, ins, [name], forward, False)[name]
    o = tuple(sp.sympify(e) for e in outs)
    return Program(
        _NAMES.get(name, "qdd"),
        ins,
        _prune(b.body, o),
        o,
        _shape(name, fc.nv),
        time.perf_counter() - start,
    )


def _check_forward(forward: str) -> None:
    if forward not in ("aba", "crba"):
        raise LagdynError(f"unknown forward-dynamics method {forward!r}; choose 'aba' or 'crba'")


def _bind(
    fc: FloatingChain,
    params: Mapping[Any, float] | None,
    free: Mapping[sp.Symbol, sp.Symbol] | None = None,
) -> FloatingChain:
    """``fc`` with every parameter replaced by its number from ``params``, or by its code
    symbol from ``free`` (the parameters passed per call)."""
    from .route import _bind_chain, _numeric_constants

    given = dict(params or {})
    by_name = {str(k): v for k, v in given.items()}
    values: dict[sp.Basic, sp.Expr] = {}
    missing = []
    for s in fc.parameters:
        if free and s in free:
            values[s] = free[s]
        elif s in given:
            values[s] = bound_number(given[s])
        elif s.name in by_name:
            values[s] = bound_number(by_name[s.name])
        else:
            missing.append(s)
    if missing:
        raise UnboundParameterError(missing, "the floating-base program")
    chain = _numeric_constants(_bind_chain(in_joint_frames(fc.chain), values))

    def sub(x: Any) -> Any:
        return sp.sympify(x).xreplace(values)

    return replace(
        fc,
        chain=chain,
        mass=sub(fc.mass),
        first_moment=fc.first_moment.xreplace(values),
        inertia=fc.inertia.xreplace(values),
    )


def floating_program(
    fc: FloatingChain,
    params: Mapping[Any, float] | None = None,
    *,
    forward: str = "aba",
    friction: bool = False,
    cse: bool = True,
    outputs_wanted: Sequence[str] | None = None,
    free: Sequence[sp.Symbol] = (),
) -> CodegenProgram:
    """The generated-code program of a floating-base tree: one builder, one kernel each.

    Kernels ``M``, ``C``, ``g``, ``bias`` (nonlinear effects h = C v + g, plus friction),
    ``inverse_dynamics`` (RNEA), ``forward_dynamics`` (``forward``: ``"aba"`` or
    ``"crba"``), ``energy`` (½ vᵀ M v + U), ``centroidal_map`` (Orin and Goswami's A_G,
    6 × nv: linear then angular momentum about the centre of mass in world axes) and
    ``centroidal_bias`` (Ȧ_G v), with the inputs of
    :data:`lagdyn.codegen.KERNELS`; every per-state vector has ``nq`` entries (``qd``,
    ``qdd``, ``tau``: ``nv`` values, then one unused). Every parameter is bound from
    ``params`` (symbols or names), folded in before the programs are built, except those in
    ``free``: they become the code symbols ``p_0 …`` of the kernels' ``params`` vector, in
    the order given (as on the fixed-base recursive route,
    :func:`lagdyn.recursive.route.recursive_program`); then one joint CSE (``cse=True``).
    With nothing free the program is the same as before ``free`` existed.

    Raises
    ------
    UnboundParameterError
        A parameter without a value.
    LagdynError
        An unknown ``forward`` or kernel name.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import floating_program
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> prog = floating_program(robot.base, {"g": 9.81}, outputs_wanted=["forward_dynamics"])
    >>> k = prog.kernels["forward_dynamics"]
    >>> k.inputs, k.shape
    (('q', 'qd', 'tau', 'params', 't'), (9,))
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")   # symbolic inertias
    >>> M0 = robot.base.mass
    >>> prog = floating_program(robot.base, robot.defaults, free=[M0], outputs_wanted=["M"])
    >>> prog.parameter_names, prog.vector("params")
    (('M0',), (p_0,))
    """
    _check_forward(forward)
    want = list(outputs_wanted) if outputs_wanted is not None else list(FLOATING_KERNELS)
    bad = [k for k in want if k not in FLOATING_KERNELS]
    if bad:
        raise LagdynError(f"unknown floating-base kernels {bad}; choose from {FLOATING_KERNELS}")
    free = tuple(free)
    stray = [s for s in free if s not in set(fc.parameters)]
    if stray:
        raise LagdynError(
            f"free: {', '.join(map(str, stray))} are not parameters of the floating-base "
            f"tree (its parameters: {', '.join(map(str, fc.parameters)) or 'none'})"
        )
    pcode = code_symbols("p", len(free))
    known_names = {s.name for s in fc.parameters}
    fc = _bind(fc, params, dict(zip(free, pcode)))
    nq, nv = fc.nq, fc.nv
    code = {k: code_symbols(k, nq) for k in ("q", "qd", "qdd", "tau")}
    code["params"] = pcode
    b = _Builder("w")
    outputs = _outputs(fc, b, code, want, forward, friction)
    body, outs = _finish_outputs(outputs, b.body, cse)
    prog = CodegenProgram(
        n=nq,
        vectors=code,
        t=sp.Symbol("t", real=True),
        coordinate_names=tuple(
            ["x", "y", "z", "qx", "qy", "qz", "qw"] + [str(s) for s in fc.chain.joint_names]
        ),
    )
    if free:  # the header comments name them (nothing changes for a fully bound program)
        prog.parameter_names = tuple(s.name for s in free)
        names = {s.name for s in free}
        prog.bound = {
            str(k): float(v)
            for k, v in dict(params or {}).items()
            if str(k) in known_names and str(k) not in names
        }
    known = {s for v in code.values() for s in v} | {s for s, _ in body}
    for k, exprs in outs.items():
        for e in exprs:
            stray = e.free_symbols - known
            if stray or e.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
                raise LagdynError(
                    f"cannot generate the floating-base kernel {k}: it reads "
                    f"{', '.join(sorted(map(str, stray))) or e} (undefined with the values)"
                )
        inputs = _INPUTS[k] if k in _INPUTS else KERNELS[k]
        prog.kernels[k] = Kernel(k, inputs, prune(body, [], exprs), exprs, _shape(k, nv))
    return prog


def floating_key(
    fc: FloatingChain,
    params: Mapping[Any, float] | None,
    backend: str,
    forward: str,
    friction: bool,
    extra: str = "",
    free: Sequence[sp.Symbol] = (),
) -> str:
    """The content hash of :func:`floating_program`'s inputs (the cache key of its kernels).

    ``free`` (the parameters passed per call, in their order) enters the hash only when it
    is not empty, so the keys of fully bound models are those they always were.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import floating_key
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> len(floating_key(robot.base, {"g": 9.81}, "c", "aba", False))
    64
    """
    from .._version import __version__
    from .route import _chain_parts

    given = {str(k): float(v) for k, v in dict(params or {}).items()}
    used = {s.name: given.get(s.name) for s in fc.parameters}
    h = hashlib.sha256()
    h.update(
        f"lagdyn-{__version__}-codegen-{CODEGEN_VERSION}-floating-{FLOATING_VERSION}-"
        f"{forward}-{int(friction)}|{backend}|{fc.name}|{extra}|".encode()
    )
    parts = _chain_parts(SimpleNamespace(chain=fc.chain, friction=friction))
    parts["base"] = list(fc.base_parameters())
    parts["names"] = [sp.Symbol(str(x)) for x in fc.chain.joint_names]
    for label, exprs in parts.items():
        h.update(f"|{label}=".encode())
        for e in exprs:
            h.update(sp.srepr(sp.sympify(e)).encode())
            h.update(b";")
    h.update(repr(sorted(used.items())).encode())
    if free:
        h.update(f"|free={','.join(str(s) for s in free)}".encode())
    return h.hexdigest()


def is_skew_symmetric(
    fc: FloatingChain, *, method: str = "exact", points: int = 3, seed: int | None = None
) -> bool | None:
    r"""Is :math:`\dot M - 2C` skew-symmetric? Decided on the programs (``method="exact"``).

    ``method="exact"`` (the default, :func:`decide_skew`) expands the CRBA and Coriolis
    programs on the torus of the joint angles and decides the identity
    :math:`\dot M = C + C^T`: ``True`` and ``False`` are proofs; ``None`` where exact
    arithmetic does not apply (floating-point or algebraically special constants in the
    programs). ``method="sampled"`` evaluates it in rationals at ``points`` random points
    (below); ``False`` is certain, ``True`` holds at every point drawn.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import is_skew_symmetric
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> xml = EXAMPLE_URDF.replace('rpy="0.1 0 0"', 'rpy="0 0 0"')
    >>> is_skew_symmetric(ld.robot.from_urdf(xml, base="floating").base)
    True
    """
    if method == "exact":
        return decide_skew(fc)
    if method != "sampled":
        raise LagdynError(f"method must be 'exact' or 'sampled', got {method!r}")
    return _sampled_skew(fc, points=points, seed=seed)


def decide_skew(fc: FloatingChain) -> bool | None:
    r"""Decide :math:`\dot M = C + C^T` for a floating base exactly, on the programs.

    M (CRBA) and C (the Christoffel-consistent Coriolis matrix) read the joint values and
    the velocities v only, never the base pose (checked: a program that reads the base
    configuration gives ``None``). Every joint angle becomes a point (cᵢ, sᵢ) of the unit
    circle, every velocity, parameter and prismatic joint a variable; each statement of
    the programs is expanded and reduced with sᵢ² = 1 − cᵢ² (the unique normal form, in
    the packed integer arithmetic of :class:`lagdyn.recursive.torus.PackedTorus`), and
    :math:`\dot M` is taken on the expanded entries by the chain rule (ċᵢ = −sᵢ v₆₊ᵢ,
    ṡᵢ = cᵢ v₆₊ᵢ). A zero normal form of every residual is a proof (``True``); a nonzero
    one is a counterexample on the torus (``False``), unless the programs hold constant
    angles (a URDF ``rpy`` such as 0.1, where only that point of the circle is meant) or
    floats: then ``None``. (An exponent of 128 or more, beyond the packed fields, is
    expanded in symengine instead.)

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import decide_skew
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF.replace('rpy="0.1 0 0"', 'rpy="0 0 0"'),
    ...                            base="floating")
    >>> decide_skew(robot.base)
    True
    """
    from .proofs import _number, _UnsupportedError, torus_values
    from .torus import TorusOverflowError

    M, C = program(fc, "M"), program(fc, "C")
    ins = M.inputs
    N = fc.nv
    base_pose = set(ins["q"][:7])
    circles: list[tuple[sp.Basic, sp.Basic, sp.Basic | None]] = []
    prismatic: list[tuple[sp.Basic, sp.Basic]] = []
    for j, link in enumerate(fc.chain.links):
        q, rate = ins["q"][7 + j], ins["qd"][6 + j]
        if link.joint == "revolute":
            circles.append((sp.cos(q), sp.sin(q), rate))
        else:
            prismatic.append((q, rate))
    known = {x for syms in ins.values() for x in syms}
    angles: set[sp.Basic] = set()
    params: set[sp.Basic] = set()
    floats = False
    for prog in (M, C):
        known |= {x for x, _ in prog.body}
        for e in [e for _, e in prog.body] + list(prog.outputs):
            if e.free_symbols & base_pose:
                return None
            for a in sp.preorder_traversal(e):
                if a.is_Float:
                    floats = True
                elif a.is_Symbol:
                    params.add(a)
                elif isinstance(a, (sp.cos, sp.sin)) and not a.args[0].free_symbols:
                    angles.add(a.args[0])
    if floats:
        return None
    circles += [(sp.cos(a), sp.sin(a), None) for a in sorted(angles, key=str)]
    others = [*sorted(params - known, key=str), *(q for q, _ in prismatic), *ins["qd"]]
    wanted = [("dM", M, True), ("C", C, False)]
    try:
        for prog in (M, C):
            for e in [e for _, e in prog.body] + list(prog.outputs):
                for a in sp.preorder_traversal(e):
                    if a.is_Number:
                        _number(a)  # refuses what exact arithmetic cannot take
        try:
            dom, _, out = torus_values(circles, others, prismatic, wanted)
        except TorusOverflowError:  # an exponent of 128 or more: symengine holds it
            dom, _, out = torus_values(circles, others, prismatic, wanted, packed=False)
        dM, Cv = out["dM"], out["C"]
        minus = dom.const(Fraction(-1))
        zero = all(
            dom.is_zero(
                dom.add(
                    [
                        dM[i * N + j],
                        dom.mul([minus, Cv[i * N + j]]),
                        dom.mul([minus, Cv[j * N + i]]),
                    ]
                )
            )
            for i in range(N)
            for j in range(i, N)
        )
    except _UnsupportedError:
        return None
    if zero:
        return True
    return None if angles else False


def _sampled_skew(fc: FloatingChain, *, points: int = 3, seed: int | None = None) -> bool:
    r"""Decide :math:`\dot M - 2C` skew-symmetric on the programs, in exact arithmetic.

    :math:`\dot M = \sum_j \partial M/\partial q_j\,\dot q_j` (M reads the joints only) is
    evaluated by forward differentiation of the CRBA program and C by the Coriolis
    program, both in rationals (``fractions.Fraction``) at ``points`` random points: every
    revolute joint at a random rational point (cos, sin) of the unit circle, prismatic
    joints, velocities and parameters at random integers. The identity
    :math:`\dot M = C + C^T` is a rational identity in these numbers, so a nonzero entry is
    a certain counterexample (``False``); ``True`` is exact at every point drawn and, by
    the Schwartz–Zippel lemma, wrong with a probability that falls with each point
    (:mod:`lagdyn.recursive.proofs` bounds it for fixed-base chains).

    Raises
    ------
    LagdynError
        A program holding a constant that is not rational (``cos(1/10)`` from a URDF rpy
        that is not a multiple of π/2): bind or round it.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.floating import is_skew_symmetric
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> xml = EXAMPLE_URDF.replace('rpy="0.1 0 0"', 'rpy="0 0 0"')
    >>> _sampled_skew(ld.robot.from_urdf(xml, base="floating").base, points=1)
    True
    """
    import random
    import secrets
    from fractions import Fraction

    from .proofs import _circle_point, _Dual, _Fractions, _run, _UnsupportedError

    rng: Any = secrets.SystemRandom() if seed is None else random.Random(seed)
    M, C = program(fc, "M"), program(fc, "C")
    ins = M.inputs
    N = fc.nv
    dom = _Dual(_Fractions())

    def const(x: Any) -> Any:
        return (Fraction(x), Fraction(0))

    for _ in range(points):
        env: dict[sp.Basic, Any] = {}
        v = [Fraction(rng.randint(-99, 99)) for _ in range(len(ins["qd"]))]
        for k, s in enumerate(ins["qd"]):
            env[s] = const(v[k])
        for p in fc.parameters:
            env[p] = const(rng.randint(1, 99))
        for j, link in enumerate(fc.chain.links):
            q, rate = ins["q"][7 + j], v[6 + j]
            if link.joint == "revolute":
                X, Y, h = _circle_point(rng)
                c, s = Fraction(X, h), Fraction(Y, h)
                env[sp.cos(q)] = (c, -s * rate)
                env[sp.sin(q)] = (s, c * rate)
            else:
                env[q] = (Fraction(rng.randint(-99, 99)), rate)
        try:
            dM = [d for _, d in _run(M, env, dom)]
            Cv = [x for x, _ in _run(C, env, dom)]
        except _UnsupportedError as exc:
            raise LagdynError(
                f"the floating-base programs hold {exc}, which exact arithmetic cannot "
                "evaluate: bind the parameters or round the constant angles"
            ) from None
        for i in range(N):
            for j in range(i, N):
                if dM[i * N + j] - Cv[i * N + j] - Cv[j * N + i] != 0:
                    return False
    return True

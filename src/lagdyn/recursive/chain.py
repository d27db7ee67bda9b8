r"""Kinematic trees of rigid links: the data model shared by every robot builder.

A :class:`Link` is one rigid body attached to its parent by one joint. The transform
from the parent's frame to the link's frame is

.. math:: T_{\lambda(i)\to i}(q_i) = A_i \, J_i(q_i) \, B_i,

with constant placements ``pre`` (A) and ``post`` (B) and the joint motion J: a rotation
by :math:`q_i` about the unit ``axis`` (revolute) or a translation :math:`q_i` along it
(prismatic), both through the origin of the joint frame. URDF joints have ``B = I`` (the link
frame is the joint frame), standard Denavit–Hartenberg rows have ``A = I`` (the link frame is
at the far end), modified DH rows and screws fill ``A``.

Inertial parameters are *barycentric* and expressed in the link frame: mass ``m``, first
moment ``h = m c`` (c the centre of mass), and the 3 × 3 inertia ``I`` about the link frame's
origin (not about the COM). Kinetic energy and inverse dynamics are linear in these ten
numbers per link, which is what a regressor needs. Optional per joint: ``armature`` (rotor
inertia times gear ratio squared, added to :math:`M_{ii}`), ``viscous`` :math:`F_v` and
``coulomb`` :math:`F_c` friction, which enter as the generalized force
:math:`Q_i = -F_v\dot q_i - F_c\,\mathrm{sign}(\dot q_i)`.

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.robot.from_dh([(0, 1, 0), (0, 1, 0)], parameters="numeric",
...                        inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 2)
>>> arm.chain.n, [link.joint for link in arm.chain.links]
(2, ['revolute', 'revolute'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy as sp

from ..errors import LagdynError, ShapeError

__all__ = [
    "Chain",
    "Link",
    "chain_of",
    "in_joint_frames",
    "inertia_about_origin",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_ZERO3 = sp.ImmutableMatrix.zeros(3, 1)
_ZERO33 = sp.ImmutableMatrix.zeros(3, 3)
JOINT_TYPES = ("revolute", "prismatic")


# ---------------------------------------------------------------------- small geometry
def skew(v: Any) -> sp.ImmutableMatrix:
    """The cross-product matrix ``[v]×`` of a 3-vector, ``[v]× w = v × w``.

    Examples
    --------
    >>> from lagdyn.robot import skew
    >>> skew([1, 2, 3])
    Matrix([
    [ 0, -3,  2],
    [ 3,  0, -1],
    [-2,  1,  0]])
    """
    x, y, z = (sp.sympify(e) for e in v)
    return Mat([[0, -z, y], [z, 0, -x], [-y, x, 0]])


def rotation_about(axis: Any, angle: Any) -> sp.ImmutableMatrix:
    r"""Rotation by ``angle`` about the unit ``axis`` (Rodrigues), exact for axis-aligned axes.

    :math:`R = I + \sin\theta\,[a]_\times + (1-\cos\theta)\,[a]_\times^2`.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot import rotation_about
    >>> th = sp.Symbol("th")
    >>> rotation_about((0, 0, 1), th)
    Matrix([
    [cos(th), -sin(th), 0],
    [sin(th),  cos(th), 0],
    [      0,        0, 1]])
    """
    K = skew(axis)
    c, s = sp.cos(angle), sp.sin(angle)
    return Mat(_EYE + s * K + (1 - c) * (K * K))


def rpy(roll: Any, pitch: Any, yaw: Any) -> sp.ImmutableMatrix:
    """The URDF rotation of fixed-axis roll–pitch–yaw angles, ``Rz(yaw) Ry(pitch) Rx(roll)``.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot import rpy
    >>> rpy(0, sp.pi / 2, 0)
    Matrix([
    [ 0, 0, 1],
    [ 0, 1, 0],
    [-1, 0, 0]])
    """
    return Mat(
        rotation_about((0, 0, 1), yaw)
        * rotation_about((0, 1, 0), pitch)
        * rotation_about((1, 0, 0), roll)
    )


def inertia_about_origin(mass: Any, com: Any, inertia_com: Any) -> sp.ImmutableMatrix:
    r"""Parallel-axis theorem: the inertia about the frame origin from the one about the COM.

    :math:`I_O = I_C - m [c]_\times^2`.

    Examples
    --------
    >>> from lagdyn.robot import inertia_about_origin
    >>> inertia_about_origin(2, (1, 0, 0), [[0, 0, 0], [0, 0, 0], [0, 0, 0]])
    Matrix([
    [0, 0, 0],
    [0, 2, 0],
    [0, 0, 2]])
    """
    S = skew(com)
    return Mat(Mat(inertia_com) - sp.sympify(mass) * S * S)


def _vec3(value: Any, what: str) -> sp.ImmutableMatrix:
    if isinstance(value, str):
        raise LagdynError(f"{what} must be numbers or sympy expressions, got the string {value!r}")
    try:
        v = Mat([sp.sympify(e, strict=True) for e in value])
    except (TypeError, sp.SympifyError) as exc:
        raise LagdynError(f"{what} must be a 3-vector of numbers or expressions") from exc
    if v.shape != (3, 1):
        raise ShapeError(f"{what} must have 3 entries, got {v.shape[0]}")
    return v


def _mat3(value: Any, what: str) -> sp.ImmutableMatrix:
    try:
        m = Mat(value)
    except (TypeError, ValueError, sp.SympifyError) as exc:
        raise LagdynError(f"{what} must be a 3 × 3 matrix") from exc
    if m.shape != (3, 3):
        raise ShapeError(f"{what} must be 3 × 3, got {m.shape}")
    return m


# ---------------------------------------------------------------------- the data model
@dataclass(frozen=True)
class Link:
    """One rigid link and the joint that attaches it to its parent.

    Parameters
    ----------
    name : str
        The link's (or joint's) name, for messages.
    joint : {"revolute", "prismatic"}
        The joint type.
    axis : 3-vector
        Unit joint axis in the joint frame.
    parent : int
        Index of the parent link in the chain, ``-1`` for the base.
    pre, post : (R, p)
        Constant placements A and B around the joint motion (3 × 3 rotation, 3-vector).
    mass, first_moment, inertia
        Barycentric inertial parameters in the link frame: m, h = m·c, I about the origin.
    armature, viscous, coulomb
        Rotor inertia (× gear ratio²) and friction coefficients of the joint.

    Examples
    --------
    >>> from lagdyn.robot import Link
    >>> Link("l1", "revolute", (0, 0, 1), mass=1).first_moment.T
    Matrix([[0, 0, 0]])
    """

    name: str
    joint: str
    axis: Any
    parent: int = -1
    pre: tuple[Any, Any] = (_EYE, _ZERO3)
    post: tuple[Any, Any] = (_EYE, _ZERO3)
    mass: Any = 0
    first_moment: Any = _ZERO3
    inertia: Any = _ZERO33
    armature: Any = 0
    viscous: Any = 0
    coulomb: Any = 0

    def __post_init__(self) -> None:
        if self.joint not in JOINT_TYPES:
            raise LagdynError(
                f"link {self.name!r}: joint type must be one of {JOINT_TYPES}, got {self.joint!r}"
            )
        axis = _vec3(self.axis, f"link {self.name!r}: axis")
        norm2 = sp.expand(sum(e**2 for e in axis))
        if norm2 == 0:
            raise LagdynError(f"link {self.name!r}: the joint axis is zero")
        if norm2 != 1:
            if norm2.is_number:
                axis = Mat(axis / sp.sqrt(norm2))
            else:
                raise LagdynError(f"link {self.name!r}: the joint axis must be a unit vector")
        object.__setattr__(self, "axis", axis)
        for label in ("pre", "post"):
            R, p = getattr(self, label)
            object.__setattr__(
                self,
                label,
                (_mat3(R, f"link {self.name!r}: {label} rotation"), _vec3(p, f"{label} offset")),
            )
        object.__setattr__(self, "mass", sp.sympify(self.mass))
        object.__setattr__(
            self, "first_moment", _vec3(self.first_moment, f"link {self.name!r}: first moment")
        )
        I = _mat3(self.inertia, f"link {self.name!r}: inertia")
        if any(sp.expand(I[i, j] - I[j, i]) != 0 for i in range(3) for j in range(i + 1, 3)):
            raise LagdynError(f"link {self.name!r}: the inertia tensor is not symmetric")
        object.__setattr__(self, "inertia", I)
        for label in ("armature", "viscous", "coulomb"):
            object.__setattr__(self, label, sp.sympify(getattr(self, label)))
        if self.mass.is_number and self.mass.is_negative:  # NaN or complex: not compared
            raise LagdynError(f"link {self.name!r}: negative mass {self.mass}")

    def transform(self, q: Any) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        """``(R, p)`` of the parent→link transform ``A J(q) B`` at joint value ``q``.

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.robot import Link
        >>> Link("slide", "prismatic", (1, 0, 0)).transform(sp.Symbol("x"))[1].T
        Matrix([[x, 0, 0]])
        """
        (RA, pA), (RB, pB) = self.pre, self.post
        if self.joint == "revolute":
            RJ, pJ = rotation_about(self.axis, q), _ZERO3
        else:
            RJ, pJ = _EYE, Mat(self.axis * q)
        R = Mat(RA * RJ * RB)
        p = Mat(pA + RA * (RJ * pB + pJ))
        return R, p

    @property
    def motion_subspace(self) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        """The joint's unit twist ``(s_ω, s_v)`` in the link frame (constant).

        Examples
        --------
        >>> from lagdyn.robot import Link
        >>> import sympy as sp
        >>> Link("j", "revolute", (0, 0, 1), post=(sp.eye(3), (1, 0, 0))).motion_subspace[1].T
        Matrix([[0, 1, 0]])
        """
        RB, pB = self.post
        a = self.axis
        if self.joint == "revolute":
            return Mat(RB.T * a), Mat(RB.T * a.cross(pB))
        return _ZERO3, Mat(RB.T * a)

    @property
    def parameters(self) -> tuple[sp.Expr, ...]:
        """The ten barycentric parameters (XX, XY, XZ, YY, YZ, ZZ, MX, MY, MZ, M).

        Examples
        --------
        >>> from lagdyn.robot import Link
        >>> Link("j", "revolute", (0, 0, 1), mass=2).parameters[-1]
        2
        """
        I, h = self.inertia, self.first_moment
        return (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2], h[0], h[1], h[2], self.mass)


@dataclass(frozen=True)
class Chain:
    """A kinematic tree of :class:`Link` objects with one coordinate per link.

    Parameters
    ----------
    links : sequence of Link
        In coordinate order; a parent comes before its children.
    q : sequence of coordinates
        Functions of ``ld.t``, one per link.
    gravity : 3-vector
        Gravitational acceleration in the base frame, e.g. ``(0, 0, -g)``.
    defaults : mapping
        Default numeric values of the symbolic parameters.

    Examples
    --------
    >>> import lagdyn as ld
    >>> chain = ld.zoo.get("planar_3r").chain
    >>> chain.n, chain.parents
    (3, (-1, 0, 1))
    """

    links: tuple[Link, ...]
    q: tuple[Any, ...]
    gravity: Any
    defaults: Mapping[sp.Symbol, float] = field(default_factory=dict)
    joint_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        links = tuple(self.links)
        if not links:
            raise LagdynError("a chain needs at least one moving joint")
        if len(self.q) != len(links):
            raise ShapeError(f"{len(links)} links but {len(self.q)} coordinates")
        for i, link in enumerate(links):
            if not -1 <= link.parent < i:
                raise LagdynError(
                    f"link {link.name!r}: parent index {link.parent} must come before it (< {i})"
                )
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "q", tuple(self.q))
        object.__setattr__(self, "gravity", _vec3(self.gravity, "gravity"))
        if not self.joint_names:
            object.__setattr__(self, "joint_names", tuple(link.name for link in links))

    @property
    def n(self) -> int:
        """The number of joints.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("spatial_3r").chain.n
        3
        """
        return len(self.links)

    @property
    def parents(self) -> tuple[int, ...]:
        """Parent index of every link (``-1``: the base).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("spatial_3r").chain.parents
        (-1, 0, 1)
        """
        return tuple(link.parent for link in self.links)

    def ancestors(self, i: int) -> list[int]:
        """Indices of the links from ``i`` (included) down to the base.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("spatial_3r").chain.ancestors(2)
        [2, 1, 0]
        """
        out = []
        while i >= 0:
            out.append(i)
            i = self.links[i].parent
        return out

    def forward_kinematics(
        self, q: Sequence[Any] | None = None
    ) -> list[tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]]:
        """World placement ``(R_0i, p_0i)`` of every link frame at ``q`` (default: the coordinates).

        Examples
        --------
        >>> import lagdyn as ld
        >>> arm = ld.zoo.get("planar_3r")
        >>> arm.chain.forward_kinematics([0, 0, 0])[-1][1].T
        Matrix([[3, 0, 0]])
        """
        qv = list(self.q if q is None else q)
        out: list[tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]] = []
        for i, link in enumerate(self.links):
            R, p = link.transform(qv[i])
            if link.parent >= 0:
                Rp, pp = out[link.parent]
                R, p = Mat(Rp * R), Mat(pp + Rp * p)
            out.append((R, p))
        return out

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """Every free symbol of the chain (inertial, geometric, gravity), sorted by name.

        Examples
        --------
        >>> import lagdyn as ld
        >>> [str(s) for s in ld.zoo.get("puma560").chain.parameters]
        ['g']
        """
        syms: set[sp.Symbol] = set(self.gravity.free_symbols)
        for link in self.links:
            for obj in (
                link.axis,
                *link.pre,
                *link.post,
                link.first_moment,
                link.inertia,
                link.mass,
                link.armature,
                link.viscous,
                link.coulomb,
            ):
                syms |= obj.free_symbols
        return tuple(sorted(syms, key=str))

    def with_links(self, links: Sequence[Link]) -> Chain:
        """A copy with other links (same coordinates and gravity).

        Examples
        --------
        >>> import lagdyn as ld
        >>> c = ld.zoo.get("planar_3r").chain
        >>> c.with_links(c.links[:2] + (c.links[2],)).n
        3
        """
        return replace(self, links=tuple(links))


def chain_of(system: Any) -> Chain | None:
    """The kinematic tree of ``system`` when it is a robot chain, else ``None``.

    The one place that asks "is this a robot?": a :class:`~lagdyn.robot.RobotSystem` carries
    its :class:`Chain` as ``system.chain``; every other system (a Lagrangian, particles,
    bodies) has none and takes the closed-form route.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive import chain_of
    >>> chain_of(ld.zoo.get("planar_3r")).n
    3
    >>> chain_of(ld.zoo.get("double_pendulum")) is None
    True
    """
    chain = getattr(system, "chain", None)
    return chain if isinstance(chain, Chain) else None


def standard_parameters(index: int) -> dict[str, sp.Symbol]:
    """The ten symbolic barycentric parameters of link ``index`` (1-based), SYMORO names.

    ``XX, XY, XZ, YY, YZ, ZZ`` (inertia about the link frame origin), ``MX, MY, MZ``
    (first moment m·c) and ``M`` (mass); mass and diagonal inertias are nonnegative.

    Examples
    --------
    >>> from lagdyn.robot import standard_parameters
    >>> list(standard_parameters(1))
    ['XX', 'XY', 'XZ', 'YY', 'YZ', 'ZZ', 'MX', 'MY', 'MZ', 'M']
    >>> standard_parameters(2)["M"].is_nonnegative
    True
    """
    out: dict[str, sp.Symbol] = {}
    for key in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M"):
        # a massless link (URDF without <inertial>) and a thin rod (XX = 0) are legitimate
        # values, so mass and diagonal inertias are nonnegative, not positive
        nonnegative = key in ("XX", "YY", "ZZ", "M")
        out[key] = (
            sp.Symbol(f"{key}{index}", nonnegative=True)
            if nonnegative
            else sp.Symbol(f"{key}{index}", real=True)
        )
    return out


def symbolic_inertia(link: Link, index: int) -> Link:
    """``link`` with its inertial parameters replaced by the ten symbols of ``index``."""
    s = standard_parameters(index)
    I = Mat(
        [
            [s["XX"], s["XY"], s["XZ"]],
            [s["XY"], s["YY"], s["YZ"]],
            [s["XZ"], s["YZ"], s["ZZ"]],
        ]
    )
    return replace(link, mass=s["M"], first_moment=Mat([s["MX"], s["MY"], s["MZ"]]), inertia=I)


def in_joint_frames(chain: Chain) -> Chain:
    r"""An equivalent chain whose link frames are the joint frames (every ``post`` = I).

    Each link's constant placement :math:`B_i` after the joint is moved into its
    children's :math:`A_c` (:math:`A_c \leftarrow B_i A_c`) and its inertial parameters are
    re-expressed in the joint frame (:math:`h' = R_B h + m p_B`, :math:`I'` by rotation and
    the parallel-axis theorem). Joint motions, M, h, τ and q̈ are unchanged; only link
    frames move, so that every motion subspace is the bare joint axis (``(a, 0)`` or
    ``(0, a)``) — standard-DH chains become modified-DH-like, which the recursive
    algorithms exploit. A chain that already has ``post = I`` everywhere is returned as is.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.chain import in_joint_frames
    >>> chain = in_joint_frames(ld.zoo.get("planar_3r").chain)
    >>> [link.motion_subspace[1].T for link in chain.links][1]
    Matrix([[0, 0, 0]])
    >>> chain.links[1].pre[1].T
    Matrix([[1, 0, 0]])
    """
    links = chain.links
    if all(link.post[0] == _EYE and link.post[1] == _ZERO3 for link in links):
        return chain
    out: list[Link] = []
    for link in links:
        RA, pA = link.pre
        if link.parent >= 0:
            RBp, pBp = links[link.parent].post
            RA, pA = Mat(RBp * RA), Mat(pBp + RBp * pA)
        RB, pB = link.post
        m, h, I = link.mass, link.first_moment, link.inertia
        Rh = Mat(RB * h)
        P, H = skew(pB), skew(Rh)
        I2 = (RB * I * RB.T - m * P * P - P * H - H * P).applyfunc(sp.expand)
        out.append(
            replace(
                link,
                pre=(RA.applyfunc(sp.expand), pA.applyfunc(sp.expand)),
                post=(_EYE, _ZERO3),
                first_moment=Mat(Rh + m * pB).applyfunc(sp.expand),
                inertia=Mat(I2),
            )
        )
    return replace(chain, links=tuple(out))

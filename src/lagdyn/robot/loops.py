r"""Closed kinematic loops on robot trees: loop-closure constraints from forward kinematics.

A URDF describes a tree; a parallel robot (a five-bar, a Delta, Cassie's legs) is that tree
with some pairs of frames held together. :func:`close_loops` takes a fixed-base
:class:`~lagdyn.robot.RobotSystem` (or a :class:`~lagdyn.robot.floating.FloatingRobot`, on
its Euler-angle chart, see :mod:`lagdyn.robot.euler`) and a list of loops
``(frame_a, frame_b, kind)`` and returns a :class:`~lagdyn.ConstrainedSystem` (a
:class:`ClosedLoopSystem`) whose holonomic rows are built symbolically from the tree's
forward kinematics, in the world frame:

.. math:: \Phi(q) = p_A(q) - p_B(q)

``kind`` is

* ``"point"``: the frames' origins coincide (3 rows, a spherical joint);
* ``"planar"``: the x and y components only (2 rows, a revolute joint of a mechanism that
  moves in the world's xy plane); ``"planar_xz"``, ``"planar_yz"`` for the other planes;
* ``"weld"``: origins and orientations coincide (6 rows: the position rows, then
  :math:`\tfrac12 (R_{rel} - R_{rel}^T)^\vee` of :math:`R_{rel} = R_A^T R_B`, zero when the
  frames are aligned; their Jacobian has full rank there).

Frames are a URDF's links (those welded by fixed joints included) and joints — whatever
``robot.frames`` holds —, the chain's link names, ``"world"``, and the extra frames given as
``frames={"name": ("parent frame", (x, y, z))}`` (an offset in the parent frame's axes).

The loops are checked when they are built:

* a frame that does not exist is a :class:`~lagdyn.LagdynError` naming it (and the close
  names);
* a loop that cannot close: a damped Newton (Levenberg–Marquardt) projection of Φ = 0 from
  ``q0`` (default: q = 0), then from a few seeded random configurations, and a
  :class:`~lagdyn.LagdynError` naming the loops and the smallest residual found when none
  reaches ``tol``; the configuration found is kept as ``closed.q_closed``;
* a row that is constant (a planar loop given as ``"point"``: its z row) is refused by name
  when it is zero (redundant: use ``"planar"``) and a loop that cannot close when it is not;
  rows that depend on the others (J_c rank deficient at random states) are found by
  :class:`~lagdyn.ConstrainedSystem`'s redundancy check and reported by loop and component.
  ``redundant="lstsq"`` keeps dependent rows (minimum-norm multipliers) and drops constant
  zero rows.

Examples
--------
>>> import lagdyn as ld
>>> fb = ld.zoo.five_bar()
>>> fb.loops
(Loop(frame_a='left_tip', frame_b='right_tip', kind='planar'),)
>>> fb.n, fb.m, fb.dof
(4, 2, 2)
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..constraints import ConstrainedSystem
from ..errors import ConstraintError, LagdynError
from ..system import LagrangianSystem
from ._frames import frame_entry
from .builders import exact

__all__ = ["KINDS", "ClosedLoopSystem", "Loop", "close_loops", "frame_placement"]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_ZERO3 = sp.ImmutableMatrix.zeros(3, 1)

#: Loop kinds and the world components (0 x, 1 y, 2 z) their position rows keep.
KINDS: dict[str, tuple[int, ...]] = {
    "point": (0, 1, 2),
    "planar": (0, 1),
    "planar_xz": (0, 2),
    "planar_yz": (1, 2),
    "weld": (0, 1, 2),
}
_AXES = "xyz"
_ROT = ("rx", "ry", "rz")


@dataclass(frozen=True)
class Loop:
    """One loop closure: ``frame_a`` held on ``frame_b`` (see :data:`KINDS`).

    Examples
    --------
    >>> from lagdyn.robot.loops import Loop
    >>> Loop("a", "b", "point")
    Loop(frame_a='a', frame_b='b', kind='point')
    """

    frame_a: str
    frame_b: str
    kind: str = "point"

    def __str__(self) -> str:
        return f"({self.frame_a!r}, {self.frame_b!r}, {self.kind!r})"


class ClosedLoopSystem(ConstrainedSystem):
    """A :class:`~lagdyn.ConstrainedSystem` made by :func:`close_loops`.

    Beyond a ``ConstrainedSystem``: ``robot`` (the tree, a ``RobotSystem``), ``loops``
    (the :class:`Loop` objects), ``row_names`` (``"loop 0 x"``, … one a row), ``q_closed``
    (a configuration that closes every loop, found from ``q0``; ``None`` when the check was
    skipped) and ``residual`` (max |Φ| there).

    Examples
    --------
    >>> import lagdyn as ld
    >>> fb = ld.zoo.five_bar()
    >>> fb.row_names
    ('loop 0 x', 'loop 0 y')
    >>> fb.residual < 1e-10
    True
    """

    robot: Any
    loops: tuple[Loop, ...]
    row_names: tuple[str, ...]
    q_closed: tuple[float, ...] | None
    residual: float | None

    def __repr__(self) -> str:
        return f"ClosedLoopSystem(n={self.n}, loops={len(self.loops)}, m={self.m}, dof={self.dof})"


def _as_loop(item: Any, k: int) -> Loop:
    if isinstance(item, Loop):
        loop = item
    elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
        loop = Loop(*item)
    else:
        raise LagdynError(
            f"loops[{k}] must be (frame_a, frame_b) or (frame_a, frame_b, kind), got {item!r}"
        )
    if not isinstance(loop.frame_a, str) or not isinstance(loop.frame_b, str):
        raise LagdynError(f"loops[{k}]: frame names must be strings, got {item!r}")
    if loop.kind not in KINDS:
        raise LagdynError(
            f"loops[{k}] {loop}: kind must be one of {sorted(KINDS)}, got {loop.kind!r}"
        )
    if loop.frame_a == loop.frame_b:
        raise LagdynError(f"loops[{k}] {loop}: a frame closed on itself")
    return loop


def _frame_table(robot: Any, frames: Mapping[str, Any] | None) -> dict[str, tuple[int, Any, Any]]:
    """name → (link index or −1, R, p) of every frame the robot knows, plus ``frames``."""
    chain = robot.chain
    table: dict[str, tuple[int, Any, Any]] = {"world": (-1, _EYE, _ZERO3)}
    for i, link in enumerate(chain.links):
        table[link.name] = (i, _EYE, _ZERO3)
        table[chain.joint_names[i]] = (i, _EYE, _ZERO3)
    for name, value in dict(getattr(robot, "frames", {}) or {}).items():
        b, R, p = frame_entry(value)
        table[name] = (b, _EYE if R is None else Mat(R), _ZERO3 if p is None else Mat(p))
    for name, spec in dict(frames or {}).items():
        if not isinstance(name, str):
            raise LagdynError(f"frames: names must be strings, got {name!r}")
        if not (isinstance(spec, (tuple, list)) and len(spec) == 2):
            raise LagdynError(f"frames[{name!r}] must be (parent frame, (x, y, z)), got {spec!r}")
        parent, offset = spec
        if parent not in table:
            raise LagdynError(
                f"frames[{name!r}]: parent frame {parent!r} does not exist{_close(parent, table)}"
            )
        try:
            off = Mat([exact(x) for x in offset])
        except (TypeError, LagdynError, sp.SympifyError) as exc:
            raise LagdynError(f"frames[{name!r}]: the offset must be 3 numbers") from exc
        if off.shape != (3, 1):
            raise LagdynError(f"frames[{name!r}]: the offset must have 3 entries")
        b, R, p = table[parent]
        table[name] = (b, R, Mat(p + R * off))
    return table


def _close(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def frame_placement(
    robot: Any,
    name: str,
    *,
    frames: Mapping[str, Any] | None = None,
    q: Sequence[Any] | None = None,
) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """World placement ``(R, p)`` of a named frame of a fixed-base robot, symbolic in q
    (or at the values ``q``: numbers or expressions, one per coordinate).

    Raises
    ------
    LagdynError
        A frame the robot does not have (the message lists close names).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.loops import frame_placement
    >>> fb = ld.zoo.five_bar()
    >>> R, p = frame_placement(fb.robot, "left_tip")
    >>> p.subs({q: 0 for q in fb.robot.q}).T      # the apex (0, l1 + l2 sin 60°)
    Matrix([[0, 3/20 + sqrt(3)/10, 0]])
    >>> frame_placement(fb.robot, "left_tip", q=[0, 0, 0, 0])[1].T
    Matrix([[0, 3/20 + sqrt(3)/10, 0]])
    """
    table = _frame_table(robot, frames)
    if name not in table:
        raise LagdynError(f"frame {name!r} does not exist{_close(name, table)}")
    if q is not None and len(q) != robot.chain.n:
        raise LagdynError(f"q has {len(q)} entries, the robot {robot.chain.n} coordinates")
    return _placement(robot.chain.forward_kinematics(q), table[name])


def _placement(fk: list[Any], entry: tuple[int, Any, Any]) -> tuple[Any, Any]:
    b, R, p = entry
    if b < 0:
        return Mat(R), Mat(p)
    Rb, pb = fk[b]
    return Mat(Rb * R), Mat(pb + Rb * p)


def _vee_skew(R: Any) -> list[sp.Expr]:
    return [(R[2, 1] - R[1, 2]) / 2, (R[0, 2] - R[2, 0]) / 2, (R[1, 0] - R[0, 1]) / 2]


def close_loops(
    robot: Any,
    loops: Sequence[Any],
    *,
    frames: Mapping[str, Any] | None = None,
    q0: Sequence[float] | None = None,
    params: Mapping[Any, float] | None = None,
    redundant: str = "raise",
    check: bool = True,
    tol: float = 1e-9,
) -> ClosedLoopSystem:
    r"""Close loops between pairs of frames of a robot tree: a :class:`ClosedLoopSystem`.

    Parameters
    ----------
    robot : RobotSystem or FloatingRobot
        The tree (``ld.robot.from_urdf``, ``from_dh``, ``from_screws``). A floating robot
        is closed on its Euler-angle chart (:func:`lagdyn.robot.euler.euler_chart`: q =
        base x, y, z, yaw, pitch, roll, joints).
    loops : sequence of (frame_a, frame_b[, kind])
        ``kind`` one of :data:`KINDS` (default ``"point"``).
    frames : mapping, optional
        Extra frames ``name → (parent frame, (x, y, z))``.
    q0 : sequence of float, optional
        Where the projection onto Φ = 0 starts (default q = 0).
    params : mapping, optional
        Parameter values for the check (default ``robot.defaults``).
    redundant : {"raise", "lstsq"}
        As for :class:`~lagdyn.ConstrainedSystem`; ``"lstsq"`` also drops constant zero rows.
    check : bool
        Project onto Φ = 0 and refuse loops that cannot close (``q_closed``, ``residual``);
        skipped (``None``) when a parameter has no value.
    tol : float
        The largest max |Φ| accepted as closed.

    Returns
    -------
    ClosedLoopSystem
        A ConstrainedSystem over ``robot`` (``cs.system is robot``), rows in loop order.

    Raises
    ------
    LagdynError
        A malformed loop, an unknown kind or frame (named, with close names), a loop whose
        rows are constant and nonzero, or that no configuration found closes (the residual
        is named).
    ConstraintError
        Redundant rows (constant zero rows, or rows of J_c that depend on the others),
        named by loop and component, with ``redundant="raise"``; more rows than
        coordinates.

    Examples
    --------
    A planar four-bar from three links of a DH arm, its tip held on a point of the ground:

    >>> import lagdyn as ld
    >>> arm = ld.robot.from_dh([(0, 1, 0), (0, 2, 0), (0, 2, 0)], parameters="numeric",
    ...                        inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 3)
    >>> bar = ld.robot.close_loops(arm, [("link3", "anchor", "planar")],
    ...                            frames={"anchor": ("world", (2.5, 0, 0))}, q0=[1, -1, -1])
    >>> bar.dof, bar.residual < 1e-9
    (1, True)
    >>> ld.robot.close_loops(arm, [("link3", "anchor", "planar")],
    ...                      frames={"anchor": ("world", (9, 0, 0))})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: loop 0 ('link3', 'anchor', 'planar') cannot close: ...
    """
    if not isinstance(robot, LagrangianSystem):
        from .floating import FloatingRobot

        if not isinstance(robot, FloatingRobot):
            raise LagdynError(
                f"close_loops needs a RobotSystem or a FloatingRobot, got {type(robot).__name__}"
            )
        from .euler import euler_chart

        robot = euler_chart(robot)
    if getattr(robot, "chain", None) is None:
        raise LagdynError(
            "close_loops needs a robot tree (ld.robot.from_urdf, from_dh, from_screws), got "
            f"a {type(robot).__name__} without a chain"
        )
    if redundant not in ("raise", "lstsq"):
        raise LagdynError(f"redundant must be 'raise' or 'lstsq', got {redundant!r}")
    if isinstance(loops, (str, bytes)) or not isinstance(loops, Sequence) or not loops:
        raise LagdynError(
            f"loops must be a non-empty sequence of (frame_a, frame_b, kind), got {loops!r}"
        )
    items = tuple(_as_loop(x, k) for k, x in enumerate(loops))
    table = _frame_table(robot, frames)
    missing = [
        f"loop {k} {loop}: frame {f!r} does not exist{_close(f, table)}"
        for k, loop in enumerate(items)
        for f in (loop.frame_a, loop.frame_b)
        if f not in table
    ]
    if missing:
        raise LagdynError("; ".join(missing))
    fk = robot.chain.forward_kinematics()
    q = tuple(robot.q)
    rows: list[sp.Expr] = []
    names: list[str] = []
    for k, loop in enumerate(items):
        RA, pA = _placement(fk, table[loop.frame_a])
        RB, pB = _placement(fk, table[loop.frame_b])
        gap = pA - pB
        found = [(gap[i], f"loop {k} {_AXES[i]}") for i in KINDS[loop.kind]]
        if loop.kind == "weld":
            rel = RA.T * RB
            found += [(e, f"loop {k} {r}") for e, r in zip(_vee_skew(rel), _ROT)]
        rows += [e for e, _ in found]
        names += [n for _, n in found]
    values = _values(robot, params)
    rows, names = _constant_rows(items, rows, names, q, values, redundant)
    if redundant == "raise" and values is not None:
        dependent = _dependent_at_random(rows, q, values)
        if dependent:
            raise _redundant(items, names, dependent)
    try:
        closed = ClosedLoopSystem(robot, rows, redundant=redundant)
    except ConstraintError as exc:
        text = str(exc)
        if "redundant or singular" in text:
            raise _redundant(items, names, _dependent(robot, rows)) from None
        raise
    closed.robot = robot
    closed.loops = items
    closed.row_names = tuple(names)
    closed.q_closed, closed.residual = None, None
    if check and values is not None:
        start = [0.0] * len(q) if q0 is None else [float(x) for x in q0]
        if len(start) != len(q):
            raise LagdynError(f"q0 has {len(start)} entries, the robot {len(q)} coordinates")
        qc, res = _project(rows, q, values, start)
        worst = max(abs(r) for r in res) if res else 0.0
        if worst > tol:
            bad = sorted({int(names[i].split()[1]) for i, r in enumerate(res) if abs(r) > tol})
            which = "; ".join(
                f"loop {k} {items[k]} cannot close: the smallest residual found is "
                + ", ".join(
                    f"{names[i].split()[2]} {res[i]:.3g}"
                    for i in range(len(res))
                    if int(names[i].split()[1]) == k
                )
                for k in bad
            )
            raise LagdynError(
                f"{which} (damped Newton from q0 and from 8 random configurations; the "
                "frames may be farther apart than the links between them reach)"
            )
        closed.q_closed, closed.residual = tuple(qc), worst
    return closed


def _values(robot: Any, params: Mapping[Any, float] | None) -> dict[sp.Symbol, float] | None:
    given = dict(getattr(robot, "defaults", {}) or {})
    if params is not None:
        names = {str(k) for k in params}
        given = {s: v for s, v in given.items() if str(s) not in names}
        given.update(params)
    by_name = {str(k): float(v) for k, v in given.items()}
    out: dict[sp.Symbol, float] = {}
    for s in robot.chain.parameters:
        if s.name not in by_name:
            return None
        out[s] = by_name[s.name]
    return out


def _plain(q: Sequence[Any]) -> list[sp.Symbol]:
    return [sp.Symbol(f"_ldloop{i}", real=True) for i in range(len(q))]


def _constant_rows(
    items: tuple[Loop, ...],
    rows: list[sp.Expr],
    names: list[str],
    q: tuple[Any, ...],
    values: dict[sp.Symbol, float] | None,
    redundant: str,
) -> tuple[list[sp.Expr], list[str]]:
    """Rows that do not depend on q: zero ones redundant, others loops that cannot close."""
    keep_rows, keep_names, zero, offset = [], [], [], []
    for row, name in zip(rows, names):
        if any(row.has(x) for x in q):
            keep_rows.append(row)
            keep_names.append(name)
            continue
        value = sp.expand(row)
        if value == 0:
            zero.append(name)
            continue
        number = value.subs(values) if values else value
        if number.is_number and abs(float(number)) < 1e-12:
            zero.append(name)
        else:
            offset.append((name, value))
    if offset:
        raise LagdynError(
            "; ".join(
                f"loop {name.split()[1]} {items[int(name.split()[1])]} cannot close: its "
                f"{name.split()[2]} row is the constant {value} whatever q is"
                for name, value in offset
            )
        )
    if zero and redundant == "raise":
        raise ConstraintError(
            "redundant loop rows: "
            + ", ".join(f"{n} {items[int(n.split()[1])]}" for n in zero)
            + " are identically zero (they constrain nothing: a planar loop given as 'point' "
            "or 'weld'; use kind 'planar', 'planar_xz' or 'planar_yz'), or pass "
            "redundant='lstsq' to drop them"
        )
    if not keep_rows:
        raise ConstraintError("the loops constrain nothing: every row is identically zero")
    return keep_rows, keep_names


def _redundant(items: tuple[Loop, ...], names: list[str], dependent: list[int]) -> ConstraintError:
    listed = ", ".join(f"{names[i]} {items[int(names[i].split()[1])]}" for i in dependent)
    return ConstraintError(
        f"redundant loop rows: {listed} depend on the other rows (J_c rank deficient at "
        "random states): a loop given with more rows than it constrains (a planar mechanism "
        "closed with 'point' or 'weld': use 'planar'), or two loops that close the same "
        "joint; pass redundant='lstsq' to keep them"
    )


def _dependent_at_random(
    rows: list[sp.Expr], q: tuple[Any, ...], values: dict[sp.Symbol, float]
) -> list[int]:
    """Rows of J_c that are combinations of earlier rows at two random states (numeric
    screening as :meth:`ConstrainedSystem.dependent_rows` does, before the row count is
    checked, so that a loop closed twice is named rather than counted)."""
    import numpy as np

    plain = _plain(q)
    sub = dict(zip(q, plain))
    jac = Mat([sp.sympify(r).xreplace(sub).subs(values) for r in rows]).jacobian(plain)
    J = sp.lambdify([plain], jac, modules="numpy")
    rng = random.Random(99)
    dependent: set[int] | None = None
    for _ in range(2):
        A = np.asarray(J([rng.uniform(-2.0, 2.0) for _ in q]), dtype=float)
        scale = max(1.0, float(np.abs(A).max()))
        found, kept = set(), np.zeros((0, A.shape[1]))
        for i, row in enumerate(A):
            trial = np.vstack([kept, row])
            if np.linalg.matrix_rank(trial, tol=1e-9 * scale) > len(kept):
                kept = trial
            else:
                found.add(i)
        dependent = found if dependent is None else dependent & found
    return sorted(dependent or ())


def _dependent(robot: Any, rows: list[sp.Expr]) -> list[int]:
    try:
        probe = ConstrainedSystem(robot, rows, redundant="lstsq")
    except ConstraintError:
        return []
    return probe.dependent_rows()


def _project(
    rows: list[sp.Expr], q: tuple[Any, ...], values: dict[sp.Symbol, float], start: list[float]
) -> tuple[list[float], list[float]]:
    """Levenberg–Marquardt on Φ(q) = 0 from ``start``, then from seeded random starts."""
    import numpy as np

    plain = _plain(q)
    sub = dict(zip(q, plain))
    phi = Mat([sp.sympify(r).xreplace(sub).subs(values) for r in rows])
    jac = phi.jacobian(plain)
    f = sp.lambdify([plain], phi, modules="numpy")
    J = sp.lambdify([plain], jac, modules="numpy")

    def solve(x0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = x0.copy()
        r = np.asarray(f(x), dtype=float).ravel()
        mu = 1e-3
        for _ in range(200):
            if np.max(np.abs(r)) < 1e-13:
                break
            A = np.asarray(J(x), dtype=float)
            H = A.T @ A
            step = np.linalg.solve(H + mu * np.diag(np.diag(H) + 1e-12), A.T @ r)
            x_new = x - step
            r_new = np.asarray(f(x_new), dtype=float).ravel()
            if r_new @ r_new < r @ r:
                x, r, mu = x_new, r_new, max(mu / 3, 1e-12)
            else:
                mu *= 4
                if mu > 1e12:
                    break
        return x, r

    best_x, best_r = solve(np.asarray(start, dtype=float))
    rng = random.Random(2026)
    for _ in range(8):
        if np.max(np.abs(best_r)) < 1e-12:
            break
        x0 = np.array([rng.uniform(-np.pi, np.pi) for _ in q])
        x, r = solve(x0)
        if np.max(np.abs(r)) < np.max(np.abs(best_r)):
            best_x, best_r = x, r
    return [float(v) for v in best_x], [float(v) for v in best_r]

r"""Frames and contacts of a floating-base robot: placements, Jacobians, J̇ v, contact
dynamics and impacts, batched.

The frame kinematics are generated code (:mod:`lagdyn.recursive.kinematics`, every
backend); the numerics here change the reference frame and solve the contact problems.

Reference frames, as Pinocchio's ``ReferenceFrame``
    ``"local_world_aligned"`` (default): the frame's origin, world axes;
    ``"local"``: the frame's origin and axes; ``"world"``: the world origin and axes (the
    spatial velocity). Jacobian rows are (linear, angular), Pinocchio's order.

Contacts
    A point contact ``(frame, 3)`` holds the frame's origin still: J_c is the linear rows of
    the frame Jacobian and J̇_c v the classical acceleration p̈ at v̇ = 0
    (``pin.getFrameClassicalAcceleration``). A surface contact ``(frame, 6)`` holds the
    whole frame still: all six rows, and its drift is the frame's spatial acceleration at
    v̇ = 0 (p̈ − ω × ṗ, ω̇) in the contact's axes, as Pinocchio's ``CONTACT_6D`` (the two
    agree whenever the contact does not move, J_c v = 0). The contact forces λ are those of
    :class:`lagdyn.ConstrainedSystem` (seed 004):

    .. math::
        M\dot v + h = \tau + J_c^T\lambda, \qquad
        J_c\dot v = -\dot J_c v - 2\alpha J_c v - \beta^2 \Phi =: \gamma,

    the KKT system ``[[M, −J_cᵀ], [J_c, 0]] [v̇; λ] = [τ − h; γ]`` (λ: the forces and torques
    the ground applies, in the contacts' reference frames; Φ the position error from the
    ``anchors``, only with Baumgarte's β). Impacts: the post-impact velocity and the
    impulse from the same matrix, ``[[M, −J_cᵀ], [J_c, 0]] [v⁺; Λ] = [M v⁻; −e J_c v⁻]``.

Loops (frame to frame)
    A loop ``(frame_a, frame_b, "point")`` holds two frames' origins together (a ball joint
    closing a kinematic loop, as Cassie's achilles and plantar rods); ``"weld"`` holds
    their orientations together too. The rows are always in world axes: Φ = p_A − p_B
    (and, for a weld, log(R_A R_Bᵀ)), J = J_A − J_B (the ``LOCAL_WORLD_ALIGNED`` Jacobians'
    linear rows, and for a weld their angular rows), γ's drift J̇v = drift_A − drift_B
    (the classical accelerations p̈_A − p̈_B and, for a weld, ω̇_A − ω̇_B at v̇ = 0: the
    exact time derivative of these rows, so J v̇ = γ keeps J v = 0). λ of a loop is the
    force (and torque) frame B's body applies to frame A's, world axes, at A's origin;
    A's body applies −λ to B's. Baumgarte's β uses Φ from the placements (no anchors).
    :func:`closures` builds loops (and ground contacts beside them) on any floating
    or fixed-base model; :meth:`Contacts.project` moves a configuration onto the loops.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.robot.floating import EXAMPLE_URDF
>>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
>>> num = robot.lambdify({"g": 9.81})
>>> R, p = num.frame_placement(robot.neutral(), "shank_r")
>>> np.round(p, 6) + 0.0
array([ 0.  , -0.1 , -0.25])
>>> num.frame_jacobian(robot.neutral(), "shank_r").shape
(6, 9)
"""

from __future__ import annotations

import difflib
import functools
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import ConstraintError, LagdynError, ShapeError
from ..numeric.constrained import inconsistency, kkt_solve, penalty_solve, schur_solve
from ..numeric.model import real_last as _real

__all__ = [
    "CONTACT_METHODS",
    "LOOP_KINDS",
    "REFERENCES",
    "Contacts",
    "FrameKernels",
    "FrameModel",
    "closures",
    "fixed_model",
    "loop_name",
]

#: Pinocchio's reference frames, by the names used here.
REFERENCES = ("local_world_aligned", "local", "world")
#: The solvers of :meth:`Contacts.dynamics`.
CONTACT_METHODS = ("kkt", "schur", "penalty", "augmented_lagrangian", "lstsq")
#: Frame-to-frame loop kinds and their numbers of rows.
LOOP_KINDS = {"point": 3, "weld": 6}


def _check_reference(reference: str) -> None:
    if reference not in REFERENCES:
        raise LagdynError(f"reference must be one of {', '.join(REFERENCES)}; got {reference!r}")


def unknown_frame(name: Any, known: Sequence[str]) -> LagdynError:
    """The error for a frame name the robot does not have, with the closest names."""
    close = difflib.get_close_matches(str(name), list(known), n=5, cutoff=0.5)
    hint = f"; closest: {', '.join(close)}" if close else ""
    return LagdynError(
        f"no frame named {name!r} on this robot{hint} (robot.frame_names lists all {len(known)})"
    )


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _mtv(R: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Rᵀ x over leading axes (R: (..., 3, 3), x: (..., 3) or (..., 3, k))."""
    if x.ndim == R.ndim:
        return np.swapaxes(R, -1, -2) @ x
    return np.einsum("...ji,...j->...i", R, x)


class FrameKernels:
    """Generated placements, Jacobians and drifts of a tuple of frames (one compiled module).

    Built by :class:`~lagdyn.robot.floating.FloatingModel` (frames on demand) and
    :class:`Contacts`; ``placement(q)`` → ``(R (..., F, 3, 3), p (..., F, 3))``,
    ``jacobian(q)`` → ``(..., F, 6, nv)`` (``LOCAL_WORLD_ALIGNED``), ``drift(q, v)`` →
    ``(..., F, 6)`` (p̈, ω̇ at v̇ = 0, world axes).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
    >>> fk = num.frame_kernels(["shank_r", "thigh_l"])
    >>> fk.jacobian(robot.neutral()).shape
    (2, 6, 9)
    """

    def __init__(
        self,
        model: Any,
        names: Sequence[str],
        *,
        contacts: Sequence[tuple[str, int]] | None = None,
        reference: str = "local_world_aligned",
    ) -> None:
        from ..numeric import backends
        from ..recursive.floating import floating_key
        from ..recursive.kinematics import contact_program, frames_program

        robot = model.robot
        self.names = tuple(names)
        #: the row of each name (frames at the same placement share one)
        self.index: dict[str, int] = {}
        frames: list[Any] = []
        seen: dict[Any, int] = {}
        fused = contacts is not None
        for name in self.names:
            f = robot.frame(name)
            where = (f.body, tuple(f.rotation), tuple(f.position))
            if where not in seen:
                seen[where] = len(frames)
                frames.append(f)
            self.index[name] = seen[where]
        self.nq, self.nv, self.count = robot.nq, robot.nv, len(frames)
        values = _frame_values(model, frames, fused)
        be = backends.get(model.backend)
        extra = "frames-1|" + "|".join(
            f"{f.name}:{f.body}:{list(f.rotation)}:{list(f.position)}" for f in frames
        )
        friction = bool(robot.friction)
        fixed = bool(getattr(robot, "fixed", False))
        if fixed:
            extra = "fixed|" + extra
        pairs = [(robot.frame(n), d) for n, d in (contacts or ())]
        if fused:
            extra = f"contact-3|cse|base-axes|{reference}|" + "|".join(
                f"{f.name}:{d}:{f.body}:{list(f.rotation)}:{list(f.position)}" for f, d in pairs
            )
        key = floating_key(robot.base, values, be.name, "frames", friction, extra)
        base = robot.base

        def make() -> Any:
            if fused:
                return contact_program(
                    base, pairs, values, reference=reference, friction=friction, cse=True
                )
            return frames_program(base.chain if fixed else base, frames, values)

        opts = dict(model.build_options)
        if fused and be.name == "c":  # states as columns: the kernel vectorizes across them
            opts["soa"] = ("contact_dynamics",)
        cache, cache_dir = opts.pop("cache", True), opts.pop("cache_dir", None)
        from ..codegen.cache import DiskCache

        disk = DiskCache(cache_dir) if cache else None
        self._kernels = be.build(make, key, disk, **opts)
        self._pool: Any = None  # the threads of a batch split across them, made once
        F, nv = self.count, self.nv
        self._shapes = {
            "frame_placement": (F, 12),
            "frame_jacobian": (6 * F, nv),
            "frame_drift": (F, 6),
            "contact_dynamics": (nv + 2 * sum(d for _, d in contacts or ()),),
        }

    def _run(
        self, name: str, q: np.ndarray, v: np.ndarray | None = None, x: np.ndarray | None = None
    ) -> np.ndarray:
        nq = self.nq
        args = [q]
        for a in (v, x):
            if a is None:
                break
            pad = np.zeros((*a.shape[:-1], nq))
            pad[..., : self.nv] = a
            args.append(pad)
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in args))
        B = math.prod(batch)
        flat = [np.ascontiguousarray(np.broadcast_to(a, (*batch, nq)).reshape(B, nq)) for a in args]
        while len(flat) < 3:
            flat.append(np.zeros((B, nq)))
        shape = self._shapes[name]
        out = np.empty((B, *shape))
        p, t = np.zeros((1, 0)), np.zeros((1, 1))
        kernels = self._kernels
        # the C backend's struct-of-arrays entry (blocks of states in vector lanes) when
        # built with one; it has no OpenMP loop of its own
        soa = name in getattr(kernels, "soa_names", ())
        batch_soa = getattr(kernels, "batch_soa", None)
        threads = int(getattr(kernels, "threads", 1))
        if threads == 0:  # the backend's "all cores"
            threads = (os.cpu_count() or 1) if soa else 1

        def part(a: int, z: int) -> None:  # cffi calls C without the GIL
            if soa and batch_soa is not None:
                batch_soa(name, flat[0][a:z], flat[1][a:z], flat[2][a:z], out[a:z])
            else:
                kernels.batch(name, flat[0][a:z], flat[1][a:z], flat[2][a:z], p, t, out[a:z])

        # the C loop's own OpenMP starts at 16384 states
        if threads > 1 and B >= 1024 and (soa or B < 16384):
            cuts = [B * k // threads for k in range(threads + 1)]
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(threads)
            list(self._pool.map(part, cuts[:-1], cuts[1:]))
        else:
            part(0, B)
        return out.reshape((*batch, *shape))

    def placement(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rotations (..., F, 3, 3) and origins (..., F, 3) in the world."""
        out = self._run("frame_placement", q)
        return out[..., :9].reshape((*out.shape[:-1], 3, 3)), out[..., 9:12]

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """(..., F, 6, nv), ``LOCAL_WORLD_ALIGNED``."""
        out = self._run("frame_jacobian", q)
        return out.reshape((*out.shape[:-2], self.count, 6, self.nv))

    def drift(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """(..., F, 6): (p̈, ω̇) at v̇ = 0, world axes."""
        return self._run("frame_drift", q, v)


def _frame_values(model: Any, frames: Sequence[Any], fused: bool) -> dict[Any, float]:
    """The parameter values of a model's frame kernels: its bound values, and for the
    parameters it leaves free (``lambdify(free=...)``) a placeholder, which the frames'
    placements, Jacobians and drifts never read — checked: a free parameter in a joint
    axis or placement, or in a frame's, is refused by name, and so is the fused contact
    kernel (it holds M and h, which read them)."""
    free = tuple(getattr(model, "free_parameters", ()))
    if not free:
        return model.values
    names = ", ".join(s.name for s in free)
    if fused:
        raise LagdynError(
            f"the fused contact kernel folds every parameter into its code, but this model "
            f"leaves {names} free (passed per call): build the contacts with fused=False, "
            "or bind them in lambdify"
        )
    chain = model.robot.base.chain
    kin: set[Any] = set()
    for link in chain.links:
        for m in (link.axis, *link.pre, *link.post):
            kin |= sp.sympify(m).free_symbols
    for f in frames:
        kin |= sp.sympify(f.rotation).free_symbols | sp.sympify(f.position).free_symbols
    read = [s.name for s in free if s in kin]
    if read:
        raise LagdynError(
            f"the frames' placements read the free parameters {', '.join(read)}: bind "
            "them in lambdify to use frames and contacts"
        )
    return {**model.values, **{s: 1.0 for s in free}}


def to_reference(J: np.ndarray, R: np.ndarray, p: np.ndarray, reference: str) -> np.ndarray:
    """A ``LOCAL_WORLD_ALIGNED`` Jacobian (..., 6, nv) in ``reference``."""
    if reference == "local_world_aligned":
        return J
    out = np.empty(J.shape)
    if reference == "local":
        out[..., :3, :] = _mtv(R, J[..., :3, :])
        out[..., 3:, :] = _mtv(R, J[..., 3:, :])
        return out
    # world: the velocity of the point at the world origin, ṗ − ω × p
    out[..., 3:, :] = J[..., 3:, :]
    out[..., :3, :] = J[..., :3, :] - np.swapaxes(
        _cross(np.swapaxes(J[..., 3:, :], -1, -2), p[..., None, :]), -1, -2
    )
    return out


def classical_in(
    drift: np.ndarray, vel: np.ndarray, R: np.ndarray, p: np.ndarray, reference: str
) -> np.ndarray:
    """Pinocchio's ``getFrameClassicalAcceleration`` in ``reference`` from (p̈, ω̇) and the
    frame's (ṗ, ω), both world axes."""
    if reference == "local_world_aligned":
        return drift
    out = np.empty(drift.shape)
    if reference == "local":
        out[..., :3] = _mtv(R, drift[..., :3])
        out[..., 3:] = _mtv(R, drift[..., 3:])
        return out
    # world: spatial acceleration at the origin plus ω × (velocity of the origin point)
    w, pd, dw = vel[..., 3:], vel[..., :3], drift[..., 3:]
    a_origin = drift[..., :3] - _cross(w, pd) - _cross(dw, p)
    v_origin = pd - _cross(w, p)
    out[..., :3] = a_origin + _cross(w, v_origin)
    out[..., 3:] = dw
    return out


# ---------------------------------------------------------------------- contacts
def _parse_contacts(
    robot: Any, contacts: Any, *, empty: bool = False
) -> tuple[tuple[str, int], ...]:
    if isinstance(contacts, (str, bytes)) or not isinstance(contacts, Sequence):
        raise LagdynError(
            "contacts must be a sequence of (frame name, 3 or 6) pairs, e.g. "
            f"[('FL_FOOT', 3)], got {contacts!r}"
        )
    out = []
    for c in contacts:
        if isinstance(c, str):
            name, dim = c, 3
        else:
            try:
                name, dim = c
            except (TypeError, ValueError):
                raise LagdynError(
                    f"a contact is a frame name or a (frame name, 3 or 6) pair, got {c!r}"
                ) from None
        if dim not in (3, 6) or isinstance(dim, bool):
            raise LagdynError(
                f"contact on {name!r}: dimension must be 3 (a point) or 6 (a surface), got {dim!r}"
            )
        robot.frame(name)  # a named error for an unknown frame
        out.append((str(name), int(dim)))
    if not out and not empty:
        raise LagdynError("contacts must name at least one frame")
    return tuple(out)


def _parse_loops(robot: Any, loops: Any) -> tuple[tuple[str, str, str], ...]:
    """``(frame_a, frame_b, kind)`` triples (or :class:`~lagdyn.robot.loops.Loop`), checked."""
    if isinstance(loops, (str, bytes)) or not isinstance(loops, Sequence):
        raise LagdynError(
            "loops must be a sequence of (frame_a, frame_b) or (frame_a, frame_b, 'point' | "
            f"'weld'), got {loops!r:.80}"
        )
    out: list[tuple[str, str, str]] = []
    for k, item in enumerate(loops):
        if hasattr(item, "frame_a") and hasattr(item, "frame_b"):
            item = (item.frame_a, item.frame_b, getattr(item, "kind", "point"))
        if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
            raise LagdynError(
                f"loops[{k}] must be (frame_a, frame_b) or (frame_a, frame_b, kind), "
                f"got {item!r:.80}"
            )
        a, b = item[0], item[1]
        kind = item[2] if len(item) == 3 else "point"
        if not isinstance(a, str) or not isinstance(b, str):
            raise LagdynError(f"loops[{k}]: frame names must be strings, got {item!r:.80}")
        if kind not in LOOP_KINDS:
            raise LagdynError(
                f"loops[{k}] ({a!r}, {b!r}): kind must be 'point' or 'weld' here, got "
                f"{kind!r} (planar loops: lagdyn.robot.close_loops)"
            )
        if a == b:
            raise LagdynError(f"loops[{k}]: frame {a!r} closed on itself")
        robot.frame(a)
        robot.frame(b)
        out.append((a, b, str(kind)))
    return tuple(out)


_AXES = ("x", "y", "z", "rx", "ry", "rz")


def _basis_label(b: np.ndarray, frame: str) -> str:
    """A reduced row's name: ``"a.y"`` along an axis of frame a, else its direction."""
    k = int(np.argmax(abs(b)))
    if abs(b[k]) == 1.0:
        return f"{frame}.{_AXES[k]}"
    return f"{frame} " + " ".join(f"{x:+.3f}" for x in b)


def loop_name(loop: tuple[str, str, str]) -> str:
    """A loop's name in reports and :meth:`Contacts.forces`: ``"frame_a~frame_b"``.

    Examples
    --------
    >>> loop_name(("left-rod__on_parent", "left-rod__on_child", "point"))
    'left-rod__on_parent~left-rod__on_child'
    """
    return f"{loop[0]}~{loop[1]}"


def _log3(R: np.ndarray) -> np.ndarray:
    """The rotation vector of R (..., 3, 3) (angle in [0, π])."""
    tr = np.trace(R, axis1=-2, axis2=-1)
    th = np.arccos(np.clip((tr - 1) / 2, -1.0, 1.0))
    vee = np.stack(
        [R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]],
        axis=-1,
    )
    s = np.sin(th)
    small = th < 1e-6
    scale = np.where(small, 0.5 + th**2 / 12, th / (2 * np.where(small, 1.0, s)))
    out = vee * scale[..., None]
    near_pi = th > np.pi - 1e-6
    if np.any(near_pi):  # axis from the diagonal of R + I
        B = (R[near_pi] + np.eye(3)) / 2
        k = np.argmax(np.diagonal(B, axis1=-2, axis2=-1), axis=-1)
        col = B[np.arange(len(k)), :, k]
        axis = col / np.linalg.norm(col, axis=-1, keepdims=True)
        out[near_pi] = axis * th[near_pi][..., None]
    return out


class Contacts:
    """Point and surface contacts on named frames of a floating-base robot, and loops
    closing two frames on each other (the module docstring).

    Built once (``model.contacts([("FL_FOOT", 3), ...])``, or :func:`closures` with
    ``loops``): one generated module holds the frames' placements, Jacobians and drifts;
    :meth:`dynamics` and :meth:`impulse` solve the constrained problems, batched over
    leading axes. The rows are the contacts' (in their order), then the loops'.

    Parameters
    ----------
    model : FloatingModel
        Its kernels ``M`` and ``bias`` are used (forward dynamics not needed).
    contacts : sequence of (str, int)
        Frame names and 3 (point) or 6 (surface); a bare name is a point contact. May be
        empty when ``loops`` are given.
    loops : sequence of (str, str) or (str, str, {"point", "weld"})
        Frame pairs held together (rows in world axes whatever ``reference``).
    reduce : bool
        Drop the rows of a loop that depend on its others everywhere (:func:`closures`).
    reference : {"local_world_aligned", "local"}
        The axes of the contact rows and forces: world axes at the contact (default) or
        the frame's own axes.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> num = robot.lambdify({"g": 9.81})
    >>> feet = num.contacts([("thigh_l", 6), ("shank_r", 3)])
    >>> feet.m
    9
    """

    def __init__(
        self,
        model: Any,
        contacts: Any = (),
        *,
        loops: Any = (),
        reduce: bool = True,
        reference: str = "local_world_aligned",
        fused: bool = False,
    ) -> None:
        _check_reference(reference)
        if reference == "world":
            raise LagdynError(
                "contacts are expressed in 'local_world_aligned' or 'local' axes; 'world' "
                "(a spatial velocity at the world origin) is not a contact's frame"
            )
        self.model = model
        self.reference = reference
        self.loops = _parse_loops(model.robot, loops)
        self.contacts = _parse_contacts(model.robot, contacts, empty=bool(self.loops))
        self.nv = model.nv
        #: rows of the ground contacts (the first ones), then of the loops
        self.m_contacts = sum(d for _, d in self.contacts)
        self.m = self.m_contacts + sum(LOOP_KINDS[k] for _, _, k in self.loops)
        if fused and self.loops:
            raise LagdynError(
                "the fused contact kernel has no loop rows: build loops with fused=False"
            )
        if fused and getattr(model, "free_parameters", None):
            _frame_values(model, (), True)  # refused, naming the free parameters
        self.fused = bool(fused)
        self._fused: FrameKernels | None = None
        #: per loop: None (all rows, world axes) or the kept directions B (r, d) in frame
        #: A's axes (rows B R_Aᵀ(J_A − J_B)) when the loop's rows are dependent everywhere
        self.loop_bases: list[np.ndarray | None] = [None] * len(self.loops)
        if self.loops and reduce:
            self._reduce_loops()
        self.m = self.m_contacts + sum(
            LOOP_KINDS[lp[2]] if B is None else B.shape[0]
            for lp, B in zip(self.loops, self.loop_bases)
        )
        names: list[str] = []
        for name, dim in self.contacts:
            names += [f"{name}[{k}]" for k in range(dim)]
        for loop, B in zip(self.loops, self.loop_bases):
            labels = _AXES[: LOOP_KINDS[loop[2]]]
            if B is not None:
                labels = tuple(_basis_label(b, loop[0]) for b in B)
            names += [f"{loop_name(loop)}[{x}]" for x in labels]
        #: one name a row: ``"FL_FOOT[2]"``, ``"a~b[x]"`` (world x, y, z, then rx, ry, rz),
        #: ``"a~b[a.x]"`` (a reduced loop's row along frame a's x axis)
        self.row_names = tuple(names)

    def _reduce_loops(self) -> None:
        """Find loops whose rows are dependent at every closed configuration tried (a
        planar loop given as a ball joint: Cassie's plantar rods) and keep their
        independent directions, fixed in frame A's axes."""
        model = self.model
        robot = model.robot
        nq, nv = model.nq, model.nv
        q0 = np.asarray(robot.neutral(), dtype=float) if hasattr(robot, "neutral") else np.zeros(nq)
        first = 0 if nq == nv else 7  # the first joint coordinate
        rng = np.random.default_rng(20261207)
        samples = []
        for k in range(3):
            q = q0.copy()
            if k:
                q[first:] += rng.normal(scale=0.2, size=nq - first)
            try:
                samples.append(self.project(q, tol=1e-10)[0])
            except ConstraintError:
                continue
        if not samples:
            return
        nulls: list[list[np.ndarray]] = [[] for _ in self.loops]
        comps: list[np.ndarray] = []
        for qs in samples:
            R, _ = self.frames.placement(qs)
            J = self.frames.jacobian(qs)
            for i, (fa, fb, kind) in enumerate(self.loops):
                L = self._local_rows(J, R, fa, fb, kind)
                U, sv, _ = np.linalg.svd(L)
                tol = 1e-8 * max(float(sv[0]) if sv.size else 0.0, 1e-300)
                r = int(np.sum(sv > tol))
                nulls[i].append(U[:, r:])
                if len(nulls[i]) == 1:
                    comps.append(U[:, :r])
        for i, loop in enumerate(self.loops):
            N = nulls[i]
            if N[0].shape[1] == 0 or any(n.shape != N[0].shape for n in N):
                continue
            # the same dependent directions (in frame A's axes) at every sample
            if any(np.linalg.svd(N[0].T @ n, compute_uv=False).min() < 1 - 1e-6 for n in N):
                continue
            d = LOOP_KINDS[loop[2]]
            eye = np.eye(d)
            axes = [int(np.argmax(abs(c))) for c in N[0].T]
            if all(abs(N[0][a, j]) > 1 - 1e-9 for j, a in enumerate(axes)):  # along axes
                self.loop_bases[i] = eye[[k for k in range(d) if k not in axes]]
            else:
                self.loop_bases[i] = comps[i].T.copy()

    def _local_rows(self, J: np.ndarray, R: np.ndarray, fa: str, fb: str, kind: str) -> np.ndarray:
        """(J_A − J_B)'s first d rows in frame A's axes."""
        ka, kb = self._index[fa], self._index[fb]
        Jd = J[..., ka, :, :] - J[..., kb, :, :]
        Ra = R[..., ka, :, :]
        out = [_mtv(Ra, Jd[..., :3, :])]
        if kind == "weld":
            out.append(_mtv(Ra, Jd[..., 3:, :]))
        return np.concatenate(out, axis=-2)

    @functools.cached_property
    def frames(self) -> FrameKernels:
        """The contact frames' generated placements, Jacobians and drifts (built on first
        use: the fused kernel of :meth:`dynamics` does not need them)."""
        names = [n for n, _ in self.contacts] + [f for a, b, _ in self.loops for f in (a, b)]
        return FrameKernels(self.model, list(dict.fromkeys(names)))

    @property
    def _index(self) -> dict[str, int]:
        return self.frames.index

    def __repr__(self) -> str:
        inner = ", ".join(f"{n!r}: {d}" for n, d in self.contacts)
        loops = f", loops={len(self.loops)}" if self.loops else ""
        return f"Contacts({{{inner}}}{loops}, m={self.m}, reference={self.reference!r})"

    # ------------------------------------------------------------------ rows
    def _rows(
        self, q: np.ndarray, v: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
        """J_c (..., m, nv), J̇_c v (..., m) (when v is given), R, p of the frames."""
        R, p = self.frames.placement(q)
        J = self.frames.jacobian(q)
        D = None if v is None else self.frames.drift(q, v)
        local = self.reference == "local"
        rows, drifts = [], []
        for name, dim in self.contacts:
            k = self._index[name]
            Jk, Rk = J[..., k, :, :], R[..., k, :, :]
            if local:
                Jk = to_reference(Jk, Rk, p[..., k, :], "local")
            rows.append(Jk[..., :dim, :])
            if D is None or v is None:
                continue
            dk = D[..., k, :]
            a = _mtv(Rk, dk[..., :3]) if local else dk[..., :3]
            if dim == 3:  # the classical acceleration of the point
                drifts.append(a)
                continue
            # a surface: the spatial acceleration (the rate of the frame's twist)
            vel = np.einsum("...ij,...j->...i", Jk, v)
            a = a - _cross(vel[..., 3:], vel[..., :3])
            drifts.append(
                np.concatenate([a, _mtv(Rk, dk[..., 3:]) if local else dk[..., 3:]], axis=-1)
            )
        for (fa, fb, kind), B in zip(self.loops, self.loop_bases):
            # world axes: J_A − J_B, drift_A − drift_B
            ka, kb = self._index[fa], self._index[fb]
            d = LOOP_KINDS[kind]
            Jd = J[..., ka, :d, :] - J[..., kb, :d, :]
            Dd = None if D is None else D[..., ka, :d] - D[..., kb, :d]
            if B is None:
                rows.append(Jd)
                if Dd is not None:
                    drifts.append(Dd)
                continue
            # reduced: rows B R_Aᵀ (J_A − J_B); their rate adds −B R_Aᵀ (ω_A × (J_A − J_B) v)
            Ra = R[..., ka, :, :]
            blocks = range(0, d, 3)
            Jl = np.concatenate([_mtv(Ra, Jd[..., k : k + 3, :]) for k in blocks], axis=-2)
            rows.append(B @ Jl)
            if Dd is not None and v is not None:
                wa = np.einsum("...ij,...j->...i", J[..., ka, 3:, :], v)
                rel = np.einsum("...ij,...j->...i", Jd, v)
                loc = np.concatenate(
                    [
                        _mtv(Ra, Dd[..., k : k + 3] - _cross(wa, rel[..., k : k + 3]))
                        for k in blocks
                    ],
                    axis=-1,
                )
                drifts.append(np.einsum("ij,...j->...i", B, loc))
        Jc = np.concatenate(rows, axis=-2)
        drift = None if D is None else np.concatenate(drifts, axis=-1)
        return Jc, drift, R, p

    def jacobian(self, q: Any) -> np.ndarray:
        """The stacked contact Jacobian J_c (..., m, nv).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> feet = robot.lambdify({"g": 9.81}).contacts(["thigh_l", "shank_r"])
        >>> feet.jacobian(robot.neutral()).shape
        (6, 9)
        """
        qa = self.model._q(q)
        return self._rows(qa, None)[0]

    def drift(self, q: Any, v: Any) -> np.ndarray:
        """J̇_c v (..., m): the contact rows' acceleration at v̇ = 0."""
        qa, va = self.model._q(q), _real("v", v, self.nv)
        return self._rows(qa, va)[1]  # type: ignore[return-value]

    def position_error(self, q: Any, anchors: Any = None) -> np.ndarray:
        """Φ (..., m): each contact frame's placement error from its anchor, then each
        loop's (p_A − p_B and, for a weld, log(R_A R_Bᵀ), world axes; no anchor needed).

        ``anchors`` holds one entry per contact: a world position (3,) for a point
        contact, a placement (R (3, 3), p (3,)) or a 4 × 4 homogeneous matrix for a surface
        contact — or one array (..., k, 3) when every contact is a point. Point rows: p − p*
        (in the contact axes); surface rows: (p − p*, log(R R*ᵀ)) in world axes, or
        (Rᵀ(p − p*), log(R*ᵀ R)) in ``"local"``.
        """
        qa = self.model._q(q)
        R, p = self.frames.placement(qa)
        return self._phi(R, p, anchors)

    def loop_error(self, q: Any) -> np.ndarray:
        """The loops' position error Φ (..., 3 or 6 a loop): p_A − p_B (and log(R_A R_Bᵀ)
        for a weld), world axes, every component (a reduced loop's too).

        Examples
        --------
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed").closures()
        >>> float(abs(four_bar.loop_error([0.0, 0.0, 0.0])).max()) < 1e-12   # the file's pose
        True
        """
        qa = self.model._q(q)
        R, p = self.frames.placement(qa)
        return self._loop_phi(R, p)

    def _loop_phi(self, R: np.ndarray, p: np.ndarray, rows: bool = False) -> np.ndarray:
        """World Φ of every loop, or (``rows``) Φ along each loop's rows."""
        out = []
        for (fa, fb, kind), B in zip(self.loops, self.loop_bases):
            ka, kb = self._index[fa], self._index[fb]
            e = [p[..., ka, :] - p[..., kb, :]]
            if kind == "weld":
                e.append(_log3(R[..., ka, :, :] @ np.swapaxes(R[..., kb, :, :], -1, -2)))
            if rows and B is not None:
                Ra = R[..., ka, :, :]
                loc = np.concatenate([_mtv(Ra, x) for x in e], axis=-1)
                e = [np.einsum("ij,...j->...i", B, loc)]
            out += e
        if not out:
            return np.zeros((*p.shape[:-2], 0))
        return np.concatenate(out, axis=-1)

    def _phi(self, R: np.ndarray, p: np.ndarray, anchors: Any) -> np.ndarray:
        loops = self._loop_phi(R, p, rows=True)
        if not self.contacts:
            return loops
        if anchors is None:
            raise LagdynError(
                "the position error of ground contacts needs anchors= (where each contact "
                "frame should be); loops need none"
            )
        items = self._anchor_items(anchors)
        local = self.reference == "local"
        out = []
        for (name, dim), (Ra, pa) in zip(self.contacts, items):
            k = self._index[name]
            Rk, pk = R[..., k, :, :], p[..., k, :]
            e = pk - pa
            if local:
                e = _mtv(Rk, e)
            out.append(e)
            if dim == 6:
                if local:
                    out.append(_log3(np.swapaxes(Ra, -1, -2) @ Rk))
                else:
                    out.append(_log3(Rk @ np.swapaxes(Ra, -1, -2)))
        contacts = np.concatenate(out, axis=-1)
        if not self.loops:
            return contacts
        shape = np.broadcast_shapes(contacts.shape[:-1], loops.shape[:-1])
        return np.concatenate(
            [
                np.broadcast_to(contacts, (*shape, contacts.shape[-1])),
                np.broadcast_to(loops, (*shape, loops.shape[-1])),
            ],
            axis=-1,
        )

    def _anchor_items(self, anchors: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        k = len(self.contacts)
        if isinstance(anchors, np.ndarray) and anchors.ndim >= 2 and anchors.shape[-2:] == (k, 3):
            if any(d == 6 for _, d in self.contacts):
                raise LagdynError(
                    "anchors as one (..., k, 3) array hold positions only; a surface contact "
                    "needs a placement (R, p)"
                )
            return [(np.eye(3), anchors[..., i, :]) for i in range(k)]
        if not isinstance(anchors, Sequence) or len(anchors) != k:
            raise LagdynError(
                f"anchors must give one target per contact ({k}), got {anchors!r:.80}"
            )
        out = []
        for (name, dim), a in zip(self.contacts, anchors):
            if dim == 3:
                out.append((np.eye(3), _real(f"anchor of {name!r}", a, 3)))
                continue
            if isinstance(a, np.ndarray) and a.shape[-2:] == (4, 4):
                out.append((a[..., :3, :3], a[..., :3, 3]))
                continue
            try:
                Ra, pa = a
                Ra, pa = np.asarray(Ra, dtype=float), _real(f"anchor of {name!r}", pa, 3)
            except (TypeError, ValueError):
                raise LagdynError(
                    f"the anchor of the surface contact {name!r} must be (R, p) or a 4 × 4 matrix"
                ) from None
            if Ra.shape[-2:] != (3, 3):
                raise ShapeError(f"anchor rotation of {name!r} has shape {Ra.shape}")
            out.append((Ra, pa))
        return out

    # ------------------------------------------------------------------ dynamics
    def dynamics(
        self,
        q: Any,
        v: Any,
        tau: Any,
        *,
        method: str = "kkt",
        baumgarte: tuple[float, float] | None = None,
        anchors: Any = None,
        stiffness: float | None = None,
        tol: float = 1e-10,
        max_iter: int = 100,
        params: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        r"""The accelerations v̇ and the contact forces λ (the module docstring's KKT system).

        Parameters
        ----------
        q, v, tau : array_like (..., nq), (..., nv), (..., nv)
        method : {"kkt", "schur", "penalty", "augmented_lagrangian", "lstsq"}
            As :meth:`lagdyn.numeric.constrained.ConstrainedNumericModel.solve`; ``"lstsq"``
            solves the KKT system in the least-squares sense (minimum-norm λ), for
            redundant contacts (a rank-deficient J_c), which the others refuse by name.
        baumgarte : (alpha, beta), optional
            γ −= 2α J_c v + β² Φ; β > 0 needs ``anchors`` for ground contacts (see
            :meth:`position_error`); the loops' Φ comes from the placements.
        stiffness, tol, max_iter
            Of the penalty methods, as in ``ConstrainedNumericModel.solve``.
        params : mapping or array_like (..., n_free), optional
            The values of the model's free parameters for this call (its M and h read
            them; see :class:`~lagdyn.robot.floating.FloatingModel`).

        Returns
        -------
        (v̇ (..., nv), λ (..., m))

        Raises
        ------
        ConstraintError
            J_c rank-deficient at a state (redundant contacts; not with ``"lstsq"``),
            naming the state and the dependent rows.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81})
        >>> feet = num.contacts([("thigh_l", 6), ("shank_r", 3)])
        >>> q, v = robot.neutral(), np.zeros(9)
        >>> a, lam = feet.dynamics(q, v, np.zeros(9))
        >>> bool(np.allclose(feet.jacobian(q) @ a, 0))      # the feet do not move
        True
        >>> round(float(lam[2] + lam[8]), 6)                 # they carry the weight m g
        42.183
        """
        from ..numeric.constrained import _gains
        from ..numeric.model import check_option

        if method not in CONTACT_METHODS:
            raise LagdynError(f"method must be one of {', '.join(CONTACT_METHODS)}; got {method!r}")
        check_option("tol", tol)
        check_option("max_iter", max_iter, integer=True)
        if stiffness is not None:
            check_option("stiffness", stiffness)
        model = self.model
        qa = model._q(q)
        va = _real("v", v, self.nv)
        ta = _real("tau", tau, self.nv)
        if self.fused and method == "kkt" and baumgarte is None:
            return self._fused_dynamics(qa, va, ta)
        kw = {} if params is None else {"params": params}
        M = model.M(qa, **kw)
        h = model.nonlinear_effects(qa, va, **kw)
        Jc, drift, R, p = self._rows(qa, va)
        assert drift is not None
        gamma = -drift
        if baumgarte is not None:
            alpha, beta = _gains(baumgarte)
            if alpha:
                gamma = gamma - 2 * alpha * np.einsum("...ij,...j->...i", Jc, va)
            if beta:
                if anchors is None and self.contacts:
                    raise LagdynError(
                        "baumgarte with beta > 0 needs anchors= (where each contact frame "
                        "should be) for the position error Φ (loops need none)"
                    )
                gamma = gamma - beta**2 * self._phi(R, p, anchors)
        shape = np.broadcast_shapes(M.shape[:-2], Jc.shape[:-2], ta.shape[:-1], h.shape[:-1])
        n, m = self.nv, self.m
        M = np.broadcast_to(M, (*shape, n, n))
        Jc = np.broadcast_to(Jc, (*shape, m, n))
        f = np.broadcast_to(ta - h, (*shape, n))
        gamma = np.broadcast_to(gamma, (*shape, m))
        if method != "lstsq":
            _check_rank(Jc, self, qa)
        return _solve(M, Jc, f, gamma, method, stiffness, tol, max_iter)

    def _fused_dynamics(
        self, q: np.ndarray, v: np.ndarray, tau: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The KKT solve in one generated kernel; states whose result is not finite (a
        zero pivot: redundant contacts, or a non-finite input) go through the numpy path,
        which names the redundant rows."""
        if self._fused is None:
            self._fused = FrameKernels(
                self.model, [], contacts=self.contacts, reference=self.reference
            )
        n, m = self.nv, self.m
        # the multipliers' pivots relative to their diagonal before the other multipliers
        # were eliminated: a collapse is a (nearly) dependent row, as _check_rank's test
        out = self._fused._run("contact_dynamics", q, v, tau)
        flat = out.reshape(-1, out.shape[-1])
        # column by column: numpy's reductions over a short last axis cost ~0.1 µs a state
        worst = flat[:, n + m]
        for k in range(n + m + 1, n + 2 * m):
            worst = np.minimum(worst, flat[:, k])
        finite = np.isfinite(flat @ np.ones(flat.shape[-1]))  # NaN or ±inf anywhere
        bad = ~((worst > 1e-12) & finite).reshape(out.shape[:-1])
        out = out[..., : n + m]
        if bad.any():
            shape = out.shape[:-1]
            qb = np.broadcast_to(q, (*shape, self.model.nq))[bad]
            vb = np.broadcast_to(v, (*shape, self.nv))[bad]
            tb = np.broadcast_to(tau, (*shape, self.nv))[bad]
            fused, self.fused = self.fused, False
            try:
                a, lam = self.dynamics(qb, vb, tb)
            finally:
                self.fused = fused
            out[bad] = np.concatenate([a, lam], axis=-1)
        return out[..., : self.nv], out[..., self.nv :]

    def impulse(
        self,
        q: Any,
        v_minus: Any,
        *,
        restitution: float = 0.0,
        method: str = "kkt",
        params: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        r"""The velocity after an impact on the contacts and the impulse Λ.

        ``[[M, −J_cᵀ], [J_c, 0]] [v⁺; Λ] = [M v⁻; −e J_c v⁻]`` (``pin.impulseDynamics``):
        the contacts' velocity after the impact is −e times theirs before (e the
        ``restitution``, 0: they stop), M(v⁺ − v⁻) = J_cᵀ Λ. ``params``: the values of the
        model's free parameters (M reads them).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> feet = robot.lambdify({"g": 9.81}).contacts([("thigh_l", 6), ("shank_r", 3)])
        >>> q, v = robot.neutral(), np.zeros(9)
        >>> v[2] = -1.0                                     # falling at 1 m/s
        >>> vp, imp = feet.impulse(q, v)
        >>> bool(np.allclose(vp, 0)), round(float(imp[2] + imp[8]), 6)   # stopped: m · 1 m/s
        (True, 4.3)
        """
        if method not in ("kkt", "schur", "lstsq"):
            raise LagdynError(f"method must be 'kkt', 'schur' or 'lstsq'; got {method!r}")
        e = float(restitution)
        if not (0.0 <= e <= 1.0):
            raise LagdynError(f"restitution must be in [0, 1], got {restitution!r}")
        model = self.model
        qa = model._q(q)
        va = _real("v_minus", v_minus, self.nv)
        M = model.M(qa, **({} if params is None else {"params": params}))
        Jc = self._rows(qa, None)[0]
        n, m = self.nv, self.m
        shape = np.broadcast_shapes(M.shape[:-2], Jc.shape[:-2], va.shape[:-1])
        M = np.broadcast_to(M, (*shape, n, n))
        Jc = np.broadcast_to(Jc, (*shape, m, n))
        vb = np.broadcast_to(va, (*shape, n))
        f = np.einsum("...ij,...j->...i", M, vb)
        gamma = -e * np.einsum("...ij,...j->...i", Jc, vb)
        if method != "lstsq":
            _check_rank(Jc, self, qa)
        return _solve(M, Jc, f, gamma, method, None, 0.0, 0)

    def statics(self, q: Any, *, params: Any = None) -> tuple[np.ndarray, np.ndarray]:
        r"""Joint torques and contact forces that hold the robot still (v = 0, v̇ = 0).

        The static problem g(q) = Sᵀτ + J_cᵀλ with no wrench on the base (τ's first six
        entries 0): the six base rows J_bᵀλ = g_b fix λ up to the internal forces between
        the contacts (λ is their minimum-norm solution), then τ_j = g_j − J_jᵀλ. The base
        rows are Newton–Euler for the whole robot, so in ``"local_world_aligned"`` the
        point-contact forces sum to −m·gravity. Returns ``(tau (..., nv), λ (..., m))``;
        :meth:`dynamics` at (q, 0, τ) gives v̇ = 0 and this λ when J_c has full rank.
        ``params``: the values of the model's free parameters (g reads them).

        Raises
        ------
        ConstraintError
            The contacts cannot hold the base (J_bᵀ λ = g_b has no solution: e.g. one
            point contact away from the vertical through the centre of mass).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> feet = robot.lambdify({"g": 9.81}).contacts([("thigh_l", 6), ("shank_r", 3)])
        >>> tau, lam = feet.statics(robot.neutral())
        >>> round(float(lam[2] + lam[8]), 9)           # m g = 4.3 · 9.81
        42.183
        """
        model = self.model
        qa = model._q(q)
        kw = {} if params is None else {"params": params}
        if "g" in model._kernels.kernel_names:
            g = model.g(qa, **kw)
        else:  # h at v = 0 is g
            g = model.nonlinear_effects(qa, np.zeros(self.nv), **kw)
        Jc = self._rows(qa, None)[0]
        Jb = Jc[..., :, :6]
        lam = np.einsum("...ij,...j->...i", np.linalg.pinv(np.swapaxes(Jb, -1, -2)), g[..., :6])
        resid = np.einsum("...ji,...j->...i", Jb, lam) - g[..., :6]
        worst = float(np.max(np.abs(resid), initial=0.0))
        if not worst <= 1e-9 * (1.0 + float(np.max(np.abs(g[..., :6]), initial=0.0))):
            raise ConstraintError(
                f"these contacts cannot hold the base still (the base rows J_bᵀλ = g_b have "
                f"no solution, residual {worst:.3g}): e.g. too few contacts, or none under "
                "the centre of mass"
            )
        tau = g - np.einsum("...ji,...j->...i", Jc, lam)
        tau[..., :6] = 0.0
        return tau, lam

    def forces(self, lam: Any) -> dict[str, np.ndarray]:
        """λ split by contact: ``{frame: (..., 3) or (..., 6)}``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> feet = robot.lambdify({"g": 9.81}).contacts(["thigh_l", "shank_r"])
        >>> sorted(feet.forces(np.zeros(6)))
        ['shank_r', 'thigh_l']
        """
        lam = _real("lam", lam, self.m)
        out, k = {}, 0
        for name, dim in self.contacts:
            out[name] = lam[..., k : k + dim]
            k += dim
        for loop in self.loops:  # the force on frame A's body (−λ on B's), world axes
            dim = LOOP_KINDS[loop[2]]
            out[loop_name(loop)] = lam[..., k : k + dim]
            k += dim
        return out

    # ------------------------------------------------------------------ friction
    def step(self, q: Any, v: Any, tau: Any, dt: float, *, mu: Any, **options: Any) -> Any:
        """One time step with frictional, unilateral point contacts on a level ground:
        :func:`lagdyn.robot.friction.step` (``ground``, ``margin``, ``correction``,
        ``compliance``, ``tol``, ``max_iter``, ``lam0``, ``on_failure``, ``params``).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.friction import EXAMPLE_BOX
        >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
        >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(["c1", "c2"])
        >>> feet.step(box.neutral(), np.zeros(7), np.zeros(7), 0.01, mu=0.5).active.tolist()
        [True, True]
        """
        from .friction import step

        return step(self, q, v, tau, dt, mu=mu, **options)

    def rollout(
        self, q0: Any, v0: Any, tau: Any, dt: float, steps: int, *, mu: Any, **options: Any
    ) -> Any:
        """``steps`` frictional time steps: :func:`lagdyn.robot.friction.rollout` (``tau``
        held or a law ``tau(t, q, v)``).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.friction import EXAMPLE_BOX
        >>> box = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
        >>> feet = box.lambdify({"g": 9.81}, kernels=["M", "bias"]).contacts(["c1", "c2"])
        >>> feet.rollout(box.neutral(), np.zeros(7), np.zeros(7), 0.01, 3, mu=0.5).q.shape
        (4, 8)
        """
        from .friction import rollout

        return rollout(self, q0, v0, tau, dt, steps, mu=mu, **options)

    # ------------------------------------------------------------------ loops
    def redundant_rows(self, q: Any) -> tuple[str, ...]:
        """The names of the rows of J_c (:attr:`row_names`) that depend on the rows before
        them at one configuration q (Gram–Schmidt in row order, relative 1e-8): empty when
        the rows are independent; with them, :meth:`dynamics` needs ``method="lstsq"``.

        Examples
        --------
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed").closures(reduce=False)
        >>> four_bar.redundant_rows([0.1, 0.2, 0.3])   # planar: the z row is zero
        ('crank_rod__on_parent~crank_rod__on_child[z]',)
        """
        from ..numeric.constrained import _dependent_rows

        qa = self.model._q(q)
        if qa.ndim != 1:
            raise ShapeError(f"redundant_rows takes one configuration (nq,), got {qa.shape}")
        rows, part = _dependent_rows(self._rows(qa, None)[0])
        if part > 0:  # none below 1e-8: the row named is only the closest to dependent
            return ()
        return tuple(self.row_names[r] for r in rows)

    def loop_forces(self, q: Any, lam: Any) -> dict[str, np.ndarray]:
        """Each loop's force (and torque, for a weld) on frame A's body, world axes, from λ
        (..., m) of :meth:`dynamics`: a reduced loop's rows, along directions of frame A,
        are turned back into world axes (R_A Bᵀ λ_k; B's dropped directions carry none).

        Examples
        --------
        >>> import numpy as np
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed").closures()
        >>> q = np.zeros(3)
        >>> a, lam = four_bar.dynamics(q, np.zeros(3), np.zeros(3))
        >>> f = four_bar.loop_forces(q, lam)['crank_rod__on_parent~crank_rod__on_child']
        >>> f.shape, float(f[2])                           # planar: no force along z
        ((3,), 0.0)
        """
        qa = self.model._q(q)
        lam = _real("lam", lam, self.m)
        R, _ = self.frames.placement(qa)
        out, k = {}, self.m_contacts
        for (fa, _fb, kind), B in zip(self.loops, self.loop_bases):
            d = LOOP_KINDS[kind]
            if B is None:
                out[loop_name((fa, _fb, kind))] = lam[..., k : k + d]
                k += d
                continue
            r = B.shape[0]
            loc = np.einsum("ji,...j->...i", B, lam[..., k : k + r])
            Ra = R[..., self._index[fa], :, :]
            world = [np.einsum("...ij,...j->...i", Ra, loc[..., i : i + 3]) for i in range(0, d, 3)]
            out[loop_name((fa, _fb, kind))] = np.concatenate(world, axis=-1)
            k += r
        return out

    def project(
        self, q: Any, *, tol: float = 1e-12, max_iter: int = 50
    ) -> tuple[np.ndarray, float]:
        r"""A configuration on the loops (Φ_loops = 0) near ``q``, and its residual max |Φ|.

        Newton steps on the manifold, q ← q ⊕ δ with δ = −J⁺Φ (J the loop rows, J⁺ its
        pseudo-inverse: the least change, redundant rows allowed; ⊕ the model's
        ``integrate``, so a floating base's quaternion stays of unit norm), until
        max |Φ| ≤ ``tol`` along the rows. The residual returned is max |Φ| over every
        world component: a reduced loop's dropped directions are constant, not moved (on
        Cassie's right plantar loop 1e-11 m, the file's rounding). Ground contacts are not
        projected (they have no anchors here).

        Raises
        ------
        ConstraintError
            The steps did not bring max |Φ| along the rows below ``tol`` (a loop that
            cannot close from here), with the residual reached.

        Examples
        --------
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed").closures()
        >>> q, resid = four_bar.project([0.3, 0.0, 0.0])    # crank turned: the others follow
        >>> resid < 1e-12, round(float(q[0]), 3) != 0.3 or abs(q[1]) > 0
        (True, True)
        """
        from ..numeric.model import check_option

        check_option("tol", tol)
        check_option("max_iter", max_iter, integer=True)
        if not self.loops:
            raise LagdynError("project moves a configuration onto loops; these rows have none")
        qa = np.array(self.model._q(q), dtype=np.float64)
        step = getattr(self.model, "integrate", None)
        resid = np.inf
        k0 = self.m_contacts
        for _ in range(max_iter + 1):
            R, p = self.frames.placement(qa)
            phi = self._loop_phi(R, p, rows=True)  # along the rows the dynamics hold
            resid = float(np.max(np.abs(phi), initial=0.0))
            if not np.isfinite(resid):
                break
            if resid <= tol:
                return qa, float(np.max(np.abs(self._loop_phi(R, p)), initial=0.0))
            J = self._rows(qa, None)[0][..., k0:, :]
            delta = -np.einsum("...ij,...j->...i", np.linalg.pinv(J, rcond=1e-10), phi)
            qa = step(qa, delta) if step is not None else qa + delta
        raise ConstraintError(
            f"the loops did not close from this configuration: max |Φ| = {resid:.3g} after "
            f"{max_iter} Newton steps (tol {tol:g}); a loop that cannot close, or a start "
            "too far from the loop manifold"
        )


def closures(
    model: Any,
    loops: Any,
    contacts: Any = (),
    *,
    reduce: bool = True,
    reference: str = "local_world_aligned",
) -> Contacts:
    """Loops (frame pairs held together) and, beside them, ground contacts, on a numeric
    model: a :class:`Contacts` whose rows are the contacts' then the loops'.

    Parameters
    ----------
    model : FloatingModel or FrameModel-like
        ``robot.lambdify(...)`` of a floating-base robot (its ``M`` and ``bias`` kernels
        are used), or :func:`fixed_model` of a fixed-base ``RobotSystem``.
    loops : sequence of (frame_a, frame_b) or (frame_a, frame_b, "point" | "weld")
    contacts : sequence of (str, int), optional
        Ground contacts, as :meth:`FloatingModel.contacts` (a standing Cassie: feet and
        loops).
    reduce : bool
        Look for loops whose rows are dependent at every closed configuration tried (the
        neutral one and two random ones, projected): a planar linkage closed by a ball
        joint. Their independent directions are kept, fixed in frame A's axes (rows
        B R_Aᵀ(J_A − J_B), named ``"a~b[a.x]"``); see :attr:`Contacts.loop_bases`.
    reference : {"local_world_aligned", "local"}
        Of the ground contacts' rows (the loops' are in world axes).

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.contacts import closures
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
    >>> sdf = from_sdf(EXAMPLE_SDF, base="floating")
    >>> num = sdf.tree.lambdify({"g": 9.81}, kernels=["M", "bias"])
    >>> rig = closures(num, sdf.loops, [("ground", 6)])    # the ground link bolted down
    >>> rig
    Contacts({'ground': 6}, loops=1, m=8, reference='local_world_aligned')
    >>> rig.row_names[-1]                    # the planar loop's z row was found and dropped
    'crank_rod__on_parent~crank_rod__on_child[crank_rod__on_parent.y]'
    >>> q, v = sdf.tree.neutral(), np.zeros(sdf.tree.nv)
    >>> a, lam = rig.dynamics(q, v, np.zeros(sdf.tree.nv))
    >>> bool(abs(rig.jacobian(q) @ a - (-rig.drift(q, v))).max() < 1e-9)
    True
    """
    return Contacts(model, contacts, loops=loops, reduce=reduce, reference=reference)


def fixed_model(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    backend: str = "numpy",
    **options: Any,
) -> Any:
    """A fixed-base robot's numerics for :func:`closures`: :class:`FrameModel` with ``M``,
    ``nonlinear_effects`` (C q̇ + g) and ``integrate`` (q + v dt).

    Examples
    --------
    >>> from lagdyn.robot.contacts import fixed_model
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
    >>> fm = fixed_model(from_sdf(EXAMPLE_SDF, base="fixed").tree)
    >>> fm.M([0.0, 0.0, 0.0]).shape
    (3, 3)
    """
    return _FixedDynamics(system, params, backend=backend, **options)


def _solve(
    M: np.ndarray,
    J: np.ndarray,
    f: np.ndarray,
    gamma: np.ndarray,
    method: str,
    stiffness: float | None,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray]:
    if method in ("kkt", "lstsq"):
        a, lam = kkt_solve(M, J, f, gamma, lstsq=method == "lstsq")
        worst = inconsistency(J, a, gamma) if method == "lstsq" else None
        if worst is not None:
            raise ConstraintError(
                f"inconsistent contacts: J_c v̇ = γ has no solution (residual {worst:.3g}): "
                "the redundant rows demand different accelerations"
            )
        return a, lam
    if method == "schur":
        return schur_solve(M, J, f, gamma)
    return penalty_solve(M, J, f, gamma, method, stiffness, tol, max_iter)


def _check_rank(J: np.ndarray, contacts: Contacts, q: np.ndarray) -> None:
    """Redundant contacts (J_c rank-deficient at a state): a ConstraintError naming the
    state, the dependent rows and their contacts."""
    from ..numeric.constrained import _dependent_rows, _state_text

    m, n = J.shape[-2:]
    flat = J.reshape(-1, m, n)
    gram = flat @ np.swapaxes(flat, -1, -2)
    diag = np.prod(np.diagonal(gram, axis1=-2, axis2=-1), axis=-1)
    ratio = np.linalg.det(gram) / np.maximum(diag, np.finfo(float).tiny)
    finite = np.isfinite(flat).all(axis=(-2, -1))
    bad = np.nonzero(~(ratio > 1e-16) & finite)[0]
    if bad.size == 0:
        return
    index = int(bad[0])
    rows, _ = _dependent_rows(flat[index])
    owner = contacts.row_names
    named = ", ".join(f"{r} ({owner[r]})" for r in rows)
    qs = np.broadcast_to(q, (*J.shape[:-2], q.shape[-1])) if J.ndim > 2 else q
    raise ConstraintError(
        f"redundant contacts {_state_text(J.shape[:-2], index, qs)}: row"
        f"{'s' if len(rows) > 1 else ''} {named} of J_c depend on the others (J_c has rank "
        f"< {m}); use method='lstsq' for the minimum-norm contact forces "
        "(Contacts.redundant_rows lists the dependent rows)"
    )


class _FixedRobot:
    """What :class:`FrameKernels` reads of a robot, for a fixed-base :class:`RobotSystem`."""

    fixed = True
    friction = False

    def __init__(self, system: Any) -> None:
        from ..recursive.floating import FloatingChain

        self.system = system
        self.frames = dict(getattr(system, "frames", {}) or {})
        self.nq = self.nv = int(system.n)
        self.base = FloatingChain(system.chain)

    def frame(self, name: str) -> Any:
        hit = self.frames.get(name) if isinstance(name, str) else None
        if hit is None:
            raise unknown_frame(name, list(self.frames))
        return hit


def _frame_placement_of(model: Any, q: Any, frame: str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) of ``frame`` for a model with ``_frame`` and ``_q`` (the one implementation of
    ``frame_placement`` behind :class:`FrameModel` and ``FloatingModel``)."""
    fk, k = model._frame(frame)
    R, p = fk.placement(model._q(q))
    return R[..., k, :, :], p[..., k, :]


def _frame_jacobian_of(model: Any, q: Any, frame: str, reference: str) -> np.ndarray:
    """The frame Jacobian (..., 6, nv) in ``reference`` (behind ``frame_jacobian``)."""
    _check_reference(reference)
    fk, k = model._frame(frame)
    qa = model._q(q)
    J = fk.jacobian(qa)[..., k, :, :]
    if reference == "local_world_aligned":
        return J
    R, p = fk.placement(qa)
    return to_reference(J, R[..., k, :, :], p[..., k, :], reference)


def _frame_velocity_of(model: Any, q: Any, v: Any, frame: str, reference: str) -> np.ndarray:
    """J v (..., 6) in ``reference`` (behind ``frame_velocity``)."""
    J = _frame_jacobian_of(model, q, frame, reference)
    return np.einsum("...ij,...j->...i", J, _real("v", v, model.nv))


def _frame_drift_of(model: Any, q: Any, v: Any, frame: str, reference: str) -> np.ndarray:
    """The classical acceleration at zero joint acceleration (..., 6) in ``reference``
    (behind ``frame_drift``)."""
    _check_reference(reference)
    fk, k = model._frame(frame)
    qa, va = model._q(q), _real("v", v, model.nv)
    D = fk.drift(qa, va)[..., k, :]
    if reference == "local_world_aligned":
        return D
    R, p = fk.placement(qa)
    vel = np.einsum("...ij,...j->...i", fk.jacobian(qa)[..., k, :, :], va)
    return classical_in(D, vel, R[..., k, :, :], p[..., k, :], reference)


class FrameModel:
    """Generated frame kinematics of a fixed-base robot (a URDF arm): placements, Jacobians
    (6 × n), velocities and drifts of every frame of ``system.frames``, as the methods of
    the same names of :class:`~lagdyn.robot.floating.FloatingModel`.

    Parameters
    ----------
    system : RobotSystem
        From :func:`lagdyn.robot.from_urdf` (fixed base): its ``frames`` (links, the links
        welded by fixed joints, joints; body −1 is the world).
    params : mapping, optional
        Parameter values; default ``system.defaults`` (every parameter needs one).
    backend : {"numpy", "c", "numba", "jax"}
    **options
        ``cache``, ``cache_dir`` and the backend's options.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.contacts import FrameModel
    >>> xml = '''<robot name="arm"><link name="base"/>
    ...   <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    ...     <axis xyz="0 0 1"/></joint>
    ...   <link name="l1"><inertial><mass value="1"/>
    ...     <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    ...   <joint name="tip_joint" type="fixed"><parent link="l1"/><child link="tip"/>
    ...     <origin xyz="0.5 0 0"/></joint><link name="tip"/></robot>'''
    >>> arm = ld.robot.from_urdf(xml, parameters="numeric")
    >>> fm = FrameModel(arm)
    >>> R, p = fm.frame_placement([np.pi / 2], "tip")
    >>> np.round(p, 12) + 0.0
    array([0. , 0.5, 0. ])
    >>> np.round(fm.frame_jacobian([np.pi / 2], "tip")[:, 0], 12) + 0.0   # ṗ = ω × r
    array([-0.5,  0. ,  0. ,  0. ,  0. ,  1. ])
    """

    def __init__(
        self,
        system: Any,
        params: Mapping[Any, float] | None = None,
        *,
        backend: str = "numpy",
        cache: bool = True,
        cache_dir: Any = None,
        **options: Any,
    ) -> None:
        from ..numeric import backends

        self.robot = _FixedRobot(system)
        if not self.robot.frames:
            raise LagdynError(
                "this robot has no named frames (robot.frames is empty): build it with "
                "ld.robot.from_urdf"
            )
        values: dict[Any, float] = dict(getattr(system, "defaults", {}) or {})
        if params is not None:
            given = {str(k) for k in params}
            values = {k: v for k, v in values.items() if str(k) not in given}
            values.update(params)
        self.values = values
        self.backend = backends.get(backend).name
        self.build_options = dict(options, cache=cache, cache_dir=cache_dir)
        self.nq = self.nv = self.robot.nv
        self._all: FrameKernels | None = None

    def _q(self, q: Any) -> np.ndarray:
        return _real("q", q, self.nq)

    def _frame(self, frame: str) -> tuple[FrameKernels, int]:
        self.robot.frame(frame)
        if self._all is None:
            self._all = FrameKernels(self, list(self.robot.frames))
        return self._all, self._all.index[frame]

    @property
    def frame_names(self) -> tuple[str, ...]:
        """The frames' names."""
        return tuple(self.robot.frames)

    def frame_placement(self, q: Any, frame: str) -> tuple[np.ndarray, np.ndarray]:
        """(R (..., 3, 3), p (..., 3)) of the frame in the world."""
        return _frame_placement_of(self, q, frame)

    def frame_jacobian(
        self, q: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """The frame Jacobian (..., 6, n), rows linear then angular, in ``reference``."""
        return _frame_jacobian_of(self, q, frame, reference)

    def frame_velocity(
        self, q: Any, v: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """J v (..., 6) in ``reference``."""
        return _frame_velocity_of(self, q, v, frame, reference)

    def frame_drift(
        self, q: Any, v: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """The classical acceleration at q̈ = 0 (..., 6): J̇ q̇, in ``reference``."""
        return _frame_drift_of(self, q, v, frame, reference)


class _FixedDynamics(FrameModel):
    """:class:`FrameModel` with the dynamics :class:`Contacts` reads (``M``, ``bias``)."""

    def __init__(
        self,
        system: Any,
        params: Mapping[Any, float] | None = None,
        *,
        backend: str = "numpy",
        cache: bool = True,
        cache_dir: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(
            system, params, backend=backend, cache=cache, cache_dir=cache_dir, **options
        )
        self.numeric = system.lambdify(
            self.values, backend=backend, cache=cache, cache_dir=cache_dir, **options
        )

    def M(self, q: Any, *, params: Any = None) -> np.ndarray:
        """M(q) (..., n, n)."""
        return np.asarray(self.numeric.M(self._q(q), params=params))

    def nonlinear_effects(self, q: Any, v: Any, *, params: Any = None) -> np.ndarray:
        """C(q, q̇) q̇ + g(q) (..., n)."""
        return np.asarray(self.numeric.bias(self._q(q), _real("v", v, self.nv), params=params))

    def integrate(self, q: Any, v: Any, dt: float = 1.0) -> np.ndarray:
        """q + v dt."""
        return self._q(q) + _real("v", v, self.nv) * float(dt)

r"""Floating-base robots (quadrupeds, humanoids): the model, its numerics, and q ⊕ v.

``ld.robot.from_urdf(path, base="floating")`` returns a :class:`FloatingRobot`: the base
body and the tree of joints (:class:`~lagdyn.recursive.floating.FloatingChain`), in
Pinocchio's ``JointModelFreeFlyer`` conventions — q = (base position, quaternion x y z w,
joints), ``nq = 7 + n``; v = (base linear and angular velocity in the base frame, joint
rates), ``nv = 6 + n``; τ of size ``nv``, its first six entries a wrench (force, torque) on
the base in the base frame. :meth:`FloatingRobot.lambdify` generates M, C, g, the nonlinear
effects h = C v + g, inverse and forward dynamics on any backend (numpy, C, numba, jax)
through :func:`lagdyn.recursive.floating.floating_program`; :func:`integrate` and
:func:`difference` are Pinocchio's ``integrate`` / ``difference`` on this configuration
space (SE(3) exponential in the base frame for the base, sums for the joints).

Quaternions: the dynamics use the rotation of q/|q| (a quaternion that is not of unit norm
is normalized, not rejected); a quaternion of zero norm, or with a non-finite entry, is a
:class:`~lagdyn.LagdynError` in every function here. :func:`integrate` returns a unit
quaternion.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.robot.floating import EXAMPLE_URDF
>>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
>>> robot.nq, robot.nv
(10, 9)
>>> num = robot.lambdify({"g": 9.81}, kernels=["forward_dynamics"])
>>> q = robot.neutral()
>>> a = num.forward_dynamics(q, np.zeros(9), np.zeros(9))   # free fall
>>> np.round(a[:3], 6) + 0.0
array([ 0.  ,  0.  , -9.81])
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..codegen.cache import DiskCache
from ..errors import LagdynError, ShapeError, UnboundParameterError
from ..recursive.chain import Chain
from ..recursive.floating import (
    FLOATING_KERNELS,
    FloatingChain,
    floating_key,
    floating_program,
)
from ..recursive.floating import program as floating_program_of
from ..recursive.kinematics import Frame, check_frames
from .contacts import _real

__all__ = [
    "EXAMPLE_URDF",
    "FloatingModel",
    "FloatingRobot",
    "difference",
    "integrate",
]

#: A small floating-base URDF (a trunk and two legs: one revolute knee, one revolute and
#: one prismatic joint) for examples and documentation.
EXAMPLE_URDF = """<robot name="biped_toy">
  <link name="trunk"><inertial><origin xyz="0.01 0.02 0.05"/><mass value="3"/>
    <inertia ixx="0.05" ixy="0.001" ixz="0" iyy="0.04" iyz="0.002" izz="0.03"/></inertial></link>
  <joint name="hip_l" type="revolute"><parent link="trunk"/><child link="thigh_l"/>
    <origin xyz="0 0.1 -0.05" rpy="0.1 0 0"/><axis xyz="0 1 0"/></joint>
  <link name="thigh_l"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
    <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.001"/></inertial></link>
  <joint name="hip_r" type="revolute"><parent link="trunk"/><child link="thigh_r"/>
    <origin xyz="0 -0.1 -0.05"/><axis xyz="1 0 0"/></joint>
  <link name="thigh_r"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
    <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.001"/></inertial></link>
  <joint name="knee_r" type="prismatic"><parent link="thigh_r"/><child link="shank_r"/>
    <origin xyz="0 0 -0.2"/><axis xyz="0 0 1"/></joint>
  <link name="shank_r"><inertial><origin xyz="0 0 -0.1"/><mass value="0.3"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.0005"/></inertial></link>
</robot>"""

_QUAT = slice(3, 7)


class FloatingRobot:
    """A floating-base tree: the base body, its joints, parameters and defaults.

    Not a :class:`~lagdyn.LagrangianSystem`: the configuration holds a unit quaternion
    and the velocities are not its derivative, so there is no Lagrangian in q, q̇; the
    equations :math:`M(q)\\dot v + C(q, v) v + g(q) = \\tau` come from the recursive
    programs (:meth:`program`, :meth:`lambdify`).

    Parameters
    ----------
    base : FloatingChain
    defaults : mapping, optional
        Default values of the symbolic parameters.
    friction : bool
        Joint friction (the links' viscous and Coulomb coefficients) in the bias, inverse
        and forward dynamics.
    name : str

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
    >>> robot
    FloatingRobot('biped_toy': base 'trunk', 3 joints, nq = 10, nv = 9)
    """

    def __init__(
        self,
        base: FloatingChain,
        *,
        defaults: Mapping[Any, float] | None = None,
        friction: bool = False,
        name: str = "",
        frames: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(base, FloatingChain):
            raise LagdynError(f"a FloatingRobot needs a FloatingChain, got {type(base).__name__}")
        self.base = base
        self.defaults: dict[sp.Symbol, float] = dict(defaults or {})
        self.defaults.update(
            {k: v for k, v in base.chain.defaults.items() if k not in self.defaults}
        )
        self.friction = bool(friction)
        self.name = name
        self.frames: dict[str, Frame] = {base.name: Frame(base.name, -1)}
        for key, value in (frames or {}).items():
            self.frames[key] = _as_frame(key, value)
        check_frames(base, list(self.frames.values()))

    def __repr__(self) -> str:
        return (
            f"FloatingRobot({self.name!r}: base {self.base.name!r}, {self.n} joints, "
            f"nq = {self.nq}, nv = {self.nv})"
        )

    @property
    def chain(self) -> Chain:
        """The joints (links with parent −1 hang from the base body)."""
        return self.base.chain

    @property
    def n(self) -> int:
        """The number of joints (without the base)."""
        return self.base.n

    @property
    def nq(self) -> int:
        """Entries of q: 7 + joints."""
        return self.base.nq

    @property
    def nv(self) -> int:
        """Entries of v, v̇ and τ: 6 + joints."""
        return self.base.nv

    @property
    def joint_names(self) -> tuple[str, ...]:
        """The joints' names in coordinate order (Pinocchio's, after the free flyer)."""
        return tuple(self.chain.joint_names)

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """Every symbolic parameter (base, links, gravity), sorted by name."""
        return self.base.parameters

    def is_skew_symmetric(self) -> bool | None:
        r"""Is :math:`\dot M - 2C` skew-symmetric in v? Decided exactly on the programs.

        The CRBA and Coriolis programs are expanded on the torus of the joint angles (no
        closed form is built): ``True`` and ``False`` are proofs, ``None`` means exact
        arithmetic does not apply (see :func:`lagdyn.recursive.floating.decide_skew`).
        With symbolic parameters it holds for every value of them.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> ld.robot.from_urdf(EXAMPLE_URDF, base="floating").is_skew_symmetric()
        True
        """
        from ..recursive.floating import decide_skew

        return decide_skew(self.base)

    def is_mass_matrix_pose_independent(self) -> bool:
        """Does M (its base block included) read the joint values only, never the base pose?

        Decided on the CRBA program: ``True`` when no statement of it reads the base
        position or quaternion, which proves that M — and so its 6 × 6 base block, the
        composite inertia of the robot in base axes — is the same at every base pose.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> ld.robot.from_urdf(EXAMPLE_URDF, base="floating").is_mass_matrix_pose_independent()
        True
        """
        from ..recursive.floating import program

        prog = program(self.base, "M")
        pose = set(prog.inputs["q"][:7])
        exprs = [e for _, e in prog.body] + list(prog.outputs)
        return not any(e.free_symbols & pose for e in exprs)

    @property
    def frame_names(self) -> tuple[str, ...]:
        """The names of the frames (the URDF's links and joints, the base).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> ld.robot.from_urdf(EXAMPLE_URDF, base="floating").frame_names[:3]
        ('trunk', 'thigh_l', 'thigh_r')
        """
        return tuple(self.frames)

    def frame(self, name: str) -> Frame:
        """The frame called ``name`` (a :class:`~lagdyn.recursive.kinematics.Frame`: its
        body, −1 for the base, and its placement there).

        Raises
        ------
        LagdynError
            No such frame (the closest names are listed).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
        >>> robot.frame("shank_r").body
        2
        """
        hit = self.frames.get(name) if isinstance(name, str) else None
        if hit is None:
            from .contacts import unknown_frame

            raise unknown_frame(name, list(self.frames))
        return hit

    def neutral(self) -> np.ndarray:
        """The neutral configuration: base at the origin, identity quaternion, joints 0.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> ld.robot.from_urdf(EXAMPLE_URDF, base="floating").neutral()[:7]
        array([0., 0., 0., 0., 0., 0., 1.])
        """
        q = np.zeros(self.nq)
        q[6] = 1.0
        return q

    def program(self, name: str, *, forward: str = "aba") -> Any:
        """One symbolic program (``"M"``, ``"C"``, ``"g"``, ``"bias"``,
        ``"inverse_dynamics"``, ``"forward_dynamics"``): :func:`lagdyn.recursive.floating.program`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
        >>> robot.program("C").shape
        (9, 9)
        """
        return floating_program_of(self.base, name, forward=forward)

    def lambdify(
        self,
        params: Mapping[Any, float] | None = None,
        *,
        backend: str = "numpy",
        forward: str = "aba",
        kernels: Sequence[str] | None = None,
        cse: bool = False,
        cache: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        free: Sequence[Any] | str | None = None,
        **options: Any,
    ) -> FloatingModel:
        """Generated numerics of M, C, g, h, inverse and forward dynamics.

        Parameters
        ----------
        params : mapping, optional
            Values of the parameters (symbols or names); default :attr:`defaults`. Every
            parameter not in ``free`` must have one (they are folded into the code).
        free : sequence of sympy.Symbol or str, or "all", optional
            Parameters left free (their defaults are not bound): every method of the model
            then takes their values per call, ``params=`` (a mapping of names to numbers
            or arrays that broadcast against the states' batch axes, or an array
            ``(..., n_free)`` ordered as :attr:`FloatingModel.free_parameters`), parsed and
            checked by :class:`lagdyn.codegen.Binding` as for fixed-base models (a
            ``positive`` mass given 0 is refused by name). ``"all"``: every parameter.
        backend : {"numpy", "c", "numba", "jax"}
        forward : {"aba", "crba"}
            Forward dynamics by the articulated-body algorithm (default) or CRBA + RNEA +
            LDLᵀ with the leaves eliminated first.
        kernels : sequence of str, optional
            Generate only these (``"M"``, ``"C"``, ``"g"``, ``"bias"``,
            ``"inverse_dynamics"``, ``"forward_dynamics"``, ``"energy"``,
            ``"centroidal_map"``, ``"centroidal_bias"``); default all.
            Calling a method whose kernel was left out is a :class:`~lagdyn.LagdynError`.
        cse : bool
            One joint common-subexpression elimination over the program: Solo12's kernels
            get 8–14 % fewer operations for 10–20 s more generation, so it is off by default
            (the builder already shares identical intermediates).
        cache, cache_dir, **options
            As for :func:`lagdyn.numeric.lambdify`.

        Raises
        ------
        UnboundParameterError
            A parameter without a value (and not in ``free``).
        LagdynError
            A name in ``free`` that is not a parameter, or that ``params`` also gives a
            value; a bound value against its symbol's assumptions (with ``free``).
        BackendUnavailableError
            The backend is not installed.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> float(num.M(robot.neutral())[0, 0])    # the total mass
        4.3

        Masses per call (symbolic parameters; the others bound to their defaults):

        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
        >>> num = robot.lambdify(kernels=["M"], free=["M0", "M1"])
        >>> num.free_parameters
        (M0, M1)
        >>> M = num.M(robot.neutral(), params={"M0": [3.0, 5.0], "M1": 0.5})
        >>> M[:, 0, 0]                             # two trunk masses, one batch
        array([4.3, 6.3])
        """
        from ..codegen import Binding
        from ..numeric import backends

        values: dict[Any, float] = dict(self.defaults)
        if params is not None:
            given = {str(k) for k in params}
            values = {s: v for s, v in values.items() if s.name not in given}
            values.update(params)
        left = self._free(free, params)
        if left:
            names = {s.name for s in left}
            values = {k: v for k, v in values.items() if str(k) not in names}
        be = backends.get(backend)
        want = tuple(FLOATING_KERNELS if kernels is None else kernels)
        bad = [k for k in want if k not in FLOATING_KERNELS]
        if bad or not want:
            raise LagdynError(f"kernels must be some of {FLOATING_KERNELS}, got {list(want)}")
        base, friction = self.base, self.friction
        named = {str(k) for k in values}
        missing = [
            s for s in base.parameters if s not in values and s.name not in named and s not in left
        ]
        if missing:  # before a cache lookup
            raise UnboundParameterError(missing, "the floating-base model")
        if left:  # parsed and checked as on every other path (Binding); free in its order
            by_name = {s.name: s for s in base.parameters}
            bound = {by_name[str(k)]: v for k, v in values.items() if str(k) in by_name}
            binding = Binding(base.parameters, bound)
            values = dict(binding.bound)
            left = tuple(binding.free)
        else:  # fully bound: folded in as always; the binding only refuses params= per call
            by_name = {s.name: s for s in base.parameters}
            binding = Binding(
                base.parameters,
                {by_name[str(k)]: v for k, v in values.items() if str(k) in by_name},
                check=False,
            )
        extra = f"{','.join(want)}|cse={int(cse)}"
        key = floating_key(self.base, values, be.name, forward, self.friction, extra, free=left)

        def make() -> Any:
            return floating_program(
                base,
                values,
                forward=forward,
                friction=friction,
                cse=cse,
                outputs_wanted=want,
                free=left,
            )

        disk = DiskCache(cache_dir) if cache else None
        compiled = be.build(make, key, disk, **options)
        model = FloatingModel(
            self, compiled, backend=be.name, key=key, forward=forward, binding=binding
        )
        model.values = values
        model.build_options = dict(options, cache=cache, cache_dir=cache_dir)
        return model

    def _free(self, free: Any, params: Mapping[Any, Any] | None) -> tuple[sp.Symbol, ...]:
        """The parameters named in ``free`` (symbols or names, or ``"all"``), in the
        order of :attr:`parameters`; a :class:`~lagdyn.LagdynError` names any that is not a
        parameter or that ``params`` also gives a value."""
        if free is None:
            return ()
        every = self.parameters
        if isinstance(free, str):
            if free != "all":
                raise LagdynError(
                    f"free must be a sequence of parameters (symbols or names) or 'all', "
                    f"got {free!r}"
                )
            wanted = {s.name for s in every}
        else:
            try:
                items = list(free)
            except TypeError:
                raise LagdynError(
                    f"free must be a sequence of parameters (symbols or names) or 'all', "
                    f"got {type(free).__name__}"
                ) from None
            wanted = {s.name if isinstance(s, sp.Symbol) else str(s) for s in items}
        names = {s.name for s in every}
        unknown = sorted(wanted - names)
        if unknown:
            verb = "is not a parameter" if len(unknown) == 1 else "are not parameters"
            raise LagdynError(
                f"free: {', '.join(unknown)} {verb} of this robot (its parameters: "
                f"{', '.join(sorted(names)) or 'none'})"
            )
        both = sorted(wanted & {str(k) for k in (params or {})})
        if both:
            raise LagdynError(
                f"{', '.join(both)} given a value in params and named in free: bind it or "
                "leave it free, not both"
            )
        return tuple(s for s in every if s.name in wanted)


def _as_frame(name: str, value: Any) -> Frame:
    """A Frame from a Frame or a ``(body, R or None, p or None)`` triple."""
    if isinstance(value, Frame):
        return value
    body, R, p = value
    return Frame(
        name,
        int(body),
        sp.eye(3) if R is None else R,
        sp.zeros(3, 1) if p is None else p,
    )


def _check_quaternion(q: np.ndarray, name: str = "q") -> None:
    """Refuse a quaternion of zero norm or with a non-finite entry (the first bad state of a
    batch is named). Squares summed column by column: numpy's reductions over a last axis
    of four cost more than the kernels on large batches."""
    with np.errstate(over="ignore", invalid="ignore"):
        sq = q[..., 3] * q[..., 3] + q[..., 4] * q[..., 4] + q[..., 5] * q[..., 5]
        sq += q[..., 6] * q[..., 6]
    if np.isfinite(sq).all() and not (sq <= 1e-300).any():
        return
    quat = q[..., _QUAT]
    bad = ~np.isfinite(quat).all(axis=-1)
    where = ""
    if bad.any():
        if quat.ndim > 1:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f" at batch index {first}"
            quat = quat[first]
        raise LagdynError(
            f"{name}[3:7] (the base quaternion x, y, z, w) has a non-finite entry{where}: "
            f"{quat.tolist()}"
        )
    with np.errstate(over="ignore"):  # squares of finite entries may overflow: not zero
        norm = np.sqrt(np.sum(quat * quat, axis=-1))
    zero = norm <= 1e-150
    if zero.any():
        if zero.ndim:
            where = f" at batch index {tuple(int(i) for i in np.argwhere(zero)[0])}"
        raise LagdynError(
            f"{name}[3:7] (the base quaternion x, y, z, w) has zero norm{where}: it is no "
            "orientation; the identity is (0, 0, 0, 1)"
        )


class FloatingModel:
    """Generated numerics of a :class:`FloatingRobot` (see :meth:`FloatingRobot.lambdify`).

    Every method takes arrays of shape ``(nq,)`` / ``(nv,)`` or batches ``(..., nq)``,
    ``(..., nv)`` (broadcast) and returns float64 arrays. The dynamics methods take
    keyword-only ``params``: the values of the :attr:`free_parameters` (those left free by
    ``lambdify(free=...)``) for this call — a mapping of names (or symbols) to numbers or
    arrays, or an array ``(..., n_free)`` in the order of :attr:`free_parameters` — whose
    batch axes broadcast with the states'; parsed and checked by
    :meth:`lagdyn.codegen.Binding.values` (a missing, bound, unknown or invalid value is a
    :class:`~lagdyn.LagdynError` naming it). A fully bound model takes none.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> num = ld.robot.from_urdf(EXAMPLE_URDF, base="floating").lambdify(kernels=["M"])
    >>> num.M(np.zeros((4, 10)) + num.robot.neutral()).shape
    (4, 9, 9)
    """

    def __init__(
        self,
        robot: FloatingRobot,
        kernels: Any,
        *,
        backend: str,
        key: str,
        forward: str,
        binding: Any = None,
    ) -> None:
        from ..codegen import Binding

        if binding is None:  # every parameter bound
            binding = Binding(robot.parameters, robot.defaults, check=False)
        self._binding = binding
        #: Every parameter of the robot, those bound at generation and those left free.
        self.parameters: tuple[sp.Symbol, ...] = tuple(binding.parameters)
        #: The values folded into the code.
        self.bound: dict[sp.Symbol, float] = dict(binding.bound)
        #: The parameters each call passes (``params=``), in their order.
        self.free_parameters: tuple[sp.Symbol, ...] = tuple(binding.free)
        self._nfree = len(self.free_parameters)
        self.robot = robot
        self.nq, self.nv = robot.nq, robot.nv
        self.backend = backend
        self.key = key
        self.forward = forward
        self._kernels = kernels
        self.values: dict[Any, float] = dict(robot.defaults)
        self.build_options: dict[str, Any] = {}
        self._frame_kernels: dict[tuple[str, ...], Any] = {}
        self._contacts: dict[Any, Any] = {}
        self._arrays: dict[str, Callable[..., Any]] = kernels.array_functions()
        self._single: dict[str, Callable[..., Any]] = kernels.single_functions()
        self._shapes: dict[str, tuple[int, ...]] = {
            k: ((self.nv, self.nv) if k in ("M", "C") else (self.nv,)) for k in FLOATING_KERNELS
        }
        self._shapes["energy"] = ()
        self._shapes["centroidal_map"] = (6, self.nv)
        self._shapes["centroidal_bias"] = (6,)

    def __repr__(self) -> str:
        free = ", ".join(str(s) for s in self.free_parameters)
        return (
            f"FloatingModel({self.robot.name!r}, backend={self.backend!r}, nq={self.nq}, "
            f"nv={self.nv}" + (f", free parameters: {free})" if free else ")")
        )

    @property
    def source(self) -> str:
        """The generated source code."""
        return str(self._kernels.source)

    def _run(
        self,
        name: str,
        q: Any,
        v: Any = None,
        x: Any = None,
        xname: str = "",
        params: Any = None,
    ) -> np.ndarray:
        if self._nfree or params is not None:
            p = self._binding.values(params)  # names what is missing, bound, unknown, bad
            if self._nfree:
                return self._run_free(name, q, v, x, xname, p)
        nq = self.nq
        args = self._state_args(q, v, x, xname)
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in args))
        except ValueError:
            raise ShapeError(
                "batch shapes do not broadcast: " + ", ".join(f"{a.shape}" for a in args)
            ) from None
        shape = self._shapes[name]
        if name not in self._kernels.kernel_names:
            raise LagdynError(f"this model has no {name} kernel: lambdify(kernels=...) left it out")
        if not batch:
            fast = self._arrays.get(name)
            if fast is not None:
                r = fast(*(np.ascontiguousarray(a) for a in args), 0.0)
                if r is not NotImplemented:
                    return np.asarray(r)
            single = self._single.get(name)
            if single is not None:  # scalar code for one state (numpy, numba backends)
                try:
                    return np.asarray(
                        single(*args[0].tolist(), *args[1].tolist(), *args[2].tolist(), 0.0)
                    )
                except (ArithmeticError, ValueError):  # IEEE results from the batched path
                    pass
        B = math.prod(batch)
        flat = [np.ascontiguousarray(np.broadcast_to(a, (*batch, nq)).reshape(B, nq)) for a in args]
        out = np.empty((B, *shape))
        self._kernels.batch(name, *flat, np.zeros((1, 0)), np.zeros((1, 1)), out)
        return out.reshape((*batch, *shape))

    def _state_args(self, q: Any, v: Any, x: Any, xname: str) -> list[np.ndarray]:
        """q checked (finite, unit quaternions), v and x checked and padded to nq: the
        kernels' three state arguments."""
        nq, nv = self.nq, self.nv
        qa = _real("q", q, nq)
        _check_quaternion(qa)
        args = [qa]
        for label, a in (("v", v), (xname, x)):
            if a is None:
                args.append(np.zeros((nq,)))
                continue
            va = _real(label, a, nv)
            pad = np.zeros((*va.shape[:-1], nq))
            pad[..., :nv] = va
            args.append(pad)
        return args

    def _run_free(self, name: str, q: Any, v: Any, x: Any, xname: str, p: np.ndarray) -> np.ndarray:
        """:meth:`_run` with the free parameters' values ``p`` (..., n_free), checked."""
        nq = self.nq
        args = self._state_args(q, v, x, xname)
        p = np.asarray(p, dtype=np.float64)
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in args), p.shape[:-1])
        except ValueError:
            raise ShapeError(
                "batch shapes do not broadcast: "
                + ", ".join(f"{a.shape}" for a in args)
                + f", params {p.shape}"
            ) from None
        shape = self._shapes[name]
        if name not in self._kernels.kernel_names:
            raise LagdynError(f"this model has no {name} kernel: lambdify(kernels=...) left it out")
        if not batch:
            single = self._single.get(name)
            if single is not None:  # scalar code for one state (numpy, numba backends)
                try:
                    return np.asarray(
                        single(
                            *args[0].tolist(),
                            *args[1].tolist(),
                            *args[2].tolist(),
                            *p.tolist(),
                            0.0,
                        )
                    )
                except (ArithmeticError, ValueError):  # IEEE results from the batched path
                    pass
        B = math.prod(batch)
        flat = [np.ascontiguousarray(np.broadcast_to(a, (*batch, nq)).reshape(B, nq)) for a in args]
        nf = self._nfree
        if p.shape[:-1] == batch and B != 1:
            fp = np.ascontiguousarray(p.reshape(B, nf))
        elif math.prod(p.shape[:-1]) == 1:  # one set of values for every state
            fp = np.ascontiguousarray(p.reshape(1, nf))
        else:
            fp = np.ascontiguousarray(np.broadcast_to(p, (*batch, nf)).reshape(B, nf))
        out = np.empty((B, *shape))
        if B:
            self._kernels.batch(name, *flat, fp, np.zeros((1, 1)), out)
        return out.reshape((*batch, *shape))

    def M(self, q: Any, *, params: Any = None) -> np.ndarray:
        """The mass matrix (nv × nv; its base block depends on the joints only).

        ``params``: the free parameters' values for this call (see the class docstring).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
        >>> num = robot.lambdify(kernels=["M"], free=["M0"])
        >>> float(num.M(robot.neutral(), params={"M0": 2.0})[0, 0])   # 2 + 0.5 + 0.5 + 0.3
        3.3
        >>> num.M(robot.neutral(), params={"M0": -1.0})
        Traceback (most recent call last):
        ...
        lagdyn.errors.LagdynError: params[M0] = -1.0 breaks the assumption that M0 is ...
        """
        return self._run("M", q, params=params)

    def C(self, q: Any, v: Any, *, params: Any = None) -> np.ndarray:
        """The Christoffel-consistent C (Ṁ − 2C skew), as ``pin.computeCoriolisMatrix``."""
        return self._run("C", q, v, params=params)

    def g(self, q: Any, *, params: Any = None) -> np.ndarray:
        """The generalized gravity (``pin.computeGeneralizedGravity``)."""
        return self._run("g", q, params=params)

    def nonlinear_effects(self, q: Any, v: Any, *, params: Any = None) -> np.ndarray:
        """h = C v + g (+ joint friction), as ``pin.nonLinearEffects``."""
        return self._run("bias", q, v, params=params)

    bias = nonlinear_effects

    def inverse_dynamics(self, q: Any, v: Any, a: Any, *, params: Any = None) -> np.ndarray:
        """τ = M v̇ + h (``pin.rnea``); ``a`` is v̇."""
        return self._run("inverse_dynamics", q, v, a, "a", params=params)

    def forward_dynamics(self, q: Any, v: Any, tau: Any, *, params: Any = None) -> np.ndarray:
        """v̇ = M⁻¹(τ − h) (``pin.aba``).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
        >>> num = robot.lambdify(kernels=["forward_dynamics"], free=["g"])
        >>> q = np.broadcast_to(robot.neutral(), (3, 10))
        >>> a = num.forward_dynamics(q, np.zeros(9), np.zeros(9), params=[[9.81], [1.62], [3.71]])
        >>> np.round(a[:, 2], 6) + 0.0               # free fall on Earth, the Moon, Mars
        array([-9.81, -1.62, -3.71])
        """
        return self._run("forward_dynamics", q, v, tau, "tau", params=params)

    def energy(self, q: Any, v: Any, *, params: Any = None) -> np.ndarray:
        """The total energy ½ vᵀ M v + U (``pin.computeKineticEnergy`` +
        ``pin.computePotentialEnergy``); U = −Σ m_i g·c_i reads the base position."""
        return self._run("energy", q, v, params=params)

    def centroidal_map(self, q: Any, *, params: Any = None) -> np.ndarray:
        """Orin and Goswami's centroidal momentum matrix A_G (6 × nv): the linear and angular
        momentum about the centre of mass, world axes, is A_G v (``pin.computeCentroidalMap``)."""
        return self._run("centroidal_map", q, params=params)

    def centroidal_bias(self, q: Any, v: Any, *, params: Any = None) -> np.ndarray:
        """Ȧ_G v, so that the rate of centroidal momentum is A_G v̇ + Ȧ_G v
        (``pin.computeCentroidalMapTimeVariation(...) @ v``)."""
        return self._run("centroidal_bias", q, v, params=params)

    def step(
        self, q: Any, v: Any, tau: Any, dt: float, *, t: float = 0.0, params: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        r"""One step of the classical Runge–Kutta method on the configuration manifold.

        Runge–Kutta–Munthe-Kaas (RK4 in the exponential coordinates θ of
        :math:`q(t) = q \oplus θ`, with :math:`\dot θ = \mathrm{dexp}^{-1}_θ(v)` truncated
        after :math:`\tfrac1{12}[θ, [θ, v]]`): fourth order, the quaternion of unit norm
        at every stage, no chart singularity. ``tau`` is held over the step, or is a
        callable ``tau(t, q, v)`` evaluated at each stage (times from ``t``); ``params``
        (the free parameters' values) are held over the step. Returns
        ``(q_next, v_next)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["forward_dynamics"])
        >>> q, v = num.step(robot.neutral(), np.zeros(9), np.zeros(9), 0.1)
        >>> round(float(q[2]), 6), round(float(v[2]), 6)     # ½ g t², g t
        (-0.04905, -0.981)
        """
        v0 = _real("v", v, self.nv)
        q0 = _real("q", q, self.nq)
        law = tau if callable(tau) else None
        held = None if callable(tau) else _real("tau", tau, self.nv)

        def f(s: float, qs: np.ndarray, vs: np.ndarray) -> np.ndarray:
            u = held if law is None else _real("tau(t, q, v)", law(s, qs, vs), self.nv)
            return self.forward_dynamics(qs, vs, u, params=params)

        kq, kv = [v0], [f(t, q0, v0)]
        for c in (0.5, 0.5, 1.0):
            theta = c * dt * kq[-1]
            vs = v0 + c * dt * kv[-1]
            kq.append(_dexpinv(theta, vs))
            kv.append(f(t + c * dt, integrate(q0, theta), vs))
        theta = (kq[0] + 2 * kq[1] + 2 * kq[2] + kq[3]) / 6
        dv = (kv[0] + 2 * kv[1] + 2 * kv[2] + kv[3]) / 6
        return integrate(q0, theta, dt), v0 + dt * dv

    def integrate(self, q: Any, v: Any, dt: float = 1.0) -> np.ndarray:
        """q ⊕ v·dt (:func:`integrate`)."""
        return integrate(q, v, dt)

    def difference(self, q0: Any, q1: Any) -> np.ndarray:
        """The velocity v with q0 ⊕ v = q1 (:func:`difference`)."""
        return difference(q0, q1)

    # ------------------------------------------------------------------ frames and contacts
    def _q(self, q: Any) -> np.ndarray:
        qa = _real("q", q, self.nq)
        _check_quaternion(qa)
        return qa

    def frame_kernels(self, frames: Sequence[str]) -> Any:
        """The generated placements, Jacobians and drifts of ``frames`` (built once per
        tuple of names, cached on disk): a :class:`~lagdyn.robot.contacts.FrameKernels`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> fk = robot.lambdify({"g": 9.81}, kernels=["M"]).frame_kernels(["shank_r"])
        >>> fk.names
        ('shank_r',)
        """
        from .contacts import FrameKernels

        key = tuple(frames)
        if key not in self._frame_kernels:
            self._frame_kernels[key] = FrameKernels(self, key)
        return self._frame_kernels[key]

    def _frame(self, frame: str) -> tuple[Any, int]:
        """The kernels of every frame of the robot (one module) and ``frame``'s index."""
        self.robot.frame(frame)  # a named error first
        fk = self.frame_kernels(self.robot.frame_names)
        return fk, fk.index[frame]

    def frame_placement(self, q: Any, frame: str) -> tuple[np.ndarray, np.ndarray]:
        """The frame's placement in the world: (R (..., 3, 3), p (..., 3)), R frame → world
        (``pin.updateFramePlacements``, ``data.oMf[id]``).

        Raises
        ------
        LagdynError
            A frame the robot does not have (the closest names listed); a quaternion of
            zero norm.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> R, p = num.frame_placement(robot.neutral(), "thigh_l")
        >>> np.round(p, 6) + 0.0
        array([ 0.  ,  0.1 , -0.05])
        """
        from .contacts import _frame_placement_of

        return _frame_placement_of(self, q, frame)

    def frame_jacobian(
        self, q: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """The frame Jacobian (..., 6, nv), rows linear then angular, in ``reference``
        (``"local_world_aligned"``, ``"local"`` or ``"world"``, as
        ``pin.getFrameJacobian(model, data, id, pin.LOCAL_WORLD_ALIGNED)`` …).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> J = num.frame_jacobian(robot.neutral(), "trunk", "local")
        >>> bool(np.allclose(J[:, :6], np.eye(6)))       # the base's own velocity
        True
        """
        from .contacts import _frame_jacobian_of

        return _frame_jacobian_of(self, q, frame, reference)

    def frame_velocity(
        self, q: Any, v: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """The frame's velocity J v (..., 6), linear then angular, in ``reference``
        (``pin.getFrameVelocity``).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> v = np.zeros(9); v[0] = 2.0
        >>> num.frame_velocity(robot.neutral(), v, "shank_r")[:3]
        array([2., 0., 0.])
        """
        from .contacts import _frame_velocity_of

        return _frame_velocity_of(self, q, v, frame, reference)

    def frame_drift(
        self, q: Any, v: Any, frame: str, reference: str = "local_world_aligned"
    ) -> np.ndarray:
        """The frame's classical acceleration at v̇ = 0 (..., 6): the drift J̇ v of a point
        contact, (p̈, ω̇) — ``pin.getFrameClassicalAcceleration`` after
        ``pin.forwardKinematics(model, data, q, v, 0 * v)``, in ``reference``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> v = np.zeros(9); v[5] = 1.0                   # spinning about z at 1 rad/s
        >>> a = num.frame_drift(robot.neutral(), v, "thigh_l")
        >>> np.round(a[:3], 6) + 0.0                      # centripetal: −ω² r
        array([ 0. , -0.1,  0. ])
        """
        from .contacts import _frame_drift_of

        return _frame_drift_of(self, q, v, frame, reference)

    def contacts(
        self,
        contacts: Sequence[Any] = (),
        *,
        loops: Sequence[Any] = (),
        reduce: bool = True,
        reference: str = "local_world_aligned",
        fused: bool = False,
    ) -> Any:
        """Point and surface contacts on named frames, and loops closing two frames on each
        other: a :class:`~lagdyn.robot.contacts.Contacts` (its generated module built once
        per set). ``loops`` are ``(frame_a, frame_b)`` or ``(frame_a, frame_b, "point" |
        "weld")``; with ``reduce`` a loop keeps only the directions that are independent at
        its closed configurations (see :func:`lagdyn.robot.contacts.closures`).

        With ``fused``, :meth:`~lagdyn.robot.contacts.Contacts.dynamics` (method ``"kkt"``,
        no Baumgarte) runs as one generated kernel — M, h, J_c, J̇_c v and an unrolled
        LDLᵀ of the KKT matrix — built (compiled) on its first call: for large batches.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> robot.lambdify({"g": 9.81}).contacts([("shank_r", 3)])
        Contacts({'shank_r': 3}, m=3, reference='local_world_aligned')
        """
        from .contacts import Contacts, _parse_contacts, _parse_loops

        parsed = _parse_loops(self.robot, loops)
        key = (
            _parse_contacts(self.robot, contacts, empty=bool(parsed)),
            parsed,
            bool(reduce),
            reference,
            bool(fused),
        )
        if key not in self._contacts:
            self._contacts[key] = Contacts(
                self, contacts, loops=loops, reduce=reduce, reference=reference, fused=fused
            )
        return self._contacts[key]

    def contact_dynamics(
        self,
        q: Any,
        v: Any,
        tau: Any,
        contacts: Sequence[Any],
        *,
        reference: str = "local_world_aligned",
        **options: Any,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(v̇, λ) under the contacts: :meth:`Contacts.dynamics
        <lagdyn.robot.contacts.Contacts.dynamics>` (``method``, ``baumgarte``, ``anchors``,
        ``params`` …).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81})
        >>> a, lam = num.contact_dynamics(robot.neutral(), np.zeros(9), np.zeros(9),
        ...                               [("thigh_l", 6), ("shank_r", 3)])
        >>> lam.shape
        (9,)
        """
        return self.contacts(contacts, reference=reference).dynamics(q, v, tau, **options)

    def contact_impulse(
        self,
        q: Any,
        v_minus: Any,
        contacts: Sequence[Any],
        *,
        restitution: float = 0.0,
        reference: str = "local_world_aligned",
        method: str = "kkt",
        params: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(v⁺, Λ) of an impact on the contacts: :meth:`Contacts.impulse
        <lagdyn.robot.contacts.Contacts.impulse>`.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.robot.floating import EXAMPLE_URDF
        >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
        >>> num = robot.lambdify({"g": 9.81}, kernels=["M"])
        >>> v = np.zeros(9); v[2] = -1.0
        >>> vp, imp = num.contact_impulse(robot.neutral(), v, [("shank_r", 3)])
        >>> round(float(num.frame_velocity(robot.neutral(), vp, "shank_r")[2]), 12) + 0.0
        0.0
        """
        c = self.contacts(contacts, reference=reference)
        return c.impulse(q, v_minus, restitution=restitution, method=method, params=params)


# ---------------------------------------------------------------------- configuration space
def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (np.cross costs ten times more on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _ad(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The Lie bracket [x, y] of se(3) twists stored (linear, angular)."""
    out = np.empty(np.broadcast_shapes(x.shape, y.shape))
    out[..., :3] = _cross(x[..., 3:6], y[..., :3]) - _cross(y[..., 3:6], x[..., :3])
    out[..., 3:6] = _cross(x[..., 3:6], y[..., 3:6])
    return out


def _dexpinv(theta: np.ndarray, v: np.ndarray) -> np.ndarray:
    """θ̇ of q ⊕ θ moving with velocity v: v + ½[θ, v] + [θ, [θ, v]]/12 on the base."""
    out = np.array(np.broadcast_to(v, np.broadcast_shapes(theta.shape, v.shape)), dtype=float)
    a = _ad(theta[..., :6], out[..., :6])
    out[..., :6] += a / 2 + _ad(theta[..., :6], a) / 12
    return out


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of quaternions stored (x, y, z, w)."""
    ax, ay, az, aw = (a[..., k] for k in range(4))
    bx, by, bz, bw = (b[..., k] for k in range(4))
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def _rotate(quat: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R(quat) v for unit quaternions (x, y, z, w)."""
    u, w = quat[..., :3], quat[..., 3:4]
    t = 2.0 * _cross(u, v)
    return v + w * t + _cross(u, t)


def _unit(quat: np.ndarray) -> np.ndarray:
    return quat / np.sqrt(np.sum(quat * quat, axis=-1, keepdims=True))


def _series(
    theta: np.ndarray,
    small: Callable[[np.ndarray], np.ndarray],
    big: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    safe = np.where(theta < 1e-4, 1.0, theta)
    return np.where(theta < 1e-4, small(theta), big(safe))


def _exp6(nu: np.ndarray, om: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(translation, unit quaternion) of exp of the body twist (ν, ω)."""
    th = np.sqrt(np.sum(om * om, axis=-1, keepdims=True))
    half = _series(th, lambda t: 0.5 - t**2 / 48, lambda t: np.sin(t / 2) / t)
    quat = np.concatenate([om * half, np.cos(th / 2)], axis=-1)
    # V = 1 + (1 − cos θ)/θ² [ω]× + (θ − sin θ)/θ³ [ω]×²
    a = _series(th, lambda t: 0.5 - t**2 / 24, lambda t: (1 - np.cos(t)) / t**2)
    b = _series(th, lambda t: 1 / 6 - t**2 / 120, lambda t: (t - np.sin(t)) / t**3)
    wx = _cross(om, nu)
    p = nu + a * wx + b * _cross(om, wx)
    return p, quat


def _integrate_one(q: list[float], v: list[float], dt: float) -> list[float]:
    """:func:`integrate` of one state in Python floats, operation for operation as the
    array code (the same formulas in the same order)."""
    vd = [x * dt for x in v]
    n0, n1, n2, o0, o1, o2 = vd[:6]
    qx, qy, qz, qw = q[3:7]
    r = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    qx, qy, qz, qw = qx / r, qy / r, qz / r, qw / r
    th = math.sqrt(o0 * o0 + o1 * o1 + o2 * o2)
    if th < 1e-4:
        half, a, b = 0.5 - th**2 / 48, 0.5 - th**2 / 24, 1 / 6 - th**2 / 120
    else:
        half = math.sin(th / 2) / th
        a, b = (1 - math.cos(th)) / th**2, (th - math.sin(th)) / th**3
    dx, dy, dz, dw = o0 * half, o1 * half, o2 * half, math.cos(th / 2)
    w0, w1, w2 = o1 * n2 - o2 * n1, o2 * n0 - o0 * n2, o0 * n1 - o1 * n0  # ω × ν
    c0, c1, c2 = o1 * w2 - o2 * w1, o2 * w0 - o0 * w2, o0 * w1 - o1 * w0  # ω × (ω × ν)
    p0, p1, p2 = n0 + a * w0 + b * c0, n1 + a * w1 + b * c1, n2 + a * w2 + b * c2
    t0, t1, t2 = 2.0 * (qy * p2 - qz * p1), 2.0 * (qz * p0 - qx * p2), 2.0 * (qx * p1 - qy * p0)
    r0 = p0 + qw * t0 + (qy * t2 - qz * t1)
    r1 = p1 + qw * t1 + (qz * t0 - qx * t2)
    r2 = p2 + qw * t2 + (qx * t1 - qy * t0)
    ex = qw * dx + qx * dw + qy * dz - qz * dy
    ey = qw * dy - qx * dz + qy * dw + qz * dx
    ez = qw * dz + qx * dy - qy * dx + qz * dw
    ew = qw * dw - qx * dx - qy * dy - qz * dz
    e = math.sqrt(ex * ex + ey * ey + ez * ez + ew * ew)
    out = [q[0] + r0, q[1] + r1, q[2] + r2, ex / e, ey / e, ez / e, ew / e]
    return out + [x + y for x, y in zip(q[7:], vd[6:])]


def integrate(q: Any, v: Any, dt: float = 1.0) -> np.ndarray:
    r"""The configuration reached from ``q`` moving with velocity ``v`` for ``dt``: q ⊕ v dt.

    As ``pin.integrate(model, q, v * dt)`` for a free-flyer root: the base placement is
    :math:`M_1 = M_0 \exp(\hat v_b\,dt)` (the SE(3) exponential of the base-frame twist),
    the joints add ``v_j dt``. The quaternion of ``q`` is normalized first; the result's is
    of unit norm. Arrays ``(..., nq)`` and ``(..., nv)`` broadcast.

    Raises
    ------
    LagdynError
        A quaternion of zero norm or with a non-finite entry; ``nv != nq − 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.floating import integrate
    >>> q = np.array([0, 0, 0, 0, 0, 0, 1.0, 0.5])
    >>> v = np.array([1.0, 0, 0, 0, 0, np.pi / 2, 0.25])    # forward while turning left
    >>> np.round(integrate(q, v), 6) + 0.0
    array([0.63662 , 0.63662 , 0.      , 0.      , 0.      , 0.707107, 0.707107,
           0.75    ])
    """
    qa = np.asarray(q, dtype=np.float64)
    va = np.asarray(v, dtype=np.float64)
    if qa.ndim == 0 or va.ndim == 0 or qa.shape[-1] < 7 or va.shape[-1] != qa.shape[-1] - 1:
        raise ShapeError(
            f"integrate needs q (..., nq) and v (..., nq − 1) with nq ≥ 7, got {qa.shape} and "
            f"{va.shape}"
        )
    _check_quaternion(qa)
    if qa.ndim == 1 and va.ndim == 1:  # one state: numpy's per-call cost dominates
        return np.array(_integrate_one(qa.tolist(), va.tolist(), float(dt)))
    batch = np.broadcast_shapes(qa.shape[:-1], va.shape[:-1])
    qa = np.broadcast_to(qa, (*batch, qa.shape[-1]))
    va = np.broadcast_to(va * float(dt), (*batch, va.shape[-1]))
    quat0 = _unit(qa[..., _QUAT])
    p, dquat = _exp6(va[..., 0:3], va[..., 3:6])
    out = np.empty(qa.shape)
    out[..., 0:3] = qa[..., 0:3] + _rotate(quat0, p)
    out[..., _QUAT] = _unit(_qmul(quat0, dquat))
    out[..., 7:] = qa[..., 7:] + va[..., 6:]
    return out


def difference(q0: Any, q1: Any) -> np.ndarray:
    r"""The velocity v (for unit time) with ``integrate(q0, v) == q1``: ``pin.difference``.

    The base part is :math:`\log_6(M_0^{-1} M_1)` (rotation angle in [0, π]), the joints'
    ``q1 − q0``. Quaternions are normalized first.

    Raises
    ------
    LagdynError
        A quaternion of zero norm or with a non-finite entry; shapes that do not match.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.floating import difference, integrate
    >>> q0 = np.array([1.0, 2, 3, 0.1, 0.2, 0.3, 0.9, 0.4])
    >>> v = np.array([0.3, -0.2, 0.1, 0.5, -0.4, 0.2, 1.5])
    >>> np.allclose(difference(q0, integrate(q0, v)), v)
    True
    """
    a = np.asarray(q0, dtype=np.float64)
    c = np.asarray(q1, dtype=np.float64)
    if a.ndim == 0 or c.ndim == 0 or a.shape[-1] < 7 or a.shape[-1] != c.shape[-1]:
        raise ShapeError(
            f"difference needs q0, q1 of shape (..., nq), nq ≥ 7, got {a.shape}, {c.shape}"
        )
    _check_quaternion(a, "q0")
    _check_quaternion(c, "q1")
    a, c = np.broadcast_arrays(a, c)
    qa, qc = _unit(a[..., _QUAT]), _unit(c[..., _QUAT])
    conj = qa * np.array([-1.0, -1.0, -1.0, 1.0])
    rel = _qmul(conj, qc)
    rel = np.where(rel[..., 3:4] < 0, -rel, rel)  # the rotation angle in [0, π]
    s = np.sqrt(np.sum(rel[..., :3] ** 2, axis=-1, keepdims=True))
    th = 2 * np.arctan2(s, rel[..., 3:4])
    # ω = θ u; with s = sin(θ/2): ω = rel_xyz · θ / s
    w = np.maximum(rel[..., 3:4], 0.5)  # s < 1e-4: w ≈ 1
    scale = _series(s, lambda t: 2.0 / w * (1 - t**2 / (3 * w**2)), lambda t: th / t)
    om = rel[..., :3] * scale
    dp = _rotate(conj, c[..., 0:3] - a[..., 0:3])
    # ν = V(ω)⁻¹ dp, V⁻¹ = 1 − ½[ω]× + (1/θ²)(1 − θ sin θ / (2(1 − cos θ)))[ω]×²
    coef = _series(
        th,
        lambda t: 1 / 12 + t**2 / 720,
        lambda t: (1 - t * np.sin(t) / (2 * (1 - np.cos(t)))) / t**2,
    )
    wx = _cross(om, dp)
    nu = dp - 0.5 * wx + coef * _cross(om, wx)
    out = np.empty((*a.shape[:-1], a.shape[-1] - 1))
    out[..., 0:3] = nu
    out[..., 3:6] = om
    out[..., 6:] = c[..., 7:] - a[..., 7:]
    return out

r"""The numeric routes of a :class:`~lagdyn.robot.RobotSystem`: recursive or closed form.

``system.lambdify(params, backend=..., route=...)`` generates the kernels of
:class:`~lagdyn.numeric.NumericModel` (``M``, ``C``, ``g``, ``energy``, ``bias``,
``inverse_dynamics``, ``forward_dynamics``) by one of two routes:

``"recursive"``
    One straight-line :class:`~lagdyn.codegen.Program` built from the chain by the
    recursive algorithms of :mod:`lagdyn.recursive` (one file each), all on one builder so the
    kinematics (sines, cosines, rotations, link velocities) are computed once and
    shared: CRBA for M, RNEA for g, for the bias :math:`h - Q = C\dot q + g + F_v\dot q
    + F_c\,\mathrm{sign}(\dot q)` (q̈ = 0) and for the inverse dynamics, the
    Christoffel-consistent recursive C, the energy from the link velocities, and forward
    dynamics as CRBA + RNEA + an unrolled LDLᵀ solve below
    :data:`~lagdyn.recursive.forward.ABA_FROM` joints and the articulated-body algorithm
    from there on (:data:`FORWARD` overrides).
    Parameters bound in ``params`` are substituted into the chain *before* the programs are
    built, so terms they zero vanish at generation time; link frames are moved to the joint
    frames (every motion subspace a bare axis); one joint ``sympy.cse`` over the whole
    program then names the common parts of different right-hand sides. No closed form is
    derived.
``"closed"``
    :func:`lagdyn.codegen.system_program` of the closed-form M, C, g (what every
    :class:`~lagdyn.LagrangianSystem` gets).

Both routes go through the same backends, :class:`~lagdyn.codegen.Binding` and sealed
cache; their cache keys differ.

The default (``route=None``) is chosen by the expected size of the closed form, measured
by :func:`closed_size` before anything is built: along the path from the base to each
link, the number of joints plus the number of distinct constant angles in the link
placements and inertias (``cos(123/1000)`` from a URDF ``rpy="0.123 …"``; multiples of
π/2 are exact and count nothing), the largest over the links. The closed form's
expansion gives every such angle a frequency of its own, so its size grows like a
power of this number, joints and angles alike (measured: size ≤ 5 builds in a few
seconds, 6 — the UR5 and PUMA 560 — in 5–35 s, 7 from 18 s to more than 44 minutes
(the Panda), 8 — a 2-joint URDF with generic rotations on both joint origins — in
minutes and gigabytes). The default is ``"recursive"`` when the chain has
:data:`RECURSIVE_FROM` joints or more *or* its size is at least :data:`RECURSIVE_FROM`,
and ``"closed"`` below (the zoo's 3-joint arms; measured in ``benchmarks/RESULTS.md``:
for the 6-DOF UR5 and PUMA 560 the closed route takes 19–33 s and gives about twice the
operations of the recursive one, which builds in a few seconds; the 7-DOF Panda's closed
form had not finished after 44 minutes; at 3 joints the closed form is shorter and as
fast to derive).

The closed route is bounded: a :class:`~lagdyn.robot.RobotSystem` whose size exceeds its
``closed_limit`` (default :data:`CLOSED_LIMIT`) refuses to build its closed form — for
``route="closed"``, ``system.M``, the closed-form proofs and LaTeX alike — with a
:class:`~lagdyn.LagdynError` that names the recursive route, at once instead of after
minutes and gigabytes. The recursive route's programs hold the chain's irrational
constants (``cos(123/1000)``, ``sqrt(2)``) as 40-digit Floats, so they stay as short as
those of a chain with plain numbers.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> puma = ld.zoo.get("puma560")
>>> num = puma.lambdify({"g": 9.81}, route="recursive")
>>> num.route, np.round(num.g(np.zeros(6)), 4) + 0.0
('recursive', array([ 0.    , 37.4837,  0.2489,  0.    ,  0.    ,  0.    ]))
>>> closed_size(puma)
ClosedSize(size=6, link='link6', joints=6, angles=0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import sympy as sp

from ..codegen import KERNELS, Binding, Kernel, Program, output_shape, system_program
from ..codegen.build import bound_number, check_route, full_precision_floats
from ..codegen.cache import cache_key
from ..codegen.ir import code_symbols, prune
from ..errors import LagdynError, SingularMassMatrixError
from .aba import _aba_into
from .algebra import _Builder, _kinematics
from .chain import Chain, in_joint_frames
from .coriolis import _coriolis_into, _energy_into
from .crba import _crba_into
from .forward import _ldlt_solve, choose_forward
from .program import _finish_outputs
from .rnea import _rnea_into

__all__ = [
    "CLOSED_LIMIT",
    "RECURSIVE_FROM",
    "ROUTES",
    "ClosedSize",
    "check_closed_size",
    "choose_route",
    "closed_size",
    "plan",
    "recursive_program",
]

#: The routes of :func:`lagdyn.numeric.lambdify` for robot chains.
ROUTES = ("recursive", "closed")
#: Smallest number of joints, or :func:`closed_size`, whose default route is ``"recursive"``.
RECURSIVE_FROM = 4
#: Largest :func:`closed_size` whose closed form a :class:`~lagdyn.robot.RobotSystem`
#: builds (its ``closed_limit`` overrides it); larger ones are refused with a
#: :class:`~lagdyn.LagdynError` naming the recursive route. At 6 the closed form takes up
#: to about half a minute (UR5, PUMA 560); at 7 up to hours (Panda); at 8 minutes and
#: gigabytes for two joints.
CLOSED_LIMIT = 6
#: Bumped whenever the recursive programs change shape (part of the cache key).
RECURSIVE_VERSION = "3"
#: The forward-dynamics algorithm of the recursive route: ``"aba"``, ``"crba"`` or ``None``
#: (by size, :func:`lagdyn.recursive.forward.choose_forward`).
FORWARD: str | None = None


class ClosedSize(NamedTuple):
    """The expected size of a chain's closed form (:func:`closed_size`).

    ``size = joints + angles`` on the path from the base to ``link``, the largest over the
    links.

    Examples
    --------
    >>> from lagdyn.recursive.route import ClosedSize
    >>> ClosedSize(4, "l1", 1, 3).size
    4
    """

    size: int
    link: str
    joints: int
    angles: int


def _constant_angles(link: Any) -> set[sp.Expr]:
    """Arguments of the sines and cosines in a link's constant data (placements, inertia)."""
    found: set[sp.Expr] = set()
    parts = [link.axis, *link.pre, *link.post, link.first_moment, link.inertia]
    exprs = [x for m in parts for x in m] + [link.mass, link.armature]
    for e in exprs:
        for atom in sp.sympify(e).atoms(sp.sin, sp.cos):
            found.add(atom.args[0])
    return found


def closed_size(system: Any) -> ClosedSize:
    """The expected size of the closed form of a robot system (or :class:`Chain`).

    Along the path from the base to each link: the number of joints plus the number of
    distinct constant angles in those links' placements and inertias (the arguments of
    ``cos``/``sin`` free of the coordinates: ``123/1000`` from ``rpy="0.123 0 0"``, a
    symbolic DH twist ``alpha1``; multiples of π/2 are exact and do not count); the
    largest over the links. The closed form's canonical expansion gives each such angle a
    frequency of its own, so its cost grows like a power of this number. It reads only
    the chain (milliseconds); :func:`choose_route` and the closed route's limit
    (:data:`CLOSED_LIMIT`) are decided on it.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.route import closed_size
    >>> closed_size(ld.zoo.get("planar_3r"))
    ClosedSize(size=3, link='link3', joints=3, angles=0)
    >>> arm = ld.robot.from_dh([dict(a=1, alpha=0.3), dict(a=1)])  # one twist of 0.3 rad
    >>> closed_size(arm).size
    3
    """
    chain: Chain = getattr(system, "chain", system)
    angles = [_constant_angles(link) for link in chain.links]
    best = ClosedSize(0, "", 0, 0)
    for i, link in enumerate(chain.links):
        path = set(chain.ancestors(i)) | {i}
        found: set[sp.Expr] = set().union(*(angles[j] for j in path))
        size = len(path) + len(found)
        if size > best.size:
            best = ClosedSize(size, link.name, len(path), len(found))
    return best


def check_closed_size(system: Any, limit: float | None = None) -> None:
    """Refuse a closed form larger than ``limit`` (default :data:`CLOSED_LIMIT`).

    Raises
    ------
    LagdynError
        :func:`closed_size` exceeds the limit: the message gives the size, names the
        recursive route and says how to lift the limit.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.route import check_closed_size
    >>> check_closed_size(ld.zoo.get("planar_3r"))  # size 3: nothing to say
    >>> try:
    ...     check_closed_size(ld.zoo.get("planar_3r"), limit=2)
    ... except ld.LagdynError as exc:
    ...     print(str(exc)[:60])
    the closed form of this robot is too large to build: size 3
    """
    limit = CLOSED_LIMIT if limit is None else limit
    found = closed_size(system)
    if found.size <= limit:
        return
    angles = f" and {found.angles} distinct constant angles" if found.angles else ""
    raise LagdynError(
        f"the closed form of this robot is too large to build: size {found.size} "
        f"({found.joints} joints{angles} on the path to link {found.link!r}) exceeds the "
        f"closed route's limit {limit:g} (lagdyn.recursive.route.CLOSED_LIMIT); expanding it "
        "would take minutes to hours and gigabytes. Use the recursive route, which builds "
        "no closed form: lambdify(params, route='recursive') (also to_casadi and "
        "regressor), and for proofs is_skew_symmetric(route='recursive') or "
        "lagdyn.recursive.proofs.prove on the recursive programs (exact where the chain's "
        "constants allow); or raise system.closed_limit to build it anyway"
    )


def choose_route(system: Any, route: str | None) -> str:
    """The route ``lambdify`` takes for ``system``: ``route``, or the default by size.

    The default is ``"recursive"`` from :data:`RECURSIVE_FROM` joints on, or when the
    expected size of the closed form (:func:`closed_size`) reaches :data:`RECURSIVE_FROM`
    (a short chain whose joint origins carry generic rotations), and ``"closed"`` below.

    Raises
    ------
    LagdynError
        An unknown route name.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.route import choose_route
    >>> choose_route(ld.zoo.get("planar_3r"), None), choose_route(ld.zoo.get("ur5"), None)
    ('closed', 'recursive')
    >>> tilted = ld.robot.from_dh([dict(a=1, alpha=0.3), dict(a=1, alpha=0.5)])
    >>> choose_route(tilted, None)  # 2 joints and 2 constant angles
    'recursive'
    """
    if route is None:
        if system.n >= RECURSIVE_FROM or closed_size(system).size >= RECURSIVE_FROM:
            return "recursive"
        return "closed"
    check_route(route)
    return route


def plan(
    system: Any,
    binding: Binding,
    backend: str,
    route: str | None = None,
    forward: str | None = None,
) -> tuple[str, str, Callable[[], Program]]:
    """``(route, cache key, program factory)`` of ``lambdify`` for a robot system.

    ``forward`` (``"aba"``, ``"crba"`` or None for :data:`FORWARD` / the default by size)
    chooses the forward-dynamics algorithm of the recursive route; the closed route has
    none to choose, so a ``forward`` with it is an error.

    The key of the recursive route hashes the chain (links, gravity, friction) and the
    binding, so a cache hit builds nothing; the closed route's key is the one of every
    :class:`~lagdyn.LagrangianSystem`.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.recursive.route import plan
    >>> arm = ld.zoo.get("planar_3r")
    >>> bnd = Binding(arm.parameters, arm.defaults)
    >>> r, key, make = plan(arm, bnd, "numpy", "recursive")
    >>> r, key != plan(arm, bnd, "numpy", "closed")[1], sorted(make().kernels)[:3]
    ('recursive', True, ['C', 'M', 'bias'])
    """
    chosen = choose_route(system, route)
    if chosen == "closed" and forward is not None:
        raise LagdynError(
            f"forward={forward!r} chooses the algorithm of the recursive route; this model "
            "takes the closed route (pass route='recursive', or leave forward out)"
        )
    method = choose_forward(system.n, FORWARD if forward is None else forward)
    if chosen == "closed":
        parts = {"M": system.M, "b": system.b, "U": [system.U], "Q": system.forces}
        key = cache_key(system, "system", parts, binding.key(), backend)
        return chosen, key, lambda: system_program(system, binding)
    key = cache_key(
        system,
        f"robot-recursive-{RECURSIVE_VERSION}-{method}",
        _chain_parts(system),
        binding.key(),
        backend,
    )
    return chosen, key, lambda: recursive_program(system, binding, forward=method)


def _chain_parts(system: Any) -> dict[str, list[Any]]:
    """Everything of the chain the recursive program depends on, as expressions."""
    chain: Chain = system.chain
    parts: dict[str, list[Any]] = {
        "gravity": list(chain.gravity),
        "friction": [sp.Integer(int(bool(system.friction)))],
    }
    for i, link in enumerate(chain.links):
        parts[f"link{i}"] = [
            sp.Integer(int(link.joint == "revolute")),
            sp.Integer(link.parent),
            *link.axis,
            *link.pre[0],
            *link.pre[1],
            *link.post[0],
            *link.post[1],
            link.mass,
            *link.first_moment,
            *link.inertia,
            link.armature,
            link.viscous,
            link.coulomb,
        ]
    return parts


def _map_chain(chain: Chain, scalar: Any, matrix: Any = None, inertia: Any = None) -> Chain:
    """``chain`` with ``scalar`` applied to every number-like field of every link and to
    gravity (``matrix`` to axes, placements and first moments, ``inertia`` to inertias;
    both default to ``scalar``)."""
    matrix = matrix or scalar
    inertia = inertia or matrix
    links = [
        replace(
            link,
            axis=matrix(link.axis),
            pre=(matrix(link.pre[0]), matrix(link.pre[1])),
            post=(matrix(link.post[0]), matrix(link.post[1])),
            mass=scalar(link.mass),
            first_moment=matrix(link.first_moment),
            inertia=inertia(link.inertia),
            armature=scalar(link.armature),
            viscous=scalar(link.viscous),
            coulomb=scalar(link.coulomb),
        )
        for link in chain.links
    ]
    return replace(chain, links=tuple(links), gravity=matrix(sp.ImmutableMatrix(chain.gravity)))


def _bind_chain(chain: Chain, values: Mapping[sp.Symbol, sp.Expr]) -> Chain:
    """``chain`` with the bound parameters substituted (so their zeros vanish while building)."""
    if not values:
        return chain
    return _map_chain(chain, lambda x: sp.sympify(x).xreplace(values))


def _code_and_chain(
    system: Any, binding: Binding
) -> tuple[dict[str, tuple[sp.Symbol, ...]], Chain]:
    """The code symbols of a program and the chain in joint frames with ``binding`` folded in.

    The code symbols are ``q``, ``qd``, ``qdd``, ``tau`` (``system.n`` each) and ``params``
    (one per free parameter). Bound values and the code symbols of free parameters go into
    the chain itself; its irrational constants become Floats (:func:`_numeric_constants`).
    """
    n = system.n
    code = {
        "q": code_symbols("q", n),
        "qd": code_symbols("qd", n),
        "qdd": code_symbols("qdd", n),
        "tau": code_symbols("tau", n),
        "params": code_symbols("p", len(binding.free)),
    }
    values: dict[sp.Basic, sp.Expr] = {s: bound_number(v) for s, v in binding.bound.items()}
    values.update(zip(binding.free, code["params"]))
    chain = _numeric_constants(_bind_chain(in_joint_frames(system.chain), values))
    return code, chain


def _empty_program(
    system: Any, binding: Binding, code: dict[str, tuple[sp.Symbol, ...]]
) -> Program:
    """The program of ``system`` over the code symbols ``code``, before any kernel."""
    return Program(
        n=system.n,
        vectors=code,
        t=sp.Symbol("t", real=True),
        parameter_names=tuple(s.name for s in binding.free),
        coordinate_names=tuple(getattr(q.func, "__name__", str(q)) for q in system.q),
        bound={s.name: v for s, v in binding.bound.items()},
    )


def recursive_program(
    system: Any,
    binding: Binding,
    *,
    forward: str | None = None,
    cse: bool = True,
    outputs_wanted: Sequence[str] | None = None,
) -> Program:
    """The kernels of ``lambdify(route="recursive")``: one builder, one kernel per function.

    Kernel names, inputs and shapes are those of :func:`lagdyn.codegen.system_program`
    (:data:`lagdyn.codegen.KERNELS`); ``bias`` is :math:`h - Q` (friction included when
    the system has it), ``energy`` is :math:`T + U` with the potential of the closed form.
    The chain is first moved to its joint frames (:func:`~lagdyn.recursive.chain.in_joint_frames`),
    then one joint ``sympy.cse`` runs over the whole program (``cse=False`` skips it).

    Parameters
    ----------
    system : RobotSystem
    binding : Binding
    forward : {"aba", "crba"}, optional
        The forward-dynamics algorithm; default :data:`FORWARD` (``None``: by size,
        :func:`lagdyn.recursive.forward.choose_forward`).
    cse : bool
        Run the joint CSE.
    outputs_wanted : sequence of str, optional
        Build only these kernels (benchmarks); default all of :data:`lagdyn.codegen.KERNELS`.

    Raises
    ------
    SingularMassMatrixError
        Bound parameter values that make M singular at every state.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.recursive.route import recursive_program
    >>> arm = ld.zoo.get("planar_3r")
    >>> prog = recursive_program(arm, Binding(arm.parameters, arm.defaults))
    >>> prog.kernels["forward_dynamics"].inputs, prog.kernels["energy"].shape
    (('q', 'qd', 'tau', 'params', 't'), ())
    """
    forward = choose_forward(system.n, FORWARD if forward is None else forward)
    n = system.n
    code, chain = _code_and_chain(system, binding)
    qd, zero = code["qd"], [sp.Integer(0)] * n
    b = _Builder("w")
    kin = _kinematics(chain, b, code["q"])
    want = set(outputs_wanted) if outputs_wanted is not None else set(KERNELS)
    friction = [sp.Integer(0)] * n
    if system.friction:
        friction = [
            link.viscous * qd[i] + link.coulomb * sp.sign(qd[i])
            for i, link in enumerate(chain.links)
        ]
    outputs: dict[str, list[sp.Expr]] = {}
    need_m = "M" in want or ("forward_dynamics" in want and forward == "crba")
    M = _crba_into(chain, b, kin) if need_m else []
    if "M" in want:
        outputs["M"] = [x for row in M for x in row]
    if "C" in want:
        C = _coriolis_into(chain, b, kin, qd)
        outputs["C"] = [x for row in C for x in row]
    if "g" in want:
        outputs["g"] = _rnea_into(chain, b, kin, zero, zero, True)[0]
    if "energy" in want:
        outputs["energy"] = [_energy_into(chain, b, kin, qd)]
    bias: list[sp.Expr] = []
    if {"bias", "forward_dynamics"} & want:
        h, _ = _rnea_into(chain, b, kin, qd, zero, True)
        bias = [b.let(h[i] + friction[i]) for i in range(n)]
        if "bias" in want:
            outputs["bias"] = bias
    if "inverse_dynamics" in want:
        tau, _ = _rnea_into(chain, b, kin, qd, code["qdd"], True)
        outputs["inverse_dynamics"] = [b.let(tau[i] + friction[i]) for i in range(n)]
    if "forward_dynamics" in want:
        if forward == "aba":
            net = [code["tau"][i] - friction[i] for i in range(n)]
            outputs["forward_dynamics"] = _aba_into(chain, b, kin, qd, net)
        else:
            rhs = [b.let(code["tau"][i] - bias[i]) for i in range(n)]
            outputs["forward_dynamics"] = _ldlt_solve(b, M, rhs)
    body, outs = _finish_outputs(outputs, b.body, cse)
    prog = _empty_program(system, binding, code)
    for name, exprs in outs.items():
        prog.kernels[name] = Kernel(
            name, KERNELS[name], prune(body, [], exprs), exprs, output_shape(name, n)
        )
    if binding.bound and "M" in prog.kernels:
        _check_nonsingular(prog, binding)
    known = {s for v in code.values() for s in v} | {s for s, _ in body}
    for k, v in outs.items():
        _check_symbols(k, v, known)
    for _, e in body:
        _check_symbols("an intermediate", [e], known)
    return prog


#: Digits of the Floats that stand for the chain's irrational constants in the programs.
CONSTANT_DIGITS = 40


def _constant(e: Any) -> Any:
    """``e`` with every numeric, non-rational part (``cos(123/1000)``, ``sqrt(2)``) a Float."""
    e = sp.sympify(e)
    if e.is_Rational or e.is_Atom:
        return e
    if e.is_number:
        return sp.Float(e.evalf(CONSTANT_DIGITS), CONSTANT_DIGITS)
    return e.func(*[_constant(a) for a in e.args])


def _numeric_constants(chain: Chain) -> Chain:
    """``chain`` with its irrational constants as 40-digit Floats (rationals stay exact)."""

    def mat(m: Any) -> Any:
        return sp.ImmutableMatrix(m.rows, m.cols, [_constant(x) for x in m])

    def sym(m: Any) -> Any:
        upper = {(i, j): _constant(m[i, j]) for i in range(3) for j in range(i, 3)}
        return sp.ImmutableMatrix(3, 3, lambda i, j: upper[min(i, j), max(i, j)])

    return _map_chain(chain, _constant, mat, sym)


def _clean(e: sp.Expr) -> sp.Expr:
    """Floats at full double precision; rationals of the chain stay exact."""
    return full_precision_floats(sp.sympify(e))


def _check_symbols(what: str, exprs: Sequence[sp.Expr], known: set[sp.Basic]) -> None:
    for e in exprs:
        stray = e.free_symbols - known
        if stray or e.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
            bad = ", ".join(sorted(map(str, stray))) or str(e)
            raise LagdynError(
                f"cannot generate numeric code: {what} reads {bad}, which are neither "
                "coordinates, rates nor parameters (or is undefined with the bound values)"
            )


def _check_nonsingular(prog: Program, binding: Binding) -> None:
    """Raise if the bound values make M singular: exact zero rows, or det M = 0 at three
    random states (40-digit arithmetic through the M kernel's straight-line body)."""
    n = prog.n
    kernel = prog.kernels["M"]
    zero_rows = [i for i in range(n) if all(kernel.outputs[i * n + j] == 0 for j in range(n))]
    if not zero_rows:
        rng = random.Random(1234)
        for _ in range(3):
            point: dict[sp.Basic, sp.Expr] = {
                s: sp.Float(rng.uniform(-3, 3), 40) for s in prog.vector("q")
            }
            point.update({s: sp.Float(rng.uniform(0.5, 2.0), 40) for s in prog.vector("params")})
            for s, e in kernel.body:
                point[s] = sp.N(e.xreplace(point), 40)
            A = sp.Matrix(n, n, [sp.N(e.xreplace(point), 40) for e in kernel.outputs])
            det = A.det(method="berkowitz")
            scale = math.prod(float(sp.Abs(A[i, i])) or 1.0 for i in range(n)) or 1.0
            if abs(float(det)) > 1e-30 * scale:
                return
    names = ", ".join(f"{s.name} = {v!r}" for s, v in binding.bound.items())
    where = f"; rows {', '.join(map(str, zero_rows))} of M vanish" if zero_rows else "; det M = 0"
    raise SingularMassMatrixError(
        f"the bound parameter values make the mass matrix singular ({names}{where}): "
        "bind other values or remove the coordinates they freeze"
    )

r"""Bring your model: a :mod:`sympy.physics.mechanics` model as a lagdyn system.

:func:`from_mechanics` reads a ``KanesMethod``, a ``LagrangesMethod``, a ``System`` (bodies,
joints, loads, actuators, holonomic constraints), a ``JointsMethod``, or a frame with bodies,
particles and loads, and returns the equivalent :class:`~lagdyn.LagrangianSystem` — or a
:class:`~lagdyn.ConstrainedSystem` when the model has holonomic constraints:

* **coordinates**: the model's own ``dynamicsymbols`` q(t), in its order (independent ones
  first, then dependent ones), so expressions move between the two packages unchanged;
* **kinetic energy**: :math:`T = \sum_b \tfrac12 m_b v_b\cdot v_b + \tfrac12\omega_b\cdot
  I_b\,\omega_b` of the bodies and particles, from the velocities the model defines (sympy's
  ``kinetic_energy``); a ``LagrangesMethod`` gives its Lagrangian instead;
* **potential energy**: the bodies' ``potential_energy`` (where sympy's own method uses it:
  not under ``KanesMethod``, which ignores it — lagdyn then warns and ignores it too), and
  every constant force :math:`F` (its components in the inertial frame free of q, q̇ and t,
  e.g. gravity :math:`m g`) at a point whose position :math:`r(q)` from a fixed point is
  known and consistent with its velocity: :math:`V = -F\cdot r`;
* **generalized forces** by virtual work with the partial velocities: a force :math:`F` at a
  point :math:`P` gives :math:`Q_i = F\cdot\partial v_P/\partial\dot q_i`, a torque
  :math:`\tau` on a frame :math:`B` gives :math:`Q_i = \tau\cdot\partial\omega_B/\partial
  \dot q_i`;
* **specified inputs**: a function of time in a load that is not a coordinate (``F(t)`` of
  PyDy's cart) becomes the real parameter of the same name (``F``), passed per call in
  numerics;
* **holonomic constraints** Φ(q) = 0: the configuration constraints of the model.

Generalized speeds: lagdyn's velocities are the rates q̇, so the speeds u of a model (Kane)
are written in the rates: kinematic differential equations affine in u and q̇ give u = K(q,
t) q̇ + k(q, t) (u = ±q̇ up to order, the default of every sympy joint, is read row by row),
and K must be invertible at random states (else the equations are refused by name: the rates
could not be recovered from the speeds). Only the coefficients of the speeds are inverted,
block by block: a rotation block (speeds that are a velocity's components in a rotated
frame) by its transpose, so the map stays a product of sines and cosines. The returned
system is in q̇, so it holds where K is singular too (Euler-angle rates at gimbal lock).

The velocity of every point read is checked to be the time derivative of its position from
a fixed point, when one is known (under a map other than u = ±q̇ that derivative is then
used, compact where the map is not). **Rolling contacts**: a body measured from a point C
of zero velocity (``C.set_vel(N, 0)``, or speeds held at zero by auxiliary speeds or by
velocity constraints), whose velocity is not the rate of its position from C, rolls on C:
C is the body's contact point, at rest, whose location moves with v_C = v − dr/dt (linear
in the rates). lagdyn gives C's location coordinates named after it, ``C_x``, ``C_y``
(``C_z``), in the inertial frame's axes along which v_C is not identically zero, appended
after the model's coordinates, with the no-slip conditions ẋ_C = v_C as velocity
constraints, and builds the kinetic energy from ẋ_C + dr/dt, which equals the model's
velocity on every admissible motion: sympy's documentation rolling disc reads as the
five-coordinate disc with two no-slip constraints, whose reduced equations are Kane's.
Speeds that appear in no kinematic differential equation are solved from as many velocity
constraints (which are consumed). Speeds that nothing determines (a freely sliding
contact's), contacts whose velocity two points disagree on, and other velocities that are
not rates of positions are refused by name, since a Lagrangian in q built from them would
give wrong dynamics. Auxiliary speeds are set to zero, as
``KanesMethod`` does for the equations of motion. Velocity constraints that are not the time
derivatives of the holonomic constraints (nonholonomic constraints: the rolling disc), and
the nonholonomic constraints of a ``LagrangesMethod`` or ``System``, become the
``velocity_constraints`` of the returned :class:`~lagdyn.ConstrainedSystem` (written in q̇,
the speeds mapped back); its :meth:`~lagdyn.ConstrainedSystem.reduced` equations on the
independent speeds are then Kane's: for a ``KanesMethod`` with dependent speeds, the rows of
its ``mass_matrix`` and ``forcing`` for the independent speeds, with the dependent
accelerations eliminated by its differentiated velocity constraints, equal
:attr:`ReducedSystem.M_reduced <lagdyn.nonholonomic.ReducedSystem.M_reduced>` and
``forcing``.

Round trip: with u = K q̇ + k and w = u̇ − K q̈ = K̇ q̇ + k̇, the model's ``mass_matrix`` M_u
and ``forcing`` F_u satisfy Kᵀ M_u K = M and Kᵀ (F_u − M_u w) = −h + Q (for u = P q̇, P a
signed permutation: M_u = P M Pᵀ and F_u = P(−h + Q); for a holonomic ``KanesMethod``, the
first rows are those projected on the independent speeds).

Examples
--------
>>> import sympy as sp, sympy.physics.mechanics as me, lagdyn as ld
>>> q, u = me.dynamicsymbols("q u")
>>> m, l, g = sp.symbols("m l g", positive=True)
>>> N = me.ReferenceFrame("N")
>>> O = me.Point("O")
>>> O.set_vel(N, 0)
>>> A = N.orientnew("A", "Axis", (q, N.z))
>>> A.set_ang_vel(N, u * N.z)
>>> P = O.locatenew("P", -l * A.y)
>>> _ = P.v2pt_theory(O, N, A)
>>> bob = me.Particle("bob", P, m)
>>> km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u], bodies=[bob],
...                     forcelist=[(P, -m * g * N.y)])
>>> pend = ld.from_mechanics(km)
>>> pend.M, pend.g
(Matrix([[l**2*m]]), Matrix([[g*l*m*sin(q(t))]]))
"""

from __future__ import annotations

import random
import re
import warnings
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import symengine as se
import sympy as sp
from sympy.core.function import AppliedUndef

import lagdyn.trig.convert as _convert

from ._common import numeric_rank
from .constraints import ConstrainedSystem
from .errors import ConstraintError, CoordinateError, LagdynError, LagdynWarning
from .symbols import check_names, t
from .system import LagrangianSystem, _as_expr
from .trig.identities import decide_zero

__all__ = ["from_mechanics"]

#: The model classes :func:`from_mechanics` reads, for the messages.
_ACCEPTED = (
    "a KanesMethod, LagrangesMethod, System or JointsMethod of sympy.physics.mechanics, "
    "or bodies=[...] with frame= and q= (keyword arguments)"
)


@dataclass
class _Model:
    """What every kind of model is read into (all sympy objects as the model holds them)."""

    kind: str
    frame: Any
    q: list[sp.Expr]
    u: list[sp.Expr] = field(default_factory=list)
    kdes: list[sp.Expr] = field(default_factory=list)
    u_aux: list[sp.Expr] = field(default_factory=list)
    bodies: list[Any] = field(default_factory=list)
    #: ("force", point, vector) or ("torque", frame, vector)
    loads: list[tuple[str, Any, Any]] = field(default_factory=list)
    lagrangian: sp.Expr | None = None
    potential: sp.Expr = sp.S.Zero
    holonomic: list[sp.Expr] = field(default_factory=list)
    #: velocity constraints to check against the holonomic ones (in u and/or q̇)
    velocity: list[sp.Expr] = field(default_factory=list)
    #: constraints known to be nonholonomic (System, LagrangesMethod)
    nonholonomic: list[sp.Expr] = field(default_factory=list)
    origins: list[Any] = field(default_factory=list)


# ---------------------------------------------------------------------- public entry point
def from_mechanics(
    model: Any = None,
    /,
    *,
    bodies: Sequence[Any] | None = None,
    frame: Any = None,
    q: Sequence[sp.Expr] | None = None,
    loads: Sequence[Any] = (),
    potential: Any = 0,
    constraints: Sequence[sp.Expr] = (),
    speeds: Sequence[sp.Expr] = (),
    kdes: Sequence[sp.Expr] = (),
    origin: Any = None,
) -> LagrangianSystem | ConstrainedSystem:
    r"""The lagdyn system of a :mod:`sympy.physics.mechanics` model.

    Parameters
    ----------
    model : KanesMethod, LagrangesMethod, System or JointsMethod, optional
        A model of sympy's mechanics package. Nothing needs to be formed first: the model is
        read, not its equations (``KanesMethod`` needs its bodies, given to the constructor
        or to ``kanes_equations``). Omit it to pass the pieces below instead.
    bodies : sequence of RigidBody and Particle
        Without ``model``: the bodies; their ``potential_energy`` is included (as in
        sympy's ``Lagrangian``).
    frame : ReferenceFrame
        Without ``model``: the inertial frame.
    q : sequence of dynamicsymbols
        Without ``model``: the generalized coordinates.
    loads : sequence of Force, Torque or (Point or ReferenceFrame, Vector)
        Without ``model``: the loads.
    potential : sympy.Expr
        Without ``model``: a further potential energy V(q) (springs, ...).
    constraints : sequence of sympy.Expr
        Without ``model``: holonomic constraints Φ(q) = 0.
    speeds, kdes : sequences of sympy.Expr
        Without ``model``: generalized speeds used in the velocities, and the kinematic
        differential equations (each = 0) that relate them to q̇: u = K(q, t) q̇ + k(q, t)
        with K invertible.
    origin : Point, optional
        A point fixed in the inertial frame, from which the positions of loaded points are
        measured to turn constant forces into a potential; by default the ``System``'s
        fixed point or a point connected to the loaded one whose velocity is set to zero.

    Returns
    -------
    LagrangianSystem or ConstrainedSystem
        A :class:`~lagdyn.ConstrainedSystem` over the system of all coordinates when the
        model has holonomic or velocity constraints (a body rolling on a contact point of
        zero velocity adds the contact's coordinates and its no-slip constraints), else a
        :class:`~lagdyn.LagrangianSystem`.

    Raises
    ------
    LagdynError
        Not a mechanics model; a model without bodies; kinematic differential equations
        that are not linear in the speeds and rates or whose map K is not invertible; speeds
        in no kinematic differential equation that no velocity constraint determines, or a
        point velocity that is neither the rate of its position nor that of a body rolling
        on a point of zero velocity (velocities set without coordinates); a velocity
        that depends on a function of time that is not a coordinate (prescribed motion) or
        is not defined; a negative mass; parameter names
        that are not identifiers or that lagdyn reserves.
    ConstraintError
        Velocity constraints that could not be evaluated or told apart from the rates of
        the holonomic ones; more constraints than speeds (from ConstrainedSystem).

    Examples
    --------
    The double pendulum built with joints:

    >>> import sympy as sp, sympy.physics.mechanics as me, lagdyn as ld
    >>> m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    >>> ceiling = me.RigidBody("C")
    >>> upper = me.Particle("P1", mass=m1)
    >>> lower = me.Particle("P2", mass=m2)
    >>> upper.frame = me.ReferenceFrame("U")
    >>> lower.frame = me.ReferenceFrame("L")
    >>> system = me.System.from_newtonian(ceiling)
    >>> system.add_joints(
    ...     me.PinJoint("J1", ceiling, upper, child_point=l1 * upper.frame.y),
    ...     me.PinJoint("J2", upper, lower, child_point=l2 * lower.frame.y))
    >>> system.apply_uniform_gravity(-g * ceiling.y)
    >>> dp = ld.from_mechanics(system)
    >>> dp.q
    (q_J1(t), q_J2(t))
    >>> dp.g[1]
    g*l2*m2*sin(q_J1(t) + q_J2(t))
    >>> dp.is_skew_symmetric()
    True
    """
    pieces = {
        "bodies": bodies is not None,
        "frame": frame is not None,
        "q": q is not None,
        "loads": bool(loads),
        "potential": not (isinstance(potential, (int, sp.Integer)) and potential == 0),
        "constraints": bool(constraints),
        "speeds": bool(speeds),
        "kdes": bool(kdes),
    }
    origins = [] if origin is None else [_check_point(origin, "origin")]
    if model is not None:
        given = [name for name, present in pieces.items() if present]
        if given:
            raise LagdynError(
                f"from_mechanics(): {', '.join(given)} given with a model; pass either a model "
                "or its pieces (bodies=, frame=, q=, loads=, ...), not both"
            )
        data = _read_model(model)
    else:
        data = _read_pieces(bodies, frame, q, loads, potential, constraints, speeds, kdes)
    data.origins[:0] = origins
    return _build(data)


# ---------------------------------------------------------------------- readers
def _mechanics() -> Any:
    import sympy.physics.mechanics as me

    return me


def _read_model(model: Any) -> _Model:
    me = _mechanics()
    if isinstance(model, me.KanesMethod):
        return _read_kanes(model)
    if isinstance(model, me.LagrangesMethod):
        return _read_lagranges(model)
    if isinstance(model, me.System):
        return _read_system(model)
    if isinstance(model, me.JointsMethod):
        return _read_joints(model)
    if isinstance(model, (list, tuple)):
        raise LagdynError(
            f"from_mechanics() got a {type(model).__name__} as the model; pass bodies as "
            "from_mechanics(bodies=[...], frame=N, q=[...], loads=[...])"
        )
    raise LagdynError(
        f"from_mechanics() cannot read a {type(model).__name__}: it reads {_ACCEPTED}"
    )


def _column(value: Any) -> list[sp.Expr]:
    if value is None:
        return []
    return list(value)


def _ignored_potentials(bodies: Iterable[Any], kind: str) -> None:
    """Warn about bodies' potential energies that ``KanesMethod`` (hence lagdyn) ignores."""
    named = [b.name for b in bodies if sp.sympify(getattr(b, "potential_energy", 0)) != 0]
    if named:
        warnings.warn(
            f"from_mechanics(): the potential_energy of {', '.join(named)} is ignored, as "
            f"{kind} ignores it; apply the forces as loads (or read the model with "
            "LagrangesMethod) to include it",
            LagdynWarning,
            stacklevel=5,  # the caller of from_mechanics
        )


def _body_potentials(bodies: Iterable[Any]) -> sp.Expr:
    return sp.Add(*(sp.sympify(getattr(b, "potential_energy", 0)) for b in bodies))


def _read_kanes(km: Any) -> _Model:
    if not km._k_kqdot_implicit:
        raise LagdynError(
            "from_mechanics(): this KanesMethod has no kinematic differential equations "
            "(kd_eqs=): they relate its speeds to the rates of its coordinates"
        )
    if km.bodies is None:
        raise LagdynError(
            "from_mechanics(): this KanesMethod has no bodies; pass bodies= to KanesMethod or "
            "call kanes_equations(bodies, loads) first"
        )
    qd = km.q.diff(t)
    kdes = km._k_ku_implicit * km.u + km._k_kqdot_implicit * qd + km._f_k_implicit
    velocity = list(km._k_nh * km.u + km._f_nh) if km._k_nh else []
    bodies = list(km.bodies)
    _ignored_potentials(bodies, "KanesMethod")
    return _Model(
        kind="KanesMethod",
        frame=km._inertial,
        q=list(km.q),
        u=list(km.u),
        kdes=list(kdes),
        u_aux=_column(km._uaux),
        bodies=bodies,
        loads=_parse_loads(km.loads or ()),
        holonomic=_column(km._f_h),
        velocity=velocity,
    )


def _read_lagranges(lm: Any) -> _Model:
    loads = _parse_loads(lm.forcelist or ())
    if loads and lm.inertial is None:
        raise LagdynError(
            "from_mechanics(): this LagrangesMethod has loads but no inertial frame: pass "
            "frame= to LagrangesMethod"
        )
    hol = _column(lm._hol_coneqs)
    return _Model(
        kind="LagrangesMethod",
        frame=lm.inertial,
        q=list(lm.q),
        bodies=list(lm._bodies or ()),
        loads=loads,
        lagrangian=sp.sympify(lm._L[0]),
        holonomic=hol,
        nonholonomic=list(lm.coneqs)[len(hol) :],
    )


def _read_system(system: Any) -> _Model:
    me = _mechanics()
    if not system.bodies:
        raise LagdynError("from_mechanics(): this System has no bodies (add_bodies, add_joints)")
    if not system.q:
        raise LagdynError(
            "from_mechanics(): this System has no generalized coordinates (add_coordinates, "
            "add_joints)"
        )
    bodies = list(system.bodies)
    if isinstance(system.eom_method, me.KanesMethod):
        _ignored_potentials(bodies, "its KanesMethod")
        potential = sp.S.Zero
    else:
        potential = _body_potentials(bodies)
    loads = [*system.loads, *(load for act in system.actuators for load in act.to_loads())]
    explicit = system._vel_constrs
    return _Model(
        kind="System",
        frame=system.frame,
        q=list(system.q),
        u=list(system.u),
        kdes=list(system.kdes),
        u_aux=list(system.u_aux),
        bodies=bodies,
        loads=_parse_loads(loads),
        potential=potential,
        holonomic=list(system.holonomic_constraints),
        velocity=list(explicit) if explicit is not None else [],
        nonholonomic=list(system.nonholonomic_constraints),
        origins=[system.fixed_point],
    )


def _read_joints(jm: Any) -> _Model:
    me = _mechanics()
    bodies = list(jm.bodies)
    if isinstance(jm.method, me.KanesMethod):
        _ignored_potentials(bodies, "its KanesMethod")
        potential = sp.S.Zero
    else:
        potential = _body_potentials(bodies)
    return _Model(
        kind="JointsMethod",
        frame=jm.frame,
        q=list(jm.q),
        u=list(jm.u),
        kdes=list(jm.kdes),
        bodies=bodies,
        loads=_parse_loads(jm.loads),
        potential=potential,
    )


def _read_pieces(
    bodies: Sequence[Any] | None,
    frame: Any,
    q: Sequence[sp.Expr] | None,
    loads: Sequence[Any],
    potential: Any,
    constraints: Sequence[sp.Expr],
    speeds: Sequence[sp.Expr],
    kdes: Sequence[sp.Expr],
) -> _Model:
    me = _mechanics()
    missing = [
        name for name, value in (("bodies", bodies), ("frame", frame), ("q", q)) if value is None
    ]
    if missing:
        raise LagdynError(
            f"from_mechanics(): no model given and {', '.join(missing)} missing; pass a model "
            f"({_ACCEPTED})"
        )
    if not isinstance(frame, me.ReferenceFrame):
        raise LagdynError(f"frame must be a ReferenceFrame, got {type(frame).__name__}")
    items = list(bodies or ())
    if not items:
        raise LagdynError("from_mechanics(): bodies is empty")
    wrong = [f"{i} ({type(b).__name__})" for i, b in enumerate(items) if not _is_body(b)]
    if wrong:
        raise LagdynError(
            f"bodies must be RigidBody or Particle objects; not so: {', '.join(wrong)}"
        )
    try:
        constraint_list = list(constraints)
    except TypeError:
        raise LagdynError(
            f"constraints must be a sequence of expressions, got {type(constraints).__name__}"
        ) from None
    return _Model(
        kind="model",
        frame=frame,
        q=list(q or ()),
        u=list(speeds),
        kdes=list(kdes),
        bodies=items,
        loads=_parse_loads(loads),
        potential=_as_expr(potential, "potential") + _body_potentials(items),
        holonomic=constraint_list,
    )


def _is_body(obj: Any) -> bool:
    me = _mechanics()
    return isinstance(obj, (me.RigidBody, me.Particle))


def _check_point(obj: Any, what: str) -> Any:
    me = _mechanics()
    if not isinstance(obj, me.Point):
        raise LagdynError(f"{what} must be a Point, got {type(obj).__name__}")
    return obj


def _parse_loads(loads: Iterable[Any]) -> list[tuple[str, Any, Any]]:
    """Loads as ("force", point, vector) or ("torque", frame, vector), every bad one named."""
    me = _mechanics()
    if isinstance(loads, (str, bytes, me.Vector)) or not isinstance(loads, Iterable):
        raise LagdynError(
            f"loads must be a sequence of Force, Torque or (Point or ReferenceFrame, Vector) "
            f"pairs, got {type(loads).__name__}"
        )
    out: list[tuple[str, Any, Any]] = []
    bad: list[str] = []
    for k, load in enumerate(loads):
        if isinstance(load, me.Torque):
            out.append(("torque", load.frame, load.torque))
            continue
        if isinstance(load, me.Force):
            out.append(("force", load.point, load.force))
            continue
        if not (isinstance(load, tuple) and len(load) == 2):
            bad.append(f"{k} ({type(load).__name__}, not a Force, Torque or pair)")
            continue
        where, vector = load
        if not isinstance(vector, me.Vector):
            bad.append(f"{k} (its second entry is a {type(vector).__name__}, not a Vector)")
        elif isinstance(where, me.Point):
            out.append(("force", where, vector))
        elif isinstance(where, me.ReferenceFrame):
            out.append(("torque", where, vector))
        elif isinstance(where, (me.RigidBody, me.Particle)):
            out.append(("force", where.masscenter, vector))
        else:
            bad.append(f"{k} (applied to a {type(where).__name__}, not a Point or ReferenceFrame)")
    if bad:
        raise LagdynError(f"loads not understood: {'; '.join(bad)}")
    return out


# ---------------------------------------------------------------------- conversion
def _build(model: _Model) -> LagrangianSystem | ConstrainedSystem:
    if model.frame is None and (model.loads or model.lagrangian is None):
        raise LagdynError(f"from_mechanics(): the {model.kind} has no inertial frame")
    q = _coordinates(model)
    qd = [qi.diff(t) for qi in q]
    sub = _speed_map(model, q, qd)
    general = any(not (v in qd or -v in qd) for v in sub.values())
    sub.update(dict.fromkeys(model.u_aux, sp.S.Zero))
    reading = _Reading(model, q, qd, sub)
    reading.check_rates = general
    if model.lagrangian is not None:
        L = reading.kinematic(model.lagrangian, "the Lagrangian")
    else:
        L = reading.kinetic_energy()  # may add the coordinates of rolling contacts to q
    V = reading.kinematic(model.potential, "the potential energy")
    V_loads, Q = reading.load_terms()
    nonholonomic = [reading.kinematic(c, "a nonholonomic constraint") for c in model.nonholonomic]
    nonholonomic += reading.contact_constraints()
    if model.velocity:
        velocity = [reading.kinematic(c, "a velocity constraint") for c in model.velocity]
        nonholonomic += _nonholonomic_rows(model, q, [*velocity], nonholonomic)
    Q = _inputs_as_parameters(Q, q)
    L = L - V - V_loads
    holonomic = [reading.kinematic(c, "a holonomic constraint") for c in model.holonomic]
    _check_names([L, *Q, *holonomic, *nonholonomic], q)
    forces = Q if any(f != 0 for f in Q) else None
    try:
        system = LagrangianSystem(L, q, forces)
    except LagdynError as exc:
        if not general:
            raise
        raise LagdynError(
            f"from_mechanics(): the {model.kind}'s speeds are a general map u = K(q, t) q̇ + "
            f"k(q, t) of the rates, and its kinetic energy written in the rates through that "
            f"map could not be derived: {exc}. Define the speeds as the rates (u - q̇ = 0, the "
            "default of every sympy joint) or a signed permutation of them"
        ) from exc
    if holonomic or nonholonomic:
        return ConstrainedSystem(system, holonomic, velocity_constraints=nonholonomic or None)
    return system


def _coordinates(model: _Model) -> list[sp.Expr]:
    q = list(model.q)
    if not q:
        raise CoordinateError(f"from_mechanics(): the {model.kind} has no generalized coordinates")
    bad = [str(x) for x in q if not (isinstance(x, AppliedUndef) and x.args == (t,))]
    if bad:
        raise CoordinateError(
            f"from_mechanics(): coordinates must be dynamicsymbols q(t) of the time "
            f"dynamicsymbols._t; not so: {', '.join(bad)}"
        )
    return q


def _refuse_foreign(expr: sp.Expr, q: Sequence[sp.Expr], what: str) -> None:
    """Refuse functions of time other than q (and their rates) in kinematic expressions."""
    qset = set(q)
    foreign = sorted(
        {str(f) for f in expr.atoms(AppliedUndef) if f not in qset and t in f.free_symbols}
    )
    if foreign:
        raise LagdynError(
            f"{what} depends on {', '.join(foreign)}, which {'is' if len(foreign) == 1 else 'are'}"
            " neither a coordinate nor a generalized speed of the model: prescribed motions "
            "(functions of time in the kinematics) are not supported; make "
            f"{'it a coordinate' if len(foreign) == 1 else 'them coordinates'} or a constant"
        )


# ---------------------------------------------------------------------- speeds
def _speed_map(model: _Model, q: list[sp.Expr], qd: list[sp.Expr]) -> dict[sp.Expr, sp.Expr]:
    """{u_j: (K q̇ + k)_j}: the generalized speeds in the rates; refuse maps that are not
    invertible and speeds that are not rates of coordinates."""
    rates = set(qd)
    speeds = [s for s in model.u if s not in rates]  # speeds that are rates map to themselves
    if not speeds:
        return {}
    kdes = [sp.sympify(e) for e in model.kdes if sp.sympify(e) != 0]
    if not kdes:
        names = ", ".join(map(str, speeds))
        raise LagdynError(
            f"from_mechanics(): the {model.kind} has generalized speeds {names} but no "
            "kinematic differential equations relating them to the rates of its coordinates"
        )
    solved = _speeds_fixed_by_constraints(model, kdes, speeds, q)
    speeds = [s for s in speeds if s not in solved]
    inner = _rates_map(model, kdes, speeds, q, qd) if speeds else {}
    return {**inner, **{s: e.xreplace(inner) for s, e in solved.items()}}


def _rates_map(
    model: _Model, kdes: list[sp.Expr], speeds: list[sp.Expr], q: list[sp.Expr], qd: list[sp.Expr]
) -> dict[sp.Expr, sp.Expr]:
    """{u_j: (K q̇ + k)_j} for speeds that all appear in the kinematic differential
    equations: row by row when u = ±q̇, else :func:`_linear_speed_map`."""
    out: dict[sp.Expr, sp.Expr] = {}
    used: set[sp.Expr] = set()
    for row in kdes:  # the common case, row by row: u = ±q̇
        pair = _speed_equals_rate(row, speeds, qd)
        if pair is None or pair[0] in out or pair[1] in used:
            break
        u, rate, sign = pair
        out[u] = sign * rate
        used.add(rate)
    if len(out) == len(kdes) and all(s in out for s in speeds):
        return out
    return _linear_speed_map(model, kdes, speeds, q, qd)


def _speeds_fixed_by_constraints(
    model: _Model, kdes: list[sp.Expr], speeds: list[sp.Expr], q: list[sp.Expr]
) -> dict[sp.Expr, sp.Expr]:
    """{u_f: expression in the other speeds}: the speeds that appear in no kinematic
    differential equation (the velocity of a rolling contact point set from speeds without
    coordinates: sympy's rolling disc with constraint forces) solved from as many of the
    model's velocity constraints, which are then consumed (the rest are kept, the solved
    speeds replaced in them). Empty when there are no such speeds; a named error when the
    velocity constraints do not determine them."""
    free = [s for s in speeds if not any(row.has(s) for row in kdes)]
    if not free:
        return {}
    rows = [sp.sympify(c) for c in model.velocity]
    involved = [i for i, c in enumerate(rows) if c.has(*free)]
    if not involved:
        raise LagdynError(_free_speeds_message(model, free))
    A = sp.Matrix([[rows[i].diff(s) for s in free] for i in involved])
    if A.has(*speeds, *(qi.diff(t) for qi in q)):
        raise LagdynError(
            f"from_mechanics(): the velocity constraints of the {model.kind} that hold the "
            f"speeds {', '.join(map(str, free))} are not linear in them"
        )
    pick: list[int] = []
    for i in range(len(involved)):  # rows that raise the rank, in order
        if _generic_rank(A.extract([*pick, i], list(range(len(free)))), q) > len(pick):
            pick.append(i)
        if len(pick) == len(free):
            break
    if len(pick) < len(free):
        raise LagdynError(_free_speeds_message(model, free, constrained=True))
    chosen = [involved[i] for i in pick]
    Af = A.extract(pick, list(range(len(free))))
    rest = sp.Matrix([rows[i] for i in chosen]).xreplace(dict.fromkeys(free, 0))
    values = -Af.inv() * rest if all(e.is_number for e in Af) else -Af.LUsolve(rest)
    solved = {s: _tidy_entry(v) for s, v in zip(free, values, strict=True)}
    model.velocity = [
        _tidy_entry(c.xreplace(solved)) for i, c in enumerate(rows) if i not in chosen
    ]
    return solved


def _linear_speed_map(
    model: _Model, kdes: list[sp.Expr], speeds: list[sp.Expr], q: list[sp.Expr], qd: list[sp.Expr]
) -> dict[sp.Expr, sp.Expr]:
    """u = K(q, t) q̇ + k(q, t) solved from kinematic differential equations affine in u and
    q̇, with the map from the rates to the speeds (and the rates that are speeds themselves)
    invertible at random states; the speeds are then replaced by K q̇ + k."""
    rows = sp.Matrix(kdes)
    free = [s for s in speeds if not rows.has(s)]
    if free:
        raise LagdynError(_free_speeds_message(model, free))
    Ku, Kq = rows.jacobian(speeds), rows.jacobian(qd)
    for i, row in enumerate(kdes):
        if Ku[i, :].has(*speeds, *qd) or Kq[i, :].has(*speeds, *qd):
            raise LagdynError(
                f"from_mechanics(): the kinematic differential equation {row} = 0 of the "
                f"{model.kind} is not linear in the speeds and the rates; lagdyn reads speeds "
                "u = K(q, t) q̇ + k(q, t) with K invertible"
            )
    rest = rows.xreplace({**dict.fromkeys(speeds, 0), **dict.fromkeys(qd, 0)})
    shown = "; ".join(f"{row} = 0" for row in kdes)
    if len(kdes) != len(speeds) or _generic_rank(Ku, q) < len(speeds):
        raise LagdynError(
            f"from_mechanics(): the kinematic differential equations of the {model.kind} "
            f"({shown}) do not determine its speeds {', '.join(map(str, speeds))} one each "
            f"({len(kdes)} equations for {len(speeds)} speeds, or dependent in the speeds)"
        )
    K, k = _solve_speeds(Ku, Kq, rest, q)
    own = {s for s in model.u}
    full = sp.Matrix.vstack(K, *(sp.Matrix([[int(r == c) for c in qd]]) for r in qd if r in own))
    rank = _generic_rank(full, q)
    if full.rows != len(qd) or rank < len(qd):
        raise LagdynError(
            f"from_mechanics(): the kinematic differential equations of the {model.kind} "
            f"({shown}) map the rates of its {len(qd)} coordinates to its speeds with rank "
            f"{rank} (of {full.rows} speeds) at random states: the speeds are not an "
            "invertible function u = K(q, t) q̇ + k(q, t) of the rates, so the rates cannot be "
            "recovered from them; lagdyn's velocities are the rates of the coordinates: "
            "define one speed per coordinate with K invertible (u - q̇ = 0, the default of "
            "every sympy joint)"
        )
    return {
        s: sum((_tidy_entry(K[j, i]) * r for i, r in enumerate(qd)), _tidy_entry(k[j]))
        for j, s in enumerate(speeds)
    }


def _solve_speeds(
    Ku: sp.Matrix, Kq: sp.Matrix, rest: sp.Matrix, q: list[sp.Expr]
) -> tuple[sp.Matrix, sp.Matrix]:
    """(K, k) = (−Ku⁻¹ Kq, −Ku⁻¹ rest) with Ku square, solved block by block.

    The equations split into the connected blocks of Ku's nonzero pattern (equations and
    speeds that share entries): a constant block is inverted exactly, a rotation block
    (speeds that are the components of a velocity in a rotated frame: BᵀB = I, proved in
    canonical trigonometric form) by its transpose, and only the remaining blocks by LU.
    LU on a rotation matrix gives ratios of trig polynomials that expand to thousands of
    terms (sympy's test_linearize rolling disc); the transpose is a product of sines and
    cosines. Only Ku is inverted: the speeds are written in the rates, u = K q̇ + k, never
    the rates in the speeds."""
    n = Ku.rows
    K = sp.zeros(n, Kq.cols)
    k = sp.zeros(n, 1)
    for rows, cols in _blocks(Ku):
        B = Ku.extract(rows, cols)
        Kq_b, rest_b = Kq.extract(rows, list(range(Kq.cols))), rest.extract(rows, [0])
        if all(e.is_number for e in B):
            inv = B.inv()
            solved, offset = -inv * Kq_b, -inv * rest_b
        elif _is_orthogonal(B, q):
            solved, offset = -B.T * Kq_b, -B.T * rest_b
        else:
            solved, offset = -B.LUsolve(Kq_b), -B.LUsolve(rest_b)
        for i, c in enumerate(cols):
            K[c, :] = solved[i, :]
            k[c] = offset[i]
    return K, k


def _blocks(Ku: sp.Matrix) -> list[tuple[list[int], list[int]]]:
    """The connected blocks (rows, columns) of a square matrix's nonzero pattern, each
    square; one block (the whole matrix) when they are not."""
    n = Ku.rows
    parent = list(range(2 * n))  # rows 0..n-1, columns n..2n-1

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i in range(n):
        for j in range(n):
            if Ku[i, j] != 0:
                parent[find(i)] = find(n + j)
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for a in range(2 * n):
        rows, cols = groups.setdefault(find(a), ([], []))
        (rows if a < n else cols).append(a % n)
    blocks = list(groups.values())
    if any(len(rows) != len(cols) for rows, cols in blocks):
        return [(list(range(n)), list(range(n)))]
    return blocks


def _is_orthogonal(B: sp.Matrix, q: list[sp.Expr]) -> bool:
    """Whether BᵀB = I identically (proved in canonical trigonometric form)."""
    if B.rows < 2:
        return False
    forward, _ = _convert.substitution(q, [qi.diff(t) for qi in q], *_convert.state_symbols(len(q)))
    residual = [_convert.to_plain(e, forward) for e in (B.T * B - sp.eye(B.rows))]
    plain_q = [forward[qi] for qi in q]
    return decide_zero(residual, plain_q, simplify=False) is True


def _tidy_entry(entry: sp.Expr) -> sp.Expr:
    """An entry of the solved speed map, made compact where that is cheap: the entries of
    ``Ku⁻¹ Kq`` for speeds in rotated frames are ratios of trig polynomials that
    ``sp.expand`` blows up (sympy's documentation rolling disc: minutes); symengine's
    expansion of the numerator over one denominator is tried first."""
    if entry.is_number:
        return entry
    num, den = sp.fraction(sp.together(entry))
    num = sp.sympify(se.expand(se.sympify(num)))
    den = sp.sympify(se.expand(se.sympify(den)))
    # symengine drops assumptions: the model's own symbols and functions are put back
    back: dict[sp.Expr, sp.Expr] = {sp.Symbol(s.name): s for s in entry.free_symbols}
    back.update({sp.Function(f.func.__name__)(*f.args): f for f in entry.atoms(AppliedUndef)})
    return (num / den).xreplace(back)


def _generic_rank(matrix: sp.Matrix, q: list[sp.Expr]) -> int:
    """The rank of a matrix of functions of q, t and parameters: exact for numbers, else the
    largest numeric rank at two random states (parameters positive unless declared
    negative); an entry that does not evaluate to a real number counts as rank deficient."""
    if all(e.is_number for e in matrix):
        return int(matrix.rank())
    rng = random.Random(24)
    symbols = sorted(matrix.free_symbols - {t}, key=str)
    best = 0
    for _ in range(2):
        values: dict[Any, Any] = {qi: rng.uniform(-3.0, 3.0) for qi in q}
        values.update(
            {s: -rng.uniform(0.5, 2.0) if s.is_negative else rng.uniform(0.5, 2.0) for s in symbols}
        )
        values[t] = rng.uniform(0.0, 1.0)
        try:
            rows = [
                [float(matrix[i, j].xreplace(values)) for j in range(matrix.cols)]
                for i in range(matrix.rows)
            ]
        except TypeError:
            continue
        best = max(best, numeric_rank(rows))
    return best


def _free_speeds_message(model: _Model, free: list[sp.Expr], constrained: bool = False) -> str:
    names = ", ".join(map(str, free))
    held = (
        "and the velocity constraints do not determine them (fewer independent rows in "
        "them than such speeds)"
        if constrained
        else "and no velocity constraint holds them"
    )
    return (
        f"from_mechanics(): the speed{'s' if len(free) > 1 else ''} {names} of the "
        f"{model.kind} appear{'' if len(free) > 1 else 's'} in no kinematic differential "
        f"equation {held}: they are degrees of freedom with no coordinate (a point's "
        "velocity set from free speeds, such as a sliding contact's). lagdyn's velocities "
        "are the rates of coordinates, so it cannot integrate such a speed into a position. "
        "Give the moving point coordinates (e.g. x, y of the contact, with kinematic "
        "differential equations u = ẋ, ẏ), or set its velocity to zero for a rolling "
        "contact (set_vel(N, 0), or the no-slip conditions as velocity constraints that "
        "determine these speeds): lagdyn then adds the contact's coordinates itself "
        "(docs/mechanics.md)"
    )


def _speed_equals_rate(
    row: sp.Expr, speeds: list[sp.Expr], qd: list[sp.Expr]
) -> tuple[sp.Expr, sp.Expr, int] | None:
    """(u, q̇, ±1) when ``row`` = 0 says u = ±q̇, else None."""
    cu = [(s, row.diff(s)) for s in speeds if row.has(s)]
    cq = [(r, row.diff(r)) for r in qd if row.has(r)]
    if len(cu) != 1 or len(cq) != 1:
        return None
    (u, a), (rate, b) = cu[0], cq[0]
    rest = sp.expand(row - a * u - b * rate)
    if rest != 0 or a.has(*speeds, *qd) or b.has(*speeds, *qd):
        return None
    ratio = sp.cancel(-b / a)
    if ratio in (1, -1):
        return u, rate, int(ratio)
    return None


# ---------------------------------------------------------------------- constraints
def _nonholonomic_rows(
    model: _Model, q: list[sp.Expr], velocity: list[sp.Expr], known: list[sp.Expr]
) -> list[sp.Expr]:
    """The velocity constraints c(q, q̇) outside the span of the holonomic ones' rates Φ̇
    and of the ``known`` nonholonomic rows: the model's nonholonomic constraints.

    Both are affine in q̇: their rows [coefficients of q̇ | rest] are evaluated at q̇ = 0 and
    at each unit q̇ (no symbolic differentiation in q̇), at two random points (parameters
    positive unless declared negative), and compared by numeric rank; a row is kept when it
    raises the rank at both points (the same rows at both, else a named error)."""
    qd = [qi.diff(t) for qi in q]
    rows = [sp.diff(c, t) for c in model.holonomic] + list(known)
    rng = random.Random(24)
    symbols = sorted(set().union(*(e.free_symbols for e in (*rows, *velocity))) - {t}, key=str)
    picks: list[list[int]] = []
    for _ in range(2):
        values: dict[Any, Any] = {qi: rng.uniform(-3.0, 3.0) for qi in q}
        values.update(
            {s: -rng.uniform(0.5, 2.0) if s.is_negative else rng.uniform(0.5, 2.0) for s in symbols}
        )
        values[t] = rng.uniform(0.0, 1.0)

        try:
            own, given = _affine_rows(rows, qd, values), _affine_rows(velocity, qd, values)
        except TypeError:
            raise ConstraintError(
                f"from_mechanics(): could not evaluate the velocity constraints of the "
                f"{model.kind} to tell which are the time derivatives of its holonomic "
                "constraints"
            ) from None
        kept: list[int] = []
        basis = list(own)
        for i, row in enumerate(given):
            if numeric_rank([*basis, row]) > numeric_rank(basis) if basis else any(row):
                kept.append(i)
                basis.append(row)
        picks.append(kept)
    if picks[0] != picks[1]:
        raise ConstraintError(
            f"from_mechanics(): the velocity constraints of the {model.kind} change rank "
            "between random states; could not tell the nonholonomic ones apart"
        )
    return [velocity[i] for i in picks[0]]


def _affine_rows(
    exprs: list[sp.Expr], qd: list[sp.Expr], values: dict[Any, Any]
) -> list[list[float]]:
    """Rows [∂e/∂q̇ | e at q̇ = 0] of expressions affine in q̇, at the numeric ``values``."""
    n = len(qd)
    at = [
        [float(e.xreplace({**values, **{r: int(j == k) for j, r in enumerate(qd)}})) for e in exprs]
        for k in range(-1, n)
    ]
    return [[at[k + 1][i] - at[0][i] for k in range(n)] + [at[0][i]] for i in range(len(exprs))]


# ---------------------------------------------------------------------- energies and loads
class _Reading:
    """One reading of a model: its speeds replaced by rates, velocities in the inertial
    frame's axes computed once per point."""

    def __init__(
        self, model: _Model, q: list[sp.Expr], qd: list[sp.Expr], sub: dict[sp.Expr, sp.Expr]
    ) -> None:
        self.model = model
        self.N = model.frame
        self.q = q
        self.qd = qd
        self.sub = sub
        #: point velocities are checked against positions (every model; was: general maps)
        self.check_rates = False
        self._velocities: dict[Any, sp.Matrix] = {}
        #: rolling contacts: point → (its coordinates per axis or None, v_C, first point)
        self._contacts: dict[Any, tuple[list[Any], sp.Matrix, Any]] = {}

    def kinematic(self, expr: Any, what: str) -> Any:
        """``expr`` with the speeds replaced by rates; functions of t other than q refused."""
        expr = sp.sympify(expr)
        if self.sub:
            expr = expr.xreplace(self.sub)
        _refuse_foreign(expr, self.q, what)
        return expr

    def velocity(self, point: Any) -> sp.Matrix:
        """The velocity of ``point`` in the inertial frame, in its axes (ValueError from sympy
        when it is not defined), checked to be the time derivative of the point's position
        from a fixed point when one is known (:meth:`_located`)."""
        found = self._velocities.get(point)
        if found is None:
            v = point.vel(self.N).to_matrix(self.N)
            found = self._located(point, self.kinematic(v, f"the velocity of {point}"))
            self._velocities[point] = found
        return found

    def _origins(self, point: Any) -> Iterable[Any]:
        """Points to measure ``point`` from: the given fixed ones, then any point connected
        to it (through set_pos/locatenew) whose velocity in the frame is zero once the
        speeds are written in the rates."""
        yield from self.model.origins
        seen = {point}
        todo = deque([point])
        while todo:
            p = todo.popleft()
            vel = p._vel_dict.get(self.N)
            if vel is not None and (
                vel == 0 or all(e.xreplace(self.sub) == 0 for m, _ in vel.args for e in m)
            ):
                yield p
            for other in p._pos_dict:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)

    def _located(self, point: Any, velocity: sp.Matrix) -> sp.Matrix:
        """The velocity to build the kinetic energy from: ``velocity`` when it is the time
        derivative of the point's position r(q, t) from a fixed point (under a general
        speed map, that derivative itself, compact where the speeds' map is not);
        ``velocity`` too when no position is known.

        A point measured from a point of zero velocity C whose velocity is not the rate of
        its position is read as a rolling contact: C is the contact point of the body
        (zero velocity) whose location in the plane moves, with the velocity
        v_C = v − dr/dt (linear in the rates). C's location gets coordinates, one per axis
        in which v_C is not identically zero, with the velocity constraints ẋ_C = v_C, and
        the point's velocity is ẋ_C + dr/dt: a Lagrangian velocity that equals the model's
        on every admissible motion. Any other velocity that is not the rate of its
        position is refused by name: a Lagrangian in q built from it would be wrong."""
        for origin in self._origins(point):
            try:
                r = point.pos_from(origin).to_matrix(self.N)
            except ValueError:
                continue
            if r.atoms(sp.Derivative):
                return velocity  # a position in rates: nothing to compare with
            rate = sp.diff(r, t)
            pairs = list(zip(velocity, r, strict=True))
            if all(_is_rate_of(v, x, self.q, self.qd) for v, x in pairs) or _vanishes_at_random(
                [v - x for v, x in zip(velocity, rate, strict=True)], self.q, self.qd
            ):
                return rate if self.check_rates else velocity
            drift = sp.Matrix([_tidy_entry(v - x) for v, x in zip(velocity, rate, strict=True)])
            still = drift.xreplace(dict.fromkeys(self.qd, 0))
            fixed = origin in self.model.origins
            if not fixed and _vanishes_at_random(list(still), self.q, self.qd):
                return self._contact(origin, drift, point) + rate
            why = (
                f"{origin} is a fixed point"
                if fixed
                else f"the difference, {list(drift)}, does not vanish at rest"
            )
            raise LagdynError(
                f"from_mechanics(): the velocity of {point} in {self.N} ({list(velocity)} in "
                f"its axes, the speeds of the {self.model.kind} written in the rates) is not "
                f"the time derivative of its position from {origin}, nor that of a rolling "
                f"contact at {origin} ({why}): it is set by speeds that are not the rates of "
                "its coordinates; lagdyn "
                "reads the kinetic energy of velocities that are rates of positions in q, so "
                "a Lagrangian from this one would give wrong dynamics; give the point "
                "coordinates and write the conditions on its velocity as velocity constraints"
            )
        return velocity

    def _contact(self, origin: Any, drift: sp.Matrix, point: Any) -> sp.Matrix:
        """The rate of the location of the rolling contact ``origin`` (its new coordinates'
        rates, 0 in the axes it does not move along), recording it the first time; the
        same contact seen from another point must move with the same velocity."""
        known = self._contacts.get(origin)
        if known is not None:
            coords, moving, first = known
            if not _vanishes_at_random(list(drift - moving), self.q, self.qd):
                raise LagdynError(
                    f"from_mechanics(): {first} and {point} are both measured from {origin}, "
                    f"whose velocity is zero, but their velocities give two different "
                    f"velocities of the location of {origin} ({list(moving)} and "
                    f"{list(drift)} in the axes of {self.N}): {origin} is neither a fixed "
                    "point nor the rolling contact of one rigid body; give it coordinates"
                )
        else:
            taken = {str(qi.func) for qi in self.q} | {
                s.name for e in drift for s in e.free_symbols
            }
            coords = []
            for axis, entry in zip("xyz", drift, strict=True):
                if _is_rate_of(entry, sp.S.Zero, self.q, self.qd):
                    coords.append(None)
                    continue
                stem = re.sub(r"\W", "_", origin.name)
                name = f"{stem if stem[:1].isalpha() else 'contact_' + stem}_{axis}"
                while name in taken:
                    name += "_"
                taken.add(name)
                coordinate = sp.Function(name)(t)  # as dynamicsymbols makes it
                coords.append(coordinate)
                self.q.append(coordinate)
                self.qd.append(coordinate.diff(t))
            self._contacts[origin] = (coords, drift, point)
        return sp.Matrix([0 if c is None else c.diff(t) for c in coords])

    def contact_position(self, origin: Any) -> sp.Matrix | None:
        """The location of a rolling contact (its coordinates), None for other points."""
        known = self._contacts.get(origin)
        if known is None:
            return None
        return sp.Matrix([0 if c is None else c for c in known[0]])

    def contact_constraints(self) -> list[sp.Expr]:
        """ẋ_C − v_C = 0 for each coordinate of each rolling contact (the no-slip
        conditions, in the rates)."""
        rows = []
        for coords, drift, _ in self._contacts.values():
            rows += [c.diff(t) - v for c, v in zip(coords, drift, strict=True) if c is not None]
        return rows

    def check_angular_velocity(self, frame: Any, omega: sp.Matrix) -> None:
        """Refuse an angular velocity (in the inertial frame's axes) that is not the one of
        the frame's orientation, ω̃ = Ṙ Rᵀ (speeds that are not the rates of its angles);
        the difference is evaluated at random states (a frame oriented by no coordinate,
        or not at all relative to the inertial one, is not checked)."""
        try:
            R = self.N.dcm(frame)  # the frame's axes in the inertial frame's
        except ValueError:
            return
        W = R.diff(t) * R.T
        true = [W[2, 1], W[0, 2], W[1, 0]]
        if not _vanishes_at_random(
            [w - x for w, x in zip(omega, true, strict=True)], self.q, self.qd
        ):
            raise LagdynError(
                f"from_mechanics(): the angular velocity of {frame} in {self.N} (the speeds of "
                f"the {self.model.kind} written in the rates) is not the rate of its "
                "orientation: its kinematic differential equations do not define its speeds "
                "as its angular velocity (check the frame the rates are measured in); lagdyn "
                "reads the kinetic energy of angular velocities that are rates of the "
                "orientation, so a Lagrangian from this one would give wrong dynamics"
            )

    def kinetic_energy(self) -> sp.Expr:
        """T = Σ ½ m v·v + ½ ω·I·ω (sympy's ``kinetic_energy``): v in the inertial frame's
        axes, ω and I in the body's own axes (compact entries, no cross-frame products)."""
        bodies = self.model.bodies
        bad = [f"{b.name} (mass {b.mass})" for b in bodies if sp.sympify(b.mass).is_negative]
        if bad:
            raise LagdynError(f"from_mechanics(): bodies with a negative mass: {', '.join(bad)}")
        terms = []
        for body in bodies:
            try:
                v = self.velocity(body.masscenter)
                T = body.mass * _dot(v, v) / 2
                if _is_rigid(body):
                    B = body.frame
                    w = body.frame.ang_vel_in(self.N).to_matrix(B)
                    w = self.kinematic(w, f"the angular velocity of {body.name}")
                    # every model, as for point velocities: a Lagrangian in q built from an
                    # angular velocity that is not the orientation's rate would be wrong
                    w_N = B.ang_vel_in(self.N).to_matrix(self.N).xreplace(self.sub)
                    self.check_angular_velocity(B, w_N)
                    T += _dot(w, body.central_inertia.to_matrix(B) * w) / 2
            except LagdynError:
                raise
            except ValueError as exc:
                raise LagdynError(
                    f"from_mechanics(): the kinetic energy of {body.name} in {self.N} is not "
                    f"defined ({exc}): set the velocity of its mass center (set_vel, "
                    "v2pt_theory) and, for a rigid body, the angular velocity of its frame"
                ) from None
            terms.append(T)
        return sp.Add(*terms)

    def load_terms(self) -> tuple[sp.Expr, list[sp.Expr]]:
        """The potential of constant forces at points with known positions, and Q by
        virtual work (partial velocities) of everything else."""
        N, n = self.N, len(self.q)
        Q = [sp.S.Zero] * n
        V = sp.S.Zero
        for kind, where, vector in self.model.loads:
            load = vector.to_matrix(N).xreplace(self.sub)
            try:
                if kind == "torque":
                    w = where.ang_vel_in(N).to_matrix(N)
                    velocity = self.kinematic(w, f"the angular velocity of {where}")
                else:
                    velocity = self.velocity(where)
            except ValueError as exc:
                what = "angular velocity" if kind == "torque" else "velocity"
                raise LagdynError(
                    f"from_mechanics(): a {kind} acts on {where}, whose {what} in {N} is not "
                    f"defined ({exc})"
                ) from None
            J = _rate_jacobian(velocity, self.qd)
            if J.is_zero_matrix:
                continue  # a point or frame that does not move with q: no virtual work
            if kind == "force":
                split = [_constant_part(c) for c in load]
                const = sp.Matrix([c for c, _ in split])
                if not const.is_zero_matrix:
                    r = self.position(where, velocity, const)
                    if r is not None:
                        V -= _dot(const, r)
                        load = sp.Matrix([rest for _, rest in split])
            Q = [Q[i] + _dot(J[:, i], load) for i in range(n)]
        return V, Q

    def position(self, point: Any, velocity: sp.Matrix, force: sp.Matrix) -> sp.Matrix | None:
        """The position r(q) of ``point`` from a fixed point, when the constant ``force``
        there provably has the potential −force·r (force·v = d(force·r)/dt identically);
        else None, and the force stays a generalized force."""
        for origin in self._origins(point):
            try:
                r = point.pos_from(origin).to_matrix(self.N)
            except ValueError:
                continue  # not connected to this one
            if _explicit_time(r, self.q) or r.atoms(sp.Derivative):
                return None  # a moving origin, a prescribed motion
            contact = self.contact_position(origin)
            if contact is not None:
                r = r + contact
            if _is_rate_of(_dot(force, velocity), _dot(force, r), self.q, self.qd):
                return r
            return None
        return None


def _vanishes_at_random(exprs: list[sp.Expr], q: list[sp.Expr], qd: list[sp.Expr]) -> bool:
    """Whether the expressions evaluate to 0 (1e-9 relative) at two random states (q, q̇, t,
    parameters positive unless declared negative); True when they cannot be evaluated."""
    rng = random.Random(25)
    symbols = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)) - {t}, key=str)
    for _ in range(2):
        values: dict[Any, Any] = {r: rng.uniform(-2.0, 2.0) for r in qd}
        values.update({qi: rng.uniform(-3.0, 3.0) for qi in q})
        values.update(
            {s: -rng.uniform(0.5, 2.0) if s.is_negative else rng.uniform(0.5, 2.0) for s in symbols}
        )
        values[t] = rng.uniform(0.0, 1.0)
        try:
            vals = [complex(sp.sympify(e).xreplace(values).doit()) for e in exprs]
        except (TypeError, ValueError):
            return True
        if max((abs(v) for v in vals), default=0.0) > 1e-9:
            return False
    return True


def _is_rigid(body: Any) -> bool:
    me = _mechanics()
    flag = getattr(body, "is_rigidbody", None)  # the deprecated Body is both kinds
    return bool(flag) if flag is not None else isinstance(body, me.RigidBody)


def _dot(a: sp.MatrixBase, b: sp.MatrixBase) -> sp.Expr:
    return sp.Add(*(x * y for x, y in zip(a, b, strict=True)))


def _rate_jacobian(vector: sp.MatrixBase, qd: list[sp.Expr]) -> sp.Matrix:
    """∂v/∂q̇ of a vector linear in the rates (the partial velocities), read off term by term
    (an entry that is not a plain sum of such terms is differentiated)."""
    index = {r: i for i, r in enumerate(qd)}
    rows = []
    for entry in vector:
        row = [sp.S.Zero] * len(qd)
        for term in sp.Add.make_args(sp.expand(entry)):
            present = [r for r in term.atoms(sp.Derivative) if r in index]
            if not present:
                continue
            coeff, rest = term.as_independent(*present, as_Add=False)
            if len(present) != 1 or rest != present[0]:
                row = [entry.diff(r) for r in qd]
                break
            row[index[rest]] += coeff
        rows.append(row)
    return sp.Matrix(rows)


def _constant_part(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(c, rest) with c free of t and of every function of t."""
    const = []
    rest = []
    for term in sp.Add.make_args(sp.expand(expr)):
        if term.has(t) or term.atoms(AppliedUndef, sp.Derivative):
            rest.append(term)
        else:
            const.append(term)
    return sp.Add(*const), sp.Add(*rest)


def _is_rate_of(power: sp.Expr, work: sp.Expr, q: list[sp.Expr], qd: list[sp.Expr]) -> bool:
    """Whether ``power`` = d(``work``)/dt identically (proved; False when not proved).

    symengine differentiates and expands on plain symbols first (fast, and enough when the
    velocity was built from the position); else the zero-test ladder decides in canonical
    trigonometric form."""
    forward, _ = _convert.substitution(q, qd, *_convert.state_symbols(len(q)))
    p_se = _convert.plain_symengine(power, forward)
    w_se = _convert.plain_symengine(work, forward)
    if p_se is not None and w_se is not None:
        rate = sum(
            (w_se.diff(se.Symbol(forward[qi].name)) * se.Symbol(forward[r].name))
            for qi, r in zip(q, qd, strict=True)
        )
        if se.expand(p_se - rate) == 0:
            return True
    residual = _convert.to_plain(power - sp.diff(work, t), forward)
    plain_q = [forward[qi] for qi in q]
    return decide_zero([residual], plain_q, simplify=False) is True


def _explicit_time(expr: Any, q: list[sp.Expr]) -> bool:
    """Whether ``expr`` depends on t other than through the coordinates q(t)."""
    return bool(expr.xreplace({qi: sp.Dummy() for qi in q}).has(t))


def _inputs_as_parameters(Q: list[sp.Expr], q: list[sp.Expr]) -> list[sp.Expr]:
    """Specified inputs F(t) in loads → real parameters named F."""
    qset = set(q)
    inputs = {f for e in Q for f in e.atoms(AppliedUndef) if f not in qset and t in f.free_symbols}
    if not inputs:
        return Q
    rates = sorted({str(d) for e in Q for d in e.atoms(sp.Derivative) if d.expr in inputs})
    if rates:
        raise LagdynError(
            f"the loads depend on the rates {', '.join(rates)} of specified inputs: inputs "
            "become parameters, so their rates cannot be read; make them coordinates or inputs"
        )
    bad = sorted(str(f) for f in inputs if f.args != (t,))
    if bad:
        raise LagdynError(f"the loads depend on {', '.join(bad)}, functions of more than t")
    taken = {s.name for e in Q for s in e.free_symbols}
    clash = sorted(str(f) for f in inputs if f.func.__name__ in taken)
    if clash:
        raise LagdynError(
            f"the specified input(s) {', '.join(clash)} would become parameters named like "
            "symbols the model already uses; rename one of them"
        )
    repl = {f: sp.Symbol(f.func.__name__, real=True) for f in inputs}
    return [e.xreplace(repl) for e in Q]


def _check_names(exprs: list[sp.Expr], q: list[sp.Expr]) -> None:
    """Parameters and coordinates: printable identifiers in one Unicode form, none reserved
    (:func:`lagdyn.symbols.check_names`)."""
    names = {s.name for e in exprs for s in e.free_symbols if s != t}
    names |= {qi.func.__name__ for qi in q}
    try:
        check_names(sorted(names), "from_mechanics", LagdynError)
    except LagdynError as exc:
        raise LagdynError(
            f"{exc}; lagdyn prints names into formulas and generated code: rename the symbol "
            "in the model (e.g. model expressions .xreplace({old: sympy.Symbol('new')}), or "
            "create it with an identifier name)"
        ) from None

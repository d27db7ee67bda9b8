r"""Kinematic builders: particles and rigid bodies → a :class:`LagrangianSystem`.

Where the kinematics are known, the mass matrix is assembled from Jacobians,

.. math:: M(q) = \sum_b J_b^T W_b J_b,

with :math:`J_b = \partial p_b/\partial q` for the centre of mass of body ``b`` and
:math:`W_b = m_b I` (plus :math:`J_\omega^T I_b J_\omega` for rotating bodies), never by
differentiating a Lagrangian twice. The potential of a uniform gravity field is
:math:`U = -\sum_b m_b\, \mathbf g \cdot p_b`.

Generalized forces come from virtual work: a force ``f`` applied at a point
``p(q)`` contributes :math:`Q = J^T f`, a torque on a body angle contributes
:math:`(\partial\theta/\partial q)^T\tau`, and a Rayleigh dissipation function
:math:`R(q, \dot q)` contributes :math:`Q = -\partial R/\partial\dot q`. The power
identity :math:`f\cdot\dot p = Q\cdot\dot q` is provable exactly
(:func:`is_power_consistent`).

Shapes: a point is a sequence of 2 or 3 sympy expressions in ``q``; a Jacobian is an
``ImmutableMatrix`` of shape ``(d, n)``; generalized forces have shape ``(n, 1)``.

Examples
--------
The double pendulum of seed 003 from its two point masses:

>>> import sympy as sp, lagdyn as ld
>>> from lagdyn.kinematics import from_particles
>>> a, b = ld.coordinates("a b")
>>> m1, m2, l1, l2, g = ld.parameters("m1 m2 l1 l2 g")
>>> p1 = sp.Matrix([l1 * sp.sin(a), -l1 * sp.cos(a)])
>>> p2 = p1 + sp.Matrix([l2 * sp.sin(b), -l2 * sp.cos(b)])
>>> pend = from_particles([p1, p2], [m1, m2], [a, b], gravity=[0, -g])
>>> pend.U
-g*l1*m1*cos(a(t)) + g*m2*(-l1*cos(a(t)) - l2*cos(b(t)))
>>> sp.expand(sp.expand_trig(pend.M[0, 1] - m2 * l1 * l2 * sp.cos(a - b)))
0
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import symengine as se
import sympy as sp
from sympy.core.function import AppliedUndef

import lagdyn.trig.convert as _convert

from ._common import reduce_pythagoras as _reduce_pythagoras
from ._common import validate_coordinates as _validate_coordinates
from .errors import LagdynError, ShapeError
from .structure import is_zero
from .symbols import t
from .system import LagrangianSystem

__all__ = [
    "Particle",
    "RigidBody2D",
    "RigidBody3D",
    "angular_velocity_jacobian",
    "from_bodies",
    "from_particles",
    "generalized_force",
    "generalized_torque",
    "is_power_consistent",
    "jacobian",
    "mass_matrix",
    "rayleigh_forces",
]

Vector = Sequence[Any]


# ---------------------------------------------------------------------- helpers
def _sympify(value: Any, what: str) -> sp.Expr:
    if isinstance(value, str):
        raise LagdynError(
            f"{what} must be a sympy expression or number, got the string {value!r} "
            "(strings are not evaluated)"
        )
    try:
        out = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError):
        raise LagdynError(f"{what} must be a sympy expression or number, got {value!r}") from None
    if not isinstance(out, sp.Expr):
        raise LagdynError(f"{what} must be a scalar expression, got {type(out).__name__}")
    return out


def _vector(value: Any, what: str, dims: tuple[int, ...] = (2, 3)) -> sp.ImmutableMatrix:
    """A column vector of expressions; length in ``dims``."""
    if isinstance(value, (str, bytes)):
        raise LagdynError(f"{what} must be a sequence of expressions, got a string")
    if isinstance(value, sp.MatrixBase):
        items = list(value)
        if 1 not in value.shape:
            raise ShapeError(f"{what} must be a vector, got a matrix of shape {value.shape}")
    else:
        try:
            items = list(value)
        except TypeError:
            raise ShapeError(f"{what} must be a sequence of expressions, got {value!r}") from None
    if len(items) not in dims:
        want = " or ".join(map(str, dims))
        raise ShapeError(f"{what} has {len(items)} components, expected {want}")
    return sp.ImmutableMatrix([_sympify(x, f"{what}[{i}]") for i, x in enumerate(items)])


def _rates(q: Sequence[sp.Expr]) -> list[sp.Expr]:
    return [sp.diff(x, t) for x in q]


def _no_rates(exprs: Any, q: Sequence[sp.Expr], what: str) -> None:
    rates = {d for d in sp.Matrix(exprs).atoms(sp.Derivative)}
    if rates:
        raise LagdynError(
            f"{what} must depend on the coordinates only (no rates), "
            f"found {', '.join(sorted(map(str, rates)))}"
        )


def _reduce(expr: sp.Expr) -> sp.Expr:
    """``expr`` in canonical trig-polynomial form (exact; every sin² + cos² pair gone).

    The canonical engine runs in symengine and is several times faster than sympy's
    ``expand``; expressions outside its class take :func:`_reduce_pythagoras`.
    """
    import lagdyn.trig.identities as _trigproofs

    funcs = sorted(sp.sympify(expr).atoms(AppliedUndef), key=str)
    plain = {f: sp.Symbol(f"_ldk{i}", real=True) for i, f in enumerate(funcs)}
    out = _trigproofs.canonical(expr.xreplace(plain), list(plain.values()))
    if out is None:
        return _reduce_pythagoras(expr)
    return out.xreplace({v: f for f, v in plain.items()})


def _partials(expr: sp.Expr, q: Sequence[sp.Expr]) -> list[sp.Expr]:
    """``[∂expr/∂q_j]``, differentiated by symengine on plain symbols (sympy's ``diff``
    of long trigonometric products is the slowest step of building a chain)."""
    expr = sp.sympify(expr)
    plain = {qj: sp.Symbol(f"_ldk{j}", real=True) for j, qj in enumerate(q)}
    flat = expr.xreplace(plain)
    se_expr = None if flat.atoms(AppliedUndef) else _convert.to_symengine(flat)
    if se_expr is None:  # other functions of t, or objects symengine cannot hold
        return [sp.diff(expr, qj) for qj in q]
    table = _convert.SymbolTable.from_symbols(
        flat.free_symbols, extra={v.name: qj for qj, v in plain.items()}
    )
    return [table.to_sympy(se_expr.diff(se.Symbol(v.name))) for v in plain.values()]


def _check_positive(
    value: sp.Expr, what: str, problems: list[str], *, allow_zero: bool = False
) -> None:
    """Collect a message when ``value`` is a number ≤ 0 (or known to be non-positive)."""
    if value.is_number:
        if not value.is_real:
            problems.append(f"{what} = {value} is not real")
        elif value.is_negative or (value.is_zero and not allow_zero):
            sign = "zero" if value.is_zero else "negative"
            problems.append(f"{what} = {value} is {sign}")
    elif value.is_negative or (value.is_nonpositive and not allow_zero):
        problems.append(f"{what} = {value} is non-positive by its assumptions")


# ---------------------------------------------------------------------- bodies
@dataclass(frozen=True)
class Particle:
    """A point mass at ``position(q)``.

    Parameters
    ----------
    mass : sympy.Expr
        Positive mass (numbers ≤ 0 are rejected by the builders).
    position : sequence of 2 or 3 sympy.Expr
        Position of the point in an inertial frame, a function of the coordinates.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import Particle
    >>> x, = ld.coordinates("x")
    >>> Particle(2, (x, 0)).mass
    2
    """

    mass: Any
    position: Vector


@dataclass(frozen=True)
class RigidBody2D:
    """A planar rigid body: mass, inertia about its centre of mass, COM position, body angle.

    Kinetic energy ``½ m |ċ|² + ½ I θ̇²`` with ``c = com(q)`` and ``θ = angle(q)``.

    Parameters
    ----------
    mass : sympy.Expr
        Positive mass.
    inertia : sympy.Expr
        Moment of inertia about the centre of mass (≥ 0; 0 makes it a particle).
    com : sequence of 2 sympy.Expr
        Centre-of-mass position.
    angle : sympy.Expr
        Orientation of the body in the plane (counter-clockwise), a function of q.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import RigidBody2D
    >>> th, = ld.coordinates("theta")
    >>> rod = RigidBody2D(1, sp.Rational(1, 12), (sp.cos(th) / 2, sp.sin(th) / 2), th)
    >>> rod.inertia
    1/12
    """

    mass: Any
    inertia: Any
    com: Vector
    angle: Any


@dataclass(frozen=True)
class RigidBody3D:
    """A spatial rigid body: mass, inertia tensor about its COM, COM position, orientation.

    Give exactly one of ``rotation`` (the body-to-world rotation matrix R(q); the
    inertia tensor is then expressed in body axes and the body angular velocity
    ``ω_b = vee(Rᵀ Ṙ)`` is used) or ``angular_velocity`` (linear in q̇, expressed in the
    same axes as ``inertia``). Kinetic energy ``½ m |ċ|² + ½ ωᵀ I ω``.

    Parameters
    ----------
    mass : sympy.Expr
        Positive mass.
    inertia : 3 × 3 matrix
        Symmetric inertia tensor about the centre of mass.
    com : sequence of 3 sympy.Expr
        Centre-of-mass position in the world frame.
    rotation : 3 × 3 sympy.Matrix, optional
        Body-to-world rotation R(q).
    angular_velocity : sequence of 3 sympy.Expr, optional
        Angular velocity ω(q, q̇), linear in the rates.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import RigidBody3D
    >>> psi, = ld.coordinates("psi")
    >>> R = sp.rot_axis3(-psi)  # rotation by psi about z
    >>> wheel = RigidBody3D(1, sp.diag(1, 1, 2), (0, 0, 0), rotation=R)
    >>> wheel.mass
    1
    """

    mass: Any
    inertia: Any
    com: Vector
    rotation: Any = None
    angular_velocity: Vector | None = None


Body = Particle | RigidBody2D | RigidBody3D


# ---------------------------------------------------------------------- Jacobians
def jacobian(point: Vector, q: Sequence[sp.Expr]) -> sp.ImmutableMatrix:
    """The Jacobian ``J = ∂p/∂q`` of a point ``p(q)``, shape ``(d, n)``; ``ṗ = J q̇``.

    Parameters
    ----------
    point : sequence of d sympy.Expr
        Position as a function of the coordinates (no rates).
    q : sequence of n coordinates
        Functions of ``ld.t``.

    Returns
    -------
    sympy.ImmutableMatrix
        Shape ``(d, n)``.

    Raises
    ------
    LagdynError
        If the point depends on rates.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import jacobian
    >>> a, b = ld.coordinates("a b")
    >>> jacobian([sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b)], [a, b])
    Matrix([
    [cos(a(t)), cos(b(t))],
    [sin(a(t)), sin(b(t))]])
    """
    qv = _validate_coordinates(q)
    p = _vector(point, "point", dims=tuple(range(1, 100)))
    _no_rates(p, qv, "point")
    rows = [_partials(pi, qv) for pi in p]
    return sp.ImmutableMatrix(len(p), len(qv), lambda i, j: rows[i][j])


def _vee(S: sp.MatrixBase) -> sp.ImmutableMatrix:
    """The vector of a skew 3 × 3 matrix (antisymmetric part, exactly)."""
    return sp.ImmutableMatrix(
        [(S[2, 1] - S[1, 2]) / 2, (S[0, 2] - S[2, 0]) / 2, (S[1, 0] - S[0, 1]) / 2]
    )


def angular_velocity_jacobian(
    rotation: Any, q: Sequence[sp.Expr], *, frame: str = "body"
) -> sp.ImmutableMatrix:
    """The 3 × n Jacobian ``J_ω`` with ``ω = J_ω q̇`` for a rotation matrix R(q).

    Column k is ``vee(Rᵀ ∂R/∂q_k)`` in body axes (``frame="body"``) or
    ``vee(∂R/∂q_k Rᵀ)`` in world axes (``frame="world"``).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import angular_velocity_jacobian
    >>> psi, = ld.coordinates("psi")
    >>> angular_velocity_jacobian(sp.rot_axis3(-psi), [psi]).T
    Matrix([[0, 0, 1]])
    """
    qv = _validate_coordinates(q)
    R = _rotation(rotation, "rotation")
    if frame not in ("body", "world"):
        raise LagdynError(f"frame must be 'body' or 'world', got {frame!r}")
    cols = []
    for x in qv:
        dR = R.diff(x)
        S = R.T * dR if frame == "body" else dR * R.T
        cols.append([_reduce_pythagoras(e) for e in _vee(S)])
    return sp.ImmutableMatrix(3, len(qv), lambda i, j: cols[j][i])


def _rotation(R: Any, what: str) -> sp.ImmutableMatrix:
    try:
        Rm = sp.ImmutableMatrix(R)
    except (TypeError, ValueError, sp.SympifyError):
        raise ShapeError(f"{what} must be a 3 × 3 matrix, got {R!r}") from None
    if Rm.shape != (3, 3):
        raise ShapeError(f"{what} must be a 3 × 3 matrix, got shape {Rm.shape}")
    # one numeric spot check of orthogonality: catches transposed or mis-typed matrices
    rng = random.Random(7)
    point = {s: rng.uniform(0.3, 1.3) for s in Rm.free_symbols}
    funcs = {f: rng.uniform(0.3, 1.3) for f in Rm.atoms(sp.core.function.AppliedUndef)}
    try:
        Rn = Rm.xreplace(funcs).xreplace(point).evalf()
        err = max(abs(float(e)) for e in (Rn.T * Rn - sp.eye(3)))
    except (TypeError, ValueError):
        return Rm
    if err > 1e-9:
        raise LagdynError(
            f"{what} is not a rotation matrix (RᵀR − I has entries of size {err:.3g})"
        )
    return Rm


# ---------------------------------------------------------------------- mass matrix
def _validate_bodies(bodies: Sequence[Body]) -> list[Body]:
    if isinstance(bodies, (Particle, RigidBody2D, RigidBody3D)):
        bodies = [bodies]
    items = list(bodies)
    if not items:
        raise LagdynError("no bodies given")
    problems: list[str] = []
    for k, body in enumerate(items):
        name = f"body {k} ({type(body).__name__})"
        if not isinstance(body, (Particle, RigidBody2D, RigidBody3D)):
            problems.append(
                f"item {k} is a {type(body).__name__}, not a Particle/RigidBody2D/RigidBody3D"
            )
            continue
        _check_positive(_sympify(body.mass, f"{name} mass"), f"{name}: mass", problems)
        if isinstance(body, RigidBody2D):
            _check_positive(
                _sympify(body.inertia, f"{name} inertia"),
                f"{name}: inertia",
                problems,
                allow_zero=True,
            )
        if isinstance(body, RigidBody3D):
            if (body.rotation is None) == (body.angular_velocity is None):
                problems.append(f"{name}: give exactly one of rotation= or angular_velocity=")
            try:
                Ii = sp.ImmutableMatrix(body.inertia)
            except (TypeError, ValueError, sp.SympifyError):
                problems.append(f"{name}: inertia must be a 3 × 3 matrix")
                continue
            if Ii.shape != (3, 3):
                problems.append(f"{name}: inertia has shape {Ii.shape}, expected (3, 3)")
                continue
            if any(sp.expand(Ii[i, j] - Ii[j, i]) != 0 for i in range(3) for j in range(i)):
                problems.append(f"{name}: inertia tensor is not symmetric")
            for i in range(3):
                _check_positive(Ii[i, i], f"{name}: inertia[{i},{i}]", problems, allow_zero=True)
    if problems:
        raise LagdynError("invalid bodies: " + "; ".join(problems))
    return items


def _body_terms(body: Body, q: Sequence[sp.Expr]) -> list[tuple[sp.Expr, sp.ImmutableMatrix]]:
    """(weight matrix or scalar, Jacobian) pairs whose JᵀWJ sum to the body's inertia."""
    m = _sympify(body.mass, "mass")
    if isinstance(body, Particle):
        return [(m, jacobian(body.position, q))]
    if isinstance(body, RigidBody2D):
        com = _vector(body.com, "com", dims=(2,))
        ang = _sympify(body.angle, "angle")
        I_ = _sympify(body.inertia, "inertia")
        out: list[tuple[Any, sp.ImmutableMatrix]] = [(m, jacobian(com, q))]
        if I_ != 0:
            out.append((I_, jacobian([ang], q)))
        return out
    com = _vector(body.com, "com", dims=(3,))
    Ib = sp.ImmutableMatrix(body.inertia)
    if body.rotation is not None:
        Jw = angular_velocity_jacobian(body.rotation, q)
    else:
        w = _vector(body.angular_velocity, "angular_velocity", dims=(3,))
        rates = _rates(q)
        Jw = sp.ImmutableMatrix(3, len(q), lambda i, j: sp.diff(w[i], rates[j]))
        rest = [sp.expand(w[i] - sum(Jw[i, j] * rates[j] for j in range(len(q)))) for i in range(3)]
        if any(r != 0 for r in rest) or any(Jw.atoms(sp.Derivative)):
            raise LagdynError("angular_velocity must be linear in the rates q̇ (ω = J_ω(q) q̇)")
    return [(m, jacobian(com, q)), (Ib, Jw)]


def mass_matrix(bodies: Sequence[Body], q: Sequence[sp.Expr]) -> sp.ImmutableMatrix:
    r"""The mass matrix :math:`M = \sum_b J_b^T W_b J_b` of particles and rigid bodies.

    Entries are in canonical trig-polynomial form (exact, no simplify); the upper
    triangle is computed once and mirrored, so M is exactly symmetric.

    Parameters
    ----------
    bodies : sequence of Particle, RigidBody2D, RigidBody3D
    q : sequence of n coordinates

    Returns
    -------
    sympy.ImmutableMatrix
        Shape ``(n, n)``.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import Particle, mass_matrix
    >>> r, th = ld.coordinates("r theta")
    >>> m = ld.parameters("m")[0]
    >>> M = mass_matrix([Particle(m, (r * sp.cos(th), r * sp.sin(th)))], [r, th])
    >>> M
    Matrix([
    [m,         0],
    [0, m*r(t)**2]])
    """
    qv = _validate_coordinates(q)
    items = _validate_bodies(bodies)
    return _mass_matrix(items, qv)[0]


def _mass_matrix(
    items: Sequence[Body], qv: Sequence[sp.Expr]
) -> tuple[sp.ImmutableMatrix, list[tuple[sp.Expr, list[sp.Expr], int]] | None, Any]:
    """M; when every weight is a scalar, the Gram rows ``(weight, row, pair)`` of
    ``M = Σ_r weight_r row_rᵀ row_r`` (:func:`lagdyn.trig.gram.gram_rows`); and M's
    canonical dictionaries with their encoder (None off the canonical path)."""
    from .trig.gram import gram_rows

    terms = [(W, J) for body in items for W, J in _body_terms(body, qv)]
    fast = _mass_matrix_canonical(terms, qv)
    if fast is not None:
        return fast[0], gram_rows(terms), fast[1]
    return _mass_matrix_sympy(terms, qv), None, None


def _mass_matrix_canonical(
    terms: Sequence[tuple[Any, sp.ImmutableMatrix]], qv: Sequence[sp.Expr]
) -> tuple[sp.ImmutableMatrix, tuple[Any, dict[tuple[int, int], Any]]] | None:
    """Σ JᵀWJ computed once in canonical trig-polynomial form (:func:`lagdyn.trig.gram.gram_sum`:
    one shared encoder, per frequency or one symengine expansion per entry), with the
    encoder and the upper triangle's canonical dictionaries (the derivation starts from
    them); None when an entry leaves that class."""
    from .trig.gram import gram_sum
    from .trig.laurent import encoder_for

    n = len(qv)
    flat: list[tuple[list[list[Any]], list[list[Any]]]] = []
    exprs: list[sp.Expr] = []
    for W, J in terms:
        Wm = W if isinstance(W, sp.MatrixBase) else sp.diag(*([W] * J.rows))
        Jp = [[J[r, j] for j in range(n)] for r in range(J.rows)]
        Wp = [[Wm[r, s] for s in range(Wm.cols)] for r in range(Wm.rows)]
        flat.append((Wp, Jp))
        exprs += [e for row in (*Jp, *Wp) for e in row if e != 0]
    # the coordinates q(t) are the encoder's angles directly: no substitution either way
    encoder = encoder_for(exprs, list(qv))
    if encoder is None:
        return None
    polys = gram_sum(flat, encoder)
    if polys is None:
        return None
    cells = {k: encoder.rebuild(p) for k, p in polys.items()}
    return sp.ImmutableMatrix(n, n, lambda i, j: cells[min(i, j), max(i, j)]), (encoder, polys)


def _mass_matrix_sympy(
    terms: Sequence[tuple[Any, sp.ImmutableMatrix]], qv: Sequence[sp.Expr]
) -> sp.ImmutableMatrix:
    n = len(qv)
    acc: dict[tuple[int, int], sp.Expr] = {
        (i, j): sp.Integer(0) for i in range(n) for j in range(i, n)
    }
    for W, J in terms:
        WJ = W * J
        for i in range(n):
            for j in range(i, n):
                acc[i, j] += sum((J[r, i] * WJ[r, j] for r in range(J.rows)), sp.Integer(0))
    entries = {k: _reduce(v) for k, v in acc.items()}
    return sp.ImmutableMatrix(n, n, lambda i, j: entries[min(i, j), max(i, j)])


def _potential(bodies: Sequence[Body], gravity: Vector | None) -> sp.Expr:
    if gravity is None:
        return sp.Integer(0)
    gvec = _vector(gravity, "gravity")
    U = sp.Integer(0)
    for k, body in enumerate(bodies):
        pos = body.position if isinstance(body, Particle) else body.com
        p = _vector(pos, f"position of body {k}")
        if len(p) != len(gvec):
            raise ShapeError(
                f"body {k} has a {len(p)}-dimensional position "
                f"but gravity has {len(gvec)} components"
            )
        U -= _sympify(body.mass, "mass") * (gvec.T * p)[0, 0]
    return U


def from_bodies(
    bodies: Sequence[Body],
    q: Sequence[sp.Expr],
    gravity: Vector | None = None,
    *,
    potential: Any = 0,
    forces: Sequence[sp.Expr] | None = None,
    defaults: Mapping[sp.Symbol, float] | None = None,
) -> LagrangianSystem:
    r"""A :class:`LagrangianSystem` from particles and rigid bodies, with M = Σ JᵀWJ.

    Parameters
    ----------
    bodies : sequence of Particle, RigidBody2D, RigidBody3D
        The bodies; masses must be positive (numbers ≤ 0 are rejected).
    q : sequence of n coordinates
        Functions of ``ld.t``.
    gravity : sequence of 2 or 3 sympy.Expr, optional
        The gravitational acceleration vector, e.g. ``(0, -g)``; the potential is
        :math:`U = -\sum_b m_b\,\mathbf g\cdot c_b`. ``None``: no gravity.
    potential : sympy.Expr, optional
        Any further potential energy V(q) (springs, ...), added to U.
    forces : sequence of n sympy.Expr, optional
        Non-conservative generalized forces (see :func:`generalized_force`).
    defaults : mapping, optional
        Default numeric parameter values, stored on the system.

    Returns
    -------
    LagrangianSystem
        Built by :meth:`LagrangianSystem.from_mass_matrix`, so M is used as assembled.

    Raises
    ------
    LagdynError
        Non-positive masses, negative inertias, bad rotation matrices (every problem
        named at once).
    ShapeError
        Vectors of inconsistent dimension.
    SingularMassMatrixError
        A coordinate that moves no mass (e.g. a zero length).

    Examples
    --------
    A uniform rod swinging about one end, as a planar rigid body:

    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import RigidBody2D, from_bodies
    >>> th, = ld.coordinates("theta")
    >>> m, l, g = ld.parameters("m l g")
    >>> rod = RigidBody2D(m, m * l**2 / 12, (l / 2 * sp.sin(th), -l / 2 * sp.cos(th)), th)
    >>> sys = from_bodies([rod], [th], gravity=(0, -g))
    >>> sys.M
    Matrix([[l**2*m/3]])
    """
    qv = _validate_coordinates(q)
    items = _validate_bodies(bodies)
    M, rows, polys = _mass_matrix(items, qv)
    U = _potential(items, gravity) + _sympify(potential, "potential")
    _no_rates([U], qv, "potential")
    # M's canonical dictionaries: the regularity check and the derivation start from them;
    # the factor M = Σ w_r J_rᵀ J_r, for the positive-definiteness proof (structure.py);
    # M is already the canonical rebuild (rows is None on the sympy path and for 3-D
    # bodies, where it is merely not claimed): the derivation need not rebuild it
    return LagrangianSystem._from_mass_matrix(
        M,
        U,
        qv,
        forces=forces,
        defaults=defaults,
        mass_polys=polys,
        gram_rows=rows,
        canonical_mass=rows is not None,
    )


def from_particles(
    positions: Sequence[Vector],
    masses: Sequence[Any],
    q: Sequence[sp.Expr],
    gravity: Vector | None = None,
    *,
    potential: Any = 0,
    forces: Sequence[sp.Expr] | None = None,
    defaults: Mapping[sp.Symbol, float] | None = None,
) -> LagrangianSystem:
    r"""A :class:`LagrangianSystem` from point masses: :math:`T = \tfrac12\dot q^T(J^TWJ)\dot q`.

    Stacking the positions into the ambient vector ``z(q)`` (length ``d·N``) with
    ``W = diag(m_1 I_d, …, m_N I_d)`` and ``J = ∂z/∂q``, the mass matrix is
    ``M = JᵀWJ`` and ``U = −Σ m_i g·p_i``.

    Parameters
    ----------
    positions : sequence of N points, each a sequence of 2 or 3 sympy.Expr
    masses : sequence of N positive masses
    q : sequence of n coordinates
    gravity : sequence of 2 or 3 sympy.Expr, optional
        Gravitational acceleration, e.g. ``(0, -g)``.
    potential, forces, defaults
        As in :func:`from_bodies`.

    Raises
    ------
    LagdynError
        Zero or negative masses (all named), mismatched counts.
    SingularMassMatrixError
        A coordinate that moves no mass (a zero length, a coordinate not used).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import from_particles
    >>> x, = ld.coordinates("x")
    >>> k = ld.parameters("k")[0]
    >>> osc = from_particles([(x, 0)], [2], [x], potential=k * x**2 / 2)
    >>> osc.M, osc.g
    (Matrix([[2]]), Matrix([[k*x(t)]]))
    >>> from_particles([(x, 0)], [0], [x])
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: invalid bodies: body 0 (Particle): mass = 0 is zero
    """
    if isinstance(positions, (str, bytes)) or isinstance(masses, (str, bytes)):
        raise LagdynError("positions and masses must be sequences, not strings")
    pos, ms = list(positions), list(masses)
    if len(pos) != len(ms):
        raise ShapeError(f"{len(pos)} positions but {len(ms)} masses")
    bodies = [Particle(m, p) for p, m in zip(pos, ms)]
    return from_bodies(bodies, q, gravity, potential=potential, forces=forces, defaults=defaults)


# ---------------------------------------------------------------------- forces
def generalized_force(point: Vector, force: Vector, q: Sequence[sp.Expr]) -> sp.ImmutableMatrix:
    """The generalized force ``Q = Jᵀ f`` of a force ``f`` applied at ``point(q)`` (virtual work).

    Parameters
    ----------
    point : sequence of d sympy.Expr
        Application point p(q).
    force : sequence of d sympy.Expr
        The force, in the same axes (may depend on q, q̇, t).
    q : sequence of n coordinates

    Returns
    -------
    sympy.ImmutableMatrix
        Shape ``(n, 1)``: ``δW = f·δp = Qᵀδq``.

    Examples
    --------
    An end force (3, 0) on the seed-003 double pendulum, hanging straight down:

    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import generalized_force
    >>> a, b = ld.coordinates("a b")
    >>> p2 = (sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b))
    >>> generalized_force(p2, (3, 0), [a, b]).subs({a: 0, b: 0}).T
    Matrix([[3, 3]])
    """
    qv = _validate_coordinates(q)
    p = _vector(point, "point")
    f = _vector(force, "force")
    if len(p) != len(f):
        raise ShapeError(f"point has {len(p)} components but force has {len(f)}")
    J = jacobian(p, qv)
    return sp.ImmutableMatrix([sp.expand(e) for e in J.T * f])


def generalized_torque(orientation: Any, torque: Any, q: Sequence[sp.Expr]) -> sp.ImmutableMatrix:
    """The generalized force of a torque on a body, by virtual work.

    Planar: ``orientation`` is the body angle θ(q) and ``torque`` a scalar; ``Q = (∂θ/∂q)ᵀ τ``.
    Spatial: ``orientation`` is the body-to-world rotation R(q) and ``torque`` a
    3-vector in world axes; ``Q = J_ωᵀ τ`` with the world-frame ``J_ω``.

    Returns
    -------
    sympy.ImmutableMatrix
        Shape ``(n, 1)``.

    Examples
    --------
    A motor between links of a relative-angle arm acts on both absolute link angles:

    >>> import lagdyn as ld
    >>> from lagdyn.kinematics import generalized_torque
    >>> q1, q2 = ld.coordinates("q1 q2")
    >>> generalized_torque(q1 + q2, 5, [q1, q2]).T
    Matrix([[5, 5]])
    """
    qv = _validate_coordinates(q)
    if isinstance(orientation, (sp.MatrixBase, list, tuple)):
        Jw = angular_velocity_jacobian(orientation, qv, frame="world")
        tv = _vector(torque, "torque", dims=(3,))
        return sp.ImmutableMatrix([sp.expand(e) for e in Jw.T * tv])
    ang = _sympify(orientation, "orientation")
    tau = _sympify(torque, "torque")
    J = jacobian([ang], qv)
    return sp.ImmutableMatrix([sp.expand(J[0, j] * tau) for j in range(len(qv))])


def rayleigh_forces(R: Any, q: Sequence[sp.Expr]) -> sp.ImmutableMatrix:
    r"""Dissipative generalized forces ``Q = −∂R/∂q̇`` of a Rayleigh dissipation function.

    For viscous damping at a point p(q) with coefficient c, take
    :math:`R = \tfrac12 c\,|\dot p|^2`; for joint damping :math:`R = \tfrac12\sum c_i\dot q_i^2`.
    The dissipated power is :math:`-Q\cdot\dot q = 2R` for quadratic R.

    Parameters
    ----------
    R : sympy.Expr
        R(q, q̇) ≥ 0, usually quadratic in q̇.
    q : sequence of n coordinates

    Returns
    -------
    sympy.ImmutableMatrix
        Shape ``(n, 1)``, to pass as ``forces=``.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import rayleigh_forces
    >>> x, y = ld.coordinates("x y")
    >>> c = ld.parameters("c")[0]
    >>> rayleigh_forces(c * (x.diff(ld.t)**2 + y.diff(ld.t)**2) / 2, [x, y]).T
    Matrix([[-c*Derivative(x(t), t), -c*Derivative(y(t), t)]])
    """
    qv = _validate_coordinates(q)
    Re = _sympify(R, "R")
    return sp.ImmutableMatrix([sp.expand(-sp.diff(Re, v)) for v in _rates(qv)])


def is_power_consistent(point: Vector, force: Vector, q: Sequence[sp.Expr]) -> bool | None:
    """Exact proof that ``f·ṗ = Q·q̇`` with ``Q = generalized_force(point, force, q)``.

    ``ṗ`` is computed independently, by differentiating ``point`` with respect to
    ``t``; the difference is expanded (sin/cos in exponential form when needed), no
    ``simplify``.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.kinematics import is_power_consistent
    >>> a, b = ld.coordinates("a b")
    >>> Fx, Fy = sp.symbols("F_x F_y")
    >>> is_power_consistent((sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b)), (Fx, Fy), [a, b])
    True
    """
    qv = _validate_coordinates(q)
    p = _vector(point, "point")
    f = _vector(force, "force")
    Q = generalized_force(p, f, qv)
    pdot = p.diff(t)
    lhs = (f.T * pdot)[0, 0]
    rhs = sum((Q[i] * v for i, v in enumerate(_rates(qv))), sp.Integer(0))
    return is_zero(lhs - rhs)

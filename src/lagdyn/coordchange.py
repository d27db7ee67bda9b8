r"""Changes of generalized coordinates, and constraint tangent diagnostics.

(The module is ``coordchange``, not ``coordinates``: a submodule of that name would
replace the function ``lagdyn.coordinates`` on the package once imported.)

Coordinate changes
------------------
A change of coordinates is a map :math:`q = \varphi(u)` from new coordinates ``u``
to the old ones ``q``, with Jacobian :math:`A(u) = \partial\varphi/\partial u`.
Rates follow the chain rule, :math:`\dot q = A(u)\dot u`: they are *mapped*, never
wrapped (an angle may be reduced modulo 2π, its rate never is). The system in the
new coordinates has

.. math:: M_u = A^T M(\varphi(u)) A,\qquad b_u = A^T b,\qquad U_u = U(\varphi(u)),
          \qquad Q_u = A^T Q(\varphi(u), A\dot u),

and Christoffel symbols (hence C) derived from :math:`M_u`, which equal
:math:`A^T C A + A^T M \dot A`. Kinetic energy and power are invariant
(:func:`is_kinetic_energy_invariant`, :func:`is_power_invariant` prove it); the
eigenvalues of M are not (:func:`metric_eigenvalues` shows it).

Constraint tangent diagnostics (``ConstraintTangent``, ``TangentStep``) live in
:mod:`lagdyn.tangent` and are re-exported here.

Examples
--------
The relative-angle double pendulum of seed 003 from the absolute one:

>>> import sympy as sp, lagdyn as ld
>>> from lagdyn.coordchange import change_coordinates
>>> a, b = ld.coordinates("a b")
>>> u1, u2 = ld.coordinates("u1 u2")
>>> rel = change_coordinates(ld.zoo.double_pendulum(), [u1, u2], {a: u1, b: u1 + u2})
>>> rel.M[0, 1]
l1*l2*m2*cos(u2(t)) + l2**2*m2
>>> direct = ld.zoo.double_pendulum(coordinates="relative")
>>> all(sp.expand(x) == 0 for x in [*(rel.M - direct.M), *(rel.C - direct.C), *(rel.g - direct.g)])
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef

from ._common import SystemLike
from ._common import numeric_rank as _numeric_rank
from ._common import validate_coordinates as _validate_coordinates
from .errors import CoordinateError, ShapeError
from .structure import is_zero
from .symbols import t
from .tangent import ConstraintTangent, TangentStep

__all__ = [
    "ConstraintTangent",
    "CoordinateChange",
    "TangentStep",
    "change_coordinates",
    "coordinate_change",
    "is_kinetic_energy_invariant",
    "is_power_invariant",
    "metric_eigenvalues",
    "transform_force",
]


# ============================================================================ changes
@dataclass(frozen=True)
class CoordinateChange:
    r"""A validated map :math:`q = \varphi(u)` from new coordinates ``u`` to old ``q``.

    Build it with :func:`coordinate_change`; :func:`change_coordinates` does so for you.

    Attributes
    ----------
    old_q : tuple
        The old coordinates q (n of them).
    new_q : tuple
        The new coordinates u (m ≤ n of them; m < n restricts the system to the
        submanifold that φ parametrizes).
    phi : sympy.ImmutableMatrix
        φ(u), shape (n, 1): ``phi[i]`` is the expression of ``old_q[i]``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.coordchange import coordinate_change
    >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
    >>> ch = coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2})
    >>> ch.A
    Matrix([
    [1, 0],
    [1, 1]])
    >>> ch.new_rates([0, 0], [1, -1])   # absolute rates (1, -1) -> relative (1, -2)
    (1, -2)
    """

    old_q: tuple[sp.Expr, ...]
    new_q: tuple[sp.Expr, ...]
    phi: sp.ImmutableMatrix

    @cached_property
    def A(self) -> sp.ImmutableMatrix:
        """The Jacobian ``A = ∂φ/∂u``, shape (n, m)."""
        return sp.ImmutableMatrix(
            len(self.old_q), len(self.new_q), lambda i, j: sp.diff(self.phi[i], self.new_q[j])
        )

    @cached_property
    def is_linear(self) -> bool:
        """True when A is constant (q = A u + c)."""
        return not any(e.has(*self.new_q) for e in self.A)

    @cached_property
    def old_rates(self) -> sp.ImmutableMatrix:
        """``q̇ = A(u) u̇`` in the new coordinates, shape (n, 1)."""
        ud = sp.Matrix([sp.diff(x, t) for x in self.new_q])
        return sp.ImmutableMatrix([sp.expand(e) for e in self.A * ud])

    @cached_property
    def substitution(self) -> dict[sp.Expr, sp.Expr]:
        """``{q̇_i: (A u̇)_i, q_i: φ_i}``, for ``xreplace`` (rates matched before coordinates)."""
        sub: dict[sp.Expr, sp.Expr] = {}
        for x, r in zip(self.old_q, self.old_rates):
            sub[sp.diff(x, t)] = r
        for x, e in zip(self.old_q, self.phi):
            sub[x] = e
        return sub

    def pull_back(self, expr: Any) -> Any:
        """Rewrite an expression (or matrix) in q, q̇ in terms of u, u̇.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.coordchange import coordinate_change
        >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
        >>> ch = coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2})
        >>> ch.pull_back(b.diff(ld.t))
        Derivative(u1(t), t) + Derivative(u2(t), t)
        """
        return sp.sympify(expr).xreplace(self.substitution)

    def _at(self, u_values: Sequence[Any]) -> dict[sp.Expr, Any]:
        vals = [sp.sympify(v) for v in u_values]
        if len(vals) != len(self.new_q):
            raise ShapeError(f"{len(vals)} values for {len(self.new_q)} new coordinates")
        return dict(zip(self.new_q, vals))

    def old_state(
        self, u_values: Sequence[Any], ud_values: Sequence[Any]
    ) -> tuple[tuple[sp.Expr, ...], tuple[sp.Expr, ...]]:
        """``(q, q̇) = (φ(u), A(u) u̇)`` at numeric or symbolic values.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.coordchange import coordinate_change
        >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
        >>> coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2}).old_state([0, 1], [1, -2])
        ((0, 1), (1, -1))
        """
        at = self._at(u_values)
        ud = sp.Matrix([sp.sympify(v) for v in ud_values])
        if ud.rows != len(self.new_q):
            raise ShapeError(f"{ud.rows} rates for {len(self.new_q)} new coordinates")
        q = tuple(e.xreplace(at) for e in self.phi)
        qd = tuple(self.A.xreplace(at) * ud)
        return q, qd

    def new_rates(self, u_values: Sequence[Any], qd_values: Sequence[Any]) -> tuple[sp.Expr, ...]:
        """The new rates ``u̇`` with ``A(u) u̇ = q̇`` (exact solve; never wrapped).

        Raises
        ------
        CoordinateError
            If A is singular at ``u`` or q̇ is not tangent to the image (m < n).
        """
        at = self._at(u_values)
        A = sp.Matrix(self.A.xreplace(at))
        qd = sp.Matrix([sp.sympify(v) for v in qd_values])
        if qd.rows != len(self.old_q):
            raise ShapeError(f"{qd.rows} rates for {len(self.old_q)} old coordinates")
        try:
            sol = (A.T * A).LUsolve(A.T * qd)
        except (ValueError, ZeroDivisionError):
            raise CoordinateError(f"the map is singular at u = {tuple(u_values)}") from None
        if any(sp.expand(e) != 0 for e in (A * sol - qd)) and all(
            e.is_number for e in A * sol - qd
        ):
            raise CoordinateError("the old rates are not tangent to the new coordinates' image")
        return tuple(sp.expand(e) for e in sol)


def coordinate_change(
    old_q: Sequence[sp.Expr], new_q: Sequence[sp.Expr], mapping: Mapping[sp.Expr, Any]
) -> CoordinateChange:
    """Validate ``{old: expr_in_new}`` and return the :class:`CoordinateChange`.

    Parameters
    ----------
    old_q : sequence of n coordinates
    new_q : sequence of m ≤ n coordinates (functions of ``ld.t``)
    mapping : mapping from every old coordinate to an expression in ``new_q``

    Raises
    ------
    CoordinateError
        Old coordinates missing from the mapping, keys that are not old coordinates,
        expressions using rates or other functions of t, or a rank-deficient map
        (A = ∂φ/∂u of rank < m: exactly for linear maps, at random states otherwise).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.coordchange import coordinate_change
    >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
    >>> coordinate_change([a, b], [u1, u2], {a: u1})
    Traceback (most recent call last):
    ...
    lagdyn.errors.CoordinateError: the mapping must give every old coordinate in terms of the
    new ones; missing: b(t)
    >>> coordinate_change([a, b], [u1, u2], {a: u1 + u2, b: 2 * u1 + 2 * u2})
    Traceback (most recent call last):
    ...
    lagdyn.errors.CoordinateError: the coordinate map is rank-deficient: rank 1 < 2
    (A = Matrix([[1, 1], [2, 2]]))
    """
    qv = _validate_coordinates(old_q)
    uv = _validate_coordinates(new_q)
    if not isinstance(mapping, Mapping):
        raise CoordinateError(
            f"mapping must be a dict {{old: expression in new}}, got {type(mapping).__name__}"
        )
    missing = [x for x in qv if x not in mapping]
    if missing:
        raise CoordinateError(
            "the mapping must give every old coordinate in terms of the new ones; missing: "
            + ", ".join(map(str, missing))
        )
    extra = [k for k in mapping if k not in qv]
    if extra:
        raise CoordinateError(
            "mapping keys that are not old coordinates: " + ", ".join(map(str, extra))
        )
    if len(uv) > len(qv):
        raise CoordinateError(
            f"{len(uv)} new coordinates for {len(qv)} old ones: the map cannot have full rank"
        )
    problems: list[str] = []
    phi: list[sp.Expr] = []
    uset = set(uv)
    for x in qv:
        value = mapping[x]
        if isinstance(value, str):
            problems.append(f"{x} maps to the string {value!r} (strings are not evaluated)")
            continue
        try:
            e = sp.sympify(value, strict=True)
        except (sp.SympifyError, TypeError):
            problems.append(f"{x} maps to {value!r}, not an expression")
            continue
        if e.atoms(sp.Derivative):
            problems.append(f"{x} maps to {e}, which contains rates")
        foreign = {f for f in e.atoms(AppliedUndef) if f not in uset}
        if foreign:
            problems.append(
                f"{x} maps to {e}, which uses {', '.join(sorted(map(str, foreign)))} "
                "(not among the new coordinates)"
            )
        phi.append(e)
    if problems:
        raise CoordinateError("invalid coordinate map: " + "; ".join(problems))
    change = CoordinateChange(qv, uv, sp.ImmutableMatrix(phi))
    _check_rank(change)
    return change


def _check_rank(change: CoordinateChange) -> None:
    A = change.A
    m = len(change.new_q)
    if change.is_linear and not any(e.free_symbols - {t} for e in A):
        r = sp.Matrix(A).rank()
        if r < m:
            raise CoordinateError(
                f"the coordinate map is rank-deficient: rank {r} < {m} (A = {sp.Matrix(A)})"
            )
        return
    rng = random.Random(4242)
    funcs = list(change.new_q)
    syms = sorted(set().union(*(e.free_symbols for e in A)) - {t}, key=str)
    ranks = []
    for _ in range(3):
        point: dict[Any, Any] = {f: sp.Float(rng.uniform(0.3, 1.4)) for f in funcs}
        point.update({s: sp.Float(rng.uniform(0.6, 1.7)) for s in syms})
        try:
            vals = [[float(A[i, j].xreplace(point)) for j in range(m)] for i in range(A.rows)]
        except (TypeError, ValueError):
            return  # not numerically evaluable: cannot tell
        ranks.append(_numeric_rank(vals))
    if max(ranks) < m:
        raise CoordinateError(
            f"the coordinate map is rank-deficient: rank {max(ranks)} < {m} at random states "
            f"(A = {sp.Matrix(A)})"
        )


def _expand_matrix(m: sp.MatrixBase) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(m.rows, m.cols, [sp.expand(e) for e in m])


def change_coordinates(
    system: SystemLike,
    new_q: Sequence[sp.Expr],
    mapping: Mapping[sp.Expr, Any],
) -> Any:
    r"""The same mechanical system in new coordinates ``u``, with ``q = φ(u)``.

    .. math:: M_u = A^T M A,\quad b_u = A^T b,\quad U_u = U\circ\varphi,\quad
              Q_u = A^T Q(\varphi(u), A\dot u),\qquad A = \partial\varphi/\partial u.

    C and g of the result come from M_u and U_u as for any system (so
    ``C_u = AᵀCA + AᵀMȦ`` and ``g_u = Aᵀg``); the defaults are carried over.

    Parameters
    ----------
    system : LagrangianSystem
        The system in the old coordinates ``system.q``.
    new_q : sequence of m coordinates
        New coordinates (``ld.coordinates``); m < n restricts the system to the
        parametrized submanifold (holonomic constraints solved explicitly).
    mapping : mapping
        ``{old: expression in new}`` for every old coordinate.

    Returns
    -------
    LagrangianSystem

    Raises
    ------
    CoordinateError
        See :func:`coordinate_change`.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.coordchange import change_coordinates
    >>> x, y = ld.coordinates("x y")
    >>> r, th = ld.coordinates("r theta")
    >>> m = ld.parameters("m")[0]
    >>> free = ld.LagrangianSystem.from_mass_matrix(sp.diag(m, m), 0, [x, y])
    >>> polar = change_coordinates(free, [r, th], {x: r * sp.cos(th), y: r * sp.sin(th)})
    >>> polar.M
    Matrix([
    [m,         0],
    [0, m*r(t)**2]])
    """
    change = coordinate_change(system.q, new_q, mapping)
    A = change.A
    sub = change.substitution
    M = _expand_matrix(A.T * system.M.xreplace(sub) * A)
    b = _expand_matrix(A.T * system.b.xreplace(sub))
    U = sp.expand(system.U.xreplace(sub))
    forces = None
    if getattr(system, "_forces_in", None) is not None:
        forces = list(_expand_matrix(A.T * system.forces.xreplace(sub)))
    # the system's own class builds the result: this module does not import system.py
    build: Any = getattr(type(system), "from_mass_matrix")  # noqa: B009
    return build(
        M,
        U,
        change.new_q,
        b=None if all(e == 0 for e in b) else list(b),
        forces=forces,
        defaults=system.defaults,
    )


def transform_force(Q: Sequence[Any], change: CoordinateChange) -> sp.ImmutableMatrix:
    """Generalized forces in the new coordinates: ``Q_u = Aᵀ Q(φ(u), A u̇)``, shape (m, 1).

    Examples
    --------
    The seed-003 end force: ``Q_abs = (3, 3)`` becomes ``Q_rel = (6, 3)``.

    >>> import lagdyn as ld
    >>> from lagdyn.coordchange import coordinate_change, transform_force
    >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
    >>> ch = coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2})
    >>> transform_force([3, 3], ch).T
    Matrix([[6, 3]])
    """
    Qm = sp.Matrix([sp.sympify(e) for e in Q])
    if Qm.rows != len(change.old_q):
        raise ShapeError(f"Q has {Qm.rows} entries, expected {len(change.old_q)}")
    return _expand_matrix(change.A.T * Qm.xreplace(change.substitution))


def is_kinetic_energy_invariant(
    system: SystemLike, new_system: SystemLike, mapping: Mapping[sp.Expr, Any]
) -> bool | None:
    """Exact proof that ``T(φ(u), A u̇) = T_u(u, u̇)`` identically.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.coordchange import is_kinetic_energy_invariant
    >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
    >>> mp = {a: u1, b: u1 + u2}
    >>> is_kinetic_energy_invariant(ld.zoo.double_pendulum(),
    ...                             ld.zoo.double_pendulum(coordinates="relative"), mp)
    True
    """
    change = coordinate_change(system.q, new_system.q, mapping)
    return is_zero(change.pull_back(system.T) - new_system.T)


def is_power_invariant(
    system: SystemLike,
    new_system: SystemLike,
    mapping: Mapping[sp.Expr, Any],
    Q: Sequence[Any] | None = None,
) -> bool | None:
    """Exact proof that ``Q·q̇ = Q_u·u̇`` with ``Q_u = AᵀQ`` (power is coordinate-free).

    ``Q`` defaults to ``system.forces``; ``Q_u`` is then ``new_system.forces``
    (otherwise :func:`transform_force` of ``Q``), so a hand-made new system is checked too.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.coordchange import is_power_invariant
    >>> a, b, u1, u2 = ld.coordinates("a b u1 u2")
    >>> F = sp.Symbol("F")
    >>> mp = {a: u1, b: u1 + u2}
    >>> Q = [F * sp.cos(a), F * sp.cos(b)]
    >>> is_power_invariant(ld.zoo.double_pendulum(),
    ...                    ld.zoo.double_pendulum(coordinates="relative"), mp, Q)
    True
    """
    change = coordinate_change(system.q, new_system.q, mapping)
    if Q is None:
        Qm = sp.Matrix(system.forces)
        Qu = sp.Matrix(new_system.forces)
    else:
        Qm = sp.Matrix([sp.sympify(e) for e in Q])
        Qu = sp.Matrix(transform_force(Qm, change))
    p_old = (Qm.T * sp.Matrix(system.qd))[0, 0]
    p_new = (Qu.T * sp.Matrix(new_system.qd))[0, 0]
    return is_zero(change.pull_back(p_old) - p_new)


def metric_eigenvalues(
    system_or_M: SystemLike | sp.MatrixBase,
    q_values: Sequence[Any],
    params: Mapping[sp.Symbol, Any] | None = None,
) -> tuple[sp.Expr, ...]:
    """Eigenvalues of the mass matrix at a configuration, ascending (exact when possible).

    They are *not* invariant under changes of coordinates (the kinetic energy is).
    Exact sympy eigenvalues for exact inputs up to n = 4, otherwise mpmath's
    symmetric eigensolver; no numpy.

    Parameters
    ----------
    system_or_M : LagrangianSystem or (n, n) matrix in the system's coordinates
    q_values : sequence of n values
    params : mapping, optional
        Parameter values; default ``system.defaults`` (for a system).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.coordchange import metric_eigenvalues
    >>> metric_eigenvalues(ld.zoo.double_pendulum(), [0, sp.pi / 2], {})  # symbolic params
    (l1**2*(m1 + m2), l2**2*m2)
    >>> metric_eigenvalues(ld.zoo.double_pendulum(coordinates="relative"), [0, sp.pi / 2],
    ...                    dict.fromkeys(ld.parameters("m1 m2 l1 l2"), 1))
    (2 - sqrt(2), sqrt(2) + 2)
    """
    if not isinstance(system_or_M, sp.MatrixBase) and hasattr(system_or_M, "M"):
        M = sp.Matrix(system_or_M.M)
        q = system_or_M.q
        pv = dict(system_or_M.defaults if params is None else params)
    else:
        M = sp.Matrix(system_or_M)
        q = tuple(sorted(set().union(*(e.atoms(AppliedUndef) for e in M)), key=str))
        pv = dict(params or {})
    if len(q_values) != len(q):
        raise ShapeError(f"{len(q_values)} values for {len(q)} coordinates")
    Mv = M.xreplace(dict(zip(q, [sp.sympify(v) for v in q_values]))).xreplace(
        {k: sp.sympify(v) for k, v in pv.items()}
    )
    exact = not any(isinstance(a, sp.Float) for e in Mv for a in e.atoms(sp.Number))
    if exact and M.rows <= 4:
        ev: list[sp.Expr] = []
        for value, mult in Mv.eigenvals().items():
            ev.extend([sp.expand(value) if value.is_number else value] * mult)
        try:
            return tuple(sorted(ev, key=lambda e: float(e)))
        except TypeError:
            return tuple(sorted(ev, key=sp.default_sort_key))
    E, _ = mpmath.eigsy(
        mpmath.matrix([[mpmath.mpf(float(Mv[i, j])) for j in range(M.cols)] for i in range(M.rows)])
    )
    return tuple(sorted(sp.Float(float(x)) for x in E))

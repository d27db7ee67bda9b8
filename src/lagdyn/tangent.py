r"""Constraint tangent diagnostics of a configuration map into ambient space.

For ambient coordinates ``z`` (e.g. Cartesian point positions), constraints
``h(z) = 0`` and a configuration map ``z(q)``: the constraint Jacobian ``∂h/∂z``
(:attr:`ConstraintTangent.constraint_jacobian`) times the map Jacobian ``∂z/∂q``
(:attr:`ConstraintTangent.map_jacobian`) vanishes identically
(:meth:`ConstraintTangent.proves_cj_zero`), the rank of ``∂h/∂z`` gives the degrees of
freedom, and a finite tangent step ``z + ε (∂z/∂q) δq`` leaves the constraint manifold at
second order while the exact map ``z(q + εδq)`` does not (:meth:`ConstraintTangent.step`).

Examples
--------
>>> import sympy as sp, lagdyn as ld
>>> from lagdyn.tangent import ConstraintTangent
>>> (a,) = ld.coordinates("a")
>>> x, y = sp.symbols("x y", real=True)
>>> circle = ConstraintTangent.from_map([sp.cos(a), sp.sin(a)], [x**2 + y**2 - 1], (x, y), [a])
>>> circle.proves_cj_zero(), circle.dof()
(True, 1)
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef

from ._common import all_proved
from ._common import numeric_rank as _numeric_rank
from ._common import reduce_pythagoras as _reduce_pythagoras
from ._common import validate_coordinates as _validate_coordinates
from .errors import LagdynError, ShapeError
from .structure import is_zero
from .symbols import t

__all__ = ["ConstraintTangent", "TangentStep"]


def _expand_matrix(m: sp.MatrixBase) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(m.rows, m.cols, [sp.expand(e) for e in m])


# ============================================================================ tangents
@dataclass(frozen=True)
class TangentStep:
    r"""Result of :meth:`ConstraintTangent.step`: a finite tangent step vs the exact map.

    All entries are sympy numbers (exact when the inputs are); shapes (N,) for points.

    Attributes
    ----------
    start : tuple
        ``z(q0)``.
    tangent : tuple
        ``z(q0) + ε J(q0) δq`` (the first-order, tangent step).
    exact : tuple
        ``z(q0 + ε δq)`` (the configuration map; stays on the constraints).
    tangent_residuals, exact_residuals : tuple
        ``h`` at the tangent and at the exact point.
    position_error : sympy.Expr
        ``|tangent − exact|``.
    virtual_work : sympy.Expr
        ``f · J δq`` at q0 (first order, per unit ε).
    linear_work : sympy.Expr
        ``ε × virtual_work``.
    finite_work : sympy.Expr
        Work of f along the exact path ``s ↦ z(q0 + s δq)``, s from 0 to ε.
    constraint_velocity : tuple
        ``C J δq`` at q0 (zero: the step is tangent).

    Examples
    --------
    The seed 003 probe: unit rods hanging straight down, δq = (1, −1), ε = 1/2.

    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.coordchange import ConstraintTangent
    >>> a, b = ld.coordinates("a b")
    >>> x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2", real=True)
    >>> z = [sp.sin(a), -sp.cos(a), sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b)]
    >>> h = [x1**2 + y1**2 - 1, (x2 - x1)**2 + (y2 - y1)**2 - 1]
    >>> tan = ConstraintTangent.from_map(z, h, (x1, y1, x2, y2), [a, b])
    >>> step = tan.step([0, 0], [1, -1], sp.Rational(1, 2))
    >>> step.tangent_residuals
    (1/4, 1/4)
    """

    start: tuple[sp.Expr, ...]
    tangent: tuple[sp.Expr, ...]
    exact: tuple[sp.Expr, ...]
    tangent_residuals: tuple[sp.Expr, ...]
    exact_residuals: tuple[sp.Expr, ...]
    position_error: sp.Expr
    virtual_work: sp.Expr
    linear_work: sp.Expr
    finite_work: sp.Expr
    constraint_velocity: tuple[sp.Expr, ...] = field(default=())


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use .{new}",
        DeprecationWarning,
        stacklevel=3,
    )


@dataclass(frozen=True)
class ConstraintTangent:
    r"""Constraint tangent geometry of a configuration map ``z(q)`` into ambient space.

    Build with :meth:`from_map`. :attr:`constraint_jacobian` = ∂h/∂z (m × N),
    :attr:`map_jacobian` = ∂z/∂q (N × n); on the map their product vanishes.

    Attributes
    ----------
    z : sympy.ImmutableMatrix
        The configuration map z(q), shape (N, 1).
    h : sympy.ImmutableMatrix
        Constraints h(ambient), shape (m, 1), in the ambient symbols.
    ambient : tuple of sympy.Symbol
        The N ambient coordinates (plain symbols).
    q : tuple
        The n coordinates.

    Examples
    --------
    The seed-003 double pendulum: four point coordinates, two length constraints.

    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.coordchange import ConstraintTangent
    >>> a, b = ld.coordinates("a b")
    >>> x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2", real=True)
    >>> z = [sp.sin(a), -sp.cos(a), sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b)]
    >>> h = [x1**2 + y1**2 - 1, (x2 - x1)**2 + (y2 - y1)**2 - 1]
    >>> lab = ConstraintTangent.from_map(z, h, (x1, y1, x2, y2), [a, b])
    >>> lab.proves_cj_zero(), lab.rank(), lab.dof()
    (True, 2, 2)
    >>> s = lab.step([0, 0], [1, -1], sp.Rational(1, 2))
    >>> s.tangent_residuals, s.exact_residuals
    ((1/4, 1/4), (0, 0))
    """

    z: sp.ImmutableMatrix
    h: sp.ImmutableMatrix
    ambient: tuple[sp.Symbol, ...]
    q: tuple[sp.Expr, ...]

    @classmethod
    def from_map(
        cls,
        z: Sequence[Any],
        h: Sequence[Any],
        ambient: Sequence[sp.Symbol],
        q: Sequence[sp.Expr],
    ) -> ConstraintTangent:
        """Validate and build: ``z`` in terms of ``q``, ``h`` in terms of ``ambient``.

        Raises
        ------
        ShapeError
            ``len(z) != len(ambient)``.
        LagdynError
            ``h`` not depending on the ambient symbols only through them, or ``z``
            depending on rates.
        """
        qv = _validate_coordinates(q)
        amb = tuple(ambient)
        if not all(isinstance(s, sp.Symbol) for s in amb):
            raise LagdynError("ambient coordinates must be plain sympy Symbols")
        zm = sp.ImmutableMatrix([sp.sympify(e) for e in z])
        hm = sp.ImmutableMatrix([sp.sympify(e) for e in h])
        if zm.rows != len(amb):
            raise ShapeError(f"z has {zm.rows} components but {len(amb)} ambient symbols given")
        if zm.atoms(sp.Derivative):
            raise LagdynError("z(q) must not contain rates")
        if hm.atoms(AppliedUndef):
            raise LagdynError("h must be written in the ambient symbols, not in the coordinates")
        return cls(zm, hm, amb, qv)

    @cached_property
    def constraint_jacobian(self) -> sp.ImmutableMatrix:
        """``∂h/∂z`` in the ambient symbols, shape (m, N) (formerly ``.C``)."""
        return sp.ImmutableMatrix(self.h.jacobian(self.ambient))

    @cached_property
    def map_jacobian(self) -> sp.ImmutableMatrix:
        """``∂z/∂q``, shape (N, n); ``ż = (∂z/∂q) q̇`` (formerly ``.J``)."""
        return sp.ImmutableMatrix(
            self.z.rows, len(self.q), lambda i, j: sp.diff(self.z[i], self.q[j])
        )

    @property
    def C(self) -> sp.ImmutableMatrix:
        """Deprecated alias of :attr:`constraint_jacobian` (clashed with Coriolis C)."""
        _deprecated("ConstraintTangent.C", "constraint_jacobian")
        return self.constraint_jacobian

    @property
    def J(self) -> sp.ImmutableMatrix:
        """Deprecated alias of :attr:`map_jacobian` (clashed with ConstrainedSystem.J)."""
        _deprecated("ConstraintTangent.J", "map_jacobian")
        return self.map_jacobian

    @cached_property
    def _on_map(self) -> dict[sp.Symbol, sp.Expr]:
        return dict(zip(self.ambient, self.z))

    @cached_property
    def CJ(self) -> sp.ImmutableMatrix:
        """``constraint_jacobian(z(q)) · map_jacobian(q)``, shape (m, n) (zero only after proof)."""
        return _expand_matrix(self.constraint_jacobian.xreplace(self._on_map) * self.map_jacobian)

    def proves_cj_zero(self) -> bool | None:
        """Exact proof that ``(∂h/∂z)(z(q)) ∂z/∂q = 0`` identically (h(z(q)) = 0 differentiated).

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> from lagdyn.coordchange import ConstraintTangent
        >>> th, = ld.coordinates("theta")
        >>> x, y = sp.symbols("x y", real=True)
        >>> ConstraintTangent.from_map([sp.cos(th), sp.sin(th)], [x**2 + y**2 - 1],
        ...                            (x, y), [th]).proves_cj_zero()
        True
        """
        return all_proved(is_zero(e) for e in self.CJ)

    def residuals_on_map(self) -> bool | None:
        """Exact proof that ``h(z(q)) = 0`` identically (the map satisfies the constraints)."""
        return all_proved(is_zero(e.xreplace(self._on_map)) for e in self.h)

    def _state(self, q_values: Sequence[Any], params: Mapping[sp.Symbol, Any] | None) -> dict:
        if len(q_values) != len(self.q):
            raise ShapeError(f"{len(q_values)} values for {len(self.q)} coordinates")
        sub: dict[Any, Any] = {k: sp.sympify(v) for k, v in (params or {}).items()}
        sub.update(zip(self.q, [sp.sympify(v) for v in q_values]))
        return sub

    def rank(
        self, q_values: Sequence[Any] | None = None, params: Mapping[sp.Symbol, Any] | None = None
    ) -> int:
        """Rank of ∂h/∂z on the map: exact at ``q_values``, or generic (random states) if None.

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> from lagdyn.coordchange import ConstraintTangent
        >>> th, = ld.coordinates("theta")
        >>> x, y = sp.symbols("x y", real=True)
        >>> ConstraintTangent.from_map([sp.cos(th), sp.sin(th)], [x**2 + y**2 - 1],
        ...                            (x, y), [th]).rank([0])
        1
        """
        Cq = self.constraint_jacobian.xreplace(self._on_map)
        if q_values is not None:
            sub = self._state(q_values, params)
            return int(sp.Matrix(Cq.xreplace(sub)).rank())
        rng = random.Random(99)
        syms = sorted(set().union(*(e.free_symbols for e in Cq)) - {t}, key=str)
        best = 0
        for _ in range(3):
            pt: dict[Any, Any] = {x: sp.Float(rng.uniform(0.3, 1.4)) for x in self.q}
            pt.update({s: sp.Float(rng.uniform(0.6, 1.7)) for s in syms})
            pt.update(params or {})
            vals = [[float(Cq[i, j].xreplace(pt)) for j in range(Cq.cols)] for i in range(Cq.rows)]
            best = max(best, _numeric_rank(vals))
        return best

    def dof(
        self, q_values: Sequence[Any] | None = None, params: Mapping[sp.Symbol, Any] | None = None
    ) -> int:
        """Configuration degrees of freedom: ambient dimension minus the rank of ∂h/∂z."""
        return len(self.ambient) - self.rank(q_values, params)

    def step(
        self,
        q_values: Sequence[Any],
        dq: Sequence[Any],
        eps: Any,
        force: Sequence[Any] | None = None,
        params: Mapping[sp.Symbol, Any] | None = None,
    ) -> TangentStep:
        r"""Compare the tangent step ``z + εJδq`` with the exact map ``z(q + εδq)``.

        Parameters
        ----------
        q_values : sequence of n values
            Base configuration q0.
        dq : sequence of n values
            Virtual displacement δq.
        eps : number
            Step size ε (dimensionless, not time).
        force : sequence of N expressions, optional
            Applied ambient force f, constant or a function of the ambient symbols;
            gives the virtual work f·Jδq and the finite work along the exact path.
        params : mapping, optional
            Parameter values.

        Returns
        -------
        TangentStep

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> from lagdyn.coordchange import ConstraintTangent
        >>> th, = ld.coordinates("theta")
        >>> x, y = sp.symbols("x y", real=True)
        >>> ring = ConstraintTangent.from_map([sp.cos(th), sp.sin(th)], [x**2 + y**2 - 1],
        ...                                   (x, y), [th])
        >>> ring.step([0], [1], 1).tangent_residuals
        (1,)
        """
        sub = self._state(q_values, params)
        e = sp.sympify(eps)
        d = sp.Matrix([sp.sympify(v) for v in dq])
        if d.rows != len(self.q):
            raise ShapeError(f"dq has {d.rows} entries, expected {len(self.q)}")
        pv = {k: sp.sympify(v) for k, v in (params or {}).items()}
        z0 = sp.Matrix(self.z.xreplace(sub))
        J0 = sp.Matrix(self.map_jacobian.xreplace(sub))
        tangent = z0 + e * J0 * d
        moved = {
            **pv,
            **{x: sp.sympify(v) + e * d[i] for i, (x, v) in enumerate(zip(self.q, q_values))},
        }
        exact = sp.Matrix(self.z.xreplace(moved))
        hp = self.h.xreplace(pv)

        def h_at(point: sp.MatrixBase) -> tuple[sp.Expr, ...]:
            return tuple(_reduce_pythagoras(x) for x in hp.xreplace(dict(zip(self.ambient, point))))

        diff = tangent - exact
        err = sp.sqrt(sum((x**2 for x in diff), sp.Integer(0)))
        Cv = (
            sp.Matrix(self.constraint_jacobian.xreplace(pv).xreplace(dict(zip(self.ambient, z0))))
            * J0
            * d
        )
        vw = lw = fw = sp.Integer(0)
        if force is not None:
            f = sp.Matrix([sp.sympify(x) for x in force]).xreplace(pv)
            if f.rows != len(self.ambient):
                raise ShapeError(f"force has {f.rows} components, expected {len(self.ambient)}")
            f0 = f.xreplace(dict(zip(self.ambient, z0)))
            vw = sp.expand((f0.T * J0 * d)[0, 0])
            lw = e * vw
            fw = self._finite_work(f, q_values, d, e, pv, z0, exact)
        return TangentStep(
            start=tuple(z0),
            tangent=tuple(sp.expand(x) for x in tangent),
            exact=tuple(exact),
            tangent_residuals=h_at(tangent),
            exact_residuals=h_at(exact),
            position_error=err,
            virtual_work=vw,
            linear_work=lw,
            finite_work=fw,
            constraint_velocity=tuple(sp.expand(x) for x in Cv),
        )

    def _finite_work(
        self,
        f: sp.MatrixBase,
        q_values: Sequence[Any],
        d: sp.MatrixBase,
        e: sp.Expr,
        pv: Mapping[sp.Symbol, Any],
        z0: sp.MatrixBase,
        exact: sp.MatrixBase,
    ) -> sp.Expr:
        if not (f.free_symbols & set(self.ambient)):
            return sp.expand((f.T * (exact - z0))[0, 0])  # constant force: f·Δz
        s = sp.Symbol("_s", real=True)
        path = {x: sp.sympify(v) + s * d[i] for i, (x, v) in enumerate(zip(self.q, q_values))}
        zs = sp.Matrix(self.z.xreplace(pv).xreplace(path))
        integrand = (f.xreplace(dict(zip(self.ambient, zs))).T * zs.diff(s))[0, 0]
        fn = sp.lambdify(s, integrand, modules="mpmath")
        return sp.Float(mpmath.quad(fn, [0, float(e)]), 15)

r"""Holonomic constraints by Lagrange multipliers (seed 004).

A :class:`ConstrainedSystem` couples a :class:`~lagdyn.LagrangianSystem` with
constraints :math:`\Phi(q) = 0`. With :math:`J_c = \partial\Phi/\partial q` the
equations are a DAE,

.. math:: M\ddot q + h = \tau + J_c^T\lambda, \qquad \Phi(q) = 0,

with :math:`h = C\dot q + G\dot q + g - Q`. Differentiating the constraints twice,
:math:`J_c\ddot q + \dot J_c\dot q = 0`, gives the KKT system

.. math::
    \begin{bmatrix} M & -J_c^T \\ J_c & 0 \end{bmatrix}
    \begin{bmatrix} \ddot q \\ \lambda \end{bmatrix} =
    \begin{bmatrix} \tau - h \\ -\dot J_c\dot q - 2\alpha\dot\Phi - \beta^2\Phi \end{bmatrix},

where the Baumgarte terms (α, β ≥ 0) damp the drift of Φ that the twice
differentiated form lets grow. :math:`J_c^T\lambda` are the constraint forces in
generalized coordinates; λ are physically observable (rod tensions, contact forces).

Everything here is symbolic; :meth:`ConstrainedSystem.lambdify` builds the batched
numeric solvers (:mod:`lagdyn.numeric.constrained`) and
:meth:`ConstrainedSystem.solve` does so on first use when every parameter is numeric.

Examples
--------
>>> import sympy as sp, lagdyn as ld
>>> x, y = ld.coordinates("x y")
>>> m, l, g = ld.parameters("m l g")
>>> free = ld.LagrangianSystem.from_energies(
...     m * (x.diff(ld.t)**2 + y.diff(ld.t)**2) / 2, m * g * y, [x, y])
>>> pend = ld.ConstrainedSystem(free, [x**2 + y**2 - l**2])
>>> pend.J
Matrix([[2*x(t), 2*y(t)]])
>>> pend.Jdot_qd
Matrix([[2*Derivative(x(t), t)**2 + 2*Derivative(y(t), t)**2]])
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import sympy as sp

from .errors import ConstraintError, LagdynError
from .symbols import t
from .system import LagrangianSystem, _as_expr, _check_dependencies, _numeric_rank

if TYPE_CHECKING:  # pragma: no cover
    from .simulation.constrained import ConstrainedSimulator

__all__ = ["ConstrainedSystem"]


class ConstrainedSystem:
    r"""A Lagrangian system subject to holonomic constraints Φ(q) = 0.

    Parameters
    ----------
    system : LagrangianSystem
        The unconstrained system (its coordinates may be redundant, e.g. Cartesian).
    constraints : sequence of sympy.Expr
        The m constraint functions Φ_i(q), each meant to vanish; m < n.
    redundant : {"raise", "lstsq"}
        What to do with linearly dependent constraints (rank-deficient J_c at generic
        states): raise :class:`ConstraintError` naming the rows (default), or keep them
        and solve the KKT system in the least-squares sense (minimum-norm λ).

    Raises
    ------
    ConstraintError
        No constraints, m ≥ n, a constraint depending on rates or time, or
        (``redundant="raise"``) dependent constraints.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> a, b = dp.q
    >>> cs = ld.ConstrainedSystem(dp, [a - b])     # weld the rods together
    >>> cs.m, cs.kkt_matrix.shape
    (1, (3, 3))
    """

    def __init__(
        self,
        system: LagrangianSystem,
        constraints: Sequence[sp.Expr],
        *,
        redundant: str = "raise",
    ) -> None:
        if not isinstance(system, LagrangianSystem):
            raise LagdynError(f"system must be a LagrangianSystem, got {type(system).__name__}")
        if redundant not in ("raise", "lstsq"):
            raise LagdynError(f"redundant must be 'raise' or 'lstsq', got {redundant!r}")
        if isinstance(constraints, (str, bytes, sp.Basic)) and not isinstance(
            constraints, sp.MatrixBase
        ):
            constraints = [constraints]
        items = [_as_expr(c, f"constraints[{i}]") for i, c in enumerate(constraints)]
        if not items:
            raise ConstraintError("no constraints given")
        if len(items) >= system.n:
            raise ConstraintError(
                f"{len(items)} constraints on {system.n} coordinates: a constrained system "
                "needs fewer constraints than coordinates (at least one degree of freedom)"
            )
        rates = set(system.qd)
        for i, c in enumerate(items):
            _check_dependencies(c, system.q, f"constraints[{i}]", allow_t=False)
            if c.atoms(sp.Derivative) & rates:
                raise ConstraintError(
                    f"constraints[{i}] = {c} depends on rates: only holonomic constraints "
                    "Φ(q) = 0 are supported"
                )
            if not any(c.has(qi) for qi in system.q):
                raise ConstraintError(f"constraints[{i}] = {c} does not depend on any coordinate")
        self.system = system
        self.constraints = sp.ImmutableMatrix(items)
        self.redundant = redundant
        self._numeric: ConstrainedSimulator | None = None
        dependent = self.dependent_rows()
        if dependent and redundant == "raise":
            rows = ", ".join(f"{i} ({self.constraints[i]})" for i in dependent)
            raise ConstraintError(
                f"redundant or singular constraints: row(s) {rows} of J_c depend on the "
                "others (rank-deficient J_c); remove them or pass redundant='lstsq'"
            )

    # ------------------------------------------------------------------ symbolic
    @property
    def n(self) -> int:
        """The number of coordinates.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.n
        2
        """
        return self.system.n

    @property
    def m(self) -> int:
        """The number of constraints.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.m
        1
        """
        return self.constraints.rows

    @property
    def dof(self) -> int:
        """Degrees of freedom n − rank J_c (at generic states).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.dof
        1
        """
        return self.n - (self.m - len(self.dependent_rows()))

    @cached_property
    def J(self) -> sp.ImmutableMatrix:
        """The constraint Jacobian J_c = ∂Φ/∂q, shape (m, n).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.J
        Matrix([[1, -1]])
        """
        return sp.ImmutableMatrix(self.constraints.jacobian(sp.Matrix(self.system.q)))

    @cached_property
    def Jdot_qd(self) -> sp.ImmutableMatrix:
        """The velocity product J̇_c q̇ = Σ_k (∂J_c/∂q_k) q̇_k q̇, shape (m, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.Jdot_qd
        Matrix([[0]])
        """
        qd = sp.Matrix(self.system.qd)
        out = []
        for i in range(self.m):
            row = self.J[i, :]
            hess = row.jacobian(sp.Matrix(self.system.q))
            out.append(sp.expand((qd.T * hess * qd)[0, 0]))
        return sp.ImmutableMatrix(out)

    @cached_property
    def phi_dot(self) -> sp.ImmutableMatrix:
        """Φ̇ = J_c q̇, shape (m, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.phi_dot
        Matrix([[Derivative(a(t), t) - Derivative(b(t), t)]])
        """
        return sp.ImmutableMatrix(self.J * sp.Matrix(self.system.qd))

    @cached_property
    def lam(self) -> tuple[sp.Symbol, ...]:
        """Symbols for the multipliers λ_1 … λ_m.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.lam
        (lambda_1,)
        """
        return tuple(sp.Symbol(f"lambda_{i + 1}", real=True) for i in range(self.m))

    @cached_property
    def bias(self) -> sp.ImmutableMatrix:
        """h = C q̇ + G q̇ + g − Q, shape (n, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.bias.shape
        (2, 1)
        """
        s = self.system
        qd = sp.Matrix(s.qd)
        return sp.ImmutableMatrix(s.C * qd + s.G * qd + s.g - s.forces)

    @cached_property
    def kkt_matrix(self) -> sp.ImmutableMatrix:
        """[[M, −J_cᵀ], [J_c, 0]], shape (n + m, n + m).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.kkt_matrix[:, 2].T
        Matrix([[-1, 1, 0]])
        """
        M, J = self.system.M, self.J
        top = M.row_join(-J.T)
        bottom = J.row_join(sp.zeros(self.m, self.m))
        return sp.ImmutableMatrix(top.col_join(bottom))

    def kkt_rhs(
        self, tau: Sequence[sp.Expr] | None = None, baumgarte: tuple[Any, Any] | None = None
    ) -> sp.ImmutableMatrix:
        """[τ − h; −J̇_c q̇ − 2αΦ̇ − β²Φ], shape (n + m, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.kkt_rhs([0, 0]).shape
        (3, 1)
        """
        tau_m = self._tau(tau)
        acc = -self.Jdot_qd
        if baumgarte is not None:
            alpha, beta = baumgarte
            acc = acc - 2 * alpha * self.phi_dot - beta**2 * self.constraints
        return sp.ImmutableMatrix((tau_m - self.bias).col_join(acc))

    def equations(self, tau: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
        """M q̈ + h − τ − J_cᵀλ (n rows) followed by Φ(q) (m rows), with λ = :attr:`lam`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).equations().shape
        (3, 1)
        """
        s = self.system
        dyn = s.M * sp.Matrix(s.qdd) + self.bias - self._tau(tau) - self.constraint_forces
        return sp.ImmutableMatrix(sp.Matrix(dyn).col_join(sp.Matrix(self.constraints)))

    @cached_property
    def constraint_forces(self) -> sp.ImmutableMatrix:
        """The generalized constraint forces J_cᵀλ, shape (n, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.constraint_forces.T
        Matrix([[lambda_1, -lambda_1]])
        """
        return sp.ImmutableMatrix(self.J.T * sp.Matrix(self.lam))

    def _tau(self, tau: Sequence[sp.Expr] | None) -> sp.Matrix:
        if tau is None:
            return sp.Matrix(self.system.tau)
        items = [_as_expr(x, "tau entry") for x in tau]
        if len(items) != self.n:
            raise LagdynError(f"tau has {len(items)} entries, expected {self.n}")
        return sp.Matrix(items)

    def dependent_rows(self) -> list[int]:
        """Rows of J_c that are linear combinations of earlier rows at random states.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> a, b = dp.q
        >>> ld.ConstrainedSystem(dp, [a - b], redundant="lstsq").dependent_rows()
        []
        """
        rng = random.Random(99)
        syms = set().union(*(e.free_symbols for e in self.J)) - {t}
        dependent: set[int] | None = None
        for _ in range(2):
            point: dict[Any, Any] = {s: rng.uniform(0.6, 1.7) for s in syms}
            for qi in self.system.q:
                point[qi] = rng.uniform(-2.0, 2.0)
            try:
                rows = [
                    [float(self.J[i, j].subs(point)) for j in range(self.n)] for i in range(self.m)
                ]
            except (TypeError, ValueError):
                return []
            found = set()
            kept: list[list[float]] = []
            for i, row in enumerate(rows):
                if _numeric_rank([*kept, row]) > len(kept):
                    kept.append(row)
                else:
                    found.add(i)
            dependent = found if dependent is None else dependent & found
        return sorted(dependent or [])

    # ------------------------------------------------------------------ numeric
    def lambdify(
        self, params: Mapping[sp.Symbol, float] | None = None, **options: Any
    ) -> ConstrainedSimulator:
        """Batched numeric solvers of the KKT system (see :mod:`lagdyn.numeric.constrained`)
        and their simulation (:mod:`lagdyn.simulation.constrained`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> qdd, lam = cs.lambdify(dp.defaults).solve([0.3, 0.3], [0.0, 0.0], [0.0, 0.0])
        >>> abs(round(float(qdd[0] - qdd[1]), 12))
        0.0
        """
        from .simulation.constrained import ConstrainedSimulator

        return ConstrainedSimulator(self, params, **options)

    def solve(self, q: Any, qd: Any, tau: Any = None, **options: Any) -> tuple[Any, Any]:
        """(q̈, λ) at the given states, lambdifying once on first use.

        Every parameter must be numeric: bound in ``system.defaults`` (zoo models) or
        absent. Options are those of :meth:`ConstrainedNumericModel.solve
        <lagdyn.numeric.constrained.ConstrainedNumericModel.solve>` (``method``,
        ``baumgarte``, ...).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> qdd, lam = cs.solve([0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
        >>> lam.shape
        (1,)
        """
        if self._numeric is None:
            self._numeric = self.lambdify(self.system.defaults)
        return self._numeric.solve(q, qd, tau, **options)

    def simulate(self, x0: Any, t: Any, **options: Any) -> Any:
        """Simulate the constrained motion (see :meth:`ConstrainedSimulator.simulate
        <lagdyn.simulation.constrained.ConstrainedSimulator.simulate>`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> res = cs.simulate([0.3, 0.3, 0.0, 0.0], [0.0, 0.01, 0.02])
        >>> res.q.shape
        (3, 2)
        """
        if self._numeric is None:
            self._numeric = self.lambdify(self.system.defaults)
        return self._numeric.simulate(x0, t, **options)

    def __repr__(self) -> str:
        return f"ConstrainedSystem(n={self.n}, m={self.m}, dof={self.dof})"

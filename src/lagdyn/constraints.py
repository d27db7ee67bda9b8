r"""Holonomic and velocity (nonholonomic) constraints by Lagrange multipliers (seed 004,
issue 24).

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
differentiated form lets grow.

Velocity constraints :math:`A(q, t)\dot q + b(q, t) = 0` (``velocity_constraints=``) join
as further rows: W = [J_c; A] replaces J_c, and their acceleration rows are
:math:`-(\dot A\dot q + \dot b) - \alpha(A\dot q + b)` (differentiated once). Their
reduced equations on independent speeds, integrability and linearization live in
:mod:`lagdyn.nonholonomic`. :math:`J_c^T\lambda` are the constraint forces in
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
import warnings
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import symengine as se
import sympy as sp

from .errors import ConstraintError, LagdynError, LagdynWarning
from .symbols import t
from .system import LagrangianSystem, _as_expr, _check_dependencies, _numeric_rank
from .trig.convert import SymbolTable, plain_symengine, state_symbols, substitution

if TYPE_CHECKING:  # pragma: no cover
    from .nonholonomic import ReducedSystem
    from .simulation.constrained import ConstrainedSimulator

__all__ = ["ConstrainedSystem"]


class ConstrainedSystem:
    r"""A Lagrangian system subject to holonomic constraints Φ(q) = 0 and velocity
    constraints A(q, t) q̇ + b(q, t) = 0.

    Parameters
    ----------
    system : LagrangianSystem
        The unconstrained system (its coordinates may be redundant, e.g. Cartesian).
    constraints : sequence of sympy.Expr
        The holonomic constraint functions Φ_i(q), each meant to vanish (may be empty
        when velocity constraints are given).
    velocity_constraints : sequence of sympy.Expr, optional
        Expressions linear in the rates, a_i(q, t)·q̇ + b_i(q, t), each meant to vanish
        (rolling without slipping, knife edges). Together with ``constraints``, fewer
        rows than coordinates. One that is an exact differential is reported with a
        :class:`~lagdyn.LagdynWarning` naming its Φ (see :meth:`integrability_report`).
    redundant : {"raise", "lstsq"}
        What to do with linearly dependent constraints (rank-deficient J_c at generic
        states): raise :class:`ConstraintError` naming the rows (default), or keep them
        and solve the KKT system in the least-squares sense (minimum-norm λ).

    Raises
    ------
    ConstraintError
        No constraints, m ≥ n (more constraints than speeds), a holonomic constraint
        depending on rates or time, a velocity constraint not linear in the rates or
        depending on no rate (or on nothing), or (``redundant="raise"``) dependent rows.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> a, b = dp.q
    >>> cs = ld.ConstrainedSystem(dp, [a - b])     # weld the rods together
    >>> cs.m, cs.kkt_matrix.shape
    (1, (3, 3))

    A knife edge: the point (x, y) may not move across the heading θ.

    >>> import sympy as sp
    >>> x, y, th = ld.coordinates("x y theta")
    >>> xd, yd, thd = ld.velocities([x, y, th])
    >>> free = ld.LagrangianSystem.from_energies((xd**2 + yd**2 + thd**2) / 2, 0, [x, y, th])
    >>> knife = ld.ConstrainedSystem(
    ...     free, velocity_constraints=[-sp.sin(th) * xd + sp.cos(th) * yd])
    >>> knife.A, knife.dof
    (Matrix([[-sin(theta(t)), cos(theta(t)), 0]]), 2)
    """

    def __init__(
        self,
        system: LagrangianSystem,
        constraints: Sequence[sp.Expr] = (),
        *,
        velocity_constraints: Sequence[sp.Expr] | None = None,
        redundant: str = "raise",
    ) -> None:
        if not isinstance(system, LagrangianSystem):
            raise LagdynError(f"system must be a LagrangianSystem, got {type(system).__name__}")
        if redundant not in ("raise", "lstsq"):
            raise LagdynError(f"redundant must be 'raise' or 'lstsq', got {redundant!r}")
        items = [_as_expr(c, f"constraints[{i}]") for i, c in enumerate(_as_list(constraints))]
        velocity = [
            _as_expr(c, f"velocity_constraints[{i}]")
            for i, c in enumerate(_as_list(velocity_constraints or ()))
        ]
        if not items and not velocity:
            raise ConstraintError(
                "no constraints given: pass holonomic constraints Φ(q) = 0 and/or "
                "velocity_constraints A(q, t) q̇ + b(q, t) = 0"
            )
        total = len(items) + len(velocity)
        if total >= system.n:
            kinds = f" ({len(items)} holonomic, {len(velocity)} velocity)" if velocity else ""
            listed = (
                "; the constraints: " + "; ".join(f"{c} = 0" for c in (*items, *velocity))
                if velocity
                else ""
            )
            raise ConstraintError(
                f"{total} constraints{kinds} on {system.n} coordinates: more constraints than "
                "speeds leaves no motion; a constrained system needs fewer constraints than "
                f"coordinates (at least one degree of freedom){listed}"
            )
        rates = set(system.qd)
        for i, c in enumerate(items):
            _check_dependencies(c, system.q, f"constraints[{i}]", allow_t=False)
            if c.atoms(sp.Derivative) & rates:
                raise ConstraintError(
                    f"constraints[{i}] = {c} depends on rates: holonomic constraints are "
                    "Φ(q) = 0; pass a constraint linear in the rates as "
                    "velocity_constraints=[...]"
                )
            if not any(c.has(qi) for qi in system.q):
                raise ConstraintError(f"constraints[{i}] = {c} does not depend on any coordinate")
        A_rows, b_rows = [], []
        for i, c in enumerate(velocity):
            a_row, b_i = _split_velocity(c, system, f"velocity_constraints[{i}]")
            A_rows.append(a_row)
            b_rows.append(b_i)
        self.system = system
        self.constraints = sp.ImmutableMatrix(items) if items else sp.ImmutableMatrix(0, 1, [])
        self.velocity_constraints = (
            sp.ImmutableMatrix(velocity) if velocity else sp.ImmutableMatrix(0, 1, [])
        )
        self.A = sp.ImmutableMatrix(A_rows) if A_rows else sp.ImmutableMatrix(0, system.n, [])
        self.b = sp.ImmutableMatrix(b_rows) if b_rows else sp.ImmutableMatrix(0, 1, [])
        self.redundant = redundant
        self._numeric: ConstrainedSimulator | None = None
        dependent = self.dependent_rows()
        if dependent and redundant == "raise":
            rows = ", ".join(f"{i} ({self.rows[i]})" for i in dependent)
            raise ConstraintError(
                f"redundant or singular constraints: row(s) {rows} of [J_c; A] depend on the "
                "others (rank-deficient constraint matrix); remove them or pass "
                "redundant='lstsq'"
            )
        for i in range(self.m_velocity):
            if _is_exact_row(self, i):
                from .nonholonomic import integrability

                phi = integrability(self, i)["phi"]
                found = (
                    f"it is the rate of Φ = {phi}; pass Φ = 0 in constraints=[...] instead"
                    if phi is not None
                    else "sympy could not integrate it to its Φ"
                )
                warnings.warn(
                    f"velocity_constraints[{i}] = {self.velocity_constraints[i]} is an exact "
                    f"differential, a holonomic constraint in disguise: {found}",
                    LagdynWarning,
                    stacklevel=2,
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
        """The number of constraint rows: holonomic, then velocity constraints.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.m
        1
        """
        return self.constraints.rows + self.velocity_constraints.rows

    @property
    def m_holonomic(self) -> int:
        """The number of holonomic constraints Φ(q) = 0.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").m_holonomic
        0
        """
        return self.constraints.rows

    @property
    def m_velocity(self) -> int:
        """The number of velocity (nonholonomic) constraints A(q, t) q̇ + b(q, t) = 0.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").m_velocity
        2
        """
        return self.velocity_constraints.rows

    @property
    def rows(self) -> tuple[sp.Expr, ...]:
        """Every constraint row as given: the Φ_i, then the velocity constraints.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).rows
        (a(t) - b(t),)
        """
        return (*self.constraints, *self.velocity_constraints)

    @property
    def dof(self) -> int:
        """Degrees of freedom n − rank [J_c; A] (at generic states): the number of
        independent speeds.

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
        if self.m_holonomic == 0:
            return sp.ImmutableMatrix(0, self.n, [])
        q = self.system.q
        forward, backward = substitution(q, self.system.qd, *state_symbols(self.n))
        plain = [plain_symengine(c, forward) for c in self.constraints]
        if any(p is None for p in plain):
            return sp.ImmutableMatrix(self.constraints.jacobian(sp.Matrix(q)))
        table = SymbolTable.from_symbols(
            set().union(*(c.free_symbols for c in self.constraints)),
            extra={k.name: v for k, v in backward.items()},
        )
        qs = [se.Symbol(forward[qi].name) for qi in q]
        rows = [[_small_expand(table.to_sympy(se.diff(p, x))) for x in qs] for p in plain]
        return sp.ImmutableMatrix(rows)

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
        for i in range(self.m_holonomic):
            row = self.J[i, :]
            hess = row.jacobian(sp.Matrix(self.system.q))
            out.append(sp.expand((qd.T * hess * qd)[0, 0]))
        return sp.ImmutableMatrix(out) if out else sp.ImmutableMatrix(0, 1, [])

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
    def Adot_qd(self) -> sp.ImmutableMatrix:
        """The velocity product of the velocity constraints, Ȧ q̇ + ḃ: the time derivative
        of A q̇ + b with q̈ = 0 (∂/∂t included), shape (m_velocity, 1).

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> x, y, th = ld.coordinates("x y theta")
        >>> xd, yd, thd = ld.velocities([x, y, th])
        >>> sleigh = ld.zoo.get("chaplygin_sleigh")
        >>> sp.expand(sleigh.Adot_qd[0] + thd * (sp.cos(th) * xd + sp.sin(th) * yd))
        0
        """
        qdd = {sp.diff(qd, t): 0 for qd in self.system.qd}
        out = []
        for i in range(self.m_velocity):
            expr = (self.A[i, :] * sp.Matrix(self.system.qd))[0, 0] + self.b[i]
            out.append(_small_expand(sp.diff(expr, t).xreplace(qdd)))
        return sp.ImmutableMatrix(out) if out else sp.ImmutableMatrix(0, 1, [])

    @cached_property
    def time_dependent(self) -> bool:
        """Whether a velocity constraint holds t explicitly (A(q, t) or b(q, t)).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").time_dependent
        False
        """
        plain = {qi: sp.Dummy() for qi in self.system.q}
        return any(e.xreplace(plain).has(t) for e in (*self.A, *self.b))

    @cached_property
    def velocity_residual(self) -> sp.ImmutableMatrix:
        """A q̇ + b, shape (m_velocity, 1): zero on every admissible motion.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").velocity_residual
        Matrix([[-sin(theta(t))*Derivative(x(t), t) + cos(theta(t))*Derivative(y(t), t)]])
        """
        return sp.ImmutableMatrix(self.A * sp.Matrix(self.system.qd) + self.b)

    @cached_property
    def constraint_matrix(self) -> sp.ImmutableMatrix:
        """All constraint rows at the velocity level, W = [J_c; A], shape (m, n): every
        admissible q̇ has W q̇ + [0; b] = 0.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").constraint_matrix
        Matrix([[-sin(theta(t)), cos(theta(t)), 0]])
        """
        return sp.ImmutableMatrix(sp.Matrix(self.J).col_join(sp.Matrix(self.A)))

    @cached_property
    def constraint_bias(self) -> sp.ImmutableMatrix:
        """[0; b], shape (m, 1): the rate-free part of every row at the velocity level.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").constraint_bias
        Matrix([[0]])
        """
        return sp.ImmutableMatrix(sp.zeros(self.m_holonomic, 1).col_join(sp.Matrix(self.b)))

    @cached_property
    def velocity_product(self) -> sp.ImmutableMatrix:
        """[J̇_c q̇; Ȧ q̇ + ḃ], shape (m, 1): what the accelerations must cancel.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).velocity_product
        Matrix([[0]])
        """
        return sp.ImmutableMatrix(sp.Matrix(self.Jdot_qd).col_join(sp.Matrix(self.Adot_qd)))

    @cached_property
    def lam(self) -> tuple[sp.Symbol, ...]:
        """Symbols for the multipliers λ_1 … λ_m (holonomic rows first).

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
        """[[M, −Wᵀ], [W, 0]] with W = [J_c; A], shape (n + m, n + m).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.kkt_matrix[:, 2].T
        Matrix([[-1, 1, 0]])
        """
        M, J = self.system.M, self.constraint_matrix
        top = M.row_join(-J.T)
        bottom = J.row_join(sp.zeros(self.m, self.m))
        return sp.ImmutableMatrix(top.col_join(bottom))

    def kkt_rhs(
        self, tau: Sequence[sp.Expr] | None = None, baumgarte: tuple[Any, Any] | None = None
    ) -> sp.ImmutableMatrix:
        """[τ − h; −J̇_c q̇ − 2αΦ̇ − β²Φ; −(Ȧq̇ + ḃ) − α(Aq̇ + b)], shape (n + m, 1).

        The velocity rows are A q̇ + b = 0 differentiated once; ``baumgarte=(α, β)``
        adds the holonomic terms and −α(A q̇ + b) to them.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.kkt_rhs([0, 0]).shape
        (3, 1)
        """
        tau_m = self._tau(tau)
        acc = -sp.Matrix(self.Jdot_qd)
        vel = -sp.Matrix(self.Adot_qd)
        if baumgarte is not None:
            alpha, beta = baumgarte
            acc = acc - 2 * alpha * self.phi_dot - beta**2 * self.constraints
            vel = vel - alpha * self.velocity_residual
        acc = acc.col_join(vel)
        return sp.ImmutableMatrix((tau_m - self.bias).col_join(acc))

    def equations(self, tau: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
        """M q̈ + h − τ − Wᵀλ (n rows) followed by Φ(q) and A q̇ + b (m rows), with
        λ = :attr:`lam` and W = [J_c; A].

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).equations().shape
        (3, 1)
        """
        s = self.system
        dyn = s.M * sp.Matrix(s.qdd) + self.bias - self._tau(tau) - self.constraint_forces
        rows = sp.Matrix(self.constraints).col_join(sp.Matrix(self.velocity_residual))
        return sp.ImmutableMatrix(sp.Matrix(dyn).col_join(rows))

    @cached_property
    def constraint_forces(self) -> sp.ImmutableMatrix:
        """The generalized constraint forces Wᵀλ = [J_c; A]ᵀλ, shape (n, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> cs = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
        >>> cs.constraint_forces.T
        Matrix([[lambda_1, -lambda_1]])
        """
        return sp.ImmutableMatrix(self.constraint_matrix.T * sp.Matrix(self.lam))

    def _tau(self, tau: Sequence[sp.Expr] | None) -> sp.Matrix:
        if tau is None:
            return sp.Matrix(self.system.tau)
        items = [_as_expr(x, "tau entry") for x in tau]
        if len(items) != self.n:
            raise LagdynError(f"tau has {len(items)} entries, expected {self.n}")
        return sp.Matrix(items)

    def dependent_rows(self) -> list[int]:
        """Rows of W = [J_c; A] that are linear combinations of earlier rows at random states.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> a, b = dp.q
        >>> ld.ConstrainedSystem(dp, [a - b], redundant="lstsq").dependent_rows()
        []
        """
        rng = random.Random(99)
        W = self.constraint_matrix
        syms = set().union(*(e.free_symbols for e in W)) - {t}
        dependent: set[int] | None = None
        for _ in range(2):
            point: dict[Any, Any] = {s: sp.Float(rng.uniform(0.6, 1.7)) for s in syms}
            point[t] = sp.Float(rng.uniform(0.1, 1.0))
            coords = {qi: sp.Float(rng.uniform(-2.0, 2.0)) for qi in self.system.q}
            try:
                rows = _evaluate(W, self.system.q, {**coords, **point})
            except (TypeError, ValueError, RuntimeError):
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

    # ------------------------------------------------------------------ nonholonomic
    def is_integrable(self, i: int) -> bool | None:
        """Whether velocity constraint ``i`` is integrable (holonomic in disguise).

        True when the form a·dq (+ b dt) is an exact differential, or passes the
        Frobenius test ω ∧ dω = 0 (an integrating factor exists); False when the
        Frobenius test is refuted; None when undecided. Decided exactly
        (:func:`lagdyn.structure.is_zero`). See :meth:`integrability_report`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").is_integrable(0)
        False
        """
        from .nonholonomic import integrability

        if not 0 <= i < self.m_velocity:
            raise LagdynError(f"no velocity constraint {i}: there are {self.m_velocity}")
        return integrability(self, i)["integrable"]

    def integrability_report(self) -> list[dict[str, Any]]:
        """For each velocity constraint: exact?, integrable (Frobenius)?, Φ when found.

        Each entry has ``"exact"`` (True/False/None), ``"integrable"`` (True/False/None),
        ``"phi"`` (a holonomic Φ(q) whose rate is the constraint, or with an integrating
        factor, when one was found; else None) and ``"message"``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> [r["integrable"] for r in ld.zoo.get("rolling_disc").integrability_report()]
        [False, False]
        """
        from .nonholonomic import integrability

        return [integrability(self, i) for i in range(self.m_velocity)]

    def is_jointly_integrable(self) -> bool | None:
        """Whether all constraint rows together are integrable (Frobenius for the
        distribution W q̇ + β = 0; see :func:`lagdyn.nonholonomic.joint_integrability`):
        rows that are not integrable one by one may still be together.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").is_jointly_integrable()
        False
        """
        from .nonholonomic import joint_integrability

        return joint_integrability(self)

    def reduced(self, independent: Sequence[Any] | None = None) -> ReducedSystem:
        """The reduced equations on independent speeds (Maggi's form).

        See :class:`lagdyn.nonholonomic.ReducedSystem`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> red = ld.zoo.get("chaplygin_sleigh").reduced()
        >>> red.independent
        (Derivative(x(t), t), Derivative(theta(t), t))
        """
        from .nonholonomic import ReducedSystem

        return ReducedSystem(self, independent)

    def linearize(self, *, method: str = "exact", **options: Any) -> tuple[Any, Any]:
        """(A, B) of the reduced first-order equations about a motion.

        ``method="exact"`` (default): :meth:`lagdyn.nonholonomic.ReducedSystem.linearize`,
        sympy matrices, ignorable coordinates checked exactly; ``method="numeric"``:
        :func:`lagdyn.nonholonomic.linearize_at`, floats from the exact first variation
        at the point, for large models. ``independent=`` picks the speeds.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sleigh = ld.zoo.get("chaplygin_sleigh")
        >>> A, B = sleigh.linearize(q0=[0, 0, 0], qd0=[1, 0, 0], ignorable=sleigh.system.q[:2])
        >>> A.shape, B.shape
        ((3, 3), (3, 3))
        """
        if method == "numeric":
            from .nonholonomic import linearize_at

            return linearize_at(self, **options)
        if method != "exact":
            raise LagdynError(f"method must be 'exact' or 'numeric', got {method!r}")
        independent = options.pop("independent", None)
        return self.reduced(independent).linearize(**options)

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
        if self.m_velocity:
            return (
                f"ConstrainedSystem(n={self.n}, m={self.m} ({self.m_holonomic} holonomic, "
                f"{self.m_velocity} velocity), dof={self.dof})"
            )
        return f"ConstrainedSystem(n={self.n}, m={self.m}, dof={self.dof})"


def _as_list(items: Any) -> list[Any]:
    """A single expression as a one-item list; matrices and sequences as lists."""
    if isinstance(items, (str, bytes, sp.Basic)) and not isinstance(items, sp.MatrixBase):
        return [items]
    return list(items)


def _split_velocity(
    expr: sp.Expr, system: LagrangianSystem, what: str
) -> tuple[list[sp.Expr], sp.Expr]:
    """The row a(q, t) and b(q, t) of a velocity constraint a·q̇ + b, or a named error.

    Differentiated by symengine on plain symbols (fast on large rows, e.g. a tilted
    wheel's contact), converted back with the caller's symbols; sympy where symengine
    cannot hold the expression."""
    _check_dependencies(expr, system.q, what, allow_t=True)
    rates = list(system.qd)
    forward, backward = substitution(system.q, rates, *state_symbols(system.n))
    plain = plain_symengine(expr, forward)
    if plain is None:
        row = [sp.diff(expr, qd) for qd in rates]
        rest = expr.xreplace(dict.fromkeys(rates, 0))
        bad = [
            qd for qd, a in zip(rates, row, strict=True) if set(a.atoms(sp.Derivative)) & set(rates)
        ]
    else:
        table = SymbolTable.from_symbols(
            expr.free_symbols, extra={k.name: v for k, v in backward.items()}
        )
        vs = [se.Symbol(forward[qd].name) for qd in rates]
        row_se = [se.diff(plain, v) for v in vs]
        bad = [qd for qd, a in zip(rates, row_se, strict=True) if set(a.free_symbols) & set(vs)]
        row = [table.to_sympy(a) for a in row_se]
        rest = table.to_sympy(plain.subs(dict.fromkeys(vs, 0)))
    if bad:
        raise ConstraintError(
            f"{what} = {expr} is not linear in the rates (its derivative in "
            f"{', '.join(map(str, bad))} still depends on rates): velocity constraints must "
            "read A(q, t) q̇ + b(q, t) = 0"
        )
    if all(a == 0 for a in row):
        if not any(expr.has(qi) for qi in system.q) and not expr.has(t):
            raise ConstraintError(
                f"{what} = {expr} depends on nothing (no rate, no coordinate): remove it"
            )
        raise ConstraintError(
            f"{what} = {expr} depends on no rate: it is not a velocity constraint; pass a "
            "constraint Φ(q) = 0 as constraints=[...]"
        )
    return [_small_expand(a) for a in row], _small_expand(rest)


def _small_expand(expr: sp.Expr, limit: int = 400) -> sp.Expr:
    """``expr`` expanded when it is small (display, exact comparisons), else as it is: a
    large row (a tilted wheel's contact, with square roots) would blow up."""
    return sp.expand(expr) if sp.count_ops(expr) <= limit else expr


def _is_exact_row(cs: ConstrainedSystem, i: int) -> bool:
    """Cheap exactness test at construction (structural zero of the curl)."""
    from .nonholonomic import exact_form

    return exact_form(cs, i) is True


def _evaluate(
    W: sp.MatrixBase, q: Sequence[sp.Expr], values: Mapping[Any, Any]
) -> list[list[float]]:
    """The entries of W (in q(t), t and parameters) at numeric ``values``, as floats:
    symengine on plain symbols (fast on large entries), sympy where it cannot."""
    forward, _ = substitution(q, [sp.diff(qi, t) for qi in q], *state_symbols(len(q)))
    point = {
        se.Symbol(forward[k].name) if k in forward else se.Symbol(k.name): float(v)
        for k, v in values.items()
    }
    out = []
    for i in range(W.rows):
        row = []
        for j in range(W.cols):
            e = plain_symengine(W[i, j], forward)
            if e is None:
                row.append(float(W[i, j].xreplace(dict(values))))
            else:
                value = complex(e.subs(point)) if e.free_symbols else complex(e)
                if abs(value.imag) > 1e-12 * (1.0 + abs(value.real)):
                    raise ValueError("a complex entry")
                row.append(value.real)
        out.append(row)
    return out

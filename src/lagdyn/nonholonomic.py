r"""Nonholonomic (velocity) constraints: reduced equations, integrability, linearization.

A :class:`~lagdyn.ConstrainedSystem` built with ``velocity_constraints=`` holds rows
:math:`A(q, t)\dot q + b(q, t) = 0` next to its holonomic Φ(q) = 0; at the velocity level
every row reads :math:`W\dot q + \beta = 0` with :math:`W = [J_c; A]` and
:math:`\beta = [0; b]`. Choosing k = n − m independent rates :math:`u = \dot q_I` (the
remaining :math:`\dot q_D` dependent, :math:`W_D` invertible) gives

.. math:: \dot q = S(q, t)\,u + s(q, t), \qquad
          S_I = I, \; S_D = -W_D^{-1} W_I, \qquad s_I = 0, \; s_D = -W_D^{-1}\beta .

Since :math:`W S = 0`, projecting :math:`M\ddot q + h = \tau + W^T\lambda` on the columns
of S removes the multipliers (Maggi's equations, the Lagrange–d'Alembert principle on
the admissible velocities):

.. math:: M_r\,\dot u = F, \qquad M_r = S^T M S, \qquad
          F = S^T\bigl(\tau - h - M(\dot S u + \dot s)\bigr)\big|_{\dot q = S u + s}.

:class:`ReducedSystem` holds these exactly (sympy), proves :math:`M_r` symmetric
positive definite (from a proof that M is, and S having the identity block I),
and linearizes the first-order system :math:`(\dot q, \dot u) = (S u + s,\ M_r^{-1}F)`
about a motion — a steady motion, not only an equilibrium — with ignorable
coordinates dropped after an exact check (:meth:`ReducedSystem.linearize`).

:func:`integrability` decides whether a velocity constraint is holonomic in disguise:
an exact differential (and then Φ), or integrable after an integrating factor by the
Frobenius test :math:`\omega\wedge d\omega = 0`.

Examples
--------
>>> import lagdyn as ld
>>> sleigh = ld.zoo.get("chaplygin_sleigh")
>>> red = sleigh.reduced()
>>> red.dependent_rates
Matrix([[sin(theta(t))*Derivative(x(t), t)/cos(theta(t))]])
>>> red.is_positive_definite()
True
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import combinations
from typing import Any

import symengine as se
import sympy as sp

from ._common import all_proved, numeric_rank, reduce_pythagoras
from .errors import ConstraintError, LagdynError, LagdynWarning
from .symbols import t

#: A :class:`lagdyn.ConstrainedSystem`, reached duck-typed (constraints.py imports this
#: module, so it is not imported back)
ConstrainedSystem = Any

__all__ = [
    "ReducedSystem",
    "exact_form",
    "integrability",
    "joint_integrability",
    "linearize_at",
]


def _tidy(expr: sp.Expr) -> sp.Expr:
    """An exact, cheap normal form: expanded, sin² → 1 − cos², common factors out;
    rational functions (a non-constant pivot block) are cancelled first."""
    expr = sp.sympify(expr)
    if expr.is_number:
        return expr
    expr = sp.expand_trig(expr)
    if not any(p.exp.is_negative for p in expr.atoms(sp.Pow)):  # a polynomial: no together
        return sp.factor_terms(reduce_pythagoras(expr))
    num, den = sp.fraction(sp.together(expr))
    num = sp.factor_terms(reduce_pythagoras(num))
    if den.free_symbols or den.has(sp.Function):
        return num / sp.factor_terms(reduce_pythagoras(den))
    return num / den


def _plain_map(q: Sequence[sp.Expr]) -> tuple[dict[Any, sp.Symbol], dict[Any, sp.Symbol]]:
    """q(t) → plain real symbols and q̇(t) → plain real symbols (for differentiation)."""
    qs = {qi: sp.Symbol(f"_ldq{i}", real=True) for i, qi in enumerate(q)}
    vs = {sp.diff(qi, t): sp.Symbol(f"_ldv{i}", real=True) for i, qi in enumerate(q)}
    return qs, vs


def _plain(expr: Any, qs: Mapping[Any, Any], vs: Mapping[Any, Any]) -> Any:
    return sp.sympify(expr).xreplace(dict(vs)).xreplace(dict(qs))


def _back(expr: Any, qs: Mapping[Any, Any], vs: Mapping[Any, Any]) -> Any:
    inv = {v: k for k, v in vs.items()}
    inv.update({v: k for k, v in qs.items()})
    return sp.sympify(expr).xreplace(inv)


# ---------------------------------------------------------------------------- integrability
def _form(cs: ConstrainedSystem, i: int) -> tuple[list[sp.Expr], list[sp.Symbol], dict[Any, Any]]:
    """The coefficients of the 1-form a·dq (+ b dt) of velocity row i, on plain symbols."""
    qs, _ = _plain_map(cs.system.q)
    coeffs = [cs.A[i, j].xreplace(qs) for j in range(cs.n)]
    variables: list[sp.Symbol] = [qs[qi] for qi in cs.system.q]
    b = cs.b[i].xreplace(qs)
    if b != 0 or any(c.has(t) for c in coeffs):
        coeffs.append(b)
        variables.append(t)
    return coeffs, variables, qs


def _decide_zero(expr: sp.Expr, qs: Mapping[Any, Any]) -> bool | None:
    from .structure import is_zero

    expr = sp.expand(expr)
    if expr == 0:
        return True
    if not expr.atoms(sp.Function):  # a rational function: cancel decides exactly
        return sp.cancel(sp.together(expr)) == 0
    if sp.denom(sp.together(expr)) != 1 and sp.cancel(sp.together(expr)) == 0:
        return True
    return is_zero(_back(expr, qs, {}), list(qs))


def _numeric_points(exprs: Sequence[Any], seed: int = 7, count: int = 2) -> list[dict]:
    """``count`` random points (symengine symbol → float) for every free symbol of
    ``exprs``: coordinates (``_ldq``) in (−2, 2), t in (0.1, 1), parameters in (0.6, 1.7)."""
    rng = random.Random(seed)
    syms: set[Any] = set()
    for e in exprs:
        syms |= e.free_symbols
    points = []
    for _ in range(count):
        point = {}
        for s in sorted(syms, key=str):
            name = str(s)
            if name.startswith("_ldq"):
                point[s] = rng.uniform(-2.0, 2.0)
            elif s == se.Symbol("t"):
                point[s] = rng.uniform(0.1, 1.0)
            else:
                point[s] = (
                    -rng.uniform(0.6, 1.7)
                    if getattr(s, "is_negative", False)
                    else rng.uniform(0.6, 1.7)
                )
        points.append(point)
    return points


def _refuted(exprs: Sequence[Any]) -> bool:
    """Whether an expression (symengine) is clearly nonzero at a random point: a cheap
    refutation before an exact decision (never a proof of zero)."""
    points = _numeric_points(exprs)
    for e in exprs:
        for point in points:
            try:
                value = complex(e.subs(point))
            except (TypeError, ValueError, RuntimeError):
                continue
            if value != value:  # NaN: outside the domain, not a refutation
                continue
            if abs(value) > 1e-7:
                return True
    return False


def exact_form(cs: ConstrainedSystem, i: int) -> bool | None:
    """Whether velocity row ``i`` is an exact differential: ∂a_j/∂q_k = ∂a_k/∂q_j for
    every pair (with b as the coefficient of dt when it is not zero), decided exactly.

    Examples
    --------
    >>> import lagdyn as ld
    >>> x, y = ld.coordinates("x y")
    >>> free = ld.LagrangianSystem.from_energies(
    ...     (x.diff(ld.t)**2 + y.diff(ld.t)**2) / 2, 0, [x, y])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     cs = ld.ConstrainedSystem(free, velocity_constraints=[
    ...         y * x.diff(ld.t) + x * y.diff(ld.t)])
    >>> exact_form(cs, 0)
    True
    """
    coeffs, variables, qs = _form(cs, i)
    # refute numerically first (cheap on large rows: symengine derivatives at floats)
    sc = [se.sympify(c) for c in coeffs]
    sv = [se.sympify(v) for v in variables]
    curls = [
        se.diff(sc[j], sv[k]) - se.diff(sc[k], sv[j])
        for j, k in combinations(range(len(coeffs)), 2)
    ]
    if _refuted(curls):
        return False
    verdicts = [
        _decide_zero(sp.diff(coeffs[j], variables[k]) - sp.diff(coeffs[k], variables[j]), qs)
        for j, k in combinations(range(len(coeffs)), 2)
    ]
    return all_proved(verdicts)


def _frobenius(coeffs: list[sp.Expr], variables: list[sp.Symbol], qs: Any) -> bool | None:
    """ω ∧ dω = 0 for ω = Σ c_j dx_j: every triple's cyclic sum vanishes."""
    if len(coeffs) <= 2:
        return True
    sc = [se.sympify(c) for c in coeffs]
    sv = [se.sympify(v) for v in variables]
    sd = [[se.diff(c, v) for v in sv] for c in sc]
    cyclic = [
        sc[a] * (sd[c][b] - sd[b][c])
        + sc[b] * (sd[a][c] - sd[c][a])
        + sc[c] * (sd[b][a] - sd[a][b])
        for a, b, c in combinations(range(len(coeffs)), 3)
    ]
    if _refuted(cyclic):
        return False
    d = [[sp.diff(c, v) for v in variables] for c in coeffs]
    verdicts = []
    for a, b, c in combinations(range(len(coeffs)), 3):
        expr = (
            coeffs[a] * (d[c][b] - d[b][c])
            + coeffs[b] * (d[a][c] - d[c][a])
            + coeffs[c] * (d[b][a] - d[a][b])
        )
        v = _decide_zero(expr, qs)
        if v is False:
            return False
        verdicts.append(v)
    return all_proved(verdicts)


def _potential(coeffs: list[sp.Expr], variables: list[sp.Symbol]) -> sp.Expr | None:
    """Φ with dΦ = Σ c_j dx_j (the form being exact), or None if sympy cannot integrate."""
    phi: sp.Expr = sp.Integer(0)
    for c, v in zip(coeffs, variables, strict=True):
        rest = sp.simplify(c - sp.diff(phi, v))
        if rest == 0:
            continue
        part = sp.integrate(rest, v)
        if part.has(sp.Integral):
            return None
        phi = phi + part
    return sp.simplify(phi)


def integrability(cs: ConstrainedSystem, i: int) -> dict[str, Any]:
    """The integrability report of velocity row ``i`` (see
    :meth:`ConstrainedSystem.integrability_report <lagdyn.ConstrainedSystem.integrability_report>`).

    Examples
    --------
    >>> import lagdyn as ld
    >>> integrability(ld.zoo.get("chaplygin_sleigh"), 0)["integrable"]
    False
    """
    coeffs, variables, qs = _form(cs, i)
    row = cs.velocity_constraints[i]
    exact = exact_form(cs, i)
    rheonomic = variables[-1] is t
    if exact is True:
        phi = _potential(coeffs, variables)
        phi_q = None if phi is None else _back(phi, qs, {})
        where = "" if phi_q is None else f": it is the rate of Φ = {phi_q}"
        hint = (
            " (Φ depends on t: a rheonomic constraint)"
            if rheonomic and phi_q is not None and phi_q.has(t)
            else "; pass Φ(q) = 0 in constraints=[...] instead"
        )
        return {
            "exact": True,
            "integrable": True,
            "phi": phi_q,
            "message": f"{row} = 0 is an exact differential{where}{hint}",
        }
    integrable = _frobenius(coeffs, variables, qs)
    if integrable is True:
        phi_q = None
        factor = None
        nonzero = [c for c in coeffs if c != 0 and not c.is_number]
        candidates = [*nonzero, *(c**2 for c in nonzero)]
        candidates += [a * b for a, b in combinations(nonzero, 2)]
        for c in candidates:
            scaled = [sp.cancel(x / c) for x in coeffs]
            ok = all_proved(
                _decide_zero(
                    sp.together(
                        sp.diff(scaled[j], variables[k]) - sp.diff(scaled[k], variables[j])
                    ),
                    qs,
                )
                for j, k in combinations(range(len(scaled)), 2)
            )
            if ok is True:
                phi = _potential(scaled, variables)
                if phi is not None:
                    phi_q, factor = _back(phi, qs, {}), _back(1 / c, qs, {})
                    break
        found = (
            f": with the integrating factor {factor} it is the rate of Φ = {phi_q}"
            if phi_q is not None
            else " (ω ∧ dω = 0: an integrating factor exists)"
        )
        return {
            "exact": exact,
            "integrable": True,
            "phi": phi_q,
            "message": f"{row} = 0 is integrable, so holonomic in disguise{found}",
        }
    if integrable is False:
        message = f"{row} = 0 is not integrable (ω ∧ dω ≠ 0): a genuine nonholonomic constraint"
    else:
        message = f"{row} = 0: integrability undecided (the Frobenius identity was not decided)"
    return {"exact": exact, "integrable": integrable, "phi": None, "message": message}


def _wedge(a: dict[tuple[int, ...], Any], b: dict[tuple[int, ...], Any]) -> dict:
    """The wedge product of two forms given as {sorted index tuple: coefficient}."""
    out: dict[tuple[int, ...], Any] = {}
    for ia, ca in a.items():
        for ib, cb in b.items():
            if set(ia) & set(ib):
                continue
            merged = list(ia + ib)
            sign = 1
            for i in range(len(merged)):  # bubble sort: the parity of the permutation
                for j in range(len(merged) - 1 - i):
                    if merged[j] > merged[j + 1]:
                        merged[j], merged[j + 1] = merged[j + 1], merged[j]
                        sign = -sign
            key = tuple(merged)
            out[key] = out.get(key, 0) + sign * ca * cb
    return out


def joint_integrability(cs: ConstrainedSystem) -> bool | None:
    r"""Whether all constraint rows together are integrable (Frobenius for a distribution):
    :math:`d\omega_i\wedge\omega_1\wedge\dots\wedge\omega_m = 0` for every row i, with
    :math:`\omega_i` the row's 1-form :math:`W_i\,dq + \beta_i\,dt`. True: the velocity
    constraints only restrict the motion to a family of submanifolds (holonomic in
    disguise, together); False: they are genuinely nonholonomic. Decided exactly.

    Examples
    --------
    >>> import lagdyn as ld
    >>> joint_integrability(ld.zoo.get("rolling_disc"))
    False
    """
    qs, _ = _plain_map(cs.system.q)
    W = cs.constraint_matrix.xreplace(qs)
    beta = cs.constraint_bias.xreplace(qs)
    variables: list[sp.Symbol] = [qs[qi] for qi in cs.system.q]
    timed = any(e != 0 for e in beta) or any(e.has(t) for e in W)
    if timed:
        variables.append(t)
    forms: list[dict[tuple[int, ...], Any]] = []
    for i in range(W.rows):
        coeffs = [W[i, j] for j in range(W.cols)] + ([beta[i]] if timed else [])
        forms.append({(j,): c for j, c in enumerate(coeffs) if c != 0})
    omega: dict[tuple[int, ...], Any] = {(): sp.Integer(1)}
    for f in forms:
        omega = _wedge(omega, f)
    verdicts: list[bool | None] = []
    for f in forms:
        by_index: dict[int, Any] = {key[0]: c for key, c in f.items()}
        d: dict[tuple[int, ...], Any] = {}
        for k in range(len(variables)):
            for j in range(k + 1, len(variables)):
                c = sp.diff(by_index.get(j, 0), variables[k]) - sp.diff(
                    by_index.get(k, 0), variables[j]
                )
                if c != 0:
                    d[(k, j)] = c
        for c in _wedge(d, omega).values():
            v = _decide_zero(c, qs)
            if v is False:
                return False
            verdicts.append(v)
    return all_proved(verdicts)


# ---------------------------------------------------------------------------- reduction
def _rate_index(item: Any, cs: ConstrainedSystem, what: str) -> int:
    q, qd = list(cs.system.q), list(cs.system.qd)
    if isinstance(item, bool):
        raise LagdynError(f"{what} must be a rate, a coordinate or an index, got {item!r}")
    if isinstance(item, int):
        if not 0 <= item < cs.n:
            raise LagdynError(f"{what} = {item} is not an index of the {cs.n} coordinates")
        return item
    if item in qd:
        return qd.index(item)
    if item in q:
        return q.index(item)
    raise LagdynError(
        f"{what} = {item!r} is not a coordinate or rate of the system "
        f"({', '.join(str(x) for x in qd)})"
    )


def _random_point(exprs: Any, cs: ConstrainedSystem, seed: int) -> dict[Any, Any]:
    rng = random.Random(seed)
    syms: set[Any] = set()
    for e in exprs:
        syms |= sp.sympify(e).free_symbols
    point: dict[Any, Any] = {s: rng.uniform(0.6, 1.7) for s in syms - {t}}
    point[t] = rng.uniform(0.1, 1.0)
    return point


def _numeric_rows(W: sp.MatrixBase, cs: ConstrainedSystem, seed: int) -> list[list[float]]:
    rng = random.Random(seed + 1)
    coords = {qi: sp.Float(rng.uniform(-2.0, 2.0)) for qi in cs.system.q}
    point = {k: sp.Float(v) for k, v in _random_point(list(W), cs, seed).items()}
    return [
        [float(W[i, j].xreplace(coords).xreplace(point)) for j in range(W.cols)]
        for i in range(W.rows)
    ]


class ReducedSystem:
    r"""The equations of a constrained system on independent speeds (Maggi's form).

    Parameters
    ----------
    constrained : ConstrainedSystem
    independent : sequence of rates (or coordinates, or indices), optional
        The k = n − m independent rates u. By default they are chosen automatically:
        the dependent columns of W = [J_c; A] are picked, from the last coordinate
        backwards, as the simplest columns that keep W_D invertible (pivoting at
        random states), so u are the remaining rates.

    Raises
    ------
    ConstraintError
        The wrong number of independent rates, or a choice that leaves W_D singular
        (its determinant is zero at random states): the constraints do not determine
        the dependent rates from those.

    Examples
    --------
    >>> import lagdyn as ld
    >>> disc = ld.zoo.get("rolling_disc")
    >>> red = disc.reduced()
    >>> [str(u) for u in red.independent]
    ['Derivative(psi(t), t)', 'Derivative(theta(t), t)', 'Derivative(phi(t), t)']
    >>> red.M_reduced.shape
    (3, 3)
    """

    def __init__(self, constrained: ConstrainedSystem, independent: Sequence[Any] | None = None):
        cs = constrained
        self.constrained = cs
        rows = [i for i in range(cs.m) if i not in set(cs.dependent_rows())]
        W = sp.Matrix(cs.constraint_matrix.extract(rows, list(range(cs.n))))
        beta = sp.Matrix(cs.constraint_bias.extract(rows, [0]))
        m = W.rows
        k = cs.n - m
        if independent is None:
            dep = self._pivot(W)
        else:
            if isinstance(independent, (sp.Basic, int)):
                independent = [independent]
            ind = [_rate_index(x, cs, f"independent[{j}]") for j, x in enumerate(independent)]
            if len(set(ind)) != len(ind):
                raise LagdynError(f"independent holds a rate twice: {list(independent)}")
            if len(ind) != k:
                raise ConstraintError(
                    f"{len(ind)} independent rates given, but the {cs.n} coordinates with "
                    f"{m} independent constraint rows have {k} independent speeds"
                )
            dep = [j for j in range(cs.n) if j not in ind]
            Wd = W.extract(list(range(m)), dep)
            if numeric_rank(_numeric_rows(Wd, cs, 5)) < m:
                names = ", ".join(str(cs.system.qd[j]) for j in dep)
                raise ConstraintError(
                    f"the constraints do not determine the dependent rates {names} from the "
                    "chosen independent ones (W_D is singular at random states): choose "
                    "other independent rates"
                )
        ind = [j for j in range(cs.n) if j not in dep]
        self._ind, self._dep = ind, dep
        Wd = W.extract(list(range(m)), dep)
        Wi = W.extract(list(range(m)), ind)
        qd = cs.system.qd
        #: det W_D: the reduction holds where it is not zero.
        self.pivot_determinant: sp.Expr = _tidy(Wd.det(method="berkowitz"))
        Wd_inv = Wd.inv() if all(e.is_number for e in Wd) else Wd.inv(method="ADJ").applyfunc(_tidy)
        S = sp.zeros(cs.n, k)
        s = sp.zeros(cs.n, 1)
        for col, j in enumerate(ind):
            S[j, col] = 1
        Sd = (-Wd_inv * Wi).applyfunc(_tidy)
        sd = (-Wd_inv * beta).applyfunc(_tidy)
        for r, j in enumerate(dep):
            for col in range(k):
                S[j, col] = Sd[r, col]
            s[j] = sd[r]
        self.S = sp.ImmutableMatrix(S)
        self.s = sp.ImmutableMatrix(s)
        u = sp.Matrix([qd[j] for j in ind])
        #: q̇_D = −W_D⁻¹(W_I q̇_I + β) as expressions in q, the independent rates and t.
        self.dependent_rates = sp.ImmutableMatrix(
            [_tidy((Sd[r, :] * u)[0, 0] + sd[r]) for r in range(m)]
        )
        self.rate_map: dict[sp.Expr, sp.Expr] = {
            qd[j]: self.dependent_rates[r] for r, j in enumerate(dep)
        }

    def _pivot(self, W: sp.Matrix) -> list[int]:
        cs = self.constrained
        rows = _numeric_rows(W, cs, 11)
        m = W.rows
        order = sorted(
            range(cs.n - 1, -1, -1),
            key=lambda j: sp.count_ops(W[:, j]) if any(W[:, j]) else 10**9,
        )
        chosen: list[int] = []
        for j in order:
            cols = [*chosen, j]
            sub = [[r[c] for c in cols] for r in rows]
            transposed = [list(x) for x in zip(*sub, strict=True)]
            if numeric_rank(transposed) == len(cols):
                chosen.append(j)
            if len(chosen) == m:
                break
        if len(chosen) < m:
            raise ConstraintError(
                "no invertible block of the constraint matrix: the constraints are singular "
                "at random states"
            )
        return sorted(chosen)

    # ------------------------------------------------------------------ symbolic
    @property
    def independent(self) -> tuple[sp.Expr, ...]:
        """The independent rates u (the q̇ of :attr:`independent_coordinates`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().independent
        (Derivative(x(t), t), Derivative(theta(t), t))
        """
        return tuple(self.constrained.system.qd[j] for j in self._ind)

    @property
    def dependent(self) -> tuple[sp.Expr, ...]:
        """The dependent rates q̇_D.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().dependent
        (Derivative(y(t), t),)
        """
        return tuple(self.constrained.system.qd[j] for j in self._dep)

    @property
    def k(self) -> int:
        """The number of independent speeds.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").reduced().k
        3
        """
        return len(self._ind)

    def _sub(self, expr: Any) -> Any:
        return sp.sympify(expr).xreplace(self.rate_map)

    @cached_property
    def velocity_product(self) -> sp.ImmutableMatrix:
        """Ṡ u + ṡ on the admissible motion, shape (n, 1): q̈ = S u̇ + this.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().velocity_product.shape
        (3, 1)
        """
        cs = self.constrained
        qdd = {sp.diff(qd, t): 0 for qd in cs.system.qd}
        out = sp.zeros(cs.n, 1)
        for r, j in enumerate(self._dep):
            d = sp.diff(self.dependent_rates[r], t).xreplace(qdd)
            out[j] = _tidy(self._sub(d))
        return sp.ImmutableMatrix(out)

    @cached_property
    def M_reduced(self) -> sp.ImmutableMatrix:
        """M_r = Sᵀ M S, shape (k, k).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().M_reduced
        Matrix([
        [m/cos(theta(t))**2,          0],
        [                 0, I + a**2*m]])
        """
        M = sp.Matrix(self.constrained.system.M)
        S = sp.Matrix(self.S)
        return sp.ImmutableMatrix((S.T * M * S).applyfunc(_tidy))

    def forcing(self, tau: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
        """F = Sᵀ(τ − h − M(Ṡu + ṡ)) on the admissible motion, shape (k, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().forcing([0, 0, 0]).shape
        (2, 1)
        """
        cs = self.constrained
        rhs = cs._tau(tau) - sp.Matrix(cs.bias) - sp.Matrix(cs.system.M) * self.velocity_product
        F = sp.Matrix(self.S).T * self._sub(rhs)
        return sp.ImmutableMatrix(F.applyfunc(_tidy))

    def equations(self, tau: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
        """M_r u̇ − F, shape (k, 1), with u̇ the accelerations of the independent
        coordinates: zero on every motion.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().equations().shape
        (2, 1)
        """
        cs = self.constrained
        udot = sp.Matrix([sp.diff(cs.system.qd[j], t) for j in self._ind])
        return sp.ImmutableMatrix(sp.Matrix(self.M_reduced) * udot - self.forcing(tau))

    def is_symmetric(self) -> bool | None:
        """Whether M_r is symmetric, decided exactly.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("rolling_disc").reduced().is_symmetric()
        True
        """
        from .structure import is_symmetric

        return is_symmetric(self.M_reduced)

    def is_positive_definite(self) -> bool | None:
        """Whether M_r is symmetric positive definite wherever the reduction is defined
        (:attr:`pivot_determinant` ≠ 0), proved exactly.

        See :meth:`positive_definite_report` for the proof and, when M_r is singular on
        a set (a coordinate singularity such as a disc lying flat), that set.

        Returns
        -------
        True (proved), False (refuted), or None (not proved; see the report).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("chaplygin_sleigh").reduced().is_positive_definite()
        True
        """
        return self.positive_definite_report()["verdict"]

    def positive_definite_report(self) -> dict[str, Any]:
        r"""The exact proof that M_r = Sᵀ M S is symmetric positive definite.

        Two routes, each exact. (1) M_r is symmetric (decided exactly) and M ≻ 0 is
        proved (:func:`lagdyn.structure.positive_definite`); S holds the identity on the
        independent rows, so S u = 0 only for u = 0 and uᵀM_r u = (Su)ᵀM(Su) > 0.
        (2) Otherwise Sylvester's criterion on M_r: each leading principal minor,
        reduced to a polynomial in cos and sin (sin² = 1 − cos²) over a denominator, is
        factored; factors of odd power must be proved positive, factors of even power
        are ≥ 0 and vanish only on their zero set, which is reported (``"singular"``):
        M_r ≻ 0 away from it. Factors of the denominator that divide the pivot
        determinant lie outside the domain of the reduction.

        Returns
        -------
        dict
            ``verdict`` (True: positive definite wherever the reduction is defined;
            False: refuted; None: not proved or singular on a set), ``route``
            (``"M positive definite"`` or ``"Sylvester"``), ``singular`` (the
            expressions whose zeros make M_r singular; empty when proved), ``message``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> rep = ld.zoo.get("rolling_disc").reduced().positive_definite_report()
        >>> rep["verdict"], rep["singular"]
        (None, [cos(theta(t))])
        """
        from .structure import is_positive_definite, positive_definite

        symmetric = self.is_symmetric()
        if symmetric is not True:
            return {
                "verdict": symmetric,
                "route": "symmetry",
                "singular": [],
                "message": "M_r is not symmetric" if symmetric is False else "symmetry undecided",
            }
        full_rank = all(
            self.S[j, col] == (1 if c == col else 0)
            for col, j in enumerate(self._ind)
            for c in range(self.k)
        )
        if all_proved([positive_definite(self.constrained.system), full_rank]) is True:
            return {
                "verdict": True,
                "route": "M positive definite",
                "singular": [],
                "message": "M ≻ 0 (proved) and S = [I; S_D] has full column rank: M_r ≻ 0",
            }
        Mr = sp.Matrix(self.M_reduced)
        excluded = {f for f, _ in sp.factor_list(sp.expand_trig(self.pivot_determinant))[1]}
        singular: list[sp.Expr] = []
        verdicts: list[bool | None] = []
        for size in range(1, self.k + 1):
            minor = sp.together(sp.expand_trig(Mr[:size, :size].det(method="berkowitz")))
            num, den = sp.fraction(minor)
            for part, is_den in ((reduce_pythagoras(num), False), (reduce_pythagoras(den), True)):
                coeff, factors = sp.factor_list(part)
                sign = 1 if coeff.is_positive else -1 if coeff.is_negative else 0
                for f, power in factors:
                    if is_den and (f in excluded or -f in excluded):
                        continue
                    if power % 2 == 0:
                        if f not in singular and not f.is_number:
                            positive = is_positive_definite(sp.Matrix([[f**2]]))
                            if positive is not True:
                                singular.append(f)
                        continue
                    if is_positive_definite(sp.Matrix([[f]])) is True:
                        continue
                    if is_positive_definite(sp.Matrix([[-f]])) is True:
                        sign = -sign
                        continue
                    sign = 0  # a factor of unproved sign
                verdicts.append(True if sign == 1 else None)
        verdict = all_proved(verdicts)
        if verdict is True and singular:
            zeros = ", ".join(f"{f} = 0" for f in singular)
            return {
                "verdict": None,
                "route": "Sylvester",
                "singular": singular,
                "message": f"M_r ≻ 0 except where {zeros}, where it is singular",
            }
        if verdict is not True:
            # a plain counterexample search on M_r as a last word
            verdict = is_positive_definite(Mr) if verdict is None else verdict
        return {
            "verdict": verdict,
            "route": "Sylvester",
            "singular": singular,
            "message": {
                True: "M_r ≻ 0 (Sylvester, every minor proved positive)",
                False: "M_r is not positive definite",
                None: "positive definiteness of M_r not decided",
            }[verdict],
        }

    # ------------------------------------------------------------------ first order
    def first_order(
        self, tau: Sequence[sp.Expr] | None = None
    ) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        """(q̇, u̇) = (S u + s, M_r⁻¹ F) as two column matrices (exact; M_r⁻¹ symbolic,
        meant for small k).

        Examples
        --------
        >>> import lagdyn as ld
        >>> qdot, udot = ld.zoo.get("chaplygin_sleigh").reduced().first_order()
        >>> qdot.shape, udot.shape
        ((3, 1), (2, 1))
        """
        u = sp.Matrix(self.independent)
        qdot = sp.Matrix(self.S) * u + sp.Matrix(self.s)
        udot = sp.Matrix(self.M_reduced).LUsolve(sp.Matrix(self.forcing(tau)))
        return sp.ImmutableMatrix(qdot), sp.ImmutableMatrix(udot)

    def linearize(
        self,
        q0: Any,
        qd0: Any = None,
        tau0: Any = None,
        *,
        states: Sequence[Any] | None = None,
        ignorable: Sequence[Any] = (),
        inputs: Sequence[sp.Symbol] | None = None,
        params: Mapping[Any, Any] | None = None,
        check_steady: bool = True,
    ) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        r"""(A, B) of the reduced first-order system about a motion: δẋ = A δx + B δr.

        The state is x = (coordinates, independent speeds u), ẋ = (S u + s, M_r⁻¹F);
        A = ∂ẋ/∂x and B = ∂ẋ/∂r at the operating point, computed exactly (the
        derivative of M_r⁻¹F is M_r⁻¹(∂F − ∂M_r · u̇₀)). The point need not be an
        equilibrium: about a steady motion (a rolling disc turning at constant rates)
        the coordinates that keep changing are ignorable and are dropped.

        Parameters
        ----------
        q0 : sequence of n values, or mapping coordinate → value
        qd0 : sequence of n rates (they must satisfy the constraints) or of the k
            independent rates, or mapping rate → value; zeros by default
        tau0 : values of the inputs at the operating point (zeros by default)
        states : coordinates to keep (default: all but ``ignorable``); the independent
            speeds always follow them
        ignorable : coordinates to drop; checked exactly: no kept row of ẋ may depend
            on them
        inputs : symbols to differentiate by for B (default the actuation τ, n columns;
            e.g. the torque symbols of the model's loads)
        params : mapping, optional
            Values substituted for parameters (exact numbers keep A, B exact)
        check_steady : bool
            Warn (``LagdynWarning``) when the kept rows of ẋ do not vanish at the point
            (then A, B describe the linearization along the motion at that instant).

        Returns
        -------
        A : sympy.ImmutableMatrix, (len(states) + k) × (len(states) + k)
        B : sympy.ImmutableMatrix, (len(states) + k) × len(inputs)

        Raises
        ------
        ConstraintError
            ``qd0`` violating the constraints; an ignorable coordinate on which a kept
            row depends.

        Examples
        --------
        The Chaplygin sleigh sliding straight at speed 1 (x, y ignorable; the state is
        the heading θ and the speeds ẋ, θ̇):

        >>> import lagdyn as ld
        >>> sleigh = ld.zoo.get("chaplygin_sleigh")
        >>> x, y, th = sleigh.system.q
        >>> A, B = sleigh.reduced().linearize(
        ...     [0, 0, 0], [1, 0, 0], ignorable=[x, y], params={"m": 1, "I": 1, "a": 1})
        >>> A
        Matrix([
        [0, 0,    1],
        [0, 0,    0],
        [0, 0, -1/2]])
        """
        cs = self.constrained
        q, qd = list(cs.system.q), list(cs.system.qd)
        n, k = cs.n, self.k
        qv = self._values(q0, q, "q0")
        if qd0 is None:
            qd_v = {qd[j]: sp.Integer(0) for j in range(n)}
        elif isinstance(qd0, Mapping):
            qd_v = {sp.sympify(key): sp.sympify(v) for key, v in qd0.items()}
        else:
            values = [sp.sympify(v) for v in qd0]
            if len(values) == n:
                qd_v = dict(zip(qd, values, strict=True))
            elif len(values) == k:
                qd_v = dict(zip(self.independent, values, strict=True))
            else:
                raise LagdynError(f"qd0 has {len(values)} entries: give {n} rates or {k} speeds")
        u0 = {ui: qd_v.get(ui, sp.Integer(0)) for ui in self.independent}
        pv = {
            sp.sympify(key) if not isinstance(key, str) else sp.Symbol(key): sp.sympify(v)
            for key, v in (params or {}).items()
        }
        pv = {_param(key, cs): v for key, v in pv.items()}
        point_q = {qi: qv[qi] for qi in q}
        if len(qd_v) > k:  # full rates given: they must be admissible
            resid = (
                cs.constraint_matrix * sp.Matrix([qd_v.get(r, 0) for r in qd]) + cs.constraint_bias
            )
            for i, e in enumerate(resid):
                val = sp.simplify(e.xreplace(point_q).subs(pv))
                if val != 0 and not (val.is_number and abs(complex(val)) < 1e-12):
                    raise ConstraintError(
                        f"qd0 violates constraint row {i} ({cs.rows[i]}): residual {val}"
                    )
        drop = [_rate_index(c, cs, f"ignorable[{j}]") for j, c in enumerate(ignorable)]
        if states is None:
            keep = [j for j in range(n) if j not in drop]
        else:
            keep = [_rate_index(c, cs, f"states[{j}]") for j, c in enumerate(states)]
            drop = sorted(set(drop) | {j for j in range(n) if j not in keep})
        inp = list(cs.system.tau) if inputs is None else [sp.sympify(x) for x in inputs]
        tau_vals = self._input_values(tau0, inp)
        qs, vs = _plain_map(q)
        usyms = [vs[ui] for ui in self.independent]
        qdot, _ = self.first_order()
        # actuation not among the inputs is zero
        F = sp.Matrix(self.forcing([x if x in inp else 0 for x in cs.system.tau]))
        Mr = sp.Matrix(self.M_reduced)
        rows_q = [_plain(qdot[j], qs, vs) for j in keep]
        Fp = F.applyfunc(lambda e: _plain(e, qs, vs))
        Mp = Mr.applyfunc(lambda e: _plain(e, qs, vs))
        # the exact ignorability check
        inputs_at = dict(zip(inp, tau_vals, strict=True))
        F_at = [e.subs(inputs_at) for e in Fp]  # B is taken at the point, A checked here
        for j in drop:
            sym = qs[q[j]]
            for what, exprs in (("q̇", rows_q), ("F", F_at), ("M_r", list(Mp))):
                for e in exprs:
                    if e.has(sym) and _decide_zero(sp.diff(e, sym), qs) is not True:
                        raise ConstraintError(
                            f"{q[j]} is not ignorable: the reduced equations ({what}) depend "
                            "on it; keep it among the states"
                        )
        xs = [qs[q[j]] for j in keep] + usyms
        subs: dict[Any, Any] = {qs[qi]: qv[qi] for qi in q}
        subs.update({vs[ui]: u0[ui] for ui in self.independent})
        subs.update(pv)
        subs.update(dict(zip(inp, tau_vals, strict=True)))

        def at(e: sp.Expr) -> sp.Expr:
            return _at(e, subs)

        Mr0 = Mp.applyfunc(at)
        F0 = Fp.applyfunc(at)
        udot0 = Mr0.LUsolve(F0).applyfunc(sp.simplify)
        ncols = len(xs)
        Au = sp.zeros(k, ncols)
        for c, x in enumerate(xs):
            dF = Fp.diff(x).applyfunc(at)
            dM = Mp.diff(x).applyfunc(at)
            Au[:, c] = Mr0.LUsolve(dF - dM * udot0)
        Bu = sp.zeros(k, len(inp))
        for c, r in enumerate(inp):
            Bu[:, c] = Mr0.LUsolve(Fp.diff(r).applyfunc(at))
        Aq = (
            sp.Matrix([[at(sp.diff(e, x)) for x in xs] for e in rows_q])
            if rows_q
            else sp.zeros(0, ncols)
        )
        Bq = (
            sp.Matrix([[at(sp.diff(e, r)) for r in inp] for e in rows_q])
            if rows_q
            else sp.zeros(0, len(inp))
        )
        A = Aq.col_join(Au).applyfunc(sp.simplify)
        B = Bq.col_join(Bu).applyfunc(sp.simplify)
        if check_steady:
            drift = [_nonzero(sp.simplify(at(e))) for e in rows_q] + [_nonzero(e) for e in udot0]
            moving = [
                str(x)
                for x, d in zip([q[j] for j in keep] + list(self.independent), drift, strict=True)
                if d != 0
            ]
            if moving:
                warnings.warn(
                    f"not a steady motion: {', '.join(moving)} change at this point; A, B "
                    "are the linearization along the motion at this instant (make the "
                    "changing coordinates ignorable, or choose a steady point)",
                    LagdynWarning,
                    stacklevel=2,
                )
        return sp.ImmutableMatrix(A), sp.ImmutableMatrix(B)

    def _values(self, values: Any, names: list[Any], what: str) -> dict[Any, sp.Expr]:
        if isinstance(values, Mapping):
            out = {sp.sympify(key): sp.sympify(v) for key, v in values.items()}
            missing = [str(x) for x in names if x not in out]
            if missing:
                raise LagdynError(f"{what} misses {', '.join(missing)}")
            return out
        items = [sp.sympify(v) for v in values]
        if len(items) != len(names):
            raise LagdynError(f"{what} has {len(items)} entries, expected {len(names)}")
        return dict(zip(names, items, strict=True))

    def _input_values(self, tau0: Any, inp: list[Any]) -> list[sp.Expr]:
        if tau0 is None:
            return [sp.Integer(0)] * len(inp)
        items = [sp.sympify(v) for v in tau0]
        if len(items) != len(inp):
            raise LagdynError(f"tau0 has {len(items)} entries, expected {len(inp)} inputs")
        return items

    def __repr__(self) -> str:
        names = ", ".join(str(u) for u in self.independent)
        return f"ReducedSystem(k={self.k}, independent=[{names}])"


def _param(key: Any, cs: ConstrainedSystem) -> Any:
    """A parameter given by name → its symbol in the system (else the key)."""
    if isinstance(key, sp.Symbol):
        for s in cs.system.parameters:
            if s.name == key.name:
                return s
    return key


def _nonzero(value: sp.Expr) -> sp.Expr:
    """0 for an exact zero or a float within rounding of it (1e-10), else the value."""
    if value.is_number and value.is_real is not False:
        try:
            if abs(float(value)) <= 1e-10:
                return sp.Integer(0)
        except TypeError:
            return value
    return value


def _positive_number(c: Any) -> bool | None:
    """A constant factor of a minor: positive for every value of its parameters?"""
    c = sp.sympify(c)
    if c.is_positive:
        return True
    if c.is_negative or c == 0:
        return False
    return None


def _at(expr: sp.Expr, subs: Mapping[Any, Any]) -> sp.Expr:
    """expr at the operating point (exact when the values are)."""
    return sp.sympify(expr).subs(subs)


# ---------------------------------------------------------------------------- numeric linearization
def linearize_at(
    cs: ConstrainedSystem,
    q0: Any,
    qd0: Any = None,
    tau0: Any = None,
    *,
    independent: Sequence[Any] | None = None,
    states: Sequence[Any] | None = None,
    ignorable: Sequence[Any] = (),
    inputs: Sequence[sp.Symbol] | None = None,
    params: Mapping[Any, float] | None = None,
    t0: float = 0.0,
    check_steady: bool = True,
) -> tuple[Any, Any]:
    r"""(A, B) of the reduced first-order system at a point, in floats: the first variation
    of the full Lagrange–d'Alembert equations, without forming the reduced ones.

    At the operating point the KKT system gives q̈₀, λ₀; varying it,

    .. math:: \begin{bmatrix} M & -W^T \\ W & 0 \end{bmatrix}
              \begin{bmatrix} \delta\ddot q \\ \delta\lambda \end{bmatrix} =
              -\begin{bmatrix} R_q\,\delta q + R_{\dot q}\,\delta\dot q - R_r\,\delta r \\
              G_q\,\delta q + G_{\dot q}\,\delta\dot q \end{bmatrix},
              \qquad W\delta\dot q + E_q\,\delta q = 0,\ \delta\dot q_I = \delta u,

    with R = M q̈ + h − τ − Wᵀλ, G = W q̈ + (Ẇ q̇ + β̇) and E = W q̇ + β, whose derivatives
    are taken exactly (symengine, on plain symbols) and evaluated at the point: no
    symbolic inverse, so it scales to large models (the Whipple bicycle). The result
    equals :meth:`ReducedSystem.linearize` evaluated in floats (the test suite checks
    both against each other and against ``KanesMethod.linearize``). With holonomic
    constraints, as many coordinates as they have rows (chosen among the dependent
    rates' coordinates, pivoting at the point) follow the others,
    δq_P = −J_P⁻¹ J_F δq_F, and are not states (as ``KanesMethod`` does with its
    dependent coordinates). Ignorable
    coordinates are dropped after checking, at this point, that no kept row depends on
    them (exactly zero columns, up to rounding 1e-9); the exact check across all states
    is :meth:`ReducedSystem.linearize`'s.

    Parameters
    ----------
    cs : ConstrainedSystem
    q0, qd0, tau0, states, ignorable, inputs, check_steady
        As :meth:`ReducedSystem.linearize` (``qd0``: n admissible rates or the k
        independent ones; ``tau0``: values of ``inputs``).
    independent : the independent rates (default: the choice of :class:`ReducedSystem`)
    params : mapping, every parameter's value (symbols or names; ``system.defaults``
        by default)
    t0 : float
        The time, for constraints or forces that depend on it.

    Returns
    -------
    A, B : numpy arrays

    Examples
    --------
    >>> import lagdyn as ld
    >>> sleigh = ld.zoo.get("chaplygin_sleigh")
    >>> x, y, th = sleigh.system.q
    >>> A, B = linearize_at(sleigh, [0, 0, 0], [1, 0, 0], independent=[x, th], ignorable=[x, y])
    >>> A.round(12).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, -0.5]]
    """
    import numpy as np

    from .trig.convert import plain_symengine, state_symbols, substitution

    n, m = cs.n, cs.m
    q, qd = list(cs.system.q), list(cs.system.qd)
    forward, _ = substitution(q, qd, *state_symbols(n))
    Q = [se.Symbol(forward[x].name) for x in q]
    V = [se.Symbol(forward[x].name) for x in qd]
    T = se.Symbol(str(t))

    def conv(e: Any) -> Any:
        out = plain_symengine(sp.sympify(e), forward)
        if out is None:
            raise LagdynError(f"linearize_at: symengine cannot hold {e}; use method='exact'")
        return out

    inp = list(cs.system.tau) if inputs is None else [sp.sympify(x) for x in inputs]
    rows = [i for i in range(m) if i not in set(cs.dependent_rows())]
    Wsym = cs.constraint_matrix.extract(rows, list(range(n)))
    beta_sym = cs.constraint_bias.extract(rows, [0])
    mr = len(rows)
    k = n - mr
    if independent is None:
        dep = _choose_dependent(sp.Matrix(Wsym), cs)
        ind = [j for j in range(n) if j not in dep]
    else:
        ind = [_rate_index(x, cs, f"independent[{j}]") for j, x in enumerate(independent)]
        if len(ind) != k or len(set(ind)) != k:
            raise ConstraintError(f"give {k} distinct independent rates, got {list(independent)}")
        dep = [j for j in range(n) if j not in ind]
    # symbolic pieces in symengine
    W = [[conv(Wsym[i, j]) for j in range(n)] for i in range(mr)]
    beta = [conv(beta_sym[i]) for i in range(mr)]
    M = [[conv(cs.system.M[i, j]) for j in range(n)] for i in range(n)]
    tau_expr = [conv(x if x in inp else 0) for x in cs.system.tau]
    h = [conv(cs.system.h[i] - cs.system.forces[i]) for i in range(n)]
    E = [sum((W[i][j] * V[j] for j in range(n)), se.Integer(0)) + beta[i] for i in range(mr)]
    c = [
        sum((se.diff(E[i], Q[j]) * V[j] for j in range(n)), se.Integer(0)) + se.diff(E[i], T)
        for i in range(mr)
    ]
    acc = [se.Symbol(f"_lda{j}") for j in range(n)]
    lam = [se.Symbol(f"_ldl{j}") for j in range(mr)]
    R = [
        sum((M[i][j] * acc[j] for j in range(n)), se.Integer(0))
        + h[i]
        - tau_expr[i]
        - sum((W[j][i] * lam[j] for j in range(mr)), se.Integer(0))
        for i in range(n)
    ]
    G = [sum((W[i][j] * acc[j] for j in range(n)), se.Integer(0)) + c[i] for i in range(mr)]
    # the point
    values = dict(cs.system.defaults)
    for key, v in (params or {}).items():
        values[_param(sp.Symbol(key) if isinstance(key, str) else key, cs)] = v
    point: dict[Any, float] = {se.Symbol(str(s)): float(v) for s, v in values.items()}
    point[T] = float(t0)
    qv = [float(v) for v in (q0.values() if isinstance(q0, Mapping) else q0)]
    if len(qv) != n:
        raise LagdynError(f"q0 has {len(qv)} entries, expected {n}")
    point.update(dict(zip(Q, qv, strict=True)))
    rv = [0.0] * len(inp) if tau0 is None else [float(v) for v in tau0]
    if len(rv) != len(inp):
        raise LagdynError(f"tau0 has {len(rv)} entries, expected {len(inp)} inputs")
    R_in = [conv(x) for x in inp]
    point.update(dict(zip(R_in, rv, strict=True)))

    def num(e: Any) -> float:
        value = complex(e.subs(point)) if e.free_symbols else complex(e)
        if abs(value.imag) > 1e-12 * (1 + abs(value.real)):
            raise LagdynError(f"linearize_at: a complex value at the point ({value})")
        return value.real

    def mat(rows_: list[list[Any]]) -> np.ndarray:
        return np.array([[num(e) for e in r] for r in rows_], dtype=float).reshape(len(rows_), -1)

    W0 = mat(W)
    b0 = np.array([num(e) for e in beta])
    if qd0 is None:
        given = np.zeros(k)
    else:
        given = np.array([float(v) for v in (qd0.values() if isinstance(qd0, Mapping) else qd0)])
    if given.size == n:
        v0 = given
        resid = W0 @ v0 + b0
        if np.abs(resid).max(initial=0.0) > 1e-9 * (1 + np.abs(W0).max() * np.abs(v0).max()):
            raise ConstraintError(f"qd0 violates the constraints: W q̇ + β = {resid}")
    elif given.size == k:
        v0 = np.zeros(n)
        v0[ind] = given
        v0[dep] = np.linalg.solve(W0[:, dep], -(W0[:, ind] @ given + b0))
    else:
        raise LagdynError(f"qd0 has {given.size} entries: give {n} rates or {k} speeds")
    point.update(dict(zip(V, v0.tolist(), strict=True)))
    M0 = mat(M)
    K = np.zeros((n + mr, n + mr))
    K[:n, :n], K[:n, n:], K[n:, :n] = M0, -W0.T, W0
    rhs = np.concatenate([[num(tau_expr[i]) - num(h[i]) for i in range(n)], [-num(e) for e in c]])
    sol = np.linalg.solve(K, rhs)
    point.update(dict(zip(acc, sol[:n].tolist(), strict=True)))
    point.update(dict(zip(lam, sol[n:].tolist(), strict=True)))
    Rq, Rv = (
        mat([[se.diff(r, x) for x in Q] for r in R]),
        mat([[se.diff(r, x) for x in V] for r in R]),
    )
    Rr = mat([[se.diff(r, x) for x in R_in] for r in R]) if inp else np.zeros((n, 0))
    Gq, Gv = (
        mat([[se.diff(g, x) for x in Q] for g in G]),
        mat([[se.diff(g, x) for x in V] for g in G]),
    )
    Eq = mat([[se.diff(e, x) for x in Q] for e in E])
    # δq̇ = S0 δu + T0 δq
    WD_inv = np.linalg.inv(W0[:, dep])
    S0 = np.zeros((n, k))
    S0[ind, np.arange(k)] = 1.0
    S0[dep, :] = -WD_inv @ W0[:, ind]
    T0 = np.zeros((n, n))
    T0[dep, :] = -WD_inv @ Eq
    Kinv = np.linalg.inv(K)
    # [δq̈; δλ] = -K⁻¹ [Rq δq + Rv δq̇ - Rr δr; Gq δq + Gv δq̇]
    dq_rows = -Kinv @ np.vstack([Rq + Rv @ T0, Gq + Gv @ T0])
    du_rows = -Kinv @ np.vstack([Rv @ S0, Gv @ S0])
    dr_rows = -Kinv @ np.vstack([Rr, np.zeros((mr, len(inp)))])
    A_full = np.zeros((n + k, n + k))
    A_full[:n, :n], A_full[:n, n:] = T0, S0
    A_full[n:, :n], A_full[n:, n:] = dq_rows[:n][ind], du_rows[:n][ind]
    B_full = np.zeros((n + k, len(inp)))
    B_full[n:, :] = dr_rows[:n][ind]
    # holonomic rows: their dependent coordinates follow the others, δq_P = −J_P⁻¹ J_F δq_F
    mh = sum(1 for i in rows if i < cs.m_holonomic)
    pos_dep: list[int] = []
    if mh:
        J0 = W0[:mh, :]
        for j in [*dep, *ind]:
            if np.linalg.matrix_rank(J0[:, [*pos_dep, j]]) == len(pos_dep) + 1:
                pos_dep.append(j)
            if len(pos_dep) == mh:
                break
        free = [j for j in range(n) if j not in pos_dep]
        P = np.zeros((n, len(free)))
        P[free, np.arange(len(free))] = 1.0
        P[pos_dep, :] = -np.linalg.solve(J0[:, pos_dep], J0[:, free])
        cols = np.vstack(
            [np.hstack([P, np.zeros((n, k))]), np.hstack([np.zeros((k, len(free))), np.eye(k)])]
        )
        keep_rows = free + [n + i for i in range(k)]
        A_full = A_full[keep_rows, :] @ cols
        B_full = B_full[keep_rows, :]
    else:
        free = list(range(n))
    drop = [_rate_index(x, cs, f"ignorable[{j}]") for j, x in enumerate(ignorable)]
    if states is None:
        keep = [j for j in free if j not in drop]
    else:
        keep = [_rate_index(x, cs, f"states[{j}]") for j, x in enumerate(states)]
        follow = [str(q[j]) for j in keep if j in pos_dep]
        if follow:
            raise ConstraintError(
                f"{', '.join(follow)} follow the others through the holonomic constraints "
                "(eliminated at this point): not states"
            )
        drop = [j for j in free if j not in keep]
    where = {j: i for i, j in enumerate(free)}
    nf = len(free)
    rows_kept = [where[j] for j in keep] + [nf + i for i in range(k)]
    drop = [where[j] for j in drop if j in where]
    scale = 1e-9 * (1.0 + np.abs(A_full).max())
    for j in drop:
        if np.abs(A_full[rows_kept, j]).max(initial=0.0) > scale:
            raise ConstraintError(
                f"{q[free[j]]} is not ignorable at this point: the kept rows depend on it; "
                "keep it among the states"
            )
    A = A_full[np.ix_(rows_kept, rows_kept)]
    B = B_full[rows_kept, :]
    if check_steady:
        drift = np.concatenate([v0[keep], sol[:n][ind]])
        names = [str(q[j]) for j in keep] + [str(qd[j]) for j in ind]
        moving = [nm for nm, d in zip(names, drift, strict=True) if abs(d) > 1e-9]
        if moving:
            warnings.warn(
                f"not a steady motion: {', '.join(moving)} change at this point; A, B are the "
                "linearization along the motion at this instant",
                LagdynWarning,
                stacklevel=2,
            )
    return A, B


def _choose_dependent(W: sp.Matrix, cs: ConstrainedSystem) -> list[int]:
    """The dependent columns :class:`ReducedSystem` would choose (see its ``_pivot``)."""
    holder = ReducedSystem.__new__(ReducedSystem)
    holder.constrained = cs
    return holder._pivot(W)

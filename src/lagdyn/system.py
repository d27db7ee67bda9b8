r"""Lagrangian systems: mass matrix, Christoffel symbols, Coriolis, gravity, equations.

A :class:`LagrangianSystem` holds a Lagrangian quadratic in the velocities,

.. math:: L = \tfrac12 \dot q^T M(q) \dot q + b(q)^T \dot q - V(q),

and derives, lazily and once, everything the equations of motion need:

.. math:: M(q)\ddot q + C(q, \dot q)\dot q + G(q)\dot q + g(q) = \tau + Q(q, \dot q, t)

with :math:`M = \partial^2 L/\partial \dot q^2`, Christoffel symbols of the first kind
:math:`\Gamma_{ijk} = \tfrac12(\partial_k m_{ij} + \partial_j m_{ik} - \partial_i m_{jk})`,
:math:`C_{ij} = \sum_k \Gamma_{ijk}\dot q_k`, gyroscopic
:math:`G_{ij} = \partial_j b_i - \partial_i b_j` and :math:`g = \partial V/\partial q`.

When every entry of M is a trigonometric polynomial in q (integer frequencies,
offsets and polynomial coefficients allowed), the derivation runs in lagdyn's
canonical trig-polynomial form (:mod:`lagdyn.trig.derive`): each ∂m_ij/∂q_k is computed
once, Christoffel sums cancel exactly and C stays small. Any other Lagrangian takes
the general path (symengine differentiation and expansion), which is slower but
equally exact.

Coordinates must be functions of ``t`` (``ld.coordinates``); plain Symbols are
rejected with a message saying so, because their rates would be ambiguous.
Lagrangians with an explicit dependence on ``t`` are not supported: put
time-dependent forcing into ``forces``.

Examples
--------
>>> import sympy as sp, lagdyn as ld
>>> q, = ld.coordinates("x")
>>> m, k = sp.symbols("m k", positive=True)
>>> sys = ld.LagrangianSystem(m * q.diff(ld.t)**2 / 2 - k * q**2 / 2, [q])
>>> sys.M, sys.g
(Matrix([[m]]), Matrix([[k*x(t)]]))
>>> sys.equations()
Matrix([[k*x(t) + m*Derivative(x(t), (t, 2)) - tau_x]])
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import symengine as se
import sympy as sp
from sympy.core.function import AppliedUndef

import lagdyn._validate as _validate
import lagdyn.trig.convert as _convert

from ._common import distinct_nodes, without_gc
from ._common import numeric_rank as _numeric_rank  # noqa: F401  (constraints imports it here)
from ._common import validate_coordinates as _validate_coordinates
from .codegen.binding import _stacklevel
from .errors import (
    CoordinateError,
    LagdynError,
    LagdynWarning,
    NotQuadraticError,
    ShapeError,
    SingularMassMatrixError,
)
from .symbols import confusable_note, skeleton, t
from .symbols import reserved_message as _reserved_message

if TYPE_CHECKING:  # pragma: no cover
    from .numeric import NumericModel

__all__ = ["LagrangianSystem"]

log = logging.getLogger("lagdyn")


def _as_expr(value: Any, what: str) -> sp.Expr:
    """Accept sympy expressions and plain numbers; refuse strings and other objects."""
    if isinstance(value, sp.Expr):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return sp.sympify(value)
    if isinstance(value, str):
        raise LagdynError(
            f"{what} must be a sympy expression, got the string {value!r}; "
            "build it from ld.coordinates and sympy symbols (strings are not evaluated)"
        )
    raise LagdynError(f"{what} must be a sympy expression, got {type(value).__name__}")


def _scan(expr: sp.Basic) -> tuple[set[sp.Derivative], set[sp.Basic], bool]:
    """One walk over the distinct subtrees: derivatives, functions of t, explicit t."""
    derivs: set[sp.Derivative] = set()
    funcs: set[sp.Basic] = set()
    explicit_t = False
    for node in distinct_nodes([expr], stop=lambda n: isinstance(n, (sp.Derivative, AppliedUndef))):
        if isinstance(node, sp.Derivative):
            derivs.add(node)
        elif isinstance(node, AppliedUndef):
            if t in node.free_symbols:
                funcs.add(node)
        elif node == t:
            explicit_t = True
    return derivs, funcs, explicit_t


#: the property every class inherits unless it binds or adds symbols (Integral, Subs,
#: Lambda, Indexed, ...): a node with it has the free symbols of its arguments
_ARGS_FREE = sp.Basic.__dict__["free_symbols"]
_FREE_BY_ARGS: dict[type, bool] = {}


def _free_by_args(kind: type) -> bool:
    """Whether instances of ``kind`` take Basic's ``free_symbols`` (read off the class
    dictionaries: ``kind.free_symbols`` of a function class is its metaclass's)."""
    found = _FREE_BY_ARGS.get(kind)
    if found is None:
        owner = next(k for k in kind.__mro__ if "free_symbols" in vars(k))
        found = _FREE_BY_ARGS[kind] = vars(owner)["free_symbols"] is _ARGS_FREE
    return found


class _Walk:
    """One walk over the distinct subtrees of L, standing in for the walks the input
    checks took one by one (``atoms`` of numbers and of functions, ``free_symbols``
    twice, and :func:`_scan`): each of them walked L as a tree, again at every
    occurrence of a shared subtree.

    ``None`` from :meth:`of` when L holds anything the shortcut does not mirror exactly
    (a function of t that is not a coordinate, a derivative that is not a rate, a node
    binding or adding symbols): the checks then walk as before.
    """

    __slots__ = ("derivs", "explicit_t", "free", "funcs", "numbers", "undef")

    def __init__(
        self,
        derivs: set[sp.Derivative],
        funcs: set[sp.Basic],
        explicit_t: bool,
        free: set[sp.Basic],
        numbers: set[sp.Basic],
        undef: set[sp.Basic],
    ) -> None:
        self.derivs, self.funcs, self.explicit_t = derivs, funcs, explicit_t
        self.free, self.numbers, self.undef = free, numbers, undef

    @classmethod
    def of(
        cls, expr: sp.Basic, q: Sequence[sp.Expr], rates: Iterable[sp.Expr] | None = None
    ) -> _Walk | None:
        """``rates``: the q̇(t) of ``q`` when the caller has them (each ``sp.diff`` of a
        coordinate costs about 0.1 ms)."""
        qset = set(q)
        rates = set(rates) if rates is not None else {sp.diff(qi, t) for qi in q}
        derivs: set[sp.Derivative] = set()
        funcs: set[sp.Basic] = set()
        free: set[sp.Basic] = set()
        numbers: set[sp.Basic] = set()
        undef: set[sp.Basic] = set()
        explicit_t = False
        for node in distinct_nodes(
            [expr], stop=lambda n: isinstance(n, (sp.Derivative, AppliedUndef))
        ):
            if isinstance(node, sp.Derivative):
                if node not in rates:
                    return None
                derivs.add(node)
                undef.add(node.expr)
            elif isinstance(node, AppliedUndef):
                if node not in qset:
                    return None
                funcs.add(node)
                undef.add(node)
            elif isinstance(node, sp.Symbol):
                free.add(node)
                explicit_t = explicit_t or node == t
            elif not _free_by_args(type(node)):
                return None
            elif isinstance(node, (sp.Float, sp.Rational)):
                numbers.add(node)
        if undef:
            free.add(t)  # the coordinates' and rates' own free symbol
        return cls(derivs, funcs, explicit_t, free, numbers, undef)


def _encodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _refuse_reserved(
    L: sp.Expr, forces: Any, q: Sequence[sp.Expr], defaults: Any, walk: _Walk | None = None
) -> None:
    """Refuse symbols named like lagdyn's internal ones (``_ldq0`` would merge with q_0).

    ``walk``: L's symbols and functions already collected (:class:`_Walk`)."""
    exprs = [L, *(forces if forces is not None else ())]
    others = exprs if walk is None else exprs[1:]
    free = [s for e in others for s in e.free_symbols]
    undef = [f for e in [*others, *q] for f in e.atoms(AppliedUndef)]
    if walk is not None:
        free += walk.free
        undef += walk.undef
    names = {str(getattr(s, "name", s)) for s in free}
    names |= {str(f.func) for f in undef}
    names |= {str(getattr(k, "name", k)) for k in defaults}
    msg = _reserved_message(names)
    if msg:
        raise LagdynError(msg)
    if any(getattr(s, "name", None) == "t" and s != t for s in free):
        # a second symbol named t (say with assumptions): bound per call it read as the time
        raise LagdynError(
            "a symbol named 't' that is not lagdyn's time ld.t (a symbol with other "
            "assumptions): 't' is the time; rename the parameter"
        )
    unencodable = sorted(n for n in names if not _encodable(n))
    if unencodable:  # a lone surrogate: no file, header or code printer can hold it
        raise LagdynError(
            f"symbol names {', '.join(map(ascii, unencodable))} are not valid Unicode text "
            "(a lone surrogate): rename them"
        )
    by_look: dict[str, list[str]] = {}
    for name in sorted(names):
        by_look.setdefault(skeleton(name), []).append(name)
    notes = [confusable_note(group[1], group[:1]) for group in by_look.values() if len(group) > 1]
    if notes:  # two symbols that read the same: almost surely one mistyped
        warnings.warn(
            f"symbols that look alike but are different: {'; '.join(map(str, notes))}",
            LagdynWarning,
            stacklevel=_stacklevel(),
        )


def _check_dependencies(
    expr: sp.Expr,
    q: Sequence[sp.Expr],
    what: str,
    *,
    allow_t: bool,
    walk: _Walk | None = None,
    rates: Iterable[sp.Expr] | None = None,
) -> None:
    """Refuse accelerations, foreign functions of t and (optionally) explicit t.

    ``walk``: the nodes :func:`_scan` would find, already collected (:class:`_Walk`);
    ``rates``: the q̇(t) of ``q``, when the caller has them."""
    qset = set(q)
    rates = set(rates) if rates is not None else {sp.diff(qi, t) for qi in q}
    if walk is None:
        derivs, funcs, explicit_t = _scan(expr)
    else:
        derivs, funcs, explicit_t = walk.derivs, walk.funcs, walk.explicit_t
    bad_acc = sorted({str(d) for d in derivs if d not in rates and d.expr in qset})
    if bad_acc:
        raise NotQuadraticError(
            f"{what} contains higher derivatives {', '.join(bad_acc)}: "
            "a Lagrangian may depend on q and q̇ only"
        )
    foreign = sorted(
        {str(f) for f in funcs if f not in qset} | {str(d) for d in derivs if d.expr not in qset}
    )
    if foreign:
        raise CoordinateError(
            f"{what} depends on {', '.join(foreign)}, which are not among the coordinates "
            f"{', '.join(str(x) for x in q)}"
        )
    if explicit_t and not allow_t:
        raise LagdynError(
            f"{what} depends explicitly on t; time-dependent Lagrangians are not supported, "
            "put time-dependent forcing into forces=[...]"
        )


def _unevaluated(expr: Any) -> bool:
    """Whether a symengine result still holds a ``Derivative`` (symengine cannot
    differentiate ``max``, ``min`` and a few others; sympy can, with real symbols)."""
    return "Derivative" in str(expr)


#: symengine functions whose derivatives symengine always evaluates
_SMOOTH_SE = frozenset(
    {"sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan"}
    | {"sinh", "cosh", "tanh", "log"}
)


def _smooth_se(expr: Any, atoms: Any = None) -> bool:
    """Whether every function in a symengine expression is one symengine differentiates
    (then no derivative of it holds an unevaluated ``Derivative``: one walk of L instead of
    printing every derivative). ``atoms``: the expression's atoms of type Function (others
    are ignored), when the caller has collected them."""
    found = expr.atoms(se.Function) if atoms is None else atoms
    return all(type(f).__name__ in _SMOOTH_SE for f in found if isinstance(f, se.Function))


class LagrangianSystem:
    r"""A mechanical system given by its Lagrangian L(q, q̇), quadratic in q̇.

    Parameters
    ----------
    L : sympy.Expr
        The Lagrangian, in coordinates ``q`` (functions of ``ld.t``) and their rates.
    q : sequence of sympy functions of t
        Generalized coordinates, e.g. ``ld.coordinates("q1 q2")``.
    forces : sequence of sympy.Expr, optional
        Non-conservative generalized forces Q(q, q̇, t), one per coordinate
        (damping, applied loads by virtual work). They enter the right-hand side.
    defaults : mapping of sympy.Symbol to float, optional
        Default numeric parameter values, kept as :attr:`defaults` (the zoo fills them);
        nothing uses them implicitly: pass ``sys.lambdify(sys.defaults)``.

    Attributes (lazy, computed once)
    --------------------------------
    M, C, G, g, christoffel, T, U, energy, forces, parameters, n, q, qd, qdd, tau

    Raises
    ------
    CoordinateError
        Coordinates that are not distinct functions of ``t``, or L depending on other ones.
    NotQuadraticError
        L contains q̈, or is not quadratic in q̇ (M would depend on q̇).
    SingularMassMatrixError
        M is singular (a coordinate without inertia).
    ShapeError
        ``forces`` of the wrong length.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> th, = ld.coordinates("theta")
    >>> m, l, g = sp.symbols("m l g", positive=True)
    >>> T = m * l**2 * th.diff(ld.t)**2 / 2
    >>> U = -m * g * l * sp.cos(th)
    >>> pend = ld.LagrangianSystem.from_energies(T, U, [th])
    >>> pend.M
    Matrix([[l**2*m]])
    >>> pend.g
    Matrix([[g*l*m*sin(theta(t))]])
    >>> pend.is_skew_symmetric()
    True
    """

    #: Handed over by :meth:`_from_mass_matrix` (from :mod:`lagdyn.kinematics`): the Gram
    #: rows (weight, ∂p/∂q, planar partner) of M = Σ w JᵀJ, read by the
    #: positive-definiteness proof; whether M is already in canonical rebuilt form (then
    #: the derivation does not rebuild it); M's canonical dictionaries with their encoder.
    _gram_rows: Any = None
    _canonical_mass: bool = False
    _mass_polys: Any = None

    def __init__(
        self,
        L: sp.Expr,
        q: Sequence[sp.Expr],
        forces: Sequence[sp.Expr] | None = None,
        *,
        defaults: Mapping[sp.Symbol, float] | None = None,
    ):
        self._build(L, q, forces, defaults)

    @without_gc
    def _build(
        self,
        L: sp.Expr,
        q: Sequence[sp.Expr],
        forces: Sequence[sp.Expr] | None,
        defaults: Mapping[sp.Symbol, float] | None,
    ) -> None:
        self._setup(L, q, forces, defaults)
        self._b_dyn, self._V_dyn = self._split_lagrangian()
        self._check_defined()
        self._check_regular()

    def _setup(
        self,
        L: Any,
        q: Any,
        forces: Sequence[sp.Expr] | None,
        defaults: Mapping[sp.Symbol, float] | None,
        *,
        check_floats: bool = True,
    ) -> None:
        self._q = _validate_coordinates(q)
        self.defaults: dict[sp.Symbol, float] = dict(defaults or {})
        self._L = _as_expr(L, "L")
        rates = self.qd  # (the q̇(t), built once for the checks and the substitution)
        walk = _Walk.of(self._L, self._q, rates)
        if check_floats:  # from_mass_matrix: M, b, U are checked entry by entry instead
            if walk is None:
                _validate.check_float_range("L", self._L)
            else:
                _validate.check_float_numbers("L", walk.numbers)
        _check_dependencies(self._L, self._q, "L", allow_t=False, walk=walk, rates=rates)
        self._forces_in = self._validate_forces(forces)
        sizes = {"L": self._L}
        if self._forces_in is not None:
            sizes.update({f"forces[{i}]": f for i, f in enumerate(self._forces_in)})
        _validate.check_size(sizes)  # before anything is expanded
        _refuse_reserved(self._L, self._forces_in, self._q, self.defaults, walk)
        self._qs, self._vs = _convert.state_symbols(self.n)
        self._fwd, self._bwd = _convert.substitution(self._q, self.qd, self._qs, self._vs)
        if walk is not None and len({s.name for s in walk.free}) == len(walk.free):
            free = walk.free
        else:  # (two symbols of one name: L's own set, in its order)
            free = self._L.free_symbols
        self._symtab = _convert.SymbolTable.from_symbols(
            free,
            extra={s.name: d for s, d in self._bwd.items()},
        )

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_energies(
        cls,
        T: sp.Expr,
        U: sp.Expr,
        q: Sequence[sp.Expr],
        forces: Sequence[sp.Expr] | None = None,
        *,
        defaults: Mapping[sp.Symbol, float] | None = None,
    ) -> LagrangianSystem:
        """A system from its kinetic energy T(q, q̇) and potential energy U(q).

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> x, = ld.coordinates("x")
        >>> sys = ld.LagrangianSystem.from_energies(x.diff(ld.t)**2 / 2, x**2 / 2, [x])
        >>> sys.U
        x(t)**2/2
        """
        T = _as_expr(T, "T")
        U = _as_expr(U, "U")
        rates = {sp.diff(qi, t) for qi in _validate_coordinates(q)}
        in_U = sorted(map(str, rates & U.atoms(sp.Derivative)))
        if in_U:
            raise NotQuadraticError(
                f"U depends on the rates ({', '.join(in_U)}), but a potential energy depends "
                "on q only: did you swap T and U? (from_energies(T, U, q))"
            )
        if T != 0 and not rates & T.atoms(sp.Derivative):
            raise NotQuadraticError(
                "T does not depend on the rates, but a kinetic energy does: did you swap T "
                "and U? (from_energies(T, U, q))"
            )
        system = cls(T - U, q, forces, defaults=defaults)
        state = system._indefinite_mass_state()
        if state:
            raise NotQuadraticError(
                "T is not positive semidefinite in the rates (M(q) has a negative eigenvalue "
                f"at {state}, parameters positive): did you swap T and U? "
                "(from_energies(T, U, q))"
            )
        return system

    def _indefinite_mass_state(self) -> str:
        """A random state (parameters positive unless declared negative) where M has a
        pivot negative beyond rounding, described as text; empty when none is found."""
        import random

        from .structure import _cholesky_pivots

        rng = random.Random(11)
        m_se = getattr(self, "_M_se", None)
        n = self.n
        for _ in range(3):
            qv = {qs: rng.uniform(-3.0, 3.0) for qs in self._qs}
            pv = {
                p: -rng.uniform(0.5, 2.0) if p.is_negative else rng.uniform(0.5, 2.0)
                for p in self.parameters
            }
            try:
                if m_se is not None:
                    sub = {se.Symbol(k.name): v for k, v in {**qv, **pv}.items()}
                    val = {k: float(se.sympify(e).subs(sub)) for k, e in m_se.items()}
                    rows = [[val[min(i, j), max(i, j)] for j in range(n)] for i in range(n)]
                else:
                    Mp = self._M_dyn.xreplace(self._fwd).xreplace({**qv, **pv})
                    rows = [[float(Mp[i, j]) for j in range(n)] for i in range(n)]
            except (TypeError, ValueError, RuntimeError):
                return ""
            if _cholesky_pivots(rows, 1e-9) is False:
                where = ", ".join(f"{self._bwd[qs]} = {v:.3g}" for qs, v in qv.items())
                return where
        return ""

    @classmethod
    def from_mass_matrix(
        cls,
        M: Any,
        U: sp.Expr,
        q: Sequence[sp.Expr],
        *,
        b: Sequence[sp.Expr] | None = None,
        forces: Sequence[sp.Expr] | None = None,
        defaults: Mapping[sp.Symbol, float] | None = None,
    ) -> LagrangianSystem:
        """A system from its mass matrix M(q) and potential U(q), taking M as given.

        ``L = ½ q̇ᵀ M q̇ + bᵀ q̇ − U``; M is used directly (not re-derived by
        differentiating L twice), which is how kinematic builders pass M = JᵀWJ.

        Raises
        ------
        ShapeError
            M not square n × n, or b of the wrong length.
        NotQuadraticError
            M or b depending on the rates, or M not symmetric.

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> r, th = ld.coordinates("r theta")
        >>> m = sp.Symbol("m", positive=True)
        >>> sys = ld.LagrangianSystem.from_mass_matrix(sp.diag(m, m * r**2), 0, [r, th])
        >>> sys.C
        Matrix([
        [                                    0, -m*r(t)*Derivative(theta(t), t)],
        [m*r(t)*Derivative(theta(t), t), m*r(t)*Derivative(r(t), t)]])
        """
        return cls._from_mass_matrix(M, U, q, b=b, forces=forces, defaults=defaults)

    @classmethod
    def _from_mass_matrix(
        cls,
        M: Any,
        U: sp.Expr,
        q: Sequence[sp.Expr],
        *,
        b: Sequence[sp.Expr] | None = None,
        forces: Sequence[sp.Expr] | None = None,
        defaults: Mapping[sp.Symbol, float] | None = None,
        mass_polys: Any = None,
        gram_rows: Any = None,
        canonical_mass: bool = False,
    ) -> LagrangianSystem:
        """:meth:`from_mass_matrix`, with what the caller (:mod:`lagdyn.kinematics`) knows
        about how M was assembled.

        ``mass_polys``: ``(encoder, {(i, j): dictionary})``, M's upper triangle in canonical
        form (:mod:`lagdyn.trig.laurent`): the regularity check and the derivation start
        from them. ``gram_rows``: the factor ``M = Σ_r w_r J_rᵀ J_r`` as ``(w_r, J_r,
        planar partner)`` rows (:func:`lagdyn.trig.gram.gram_rows`), read by the
        positive-definiteness proof. ``canonical_mass``: M is already the canonical
        rebuild of ``mass_polys`` (the derivation returns it as it is).
        """
        qv = _validate_coordinates(q)
        n = len(qv)
        if isinstance(M, str) or not hasattr(M, "__len__"):
            raise LagdynError(f"M must be a sympy Matrix, got {type(M).__name__}")
        Mm = sp.ImmutableMatrix(M)
        if Mm.shape != (n, n):
            raise ShapeError(f"M has shape {Mm.shape}, expected ({n}, {n}) for {n} coordinates")
        bm = sp.ImmutableMatrix.zeros(n, 1) if b is None else sp.ImmutableMatrix(list(b))
        if bm.shape != (n, 1):
            raise ShapeError(f"b has {bm.shape[0]} entries, expected {n}")
        qd = [sp.diff(x, t) for x in qv]
        rates = set(qd)
        for name, mat in (("M", Mm), ("b", bm)):
            # one walk over the distinct subtrees (entries of M share most of theirs)
            bad = {node for node in distinct_nodes(list(mat)) if node in rates}
            if bad:
                raise NotQuadraticError(
                    f"{name} must depend on q only, found {', '.join(sorted(map(str, bad)))}"
                )
        # before the symmetry test expands anything
        _validate.check_size(
            {f"M[{i}, {j}]": Mm[i, j] for i in range(n) for j in range(n) if Mm[i, j] != 0}
        )
        asym = [
            (i, j)
            for i in range(n)
            for j in range(i + 1, n)
            if Mm[i, j] != Mm[j, i] and sp.expand(Mm[i, j] - Mm[j, i]) != 0
        ]
        if asym:
            raise NotQuadraticError(f"M is not symmetric at entries {asym}")
        Ue = _as_expr(U, "U")
        # ½ q̇ᵀMq̇ + bᵀq̇ − U as one flat sum (a matrix product adds term by term, which is
        # quadratic in the size of M)
        half = sp.Rational(1, 2)
        terms = [sp.Mul(half, Mm[i, i], qd[i] ** 2) for i in range(n) if Mm[i, i] != 0]
        terms += [
            sp.Mul(Mm[i, j], qd[i], qd[j])
            for i in range(n)
            for j in range(i + 1, n)
            if Mm[i, j] != 0
        ]
        terms += [sp.Mul(bm[i], qd[i]) for i in range(n) if bm[i] != 0]
        L = sp.Add(*terms) - Ue
        self = cls.__new__(cls)
        self._setup(L, qv, forces, defaults, check_floats=False)
        self._M_dyn = Mm
        self._b_dyn = bm
        self._V_dyn = Ue
        self._mass_polys = mass_polys
        self._gram_rows = gram_rows
        self._canonical_mass = canonical_mass
        self._check_defined()
        self._check_regular()
        return self

    # ------------------------------------------------------------------ basic facts
    @property
    def q(self) -> tuple[sp.Expr, ...]:
        """The coordinates q(t).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().q
        (a(t), b(t))
        """
        return self._q

    @property
    def n(self) -> int:
        """The number of coordinates (degrees of freedom).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().n
        2
        """
        return len(self._q)

    @cached_property
    def qd(self) -> tuple[sp.Expr, ...]:
        """The rates q̇(t).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().qd[0]
        Derivative(a(t), t)
        """
        # the coordinates are undefined functions of t alone (validate_coordinates), whose
        # derivative sympy's diff leaves as this very object, Derivative(q(t), t), after
        # about 0.1 ms of dispatch per coordinate
        return tuple(sp.Derivative(qi, t) for qi in self._q)

    @cached_property
    def qdd(self) -> tuple[sp.Expr, ...]:
        """The accelerations q̈(t).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().qdd[0]
        Derivative(a(t), (t, 2))
        """
        return tuple(sp.diff(qi, t, 2) for qi in self._q)

    @cached_property
    def tau(self) -> tuple[sp.Symbol, ...]:
        """Symbols τ for the actuation, named after the coordinates (``tau_q1``, ...).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.two_link_planar().tau
        (tau_q1, tau_q2)
        """
        return tuple(sp.Symbol(f"tau_{qi.func.__name__}", real=True) for qi in self._q)

    @property
    def L(self) -> sp.Expr:
        """The Lagrangian as given.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.two_link_planar().L.has(ld.zoo.two_link_planar().qd[0])
        True
        """
        return self._L

    def __repr__(self) -> str:
        names = ", ".join(qi.func.__name__ for qi in self._q)
        return f"LagrangianSystem(n={self.n}, q=({names}))"

    # ------------------------------------------------------------------ input checks
    def _validate_forces(self, forces: Sequence[sp.Expr] | None) -> sp.ImmutableMatrix | None:
        if forces is None:
            return None
        if isinstance(forces, (str, bytes)):
            raise LagdynError("forces must be a sequence of sympy expressions, got a string")
        items = list(forces)
        if len(items) != self.n:
            raise ShapeError(
                f"forces has {len(items)} entries, expected one per coordinate ({self.n})"
            )
        exprs = [_as_expr(f, f"forces[{i}]") for i, f in enumerate(items)]
        for i, f in enumerate(exprs):
            _check_dependencies(f, self._q, f"forces[{i}]", allow_t=True)
        return sp.ImmutableMatrix(self.n, 1, exprs)

    def _split_lagrangian(self) -> tuple[sp.ImmutableMatrix, sp.Expr]:
        """M = ∂²L/∂q̇², b = ∂L/∂q̇ at q̇ = 0, V = −L at q̇ = 0, in q(t), q̇(t).

        Differentiation runs in symengine on plain symbols; the symbol table maps b and V
        straight back to the dynamic objects. M stays in symengine (``_M_se``): when it
        is a trigonometric polynomial its canonical dictionaries are formed there
        (``_mass_polys``) and the sympy matrix ``_M_dyn`` is only built on demand; else
        (and when symengine cannot hold L) ``_M_dyn`` is set here.
        """
        n = self.n
        Ls = _convert.plain_symengine(self._L, self._fwd)
        vset = set(self._vs)
        if Ls is not None:
            sv = [se.Symbol(v.name) for v in self._vs]
            grads = [Ls.diff(v) for v in sv]
            entries = {(i, j): grads[i].diff(sv[j]) for i in range(n) for j in range(i, n)}
            # one walk of L for its functions and numbers: read here (smoothness) and by
            # encode_symengine (trig atoms, rational numbers)
            atoms = Ls.atoms(se.Function, se.Number)
            if not _smooth_se(Ls, atoms) and any(
                _unevaluated(e) for e in (*grads, *entries.values())
            ):
                Ls = None  # symengine left a derivative (max, min, ...): sympy differentiates
        if Ls is not None:
            szero = {v: 0 for v in sv}
            names = {v.name for v in self._vs}
            free: set[Any] = set()  # the entries' symbols, for encode_symengine
            for (i, j), e in entries.items():
                symbols = e.free_symbols
                bad = sorted(x.name for x in symbols if x.name in names)
                if bad:
                    self._not_quadratic(i, j, self._symtab.to_sympy(e), bad)
                free |= symbols
            self._M_se = entries
            self._M_se_free = free
            conv = self._symtab.to_sympy
            b = [conv(gr.subs(szero)) for gr in grads]
            V = conv(-Ls.subs(szero))
            import lagdyn.trig.laurent as _laurent

            plain_q = [se.Symbol(s.name) for s in self._qs]
            self._mass_polys = _laurent.encode_symengine(
                entries, self._q, plain_q, conv, source=Ls, source_atoms=atoms, free=free
            )
            if self._mass_polys is None:
                self._M_dyn = self._M_from_symengine()
            return sp.ImmutableMatrix(n, 1, b), sp.sympify(V)
        else:  # objects symengine cannot hold: plain sympy differentiation
            Lp = _convert.to_plain(self._L, self._fwd)
            zero_v = {v: sp.S.Zero for v in self._vs}
            grads_sp = [sp.sympify(sp.diff(Lp, v)) for v in self._vs]
            m_plain = {
                (i, j): sp.sympify(sp.diff(grads_sp[i], self._vs[j]))
                for i in range(n)
                for j in range(i, n)
            }
            for (i, j), e in m_plain.items():
                bad = sorted(x.name for x in e.free_symbols & vset)
                if bad:
                    self._not_quadratic(i, j, e.xreplace(self._bwd), bad)
            m_dyn = {k: e.xreplace(self._bwd) for k, e in m_plain.items()}
            b = [gr.xreplace(zero_v).xreplace(self._bwd) for gr in grads_sp]
            V = (-Lp.xreplace(zero_v)).xreplace(self._bwd)
        self._M_dyn = sp.ImmutableMatrix(n, n, lambda i, j: m_dyn[min(i, j), max(i, j)])
        return sp.ImmutableMatrix(n, 1, b), sp.sympify(V)

    def _M_from_symengine(self) -> sp.ImmutableMatrix:
        conv = self._symtab.to_sympy
        m_dyn = {k: conv(e) for k, e in self._M_se.items()}
        n = self.n
        return sp.ImmutableMatrix(
            n, n, [m_dyn[(i, j) if i <= j else (j, i)] for i in range(n) for j in range(n)]
        )

    @cached_property
    def _M_dyn(self) -> sp.ImmutableMatrix:
        """M in q(t) as sympy, converted from symengine on first use (set directly by
        the constructors that have it in sympy already)."""
        return self._M_from_symengine()

    def _not_quadratic(self, i: int, j: int, entry: sp.Expr, bad: list[str]) -> None:
        by_name = {v.name: self._bwd[v] for v in self._vs}
        rates = ", ".join(str(by_name[b]) for b in bad)
        raise NotQuadraticError(
            f"L is not quadratic in the velocities: ∂²L/∂q̇{i + 1}∂q̇{j + 1} = "
            f"{entry} depends on {rates}"
        )

    def _plain_symengine_M(self) -> dict[tuple[int, int], Any]:
        """M's upper triangle in symengine on the plain symbols: converted as it is (q(t)
        become symengine functions) and substituted there, which is much faster than a
        sympy ``xreplace`` per entry; sympy's route for objects symengine cannot hold."""
        n = self.n
        try:
            funcs = {se.sympify(qi): se.Symbol(s.name) for qi, s in zip(self._q, self._qs)}
            out = {}
            for i in range(n):
                for j in range(i, n):
                    e = se.sympify(self._M_dyn[i, j]).xreplace(funcs)
                    if any(not x.is_Symbol for x in e.free_symbols) or e.atoms(se.Derivative):
                        raise ValueError("left a function of t")
                    out[i, j] = e
            return out
        except Exception:  # symengine cannot hold some sympy objects
            return {
                (i, j): se.sympify(self.plain(self._M_dyn[i, j]))
                for i in range(n)
                for j in range(i, n)
            }

    def _check_regular(self) -> None:
        """Reject a singular M: a zero row, or rank deficiency at random points."""
        n = self.n
        m_se = getattr(self, "_M_se", None)
        if m_se is not None:
            zero_rows = [
                i for i in range(n) if all(m_se[min(i, j), max(i, j)] == 0 for j in range(n))
            ]
        else:
            zero_rows = [i for i in range(n) if all(self._M_dyn[i, j] == 0 for j in range(n))]
        if zero_rows:
            names = ", ".join(str(self._q[i]) for i in zero_rows)
            raise SingularMassMatrixError(
                f"the mass matrix is singular: coordinate(s) {names} have no inertia "
                "(L does not contain their rates quadratically)"
            )
        if m_se is None and self._mass_polys is not None:
            import lagdyn.trig.laurent as _laurent

            encoder, polys = self._mass_polys  # M's canonical dictionaries, q as symbols
            m_se = {key: _laurent.symengine_form(encoder, p) for key, p in polys.items()}
        if m_se is None:
            m_se = self._plain_symengine_M()
        free = getattr(self, "_M_se_free", None) if m_se is self.__dict__.get("_M_se") else None
        if free is None:  # (_split_lagrangian collected _M_se's symbols)
            free = set().union(*(e.free_symbols for e in m_se.values()))
        syms = sorted(free, key=str)
        rows = [[m_se[min(i, j), max(i, j)] for j in range(n)] for i in range(n)]
        rank = _validate.rank_at_random_states(rows, syms)
        if rank is not None and rank < n:
            raise SingularMassMatrixError(
                f"the mass matrix is singular (rank {rank} of {n} at random states, decided "
                f"at {_validate.DIGITS} digits): some combination of the coordinates has no "
                "inertia"
            )

    def _check_defined(self) -> None:
        """Reject undefined or non-real M, b, V or Q (division by zero, ``asin(2)``, ...)."""
        n = self.n
        entries: dict[str, sp.Expr] = {}
        if getattr(self, "_M_se", None) is None or self._mass_polys is None:
            # (M encoded from symengine is a polynomial in symbols and cos/sin of the
            # coordinates with rational coefficients: defined and real everywhere)
            for i in range(n):
                for j in range(i, n):
                    entries[f"M[{i + 1}, {j + 1}]"] = self._M_dyn[i, j]
        for i in range(n):
            entries[f"b[{i + 1}]"] = self._b_dyn[i]
        entries["V"] = self._V_dyn
        if self._forces_in is not None:
            for i in range(n):
                entries[f"forces[{i + 1}]"] = self._forces_in[i]
        # checked in q(t) as they are (the zero test takes the coordinates as angles)
        _validate.check_defined(entries, self._q)

    # ------------------------------------------------------------------ derivation
    @cached_property
    @without_gc
    def _fast(self) -> Any:
        """The canonical trig-polynomial derivation, or None when M is not representable."""
        try:
            import lagdyn.trig.derive as _trigpoly
        except ImportError:  # pragma: no cover - the module ships with lagdyn
            return None
        # M is free of the rates: _split_lagrangian and from_mass_matrix refused otherwise
        polys = self._mass_polys
        return _trigpoly.derive(
            None if polys is not None else self._M_dyn,  # (not read when polys are given)
            self._V_dyn,
            self._q,
            self.qd,
            polys=polys,
            rates_checked=True,
        )

    @cached_property
    def _general(self) -> tuple[sp.ImmutableMatrix, tuple[Any, ...], sp.ImmutableMatrix]:
        """General path: (C, christoffel, g) by symengine differentiation and expansion."""
        n = self.n
        conv = self._symtab.to_sympy
        sq = [se.Symbol(s.name) for s in self._qs]
        sv = [se.Symbol(s.name) for s in self._vs]
        Ms = [[se.sympify(self.plain(self._M_dyn[i, j])) for j in range(n)] for i in range(n)]
        dM: dict[tuple[int, int, int], se.Basic] = {}
        for i in range(n):
            for j in range(i, n):
                for k in range(n):
                    dM[i, j, k] = se.expand(Ms[i][j].diff(sq[k]))

        def d(i: int, j: int, k: int) -> se.Basic:
            return dM[min(i, j), max(i, j), k]

        gam = [
            [
                [se.expand((d(i, j, k) + d(i, k, j) - d(j, k, i)) / 2) for k in range(n)]
                for j in range(n)
            ]
            for i in range(n)
        ]
        C = [
            [
                se.expand(sum((gam[i][j][k] * sv[k] for k in range(n)), se.Integer(0)))
                for j in range(n)
            ]
            for i in range(n)
        ]
        V = se.sympify(self.plain(self._V_dyn))
        g = [se.expand(V.diff(s)) for s in sq]
        christ = tuple(tuple(tuple(conv(x) for x in row) for row in plane) for plane in gam)
        return (
            sp.ImmutableMatrix(n, n, [conv(x) for row in C for x in row]),
            christ,
            sp.ImmutableMatrix(n, 1, [conv(x) for x in g]),
        )

    def _dyn(self, m: sp.MatrixBase) -> sp.ImmutableMatrix:
        return _convert.matrix_to_dynamic(m, self._bwd)

    @cached_property
    def derivation_path(self) -> str:
        """``"trigpoly"`` when the canonical fast path derived this system, else ``"general"``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().derivation_path
        'trigpoly'
        """
        return "trigpoly" if self._fast is not None else "general"

    @cached_property
    @without_gc
    def M(self) -> sp.ImmutableMatrix:
        """The mass matrix M(q) = ∂²L/∂q̇², shape (n, n), symmetric.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().M[1, 1]
        l2**2*m2
        """
        fast = self._fast
        if fast is None or self._canonical_mass:
            return self._M_dyn  # kinematics assembled it in the same canonical form
        return fast.M

    @cached_property
    @without_gc
    def christoffel(self) -> tuple[tuple[tuple[sp.Expr, ...], ...], ...]:
        """Christoffel symbols of the first kind, ``christoffel[i][j][k]`` = Γ_ijk.

        Γ_ijk = ½(∂m_ij/∂q_k + ∂m_ik/∂q_j − ∂m_jk/∂q_i), symmetric in j, k.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.two_link_planar().christoffel[0][0][1]
        -l1*lc2*m2*sin(q2(t))
        """
        fast = self._fast
        return fast.christoffel if fast is not None else self._general[1]

    @cached_property
    @without_gc
    def C(self) -> sp.ImmutableMatrix:
        """The Coriolis/centrifugal matrix C(q, q̇) with C_ij = Σ_k Γ_ijk q̇_k.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().C[0, 1]
        l1*l2*m2*sin(a(t) - b(t))*Derivative(b(t), t)
        """
        fast = self._fast
        return fast.C if fast is not None else self._general[0]

    @cached_property
    @without_gc
    def g(self) -> sp.ImmutableMatrix:
        """The gravity (potential force) vector g(q) = ∂V/∂q, shape (n, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().g[1]
        g*l2*m2*sin(b(t))
        """
        fast = self._fast
        return fast.g if fast is not None else self._general[2]

    @cached_property
    @without_gc
    def h(self) -> sp.ImmutableMatrix:
        """The velocity and gravity terms ``C q̇ + G q̇ + g``, shape (n, 1), built directly.

        Equal to ``C * q̇ + G * q̇ + g``; on the trig-polynomial path each coefficient is
        factored where it splits into linear velocity forms, which for serial chains is
        several times smaller than the matrix product.

        Examples
        --------
        >>> import lagdyn as ld
        >>> arm = ld.zoo.two_link_planar()
        >>> arm.h[1]
        g*lc2*m2*cos(q1(t) + q2(t)) + l1*lc2*m2*sin(q2(t))*Derivative(q1(t), t)**2
        """
        fast = self._fast
        qd = sp.Matrix(self.qd)
        gyro = self.G * qd
        if fast is not None:
            return sp.ImmutableMatrix(fast.h + gyro)
        return sp.ImmutableMatrix(self.C * qd + gyro + self.g)

    @cached_property
    def G(self) -> sp.ImmutableMatrix:
        """The gyroscopic matrix G_ij = ∂b_i/∂q_j − ∂b_j/∂q_i (skew; zero for natural systems).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().G
        Matrix([
        [0, 0],
        [0, 0]])
        """
        n = self.n
        b = [self.plain(x) for x in self._b_dyn]
        if all(x == 0 for x in b):
            return sp.ImmutableMatrix.zeros(n, n)
        db = [[sp.diff(b[i], self._qs[j]) for j in range(n)] for i in range(n)]
        G = sp.ImmutableMatrix(n, n, lambda i, j: sp.expand(db[i][j] - db[j][i]))
        return self._dyn(G)

    @cached_property
    def b(self) -> sp.ImmutableMatrix:
        """The velocity-linear part b(q) of L = ½q̇ᵀMq̇ + bᵀq̇ − V, shape (n, 1).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().b.T
        Matrix([[0, 0]])
        """
        return self._b_dyn

    @cached_property
    def forces(self) -> sp.ImmutableMatrix:
        """The non-conservative generalized forces Q(q, q̇, t), shape (n, 1) (zeros if none).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().forces.T
        Matrix([[0, 0]])
        """
        if self._forces_in is None:
            return sp.ImmutableMatrix.zeros(self.n, 1)
        return self._forces_in

    @cached_property
    def T(self) -> sp.Expr:
        """The kinetic energy ½ q̇ᵀ M q̇ (the quadratic part of L).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.two_link_planar().T.has(ld.zoo.two_link_planar().qd[1])
        True
        """
        v = sp.Matrix(self.qd)
        return (v.T * self.M * v)[0, 0] / 2  # the canonical M: no sin² + cos² left over

    @cached_property
    def U(self) -> sp.Expr:
        """The potential V(q) = −L at q̇ = 0.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum(coordinates="relative").U.has(ld.t)
        True
        """
        return self._V_dyn

    @cached_property
    def energy(self) -> sp.Expr:
        """The energy function E = q̇ᵀ ∂L/∂q̇ − L = ½ q̇ᵀ M q̇ + V (conserved when τ = Q = 0).

        Examples
        --------
        >>> import lagdyn as ld
        >>> import sympy as sp
        >>> dp = ld.zoo.double_pendulum()
        >>> sp.expand(dp.energy - dp.T - dp.U)
        0
        """
        return self.T + self.U

    @cached_property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """Every free symbol other than ``t`` (masses, lengths, ...), sorted by name.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().parameters
        (g, l1, l2, m1, m2)
        """
        free: set[sp.Symbol] = set()
        for e in (self._L, *self.forces):
            free |= e.free_symbols
        free.discard(t)
        return tuple(sorted(free, key=lambda s: s.name))

    # ------------------------------------------------------------------ equations
    def equations(self, tau: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
        """The equations of motion as a residual, zero along motions.

        Returns ``M q̈ + C q̇ + G q̇ + g − τ − Q``, shape (n, 1).

        Parameters
        ----------
        tau : sequence of sympy.Expr, optional
            The actuation, one entry per coordinate; default the symbols :attr:`tau`.
            Pass ``[0] * n`` for free motion.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.two_link_planar()
        >>> sys.equations([0, 0]).shape
        (2, 1)
        """
        if tau is None:
            tau_m = sp.ImmutableMatrix(self.tau)
        else:
            if isinstance(tau, (str, bytes)):
                raise LagdynError("tau must be a sequence of sympy expressions, got a string")
            items = [_as_expr(x, "tau entry") for x in tau]
            if len(items) != self.n:
                raise ShapeError(f"tau has {len(items)} entries, expected {self.n}")
            tau_m = sp.ImmutableMatrix(items)
        lhs = self.M * sp.ImmutableMatrix(self.qdd) + self.h  # h = C q̇ + G q̇ + g, factored
        return sp.ImmutableMatrix(lhs - tau_m - self.forces)

    # ------------------------------------------------------------------ delegates
    @without_gc
    def is_skew_symmetric(self, C: sp.MatrixBase | None = None) -> bool | None:
        """Exact proof that Ṁ − 2C is skew (see :func:`lagdyn.structure.is_skew_symmetric`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().is_skew_symmetric()
        True
        """
        from .structure import is_skew_symmetric

        return is_skew_symmetric(self, C)

    def is_positive_definite(self) -> bool | None:
        """Whether M ≻ 0: True, False, or None when undecidable (see :mod:`lagdyn.structure`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().is_positive_definite()
        True
        """
        from .structure import positive_definite

        return positive_definite(self)

    def is_passive(self) -> bool | None:
        """Exact proof of dE/dt = q̇ᵀ(τ + Q) along the equations (see :mod:`lagdyn.structure`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.two_link_planar().is_passive()
        True
        """
        from .structure import is_passive

        return is_passive(self)

    def change_coordinates(
        self, new_q: Sequence[sp.Expr], mapping: Mapping[sp.Expr, Any]
    ) -> LagrangianSystem:
        """The same system in new coordinates, ``q = φ(u)``.

        See :func:`lagdyn.coordchange.change_coordinates`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> a, b = ld.coordinates("a b")
        >>> u1, u2 = ld.coordinates("u1 u2")
        >>> rel = ld.zoo.double_pendulum().change_coordinates([u1, u2], {a: u1, b: u1 + u2})
        >>> rel.M[1, 1]
        l2**2*m2
        """
        from .coordchange import change_coordinates

        return change_coordinates(self, new_q, mapping)

    def latex(self, **options: Any) -> str:
        """LaTeX of M, C, g and the equations (see :func:`lagdyn.export.latex`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> "bmatrix" in ld.zoo.two_link_planar().latex()
        True
        """
        from .export import latex

        return latex(self, **options)

    def lambdify(
        self, params: Mapping[sp.Symbol, float] | None = None, **options: Any
    ) -> NumericModel:
        """Fast numeric functions of this system (see :func:`lagdyn.numeric.lambdify`).

        Options (``backend=``, ``route=``, ``cache=`` …) are those of
        :func:`lagdyn.numeric.lambdify`; ``route="recursive"`` exists for robot chains
        (:mod:`lagdyn.recursive.route`), every system has ``route="closed"``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> num = sys.lambdify(sys.defaults)
        >>> num.M([0.0, 0.0]).shape
        (2, 2)
        """
        from .numeric import lambdify

        return lambdify(self, params, **options)

    def linearize(
        self,
        q0: Any,
        qd0: Any = None,
        tau0: Any = None,
        params: Mapping[Any, Any] | None = None,
        **options: Any,
    ) -> tuple[Any, Any]:
        """A, B of ẋ ≈ A δx + B δτ at x0 = (q0, q̇0) (see :func:`lagdyn.control.linearize`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> A, B = cp.linearize([0, 0], params=cp.defaults)
        >>> A.shape, B.shape
        ((4, 4), (4, 2))
        """
        from .control import linearize

        return linearize(self, q0, qd0, tau0, params, **options)

    def to_casadi(self, params: Mapping[Any, float] | None = None, **options: Any) -> Any:
        """CasADi Functions of M, h, the dynamics, energy and regressor (see
        :func:`lagdyn.numeric.casadi.to_casadi`; needs ``pip install 'lagdyn[casadi]'``).

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> cp.to_casadi(cp.defaults).forward_dynamics.name_in()
        ['q', 'qd', 'tau']
        """
        import lagdyn.numeric.casadi as casadi_model

        from .identification.casadi import CasadiRegressor

        source = CasadiRegressor(options.pop("regressor_params", None))
        return casadi_model.to_casadi(self, params, regressor=source, **options)

    def to_drake(self, params: Mapping[Any, float] | None = None, **options: Any) -> Any:
        """This system as a Drake ``LeafSystem`` with state (q, q̇), input ``tau`` and outputs
        ``state`` and ``energy`` (see :func:`lagdyn.drake.to_drake`; needs
        ``pip install 'lagdyn[drake]'``).

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> cp.to_drake(inputs=["x"]).get_input_port(0).size()
        1
        """
        from .drake import to_drake

        return to_drake(self, params, **options)

    def plain(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` with q(t), q̇(t) replaced by the plain symbols used internally.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.plain(dp.qd[0] * dp.q[1])
        _ldq1*_ldv0
        """
        return _convert.to_plain(expr, self._fwd)

    @property
    def plain_symbols(self) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
        """The plain symbols standing for (q, q̇) in :meth:`plain` expressions.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.double_pendulum().plain_symbols
        ((_ldq0, _ldq1), (_ldv0, _ldv1))
        """
        return self._qs, self._vs

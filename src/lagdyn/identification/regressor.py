r"""The regressor: the equations of motion written linearly in chosen parameters.

When the left-hand side of the equations of motion

.. math:: M(q)\ddot q + C(q,\dot q)\dot q + G(q)\dot q + g(q) - Q(q,\dot q) = \tau

is linear in parameters :math:`\pi` (masses, first moments m·c, inertias about the
joints, products such as :math:`m_2 l_{c2}^2`), it factors exactly as
:math:`\tau = Y(q, \dot q, \ddot q)\,\pi`. :func:`regressor` finds Y symbolically:

1. Every symbol that occurs in ``params`` is an *identification symbol*; every other
   parameter (``g``, a known length) is a constant and stays inside Y.
2. The left-hand side is expanded; each term splits into a monomial in the
   identification symbols times a coefficient. Terms without any identification symbol,
   or with a symbol inside a function or a denominator, make the equations non-linear in
   ``params``: a :class:`~lagdyn.LagdynError` names the term and suggests the products to
   use instead (:func:`linear_parameters` lists them).
3. Each parameter is a linear combination of such monomials (``m2*lc2**2``, or a sum
   such as seed 001's α = I1 + I2 + m1 lc1² + m2 (l1² + lc2²)); Y solves
   ``Y P = Y_s`` exactly, where ``Y_s`` is the regressor of the monomials and ``P`` the
   coefficients of ``params`` in them, and the solution is verified exactly.

:func:`regressor_function` generates batched numerics for Y through
:func:`lagdyn.numeric.lambdify_expressions` (q̈ enters as per-call values).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from ..codegen.build import check_route
from ..errors import LagdynError, ShapeError, UnboundParameterError
from ..recursive.chain import chain_of
from ._split import _accel_symbols, _dynamic, _equation_tables, _monomial_table

if TYPE_CHECKING:  # pragma: no cover
    # duck-typed: system.py reaches this package (to_casadi), so no import of lagdyn.system
    from typing import Any as LagrangianSystem

__all__ = ["RegressorFunction", "linear_parameters", "regressor", "regressor_function"]


# ---------------------------------------------------------------------------- helpers
def _resolve(system: LagrangianSystem, params: Any) -> tuple[sp.Expr, ...]:
    """Parameters as sympy expressions: names become the system's own symbols."""
    if isinstance(params, (str, sp.Basic)):
        params = [params]
    try:
        items = list(params)
    except TypeError:
        raise LagdynError(
            f"params must be a sequence of symbols, names or expressions, "
            f"got {type(params).__name__}"
        ) from None
    if not items:
        raise LagdynError("params is empty: name at least one parameter")
    by_name = {s.name: s for s in system.parameters}
    out: list[sp.Expr] = []
    problems: list[str] = []
    for item in items:
        if isinstance(item, str):
            if item not in by_name:
                problems.append(
                    f"{item!r} is not a parameter of the system "
                    f"(parameters: {', '.join(by_name) or 'none'})"
                )
                continue
            out.append(by_name[item])
        elif isinstance(item, sp.Expr):
            unknown = sorted(str(s) for s in item.free_symbols if s not in system.parameters)
            if unknown:
                problems.append(
                    f"{item} contains {', '.join(unknown)}, not parameters of the system"
                )
                continue
            if not item.free_symbols:
                problems.append(f"{item} is a number, not a parameter")
                continue
            out.append(item)
        else:
            problems.append(f"{item!r} is neither a symbol, a name nor an expression")
    dups = sorted({str(p) for p in out if out.count(p) > 1})
    if dups:
        problems.append(f"duplicated parameter(s) {', '.join(dups)}")
    if problems:
        raise LagdynError("invalid params: " + "; ".join(problems))
    return tuple(out)


def _lhs_plain(system: LagrangianSystem) -> tuple[list[sp.Expr], tuple[sp.Symbol, ...]]:
    """``M q̈ + h − Q`` in plain symbols (q, q̇ internal symbols, q̈ from :func:`_accel_symbols`)."""
    n = system.n
    acc = _accel_symbols(n)
    M = system.M
    h = system.h
    Q = system.forces
    rows = []
    for i in range(n):
        e = sum((system.plain(M[i, j]) * acc[j] for j in range(n)), sp.Integer(0))
        rows.append(e + system.plain(h[i]) - system.plain(Q[i]))
    return rows, acc


def _sort_monomials(monos: set[sp.Expr]) -> list[sp.Expr]:
    """Monomials by degree, then by name (m before m*c before m*c**2)."""

    def degree(m: sp.Expr) -> int:
        return int(sum(m.as_powers_dict().values())) if m.free_symbols else 0

    return sorted(monos, key=lambda m: (degree(m), sp.default_sort_key(m)))


def linear_parameters(system: LagrangianSystem, symbols: Any) -> tuple[sp.Expr, ...]:
    r"""The monomials in ``symbols`` in which the equations of motion are linear.

    The left-hand side :math:`M\ddot q + C\dot q + G\dot q + g - Q` is expanded and every
    product of powers of ``symbols`` that multiplies a term is collected (other symbols,
    such as ``g``, are constants). These monomials are a parameter set for which
    :func:`regressor` always succeeds — the "standard" parameters before reduction to
    base parameters.

    Parameters
    ----------
    system : LagrangianSystem
    symbols : sequence of sympy.Symbol or str
        The unknown physical parameters.

    Returns
    -------
    tuple of sympy.Expr
        Sorted by degree, then name.

    Raises
    ------
    LagdynError
        A name that is not a parameter; a term containing none of ``symbols``; a symbol
        inside a function (``sin(k q)``) or a denominator.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> ld.identification.linear_parameters(dp, ["m1", "m2", "l1", "l2"])
    (l1*m1, l1*m2, l2*m2, l1**2*m1, l1**2*m2, l2**2*m2, l1*l2*m2)
    """
    syms = _resolve(system, symbols)
    bad = [s for s in syms if not isinstance(s, sp.Symbol)]
    if bad:
        raise LagdynError(
            f"symbols must be parameters, not expressions: {', '.join(map(str, bad))}"
        )
    rows, _ = _lhs_plain(system)
    idsyms = frozenset(syms)
    tables = _equation_tables(system, rows, idsyms, syms, coefficients=False)
    monos = set().union(*tables)
    if sp.Integer(1) in monos:
        tables = _equation_tables(system, rows, idsyms, syms)
        _raise_missing(system, syms, tables, {sp.Integer(1)})
    return tuple(_sort_monomials(monos))


@dataclass(frozen=True)
class _Regressor:
    """The plain-symbol regressor and what it was built from (shared with base parameters)."""

    params: tuple[sp.Expr, ...]
    idsyms: frozenset[sp.Symbol]
    Y: sp.ImmutableMatrix  # plain symbols (q, q̇, q̈)
    acc: tuple[sp.Symbol, ...]


_BUILT: weakref.WeakKeyDictionary[Any, dict[Any, _Regressor]] = weakref.WeakKeyDictionary()


def _use_recursive(system: LagrangianSystem, pr: tuple[sp.Expr, ...], route: str | None) -> bool:
    """Whether the regressor of ``pr`` takes the recursive route of a robot chain.

    ``route=None`` takes it whenever ``system`` is a chain and ``pr`` a standard parameter
    set of it (:func:`lagdyn.recursive.regressor.is_standard`).
    """
    check_route(route)
    if route == "closed":
        return False
    ok = False
    if chain_of(system) is not None:
        from ..recursive.regressor import is_standard

        ok = is_standard(system, pr)
    if route == "recursive" and not ok:
        raise LagdynError(
            "route='recursive' needs a robot chain and a standard parameter set of it "
            "(its inertial, armature and friction symbols; see "
            "ld.robot.regressor.standard_parameters_of)"
        )
    return ok


def _build(system: LagrangianSystem, params: Any, route: str | None = None) -> _Regressor:
    """The regressor in plain symbols (memoised per system, parameter tuple and route)."""
    pr = _resolve(system, params)
    recursive = _use_recursive(system, pr, route)
    per = _BUILT.setdefault(system, {})
    key = (pr, recursive)
    if key not in per:
        per[key] = _build_recursive(system, pr) if recursive else _build_new(system, pr)
    return per[key]


def _build_recursive(system: LagrangianSystem, pr: tuple[sp.Expr, ...]) -> _Regressor:
    """The regressor of a chain's standard parameters: the recursive program, inlined."""
    from ..recursive.program import input_symbols
    from ..recursive.regressor import regressor_program

    n = system.n
    acc = _accel_symbols(n)
    prog = regressor_program(system, pr)
    ins = input_symbols(n)
    Y = prog.inline().xreplace(dict(zip(ins["qdd"], acc)))
    idsyms = frozenset(s for p in pr for s in p.free_symbols)
    return _Regressor(pr, idsyms, sp.ImmutableMatrix(Y), acc)


def _build_new(system: LagrangianSystem, pr: tuple[sp.Expr, ...]) -> _Regressor:
    """The regressor in plain symbols, with exact verification of τ = Y π."""
    idsyms = frozenset(s for p in pr for s in p.free_symbols)
    rows, acc = _lhs_plain(system)
    tables = _equation_tables(system, rows, idsyms, pr)
    n, k = system.n, len(pr)
    ptab = _monomial_table(pr, idsyms, "parameter")
    for j, tab in enumerate(ptab):
        if sp.Integer(1) in tab:
            raise LagdynError(
                f"parameter {pr[j]} has a term without identification symbols "
                f"({tab[sp.Integer(1)]}); parameters must be sums of products of symbols"
            )
    simple = all(len(tab) == 1 and next(iter(tab.values())) == 1 for tab in ptab)
    used = set().union(*tables)
    if simple:
        col = {next(iter(tab)): j for j, tab in enumerate(ptab)}
        missing = used - set(col)
        if missing:
            _raise_missing(system, pr, tables, missing)
        Y = sp.ImmutableMatrix(n, k, lambda i, j: tables[i].get(next(iter(ptab[j])), sp.Integer(0)))
        return _Regressor(pr, idsyms, Y, acc)
    monos = _sort_monomials(used | set().union(*ptab))
    Ys = sp.Matrix(n, len(monos), lambda i, j: tables[i].get(monos[j], sp.Integer(0)))
    P = sp.Matrix(k, len(monos), lambda i, j: ptab[i].get(monos[j], sp.Integer(0)))
    if P.rank() < k:
        raise LagdynError(f"the parameters {', '.join(map(str, pr))} are linearly dependent")
    R = P.T * (P * P.T).inv()
    R = R.applyfunc(sp.cancel)
    D = (sp.eye(len(monos)) - R * P).applyfunc(sp.cancel)
    residual = Ys * D
    bad_cols = sorted(
        {j for i in range(n) for j in range(len(monos)) if sp.expand(residual[i, j]) != 0}
    )
    if bad_cols:
        missing = {monos[j] for j in bad_cols if any(tables[i].get(monos[j]) for i in range(n))}
        _raise_missing(system, pr, tables, missing or {monos[j] for j in bad_cols})
    Y = sp.ImmutableMatrix((Ys * R).applyfunc(sp.expand))
    return _Regressor(pr, idsyms, Y, acc)


def _raise_missing(
    system: LagrangianSystem,
    pr: Sequence[sp.Expr],
    tables: Sequence[Mapping[sp.Expr, sp.Expr]],
    missing: set[sp.Expr],
) -> None:
    """Name the term whose monomial the parameters cannot express; suggest products."""
    names = ", ".join(map(str, pr))
    products = _sort_monomials(set(missing) - {sp.Integer(1)})
    allm = _sort_monomials(set().union(*tables) - {sp.Integer(1)})
    free_note = ""
    if sp.Integer(1) in missing:
        row = next(i for i, tab in enumerate(tables) if sp.Integer(1) in tab)
        term = _dynamic(
            system, sorted(sp.Add.make_args(tables[row][sp.Integer(1)]), key=sp.count_ops)[-1]
        )
        others = sorted(str(s) for s in term.free_symbols if s in system.parameters)
        free_note = f"in equation {row + 1}, the term {term} contains none of them" + (
            f" (add the symbols {', '.join(others)})" if others else " (a known force)"
        )
    if products:
        first = products[-1]
        row = next(i for i, tab in enumerate(tables) if first in tab)
        term = _dynamic(system, sp.factor_terms(tables[row][first]) * first)
        msg = (
            f"the equations are not linear in the parameters {names}: in equation "
            f"{row + 1}, the term {term} contains the product {first}, which no parameter "
            f"(or linear combination) provides; use the products as parameters, "
            f"e.g. params=[{', '.join(map(str, allm))}] (ld.identification.linear_parameters)"
        )
        if free_note:
            msg += "; also " + free_note
        raise LagdynError(msg)
    raise LagdynError(f"the equations are not linear in the parameters {names}: {free_note}")


def regressor(
    system: LagrangianSystem, params: Any, *, route: str | None = None
) -> sp.ImmutableMatrix:
    r"""The regressor Y(q, q̇, q̈) with τ = Y π exactly, shape (n, len(params)).

    Parameters
    ----------
    system : LagrangianSystem
    params : sequence of sympy.Symbol, str or sympy.Expr
        The parameters π: symbols or their names, products of powers of symbols
        (``m2*lc2**2``) or linear combinations of such products (seed 001's α). Every
        symbol they contain is unknown; the other parameters of the system stay in Y.
    route : {None, "recursive", "closed"}
        For robot chains (:mod:`lagdyn.robot`) with their standard parameters (the ten
        barycentric symbols per link, armature and friction symbols),
        ``"recursive"`` inlines the recursive regressor program of
        :func:`lagdyn.recursive.regressor.regressor_program`; ``"closed"`` splits the closed-form
        equations. ``None`` (default) takes ``"recursive"`` whenever it applies.

    Returns
    -------
    sympy.ImmutableMatrix, shape (n, len(params))
        In q(t), q̇(t), q̈(t) and the remaining (known) parameters.

    Raises
    ------
    LagdynError
        The equations are not linear in ``params``: the message names the offending term
        and the product it contains, and suggests a parameter set that works; unknown or
        duplicated parameters; linearly dependent parameters.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> params = ld.identification.linear_parameters(dp, ["m1", "m2"])
    >>> params
    (m1, m2)
    >>> Y = ld.regressor(dp, params)
    >>> sp.expand(Y * sp.Matrix(params) - dp.equations([0, 0])) == sp.zeros(2, 1)
    True
    >>> try:
    ...     ld.regressor(dp, ["m2", "l2"])
    ... except ld.LagdynError as exc:
    ...     print(str(exc)[:60])
    the equations are not linear in the parameters m2, l2: in eq
    """
    built = _build(system, params, route)
    return _matrix_dynamic(system, built.Y)


def _matrix_dynamic(system: LagrangianSystem, m: sp.MatrixBase) -> sp.ImmutableMatrix:
    return sp.ImmutableMatrix(m.rows, m.cols, [_dynamic(system, e) for e in m])


class RegressorFunction:
    r"""Batched numeric regressor ``Y(q, qd, qdd) -> (..., n, p)`` (:func:`regressor_function`).

    Attributes
    ----------
    params : tuple of sympy.Expr
        The parameters, one per column.
    n : int
        Degrees of freedom.
    model : ExpressionModel
        The generated kernels (``model.source`` is the generated code).

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> params = ld.identification.linear_parameters(arm, ["m1", "m2", "lc1", "lc2", "I1", "I2"])
    >>> params[:2]
    (I1, I2)
    >>> Yf = ld.identification.regressor_function(arm, params, arm.defaults)
    >>> Yf(np.zeros(2), np.zeros(2), np.array([1.0, 0.0]))[:, :2]
    array([[1., 1.],
           [0., 1.]])
    """

    def __init__(self, params: tuple[sp.Expr, ...], n: int, model: Any) -> None:
        self.params = params
        self.n = n
        self.model = model

    def __call__(self, q: Any, qd: Any, qdd: Any, t: Any = 0.0) -> np.ndarray:
        """Y at states ``q, qd, qdd`` of shape ``(..., n)``: an array ``(..., n, p)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> arm = ld.zoo.two_link_planar()
        >>> unknown = ["m1", "m2", "lc1", "lc2", "I1", "I2"]
        >>> params = ld.identification.linear_parameters(arm, unknown)
        >>> Yf = ld.identification.regressor_function(arm, params, arm.defaults)
        >>> Yf(np.zeros((5, 2)), np.zeros((5, 2)), np.ones((5, 2))).shape
        (5, 2, 7)
        """
        q = np.asarray(q, dtype=float)
        qd = np.asarray(qd, dtype=float)
        qdd = np.asarray(qdd, dtype=float)
        for name, a in (("q", q), ("qd", qd), ("qdd", qdd)):
            if a.ndim == 0 or a.shape[-1] != self.n:
                raise ShapeError(f"{name} must have shape (..., {self.n}), got {a.shape}")
        shape = np.broadcast_shapes(q.shape, qd.shape, qdd.shape)
        q, qd, qdd = (np.broadcast_to(a, shape) for a in (q, qd, qdd))
        out = self.model.Y(q, qd, params=qdd, t=t)
        return np.asarray(out).reshape((*shape[:-1], self.n, len(self.params)))

    def __repr__(self) -> str:
        return f"RegressorFunction(n={self.n}, params=({', '.join(map(str, self.params))}))"


def regressor_function(
    system: LagrangianSystem,
    params: Any,
    values: Mapping[Any, float] | None = None,
    *,
    Y: sp.MatrixBase | None = None,
    backend: str = "numpy",
    route: str | None = None,
    **options: Any,
) -> RegressorFunction:
    """Generated, batched numerics for the regressor of :func:`regressor`.

    Parameters
    ----------
    system : LagrangianSystem
    params : sequence of sympy.Symbol, str or sympy.Expr
        As for :func:`regressor`.
    values : mapping of sympy.Symbol (or name) to float
        Values of the known parameters (those not in ``params``); the values of the
        identification symbols are ignored (Y does not contain them), so
        ``system.defaults`` can be passed as is.
    Y : sympy.Matrix, optional
        A regressor already computed for ``params`` (e.g. the base regressor ``Y_b``);
        default :func:`regressor`.
    backend : {"numpy", "c", "numba", "jax"}
    route : {None, "recursive", "closed"}
        For robot chains with their standard parameters, ``"recursive"`` generates the
        recursive program of :func:`lagdyn.recursive.regressor.regressor_program` (no closed
        form is derived; the default whenever it applies and ``Y`` is not given).
    **options
        Passed to :func:`lagdyn.numeric.lambdify_expressions` (backend options).

    Returns
    -------
    RegressorFunction

    Raises
    ------
    UnboundParameterError
        A known parameter without a value.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> Yf = ld.identification.regressor_function(dp, ["m1", "m2"], dp.defaults)
    >>> Yf(np.zeros((3, 2)), np.zeros((3, 2)), np.ones((3, 2))).shape
    (3, 2, 2)
    """
    from ..numeric import lambdify_expressions

    pr = _resolve(system, params)
    acc = _accel_symbols(system.n)
    if Y is None and _use_recursive(system, pr, route):
        return _recursive_function(system, pr, values, backend, options)
    if Y is None:
        Ym = sp.Matrix(_build(system, pr, route).Y)
    else:  # dynamic q̈(t) first: to_plain would otherwise rewrite the q(t) inside it
        qdd_dyn = {system.qdd[i]: acc[i] for i in range(system.n)}
        Ym = sp.Matrix(Y).xreplace(qdd_dyn)
        Ym = sp.Matrix(Ym.rows, Ym.cols, [system.plain(e) for e in Ym])
    if Ym.rows != system.n:
        raise ShapeError(f"Y has {Ym.rows} rows, expected {system.n}")
    idsyms = {s for p in pr for s in p.free_symbols}
    given = _given_values(system, values)
    bound = {s: given.get(s, 0.0 if s in idsyms else np.nan) for s in system.parameters}
    missing = [s for s, v in bound.items() if np.isnan(v) and s in Ym.free_symbols]
    if missing:
        raise UnboundParameterError(missing, "regressor_function: values of known parameters")
    bound = {s: (0.0 if np.isnan(v) else v) for s, v in bound.items()}
    # q̈ enters as the only free parameters, in index order (their names sort as indices);
    # the output "qddsum" makes every q̈ a parameter even when Y does not use them all
    holder = sp.Matrix([sum(acc, sp.Integer(0))])
    model = lambdify_expressions(
        system, {"Y": sp.ImmutableMatrix(Ym), "qddsum": holder}, bound, backend=backend, **options
    )
    if tuple(model.free_parameters) != acc:
        extra = ", ".join(str(s) for s in model.free_parameters if s not in acc)
        raise UnboundParameterError(extra.split(", "), "regressor_function")
    return RegressorFunction(pr, system.n, model)


def _given_values(
    system: LagrangianSystem, values: Mapping[Any, float] | None
) -> dict[sp.Symbol, float]:
    """``values`` keyed by the system's parameter symbols (names accepted), as floats."""
    by_name = {s.name: s for s in system.parameters}
    given: dict[sp.Symbol, float] = {}
    for key, v in (values or {}).items():
        s = by_name.get(key) if isinstance(key, str) else key
        if s is None or s not in system.parameters:
            raise LagdynError(f"values names {key}, which is not a parameter of the system")
        given[s] = float(v)
    return given


def _known_values(
    system: LagrangianSystem, pr: tuple[sp.Expr, ...], values: Mapping[Any, float] | None
) -> dict[sp.Symbol, float]:
    """Every parameter bound: known ones from ``values``, identification symbols to 0."""
    idsyms = {s for p in pr for s in p.free_symbols}
    given = _given_values(system, values)
    missing = [s for s in system.parameters if s not in idsyms and s not in given]
    if missing:
        raise UnboundParameterError(missing, "regressor_function: values of known parameters")
    return {s: (0.0 if s in idsyms else given[s]) for s in system.parameters}


def _recursive_function(
    system: LagrangianSystem,
    pr: tuple[sp.Expr, ...],
    values: Mapping[Any, float] | None,
    backend: str,
    options: Mapping[str, Any],
) -> RegressorFunction:
    """The regressor of a robot chain's standard parameters from its recursive program."""
    import lagdyn.numeric.backends as backends

    from ..codegen import Binding, program
    from ..codegen.build import bound_number
    from ..codegen.cache import DiskCache, cache_key
    from ..codegen.ir import code_symbols
    from ..numeric.expressions import ExpressionModel
    from ..recursive.regressor import REGRESSOR_VERSION, regressor_program
    from ..recursive.route import _chain_parts, _clean

    n, p = system.n, len(pr)
    acc = _accel_symbols(n)
    bound = _known_values(system, pr, values)
    # the identification symbols' zeros are placeholders (Y does not contain them)
    binding = Binding((*system.parameters, *acc), bound, check=False)
    be = backends.get(backend)
    opts = dict(options)
    cache = bool(opts.pop("cache", True))
    cache_dir = opts.pop("cache_dir", None)
    parts: dict[str, list[Any]] = dict(_chain_parts(system))
    parts["params"] = list(pr)
    key = cache_key(system, f"robot-regressor-{REGRESSOR_VERSION}", parts, binding.key(), be.name)
    code = {
        "q": code_symbols("q", n),
        "qd": code_symbols("qd", n),
        "qdd": code_symbols("p", n),
    }
    t = sp.Symbol("t", real=True)

    def make() -> Any:
        known = {s: bound_number(v) for s, v in bound.items() if s not in set(pr)}
        prog = regressor_program(system, pr, known, code=code)
        body = [(s, _clean(e)) for s, e in prog.body]
        outs = sp.Matrix(n, p, [_clean(sp.sympify(e)) for e in prog.outputs])
        return program(
            body,
            {"Y": outs},
            {"q": code["q"], "qd": code["qd"], "params": code["qdd"]},
            t=t,
            parameter_names=tuple(s.name for s in acc),
        )

    disk = DiskCache(cache_dir) if cache else None
    kernels = be.build(make, key, disk, **opts)
    model = ExpressionModel(
        system,
        kernels,
        shapes={"Y": (n, p)},
        uses_qd={"Y": True},
        binding=binding,
        backend=be.name,
        key=key,
    )
    return RegressorFunction(pr, n, model)

"""Splitting the equations of motion into monomials of the identification symbols.

Each row of ``M q̈ + h − Q`` is expanded (by ``symengine.expand``; sympy's ``expand`` for
rows symengine cannot hold) and every term split into a monomial in the identification
symbols times a coefficient; a symbol inside a function or a denominator is an error that
names the term.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import sympy as sp

from ..errors import LagdynError

if TYPE_CHECKING:  # pragma: no cover
    # duck-typed: system.py reaches identification through casadi_model
    from typing import Any as LagrangianSystem


def _accel_symbols(n: int) -> tuple[sp.Symbol, ...]:
    """Plain symbols standing for q̈ (zero-padded so that sorting by name keeps the order)."""
    return tuple(sp.Symbol(f"_ldqdd{i:03d}", real=True) for i in range(n))


def _split_term(
    term: sp.Expr, idsyms: frozenset[sp.Symbol]
) -> tuple[sp.Expr | None, sp.Expr, str | None]:
    """``term = coefficient * monomial``; the monomial in ``idsyms`` (None if non-linear).

    Returns (monomial, coefficient, reason) where reason explains a non-polynomial term.
    """
    mono: list[sp.Expr] = []
    coeff: list[sp.Expr] = []
    for f in sp.Mul.make_args(term):
        fs = f.free_symbols & idsyms
        if not fs:
            coeff.append(f)
            continue
        base, exp = f.as_base_exp()
        if isinstance(base, sp.Symbol) and base in idsyms and exp.is_Integer and exp > 0:
            mono.append(f)
            continue
        return None, term, f"{f} is not a positive integer power of a parameter"
    return sp.Mul(*mono), sp.Mul(*coeff), None


def _monomial_table(
    exprs: Sequence[sp.Expr], idsyms: frozenset[sp.Symbol], what: str
) -> list[dict[sp.Expr, sp.Expr]]:
    """Each expression as {monomial: coefficient}; raise on terms that are not linear."""

    def failure(k: int) -> Callable[[sp.Expr, str], LagdynError]:
        return lambda term, reason: LagdynError(
            f"{what} {k + 1} is not linear in the parameters: {reason}"
        )

    return [_term_table(e, idsyms, failure(k)) for k, e in enumerate(exprs)]


def _term_table(
    e: sp.Expr, idsyms: frozenset[sp.Symbol], fail: Callable[[sp.Expr, str], LagdynError]
) -> dict[sp.Expr, sp.Expr]:
    """``e`` expanded by sympy as {monomial of ``idsyms``: coefficient}; ``fail(term,
    reason)`` is raised for a term that is not linear in them."""
    table: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand(e)):
        if term == 0:
            continue
        mono, coeff, reason = _split_term(term, idsyms)
        if mono is None:
            raise fail(term, str(reason))
        table[mono] = table.get(mono, sp.Integer(0)) + coeff
    return table


def _equation_tables(
    system: LagrangianSystem,
    rows: Sequence[sp.Expr],
    idsyms: frozenset[sp.Symbol],
    params: Sequence[sp.Expr],
    coefficients: bool = True,
) -> list[dict[sp.Expr, sp.Expr]]:
    """{monomial: coefficient} per equation (monomial 1 for terms without parameters).

    The rows are expanded by symengine and each term split into a monomial of ``idsyms``
    times a coefficient; sympy's ``expand`` is the fallback for rows symengine cannot hold.
    With ``coefficients=False`` only the monomials are exact (coefficients are 1).
    Raises for a parameter inside a function or a denominator.
    """
    tables: list[dict[sp.Expr, sp.Expr]] = []
    for i, e in enumerate(rows):
        table = _split_symengine(system, e, idsyms, params, i, coefficients)
        if table is None:
            table = _split_sympy(system, e, idsyms, params, i)
        tables.append({k: v for k, v in table.items() if v != 0})
    return tables


def _not_linear(
    system: LagrangianSystem, params: Sequence[sp.Expr], i: int, term: sp.Expr, reason: str
) -> LagdynError:
    names = ", ".join(map(str, params))
    return LagdynError(
        f"the equations are not linear in the parameters {names}: in equation "
        f"{i + 1}, the term {_dynamic(system, term)}: {reason}"
    )


def _split_sympy(
    system: LagrangianSystem,
    e: sp.Expr,
    idsyms: frozenset[sp.Symbol],
    params: Sequence[sp.Expr],
    i: int,
) -> dict[sp.Expr, sp.Expr]:
    return _term_table(e, idsyms, lambda term, reason: _not_linear(system, params, i, term, reason))


def _split_symengine(
    system: LagrangianSystem,
    e: sp.Expr,
    idsyms: frozenset[sp.Symbol],
    params: Sequence[sp.Expr],
    i: int,
    coefficients: bool = True,
) -> dict[sp.Expr, sp.Expr] | None:
    """:func:`_split_sympy` through ``symengine.expand`` (None if symengine cannot hold ``e``)."""
    import symengine as se

    from ..trig.convert import SymbolTable, to_symengine

    ex = to_symengine(e)
    if ex is None:
        return None
    table_syms = SymbolTable.from_symbols(e.free_symbols)
    ids = {se.Symbol(s.name): s for s in idsyms}
    ids_set = frozenset(ids)
    parts: dict[tuple[tuple[str, int], ...], list[Any]] = {}
    expanded = se.expand(ex)
    terms = expanded.args if expanded.is_Add else (expanded,)
    for term in terms:
        if term == 0:
            continue
        factors = term.args if term.is_Mul else (term,)
        mono: list[tuple[str, int]] = []
        coeff: list[Any] = []
        for f in factors:
            if ids_set.isdisjoint(f.free_symbols):
                coeff.append(f)
                continue
            if f in ids_set:
                mono.append((str(f), 1))
                continue
            if f.is_Pow:
                base, exp = f.args
                if base in ids_set and exp.is_Integer and int(exp) > 0:
                    mono.append((str(base), int(exp)))
                    continue
            fs = table_syms.to_sympy(f)
            raise _not_linear(
                system,
                params,
                i,
                table_syms.to_sympy(term),
                f"{fs} is not a positive integer power of a parameter",
            )
        parts.setdefault(tuple(sorted(mono)), []).append(se.Mul(*coeff))
    by_name = {s.name: s for s in idsyms}
    out: dict[sp.Expr, sp.Expr] = {}
    for key, cs in parts.items():
        m = sp.Mul(*(by_name[name] ** k for name, k in key))
        out[m] = table_syms.to_sympy(se.Add(*cs)) if coefficients else sp.Integer(1)
    return out


def _dynamic(system: LagrangianSystem, expr: sp.Expr) -> sp.Expr:
    """Plain symbols (q, q̇, q̈) back to q(t), q̇(t), q̈(t)."""
    qs, vs = system.plain_symbols
    acc = _accel_symbols(system.n)
    back: dict[sp.Expr, sp.Expr] = {}
    for i in range(system.n):
        back[qs[i]] = system.q[i]
        back[vs[i]] = system.qd[i]
        back[acc[i]] = system.qdd[i]
    return sp.sympify(expr).xreplace(back)

"""Private helpers: moving expressions between sympy and symengine, and between
dynamicsymbols q(t), q̇(t) and the plain symbols the derivation works with.

symengine drops sympy's assumptions (``positive=True``) on the way back, so every
conversion back to sympy restores the caller's own Symbol objects by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import symengine as se
import sympy as sp


class SymbolTable:
    """Names → sympy objects, to convert symengine results back without losing anything.

    symengine drops sympy's assumptions (``positive=True``), so symbols are restored by
    name; the plain state symbols ``_ldq{i}``/``_ldv{i}`` can map straight to q(t) and
    q̇(t), so results come back in dynamic form in one pass (no ``xreplace``).
    """

    def __init__(self, by_name: dict[str, sp.Expr]) -> None:
        # the dict is shared, not copied: owners may keep adding names to it
        self._by_name = by_name
        self._memo: dict[se.Basic, sp.Expr] = {}

    @classmethod
    def from_symbols(
        cls, symbols: Iterable[sp.Symbol], extra: Mapping[str, sp.Expr] | None = None
    ) -> SymbolTable:
        """A table of ``symbols`` by name, plus ``extra`` name → object entries."""
        by_name: dict[str, sp.Expr] = {}
        for s in symbols:
            by_name.setdefault(s.name, s)
        by_name.update(extra or {})
        return cls(by_name)

    def to_sympy(self, expr: se.Basic) -> sp.Expr:
        """Convert a symengine expression back to sympy with the original objects."""
        found = self._memo.get(expr)
        if found is not None:
            return found
        if expr.is_Symbol:
            out = self._by_name.get(expr.name)
            if out is None:
                out = sp.Symbol(expr.name)
        elif expr.is_Integer:
            out = sp.Integer(int(expr))
        elif expr.is_Rational:
            out = sp.Rational(int(expr.p), int(expr.q))
        elif expr.is_Add:
            out = sp.Add(*[self.to_sympy(a) for a in expr.args])
        elif expr.is_Mul:
            out = sp.Mul(*[self.to_sympy(a) for a in expr.args])
        elif expr.is_Pow:
            out = sp.Pow(self.to_sympy(expr.args[0]), self.to_sympy(expr.args[1]))
        else:  # functions and other objects: sympy's converter, then restore names
            out = sp.sympify(expr)
            repl = {
                s: self._by_name[s.name]
                for s in out.free_symbols
                if s.name in self._by_name and self._by_name[s.name] is not s
            }
            out = out.xreplace(repl) if repl else out
        self._memo[expr] = out
        return out


def to_symengine(expr: sp.Expr) -> se.Basic | None:
    """Convert to symengine, or ``None`` when symengine cannot represent ``expr``."""
    try:
        return se.sympify(expr)
    except Exception:  # symengine raises assorted errors on unsupported objects
        return None


def state_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """Plain real symbols standing for q and q̇ during the derivation."""
    qs = tuple(sp.Symbol(f"_ldq{i}", real=True) for i in range(n))
    vs = tuple(sp.Symbol(f"_ldv{i}", real=True) for i in range(n))
    return qs, vs


def substitution(
    q: Sequence[sp.Expr], qd: Sequence[sp.Expr], qs: Sequence[sp.Symbol], vs: Sequence[sp.Symbol]
) -> tuple[dict[sp.Expr, sp.Symbol], dict[sp.Symbol, sp.Expr]]:
    """The maps dynamic → plain (rates first) and plain → dynamic."""
    forward: dict[sp.Expr, sp.Symbol] = {}
    for a, b in zip(qd, vs):
        forward[a] = b
    for a, b in zip(q, qs):
        forward[a] = b
    backward: dict[sp.Symbol, sp.Expr] = {b: a for a, b in forward.items()}
    return forward, backward


def to_plain(expr: sp.Expr, forward: Mapping[sp.Expr, sp.Symbol]) -> sp.Expr:
    """Replace q̇(t) then q(t) by plain symbols (rates first, since they contain q)."""
    return sp.sympify(expr).xreplace(dict(forward))


def matrix_to_dynamic(
    m: sp.MatrixBase, backward: Mapping[sp.Symbol, sp.Expr]
) -> sp.ImmutableMatrix:
    """Replace plain symbols by q(t), q̇(t) in every entry."""
    return sp.ImmutableMatrix(m.rows, m.cols, [e.xreplace(dict(backward)) for e in m])

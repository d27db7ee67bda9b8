"""The symengine -> sympy conversion builds sums and products without re-evaluation where
that is sound (lagdyn._convert.canonical_add / canonical_mul): the result must be sympy's
own evaluated object, argument order included."""

from __future__ import annotations

import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lagdyn import _convert
from lagdyn.symbols import t

x, y, z = sp.symbols("x y z")
a = sp.Symbol("a", positive=True)
f = sp.Function("f")(t)
LEAVES = [x, y, z, a, f, f.diff(t), sp.sin(x), sp.cos(x - y), sp.Integer(2), sp.Rational(-3, 4)]


def _evaluated(table: _convert.SymbolTable, expr: se.Basic) -> sp.Expr:
    """The reference: every sum and product through sympy's evaluating constructors."""
    if expr.is_Add:
        return sp.Add(*[_evaluated(table, e) for e in expr.args])
    if expr.is_Mul:
        return sp.Mul(*[_evaluated(table, e) for e in expr.args])
    if expr.is_Pow:
        return sp.Pow(_evaluated(table, expr.args[0]), _evaluated(table, expr.args[1]))
    return table.to_sympy(expr)


exprs = st.recursive(
    st.sampled_from(LEAVES),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=4).map(lambda xs: sp.Add(*xs)),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: sp.Mul(*xs)),
        st.tuples(inner, st.integers(-2, 3)).map(lambda p: p[0] ** p[1]),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs, st.booleans())
def test_fast_sums_and_products_are_sympys_own(expr: sp.Expr, expand: bool) -> None:
    s = se.sympify(expr)
    if expand:
        s = se.expand(s)
    table = _convert.SymbolTable.from_symbols([x, y, z, a, t])
    fast = table.to_sympy(s)
    reference = _evaluated(_convert.SymbolTable.from_symbols([x, y, z, a, t]), s)
    assert fast == reference
    assert fast.func == reference.func and fast.args == reference.args
    assert sp.expand(fast - expr) == 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(exprs, min_size=0, max_size=5))
def test_canonical_constructors_equal_sympys(args: list[sp.Expr]) -> None:
    """On any sympy arguments (nested sums and products, numbers, powers)."""
    for fast, slow in ((_convert.canonical_add, sp.Add), (_convert.canonical_mul, sp.Mul)):
        mine, reference = fast(args), slow(*args)
        assert mine == reference
        assert mine.func == reference.func and mine.args == reference.args

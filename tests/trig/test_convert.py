"""The symengine -> sympy conversion builds sums and products without re-evaluation where
that is sound (lagdyn.trig.convert.canonical_add / canonical_mul): the result must be sympy's
own evaluated object, argument order included."""

from __future__ import annotations

import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lagdyn.symbols import t
from lagdyn.trig import convert as _convert

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


sortable = st.one_of(
    exprs,
    st.sampled_from(
        [
            sp.Float(0.5),
            sp.Float(-2.25),
            sp.pi,
            sp.sqrt(2),
            sp.Function("g")(x, y),
            f.diff(t, 2),
            sp.Symbol("x", positive=True),
            sp.Symbol("x", real=True),
            sp.Tuple(x, 1),
            sp.Integer(7),
            sp.Rational(1, 3),
        ]
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(sortable, min_size=0, max_size=8))
def test_sort_key_orders_like_basic_compare(items: list[sp.Basic]) -> None:
    """sort_args must give sympy's own canonical order (Basic.compare), item by item."""
    from functools import cmp_to_key

    mine = list(items)
    _convert.sort_args(mine)
    reference = sorted(items, key=cmp_to_key(sp.Basic.compare))
    assert [m.compare(r) for m, r in zip(mine, reference)] == [0] * len(items)
    # the key itself, where it applies, agrees with compare on every pair
    for u in items:
        for v in items:
            try:
                ku, kv = _convert.sort_key(u), _convert.sort_key(v)
                order = (ku > kv) - (ku < kv)
            except (_convert.NoKeyError, TypeError):
                continue
            assert order == u.compare(v)


qf = sp.Function("q")(t)
pf = sp.Function("p")(t)
FORWARD = {
    qf.diff(t): sp.Symbol("_v0"),
    pf.diff(t): sp.Symbol("_v1"),
    qf: sp.Symbol("_q0"),
    pf: sp.Symbol("_q1"),
}
dynamic_leaves = st.sampled_from(
    [qf, pf, qf.diff(t), pf.diff(t), x, a, sp.Integer(3), sp.Rational(-1, 2), sp.Float(0.25)]
)
dynamic_exprs = st.recursive(
    dynamic_leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: sp.Add(*xs)),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: sp.Mul(*xs)),
        st.tuples(inner, st.integers(-2, 3)).map(lambda p: p[0] ** p[1]),
        inner.map(sp.cos),
        inner.map(sp.sin),
        inner.map(sp.exp),
        inner.map(sp.sqrt),
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dynamic_exprs)
def test_plain_symengine_equals_the_two_step_conversion(expr: sp.Expr) -> None:
    """One walk to symengine = xreplace to plain symbols, then sympify."""
    reference = _convert.to_symengine(_convert.to_plain(expr, FORWARD))
    assert _convert.plain_symengine(expr, FORWARD) == reference


def test_canonical_add_finds_like_terms_without_building_their_parts() -> None:
    # like terms are recognised by the arguments of their non-numeric parts (issue 25:
    # as_coeff_Mul built a new Mul per term): every shape of a pair must still merge
    w = sp.cos(x)
    for args in (
        [x, 3 * x],
        [2 * x * y, x * y],
        [-x * y * w, x * y * w / 2, z],
        [x * y, 2 * y * x + z],
        [sp.Float(0.5) * x, y],
        [w, -w],
        [x * y, x * z],
    ):
        mine, reference = _convert.canonical_add(args), sp.Add(*args)
        assert mine == reference and mine.args == reference.args

"""Shortcuts of the derivation from a user's Lagrangian (issue 25): each must give what the
route it replaces gives, object for object.

- ``SymbolTable.to_sympy`` builds cos/sin of a converted argument directly, instead of
  sympy's converter followed by the name-restoring ``xreplace``;
- ``system._Walk`` collects in one walk of L what the input checks found in several
  (free symbols, functions of t, numbers, derivatives, explicit t);
- ``laurent.derivative`` with a shared memo of scaled coefficients.
"""

from __future__ import annotations

import pytest
import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn import system as _system
from lagdyn.errors import CoordinateError, LagdynError, NotQuadraticError
from lagdyn.symbols import t
from lagdyn.trig import convert as _convert
from lagdyn.trig import laurent as _laurent
from strategies import random_lagrangians

# coordinates whose sort order differs from the order of their plain names _ldq0, _ldq1, ...
Q = ld.coordinates("b a c10 c2")
FWD, BWD = _convert.substitution(Q, [qi.diff(t) for qi in Q], *_convert.state_symbols(len(Q)))
PHASE = sp.Symbol("phi")


def _table() -> _convert.SymbolTable:
    return _convert.SymbolTable.from_symbols([PHASE], extra={s.name: d for s, d in BWD.items()})


def _old_route(table: _convert.SymbolTable, expr: se.Basic) -> sp.Expr:
    """What ``to_sympy`` did with a function before the shortcut: sympy's converter, then
    the plain names replaced by the caller's objects."""
    out = sp.sympify(expr)
    names = {s: table._by_name[s.name] for s in out.free_symbols if s.name in table._by_name}
    return out.xreplace(names)


angles = st.lists(
    st.tuples(st.integers(0, len(Q)), st.fractions(-3, 3, max_denominator=3)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(angles, st.sampled_from([se.cos, se.sin]), st.integers(-2, 2))
def test_trig_functions_come_back_as_the_old_route_built_them(terms, fn, scale) -> None:
    plain = [se.Symbol(f"_ldq{k}") for k in range(len(Q))] + [se.Symbol("phi")]
    arg = se.Add(*[se.Rational(c.numerator, c.denominator) * plain[k] for k, c in terms])
    expr = scale * fn(arg)
    fast = _table().to_sympy(expr)
    old = _old_route(_table(), expr)
    assert fast == old
    assert fast.func == old.func and fast.args == old.args


def _walk_reference(L: sp.Expr, q: tuple) -> tuple:
    derivs, funcs, explicit_t = _system._scan(L)
    return (
        L.free_symbols,
        L.atoms(sp.core.function.AppliedUndef),
        derivs,
        funcs,
        explicit_t,
        {x for x in L.atoms(sp.Float, sp.Rational) if x != 1},
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_lagrangians(max_n=3))
def test_one_walk_finds_what_the_separate_walks_found(model) -> None:
    walk = _system._Walk.of(model.L, model.q)
    assert walk is not None
    free, undef, derivs, funcs, explicit_t, numbers = _walk_reference(model.L, model.q)
    assert walk.free == free
    assert walk.undef == undef
    assert (walk.derivs, walk.funcs, walk.explicit_t) == (derivs, funcs, explicit_t)
    # (the walk stops at q̇ = Derivative(q, (t, 1)): its count 1 is the only number missed)
    assert {x for x in walk.numbers if x != 1} == numbers


def test_the_walk_declines_what_it_does_not_mirror() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    x = sp.Symbol("x")
    T = q1.diff(t) ** 2 / 2
    f = sp.Function("f")(t)
    for L in (
        T + sp.Integral(x * q1, (x, 0, 1)),  # a bound symbol
        T + sp.Indexed(sp.IndexedBase("k"), 1) * q1,  # free_symbols holds k[1] itself
        T + f,  # a function of t that is not a coordinate
        T + q1.diff(t, 2),  # an acceleration
    ):
        assert _system._Walk.of(L, (q1, q2)) is None
    assert _system._Walk.of(T + sp.cos(q1 - q2) * x, (q1, q2)) is not None


def test_input_errors_are_unchanged_through_the_walk() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    T = (q1.diff(t) ** 2 + q2.diff(t) ** 2) / 2
    with pytest.raises(LagdynError, match="_ldq0"):
        ld.LagrangianSystem(T + sp.Symbol("_ldq0") * q1, [q1, q2])
    with pytest.raises(LagdynError, match="a symbol named 't'"):
        ld.LagrangianSystem(T + sp.Symbol("t", positive=True) * q1, [q1, q2])
    with pytest.raises(LagdynError, match="outside the range of a double"):
        ld.LagrangianSystem(T + sp.Float("1e400") * q1, [q1, q2])
    with pytest.raises(LagdynError, match="depends explicitly on t"):
        ld.LagrangianSystem(T + t * q1, [q1, q2])
    with pytest.raises(CoordinateError, match="f"):
        ld.LagrangianSystem(T + sp.Function("f")(t), [q1, q2])
    with pytest.raises(NotQuadraticError, match="higher derivatives"):
        ld.LagrangianSystem(T + q1.diff(t, 2), [q1, q2])
    with pytest.warns(ld.errors.LagdynWarning, match="look alike"):
        ld.LagrangianSystem(T + sp.Symbol("a") * sp.Symbol("\u0430") * q1, [q1, q2])


def test_same_named_symbols_keep_the_lagrangians_own_order() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    m_pos, m_plain = sp.Symbol("m", positive=True), sp.Symbol("m")
    L = m_pos * q1.diff(t) ** 2 / 2 + q2.diff(t) ** 2 / 2 - m_plain * sp.cos(q1)
    by_walk = ld.LagrangianSystem(L, [q1, q2])
    expected = _convert.SymbolTable.from_symbols(L.free_symbols)._by_name["m"]
    assert by_walk._symtab._by_name["m"] is expected


@pytest.mark.parametrize("model", ["double_pendulum", "two_link_planar", "cart_pole"])
def test_memoized_derivatives_equal_the_plain_ones(model: str) -> None:
    system = ld.zoo.get(model)
    encoder, polys = system._mass_polys
    memo: dict = {}
    for poly in polys.values():
        for k in range(system.n):
            assert _laurent.diff_poly(encoder, poly, k, memo) == _laurent.diff_poly(
                encoder, poly, k
            )


def test_rates_are_the_objects_sympys_diff_returns() -> None:
    # qd builds Derivative(q(t), t) directly instead of sp.diff (issue 25): object for
    # object what diff gives, for coordinates with and without assumptions
    coords = (*ld.coordinates("x th"), sp.Function("r", positive=True)(t))
    system = ld.LagrangianSystem(sum(c.diff(t) ** 2 for c in coords) / 2, coords)
    for fast, qi in zip(system.qd, coords):
        slow = sp.diff(qi, t)
        assert fast == slow and sp.srepr(fast) == sp.srepr(slow)
        assert fast.is_real == slow.is_real and fast.is_positive == slow.is_positive
    assert system.M == sp.eye(3)


def _second_rate_derivatives(L: sp.Expr, q: tuple) -> tuple:
    """L in plain symengine symbols and its entries ∂²L/∂v_i∂v_j, as the system forms them."""
    n = len(q)
    qs, vs = _convert.state_symbols(n)
    fwd, bwd = _convert.substitution(q, [qi.diff(t) for qi in q], qs, vs)
    Ls = _convert.plain_symengine(L, fwd)
    sv = [se.Symbol(v.name) for v in vs]
    entries = {(i, j): Ls.diff(sv[i]).diff(sv[j]) for i in range(n) for j in range(i, n)}
    table = _convert.SymbolTable.from_symbols(
        L.free_symbols, extra={s.name: d for s, d in bwd.items()}
    )
    return Ls, entries, [se.Symbol(s.name) for s in qs], table.to_sympy


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_lagrangians(max_n=3), st.sampled_from([sp.Integer(3), sp.Float(0.5)]))
def test_encoding_with_the_callers_walks_equals_the_own_walks(model, number) -> None:
    # the system hands encode_symengine L's atoms and the entries' symbols it collected
    # (issue 25): the dictionaries must be those of encode_symengine's own walks, and a
    # float (not representable) must be refused all the same
    L = model.L + number * model.q[0].diff(t) ** 2 * sp.cos(model.q[0])
    Ls, entries, plain_q, to_sympy = _second_rate_derivatives(L, model.q)
    free = set().union(*(e.free_symbols for e in entries.values()))
    atoms = Ls.atoms(se.Function, se.Number)
    own = _laurent.encode_symengine(entries, model.q, plain_q, to_sympy, source=Ls)
    given_walks = _laurent.encode_symengine(
        entries, model.q, plain_q, to_sympy, source=Ls, source_atoms=atoms, free=free
    )
    assert (own is None) == (given_walks is None) == number.is_Float
    if own is not None and given_walks is not None:
        assert own[1] == given_walks[1]
        assert own[0].denominators == given_walks[0].denominators


@pytest.mark.parametrize("model", ["double_pendulum", "two_link_planar", "cart_pole"])
def test_gradient_equals_the_derivatives_one_by_one(model: str) -> None:
    # derive takes each entry's n derivatives in one pass (issue 25): the same
    # dictionaries in the same order as diff_poly gives them one coordinate at a time
    # (cart_pole: its cart position occurs outside the trig atoms)
    system = ld.zoo.get(model)
    encoder, polys = system._mass_polys
    for poly in polys.values():
        one_pass = _laurent.gradient(encoder, poly, {})
        for k in range(system.n):
            one_by_one = _laurent.diff_poly(encoder, poly, k, {})
            assert one_pass[k] == one_by_one
            assert list(one_pass[k]) == list(one_by_one)


def test_gradient_with_phases_and_polynomial_coordinates() -> None:
    x, y, a, phi = sp.symbols("x y a phi")
    exprs = [
        a * sp.cos(x - y + phi) + x**2 * sp.sin(y) + sp.cos(x / 2) * sp.sin(2 * y),
        a * x * sp.cos(y) - sp.sin(x + phi) ** 2,
    ]
    enc = _laurent.encoder_for(exprs, [x, y])
    assert enc is not None
    for e in exprs:
        poly = enc.decode(enc.encode(e))
        memo: dict = {}
        one_pass = _laurent.gradient(enc, poly, memo)
        for k in range(2):
            one_by_one = _laurent.diff_poly(enc, poly, k, {})
            assert one_pass[k] == one_by_one and list(one_pass[k]) == list(one_by_one)


def test_velocity_contents_equal_split_content() -> None:
    # the entries of C split Σ c v_k without expanding it when the split is known
    # (issue 25): one member, or equal contents; the result must be split_content's
    system = ld.zoo.get("double_pendulum")
    fd = system._fast
    a, b, m = se.symbols("a b m")
    polys = [
        se.expand(-2 * a * m * (a + b)),
        se.expand(3 * a**2 * b / 4),
        se.Rational(-1, 2) * se.Integer(1),
        se.expand(6 * a * (m + 1)),
        se.Integer(1),
    ]
    contents = [_laurent.split_content(p)[0] for p in polys]
    cases = [[(c, 0)] for c in contents]
    cases += [[(c, 0), (c, 1)] for c in contents]
    cases += [[(contents[0], 0), (contents[3], 1)], [(contents[1], 1), (contents[2], 0)]]
    vel = [fd._enc.symbol(v) for v in fd.qd]
    for members in cases:
        total = se.Add(*[c * vel[k] for c, k in members])
        assert fd._velocity_content(members) == _laurent.split_content(se.expand(total))

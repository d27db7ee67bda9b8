"""M's canonical dictionaries formed in symengine (lagdyn.trig.laurent.encode_symengine): the
Lagrangian route now encodes M's entries as symengine produced them, with one Laurent
variable per multi-angle trig argument, and never converts them to sympy first. The
dictionaries must be exactly the ones the sympy route forms, and everything the
symengine route cannot vouch for must go back to the sympy route."""

from __future__ import annotations

import pytest
import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.trig import convert as _convert
from lagdyn.trig import identities as _trigproofs
from lagdyn.trig import laurent as _laurent

q1, q2, q3 = sp.symbols("q1 q2 q3")
a, b, c = sp.symbols("a b c")
Q = (q1, q2, q3)
TABLE = _convert.SymbolTable.from_symbols([q1, q2, q3, a, b, c])
PLAIN = [se.Symbol(s.name) for s in Q]

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

freq = st.integers(min_value=-2, max_value=2)


@st.composite
def atoms(draw: st.DrawFn) -> sp.Expr:
    """cos/sin of integer combinations of q (relative angles like q1 + q2 + q3, their
    multiples and differences: a dependent family of arguments), sometimes a phase."""
    e = [draw(freq) for _ in range(3)]
    arg = sum(ei * qi for ei, qi in zip(e, Q)) + draw(st.sampled_from([0, 0, 0, c, sp.S.Half]))
    return draw(st.sampled_from([sp.cos, sp.sin]))(arg)


@st.composite
def entries(draw: st.DrawFn) -> sp.Expr:
    terms = []
    for _ in range(draw(st.integers(0, 4))):
        factors = [sp.Rational(draw(st.integers(-3, 3)), draw(st.integers(1, 3)))]
        factors += draw(st.lists(st.sampled_from([a, b, q1, a**2, 1 / b]), max_size=2))
        factors += draw(st.lists(atoms(), max_size=3))
        terms.append(sp.Mul(*factors))
    return sp.Add(*terms)


def _reference(exprs: dict[tuple[int, int], sp.Expr]) -> dict[tuple[int, int], sp.Expr]:
    """The sympy route: one encoder for every entry, encode, decode, rebuild."""
    enc = _laurent.encoder_for(list(exprs.values()), Q)
    assert enc is not None
    return {k: enc.rebuild(enc.decode(enc.encode(e))) for k, e in exprs.items()}


@FAST
@given(st.lists(entries(), min_size=1, max_size=4))
def test_dictionaries_equal_the_sympy_routes(exprs: list[sp.Expr]) -> None:
    table = dict(enumerate(exprs))
    keyed = {(0, i): e for i, e in table.items()}
    found = _laurent.encode_symengine(
        {k: se.sympify(e) for k, e in keyed.items()}, Q, PLAIN, TABLE.to_sympy
    )
    assert found is not None
    enc, polys = found
    want = _reference(keyed)
    for k in keyed:
        assert enc.rebuild(polys[k]) == want[k], k
        # and the rebuilt form is the entry itself
        assert _trigproofs.is_zero(enc.rebuild(polys[k]) - keyed[k], Q) is True


def test_dependent_arguments_are_merged_to_one_frequency() -> None:
    """cos(q1 + q2) cos(q1) sin(q2)... in variables per argument: the products that meet
    at one frequency (or cancel at 0) must be summed there."""
    e = (
        sp.cos(q1 + q2) ** 2
        + sp.sin(q1 + q2) ** 2
        + sp.cos(q1 + q2) * sp.cos(q1 - q2)
        - sp.cos(2 * q1 + 2 * q2) / 2
        + sp.sin(q1 + q2) * sp.cos(q1 + 2 * q2)
    )
    enc, polys = _laurent.encode_symengine({(0, 0): se.sympify(e)}, Q, PLAIN, TABLE.to_sympy)
    want = _reference({(0, 0): e})[(0, 0)]
    assert enc.rebuild(polys[(0, 0)]) == want
    assert _trigproofs.is_zero(want - e, Q) is True


def test_zero_and_constant_entries() -> None:
    """symengine's coefficient dictionary of a number n is {n: 1} (and of 0, {0: 1})."""
    got = _laurent.encode_symengine(
        {
            (0, 0): se.Integer(0),
            (0, 1): se.Integer(3),
            (1, 1): se.Rational(1, 2) + se.cos(PLAIN[0]),
        },
        Q,
        PLAIN,
        TABLE.to_sympy,
    )
    assert got is not None
    enc, polys = got
    assert polys[(0, 0)] == {}
    assert enc.rebuild(polys[(0, 1)]) == 3
    assert enc.rebuild(polys[(1, 1)]) == sp.Rational(1, 2) + sp.cos(q1)


def test_polynomial_coordinates_are_flagged() -> None:
    """A coordinate outside the trig atoms (r in m r²) must be marked for the derivative."""
    enc, polys = _laurent.encode_symengine(
        {(0, 0): se.sympify(a * q2**2 + sp.cos(q1))}, Q, PLAIN, TABLE.to_sympy
    )
    assert enc.poly_q == {1}


def test_what_symengine_cannot_vouch_for_goes_back_to_sympy() -> None:
    for bad in (
        sp.exp(q1),
        sp.sqrt(a) * sp.cos(q1),
        sp.Float(0.5) * a,
        sp.I * sp.cos(q1),
        (3 + 2 * sp.I) * a,
        sp.pi * a,
        sp.cos(q1**2),
        1 / q1,
        sp.tan(q1),
    ):
        got = _laurent.encode_symengine({(0, 0): se.sympify(bad)}, Q, PLAIN, TABLE.to_sympy)
        assert got is None, bad


# -- through LagrangianSystem: the Lagrangian route against an independent one ---------


@st.composite
def chains(draw: st.DrawFn) -> tuple[sp.Expr, list[sp.Expr]]:
    """Point masses on a planar chain whose link angles are random integer combinations
    of the coordinates (absolute, relative, or mixed), plus a prismatic coordinate."""
    n = draw(st.integers(2, 4))
    q = ld.coordinates(" ".join(f"x{i}" for i in range(n)))
    m = sp.symbols(f"m0:{n}")
    lengths = sp.symbols(f"l0:{n}")
    g = sp.Symbol("g")
    t = ld.t
    x = y = sp.S.Zero
    T = V = sp.S.Zero
    prismatic = draw(st.booleans())
    for i in range(n):
        coeffs = [draw(st.integers(-1, 1)) for _ in range(i)] + [1]
        theta = sum(cf * qj for cf, qj in zip(coeffs, q))
        r = lengths[i] + (q[0] if prismatic and i == n - 1 else 0)
        x += r * sp.sin(theta)
        y -= r * sp.cos(theta)
        T += m[i] * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
        V += m[i] * g * y
    return T - V, list(q)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_lagrangian_route_equals_the_mass_matrix_route(chain: tuple[sp.Expr, list]) -> None:
    """M, C, g from L (M encoded in symengine) are exactly, argument order included, what
    the same system gives when its M is handed over in sympy and encoded there."""
    L, q = chain
    system = ld.LagrangianSystem(L, q)
    assert system._mass_polys is not None  # the symengine route was taken
    reference = ld.LagrangianSystem.from_mass_matrix(system._M_dyn, system.U, q)
    assert sp.srepr(system.M) == sp.srepr(reference.M)
    assert sp.srepr(system.C) == sp.srepr(reference.C)
    assert sp.srepr(system.g) == sp.srepr(reference.g)
    assert system.is_skew_symmetric()


def test_input_symbols_named_like_the_encoders_own_stay_distinct() -> None:
    """Parameters called _lagdyn_z0, _lagdyn_w0 (the Laurent variables' names) or
    _lagdyn_gcd_tag must never be confused with them: a system refuses the reserved names,
    naming them (they used to be silently identified with the encoder's own)."""
    q = ld.coordinates("a b c")
    odd = sp.symbols("_lagdyn_z0 _lagdyn_w0 _lagdyn_gcd_tag")
    plain = sp.symbols("k1 k2 k3")
    t = ld.t

    def lagrangian(p: tuple[sp.Symbol, ...]) -> sp.Expr:
        x = y = sp.S.Zero
        T = sp.S.Zero
        for i in range(3):
            theta = sum(q[: i + 1])  # relative angles: multi-angle arguments
            x += p[i] * sp.sin(theta)
            y -= p[i] * sp.cos(theta)
            T += (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
        return T - y

    with pytest.raises(ld.LagdynError, match=r"_lagdyn_gcd_tag.*reserved"):
        ld.LagrangianSystem(lagrangian(odd), q)
    ld.LagrangianSystem(lagrangian(plain), q)  # ordinary names build


def test_a_shared_decode_memo_equals_fresh_decodes() -> None:
    """decode's memo is shared by the entries of a matrix (issue 25: each (monomial,
    coefficient) pair is turned into its contribution once): a pair met first in one
    entry, a monomial met first with a zero coefficient (the entry 0), the conjugate
    halves, all must give what a fresh decode gives."""
    exprs = [
        sp.Integer(0),
        sp.Integer(1),
        sp.cos(q1) ** 2,
        3 * sp.cos(q1) ** 2 - sp.sin(q1) * sp.cos(q2),
        sp.sin(q1 + q2) * sp.cos(q1) + 2,
    ]
    enc = _laurent.encoder_for(exprs, Q)
    assert enc is not None
    memo: dict = {}
    for e in exprs:
        laurent = enc.encode(e)
        assert enc.decode(laurent, memo=memo) == enc.decode(laurent)
    assert enc.decode(enc.encode(sp.Integer(1)), memo=memo) == {(0, 0, 0): (1, 0)}

"""Tests for the per-frequency zero tests (lagdyn.trig.linear) and the proofs built on them:
the streamed skew proof and the passivity identities of lagdyn.trig.derive."""

from __future__ import annotations

import pytest
import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.trig import identities as _trigproofs
from lagdyn.trig import linear as lt

q1, q2, q3 = sp.symbols("q1 q2 q3")
v1, v2 = sp.symbols("v1 v2")
a, b = sp.symbols("a b")
Q = (q1, q2, q3)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def linear_trig(draw: st.DrawFn) -> sp.Expr:
    """Sums of (polynomial coefficient) × at most one cos/sin of a rational angle."""
    terms = []
    for _ in range(draw(st.integers(1, 5))):
        coef = sp.Integer(draw(st.integers(-3, 3)))
        coef *= sp.Mul(
            *draw(st.lists(st.sampled_from([a, b, q1, v1, v2, a**2, 1 / b]), max_size=3))
        )
        e = [sp.Rational(draw(st.integers(-2, 2)), draw(st.sampled_from([1, 1, 2]))) for _ in Q]
        angle = sum(ei * qi for ei, qi in zip(e, Q))
        if angle != 0 and draw(st.booleans()):
            coef *= draw(st.sampled_from([sp.cos, sp.sin]))(angle)
        terms.append(coef)
    return sp.Add(*terms)


def _mirror(expr: sp.Expr) -> sp.Expr:
    """The same function written with negated angles (cos(−x) = cos x, sin(−x) = −sin x),
    unevaluated so the encoder must canonicalize the sign itself."""
    return expr.replace(
        lambda e: isinstance(e, (sp.cos, sp.sin)),
        lambda e: (
            sp.cos(-e.args[0], evaluate=False)
            if isinstance(e, sp.cos)
            else sp.Mul(-1, sp.sin(-e.args[0], evaluate=False), evaluate=False)
        ),
    )


@FAST
@given(linear_trig(), linear_trig())
def test_zero_test_agrees_with_laurent_encoding(x: sp.Expr, y: sp.Expr) -> None:
    enc = lt.LinearTrigEncoder(Q, rates=(v1, v2))
    for expr in (x - y, x - _mirror(x), x + y - _mirror(y) - x):
        assert lt.is_zero_form(enc.form(expr)) == _trigproofs.is_zero(expr, Q)


@FAST
@given(linear_trig())
def test_rate_is_the_time_derivative(x: sp.Expr) -> None:
    """Σ ∂x/∂q_k v_k on the form equals sympy's derivative (q1 polynomial, q2, q3 not)."""
    w = sp.symbols("w3")
    vel = (v1, v2, w)
    x = x.xreplace({v1: a, v2: b})  # the rates of the test stand for q̇ only
    enc = lt.LinearTrigEncoder(Q)
    form = enc.form(x)
    rate = enc.rate(form, [enc.symbol(v) for v in vel])
    expected = sum(sp.diff(x, qk) * vk for qk, vk in zip(Q, vel))
    reference = enc.form(expected)
    assert lt.is_zero_form(lt.combine((1, rate), (-1, reference)))


@pytest.mark.parametrize(
    "expr",
    [
        sp.sin(q1) * sp.cos(q2),
        sp.cos(q1) ** 2,
        sp.cos(q1 + 1),
        sp.Float(1.5) * sp.cos(q1),
        sp.cos(q1) / (a + b),
        sp.exp(q1),
        sp.cos(q1 * q2),
        sp.cos(a * q1),
        sp.Function("f")(q1),
    ],
)
def test_outside_the_class_is_refused(expr: sp.Expr) -> None:
    with pytest.raises(lt.NotLinearError):
        lt.LinearTrigEncoder(Q).form(expr)


@pytest.fixture(scope="module")
def chain() -> ld.LagrangianSystem:
    return ld.zoo.get("n_link_pendulum", n=7, coordinates="relative")


def test_streamed_skew_proof_decides_lagdyn_output(chain: ld.LagrangianSystem) -> None:
    M, C = sp.ImmutableMatrix(chain.M), sp.ImmutableMatrix(chain.C)
    assert _trigproofs.skew_per_frequency(M, C, chain.q, chain.qd) is True


def test_streamed_skew_proof_refutes_a_perturbed_entry(chain: ld.LagrangianSystem) -> None:
    """One small wrong term deep in the 7-link joint-angle C is found."""
    l1, l4 = sp.Symbol("l1"), sp.Symbol("l4")
    m6 = sp.Symbol("m6")
    wrong = l1 * l4 * m6 * sp.sin(chain.q[3] + chain.q[4]) * chain.qd[2]
    C = sp.Matrix(chain.C)
    C[5, 2] += wrong
    assert (
        _trigproofs.skew_per_frequency(
            sp.ImmutableMatrix(chain.M), sp.ImmutableMatrix(C), chain.q, chain.qd
        )
        is False
    )
    # the same term added antisymmetrically keeps N skew: still proved
    C[2, 5] -= wrong
    assert (
        _trigproofs.skew_per_frequency(
            sp.ImmutableMatrix(chain.M), sp.ImmutableMatrix(C), chain.q, chain.qd
        )
        is True
    )


def test_streamed_skew_proof_refutes_same_coriolis_vector(chain: ld.LagrangianSystem) -> None:
    """C + S with S q̇ = 0 gives the same equations but is not skew."""
    n = chain.n
    S = sp.zeros(n, n)
    S[1, 3], S[1, 6] = chain.qd[6], -chain.qd[3]
    C = sp.ImmutableMatrix(chain.C + S)
    assert (
        _trigproofs.skew_per_frequency(sp.ImmutableMatrix(chain.M), C, chain.q, chain.qd) is False
    )
    assert ld.structure.is_skew_symmetric(chain, C) is False


def test_nonlinear_entry_falls_back_to_laurent_encoding() -> None:
    """sin(2x) written as 2 sin x cos x: the per-frequency form refuses, the Laurent
    encoding still proves the identity."""
    dp = ld.zoo.double_pendulum()
    a_, b_ = dp.q
    C = sp.Matrix(dp.C)
    C = C.subs(sp.sin(a_ - b_), 2 * sp.sin((a_ - b_) / 2) * sp.cos((a_ - b_) / 2))
    M, C = sp.ImmutableMatrix(dp.M), sp.ImmutableMatrix(C)
    assert _trigproofs.skew_per_frequency(M, C, dp.q, dp.qd) is None
    assert _trigproofs.skew_identity(M, C, dp.q, dp.qd) is True
    assert _trigproofs.skew_identity(M, 2 * C, dp.q, dp.qd) is False


def test_energy_identities_per_frequency(chain: ld.LagrangianSystem) -> None:
    M, g = sp.ImmutableMatrix(chain.M), sp.ImmutableMatrix(chain.g)
    assert _trigproofs.energy_per_frequency(chain.L, M, g, chain.q, chain.qd) is True
    bad_g = sp.Matrix(g)
    bad_g[4] += sp.Symbol("m7") * sp.sin(chain.q[0] + chain.q[1])
    assert (
        _trigproofs.energy_per_frequency(chain.L, M, sp.ImmutableMatrix(bad_g), chain.q, chain.qd)
        is False
    )
    bad_M = sp.Matrix(M)
    bad_M[2, 2] += sp.Symbol("m1")
    assert (
        _trigproofs.energy_per_frequency(chain.L, sp.ImmutableMatrix(bad_M), g, chain.q, chain.qd)
        is False
    )
    assert ld.structure.is_passive(chain) is True


def _to_sympy(form: dict, q: tuple) -> sp.Expr:
    """Σ A cos(k·q) + B sin(k·q) of a collapsed or list form, back in sympy."""
    out = sp.Integer(0)
    for key, (a, b) in form.items():
        a = sp.sympify(se.Add(*a)) if isinstance(a, list) else sp.sympify(a or 0)
        b = sp.sympify(se.Add(*b)) if isinstance(b, list) else sp.sympify(b or 0)
        angle = sum(sp.Rational(k) * qk for k, qk in zip(key, q))
        out += a * sp.cos(angle) + b * sp.sin(angle)
    return out


@FAST
@given(linear_trig(), linear_trig())
def test_product_to_sum_is_the_product(x: sp.Expr, y: sp.Expr) -> None:
    enc = lt.LinearTrigEncoder(Q, rates=(v1, v2), symbol=se.sympify)
    acc: dict = {}
    lt.product_into(acc, lt.collapse(enc.form(x)), lt.collapse(enc.form(y)))
    assert _trigproofs.is_zero(_to_sympy(lt.products_form(acc, se.Integer(3)), Q) - 6 * x * y, Q)


def test_gram_per_frequency_equals_the_laurent_gram(monkeypatch: pytest.MonkeyPatch) -> None:
    """The joint-angle chain's M assembled per frequency (above the size threshold) has
    exactly the dictionaries of the Laurent expansion."""
    from lagdyn.trig import gram

    fast = ld.zoo.get("n_link_pendulum", n=9, coordinates="relative")
    calls = []
    original = gram.gram_per_frequency
    monkeypatch.setattr(gram, "gram_per_frequency", lambda *a: calls.append(original(*a)) or None)
    slow = ld.zoo.get("n_link_pendulum", n=9, coordinates="relative")
    assert calls and calls[0] is not None  # the per-frequency path did run on this chain
    assert fast._mass_polys[1] == slow._mass_polys[1]
    assert fast.M == slow.M


def test_gram_factor_check_per_frequency(chain: ld.LagrangianSystem) -> None:
    """The positive-definiteness proof's check M = Σ w JᵀJ, per frequency: holds for the
    returned M, fails for an M with one wrong term (and then M ≻ 0 is not claimed)."""
    from types import SimpleNamespace

    from lagdyn import structure
    from lagdyn.trig.gram import gram_matches

    rows = chain._gram_rows
    terms = [([[w]], [entries]) for w, entries, _ in rows]
    assert gram_matches(chain.M, terms, lt.LinearTrigEncoder(chain.q)) is True
    M = sp.Matrix(chain.M)
    wrong = sp.Symbol("m2") * sp.Symbol("l1") ** 2 * sp.cos(chain.q[2])
    M[3, 5] += wrong
    M[5, 3] += wrong
    fake = SimpleNamespace(n=chain.n, q=chain.q, M=sp.ImmutableMatrix(M), _gram_rows=rows)
    assert gram_matches(fake.M, terms, lt.LinearTrigEncoder(chain.q)) is False
    assert structure._gram_positive_definite(fake) is None
    assert structure.positive_definite(chain) is True

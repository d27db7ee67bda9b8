"""Tests for the canonical trig-polynomial engine (lagdyn.trig.derive)."""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lagdyn.trig import derive as tp
from lagdyn.trig import identities as _trigproofs
from lagdyn.trig import laurent as _laurent

q1, q2, q3 = sp.symbols("q1 q2 q3")
qd1, qd2, qd3 = sp.symbols("qd1 qd2 qd3")
a, b, c = sp.symbols("a b c")
Q = (q1, q2, q3)
QD = (qd1, qd2, qd3)

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def numeric_equal(x: sp.Expr, y: sp.Expr, *, trials: int = 4, tol: float = 1e-9) -> bool:
    """Compare two expressions at random real points."""
    symbols = sorted((x.free_symbols | y.free_symbols), key=str)
    rng = random.Random(zlib.crc32(str(symbols).encode()))  # stable across runs
    fx = sp.lambdify(symbols, x, "math")
    fy = sp.lambdify(symbols, y, "math")
    for _ in range(trials):
        point = [rng.uniform(-2.0, 2.0) for _ in symbols]
        vx, vy = float(fx(*point)), float(fy(*point))
        if not math.isclose(vx, vy, rel_tol=tol, abs_tol=tol):
            return False
    return True


# -- strategies -------------------------------------------------------------------

freq = st.integers(min_value=-2, max_value=2)


@st.composite
def trig_atoms(draw: st.DrawFn) -> sp.Expr:
    e = [draw(freq) for _ in range(3)]
    arg = sum(ei * qi for ei, qi in zip(e, Q)) + draw(st.sampled_from([0, 0, c, -c / 2]))
    return draw(st.sampled_from([sp.cos, sp.sin]))(arg)


@st.composite
def trig_polys(draw: st.DrawFn) -> sp.Expr:
    """Sums of products of trig atoms with polynomial coefficients (in a, b, q, qd)."""
    terms = []
    for _ in range(draw(st.integers(1, 4))):
        factors = [sp.Integer(draw(st.integers(-3, 3)))]
        factors += draw(st.lists(st.sampled_from([a, b, q1, qd2, a**2]), max_size=2))
        factors += draw(st.lists(trig_atoms(), min_size=0, max_size=3))
        terms.append(sp.Mul(*factors))
    return sp.Add(*terms)


# -- canonical / is_zero -------------------------------------------------------------


@FAST
@given(trig_polys())
def test_canonical_equals_input(expr: sp.Expr) -> None:
    out = _trigproofs.canonical(expr, Q)
    assert out is not None
    assert numeric_equal(out, expr)
    assert _trigproofs.is_zero(out - expr, Q) is True


@FAST
@given(trig_polys())
def test_canonical_is_idempotent_and_dictionary_exact(expr: sp.Expr) -> None:
    once = _trigproofs.canonical(expr, Q)
    assert once is not None
    assert _trigproofs.canonical(once, Q) == once
    assert _trigproofs.is_zero(expr, Q) is (once == 0)


@FAST
@given(trig_polys(), st.integers(0, 2))
def test_derivative_rule_matches_sympy(expr: sp.Expr, k: int) -> None:
    enc = _laurent.Encoder(Q)
    enc.register([expr])
    poly = enc.decode(enc.encode(expr))
    dpoly = _laurent.derivative(poly, k, enc.qse[k], enc.denominators[k], k in enc.poly_q)
    got = enc.rebuild(dpoly)
    want = sp.diff(expr, Q[k])
    assert numeric_equal(got, want)
    assert _trigproofs.is_zero(got - want, Q) is True


@pytest.mark.parametrize(
    "expr",
    [
        sp.sin(q1) ** 2 + sp.cos(q1) ** 2 - 1,
        sp.sin(q1 - q2) ** 2 + sp.cos(q2 - q1) ** 2 - 1,
        sp.sin(2 * q1) - 2 * sp.sin(q1) * sp.cos(q1),
        sp.cos(q1 + c) - (sp.cos(c) * sp.cos(q1) - sp.sin(c) * sp.sin(q1)),
        sp.cos(c) ** 2 + sp.sin(c) ** 2 - 1,
        sp.cos(q1 / 2) ** 2 - (1 + sp.cos(q1)) / 2,
        sp.sin(q1 / 3) * sp.cos(q1 / 2) - (sp.sin(5 * q1 / 6) - sp.sin(q1 / 6)) / 2,
        sp.cos(q1 + sp.pi / 2) + sp.sin(q1),
        q1 * qd1 * (sp.sin(q2) ** 2 + sp.cos(q2) ** 2) - q1 * qd1,
        sp.cos(sp.Float(0.5) * q1) - sp.cos(q1 / 2),
        sp.exp(a) * sp.cos(q1) ** 2 - sp.exp(a) / 2 - sp.exp(a) * sp.cos(2 * q1) / 2,
        sp.Integer(0),
    ],
)
def test_is_zero_true(expr: sp.Expr) -> None:
    assert _trigproofs.is_zero(expr, Q) is True


@pytest.mark.parametrize(
    "expr",
    [
        sp.sin(2 * q1) - sp.sin(q1) * sp.cos(q1),
        sp.sin(q1) - sp.cos(q1),
        a * sp.cos(q1) - b * sp.cos(q1),
        q1 * sp.sin(q1),
        sp.cos(q1 / 2) - sp.cos(q1),
        sp.Integer(1),
    ],
)
def test_is_zero_false(expr: sp.Expr) -> None:
    assert _trigproofs.is_zero(expr, Q) is False


@pytest.mark.parametrize(
    "expr",
    [
        sp.exp(q1),
        sp.tan(q1),
        1 / q1,
        a / (2 + sp.cos(q1)),
        sp.sqrt(q1),
        sp.cos(q1 * q2),
        sp.cos(q1**2),
        sp.cos(a * q1),
        sp.cos(sp.sqrt(2) * q1),
        sp.Function("f")(q1),
        sp.I * sp.cos(q1),
    ],
)
def test_not_representable(expr: sp.Expr) -> None:
    assert _trigproofs.is_zero(expr, Q) is None
    assert _trigproofs.canonical(expr, Q) is None


def test_parameter_only_functions_are_opaque() -> None:
    expr = sp.exp(a) * sp.cos(q1) + sp.Function("f")(b) * sp.sin(q1) + 1 / sp.cos(c)
    out = _trigproofs.canonical(expr, Q)
    assert out is not None
    assert sp.expand(out - expr) == 0
    assert _trigproofs.is_zero(out - expr, Q) is True


# -- derive ---------------------------------------------------------------------


def naive(M: sp.Matrix, V: sp.Expr, q: Sequence[sp.Symbol], qd: Sequence[sp.Symbol]):
    n = len(q)
    gam = [
        [
            [
                (sp.diff(M[i, j], q[k]) + sp.diff(M[i, k], q[j]) - sp.diff(M[j, k], q[i])) / 2
                for k in range(n)
            ]
            for j in range(n)
        ]
        for i in range(n)
    ]
    C = sp.Matrix(n, n, lambda i, j: sum(gam[i][j][k] * qd[k] for k in range(n)))
    g = sp.Matrix([sp.diff(V, qk) for qk in q])
    return gam, C, g


def assert_matches_naive(M: sp.Matrix, V: sp.Expr, q, qd) -> tp.FastDerivation:
    fd = tp.derive(M, V, q, qd)
    assert fd is not None
    gam, C, g = naive(M, V, q, qd)
    n = len(q)
    for i in range(n):
        for j in range(n):
            assert _trigproofs.is_zero(fd.M[i, j] - M[i, j], q) is True
            assert _trigproofs.is_zero(fd.C[i, j] - C[i, j], q) is True
            for k in range(n):
                assert _trigproofs.is_zero(fd.christoffel[i][j][k] - gam[i][j][k], q) is True
        assert sp.expand(fd.g[i] - g[i]) == 0 or _trigproofs.is_zero(fd.g[i] - g[i], q)
    for (i, j, k), value in fd.dM.items():
        assert _trigproofs.is_zero(value - sp.diff(M[i, j], q[k]), q) is True
    assert fd.skew_proof() is True
    return fd


def test_two_link_arm_seed_001_exact() -> None:
    alpha, beta, delta = sp.symbols("alpha beta delta", positive=True)
    cq = sp.cos(q2)
    M = sp.Matrix([[alpha + 2 * beta * cq, delta + beta * cq], [delta + beta * cq, delta]])
    fd = tp.derive(M, sp.S.Zero, [q1, q2], [qd1, qd2])
    assert fd is not None
    s = sp.sin(q2)
    want = sp.Matrix([[-beta * s * qd2, -beta * s * (qd1 + qd2)], [beta * s * qd1, 0]])
    for i in range(2):
        for j in range(2):
            assert sp.expand(fd.C[i, j] - want[i, j]) == 0
            assert sp.expand(fd.M[i, j] - M[i, j]) == 0
    assert fd.skew_proof() is True
    assert fd.g == sp.ImmutableMatrix([0, 0])
    # the caller's symbols (with assumptions) come back unchanged
    assert fd.C.free_symbols <= {alpha, beta, delta, q2, qd1, qd2}


def test_double_pendulum_absolute() -> None:
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    cab = m2 * l1 * l2 * sp.cos(q1 - q2)
    M = sp.Matrix([[(m1 + m2) * l1**2, cab], [cab, m2 * l2**2]])
    V = -(m1 + m2) * g * l1 * sp.cos(q1) - m2 * g * l2 * sp.cos(q2)
    fd = assert_matches_naive(M, V, [q1, q2], [qd1, qd2])
    assert sp.expand(fd.C[0, 1] - m2 * l1 * l2 * sp.sin(q1 - q2) * qd2) == 0
    assert sp.expand(fd.g[0] - (m1 + m2) * g * l1 * sp.sin(q1)) == 0


def test_prismatic_polar() -> None:
    m, r, th, rd, thd = sp.symbols("m r theta rd thetad")
    M = sp.diag(m, m * r**2)
    fd = assert_matches_naive(M, m * 9 * r * sp.sin(th), [r, th], [rd, thd])
    assert sp.expand(fd.C[0, 1] + m * r * thd) == 0
    assert sp.expand(fd.C[1, 1] - m * r * rd) == 0


def test_prismatic_with_trig() -> None:
    # cart (x) with a pendulum (angle p) and a telescoping length r
    x, p, r, xd, pd, rd = sp.symbols("x p r xd pd rd")
    m, mc = sp.symbols("m mc", positive=True)
    M = sp.Matrix(
        [
            [m + mc, m * r * sp.cos(p), m * sp.sin(p)],
            [m * r * sp.cos(p), m * r**2, 0],
            [m * sp.sin(p), 0, m],
        ]
    )
    assert_matches_naive(M, -m * r * sp.cos(p), [x, p, r], [xd, pd, rd])


def test_offsets_and_rational_frequencies() -> None:
    M = sp.Matrix(
        [
            [3 + a * sp.cos(q2 + c), b * sp.cos(q2 / 2 - c)],
            [b * sp.cos(q2 / 2 - c), 2 + sp.sin(q1 / 3 + sp.pi / 4)],
        ]
    )
    assert_matches_naive(M, a * sp.cos(q1 / 2 + c), [q1, q2], [qd1, qd2])


def test_non_representable_potential_falls_back() -> None:
    M = sp.Matrix([[a, 0], [0, b]])
    V = sp.exp(q1) + sp.cos(q2**2)
    fd = tp.derive(M, V, [q1, q2], [qd1, qd2])
    assert fd is not None
    assert fd.g == sp.ImmutableMatrix([sp.exp(q1), -2 * q2 * sp.sin(q2**2)])


def test_derive_returns_none() -> None:
    assert tp.derive(sp.Matrix([[sp.exp(q1)]]), 0, [q1], [qd1]) is None
    assert tp.derive(sp.Matrix([[1 + sp.tan(q1)]]), 0, [q1], [qd1]) is None
    assert tp.derive(sp.Matrix([[1 + qd1**2]]), 0, [q1], [qd1]) is None


def _random_mass_matrix(n: int, rng: random.Random) -> sp.Matrix:
    atoms = [sp.Integer(1)]
    for _ in range(4):
        e = [rng.randint(-1, 1) for _ in range(n)]
        arg = sum(ei * qi for ei, qi in zip(e, Q[:n]))
        atoms += [sp.cos(arg), sp.sin(arg)]
    A = sp.Matrix(n, n, lambda i, j: sum(rng.randint(-2, 2) * rng.choice(atoms) for _ in range(2)))
    return A.T * A + sp.Rational(1, 10) * sp.eye(n)


@pytest.mark.parametrize("seed", range(4))
def test_random_spd_matches_naive(seed: int) -> None:
    rng = random.Random(seed)
    n = 2 + seed % 2
    M = _random_mass_matrix(n, rng)
    V = a * sp.cos(Q[0]) * sp.sin(Q[n - 1])
    fd = tp.derive(M, V, Q[:n], QD[:n])
    assert fd is not None
    _, C, g = naive(M, V, Q[:n], QD[:n])
    for i in range(n):
        assert numeric_equal(fd.g[i], g[i])
        for j in range(n):
            assert numeric_equal(fd.C[i, j], C[i, j])
            assert numeric_equal(fd.M[i, j], M[i, j])
    assert fd.skew_proof() is True


def test_split_quadratic_factors_and_refuses():
    from fractions import Fraction as F  # noqa: N817  (short, as in the maths)

    from lagdyn.trig.derive import split_quadratic

    # (v1 + v2)(2 v0 + v1 + v2) = 2 v0 v1 + 2 v0 v2 + v1² + 2 v1 v2 + v2²
    form = {(1, 1, 0): F(2), (1, 0, 1): F(2), (0, 2, 0): F(1), (0, 1, 1): F(2), (0, 0, 2): F(1)}
    scale, a, b = split_quadratic(form, 3)
    prod = {}
    for i in range(3):
        for j in range(3):
            e = [0, 0, 0]
            e[i] += 1
            e[j] += 1
            prod[tuple(e)] = prod.get(tuple(e), 0) + scale * a[i] * b[j]
    assert {k: v for k, v in prod.items() if v} == form
    # v0² + v1² does not split over the rationals; nor does v0² - 2 v1²
    assert split_quadratic({(2, 0): F(1), (0, 2): F(1)}, 2) is None
    assert split_quadratic({(2, 0): F(1), (0, 2): F(-2)}, 2) is None
    # a pure cross term splits: 3 v0 v1
    scale, a, b = split_quadratic({(1, 1): F(3)}, 2)
    assert scale * (a[0] * b[1] + a[1] * b[0]) == 3


def test_rational_phases_are_exact() -> None:
    """cos(q + 1/2) is a trig polynomial in q and the angle 1 (e^i is transcendental):
    identities through the phase are decided, and a system with such phases derives
    (it raised a bare RuntimeError before)."""
    half = sp.Rational(1, 2)
    assert _trigproofs.is_zero(sp.cos(q1 + half) ** 2 + sp.sin(q1 + half) ** 2 - 1, Q) is True
    expanded = sp.cos(q1) * sp.cos(half) - sp.sin(q1) * sp.sin(half)
    assert _trigproofs.is_zero(sp.cos(q1 + half) - expanded, Q) is True
    assert _trigproofs.is_zero(sp.cos(q1 + half) - sp.cos(q1), Q) is False
    product = _trigproofs.canonical(sp.cos(2 * q1 + half) * sp.cos(q1 - sp.Rational(1, 3)), Q)
    assert product == sp.cos(q1 + sp.Rational(5, 6)) / 2 + sp.cos(3 * q1 + sp.Rational(1, 6)) / 2

    import lagdyn as ld

    x = ld.coordinates("x")[0]
    L = x.diff(ld.t) ** 2 * (2 + sp.cos(x + half)) / 2 - sp.cos(x + sp.Rational(1, 3))
    system = ld.LagrangianSystem(L, [x])
    assert system.derivation_path == "trigpoly"
    assert system.C[0, 0] == -sp.sin(x + half) * x.diff(ld.t) / 2
    assert system.g[0] == -sp.sin(x + sp.Rational(1, 3))
    assert system.is_skew_symmetric()


def test_phases_without_closed_form_are_not_representable() -> None:
    """cos(π/7) is algebraic with relations an opaque number would lose: refused, and a
    system holding it takes the general path instead of failing."""
    assert _trigproofs.canonical(sp.cos(q1 + sp.pi / 7), Q) is None
    assert _trigproofs.canonical(sp.cos(q1 + sp.pi / 4), Q) is not None  # √2/2: closed form
    import lagdyn as ld

    x = ld.coordinates("x")[0]
    system = ld.LagrangianSystem(x.diff(ld.t) ** 2 * (2 + sp.cos(x + sp.pi / 7)) / 2, [x])
    assert system.derivation_path == "general"
    assert sp.expand(system.C[0, 0] + sp.sin(x + sp.pi / 7) * x.diff(ld.t) / 2) == 0

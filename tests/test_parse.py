"""The restricted expression parser: what it builds and everything it refuses."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.parse import parse_expr

q1, q2 = ld.coordinates("q1 q2")
m, l, g = sp.symbols("m l g", positive=True)
NAMES = {"q1": q1, "q2": q2, "m": m, "l": l, "g": g}


def test_builds_a_lagrangian() -> None:
    L = parse_expr("m*l**2*dot(q1)**2/2 + m*g*l*cos(q1)", NAMES)
    expected = m * l**2 * q1.diff(ld.t) ** 2 / 2 + m * g * l * sp.cos(q1)
    assert sp.expand(L - expected) == 0
    pend = ld.LagrangianSystem(L, [q1])
    assert pend.M[0, 0] == m * l**2


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 + 2*3", sp.Integer(7)),
        ("0.5*m", m / 2),
        ("1e-3", sp.Rational(1, 1000)),
        ("-m + +l", l - m),
        ("m/l", m / l),
        ("m**-2", m**-2),
        ("pi", sp.pi),
        ("exp(1)", sp.E),
        ("sqrt(m)", sp.sqrt(m)),
        ("atan2(m, l)", sp.atan2(m, l)),
        ("abs(q1)", sp.Abs(q1)),
        ("exp(log(m)) + sinh(l) + cosh(l) + tanh(l)", m + sp.sinh(l) + sp.cosh(l) + sp.tanh(l)),
        (
            "tan(q1) + asin(q1) + acos(q1) + atan(q1)",
            sp.tan(q1) + sp.asin(q1) + sp.acos(q1) + sp.atan(q1),
        ),
        ("ddot(q2)", q2.diff(ld.t, 2)),
        ("dot(q1 + q2)", q1.diff(ld.t) + q2.diff(ld.t)),
    ],
)
def test_accepted(text: str, expected: sp.Expr) -> None:
    assert sp.simplify(parse_expr(text, NAMES) - expected) == 0


def test_mapping_wins_over_constants() -> None:
    E = sp.Symbol("E")
    assert parse_expr("E", {"E": E}) == E


def test_unknown_names_become_positive_symbols_on_request() -> None:
    expr = parse_expr("k*x", {}, unknown="symbol")
    assert all(s.is_positive for s in expr.free_symbols)
    with pytest.raises(ld.ParseError, match="unknown name 'k'"):
        parse_expr("k*x", {})
    with pytest.raises(ld.ParseError, match="unknown name '_k'"):
        parse_expr("_k", {}, unknown="symbol")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("__import__('os').system('rm -rf /')", "call of an expression"),
        ("__import__('os')", "dunder name '__import__'"),
        ("__builtins__", "dunder name"),
        ("m.__class__", "attribute access (.__class__)"),
        ("q1.func", "attribute access"),
        ("(1).__class__.__bases__", "attribute access"),
        ("m[0]", "subscript"),
        ("lambda: 0", "lambda"),
        ("(lambda x: x)(1)", "call of an expression"),
        ("[x for x in m]", "comprehension"),
        ("sum(x for x in m)", "call of 'sum'"),
        ("{m: l}", "dict"),
        ("(m, l)", "tuple"),
        ("'m'", "string literal"),
        ("f'{m}'", "string literal"),
        ("eval('1')", "call of 'eval'"),
        ("exec('1')", "call of 'exec'"),
        ("open('/etc/passwd')", "call of 'open'"),
        ("getattr(m, 'x')", "call of 'getattr'"),
        ("sympify('m')", "call of 'sympify'"),
        ("sin(m, l)", "takes 1 argument"),
        ("sin(x=m)", "keyword arguments"),
        ("sin(*m)", "starred"),
        ("m if l else g", "conditional expression"),
        ("m == l", "comparison"),
        ("m and l", "boolean operator"),
        ("(x := 1)", "assignment expression"),
        ("m ^ 2", "write '**'"),
        ("m % 2", "operator Mod"),
        ("m // 2", "operator FloorDiv"),
        ("~m", "operator Invert"),
        ("not m", "operator Not"),
        ("True", "constant True"),
        ("1j", "complex constant"),
        ("2**10**10", "exponent larger"),
        ("((2**1000)**1000)**1000", "number too large"),
        ("1e999", "non-finite"),
        ("m/0", "division by zero"),
        ("dot(m)", "does not depend on time"),
        ("sin", "must be called"),
        ("m +", "invalid syntax"),
        ("", "empty expression"),
        ("import os", "invalid syntax"),
        ("m; l", "invalid syntax"),
        ("zz", "unknown name 'zz'"),
    ],
)
def test_refused(text: str, fragment: str) -> None:
    with pytest.raises(ld.ParseError) as info:
        parse_expr(text, NAMES)
    assert fragment in str(info.value)


def test_refuses_non_strings_and_huge_or_deep_input() -> None:
    with pytest.raises(ld.ParseError, match="expected a string"):
        parse_expr(3, NAMES)  # type: ignore[arg-type]
    with pytest.raises(ld.ParseError, match="longer than"):
        parse_expr("m+" * 20000 + "m", NAMES)
    with pytest.raises(ld.ParseError, match="nested"):
        parse_expr("(" * 5000 + "m" + ")" * 5000, NAMES)


def test_never_evaluates(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    monkeypatch.setattr(sp, "sympify", boom)
    assert parse_expr("m*l", NAMES) == m * l


# --- issue 11 item 10: --lagrangian surprises -------------------------------------------


@pytest.mark.parametrize("mode", ["error", "symbol"])
def test_t_is_time_and_refused(mode: str) -> None:
    with pytest.raises(ld.ParseError, match="'t' is the time"):
        parse_expr("dot(q1)**2/2 - t*q1", NAMES, unknown=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["error", "symbol"])
def test_bare_e_is_not_silently_eulers_number(mode: str) -> None:
    with pytest.raises(ld.ParseError, match="exp\\(1\\)"):
        parse_expr("E*q1**2", NAMES, unknown=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["q1d**2", "q1_dot**2", "q1dot", "Derivative(q1, t)"])
def test_rate_spellings_get_a_dot_hint(text: str) -> None:
    with pytest.raises(ld.ParseError, match="dot\\(q1\\)|dot\\(q\\)"):
        parse_expr(text, NAMES, unknown="symbol")


def test_cli_lagrangian_with_leading_minus() -> None:
    from lagdyn.cli import main

    argv = ["derive", "--lagrangian", "-k*x**2/2 + dot(x)**2/2", "--coordinates", "x"]
    assert main([*argv, "--no-proofs"]) == 0

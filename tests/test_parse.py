"""The restricted expression parser: what it builds and everything it refuses."""

from __future__ import annotations

import re

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
        ("1e999", "overflows a double"),
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


# --- issue 22 item 8: no hang or crash from a tiny input ---------------------------------
X, Y = ld.coordinates("x y")
XY = {"x": X, "y": Y}


@pytest.mark.parametrize(
    "text, fragment",
    [
        # nested powers multiply: (1+x)**1000000, which aborted the process in GNU MP
        ("dot(x)**2/2 + ((1+x)**1000)**1000", "'((1+x)**1000)**1000' at column 15 has "),
        ("((1+x)**1000)**1000", "total degree 1000000 when expanded, above the limit 1000"),
        # products add degrees: (1+x)**2000 through a multiplication chain
        ("(1+x)**1000*(1+x)**1000", "total degree 2000 when expanded"),
        ("(1+x)**600*(1+x)**600*(1+x)**600", "total degree 1200 when expanded"),
        # a multinomial of 4 terms to the 300th: C(303, 3) = 4 590 551 terms (ran > 120 s)
        (
            "dot(x)**2/2 - (sin(x) + cos(x) + sin(y) + cos(y))**300",
            "expands to about 4.59e+06 terms, above the limit 10000",
        ),
        ("1/(1 + x + y)**1000", "expands to about 5.02e+05 terms"),
        # number literals beyond a double: named, fast
        ("1e1000000000*dot(x)**2", "the number 1e1000000000 overflows a double"),
        ("dot(x)**2 + 1e-1000000000*x", "the number 1e-1000000000 underflows a double"),
    ],
)
def test_work_is_bounded_before_it_starts(text: str, fragment: str) -> None:
    with pytest.raises(ld.ParseError, match=re.escape(fragment)):
        parse_expr(text, XY)


def test_sizes_within_the_limits_are_accepted() -> None:
    from lagdyn.parse import MAX_DEGREE, MAX_TERMS, expansion_size

    expr = parse_expr("(sin(x) + cos(x) + sin(y) + cos(y))**37", XY)
    assert expansion_size(expr) == (9880, 37) and 9880 <= MAX_TERMS == 10_000
    with pytest.raises(ld.ParseError, match="about 1.07e\\+04 terms"):
        parse_expr("(sin(x) + cos(x) + sin(y) + cos(y))**38", XY)
    assert parse_expr("(x**10)**100", XY) == X**1000 and MAX_DEGREE == 1000
    assert expansion_size(parse_expr("(x**10)**100", XY)) == (1, 1000)
    assert parse_expr("0e5*x + 0.0", XY) == 0  # zero literals are not underflows


def test_expansion_size_counts_through_every_subexpression() -> None:
    from lagdyn.parse import expansion_size

    x, y = sp.symbols("x y")
    assert expansion_size((x + y) ** 2 * (x + 1)) == (6, 3)
    assert expansion_size(sp.sin((1 + x) ** 50) + y) == (51, 50)  # inside a call
    assert expansion_size(1 / (1 + x) ** 20 + x) == (21, 20)  # inside a denominator
    assert expansion_size(sp.sqrt(1 + x) * x) == (2, 2)  # the root is not expanded
    memo: dict[sp.Basic, object] = {}
    assert expansion_size((1 + x) ** 3, memo) == (4, 3)
    assert expansion_size(((1 + x) ** 3) ** 2, memo) == (7, 6)  # memo shares the subtree


def test_t_in_a_force_is_the_time() -> None:
    # a time-dependent force was refused with "a Lagrangian may not depend on time"
    Q = parse_expr("sin(t)*x", XY, time=True)
    assert Q == sp.sin(ld.t) * X
    with pytest.raises(ld.ParseError, match="a Lagrangian may not depend on time explicitly"):
        parse_expr("sin(t)*x", XY)


def test_cli_forces_may_depend_on_time(capsys: pytest.CaptureFixture[str]) -> None:
    from lagdyn.cli import main

    argv = ["derive", "--lagrangian", "dot(x)**2/2", "--coordinates", "x", "--forces", "sin(t)"]
    assert main([*argv, "--no-proofs"]) == 0, capsys.readouterr().err
    assert "sin(t)" in capsys.readouterr().out


def test_names_are_read_in_nfkc_form_as_python_reads_them() -> None:
    # the full-width x is x for Python's parser; keys given in another form still match
    assert parse_expr("\uff58**2", XY) == X**2
    m_ = sp.Symbol("m")
    assert parse_expr("\uff4d*x", {"\uff4d": m_, "x": X}) == m_ * X
    with pytest.raises(ld.ParseError, match="two names read as 'm'"):
        parse_expr("m", {"\uff4d": m_, "m": sp.Symbol("m2")})


def test_a_look_alike_new_name_is_refused() -> None:
    # Cyrillic a (U+0430) would silently become a second parameter beside the Latin a
    with pytest.raises(ld.ParseError, match=r"'\u0430' looks like 'a' but holds .*U\+0430"):
        parse_expr("a*x + \u0430*y", XY, unknown="symbol")
    with pytest.raises(ld.ParseError, match="U\\+0430 CYRILLIC SMALL LETTER A"):
        parse_expr("\u0430*x", {**XY, "a": sp.Symbol("a")}, unknown="symbol")


def test_nested_power_does_not_abort_the_process() -> None:
    """Run in a subprocess: before the bound, this aborted Python in GNU MP (or ran out of
    memory); now it is a named error and exit status 2 within seconds."""
    import subprocess
    import sys

    argv = [
        sys.executable,
        "-m",
        "lagdyn",
        "derive",
        "--lagrangian",
        "dot(x)**2/2 + ((1+x)**1000)**1000",
        "--coordinates",
        "x",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "total degree 1000000" in done.stderr

"""Issue 22 items 8 and 9: names and sizes a tiny input could abuse — symbol ranges counted
before anything is made, names in one Unicode form, look-alike names noted, expressions
whose expansion would not finish refused before anything is expanded."""

from __future__ import annotations

import time
import warnings

import pytest
import sympy as sp

import lagdyn as ld


# ------------------------------------------------------------------------ ranges
@pytest.mark.parametrize("make", [ld.coordinates, ld.parameters])
def test_a_huge_range_is_refused_before_any_symbol_is_made(make) -> None:  # type: ignore[no-untyped-def]
    from lagdyn.symbols import MAX_NAMES

    start = time.perf_counter()
    with pytest.raises(ld.CoordinateError, match="'x:100000000' would create more than 10000"):
        make("x:100000000")
    with pytest.raises(ld.CoordinateError, match="would create more than 10000 names"):
        make("x:" + "9" * 5000)  # was Python's "Exceeds the limit (4300 digits)" ValueError
    with pytest.raises(ld.CoordinateError, match=r"'x\(:200\)\(:200\)' would create more than"):
        make("x(:200)(:200)")  # 40 000 names through a product of ranges
    assert time.perf_counter() - start < 1.0
    assert MAX_NAMES == 10_000


@pytest.mark.parametrize("make", [ld.coordinates, ld.parameters])
def test_empty_and_malformed_ranges_are_named(make) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ld.CoordinateError, match="'x:0' gives no names"):
        make("x:0")  # was an empty tuple
    with pytest.raises(ld.CoordinateError, match="cannot read the names 'x:': missing end range"):
        make("x:")  # was sympy's ValueError
    assert len(make("x:3 y(:2)(:2)")) == 7


# ------------------------------------------------------------------------ Unicode forms
@pytest.mark.parametrize("make", [ld.coordinates, ld.parameters])
def test_names_not_in_nfkc_form_are_refused(make) -> None:  # type: ignore[no-untyped-def]
    # the parser (Python's) reads the full-width x as x: the two spellings would differ
    with pytest.raises(ld.CoordinateError, match=r"'ｘ' reads as 'x' once Unicode-normalized"):
        make("ｘ")
    with pytest.raises(ld.CoordinateError, match=r"U\+2113 SCRIPT SMALL L.*write 'l'"):
        make("ℓ")
    assert str(make("θ")[0]).startswith("θ")  # a normal Greek letter is fine


@pytest.mark.parametrize("make", [ld.coordinates, ld.parameters])
def test_look_alike_names_in_one_call_are_refused(make) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ld.CoordinateError, match=r"'а' looks like 'a' but holds 'а' \(U\+0430"):
        make("a \u0430")
    assert len(make("v \u03bd p \u03c1")) == 4  # ν and v, ρ and p are different letters


def test_skeleton_and_note() -> None:
    from lagdyn.symbols import confusable_note, skeleton

    assert skeleton("\u0410\u0412") == "AB" and skeleton("\uff4d") == "m"
    assert confusable_note("m\u0430ss", ["mass"]) == (
        "'mаss' looks like 'mass' but holds 'а' (U+0430 CYRILLIC SMALL LETTER A)"
    )
    assert confusable_note("mass", ["mass", "m"]) is None


# ------------------------------------------------------------------------ homoglyph params
def test_an_unknown_look_alike_parameter_name_gets_a_note() -> None:
    (x,) = ld.coordinates("x")
    a = sp.Symbol("a", positive=True)
    sys = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - a * x**2 / 2, [x])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        num = sys.lambdify({"\u0430": 2.0}, backend="numpy")  # Cyrillic а
    text = " ".join(str(w.message) for w in caught if issubclass(w.category, ld.LagdynWarning))
    assert "did you mean a?" in text and "U+0430 CYRILLIC SMALL LETTER A" in text, text
    assert num.free_parameters == (a,)


# ------------------------------------------------------------------------ sizes
def test_a_lagrangian_too_large_to_derive_is_refused_before_expansion() -> None:
    x, y = ld.coordinates("x y")
    xd, yd = ld.velocities([x, y])
    start = time.perf_counter()
    with pytest.raises(ld.LagdynError, match="L is too large to derive: .* total degree 1000000"):
        ld.LagrangianSystem(xd**2 / 2 + ((1 + x) ** 1000) ** 1000, [x])
    trig = (sp.sin(x) + sp.cos(x) + sp.sin(y) + sp.cos(y)) ** 300
    with pytest.raises(ld.LagdynError, match="L is too large to derive: .* about 4.59e\\+06 terms"):
        ld.LagrangianSystem(xd**2 / 2 + yd**2 / 2 - trig, [x, y])
    with pytest.raises(ld.LagdynError, match=r"forces\[0\] is too large to derive"):
        ld.LagrangianSystem(xd**2 / 2, [x], [(1 + x) ** 1000 * (1 + xd) ** 1000])
    # from_mass_matrix tested symmetry with sympy.expand before anything else
    M = sp.Matrix([[1, (1 + x) ** 2000], [(1 + x) ** 2000 + 1, 1]])
    with pytest.raises(ld.LagdynError, match=r"M\[0, 1\] is too large to derive"):
        ld.LagrangianSystem.from_mass_matrix(M, 0, [x, y])
    assert time.perf_counter() - start < 2.0


def test_an_exact_constant_beyond_a_double_is_named() -> None:
    (x,) = ld.coordinates("x")
    xd = x.diff(ld.t)
    # was "cannot print the non-finite constant inf into generated code" at lambdify
    with pytest.raises(ld.UndefinedExpressionError, match="overflows a double"):
        ld.LagrangianSystem(10**400 * xd**2 / 2 - x**2, [x])
    with pytest.raises(ld.UndefinedExpressionError, match="underflows a double"):
        ld.LagrangianSystem(xd**2 / 2 - sp.Rational(1, 10**400) * x**2, [x])
    assert ld.LagrangianSystem(10**300 * xd**2 / 2 - x**2, [x]).M[0, 0] == 10**300


def test_look_alike_symbols_in_one_model_get_a_note() -> None:
    (x,) = ld.coordinates("x")
    a, a_cyrillic = sp.Symbol("a"), sp.Symbol("\u0430")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - a * x**2 - a_cyrillic * x, [x])
    texts = [str(w.message) for w in caught if issubclass(w.category, ld.LagdynWarning)]
    assert texts == [
        "symbols that look alike but are different: 'а' looks like 'a' but holds 'а' "
        "(U+0430 CYRILLIC SMALL LETTER A)"
    ]
    assert caught[0].filename == __file__  # pointed at the caller

"""Parameters declared the sympy way (issue 21, item 4): ``m, l, g = sp.symbols("m l g")``
used to make "M positive definite" FAILED for a plain pendulum and ``lagdyn check`` exit 1.
Without a counterexample for positive values the answer is unknown, with a note naming the
parameter whose sign decides it and how to declare it."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.cli import main

(th,) = ld.coordinates("theta")


def pendulum(m: sp.Symbol, l: sp.Symbol, g: sp.Symbol) -> ld.LagrangianSystem:
    return ld.LagrangianSystem.from_energies(
        m * l**2 * th.diff(ld.t) ** 2 / 2, -m * g * l * sp.cos(th), [th]
    )


def test_plain_symbols_give_unknown_with_a_note() -> None:
    report = ld.structure.check(pendulum(*sp.symbols("m l g")))
    assert report.positive_definite is None
    assert report.ok and not report.proved
    (note,) = report.notes
    assert "positive m" in note and "ld.parameters('m')" in note
    assert " l" not in note.split("positive definite for positive")[1].split(",")[0]


def test_positive_symbols_prove_it() -> None:
    report = ld.structure.check(pendulum(*ld.parameters("m l g")))
    assert report.positive_definite is True and report.notes == ()


def test_a_counterexample_for_positive_values_is_still_false() -> None:
    x, y = ld.coordinates("x y")
    a, b = sp.symbols("a b")
    M = sp.Matrix([[a, 2 * a], [2 * a, a]])  # indefinite for every a > 0
    assert ld.structure.is_positive_definite(M) is False
    assert ld.structure.is_positive_definite(sp.Matrix([[a * b**2]])) is None


def test_cli_check_exits_3_and_says_how_to_declare(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "pendulum.py"
    model.write_text(
        "import sympy as sp\n"
        "import lagdyn as ld\n"
        "th, = ld.coordinates('theta')\n"
        "m, l, g = sp.symbols('m l g')\n"
        "system = ld.LagrangianSystem.from_energies(\n"
        "    m * l**2 * th.diff(ld.t)**2 / 2, -m * g * l * sp.cos(th), [th])\n"
    )
    status = main(["check", "--file", str(model)])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "FAILED" not in out and "note: M is positive definite for positive m" in out

"""The lagdyn command, through main([...])."""

from __future__ import annotations

import pytest

from lagdyn.cli import main


def test_zoo_lists_models(capsys):
    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    assert "double_pendulum" in out and "two_link_planar" in out


def test_derive_prints_everything_readably(capsys):
    assert main(["derive", "double_pendulum"]) == 0
    out = capsys.readouterr().out
    for part in (
        "M(q) =",
        "C(q, q̇) =",
        "g(q) =",
        "equations of motion",
        "skew-symmetric",
        "passivity",
        "positive definite",
        "time:",
    ):
        assert part in out
    assert "(t)" not in out
    assert "a\u0307" in out  # dots for rates (combining dot above)
    assert "FAILED" not in out


def test_derive_with_option(capsys):
    assert main(["derive", "double_pendulum", "-o", "coordinates=relative", "--no-proofs"]) == 0
    assert "u₁" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["derive", "nope"], "unknown model 'nope'"),
        (["derive", "double_pendulum", "-o", "coordinates=bogus"], "coordinates must be"),
        (["derive", "double_pendulum", "-o", "garbage"], "expected KEY=VALUE"),
        (["derive", "double_pendulum", "-o", "nokey=1"], "unexpected keyword"),
        (["frobnicate"], "invalid choice"),
        (["derive"], "required"),
    ],
)
def test_errors_one_line_exit_2(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lagdyn: error:")
    assert fragment in err

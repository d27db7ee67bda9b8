"""Messages and outputs (issue 21 items 9 and 14): the error contract's holes, one rule for
output paths, rates printed with their marks on the whole name, the quick start's report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.cli import main

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- item 9
def test_unbound_parameter_error_says_its_advice_once():
    dp = ld.zoo.double_pendulum()
    num = ld.numeric.lambdify(dp)
    for call in (
        lambda: num.M([0.1, 0.2]),
        lambda: num.M([0.1, 0.2], params={"g": 9.81}),
    ):
        with pytest.raises(ld.UnboundParameterError) as info:
            call()
        message = str(info.value)
        assert message.count("params=") == 1, message
        assert message.count("per call") <= 1, message
        assert "l1" in message and "m2" in message


def test_unbound_parameter_error_where_and_advice():
    plain = str(ld.UnboundParameterError(["m"], "equilibrium"))
    assert plain == (
        "no value for parameter(s) m (equilibrium): bind them in params={...} or pass them per call"
    )
    told = str(ld.UnboundParameterError(["m"], advice="pass params= per call"))
    assert told == "no value for parameter(s) m: pass params= per call"


def test_shape_error_prints_shapes_as_shapes():
    from lagdyn.errors import shape_text

    assert shape_text([1.0, 2.0, 3.0]) == "(3,)"
    assert shape_text(np.zeros((2, 3))) == "(2, 3)"
    assert shape_text((3,)) == "(3,)"
    assert shape_text(sp.Matrix([1, 2, 3])) == "(3, 1)"
    assert shape_text(np.float64(2.0)) == "()"
    dp = ld.zoo.double_pendulum()
    num = ld.numeric.lambdify(dp, dp.defaults)
    messages = []
    for call in (
        lambda: num.M([1.0, 2.0, 3.0]),
        lambda: num.forward_dynamics([1.0, 2.0], [0.0, 0.0], tau=[[1.0, 2.0, 3.0]]),
        lambda: ld.simulate(dp, [1.0, 2.0, 3.0], 0.1),
    ):
        with pytest.raises(ld.ShapeError) as info:
            call()
        messages.append(str(info.value))
    for message in messages:
        assert "array(" not in message and "[3]" not in message, message
    assert "(3,)" in messages[0] and "(1, 3)" in messages[1] and "(3,)" in messages[2]


def test_dir_of_the_package_exports_no_typing_helpers():
    names = set(dir(ld))
    assert not names & {"Any", "TYPE_CHECKING", "annotations"}
    assert {"simulate", "LagrangianSystem", "zoo", "LagdynError", "__version__"} <= names


# ---------------------------------------------------------------------------- item 14
def test_simulate_creates_a_missing_directory_like_lab_and_export(tmp_path, capsys):
    csv = tmp_path / "nodir" / "deeper" / "run.csv"
    assert main(["simulate", "double_pendulum", "--t", "0.05", "--csv", str(csv)]) == 0
    assert csv.is_file()
    assert f"wrote {csv}" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--gif", "--csv"])
def test_simulate_refuses_a_path_through_a_file_before_simulating(tmp_path, capsys, flag):
    blocker = tmp_path / "file.txt"
    blocker.write_text("keep")
    target = blocker / "out.gif"
    assert main(["simulate", "double_pendulum", "--t", "0.05", flag, str(target)]) == 2
    captured = capsys.readouterr()
    assert "exists and is not a directory" in captured.err
    assert "energy drift" not in captured.out  # refused before simulating
    assert blocker.read_text() == "keep"


def test_lab_and_export_follow_the_same_rule(tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("keep")
    assert main(["lab", "double_pendulum", "--out", str(blocker / "lab.html")]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err
    out = tmp_path / "a" / "b"
    assert main(["export", "double_pendulum", "-t", "matlab", "--out", str(out)]) == 0
    assert (out / "double_pendulum_M.m").is_file()


def test_rates_of_a_multi_letter_coordinate_are_marked_on_the_whole_name(capsys):
    argv = [
        "derive",
        "--lagrangian",
        "m*l**2*dot(th)**2/2 + m*g*l*cos(th)",
        "--coordinates",
        "th",
        "--no-proofs",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "tḧ" not in out and "tḣ" not in out  # no dots on the h alone
    assert "th''" in out


def test_rate_names_are_consistent():
    from lagdyn.cli.commands import _dotted

    def show(name: str, dots: int) -> str:
        return sp.pretty(_dotted(name, dots), use_unicode=True)

    assert [show("th", k) for k in (0, 1, 2)] == ["th", "th'", "th''"]
    assert [show("th1", k) for k in (1, 2)] == ["th'₁", "th''₁"]
    assert [show("theta", k) for k in (1, 2)] == ["θ̇", "θ̈"]
    assert [show("theta_1", k) for k in (1, 2)] == ["θ̇₁", "θ̈₁"]
    assert [show("q2", k) for k in (1, 2)] == ["q̇₂", "q̈₂"]


def test_quickstart_prints_the_proof_report_line_by_line():
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    ).stdout
    assert "['" not in out
    lines = out.splitlines()
    assert any(line.startswith("M symmetric") for line in lines)
    assert any(line.startswith("passivity") or "passiv" in line for line in lines)

"""The lagdyn command: options, output, exit statuses, simulate, bench."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lagdyn.cli import main

UNKNOWN_PD = [
    "--lagrangian",
    "(2+sin(x))*dot(x)**2/2 + dot(y)**2/2*(1+x**2)",
    "--coordinates",
    "x y",
]


def test_o_is_a_model_option_in_export_too(tmp_path):
    out = tmp_path / "x"
    assert main(["export", "n_link_pendulum", "-t", "c", "-o", "n=4", "--out", str(out)]) == 0
    assert "q[3]" in (out / "n_link_pendulum.c").read_text()
    assert not (Path.cwd() / "n=4").exists()


def test_huge_integer_options_are_refused(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "n=100000"]) == 2
    assert "too large" in capsys.readouterr().err


def test_simulate_gif_through_a_file_errors_before_simulating(tmp_path, capsys):
    # the CLI's one rule for output paths (docs/guarantees.md, "Messages and outputs"):
    # missing directories are created, a path through an existing file is refused early
    blocker = tmp_path / "file"
    blocker.write_text("")
    gif = blocker / "a.gif"
    assert main(["simulate", "double_pendulum", "--t", "0.1", "--gif", str(gif)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_simulate_cart_pole_default_state_is_not_an_angle_for_x(capsys):
    assert main(["simulate", "cart_pole", "--t", "0.02"]) == 0
    assert "initial state: x = 1, theta = 2" in capsys.readouterr().out


def test_simulate_csv_without_pandas(tmp_path):
    path = tmp_path / "run.csv"
    assert main(["simulate", "double_pendulum", "--t", "0.05", "--csv", str(path)]) == 0
    rows = path.read_text().splitlines()
    assert rows[0].startswith("t,a,b,a_d,b_d") and len(rows) == 1 + 6


def test_python_dash_m_lagdyn():
    run = subprocess.run(
        [sys.executable, "-m", "lagdyn", "zoo"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0 and "double_pendulum" in run.stdout


def test_check_says_what_was_not_proven_and_exits_3(capsys):
    assert main(["check", *UNKNOWN_PD, "--no-progress"]) == 3
    out = capsys.readouterr().out
    assert "not proven" in out and "M positive definite" in out
    assert "all proofs passed" not in out


def test_derive_json_includes_proof_results(capsys):
    import json

    assert main(["derive", "double_pendulum", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["proofs"] == {
        "symmetric": True,
        "skew_symmetric": True,
        "passive": True,
        "positive_definite": True,
    }


def test_text_output_shows_q_and_g(capsys):
    argv = ["derive", "--lagrangian", "dot(x)**2/2 + b*x*dot(y) + dot(y)**2/2", "--coordinates"]
    assert main([*argv, "x y", "--forces", "-c*dot(x);0", "--no-proofs"]) == 0
    out = capsys.readouterr().out
    assert "G(q) =" in out and "Q(q, q̇) =" in out


def test_wide_matrices_are_printed_one_entry_per_line(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "n=5", "--no-proofs"]) == 0
    out = capsys.readouterr().out
    assert "M(q), one entry per line:" in out and "M[1, 2] =" in out


def test_bench_times_are_never_negative(capsys):
    import re

    assert main(["bench", "two_link_planar", "--repeat", "3", "--states", "10"]) == 0
    times = [float(x) for x in re.findall(r"(-?\d+\.\d+) ms", capsys.readouterr().out)]
    assert times and min(times) >= 0.0


def test_cli_prints_large_entries_on_one_line(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "n=6", "-o", "coordinates=relative"]) == 0
    out = capsys.readouterr().out
    assert "Eq(" not in out
    assert "M positive definite ............. proved" in out
    # the last equation is a single line "… = τ₆" in linear syntax
    last = [line for line in out.splitlines() if line.endswith("= τ₆")]
    assert len(last) == 1 and "φ̇₁" in last[0] and "**2" in last[0]

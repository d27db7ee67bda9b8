"""Regression tests of the struct refactor: drawing geometry, safe export writing, one option
spelling, the CLI simulate command, the passivity balance with Q and the shared integrators."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
from lagdyn._files import write_files_atomically
from lagdyn.cli import main
from lagdyn.geometry import drawing_of, project
from lagdyn.plot import positions_for


# ----------------------------------------------------------------- geometry (issue 11 item 5)
def test_furuta_is_drawn_from_its_3d_geometry_not_as_a_double_pendulum():
    sys_ = ld.zoo.furuta_pendulum()
    d = {str(k): v for k, v in sys_.defaults.items()}
    th1, th2 = 0.7, 0.4
    arm = np.array([d["L1"] * np.cos(th1), d["L1"] * np.sin(th1), 0.0])
    # pendulum along R2 = Rz(th1) Rx(th2) applied to (0, 0, 2 lc2)
    local = np.array([0.0, -np.sin(th2), np.cos(th2)]) * 2 * d["lc2"]
    rz = np.array([[np.cos(th1), -np.sin(th1), 0], [np.sin(th1), np.cos(th1), 0], [0, 0, 1]])
    tip = arm + rz @ local
    expected = project(np.array([[0.0, 0.0, 0.0], arm, tip]))
    got = positions_for("furuta_pendulum")([th1, th2])
    np.testing.assert_allclose(got, expected, atol=1e-14)
    planar = ld.plot.chain_positions([th1, th2], [1.0, 1.0])
    assert got.shape == planar.shape and not np.allclose(got, planar)


def test_spherical_pendulum_bob_stays_on_the_sphere():
    sys_ = ld.zoo.spherical_pendulum()
    drawing = drawing_of(sys_)
    assert drawing is not None and drawing.dim == 3
    q = np.random.default_rng(1).uniform(-3, 3, size=(20, 2))
    # an orthographic projection never lengthens: |projected| <= l, and the pivot is fixed
    pts = positions_for("spherical_pendulum", sys_)(q)
    assert np.all(np.linalg.norm(pts[:, 1] - pts[:, 0], axis=-1) <= 1.0 + 1e-12)
    np.testing.assert_array_equal(pts[:, 0], 0.0)


def test_every_zoo_model_carries_a_drawing():
    for name in ld.zoo.names():
        system = ld.zoo.get(name)
        assert drawing_of(system) is not None, name
        pts = positions_for(name, system)(np.full(system.n, 0.3))
        assert pts.ndim == 2 and pts.shape[1] == 2 and np.all(np.isfinite(pts)), name


def test_cart_pole_cart_is_a_box_and_has_no_pivot():
    d = drawing_of(ld.zoo.cart_pole())
    assert d.carts == (0,) and d.pivots == ()


def test_animate_refuses_a_missing_directory(tmp_path):
    res = ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))
    with pytest.raises(ld.LagdynError, match="does not exist"):
        ld.plot.animate(res, positions_for("double_pendulum"), tmp_path / "no" / "x.gif")
    assert not (tmp_path / "no").exists()


# ----------------------------------------------------------------- files (issue 11 item 8)
def test_export_refuses_existing_files_unless_force(tmp_path, capsys):
    argv = ["export", "double_pendulum", "-t", "matlab", "--out", str(tmp_path)]
    assert main(argv) == 0
    target = tmp_path / "double_pendulum_M.m"
    target.write_text("mine")
    assert main(argv) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert target.read_text() == "mine"
    assert main([*argv, "--force"]) == 0
    assert target.read_text() != "mine"


def test_export_never_writes_through_a_symlink(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "double_pendulum_M.m")
    argv = ["export", "double_pendulum", "-t", "matlab", "--out", str(out), "--force"]
    assert main(argv) == 2
    assert victim.read_text() == "keep"
    assert sorted(p.name for p in out.iterdir()) == ["double_pendulum_M.m"]  # nothing else


def test_export_empty_directory_is_an_error(capsys):
    assert main(["export", "double_pendulum", "-t", "c", "--out", ""]) == 2
    assert "empty" in capsys.readouterr().err


def test_write_files_all_or_none(tmp_path):
    (tmp_path / "b.txt").write_text("old")
    with pytest.raises(ld.LagdynError):
        write_files_atomically(tmp_path, {"a.txt": "1", "b.txt": "2"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]  # no a.txt, no temp files


# ----------------------------------------------------------------- options (issue 11 item 9)
def test_o_is_a_model_option_in_export_too(tmp_path):
    out = tmp_path / "x"
    assert main(["export", "n_link_pendulum", "-t", "c", "-o", "n=4", "--out", str(out)]) == 0
    assert "q[3]" in (out / "n_link_pendulum.c").read_text()
    assert not (Path.cwd() / "n=4").exists()


def test_huge_integer_options_are_refused(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "n=100000"]) == 2
    assert "too large" in capsys.readouterr().err


# ----------------------------------------------------------------- simulate command
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


# ----------------------------------------------------------------- reports (issue 11 item 5)
def test_passivity_residual_includes_generalized_forces():
    (x,) = ld.coordinates("x")
    m, k, c = ld.parameters("m k c")
    osc = ld.LagrangianSystem(
        m * x.diff(ld.t) ** 2 / 2 - k * x**2 / 2, [x], forces=[-c * x.diff(ld.t)]
    )
    res = ld.simulate(osc, [1.0, 0.0], np.linspace(0, 10, 1001), params={m: 1, k: 4, c: 0.5})
    rep = res.report()
    assert rep.energy_drift > 1.0  # the damper took most of the energy
    assert rep.passivity < 1e-4  # ... and the balance accounts for it


# ----------------------------------------------------------------- one integrator stack
def test_constrained_simulation_uses_the_shared_integrators():
    dp = ld.zoo.double_pendulum()
    num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
    t = np.linspace(0, 0.5, 51)
    a = num.simulate([0.3, 0.3, 0.0, 0.0], t, method="midpoint")
    b = num.simulate([0.3, 0.3, 0.0, 0.0], t, method="rk4", substeps=2)
    np.testing.assert_allclose(a.q, b.q, atol=1e-4)
    with pytest.raises(ld.LagdynError, match="unknown method"):
        num.simulate([0.3, 0.3, 0.0, 0.0], t, method="euler")


# ----------------------------------------------------------------- names and laziness
def test_simulate_function_and_module_do_not_shadow_each_other():
    import lagdyn.simulation as simulation

    assert callable(ld.simulate) and ld.simulate is simulation.simulate
    assert not hasattr(ld.simulate, "__path__")


def test_import_lagdyn_does_not_load_plot_or_simulation():
    code = (
        "import sys, lagdyn; "
        "print(sorted(m for m in ('lagdyn.plot', 'lagdyn.simulation', 'lagdyn.numeric') "
        "if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


# ----------------------------------------------------------------- CLI readability (item 12)
UNKNOWN_PD = [
    "--lagrangian",
    "(2+sin(x))*dot(x)**2/2 + dot(y)**2/2*(1+x**2)",
    "--coordinates",
    "x y",
]


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


def test_lagdyn_help_does_not_import_sympy():
    code = "import sys; from lagdyn.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\nprint('sympy' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip().endswith("False")

"""Every number of the seed 003 lab table, to the seed's printed precision."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import sympy as sp

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "seed_lab.py"


@pytest.fixture(scope="module")
def ns() -> dict:
    return runpy.run_path(str(EXAMPLE))


@pytest.fixture(scope="module")
def lab(ns) -> dict:
    return ns["lab"]()


def close(x, expected, digits) -> bool:
    return round(float(x), digits) == pytest.approx(expected, abs=10.0 ** (-digits) / 2)


def test_state_and_rates(lab):
    assert lab["q_abs"] == (0, 0) and tuple(lab["q_rel"]) == (0, 0)
    assert tuple(lab["qd_abs"]) == (1, -1)
    assert tuple(lab["qd_rel"]) == (1, -2)  # rates mapped by the chain rule, never wrapped


def test_point_velocities_and_energy(lab):
    assert lab["v1"] == (1, 0)
    assert lab["v2"] == (0, 0)
    assert lab["K_points"] == sp.Rational(1, 2)
    assert lab["K_abs"] == sp.Rational(1, 2)
    assert lab["K_rel"] == sp.Rational(1, 2)
    assert lab["K_diagonal"] == sp.Rational(3, 2)
    assert lab["K_coupling"] == -1


def test_metrics_and_eigenvalues(lab):
    assert lab["M_abs"] == sp.Matrix([[2, 1], [1, 1]])
    assert lab["M_rel"] == sp.Matrix([[5, 2], [2, 1]])
    ea, er = lab["eig_abs"], lab["eig_rel"]
    assert close(ea[0], 0.382, 3) and close(ea[1], 2.618, 3)
    assert close(er[0], 0.1716, 4) and close(er[1], 5.828, 3)
    # exact values: (3 ∓ √5)/2 and 3 ∓ 2√2
    assert sp.expand(ea[0] - (3 - sp.sqrt(5)) / 2) == 0
    assert sp.expand(er[1] - (3 + 2 * sp.sqrt(2))) == 0
    assert lab["metric_residual"] == sp.zeros(2, 2)
    assert lab["det_M_abs"] == 1 and lab["det_M_abs_formula_proved"]


def test_generalized_forces_and_power(lab):
    assert lab["Q_abs"] == (3, 3)
    assert lab["Q_rel"] == (6, 3)
    assert lab["power_abs"] == 0 and lab["power_rel"] == 0 and lab["power_cartesian"] == 0


def test_gravity_part(ns, lab):
    a, b = ns["a"], ns["b"]
    m1, m2, l1, l2, g = ns["m1"], ns["m2"], ns["l1"], ns["l2"], ns["g"]
    expected = (-(m1 + m2) * g * l1 * sp.sin(a), -m2 * g * l2 * sp.sin(b))
    assert all(sp.expand(x - y) == 0 for x, y in zip(lab["gravity_Q"], expected))


def test_proofs(lab):
    assert lab["relative_same_as_direct"]
    assert lab["kinetic_energy_invariant"]
    assert lab["power_invariant"]
    assert lab["power_consistent"]
    assert lab["cj_zero"]
    assert lab["rank"] == 2 and lab["dof"] == 2


def test_tangent_step(lab):
    s = lab["step"]
    assert s.tangent == (sp.Rational(1, 2), -1, 0, -2)
    assert s.tangent_residuals == (sp.Rational(1, 4), sp.Rational(1, 4))
    assert s.exact_residuals == (0, 0)
    assert s.constraint_velocity == (0, 0)
    assert close(s.position_error, 0.2745, 4)
    assert close(s.finite_work, -3.673, 3)
    assert s.virtual_work == 0 and s.linear_work == 0
    # the exact points of the seed: (sin ½, −cos ½), (0, −2 cos ½)
    half = sp.Rational(1, 2)
    assert s.exact == (sp.sin(half), -sp.cos(half), 0, -2 * sp.cos(half))


def test_half_pi_case(lab):
    hp = lab["half_pi"]
    assert hp["M_abs"] == sp.diag(2, 1)
    assert hp["M_rel"] == sp.Matrix([[3, 1], [1, 1]])
    assert hp["eig_abs"] == (1, 2)
    assert tuple(sp.expand(x) for x in hp["eig_rel"]) == (2 - sp.sqrt(2), 2 + sp.sqrt(2))
    assert tuple(hp["qd_rel"]) == (1, 0)
    assert hp["K_abs"] == sp.Rational(3, 2) and hp["K_rel"] == sp.Rational(3, 2)


def test_printed_table(ns, lab):
    table = {r[0]: r[1:3] for r in ns["rows"](lab)}
    expected = {
        "angle1": ("0", "0"),
        "angle2": ("0", "0"),
        "angular rate1": ("1", "1"),
        "angular rate2": ("-1", "-2"),
        "metric11": ("2", "5"),
        "metric12": ("1", "2"),
        "metric22": ("1", "1"),
        "smallest eigenvalue": ("0.382", "0.1716"),
        "largest eigenvalue": ("2.618", "5.828"),
        "kinetic energy": ("0.5", "0.5"),
        "direct point energy": ("0.5", ""),
        "generalized force1": ("3", "6"),
        "generalized force2": ("3", "3"),
        "applied power": ("0", "0"),
        "virtual work": ("0", "0"),
        "finite h1: tangent / mapped": ("0.25", "0"),
        "finite h2: tangent / mapped": ("0.25", "0"),
        "finite work: exact / linear": ("-3.673", "0"),
    }
    assert table == expected


def test_main_prints(ns, capsys):
    ns["main"]()
    out = capsys.readouterr().out
    assert "position error = 0.2745 m" in out
    assert "finite work: exact / linear  -3.673" in out

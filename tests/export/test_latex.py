"""LaTeX and Markdown export: golden files, sympy printing regressions, parameter groups.

Regenerate the golden files with ``LAGDYN_UPDATE_GOLDEN=1 pytest tests/export/test_latex.py``
(or ``--update-golden``) and review the diff; a missing golden file fails.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.export import LagdynLatexPrinter, latex, markdown, parameter_groups
from lagdyn.zoo.robots import LARGE

GOLDEN = Path(__file__).parents[1] / "golden"
GOLDEN_WHAT = ("M", "C", "G", "g", "christoffel", "equations")


def golden_text(name: str) -> str:
    return latex(ld.zoo.get(name), what=GOLDEN_WHAT) + "\n"


# one golden file per zoo model (a model without one fails), plus the grouped arm
@pytest.mark.parametrize(
    "name", [*(n for n in ld.zoo.names() if n not in LARGE), "two_link_planar.grouped"]
)
def test_golden_latex(name: str, check_golden) -> None:
    if name.endswith(".grouped"):
        text = (
            latex(
                ld.zoo.get(name.removesuffix(".grouped")),
                what=GOLDEN_WHAT,
                group_parameters=True,
                trig="short",
            )
            + "\n"
        )
    else:
        text = golden_text(name)
    check_golden(GOLDEN / f"{name}.tex", text)


@pytest.mark.parametrize("name", [n for n in ld.zoo.names() if n not in LARGE])
def test_every_zoo_model_renders(name: str) -> None:
    text = golden_text(name)
    assert r"\begin{bmatrix}" in text and r"\begin{aligned}" in text
    assert "(t)" not in text and "frac{d}" not in text


# ---------------------------------------------------------------- sympy regressions
def test_dots_on_greek_and_subscripted_names_issue_14492() -> None:
    th1, phi = ld.coordinates("theta1 phi")
    p = LagdynLatexPrinter([th1, phi])
    assert p.doprint(th1.diff(ld.t)) == r"\dot{\theta}_{1}"
    assert p.doprint(phi.diff(ld.t, 2)) == r"\ddot{\phi}"
    assert p.doprint(th1.diff(ld.t, 3)) == r"\dddot{\theta}_{1}"
    assert p.doprint(th1.diff(ld.t, 4)) == r"\theta_{1}^{(4)}"
    (q_2,) = ld.coordinates("q_2")
    assert p.doprint(q_2.diff(ld.t, 2)) == r"\ddot{q}_{2}"


def test_no_time_argument_issue_16925() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    text = LagdynLatexPrinter([q1, q2]).doprint(sp.sin(q1) * q2.diff(ld.t) + q1**2)
    assert "(t)" not in text and "left(t" not in text
    assert r"\sin {q_{1}}" in text


def test_derivatives_print_as_dots_not_fractions_issue_6333() -> None:
    (q1,) = ld.coordinates("q1")
    text = LagdynLatexPrinter([q1]).doprint(q1.diff(ld.t) ** 2 + q1.diff(ld.t, 2))
    assert text == r"\dot{q}_{1}^{2} + \ddot{q}_{1}"
    # a derivative of something that is not a coordinate keeps sympy's notation
    x = sp.Symbol("x")
    f = sp.Function("f")(x)
    assert "frac" in LagdynLatexPrinter().doprint(f.diff(x))


def test_brackets_around_dotted_sums_issue_12078() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    m = sp.Symbol("m")
    p = LagdynLatexPrinter([q1, q2])
    qd1, qd2 = q1.diff(ld.t), q2.diff(ld.t)
    assert p.doprint(m * (qd1 + qd2)) == r"m \left(\dot{q}_{1} + \dot{q}_{2}\right)"
    assert p.doprint(sp.Mul(2, qd1 + qd2, evaluate=False)) == (
        r"2 \left(\dot{q}_{1} + \dot{q}_{2}\right)"
    )
    assert p.doprint((qd1 + qd2) ** 2) == r"\left(\dot{q}_{1} + \dot{q}_{2}\right)^{2}"
    arm = ld.zoo.two_link_planar()
    assert r"\left(\dot{q}_{1} + \dot{q}_{2}\right)" in latex(arm, what=("C",))


def test_short_trig_labels() -> None:
    q1, q2, q3 = ld.coordinates("q1 q2 q3")
    p = LagdynLatexPrinter([q1, q2, q3], trig="short")
    assert p.doprint(sp.cos(q2)) == "c_{2}"
    assert p.doprint(sp.sin(q1 + q2 + q3)) == "s_{123}"
    assert p.doprint(sp.cos(q1 - q3)) == "c_{1-3}"
    assert p.doprint(sp.sin(q2) ** 2) == "s_{2}^{2}"
    assert p.doprint(sp.sin(2 * q1)) == r"\sin{\left(2 q_{1} \right)}"


# ---------------------------------------------------------------- parameter groups
def test_two_link_planar_gets_the_seed_groups() -> None:
    arm = ld.zoo.two_link_planar()
    m1, m2, l1, lc1, lc2, I1, I2 = (
        next(p for p in arm.parameters if p.name == n)
        for n in ("m1", "m2", "l1", "lc1", "lc2", "I1", "I2")
    )
    groups = {grp.symbol.name: grp.definition for grp in parameter_groups(arm)}
    seed = {
        "alpha": I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2),
        "beta": m2 * l1 * lc2,
        "delta": I2 + m2 * lc2**2,
    }
    assert groups.keys() == seed.keys()
    for name, definition in seed.items():
        assert sp.expand(groups[name] - definition) == 0
    text = latex(arm, what=("M",), group_parameters=True)
    assert r"\alpha + 2 \beta \cos {q_{2}}" in text
    assert r"\delta" in text and "I_{2}" in text  # the definition is printed


def test_groups_substituted_into_c_and_equations() -> None:
    arm = ld.zoo.two_link_planar()
    text = latex(arm, what=("C", "equations"), group_parameters=True, trig="short")
    assert r"- \beta \left(\dot{q}_{1} + \dot{q}_{2}\right) s_{2}" in text
    assert r"\left(\alpha + 2 \beta c_{2}\right) \ddot{q}_{1}" in text


def test_group_names_avoid_parameter_names() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    alpha, m, l = sp.symbols("alpha m l", positive=True)
    M = sp.Matrix([[alpha * m + m * l**2, m * l * sp.cos(q2)], [m * l * sp.cos(q2), m * l**2]])
    sys = ld.LagrangianSystem.from_mass_matrix(M, 0, [q1, q2])
    names = [grp.symbol.name for grp in parameter_groups(sys)]
    assert "alpha" not in names and names[0] == "beta"


def test_no_groups_for_single_symbol_coefficients() -> None:
    assert parameter_groups(ld.zoo.double_pendulum()) != ()
    (th,) = ld.coordinates("theta")
    m = sp.Symbol("m", positive=True)
    pend = ld.LagrangianSystem.from_energies(m * th.diff(ld.t) ** 2 / 2, -m * sp.cos(th), [th])
    assert parameter_groups(pend) == ()


# ---------------------------------------------------------------- documents and options
def test_all_items_and_errors() -> None:
    dp = ld.zoo.double_pendulum()
    text = latex(dp, what=("M", "C", "G", "g", "Q", "christoffel", "equations", "energy"))
    assert text.count(r"\[") == 8
    assert r"V(q) =" in text and r"\Gamma_{" in text
    with pytest.raises(ld.LagdynError, match="unknown item"):
        latex(dp, what=("X",))
    with pytest.raises(ld.LagdynError, match="trig must be"):
        latex(dp, trig="tiny")  # type: ignore[arg-type]


def test_forces_appear_with_the_torques() -> None:
    (x,) = ld.coordinates("x")
    c, m = sp.symbols("c m", positive=True)
    sys = ld.LagrangianSystem.from_energies(
        m * x.diff(ld.t) ** 2 / 2, 0, [x], forces=[-c * x.diff(ld.t)]
    )
    text = latex(sys, what=("equations", "christoffel"))
    assert r"\tau_{1} - c \dot{x} &= m \ddot{x}" in text
    assert r"\Gamma_{ijk} = 0" in text


def test_standalone_document_structure() -> None:
    doc = latex(ld.zoo.two_link_planar(), standalone=True, group_parameters=True)
    assert doc.startswith(r"\documentclass") and doc.rstrip().endswith(r"\end{document}")
    assert r"\usepackage{amsmath" in doc and r"\subsection*{Parameter groups}" in doc


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_standalone_document_compiles(tmp_path: Path) -> None:
    doc = latex(
        ld.zoo.two_link_planar(),
        what=("M", "C", "G", "g", "Q", "christoffel", "equations", "energy"),
        standalone=True,
        group_parameters=True,
        trig="short",
    )
    (tmp_path / "eom.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "eom.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "eom.pdf").stat().st_size > 0


def test_markdown_and_html() -> None:
    arm = ld.zoo.two_link_planar()
    md = markdown(arm, group_parameters=True, trig="short")
    assert md.startswith("## Equations of motion")
    assert "### Mass matrix" in md and md.count("$$") == 2 * 5
    assert "Notation:" in md
    page = markdown(arm, html=True, title="Arm <2>")
    assert "<title>Arm &lt;2&gt;</title>" in page and "<math" in page

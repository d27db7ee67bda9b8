"""LaTeX notation for papers (issue 21, item 13).

Multi-letter symbols never read as products, a user's symbol mapping is honoured
everywhere, the legend lists exactly the abbreviations used, equations are aligned on
``&=`` with short left-hand sides, and grouped gravity moments are named and defined.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.cli import main
from lagdyn.export import LagdynLatexPrinter, latex

# the module itself (the package attribute `latex` is the function)
latex_module = importlib.import_module("lagdyn.export.latex")

ALL = ("M", "C", "G", "g", "Q", "christoffel", "equations", "energy")


def _param(system, name):
    return next(p for p in system.parameters if p.name == name)


# ------------------------------------------------------------------ multi-letter names
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lc2", "l_{c2}"),
        ("lc_2", "l_{c2}"),
        ("mc", "m_{c}"),
        ("Ip", "I_{p}"),
        ("Ixx1", "I_{xx1}"),
        ("mass", r"\mathit{mass}"),
        ("l1", "l_{1}"),
        ("theta2", r"\theta_{2}"),
        ("gamma_1", r"\gamma_{1}"),
        ("mus", r"\mu_{s}"),
    ],
)
def test_symbol_defaults(name: str, expected: str) -> None:
    assert latex_module.symbol_latex(name) == expected


def test_multi_letter_symbol_is_never_a_product() -> None:
    arm = ld.zoo.two_link_planar()
    lc2 = _param(arm, "lc2")
    assert LagdynLatexPrinter().doprint(lc2) == "l_{c2}"
    text = latex(arm, what=ALL, trig="short", group_parameters=True)
    for bad in ("lc_{2}", "l c_{2}", "lc_{1}", "lc2"):
        assert bad not in text
    cart = latex(ld.zoo.cart_pole(), what=ALL)
    for bad in (" mp", " mc", "Ip"):
        assert bad not in cart
    assert "m_{p}" in cart and "m_{c}" in cart and "I_{p}" in cart


def test_symbols_that_look_like_trig_abbreviations_are_refused() -> None:
    q1, q2 = ld.coordinates("q1 q2")
    c2, m = sp.symbols("c2 m", positive=True)
    sys = ld.LagrangianSystem.from_energies(
        m * (q1.diff(ld.t) ** 2 + q2.diff(ld.t) ** 2) / 2, c2 * sp.cos(q2), [q1, q2]
    )
    with pytest.raises(ld.LagdynError, match="c2.*symbols="):
        latex(sys, trig="short")
    text = latex(sys, trig="short", symbols={"c2": "k_{2}"})
    assert "k_{2} c_{2}" in text or "k_{2}" in text
    assert "c_{2}" in latex(sys)  # full trig: no abbreviation to confuse it with


# ------------------------------------------------------------------ the user's mapping
def test_user_mapping_is_honoured_everywhere() -> None:
    arm = ld.zoo.two_link_planar()
    lc2 = _param(arm, "lc2")
    mapping = {lc2: r"\ell_{c_2}", "lc1": r"\ell_{c_1}", "q2": r"\vartheta"}
    text = latex(arm, what=ALL, symbols=mapping, group_parameters=True, trig="short")
    grouped = latex(arm, what=("M",), symbols=mapping, group_parameters=True)
    assert r"\delta &= I_{2} + \ell_{c_2}^{2} m_{2}" in grouped  # parameter groups
    plain = latex(arm, what=("M", "C", "g", "equations"), symbols=mapping)
    m_block, c_block, g_block, eq_block = plain.split("\n\n")
    for block in (m_block, c_block, g_block, eq_block):
        assert r"\ell_{c_2}" in block
        assert "l_{c2}" not in block and "lc_{2}" not in block
    assert r"\ell_{c_1}" in g_block
    assert r"\dot{\vartheta}" in c_block and r"\ddot{\vartheta}" in eq_block
    assert r"\cos {\vartheta}" in m_block
    # the short-trig legend names the coordinates the user's way, too
    assert r"$c_{2} = \cos \vartheta$" in text.splitlines()[0]
    # LagrangianSystem.latex forwards the mapping
    assert r"\ell_{c_2}" in arm.latex(what=("g",), symbols={"lc2": r"\ell_{c_2}"})


def test_mapping_errors_and_unknown_names() -> None:
    arm = ld.zoo.two_link_planar()
    with pytest.raises(ld.LagdynError, match="LaTeX string"):
        latex(arm, symbols={"lc2": 3})  # type: ignore[dict-item]
    with pytest.warns(ld.LagdynWarning, match="lc3"):
        latex(arm, what=("g",), symbols={"lc3": "x"})


def test_cli_symbol_option(capsys) -> None:
    args = ["derive", "two_link_planar", "--latex", "--what", "g"]
    assert main([*args, "--symbol", r"lc2=\ell_{c_2}", "--symbol", r"lc1=\ell_{c_1}"]) == 0
    out = capsys.readouterr().out
    assert r"\ell_{c_2}" in out and r"\ell_{c_1}" in out and "l_{c2}" not in out
    assert main([*args, "--symbol", "lc2"]) == 2
    assert "NAME=LATEX" in capsys.readouterr().err


# ------------------------------------------------------------------ the legend
def _legend(text: str) -> set[str]:
    head = text.splitlines()[0]
    assert head.startswith("% notation:")
    return set(re.findall(r"\$([cs]_\{[0-9,\-]+\}) =", head))


def _body_labels(text: str) -> set[str]:
    body = "\n".join(text.splitlines()[1:])
    return set(re.findall(r"(?<![\\A-Za-z{])([cs]_\{[0-9,\-]+\})", body))


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("two_link_planar", ("M",)),
        ("two_link_planar", ("g",)),
        ("two_link_planar", ALL),
        ("double_pendulum", ("M", "equations")),
        ("planar_arm", ("g",)),
        ("elastic_pendulum", ALL),
    ],
)
def test_legend_lists_exactly_the_abbreviations_used(name: str, what) -> None:
    text = latex(ld.zoo.get(name), what=what, trig="short", group_parameters=True)
    legend, body = _legend(text), _body_labels(text)
    assert legend == body and legend


def test_legend_defines_each_abbreviation() -> None:
    text = latex(ld.zoo.double_pendulum(), what=("M", "g"), trig="short")
    head = text.splitlines()[0]
    assert r"$c_{1-2} = \cos(a - b)$" in head
    assert r"$s_{1} = \sin a$" in head and r"$s_{2} = \sin b$" in head
    assert "s_{12}" not in head  # not used: not mentioned


def test_no_legend_without_abbreviations() -> None:
    assert "notation" not in latex(ld.zoo.two_link_planar(), what=("M",))
    (x,) = ld.coordinates("x")
    m = sp.Symbol("m", positive=True)
    free = ld.LagrangianSystem.from_energies(m * x.diff(ld.t) ** 2 / 2, 0, [x])
    assert "notation" not in latex(free, trig="short")
    doc = latex(ld.zoo.two_link_planar(), what=("M",), trig="short", standalone=True)
    assert "Notation" in doc and r"c_{2} = \cos q_{2}" in doc and "s_{" not in doc


# ------------------------------------------------------------------ alignment
def test_equations_aligned_on_short_left_hand_sides() -> None:
    arm = ld.zoo.two_link_planar()
    text = latex(arm, what=("equations",))
    rows = text.split(r"\begin{aligned}")[1].split(r"\end{aligned}")[0].strip().split("\\\\\n")
    assert len(rows) == 2
    for i, row in enumerate(rows, start=1):
        lhs, rhs = row.split(" &= ")
        assert lhs == rf"\tau_{{{i}}}"
        assert r"\ddot{q}_{1}" in rhs
    (x,) = ld.coordinates("x")
    c, m = sp.symbols("c m", positive=True)
    damped = ld.LagrangianSystem.from_energies(
        m * x.diff(ld.t) ** 2 / 2, 0, [x], forces=[-c * x.diff(ld.t)]
    )
    assert r"\tau_{1} - c \dot{x} &= m \ddot{x}" in latex(damped, what=("equations",))


# ------------------------------------------------------------------ gravity moments
def test_grouped_gravity_moments_are_named_and_defined() -> None:
    arm = ld.zoo.two_link_planar()
    groups = latex_module.gravity_groups(arm)
    names = [grp.symbol.name for grp in groups]
    assert names == ["gamma_1", "gamma_2"]
    m1, m2, l1, lc1, lc2, g = (_param(arm, n) for n in ("m1", "m2", "l1", "lc1", "lc2", "g"))
    assert sp.expand(groups[0].definition - (m1 * lc1 + m2 * l1) * g) == 0
    assert sp.expand(groups[1].definition - m2 * lc2 * g) == 0
    text = latex(arm, what=("g", "equations", "energy"), group_parameters=True, trig="short")
    assert r"\gamma_{1} &= \left(l_{1} m_{2} + l_{c1} m_{1}\right) g" in text
    assert r"\gamma_{2} &= l_{c2} m_{2} g" in text
    g_block = next(b for b in text.split("\n\n") if "g(q) =" in b)
    assert r"\gamma_{1} c_{1}" in g_block and r"\gamma_{2} c_{12}" in g_block
    assert "m_{" not in g_block
    eq_block = next(b for b in text.split("\n\n") if r"\tau_{1} &=" in b)
    assert r"\gamma_{1} c_{1}" in eq_block and "l_{c1}" not in eq_block
    energy = next(b for b in text.split("\n\n") if "V(q) =" in b)
    assert r"\gamma_{1} s_{1}" in energy
    # only with grouping on
    assert r"\gamma" not in latex(arm, what=("g",))


def test_gravity_group_names_avoid_taken_names() -> None:
    (th,) = ld.coordinates("theta")
    gamma, m, l, g = sp.symbols("gamma m l g", positive=True)
    pend = ld.LagrangianSystem.from_energies(
        m * l**2 * th.diff(ld.t) ** 2 / 2 + gamma * th.diff(ld.t) ** 2,
        -m * g * l * sp.cos(th),
        [th],
    )
    (grp,) = latex_module.gravity_groups(pend)
    assert not grp.symbol.name.startswith("gamma")
    text = latex(pend, what=("g",), group_parameters=True)
    assert "l m g" in text


# ------------------------------------------------------------------ the docs page
def test_docs_latex_example_prints_what_the_page_shows(capsys) -> None:
    """docs/export.md's "LaTeX for papers" example runs and prints the output shown under it."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "export.md").read_text()
    section = page.split("### LaTeX for papers", 1)[1]
    code = re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)
    shown = re.search(r"^```latex\n(.*?)^```", section, re.S | re.M).group(1)
    exec(compile(code, "docs/export.md", "exec"), {})
    assert capsys.readouterr().out.strip() == shown.strip()

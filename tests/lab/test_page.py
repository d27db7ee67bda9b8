"""ld.lab without a browser: geometry, constraints, conventions, page contents, write()."""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.errors import LagdynError
from lagdyn.lab import default_conventions, model_geometry

PLANAR = {
    "double_pendulum": lambda: ld.zoo.double_pendulum(),
    "double_pendulum_relative": lambda: ld.zoo.double_pendulum(coordinates="relative"),
    "n_link_pendulum": lambda: ld.zoo.n_link_pendulum(3),
    "cart_pole": lambda: ld.zoo.cart_pole(),
    "acrobot": lambda: ld.zoo.acrobot(),
    "planar_arm": lambda: ld.zoo.planar_arm(3),
}


@functools.cache
def default_page(name: str) -> str:
    """``ld.lab.page`` of a PLANAR model with the default options (a str: shared by tests)."""
    return ld.lab.page(PLANAR[name]())


def config_of(text: str) -> dict:
    m = re.search(r"var LAB_CONFIG = (.*?);\n</script>", text, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_double_pendulum_constraints_are_the_seeds():
    dp = ld.zoo.double_pendulum()
    geo = model_geometry(dp)
    x1, y1, x2, y2 = geo.ambient()
    l1, l2 = sp.symbols("l1 l2", positive=True)
    h = geo.constraints(dp.q)
    assert [sp.expand(e) for e in h] == [
        sp.expand(x1**2 + y1**2 - l1**2),
        sp.expand((x2 - x1) ** 2 + (y2 - y1) ** 2 - l2**2),
    ]


@pytest.mark.parametrize("name", list(PLANAR))
def test_constraints_hold_on_the_map_and_leave_n_dof(name):
    """h(z(q)) = 0 identically and rank C = 2k − n: the lab's tangent geometry is consistent."""
    system = PLANAR[name]()
    geo = model_geometry(system)
    z = [c for p in geo.points for c in p]
    tangent = ld.ConstraintTangent.from_map(z, geo.constraints(system.q), geo.ambient(), system.q)
    assert tangent.residuals_on_map()
    assert tangent.proves_cj_zero()
    assert tangent.dof() == system.n


def test_stretching_link_is_not_a_constraint():
    el = ld.zoo.elastic_pendulum()
    assert model_geometry(el).constraints(el.q) == ()


def test_user_points_and_unknown_models():
    x, y = ld.coordinates("x y")
    k = ld.parameters("k")[0]
    xd, yd = ld.velocities([x, y])
    osc = ld.LagrangianSystem(
        (xd**2 + yd**2) / 2 - k * (x**2 + y**2) / 2, [x, y], defaults={k: 1.0}
    )
    with pytest.raises(LagdynError, match="points="):
        ld.lab.page(osc)
    r, phi = ld.coordinates("r phi")
    polar = ("polar", (r, phi), {x: r * sp.cos(phi), y: r * sp.sin(phi)})
    text = ld.lab.page(osc, points=[(x, y)], masses=[1], conventions=[polar])
    cfg = config_of(text)
    assert cfg["n_points"] == 1 and cfg["n_constraints"] == 0 and cfg["has_masses"]
    assert cfg["coord_kinds"] == ["length", "length"]
    assert [c["kinds"] for c in cfg["conventions"]] == [["length", "length"], ["length", "angle"]]
    with pytest.raises(LagdynError, match="planar"):
        model_geometry(osc, [(x, y, 0)])
    with pytest.raises(LagdynError, match="rates"):
        model_geometry(osc, [(xd, y)])


def test_default_conventions_round_trip():
    dp = ld.zoo.double_pendulum()
    (rel,) = default_conventions(dp)
    other = ld.change_coordinates(dp, list(rel.new_q), rel.mapping)
    direct = ld.zoo.double_pendulum(coordinates="relative")
    assert all(sp.expand(a - b) == 0 for a, b in zip(other.M, direct.M))
    (back,) = default_conventions(direct)
    again = ld.change_coordinates(direct, list(back.new_q), back.mapping)
    assert all(sp.expand(a - b) == 0 for a, b in zip(again.M, dp.M))
    assert default_conventions(ld.zoo.cart_pole()) == []
    assert [c.label for c in default_conventions(ld.zoo.n_link_pendulum(3))] == ["relative"]


@pytest.mark.parametrize("name", list(PLANAR))
def test_page_is_offline_and_complete(name):
    text = default_page(name)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)
    assert "https://" not in text and "http://" not in text
    assert "fetch(" not in text and "XMLHttpRequest" not in text
    for fn in ("function M(", "function forward_dynamics(", "function positions_jacobian("):
        assert fn in text
    cfg = config_of(text)
    assert cfg["n"] == PLANAR[name]().n


def test_double_pendulum_opens_on_the_seed_state():
    cfg = config_of(default_page("double_pendulum"))
    assert cfg["state"] == {
        "q": [0.0, 0.0],
        "qd": [1.0, -1.0],
        "dq": [1.0, -1.0],
        "F": [3.0, 0.0],
        "eps": 0.5,
    }
    assert cfg["param_values"] == [10.0, 1.0, 1.0, 1.0, 1.0]
    assert [c["label"] for c in cfg["conventions"]] == ["absolute", "relative"]
    assert cfg["constraint_units"] == ["m²", "m²"]


def test_state_options_and_errors():
    dp = ld.zoo.double_pendulum()
    cfg = config_of(ld.lab.page(dp, state={"b": 1.5, "v_a": 2, "dq_b": 0.25, "m2": 3, "Fy": -1}))
    assert cfg["state"]["q"] == [0.0, 1.5] and cfg["state"]["qd"] == [2.0, -1.0]
    assert cfg["state"]["dq"] == [1.0, 0.25] and cfg["state"]["F"] == [3.0, -1.0]
    assert cfg["param_values"][cfg["parameters"].index("m2")] == 3.0
    with pytest.raises(LagdynError, match="unknown key 'c'"):
        ld.lab.page(dp, state={"c": 1})
    with pytest.raises(LagdynError, match="lang"):
        ld.lab.page(dp, lang="fr")
    with pytest.raises(LagdynError, match="label, new_q, mapping"):
        ld.lab.page(dp, conventions=[("only a label",)])


def test_custom_convention_and_korean():
    dp = ld.zoo.double_pendulum()
    a, b = dp.q
    s, d = ld.coordinates("s d")
    text = ld.lab.page(
        dp, conventions=[("sum-difference", (s, d), {a: s + d, b: s - d})], lang="ko"
    )
    cfg = config_of(text)
    assert [c["label"] for c in cfg["conventions"]] == ["absolute", "sum-difference"]
    assert cfg["lang"] == "ko"
    assert "function to_primary_jacobian(" in text


def test_write_never_overwrites(tmp_path):
    dp = ld.zoo.double_pendulum()
    out = tmp_path / "lab.html"
    out.write_text("keep me")
    with pytest.raises(LagdynError, match="exists"):
        ld.lab.write(out, dp)
    assert out.read_text() == "keep me"
    ld.lab.write(out, dp, force=True)
    assert out.read_text().startswith("<!DOCTYPE html>")


# ----------------------------------------------------------------- labels (issue 21, item 10)

LAB_DIR = Path(ld.lab.__file__).parent
LAB_JS = (LAB_DIR / "lab.js").read_text(encoding="utf-8")
TEMPLATE = (LAB_DIR / "template.html").read_text(encoding="utf-8")


def test_labels_show_greek_letters_and_dotted_rates():
    """No combining dot anywhere (Chromium's fonts drop it: "ḃ" showed as "b"); rates are
    MathML with the dot over the whole symbol; Greek names are letters (θ₁, not theta1)."""
    text = ld.lab.page(ld.zoo.n_link_pendulum(4))
    assert "\u0307" not in text  # COMBINING DOT ABOVE
    assert "\u0307" not in LAB_JS
    cfg = config_of(text)
    lab = cfg["labels"]
    assert lab["coordinates"] == ["θ₁", "θ₂", "θ₃", "θ₄"]
    assert lab["coordinates_html"][0] == '<span class="sym"><i>θ</i><sub>1</sub></span>'
    assert lab["rates_html"][0] == (
        '<span class="sym"><span class="dotted"><i>θ</i>'
        '<span class="dot" aria-hidden="true"></span></span><sub>1</sub></span>'
    )
    assert lab["parameters"][:2] == ["g", "l₁"]
    # nothing the page displays spells a Greek letter's name
    shown = json.dumps(lab, ensure_ascii=False) + json.dumps(
        [c["label"] for c in cfg["conventions"]], ensure_ascii=False
    )
    assert "theta" not in shown and "phi" not in shown
    assert "(t)" not in shown


def test_symbol_text_and_html():
    from lagdyn.lab.page import symbol_html, symbol_text

    assert [symbol_text(s) for s in ("theta1", "b", "lc2", "phi", "x_cart")] == [
        "θ₁",
        "b",
        "lc₂",
        "φ",
        "x_cart",
    ]
    assert symbol_html("b", dot=True) == (
        '<span class="sym"><span class="dotted"><i>b</i>'
        '<span class="dot" aria-hidden="true"></span></span></span>'
    )
    assert symbol_html("q1", prefix="δ") == '<span class="sym">δ<i>q</i><sub>1</sub></span>'
    assert symbol_html("x_cart") == '<span class="sym"><i>x</i><sub>cart</sub></span>'
    assert symbol_html("a<b") == '<span class="sym"><span>a&lt;b</span></span>'


def _js_table(lang: str) -> dict[str, str]:
    block = re.search(rf"\n    {lang}: \{{\n(.*?)\n    \}},\n", LAB_JS, re.S)
    assert block is not None, lang
    return dict(re.findall(r'^      (\w+):\s*\n?\s*"((?:[^"\\]|\\.)*)",?$', block.group(1), re.M))


def test_korean_table_covers_every_english_string():
    """Every key of the English table has a Korean entry (and the reverse), every key the
    page uses exists in both, and no English text is displayed outside the tables."""
    en, ko = _js_table("en"), _js_table("ko")
    assert len(en) > 40
    assert set(en) == set(ko), set(en) ^ set(ko)
    untranslated = [k for k in en if en[k] == ko[k] and re.search("[A-Za-z]{3,}", en[k])]
    assert not untranslated
    used = set(re.findall(r'\btr\("(\w+)"\)', LAB_JS))
    used |= set(re.findall(r'data-i18n="(\w+)"', LAB_JS + TEMPLATE))
    assert used and used <= set(en), used - set(en)
    # the template: every element with text carries data-i18n (placeholders aside)
    body = re.sub(r"<(script|style)\b.*?</\1>", "", TEMPLATE, flags=re.S)
    words = re.findall(r">([^<>]*[A-Za-z]{2,}[^<>]*)<", body)
    assert [w for w in words if re.search("[A-Za-z]{2,}", re.sub(r"@\w+@", "", w))] == []
    # lab.js: template literals (captions, labels) hold symbols and tr() calls only
    code = LAB_JS[LAB_JS.index("let lang =") :]
    code = re.sub(r"new Error\(`[^`]*`\)", "", code)  # console API errors, never displayed
    for lit in re.findall(r"`((?:[^`\\]|\\.)*)`", code, re.S):
        shown = re.sub(r"\$\{[^{}]*(\{[^{}]*\}[^{}]*)*\}", " ", lit)
        if re.fullmatch(r"[\w=-]*", shown.strip()):
            continue  # an element id, a row key or a fragment key
        shown = re.sub(r"<[^>]*>", " ", shown)
        english = [w for w in re.findall(r"[A-Za-z]{3,}", shown) if w != "lagdyn"]
        assert not english, (lit, english)


def test_summary_and_convention_labels_are_translated_in_the_page():
    text = ld.lab.page(ld.zoo.double_pendulum(), lang="ko")
    assert not re.search(r"\d+ coordinates \(|\d+ particles", text)  # built by the page, in ko
    cfg = config_of(text)
    assert [c.get("i18n") for c in cfg["conventions"]] == ["absolute", "relative"]
    ko = _js_table("ko")
    assert ko["absolute"] != "absolute" and ko["relative"] != "relative"


# ----------------------------------------------------------------- n > 8: forward dynamics


NODE = shutil.which("node")

FD_RUNNER = """
const mod = require(process.argv[2]);
const args = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
process.stdout.write(JSON.stringify(mod.forward_dynamics(...args)));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_nine_link_page_module_has_forward_dynamics(tmp_path):
    """Above the unrolled solve size (n > 8) the page's module still has forward dynamics
    (the Cholesky fallback of model_source), so the swing mode runs; checked under Node."""
    from lagdyn.lab.js import page_modules

    system = ld.zoo.n_link_pendulum(9)
    (src,) = page_modules(system, model_geometry(system), [])
    assert "function forward_dynamics(" in src
    rng = np.random.default_rng(9)
    q, qd, tau = (rng.uniform(-1, 1, 9).tolist() for _ in range(3))
    p = [float(system.defaults[s]) for s in system.parameters]
    (tmp_path / "mod.js").write_text(src, encoding="utf-8")
    (tmp_path / "args.json").write_text(json.dumps([q, qd, tau, p]))
    (tmp_path / "run.js").write_text(FD_RUNNER)
    proc = subprocess.run(
        [NODE, str(tmp_path / "run.js"), str(tmp_path / "mod.js"), str(tmp_path / "args.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    num = system.lambdify(system.defaults, backend="numpy", cache=False)
    np.testing.assert_allclose(
        json.loads(proc.stdout), num.forward_dynamics(q, qd, tau), rtol=1e-9, atol=1e-9
    )


#: One title holding every hazard of the probe: closing tags, quotes, a comment opener,
#: the template's own placeholders, non-ASCII text, and length.
HOSTILE_TITLE = (
    "</title><script>alert(1)</script> \"double\" 'single' & </script> <!-- "
    "@LAB_JS@ @MODEL@ @CONFIG@ @TITLE@ — 한국어 θ₁ ünï " + "x" * 5000
)
HOSTILE_LABEL = "pendulum </h1><b> @LAB_JS@ & 'q'"


def test_any_title_and_label_render_as_their_literal_text():
    plain = default_page("double_pendulum")
    text = ld.lab.page(ld.zoo.double_pendulum(), title=HOSTILE_TITLE, label=HOSTILE_LABEL)
    # the <title> element holds the title, escaped, and nothing else
    assert text.count("<title>") == 1 and text.count("</title>") == 1
    shown = re.search(r"<title>(.*?)</title>", text, re.S)
    assert shown is not None and html.unescape(shown.group(1)) == HOSTILE_TITLE
    # the script reads both back exactly (the config is JSON with "</" written "<\/")
    m = re.search(r"var LAB_CONFIG = (.*?);\n</script>", text, re.S)
    assert m is not None
    config = json.loads(m.group(1).replace("<\\!--", "<!--"))
    assert (config["title"], config["model"]) == (HOSTILE_TITLE, HOSTILE_LABEL)
    assert f"— {html.escape(HOSTILE_LABEL)}</h1>" in text
    # no placeholder was filled twice and no script was opened or closed by the text:
    # the page's script elements, comment openers and runtime are those of the plain page
    for marker in ("</script>", "<!--", "function positions_jacobian("):
        assert text.count(marker) == plain.count(marker), marker


@pytest.mark.parametrize(
    ("title", "fragment"),
    [
        ("two\nlines", "control character \\(U\\+000A\\)"),
        ("tab\there", "control character \\(U\\+0009\\)"),
        ("nul\x00", "control character \\(U\\+0000\\)"),
        ("line\u2028separator", "control character \\(U\\+2028\\)"),
        ("lone \ud800", "lone surrogate"),
        ("", "the title is empty"),
        ("   ", "the title is empty"),
        (" padded", "leading, trailing or repeated spaces"),
        ("padded ", "leading, trailing or repeated spaces"),
        ("a  b", "leading, trailing or repeated spaces"),
        (42, "must be text"),
    ],
)
def test_a_title_a_browser_would_not_show_as_written_is_refused(title, fragment):
    with pytest.raises(LagdynError, match=fragment):
        ld.lab.page(ld.zoo.double_pendulum(), title=title)


def test_the_cli_refuses_a_bad_title_before_deriving(tmp_path, capsys, monkeypatch):
    from lagdyn.cli import commands

    monkeypatch.setattr(commands, "_model", lambda args: ("m", lambda: pytest.fail("derived")))
    out = tmp_path / "lab.html"
    assert ld.cli.main(["lab", "double_pendulum", "--out", str(out), "--title", "a\nb"]) == 2
    assert "control character" in capsys.readouterr().err
    assert not out.exists()

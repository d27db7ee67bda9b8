"""The lagdyn command, through main([...])."""

from __future__ import annotations

import json

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
        (["derive", "double_pendulum", "-o", "nokey=1"], "has no option 'nokey'"),
        (["frobnicate"], "invalid choice"),
        (["derive"], "required"),
    ],
)
def test_errors_one_line_exit_2(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lagdyn: error:")
    assert fragment in err


# ---------------------------------------------------------------- derive: formats
def test_derive_latex_options(capsys):
    argv = [
        "derive",
        "two_link_planar",
        "--latex",
        "--group-parameters",
        "--trig",
        "short",
        "--what",
        "M,C",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert r"\alpha + 2 \beta c_{2}" in out and r"\begin{bmatrix}" in out
    assert "equations" not in out and "(t)" not in out


def test_derive_latex_standalone(capsys):
    assert main(["derive", "double_pendulum", "--latex", "--standalone"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(r"\documentclass") and r"\end{document}" in out


def test_derive_markdown_and_html(capsys):
    assert main(["derive", "double_pendulum", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## double_pendulum") and "$$" in out
    assert main(["derive", "double_pendulum", "--html"]) == 0
    assert "<!DOCTYPE html>" in capsys.readouterr().out


def test_derive_json_round_trips_through_the_parser(capsys):
    import json

    import sympy as sp

    import lagdyn as ld
    from lagdyn.parse import parse_expr

    assert main(["derive", "two_link_planar", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 2 and data["coordinates"] == ["q1", "q2"]
    arm = ld.zoo.two_link_planar()
    names = {q.func.__name__: q for q in arm.q} | {p.name: p for p in arm.parameters}
    for i in range(2):
        for j in range(2):
            assert sp.expand(parse_expr(data["C"][i][j], names) - arm.C[i, j]) == 0
    assert "dot(q1)" in data["equations"][1] and "tau_2" in data["equations"][1]


def test_derive_simplify(capsys):
    assert main(["derive", "double_pendulum", "--simplify", "--no-proofs"]) == 0
    assert "M(q) =" in capsys.readouterr().out


def test_derive_progress_on_stderr(capsys):
    assert main(["derive", "double_pendulum", "--progress"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(
        "lagdyn: double_pendulum: building the system… deriving M… C… g… proofs… done"
    )
    assert main(["derive", "double_pendulum", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- user models
def test_derive_from_lagrangian(capsys):
    argv = [
        "derive",
        "--lagrangian",
        "m*l**2*dot(th)**2/2 + m*g*l*cos(th)",
        "--coordinates",
        "th",
        "--parameters",
        "m l g",
        "--forces=-c*dot(th)",
    ]
    assert main(argv) == 2  # c is not a declared parameter
    assert "unknown name 'c'" in capsys.readouterr().err
    argv[-2] = "m l g c"
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "user model: 1 degree of freedom" in out and "g⋅l⋅m⋅sin(th)" in out


def test_derive_from_file(tmp_path, capsys):
    model = tmp_path / "spring.py"
    model.write_text(
        "import lagdyn as ld\n"
        "x, = ld.coordinates('x')\n"
        "k, m = ld.parameters('k m')\n"
        "system = ld.LagrangianSystem(m * x.diff(ld.t)**2 / 2 - k * x**2 / 2, [x])\n"
    )
    assert main(["derive", "--file", str(model), "--latex", "--what", "g"]) == 0
    assert r"k x" in capsys.readouterr().out


def test_check_passes_and_fails(capsys):
    assert main(["check", "two_link_planar"]) == 0
    out = capsys.readouterr().out
    assert "all proofs passed" in out and "skew-symmetric" in out
    # a negative kinetic energy: M is not positive definite
    assert main(["check", "--lagrangian=-m*dot(x)**2/2", "--coordinates", "x"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out


def test_bench(capsys):
    assert main(["bench", "double_pendulum", "--repeat", "1", "--states", "100"]) == 0
    out = capsys.readouterr().out
    assert (
        "derive M C G g" in out
        and "structure proofs" in out
        and "numeric" not in out.split("proofs:")[0]
    )
    # "numeric:" alone is also printed when the numerics fail or are skipped
    assert "proofs: all proofs passed" in out and "forward dynamics, 100 states" in out


def test_bench_without_defaults_skips_numerics(capsys):
    assert (
        main(["bench", "--lagrangian", "m*dot(x)**2/2", "--coordinates", "x", "--repeat", "1"]) == 0
    )
    assert "numeric: skipped, no default values for m" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (
            [
                "derive",
                "--lagrangian",
                "__import__('os').system('echo hacked')",
                "--coordinates",
                "x",
            ],
            "call of an expression",
        ),
        (["derive", "--lagrangian", "x.__class__", "--coordinates", "x"], "attribute access"),
        (["derive", "--lagrangian", "dot(x)**2"], "needs --coordinates"),
        (["derive", "--lagrangian", "dot(x)**3", "--coordinates", "x"], "not quadratic"),
        (
            ["derive", "--lagrangian", "dot(x)**2", "--coordinates", "x", "--parameters", "x"],
            "both a coordinate and a parameter",
        ),
        (
            ["derive", "--lagrangian", "dot(x)**2", "--coordinates", "x", "--forces", "1;2"],
            "--forces has 2 expressions",
        ),
        (["derive", "two_link_planar", "--lagrangian", "x"], "only one of"),
        (["derive", "two_link_planar", "--coordinates", "x"], "applies to --lagrangian only"),
        (
            ["derive", "--lagrangian", "dot(x)**2", "--coordinates", "x", "-o", "n=2"],
            "zoo models only",
        ),
        (["derive", "--file", "/no/such/model.py"], "no such file"),
        (["derive", "two_link_planar", "--latex", "--what", "M,X"], "unknown item"),
        (["derive", "two_link_planar", "--group-parameters"], "need --latex"),
        (["derive", "two_link_planar", "--markdown", "--standalone"], "--standalone needs"),
        (["derive", "two_link_planar", "--latex", "--json"], "not allowed with"),
        (["derive", "two_link_planar", "--trig", "tiny"], "invalid choice"),
        (["check"], "required"),
        (["check", "nope"], "unknown model 'nope'"),
        (["bench", "two_link_planar", "--repeat", "0"], "must be positive"),
        (["bench", "nope"], "unknown model"),
        (["export", "two_link_planar", "--out", "x"], "required: --target"),
        (["export", "two_link_planar", "--target", "fortran", "--out", "x"], "invalid choice"),
    ],
)
def test_more_errors_one_line_exit_2(capsys, argv, fragment):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("lagdyn: error:")
    assert fragment in captured.err
    assert "hacked" not in captured.out


@pytest.mark.parametrize(
    "body, fragment",
    [
        ("raise RuntimeError('boom')", "raised RuntimeError: boom"),
        ("system = 3", "found int"),
        ("x = 1", "found nothing"),
        ("import lagdyn as ld\nld.coordinates('')", "no coordinate names"),
    ],
)
def test_file_errors(tmp_path, capsys, body, fragment):
    model = tmp_path / "bad.py"
    model.write_text(body + "\n")
    assert main(["check", "--file", str(model)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_simulate_gif(tmp_path):
    pytest.importorskip("matplotlib")
    gif = tmp_path / "out.gif"
    assert (
        main(["simulate", "double_pendulum", "--t", "0.5", "--gif", str(gif), "--fps", "10"]) == 0
    )
    assert gif.exists()


def test_derive_base_parameters_of_the_seed_001_arm(capsys):
    assert main(["derive", "two_link_planar", "--base-parameters", "--no-proofs"]) == 0
    out = capsys.readouterr().out
    # seed 001: α − δ, δ and β are base parameters (with the two gravity moments)
    assert "5 base parameters (rank 5)" in out
    for line in ("I1 + l1**2*m2 + lc1**2*m1", "I2 + lc2**2*m2", "l1*lc2*m2"):
        assert line in out
    assert main(["derive", "cart_pole", "--base-parameters", "--json", "--no-proofs"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["base_parameters"] == ["Ip + l**2*mp", "mc + mp", "l*mp"]


def test_export_js_writes_one_script(tmp_path, capsys):
    out = tmp_path / "js"
    assert main(["export", "double_pendulum", "-t", "js", "--out", str(out), "--name", "dp"]) == 0
    assert capsys.readouterr().out.strip() == str(out / "dp.js")
    src = (out / "dp.js").read_text()
    assert "var dp = (function () {" in src and "module.exports = dp" in src
    assert "function forces(q, qd, p, t = 0)" in src
    # existing files are refused without --force; a reserved word is not a module name
    assert main(["export", "double_pendulum", "-t", "js", "--out", str(out), "--name", "dp"]) == 2
    assert "exist" in capsys.readouterr().err
    args = ["export", "double_pendulum", "-t", "js", "--out", str(out), "--name", "function"]
    assert main(args) == 2
    assert "'function' is a JavaScript keyword" in capsys.readouterr().err


def test_lab_writes_a_page_and_refuses_to_overwrite(tmp_path, capsys):
    page = tmp_path / "lab.html"
    args = ["lab", "n_link_pendulum", "-o", "n=2", "--out", str(page)]
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "n_link_pendulum" in text
    assert "function positions_jacobian(" in text
    page.write_text("keep me")
    assert main(args) == 2
    assert "exists" in capsys.readouterr().err and page.read_text() == "keep me"
    assert main([*args, "--force", "--lang", "ko"]) == 0
    assert '"lang": "ko"' in page.read_text()


def test_lab_of_user_models(tmp_path, capsys):
    model = tmp_path / "swing.py"
    model.write_text(
        "import sympy as sp\n"
        "import lagdyn as ld\n"
        "from lagdyn.geometry import Drawing, attach\n"
        "(th,) = ld.coordinates('th')\n"
        "m, l, g = ld.parameters('m l g')\n"
        "tip = (l * sp.sin(th), -l * sp.cos(th))\n"
        "system = ld.LagrangianSystem.from_energies(\n"
        "    m * l**2 * th.diff(ld.t)**2 / 2, -m * g * l * sp.cos(th), [th],\n"
        "    defaults={m: 1.0, l: 1.0, g: 9.81})\n"
        "attach(system, Drawing.chain([(0, 0), tip]))\n"
    )
    page = tmp_path / "swing.html"
    assert main(["lab", "--file", str(model), "--out", str(page)]) == 0
    assert '"n_constraints": 1' in page.read_text()
    # a --lagrangian model carries no drawing: a clear error, no file
    bare = tmp_path / "bare.html"
    lagr = ["lab", "--lagrangian", "dot(x)**2/2 - k*x**2/2", "--coordinates", "x"]
    assert main([*lagr, "--out", str(bare)]) == 2
    assert "drawing" in capsys.readouterr().err and not bare.exists()


def test_model_file_exit_and_interrupt_are_one_line(tmp_path, capsys):
    exiting = tmp_path / "exiting.py"
    exiting.write_text("import sys\nsys.exit(3)\n")
    assert main(["derive", "--file", str(exiting)]) == 2
    assert "called sys.exit(3)" in capsys.readouterr().err
    interrupting = tmp_path / "interrupting.py"
    interrupting.write_text("raise KeyboardInterrupt\n")
    assert main(["derive", "--file", str(interrupting)]) == 130
    err = capsys.readouterr().err
    assert err == "lagdyn: interrupted\n"


def test_too_many_coordinates_are_refused_at_once(capsys):
    argv = ["derive", "--lagrangian", "dot(x0)**2", "--coordinates", "x:5000"]
    assert main(argv) == 2
    assert "5000 coordinates" in capsys.readouterr().err


def test_large_entries_print_in_linear_syntax_that_parses_back():
    """The memoized linear printer (entries beyond commands.LARGE nodes) writes the
    expression itself: its text, with the pretty names mapped back, parses to the entry."""
    import re

    import sympy as sp

    import lagdyn as ld
    from lagdyn.cli import commands

    system = ld.zoo.get("n_link_pendulum", n=6, coordinates="relative")
    entry = system.h[0]
    assert commands._nodes(entry, commands.LARGE) > commands.LARGE
    text = commands._pretty(entry, system)
    back: dict[str, str] = {}
    for k, q in enumerate(system.q):
        name = q.func.__name__
        back[str(commands._unicode_symbol(commands._dotted(name, 1)))] = f"V{k}"
        back[str(commands._unicode_symbol(sp.Symbol(name)))] = f"Q{k}"
    for p in system.parameters:
        back[str(commands._unicode_symbol(p))] = p.name
    pattern = re.compile("|".join(sorted(map(re.escape, back), key=len, reverse=True)))
    parsed = sp.parse_expr(pattern.sub(lambda m: back[m.group(0)], text))
    repl = {qd: sp.Symbol(f"V{k}") for k, qd in enumerate(system.qd)}
    repl.update({q: sp.Symbol(f"Q{k}") for k, q in enumerate(system.q)})
    expected = entry.xreplace(repl)
    local = {p.name: p for p in system.parameters}
    assert sp.expand(parsed.xreplace({sp.Symbol(k): v for k, v in local.items()}) - expected) == 0

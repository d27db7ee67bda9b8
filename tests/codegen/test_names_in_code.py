"""No code from a name (issue 22, item 1).

Symbol names reach generated source only as escaped text
(:func:`lagdyn.codegen.common.comment_text`), and ``ld.coordinates`` /
``ld.parameters`` refuse names that are not printable identifiers. Every hostile
name below would create a file if it became code; the tests assert that no file
appears and that the generated code still runs (or a named error is raised).
"""

from __future__ import annotations

import json
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.codegen.common import comment_text
from lagdyn.export.code import export
from lagdyn.numeric import lambdify

#: Line breaks and comment/string terminators of the target languages.
BREAKS = ["\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"]


def _python(path: Path) -> str:
    return f"open({str(path)!r}, 'w').close()"


def _c(path: Path) -> str:
    return (
        "__attribute__((constructor)) static void ldpwn(void) "
        f'{{ extern int system(const char *); system("touch {path}"); }}'
    )


def _js(path: Path) -> str:
    return f'require("fs").writeFileSync({str(path)!r}, "");'


def payloads(code: str) -> list[str]:
    """Names that turn ``code`` live if a name is pasted into a comment or string."""
    out = [f"a{b}{code}{b}#" for b in BREAKS] + [f"a{b}{code}{b}//" for b in BREAKS]
    out += [
        f"a */ {code} /*",
        f'a"""\n{code}\n"""',
        f"a'''\n{code}\n'''",
        f'a"\n{code}\n"',
        f"a\\\n{code}",
        f"a %}}\n{code}\n%{{",
        f"a =#\n{code}\n#=",
        f"a ??/\n{code}",
        f"a $({code})",
    ]
    return out


def hostile_system(name: str, where: str) -> ld.LagrangianSystem:
    """A spring whose mass (``where="param"``) or coordinate carries ``name``."""
    if where == "param":
        (x,) = ld.coordinates("x")
        m = sp.Symbol(name, positive=True)
    else:
        x = sp.Function(name)(ld.t)
        m = sp.Symbol("m", positive=True)
    k = sp.Symbol("k", positive=True)
    return ld.LagrangianSystem(m * x.diff(ld.t) ** 2 / 2 - k * x**2 / 2, [x])


def _cases() -> list[object]:
    return [
        pytest.param(i, where, id=f"{where}-{i}")
        for where in ("param", "coord")
        for i in range(len(payloads("X")))
    ]


# ------------------------------------------------------------------ the escaping helper
@pytest.mark.parametrize("name", payloads("touch pwned"))
def test_comment_text_is_one_inert_line(name: str) -> None:
    text = comment_text(name)
    assert text.isprintable() and text.splitlines() == [text]
    for bad in ("*/", "/*", "//", '"', "'", "--", "%", "#", "=", "$", "?", "\\\n"):
        assert bad not in text
    assert all(c != "\\" or text[i + 1] in "uU" for i, c in enumerate(text))


def test_comment_text_keeps_plain_names() -> None:
    assert [comment_text(n) for n in ("m1", "theta_2", "θ", "l_{1}")] == [
        "m1",
        "theta_2",
        "θ",
        "l_{1}",
    ]


# ------------------------------------------------------------------ numpy backend (lambdify)
@pytest.mark.parametrize(("i", "where"), _cases())
def test_numpy_lambdify_runs_no_name(tmp_path: Path, i: int, where: str) -> None:
    marker = tmp_path / "pwned"
    sys_ = hostile_system(payloads(_python(marker))[i], where)
    model = lambdify(sys_, backend="numpy", cache_dir=tmp_path / "cache")
    p = [2.0, 3.0] if where == "param" else [3.0, 2.0]  # free parameters sorted by name
    assert not marker.exists()
    assert model.M([0.5], params=p).shape == (1, 1)
    assert not marker.exists()


# ------------------------------------------------------------------ C backend (lambdify)
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C")
@pytest.mark.parametrize("i", [0, 14, 18])  # a line break, "*/", a trailing backslash
def test_c_lambdify_runs_no_name(tmp_path: Path, i: int) -> None:
    marker = tmp_path / "pwned"
    sys_ = hostile_system(payloads(_c(marker))[i], "param")
    try:
        model = lambdify(sys_, backend="c", cache_dir=tmp_path / "cache")
    except ld.LagdynError:
        assert not marker.exists()
        return
    assert not marker.exists()
    model.M([0.5], params=[2.0, 3.0])
    assert not marker.exists()


# ------------------------------------------------------------------ exported files
COMMENT = {"c": ("//", "/*", "*"), "cpp": ("//",), "julia": ("#",), "matlab": ("%",)}
COMMENT.update({"js": ("//",), "numba": ("#",), "jax": ("#",)})


def _exported(tmp_path: Path, target: str, name: str, where: str) -> list[Path]:
    out = tmp_path / target
    system = hostile_system(name, where)
    return export(system, target, out, name="model", force=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("target", sorted(COMMENT))
@pytest.mark.parametrize("where", ["param", "coord"])
def test_exported_names_stay_in_comments(tmp_path: Path, target: str, where: str) -> None:
    """Every line holding the name is a comment line (or a Python/JS string literal)."""
    marker = "LDMARKER"
    for name in payloads(marker):
        files = _exported(tmp_path, target, name, where)
        for f in files:
            for line in f.read_text(encoding="utf-8").split("\n"):
                assert not any(b in line for b in BREAKS[1:]), (target, name, line)
                if marker in line:
                    s = line.strip()
                    ok = s.startswith(COMMENT[target])
                    ok |= s.startswith(("COORDINATES = (", "PARAMETERS = (", "const "))
                    ok |= s == "" or s.startswith(("q[", "p[", "free parameters", "model "))
                    assert ok, (target, name, line)


@pytest.mark.parametrize("target", ["numba", "jax"])
@pytest.mark.parametrize("where", ["param", "coord"])
def test_exported_python_loads_no_name(tmp_path: Path, target: str, where: str) -> None:
    marker = tmp_path / "pwned"
    for k, name in enumerate(payloads(_python(marker))):
        for f in _exported(tmp_path / str(k), target, name, where):
            if f.suffix == ".py":
                try:
                    ns = runpy.run_path(str(f))
                except ImportError:  # numba/jax not installed: the header ran anyway
                    ns = {}
                assert not marker.exists(), (target, name)
                if ns:
                    assert name in ns["COORDINATES"] + ns["PARAMETERS"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("where", ["param", "coord"])
def test_exported_js_runs_no_name(tmp_path: Path, where: str) -> None:
    marker = tmp_path / "pwned"
    files = [
        str(_exported(tmp_path / str(k), "js", name, where)[0])
        for k, name in enumerate(payloads(_js(marker)))
    ]
    # one node process loads every exported module (a process per file cost seconds)
    script = "for (const f of JSON.parse(process.argv[1])) { require(f); } console.log('ok');"
    run = subprocess.run(
        ["node", "-e", script, json.dumps(files)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("target", ["c", "cpp"])
def test_exported_c_compiles_no_name(tmp_path: Path, target: str) -> None:
    marker = tmp_path / "pwned"
    names = payloads(_c(marker))
    for k in (0, 1, 7, 8, 14, 18, 19, 20):
        files = _exported(tmp_path / str(k), target, names[k], "param")
        srcs = [f for f in files if f.suffix in (".c", ".hpp", ".h")]
        main = tmp_path / str(k) / ("main.c" if target == "c" else "main.cpp")
        inc = "model.h" if target == "c" else "model.hpp"
        main.write_text(f'#include "{target}/{inc}"\nint main(void) {{ return 0; }}\n')
        cc = "cc" if target == "c" else (shutil.which("c++") or "g++")
        exe = tmp_path / str(k) / "a.out"
        cmd = [cc, str(main), "-o", str(exe), "-lm"]
        if target == "c":
            cmd.insert(2, str(next(f for f in srcs if f.suffix == ".c")))
        build = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert build.returncode == 0, build.stderr
        subprocess.run([str(exe)], timeout=60, check=True)
        assert not marker.exists(), names[k]


# ------------------------------------------------------------------ names refused at creation
@pytest.mark.parametrize(
    "bad",
    ["x\nimport os", "a*/", 'a"""', "1x", "a-b", "a\u2028b", "x;y", "a\tb\x00", "θ\u202e"],
)
def test_coordinates_and_parameters_refuse_non_identifiers(bad: str) -> None:
    with pytest.raises(ld.CoordinateError, match="identifier"):
        ld.coordinates([bad])
    if not any(c.isspace() or c == "," for c in bad):  # strings split on spaces and commas
        with pytest.raises(ld.LagdynError, match="identifier"):
            ld.parameters(bad)
        with pytest.raises(ld.CoordinateError, match="identifier"):
            ld.coordinates(bad)


def test_issue_example_is_refused(tmp_path: Path) -> None:
    name = f"x\nimport os; os.system('touch {tmp_path / 'pwned'}')\n#"
    with pytest.raises(ld.CoordinateError, match="not an identifier"):
        ld.coordinates([name])
    assert not (tmp_path / "pwned").exists()


def test_unicode_identifiers_are_accepted() -> None:
    assert [str(c.func) for c in ld.coordinates(["θ", "φ_1"])] == ["θ", "φ_1"]
    assert [s.name for s in ld.parameters("m_α l2")] == ["m_α", "l2"]

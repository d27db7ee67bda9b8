"""Export names that clash with a target language are refused (issue 22, item 1).

``--name`` becomes identifiers of the generated code (C's ``NAME_H``, ``NAME_M``, C++'s
namespace, Julia's module, MATLAB's functions, JavaScript's global) and file names; a
name that is, or makes, a keyword, a library name or macro of the target is refused
with a LagdynError naming the clash and the target.
"""

from __future__ import annotations

import re

import pytest

import lagdyn as ld
from lagdyn.cli import main
from lagdyn.codegen.names import derived_names
from lagdyn.export.code import TARGETS, generate

LANGUAGE = {
    "c": "C",
    "cpp": "C++",
    "julia": "Julia",
    "matlab": "MATLAB",
    "js": "JavaScript",
    "jax": "Python (JAX)",
    "numba": "Python (numba)",
}

#: target → names that clash (a keyword, a library name or macro, a derived identifier)
CLASHES: dict[str, list[str]] = {
    "c": [
        "main",
        "NAN",
        "INFINITY",
        "M_PI",
        "sin",
        "exp",
        "sinf",
        "errno",
        "NULL",
        "printf",
        "math",
        "stdio",
        "for",
        "bool",
        "HUGE_VAL",
        "isnan",
    ],
    "cpp": [
        "main",
        "NAN",
        "INFINITY",
        "M_PI",
        "sin",
        "exp",
        "std",
        "T",
        "namespace",
        "double",
        "a__b",
        "abs",
    ],
    "julia": [
        "n",
        "base",
        "core",
        "main",
        "float64",
        "int",
        "inf",
        "vector",
        "random",
        "end",
        "sin",
        "exp",
    ],
    "matlab": ["end", "function", "sin", "exp", "zeros", "pi", "eps", "i", "ans", "a" * 47],
    "js": [
        "Math",
        "Object",
        "TypeError",
        "module",
        "exports",
        "require",
        "window",
        "self",
        "top",
        "location",
        "name",
        "document",
        "undefined",
        "NaN",
        "Infinity",
        "globalThis",
        "function",
        "let",
    ],
    "jax": ["np", "jax", "jnp", "math", "print", "list", "lambda", "match"],
    "numba": ["np", "numba", "math", "len", "range", "def", "None"],
}
CASES = [(t, n) for t, names in CLASHES.items() for n in names]

#: not identifiers of every target: non-ASCII (MATLAB, C), full-width, a leading '_' …
NOT_IDENTIFIERS = ["θ", "ｄｐ", "dé", "_x", "1a", "a-b", "a b", "", "x" * 65]


@pytest.fixture(scope="module")
def dp():
    return ld.zoo.double_pendulum()


@pytest.mark.parametrize(("target", "name"), CASES, ids=[f"{t}-{n[:12]}" for t, n in CASES])
def test_a_clashing_name_is_refused(dp, target, name):
    with pytest.raises(ld.LagdynError) as err:
        generate(dp, target, name=name)
    text = str(err.value)
    assert f"export name {name!r}" in text
    assert f"with {LANGUAGE[target]}" in text or "too long for MATLAB" in text


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "casadi"])
@pytest.mark.parametrize("name", NOT_IDENTIFIERS)
def test_a_name_that_is_not_an_ascii_identifier_is_refused(dp, target, name):
    with pytest.raises(ld.LagdynError, match="must be an identifier|at most 64"):
        generate(dp, target, name=name)


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "casadi"])
@pytest.mark.parametrize("name", ["dp", "arm2", "model", "double_pendulum", "ur5", "Arm_2"])
def test_ordinary_names_pass(dp, target, name):
    assert generate(dp, target, name=name)


@pytest.mark.parametrize(
    ("name", "target", "line"),
    [
        ("arm_2", "julia", "module Arm2"),
        ("double_pendulum", "julia", "module DoublePendulum"),
        ("arm2", "c", "#ifndef ARM2_H"),
        ("arm2", "c", "#define ARM2_NP "),
        ("arm2", "c", "void arm2_forward_dynamics("),
        ("arm2", "cpp", "namespace arm2 {"),
        ("arm2", "cpp", "#ifndef ARM2_HPP"),
        ("arm2", "matlab", "function out = arm2_inverse_dynamics("),
        ("arm2", "js", "var arm2 = (function () {"),
    ],
)
def test_the_derived_names_are_the_generators(dp, name, target, line):
    """The names the check derives are those the generator writes (no drift)."""
    source = "\n".join(generate(dp, target, name=name).values())
    assert line in source
    ident = re.search(r"(?:module|ifndef|define|void|namespace|function out =|var) (\w+)", line)
    assert ident is not None and ident.group(1) in derived_names(name, target).values()


def test_the_cli_refuses_before_writing(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["export", "double_pendulum", "-t", "c", "--name", "M_PI", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "export name 'M_PI' clashes with C: 'M_PI' is a name of <math.h>" in err
    assert not out.exists()
    argv = ["export", "double_pendulum", "-t", "julia", "--name", "n", "--out", str(out)]
    assert main(argv) == 2
    assert "its module 'N' is a constant of the generated module" in capsys.readouterr().err


@pytest.mark.parametrize(("target", "compiler"), [("c", ["-x", "c"]), ("cpp", ["-x", "c++"])])
def test_the_compilers_predefined_macros_are_refused(target, compiler):
    """Every macro this machine's compiler predefines without a leading underscore (GNU
    modes: ``unix``, ``linux``) is refused: ``namespace unix {`` reads ``namespace 1 {``."""
    import shutil
    import subprocess

    from lagdyn.codegen.names import check_export_name
    from lagdyn.errors import LagdynError

    cc = shutil.which("gcc" if target == "c" else "g++") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    out = subprocess.run(
        [cc, "-dM", "-E", *compiler, "-"], input="", capture_output=True, text=True, check=True
    ).stdout
    words = sorted(
        line.split()[1]
        for line in out.splitlines()
        if line.startswith("#define ") and not line.split()[1].startswith("_")
    )
    assert words, "the compiler predefines no plain macro here (nothing to check)"
    for word in words:
        with pytest.raises(LagdynError, match="clashes with"):
            check_export_name(word, target)

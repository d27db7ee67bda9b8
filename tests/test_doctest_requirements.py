"""The doctests of optional packages: skipped without the package, never self-answering.

The root ``conftest.py`` skips a doctest that needs a package which cannot be imported (its
``REQUIREMENTS`` table). These tests hold the table against the source: no example catches
the missing package's error and prints its own expected output, every doctest-name pattern
names a doctest that exists, and the doctests of each package's modules pass or are skipped
(none fails) when that package is made unimportable.
"""

from __future__ import annotations

import ast
import doctest
import functools
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lagdyn"

#: An ``except`` clause catching the error of a missing package, in an example's source.
SELF_ANSWERING = re.compile(
    r"^\s*except\b[^\n:]*\b(?:ImportError|ModuleNotFoundError|BackendUnavailableError)\b",
    re.MULTILINE,
)


def _root_conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_lagdyn_root_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CONFTEST = _root_conftest()


def _docstrings(path: Path) -> list[tuple[str, int, str]]:
    """(qualified name, line, docstring) of the module, its classes and functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
    module = module.removesuffix(".__init__")
    found: list[tuple[str, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                doc = ast.get_docstring(child, clean=False)
                if doc:
                    found.append((name, child.lineno, doc))
                walk(child, name)

    doc = ast.get_docstring(tree, clean=False)
    if doc:
        found.append((module, 1, doc))
    walk(tree, module)
    return found


@functools.cache  # at first use, not at collection (every xdist worker collects)
def _examples() -> list[tuple[Path, str, int, list[str]]]:
    """(file, doctest name, line, example sources) of every docstring with examples."""
    parser = doctest.DocTestParser()
    out = []
    for path in sorted(SRC.rglob("*.py")):
        for name, line, doc in _docstrings(path):
            sources = [ex.source for ex in parser.get_examples(doc)]
            if sources:
                out.append((path, name, line, sources))
    return out


def test_the_examples_are_found() -> None:
    names = {name for _, name, _, _ in _examples()}
    assert "lagdyn.numeric.casadi.to_casadi" in names
    assert "lagdyn.system.LagrangianSystem.to_casadi" in names
    assert len(_examples()) > 200


def test_no_example_answers_for_a_missing_package() -> None:
    """An example that catches ImportError and prints the expected output cannot fail."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} {name}: {m.group(0).strip()!r}"
        for path, name, line, sources in _examples()
        for m in [SELF_ANSWERING.search("".join(sources))]
        if m is not None
    ]
    assert not bad, (
        "examples that answer for a missing optional package (write the plain example; "
        "the root conftest.py skips it without the package):\n" + "\n".join(bad)
    )


def test_the_check_sees_a_self_answering_example() -> None:
    doc = """
    >>> try:
    ...     print(cp.to_casadi(cp.defaults).forward_dynamics.name_in())
    ... except (ValueError, ld.BackendUnavailableError):
    ...     print(['q', 'qd', 'tau'])
    ['q', 'qd', 'tau']
    """
    sources = [ex.source for ex in doctest.DocTestParser().get_examples(doc)]
    assert SELF_ANSWERING.search("".join(sources))
    assert not SELF_ANSWERING.search(">>> x = 1  # ImportError would be raised\n")


def test_every_doctest_name_pattern_names_a_doctest() -> None:
    names = [name for _, name, _, _ in _examples()]
    for req in CONFTEST.REQUIREMENTS:
        for pattern in req.patterns:
            if not pattern.startswith("^# doctest: "):
                continue
            regex = re.compile(pattern)
            assert any(regex.match(f"# doctest: {n}") for n in names), (
                f"{req.package}: {pattern!r} names no doctest in src/lagdyn"
            )


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (["cp.to_casadi(cp.defaults)\n"], ["casadi"]),
        (["import casadi\n"], ["casadi"]),
        (["from lagdyn.codegen.casadi import readme\n"], []),
        (["from lagdyn.codegen.casadi import import_casadi, to_sx\n"], ["casadi"]),
        (["ld.control.lqr(A, B, Q, R)\n"], ["scipy"]),
        (["from scipy.linalg import expm\n"], ["scipy"]),
        (["plot_energy(res)\n"], ["matplotlib"]),
        (["plot.chain_positions(q)\n"], []),
        (['dp.lambdify(dp.defaults, backend="c")\n'], ["cffi"]),
        (['dp.lambdify(dp.defaults, backend="numpy")\n'], []),
        (['urdf_path("ur_description", "ur5_robot.urdf")\n'], ["example-robot-data"]),
        (['env = ld.gym.make("cart_pole")\n'], ["gymnasium"]),
        (["import gymnasium\n"], ["gymnasium"]),
        (["plant = dp.to_drake()\n"], ["drake"]),
        (["from pydrake.systems.analysis import Simulator\n"], ["drake"]),
    ],
)
def test_needs(sources: list[str], expected: list[str]) -> None:
    assert [req.package for req, _ in CONFTEST.needs("lagdyn.x.f", sources)] == expected


def test_needs_by_doctest_name() -> None:
    found = CONFTEST.needs("lagdyn.numeric.casadi.export_files", ["export_files(dp, 'dp')\n"])
    assert [req.package for req, _ in found] == ["casadi"]


#: Packages made unimportable one at a time, with the words that select the modules whose
#: doctests are run without them.
BLOCKED = {
    "casadi": ("casadi",),
    "example-robot-data": ("example-robot-data", "example_robot_data", "urdf_path"),
    "gymnasium": ("gymnasium",),
    "drake": ("pydrake",),
}
# scipy and matplotlib doctests are few (lqr, the plot module): the rule's table is checked
# for them by test_needs above; running their modules' doctests again blocked cost 30 s.

PYTEST_ARGS = ("-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist")

BOOT = """
import importlib.metadata as md, sys
blocked = sys.argv[1].split(",")
modules = {"drake": "pydrake"}  # packages whose module is not their name
for name in blocked:
    sys.modules[modules.get(name, name.replace("-", "_"))] = None  # fails, as without it
_distribution = md.distribution
def distribution(name):
    if name in blocked:
        raise md.PackageNotFoundError(name)
    return _distribution(name)
md.distribution = distribution
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def _modules_mentioning(words: tuple[str, ...]) -> list[str]:
    ignored = {str(ROOT / p) for p in CONFTEST.collect_ignore}
    return sorted(
        str(path.relative_to(ROOT))
        for path in SRC.rglob("*.py")
        if str(path) not in ignored and any(w in path.read_text(encoding="utf-8") for w in words)
    )


@pytest.mark.slow
def test_doctests_pass_or_skip_without_the_optional_packages() -> None:
    """Without casadi, scipy, matplotlib, example-robot-data, gymnasium and drake (all blocked
    in one run, to keep the suite fast) the doctests of the modules that mention them pass or
    are skipped naming each package; none fails."""
    files = sorted({f for words in BLOCKED.values() for f in _modules_mentioning(words)})
    assert files
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])}
    res = subprocess.run(
        [sys.executable, "-c", BOOT, ",".join(sorted(BLOCKED)), *PYTEST_ARGS, *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    for package in BLOCKED:
        assert re.search(rf"SKIPPED \[\d+\] .*needs {re.escape(package)}: pip install", out), (
            package,
            out[-3000:],
        )

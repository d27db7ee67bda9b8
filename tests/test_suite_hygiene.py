"""The test suite itself: a private cache, no cross-imports between test modules, stable seeds."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import lagdyn as ld

TESTS = Path(__file__).resolve().parent
USER_CACHE = Path.home() / ".cache" / "lagdyn"


def test_generated_code_goes_to_the_session_cache_not_the_users(lagdyn_cache_dir):
    from lagdyn.codegen.cache import default_cache_dir

    env = os.environ.get("LAGDYN_CACHE_DIR")
    assert env is not None, "conftest.py must set LAGDYN_CACHE_DIR for the session"
    cache = Path(env).resolve()
    assert cache == lagdyn_cache_dir.resolve()
    assert cache.is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert cache.name.startswith("lagdyn-test-cache-")
    assert not cache.is_relative_to(USER_CACHE.resolve())
    assert default_cache_dir().resolve() == cache
    # a lambdify with the default cache writes there
    x = ld.coordinates("x")[0]
    sys_ = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - 3 * x**2, [x])
    model = sys_.lambdify()
    assert any(p.suffix == ".py" for p in cache.iterdir())
    np.testing.assert_allclose(model.g(np.array([1.0])), [6.0])


def test_subprocesses_inherit_the_session_cache(lagdyn_cache_dir):
    code = "from lagdyn.codegen.cache import default_cache_dir; print(default_cache_dir())"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert Path(out.strip()).resolve() == lagdyn_cache_dir.resolve()


def _sources() -> list[Path]:
    """Every Python file of the suite, in every folder (not the generated golden files)."""
    return sorted(p for p in TESTS.rglob("*.py") if "golden" not in p.relative_to(TESTS).parts)


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in _sources()]


def test_the_walk_reaches_the_folders():
    folders = {p.parent.name for p in _sources()}
    assert {"trig", "recursive", "codegen", "numeric", "robot"} <= folders


def test_tests_mirror_the_source_folders():
    """Every test folder is named after a folder of src/lagdyn (the tests mirror the layers)."""
    src = TESTS.parent / "src" / "lagdyn"
    packages = {p.name for p in src.iterdir() if (p / "__init__.py").exists()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders <= packages, f"test folders without a source folder: {folders - packages}"


def test_no_test_module_imports_another():
    test_modules = {p.stem for p in _sources() if p.stem.startswith("test_")}
    bad = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module.split(".")[0]]
            else:
                continue
            bad += [f"{path.name}:{node.lineno} imports {n}" for n in names if n in test_modules]
    assert not bad, "shared code belongs in conftest.py, helpers.py or strategies.py: " + str(bad)


def test_no_seed_from_hash():
    """hash() of a str is salted per process (PYTHONHASHSEED): it must not seed anything."""
    bad = [
        f"{path.name}:{node.lineno}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash"
    ]
    assert not bad, f"hash() used in tests (not stable across runs): {bad}"

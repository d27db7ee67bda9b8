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


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(TESTS.glob("*.py"))]


def test_no_test_module_imports_another():
    test_modules = {p.stem for p in TESTS.glob("test_*.py")}
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

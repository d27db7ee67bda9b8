"""Shared pytest configuration: a private generated-code cache, hypothesis profiles.

Cache
    ``pytest_configure`` points ``LAGDYN_CACHE_DIR`` at a fresh temporary directory for the
    whole session (doctests, tests, and the subprocesses they start inherit it) and removes
    it afterwards: the suite never reads or writes the user's ``~/.cache/lagdyn``. Tests get
    the directory from the ``lagdyn_cache_dir`` fixture; ``tests/test_suite_hygiene.py``
    fails if the variable is missing or points outside the session's directory. ``src`` is
    put first on ``PYTHONPATH`` so that subprocesses import this tree even when lagdyn is
    not installed (``pythonpath`` in pyproject.toml does the same for the test process).

Threads
    ``OPENBLAS_NUM_THREADS`` is set to 1 for the session unless the caller set it: the
    suite runs one process per core, and BLAS threads on top of that only contend.

Hypothesis
    Examples are derandomized by default (profile ``lagdyn``: the same examples on every
    run and machine, no example database), so a result never depends on the draw. Run
    ``pytest --hypothesis-profile=lagdyn-explore`` to explore fresh random examples locally.

Golden files
    :func:`check_golden` compares generated text with a file under ``tests/golden``. A
    missing or different file fails; ``LAGDYN_UPDATE_GOLDEN=1`` (or ``--update-golden``)
    rewrites the files instead, for review in the diff.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "lagdyn",
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "lagdyn-explore", parent=settings.get_profile("lagdyn"), derandomize=False
)
# kept for scripts that select it by name (the former CI profile)
settings.register_profile("lagdyn-ci", parent=settings.get_profile("lagdyn"))
settings.load_profile("lagdyn")

_CACHE_PREFIX = "lagdyn-test-cache-"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden files")


SRC = Path(__file__).resolve().parents[1] / "src"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: use the controller's cache
        config._lagdyn_cache_dir = os.environ["LAGDYN_CACHE_DIR"]  # type: ignore[attr-defined]
        return
    path = tempfile.mkdtemp(prefix=_CACHE_PREFIX)
    config._lagdyn_cache_dir = path  # type: ignore[attr-defined]
    config._lagdyn_saved_env = {  # type: ignore[attr-defined]
        k: os.environ.get(k) for k in ("LAGDYN_CACHE_DIR", "PYTHONPATH", "OPENBLAS_NUM_THREADS")
    }
    os.environ["LAGDYN_CACHE_DIR"] = path
    # one BLAS thread per process (workers and subprocesses inherit it; a value the caller
    # set is kept): two xdist workers on two cores with OpenBLAS' own threads each spin
    # against each other (tests/identification/test_robot.py: 23.7 s → 15.4 s wall)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # subprocesses (examples, docs build, CLI) import this source tree too, installed or not,
    # as the test process does through pytest's ``pythonpath``
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(SRC), old] if old else [str(SRC)])


def pytest_unconfigure(config: pytest.Config) -> None:
    path = getattr(config, "_lagdyn_cache_dir", None)
    if path is None or hasattr(config, "workerinput"):
        return
    for key, value in config._lagdyn_saved_env.items():  # type: ignore[attr-defined]
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def lagdyn_cache_dir(pytestconfig: pytest.Config) -> Path:
    """The session's generated-code cache (``$LAGDYN_CACHE_DIR``), a temporary directory."""
    path = Path(pytestconfig._lagdyn_cache_dir)  # type: ignore[attr-defined]
    os.environ["LAGDYN_CACHE_DIR"] = str(path)
    return path


# ---------------------------------------------------------------- golden files
GOLDEN = Path(__file__).parent / "golden"


def update_golden(config: pytest.Config) -> bool:
    """True when golden files are to be rewritten (``LAGDYN_UPDATE_GOLDEN=1`` or the option)."""
    return bool(os.environ.get("LAGDYN_UPDATE_GOLDEN")) or bool(
        config.getoption("--update-golden", default=False)
    )


@pytest.fixture
def check_golden(request: pytest.FixtureRequest):
    """``check_golden(path, text)``: fail unless ``path`` holds exactly ``text``.

    A missing file fails too (a golden test must never pass by writing its own golden
    file); with ``LAGDYN_UPDATE_GOLDEN=1`` the file (and its folder) is (re)written and the
    test passes. Either failure message names that command, for the test and its module.
    """

    def check(path: Path, text: str) -> None:
        nodeid = request.node.nodeid
        how = (
            f"`LAGDYN_UPDATE_GOLDEN=1 pytest '{nodeid}'` (this test) or "
            f"`LAGDYN_UPDATE_GOLDEN=1 pytest {nodeid.split('::')[0]}` (its module)"
        )
        if update_golden(request.config):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(
                f"golden file {path} is missing; generate it with {how} and review it",
                pytrace=False,
            )
        assert text == path.read_text(encoding="utf-8"), (
            f"generated text differs from {path}; if the change is intended, regenerate "
            f"with {how} and review the diff"
        )

    return check

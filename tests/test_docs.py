"""The documentation site builds strictly, and the Python blocks of the guides run.

``mkdocs build --strict`` needs the ``docs`` extra (MkDocs Material, mkdocstrings); the test
is skipped where it is not installed. Fenced blocks marked ```` ```python ```` in the pages
listed in RUNNABLE are executed in order, in one namespace per page, in a temporary
directory; blocks marked ```` ```py ```` are illustrations and are not run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUNNABLE = ["getting-started.md", "simulation.md", "constraints.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.mark.skipif(
    not _have("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"),
    reason="needs the docs extra: pip install 'lagdyn[docs]'",
)
def test_mkdocs_build_strict(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "api" / "simulate" / "index.html").exists()


def test_nav_pages_and_images_exist():
    text = (ROOT / "mkdocs.yml").read_text()
    pages = re.findall(r":\s*([\w./-]+\.md)\s*$", text, re.M)
    assert "getting-started.md" in pages and "gallery.md" in pages
    for page in pages:
        assert (DOCS / page).exists(), page
    for image in re.findall(r"\]\((assets/gallery/[\w.]+)\)", (DOCS / "gallery.md").read_text()):
        assert (DOCS / image).exists(), image


@pytest.mark.parametrize("page", RUNNABLE)
def test_guide_code_blocks_run(page, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    blocks = BLOCK.findall((DOCS / page).read_text())
    assert blocks, f"no runnable blocks in {page}"
    namespace: dict = {"__name__": f"docs_{page}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page}[block {i}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{page}, block {i} failed: {exc!r}\n{code}") from exc


def test_readme_python_blocks_run():
    """The README's first two Python blocks (a Lagrangian to proofs; kinematics, forces and
    a coordinate change) run as written; later blocks are sketches of the API."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    namespace: dict = {}
    for i, code in enumerate(blocks[:2]):
        exec(compile(code, f"README.md[block {i}]", "exec"), namespace)
    assert namespace["sys"].is_skew_symmetric()
    assert namespace["rel"].n == 2

"""The documentation runs as written, its links resolve, and the site builds strictly.

Snippets
    Every fenced block marked ```` ```python ```` (or ```` ```py ````) in README.md and in
    every page under docs/ is executed: the blocks of one page in order, in one namespace,
    in a temporary directory. A block written as a doctest (``>>>`` prompts) is run by
    :mod:`doctest` in the page's namespace, so its printed output is checked too
    (``ELLIPSIS``, ``NORMALIZE_WHITESPACE``). A block that is only a snippet include of an
    example script (``--8<-- "examples/x.py"``) is run by ``tests/test_examples.py``.

    Opt-out: a block that cannot run here (it needs Simulink, a GUI, a robot) is preceded,
    on the line just above its fence, by the HTML comment ``<!-- docs-test: skip REASON -->``
    (invisible on the site); the reason is required. A block that needs an optional package
    (casadi, scipy, matplotlib, pillow) is skipped with the package named when that
    package is missing, never when it is installed.

Links
    Every relative markdown link or image in README.md and docs/ points at a file of the
    repository (generated lab pages excepted: ``mkdocs_hooks.py`` adds them to the build),
    and nothing points outside the repository.

Generated content
    The gallery images and the UR5 identification output under ``docs/assets/`` are
    produced by the example scripts (``python mkdocs_hooks.py --regenerate``); a manifest
    records the hashes of each script, of ``lagdyn/plot.py`` and of the outputs, so an
    output older than its script (or edited by hand) fails here and in the docs build.

``mkdocs build --strict`` needs the ``docs`` extra (MkDocs Material, mkdocstrings); the
test is skipped where it is not installed.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]

#: ```python / ```py fences at any indentation; group 1 the indentation, 2 the body
FENCE = re.compile(r"^([ \t]*)```(?:python|py)[ \t]*\n(.*?)^\1```[ \t]*$", re.S | re.M)
#: the explicit opt-out, on the line just above a fence
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\b(.*?)-->")
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')
#: optional packages a block may need: skipped (with the reason) only when missing
OPTIONAL = {
    "casadi": "casadi",
    "scipy": "sim",
    "matplotlib": "plot",
    "PIL": "plot",
    "pydrake": "drake",
    "gymnasium": "rl",
    "fmpy": "fmu",
}


def _load_hooks():
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """``(line, code, skip_reason)`` of every Python block of a markdown text.

    >>> python_blocks("a\\n<!-- docs-test: skip needs Simulink -->\\n```python\\nx = 1\\n```\\n")
    [(3, 'x = 1\\n', 'needs Simulink')]
    >>> python_blocks("  ```py\\n  y = 2\\n  ```\\n")
    [(1, 'y = 2\\n', None)]
    """
    blocks = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = SKIP.search(before)
        reason = marker.group(1).strip() if marker else None
        blocks.append((line, textwrap.dedent(m.group(2)), reason))
    return blocks


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


RUNNABLE = [p for p in PAGES if python_blocks(p.read_text(encoding="utf-8"))]


def test_every_page_is_collected():
    names = {_rel(p) for p in RUNNABLE}
    assert {"README.md", "docs/casadi.md", "docs/robots.md", "docs/export.md"} <= names
    for page in PAGES:  # a Python block under another name would escape the test
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"^\s*```(python3|pycon|ipython)\b", text, re.M), _rel(page)


def test_opt_outs_give_a_reason():
    for page in PAGES:
        for line, _, reason in python_blocks(page.read_text(encoding="utf-8")):
            assert reason != "", f"{_rel(page)}:{line}: docs-test: skip needs a reason"


def _missing_optional(exc: BaseException) -> str | None:
    name = getattr(exc, "name", None) or ""
    top = name.split(".")[0]
    if isinstance(exc, ModuleNotFoundError) and top in OPTIONAL:
        return f"needs {top}: pip install 'lagdyn[{OPTIONAL[top]}]'"
    return None


def _run_doctest(code: str, namespace: dict, name: str) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(code, namespace, name, name, 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=False)
    if runner.failures:
        raise AssertionError("".join(out))


@pytest.mark.parametrize("page", RUNNABLE, ids=_rel)
def test_python_blocks_run(page: Path, tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs:{_rel(page)}"}
    for line, code, reason in python_blocks(page.read_text(encoding="utf-8")):
        where = f"{_rel(page)}:{line}"
        if reason is not None:
            continue
        include = [INCLUDE.match(c) for c in code.strip().splitlines()]
        if include and all(include):
            for m in include:  # an example script shown whole: tests/test_examples.py runs it
                path = ROOT / m.group(1)
                assert path.exists(), f"{where}: {m.group(1)} does not exist"
                assert path.parent == ROOT / "examples", f"{where}: include an example script"
            continue
        try:
            if code.lstrip().startswith(">>>"):
                _run_doctest(code, namespace, where)
            else:
                exec(compile(code, where, "exec"), namespace)
        except Exception as exc:
            reason = _missing_optional(exc)
            if reason:
                pytest.skip(f"{where}: {reason}")
            raise AssertionError(f"{where} failed: {exc!r}\n{code}") from exc
        finally:
            if "matplotlib.pyplot" in sys.modules:
                sys.modules["matplotlib.pyplot"].close("all")
    if page.name == "README.md":  # the names the README promises
        assert namespace["dp"].is_skew_symmetric() is True
        assert namespace["rel"].n == 2


# --------------------------------------------------------------------------- links
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"^([ \t]*)```.*?^\1```", "", text, flags=re.S | re.M)  # not code
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_relative_links_resolve(page: Path):
    generated = {f"lab-pages/{name}.html" for name in _load_hooks().LAB_PAGES}
    for target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # https:, mailto:, an anchor on the same page
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (page.parent / path).resolve()
        assert resolved.is_relative_to(ROOT), f"{_rel(page)}: {target} leaves the repository"
        if page.is_relative_to(DOCS):
            site_path = (
                resolved.relative_to(DOCS).as_posix() if resolved.is_relative_to(DOCS) else None
            )
            if site_path in generated:
                continue
            assert resolved.is_relative_to(DOCS), (
                f"{_rel(page)}: {target} is outside docs/ (the site has no such page); "
                "link the file on GitHub or name it in backticks"
            )
        assert resolved.exists(), f"{_rel(page)}: the link {target} points at nothing"


def test_link_checker_sees_links(tmp_path):
    page = tmp_path / "p.md"
    page.write_text('[a](x.md#top) ![i](img/a.png) `[no](code.md)` [w](https://e.org "t")\n')
    assert _links(page) == ["x.md#top", "img/a.png", "https://e.org"]


# --------------------------------------------------------------------------- generated
def test_generated_docs_are_current():
    """The gallery and the UR5 output are what the current scripts produce."""
    problems = _load_hooks().stale_outputs()
    assert not problems, "\n".join(problems)


def test_nav_pages_and_images_exist():
    text = (ROOT / "mkdocs.yml").read_text()
    pages = re.findall(r":\s*([\w./-]+\.md)\s*$", text, re.M)
    assert "getting-started.md" in pages and "gallery.md" in pages
    for page in pages:
        assert (DOCS / page).exists(), page
    for image in re.findall(r"\]\((assets/gallery/[\w.]+)\)", (DOCS / "gallery.md").read_text()):
        assert (DOCS / image).exists(), image


def test_api_pages_name_importable_modules():
    """Every ``::: module`` directive of docs/api names a module that imports (no old path)."""
    for page in sorted((DOCS / "api").glob("*.md")):
        for name in re.findall(r"^:::\s*([\w.]+)", page.read_text(), re.M):
            assert importlib.util.find_spec(name) is not None, f"{page.name}: {name}"
            assert "lagdyn.robot.programs" not in name and "casadi_model" not in name


@pytest.mark.skipif(
    not all(
        importlib.util.find_spec(m) is not None
        for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
    ),
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
    assert (tmp_path / "site" / "api" / "trig" / "index.html").exists()
    # the lab pages are generated by the build (mkdocs_hooks.py), never stored in docs/
    for name in ("double_pendulum", "cart_pole"):
        page = (tmp_path / "site" / "lab-pages" / f"{name}.html").read_text(encoding="utf-8")
        assert "function positions_jacobian" in page and "https://" not in page
    # the UR5 output is the example's, included from the generated file
    ident = (tmp_path / "site" / "identification" / "index.html").read_text(encoding="utf-8")
    assert "36 base parameters" in ident

"""No import cycles inside ``src/lagdyn``, counting every import statement.

The graph is built from the source with :mod:`ast`, so it sees what a run would not: imports
inside functions, inside ``if TYPE_CHECKING:`` blocks and in rarely taken branches. Edges:

* ``import lagdyn.a.b`` and ``from .a.b import name`` import ``lagdyn.a.b`` and every package on
  the way (``lagdyn.a``) except the packages that contain the importing module (those are
  already being initialised when it runs, and nothing is read from them);
* ``from P import name`` (``from . import name``, ``from lagdyn import name``) reads a name from
  the package ``P``, so it imports ``P``'s ``__init__`` — and also ``P.name`` when that is a
  module.

A cycle is reported with the modules in order and the line of each import.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "lagdyn"


def _modules(src: Path) -> dict[str, Path]:
    """Map every module name under ``src/lagdyn`` to its file (packages by their __init__)."""
    out: dict[str, Path] = {}
    for path in sorted((src / ROOT).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:k]) for k in range(1, len(parts))}


def _resolve(module: str, path: Path, level: int, name: str | None) -> str:
    """Absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name or ""
    package = module if _is_package(path) else module.rpartition(".")[0]
    base = package.split(".")
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _targets(target: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """``target`` and the packages traversed to reach it, minus the importer's own packages."""
    parts = target.split(".")
    reached = {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
    return {m for m in reached if m in modules} - _ancestors(importer)


def import_graph(src: Path = SRC) -> dict[str, dict[str, int]]:
    """``{module: {imported module: line of the first such import}}`` for src/lagdyn."""
    modules = _modules(src)
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges: dict[str, int] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            found: set[str] = set()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == ROOT:
                        found |= _targets(alias.name, module, modules)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node.level, node.module)
                if base.split(".")[0] != ROOT:
                    continue
                if base in modules:
                    found.add(base)  # names are read from it: its body must have run
                found |= _targets(base, module, modules) - {module}
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        found |= _targets(sub, module, modules)
            for target in found - {module}:
                edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One cycle as ``[a, b, ..., a]`` (depth-first search), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = GREY
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if colour.get(nxt, BLACK) == GREY:
                return [*stack[stack.index(nxt) :], nxt]
            if colour.get(nxt) == WHITE:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        colour[node] = BLACK
        return None

    for start in sorted(graph):
        if colour[start] == WHITE:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def _describe(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in itertools.pairwise(cycle)]
    return "import cycle:\n  " + "\n  ".join(steps)


def test_src_lagdyn_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "lagdyn.system" in graph and "lagdyn.numeric" in graph  # the walk found the package
    cycle = find_cycle(graph)
    assert cycle is None, _describe(cycle, graph)


# --- the checker itself, on small synthetic packages --------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / ROOT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "files",
    [
        # an import inside a function still counts
        {
            "__init__.py": "",
            "a.py": "def f():\n    from .b import x\n",
            "b.py": "from .a import f\n",
        },
        # so does a TYPE_CHECKING-only import
        {
            "__init__.py": "",
            "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import x\n",
            "b.py": "import lagdyn.a\n",
        },
        # `from . import x` reads from the package __init__, which imports the module back
        {
            "__init__.py": "from .a import f\n",
            "a.py": "def f():\n    from . import b\n",
            "b.py": "",
        },
        # `from lagdyn import name` is the same
        {
            "__init__.py": "from .a import f\n",
            "a.py": "from lagdyn import errors\n",
            "errors.py": "",
        },
        # `from . import sub` also imports the submodule
        {"__init__.py": "", "a.py": "from . import b\n", "b.py": "from .a import x\n"},
        # importing a subpackage's module runs the subpackage's __init__
        {
            "__init__.py": "",
            "a.py": "from .sub.m import x\n",
            "sub/__init__.py": "from ..a import y\n",
            "sub/m.py": "",
        },
        # two dots from inside a subpackage
        {
            "__init__.py": "",
            "a.py": "from .sub import m\n",
            "sub/__init__.py": "",
            "sub/m.py": "from ..a import y\n",
        },
    ],
)
def test_checker_finds_cycles(tmp_path: Path, files: dict[str, str]) -> None:
    graph = import_graph(_package(tmp_path, files))
    assert find_cycle(graph) is not None, graph


@pytest.mark.parametrize(
    "files",
    [
        # a chain is not a cycle
        {
            "__init__.py": "from .a import f\n",
            "a.py": "from .b import x\n",
            "b.py": "import math\n",
        },
        # a module inside a subpackage does not import the package it lives in by reaching a sibling
        {
            "__init__.py": "from .sub import m\n",
            "sub/__init__.py": "from .m import x\n",
            "sub/m.py": "from .n import y\nimport lagdyn.sub.n\n",
            "sub/n.py": "",
        },
    ],
)
def test_checker_accepts_acyclic(tmp_path: Path, files: dict[str, str]) -> None:
    graph = import_graph(_package(tmp_path, files))
    assert find_cycle(graph) is None, _describe(find_cycle(graph) or [], graph)


# --- the layer contract: folders are layers ----------------------------------------------

#: The layers of ``src/lagdyn``, bottom first: a unit (a folder, or a module at the root) may
#: import its own layer and those below, never one above (lazy and TYPE_CHECKING imports
#: included). ``docs/architecture.md`` draws the same diagram.
LAYERS: list[tuple[str, set[str]]] = [
    ("base", {"errors", "_version", "_moved", "_files", "symbols", "geometry", "parse"}),
    ("exact engine", {"trig/"}),
    ("code generation", {"codegen/", "_common"}),
    ("programs and numerics", {"recursive/", "numeric/"}),
    ("numeric services", {"simulation/", "control", "identification/", "export/", "drake"}),
    ("proofs", {"structure", "_validate", "tangent", "coordchange"}),
    ("systems", {"system"}),
    ("system builders", {"kinematics", "constraints", "nonholonomic", "mechanics", "robot/"}),
    ("applications", {"zoo/", "lab/", "gym/"}),
    ("front ends", {"plot", "cli/", "__init__", "__main__", "casadi_model"}),
]

#: Pairs that must never import each other even if the layers above allowed it (the issue's
#: contract, like import-linter's forbidden contract).
FORBIDDEN: list[tuple[str, str | None]] = [
    ("trig/", None),  # None: anything of lagdyn but errors
    ("recursive/", "system"),
    ("recursive/", "robot/"),
    ("numeric/", "simulation/"),
    ("numeric/", "identification/"),
    ("codegen/", "numeric/"),
    ("robot/", "zoo/"),
]


def _unit(module: str, src: Path) -> str:
    """``lagdyn.a.b`` → ``"a/"`` when ``lagdyn/a`` is a folder, else ``"a"``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return f"{parts[1]}/" if (src / ROOT / parts[1]).is_dir() else parts[1]


def folder_graph(src: Path = SRC) -> dict[str, dict[str, str]]:
    """``{unit: {imported unit: "module:line" of one such import}}`` between distinct units."""
    out: dict[str, dict[str, str]] = {}
    for module, edges in import_graph(src).items():
        a = _unit(module, src)
        out.setdefault(a, {})
        for target, line in edges.items():
            b = _unit(target, src)
            if a != b:
                out[a].setdefault(b, f"{module}:{line}")
    return out


def layer_violations(graph: dict[str, dict[str, str]]) -> list[str]:
    """Every arrow that climbs a layer or breaks a forbidden pair, and every unlayered unit."""
    rank = {unit: k for k, (_, units) in enumerate(LAYERS) for unit in units}
    problems = [f"{u} is in no layer: add it to LAYERS" for u in sorted(graph) if u not in rank]
    for a, targets in sorted(graph.items()):
        for b, where in sorted(targets.items()):
            if a in rank and b in rank and rank[b] > rank[a]:
                problems.append(
                    f"{a} ({LAYERS[rank[a]][0]}) imports {b} ({LAYERS[rank[b]][0]}) at {where}"
                )
            for src_unit, dst in FORBIDDEN:
                if a == src_unit and (b == dst or (dst is None and b != "errors")):
                    problems.append(f"forbidden: {a} imports {b} at {where}")
    return problems


def test_folders_are_layers() -> None:
    graph = folder_graph()
    assert {"trig/", "recursive/", "system", "robot/"} <= set(graph)  # the walk found them
    problems = layer_violations(graph)
    assert not problems, "layer contract broken:\n  " + "\n  ".join(problems)
    cycle = find_cycle({a: dict.fromkeys(bs, 0) for a, bs in graph.items()})
    assert cycle is None, f"folder loop: {' -> '.join(cycle or [])}"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # a lazy import climbing a layer
        (
            {
                "__init__.py": "",
                "errors.py": "def f():\n    from .trig import x\n",
                "trig/__init__.py": "",
            },
            "errors (base) imports trig/ (exact engine)",
        ),
        # trig/ may import errors only, even from below
        (
            {
                "__init__.py": "",
                "errors.py": "",
                "symbols.py": "",
                "trig/__init__.py": "from ..symbols import t\n",
            },
            "forbidden: trig/ imports symbols",
        ),
        # a new folder must be placed in a layer
        (
            {
                "__init__.py": "",
                "newfolder/__init__.py": "from ..errors import E\n",
                "errors.py": "",
            },
            "newfolder/ is in no layer",
        ),
        # numeric/ may not reach simulation/ under TYPE_CHECKING either
        (
            {
                "__init__.py": "",
                "numeric/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..simulation import x\n",
                "simulation/__init__.py": "",
            },
            "numeric/ (programs and numerics) imports simulation/",
        ),
    ],
)
def test_layer_checker_fails(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    src = _package(tmp_path, files)
    problems = layer_violations(folder_graph(src))
    assert any(expected in p for p in problems), problems

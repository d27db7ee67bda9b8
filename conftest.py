"""Collection rules for the whole tree.

Aliases
    The aliases of moved modules are not collected: importing one of them replaces itself
    by the module it names (with a ``DeprecationWarning``), so collecting its doctests would
    collect that module's twice.

Doctests that need an optional package
    A doctest is skipped, with a reason naming the package and its pip extra (``needs
    casadi: pip install 'lagdyn[casadi]'``), when it needs a package that cannot be imported
    here; with the package installed it runs like any other, so it can fail. The need is
    read from the example itself: :data:`REQUIREMENTS` lists, per package, the patterns
    that show it (searched in the doctest's name, a line ``# doctest: <name>``, followed by
    the source of its examples). Three kinds of pattern:

    - importing the package (``import casadi``, ``from scipy import linalg``): the explicit
      way for an example to declare its need, and one that reads naturally in the docs;
    - calling a lagdyn function that needs it (``to_casadi(``, ``lqr(``, ``plot_energy(``,
      ``urdf_path(``, ``backend="c"``, ...);
    - the doctest's own name, for an example that calls a function of its module without
      importing it (``lagdyn.numeric.casadi.export_files``).

    An example must never catch the missing package's ``ImportError`` (or
    ``BackendUnavailableError``) and print the expected output itself: such an example
    passes whatever the code does. ``tests/test_doctest_requirements.py`` fails on one, and
    runs the doctests of each package's modules with that package made unimportable, so a
    doctest missing from the table fails there.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import inspect
import re
import shutil
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from _pytest.doctest import DoctestItem

collect_ignore = [
    "src/lagdyn/casadi_model.py",
    *(
        f"src/lagdyn/robot/{name}.py"
        for name in ("chain", "numeric", "programs", "proofs", "regressor", "route")
    ),
]


@dataclass(frozen=True)
class Requirement:
    """An optional package: how to tell it is importable, its extra, what shows the need."""

    package: str  # as pip spells it
    extra: str  # pip install 'lagdyn[<extra>]'
    modules: tuple[str, ...]  # importable iff all of these import
    patterns: tuple[str, ...]  # regular expressions; any one found means the doctest needs it
    distribution: str | None = None  # checked with importlib.metadata instead of an import
    check: Callable[[], str | None] | None = None  # extra check: None, or why it is unusable

    def regex(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.patterns), re.MULTILINE)


def _imports(*modules: str) -> tuple[str, ...]:
    """Patterns for ``import m`` / ``from m import`` / ``from m.sub import`` of ``modules``."""
    return tuple(rf"^\s*(?:import|from)\s+{re.escape(m)}\b" for m in modules)


def _c_compiler() -> str | None:
    """None when the compiler of lagdyn's C backend is on PATH, else why not (as lagdyn asks)."""
    import os

    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return None if shutil.which(cc) else f"no C compiler {cc!r} on PATH"


#: The optional packages doctests may need, each with the patterns that show the need.
REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "casadi",
        "casadi",
        ("casadi",),
        (
            *_imports("casadi"),
            r"\bto_casadi\(",
            r"\bimport_casadi\(",
            r"\bCasadiRegressor\(",
            # functions of lagdyn.codegen.casadi that build casadi objects
            r"\bfrom\s+lagdyn\.codegen\.casadi\s+import\b[^\n]*\b(?:kernel_function|graph_function|to_sx)\b",
            r"^# doctest: lagdyn\.numeric\.casadi\.(?:export_files|CasadiModel)\b",
            r"^# doctest: lagdyn\.identification\.casadi\.CasadiRegressor\b",
        ),
    ),
    Requirement(
        "scipy",
        "sim",
        ("scipy",),
        (*_imports("scipy"), r"\blqr\(", r"""method\s*=\s*["']scipy"""),
    ),
    Requirement(
        "matplotlib",
        "plot",
        ("matplotlib",),
        (*_imports("matplotlib"), r"\bplot_\w+\(", r"\banimate\(", r"\.plot\("),
    ),
    Requirement(
        "cffi",
        "fast",
        ("cffi",),
        (*_imports("cffi"), r"""\bbackend\s*=\s*["']c["']"""),
        check=_c_compiler,
    ),
    Requirement(
        "numba", "numba", ("numba",), (*_imports("numba"), r"""\bbackend\s*=\s*["']numba["']""")
    ),
    Requirement("jax", "jax", ("jax",), (*_imports("jax"), r"""\bbackend\s*=\s*["']jax["']""")),
    Requirement("dask", "dask", ("dask",), _imports("dask")),
    Requirement("pin", "crosscheck", ("pinocchio",), _imports("pinocchio")),
    Requirement(
        "gymnasium",
        "rl",
        ("gymnasium",),
        # every example of lagdyn.gym makes an environment (its modules import without it)
        (*_imports("gymnasium"), r"\bgym\.make(?:_vec)?\(", r"^# doctest: lagdyn\.gym\b"),
    ),
    Requirement(
        "drake",
        "drake",
        ("pydrake",),
        (*_imports("pydrake"), r"\bto_drake\("),
    ),
    Requirement(
        "example-robot-data",
        "robot",
        (),
        (*_imports("example_robot_data"), r"\burdf_path\(", r"\btasks\.solo12\("),
        distribution="example-robot-data",
    ),
)


@functools.cache
def unavailable(req: Requirement) -> str | None:
    """None when ``req`` is usable here, else why not."""
    for module in req.modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            return f"{module} is not importable ({exc})"
    if req.distribution is not None:
        try:
            importlib.metadata.distribution(req.distribution)
        except importlib.metadata.PackageNotFoundError:
            return f"{req.distribution} is not installed"
    return req.check() if req.check is not None else None


def doctest_text(name: str, sources: list[str]) -> str:
    """What the patterns are searched in: the doctest's name line, then its examples."""
    return "\n".join([f"# doctest: {name}", *sources])


def needs(name: str, sources: list[str]) -> list[tuple[Requirement, str]]:
    """The requirements of one doctest, each with the text that showed it."""
    text = doctest_text(name, sources)
    found = []
    for req in REQUIREMENTS:
        match = req.regex().search(text)
        if match is not None:
            found.append((req, match.group(0).strip()))
    return found


def _fill_lineno(item: DoctestItem) -> None:
    """Give a doctest without a line number (a ``cached_property``'s) its function's line.

    pytest reports a skip at the doctest's line and fails on a doctest that has none.
    """
    assert item.dtest is not None
    if item.dtest.lineno is not None:
        return
    lineno = 0
    try:
        obj: object = item.parent.obj if item.parent is not None else None  # the module
        for part in item.dtest.name.split(".")[len(getattr(obj, "__name__", "").split(".")) :]:
            obj = inspect.getattr_static(obj, part)
        obj = getattr(obj, "func", getattr(obj, "fget", obj))
        lineno = inspect.getsourcelines(obj)[1] - 1  # type: ignore[arg-type]
    except (AttributeError, OSError, TypeError):
        pass
    item.dtest.lineno = lineno


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not isinstance(item, DoctestItem) or item.dtest is None:
            continue
        sources = [example.source for example in item.dtest.examples]
        for req, shown_by in needs(item.dtest.name, sources):
            why = unavailable(req)
            if why is not None:
                hint = f"pip install 'lagdyn[{req.extra}]'"
                reason = f"needs {req.package}: {hint} ({why}; shown by {shown_by!r})"
                _fill_lineno(item)
                item.add_marker(pytest.mark.skip(reason=reason))
                break

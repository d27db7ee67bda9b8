"""Golden files of every exported language, for the double pendulum and one arm.

``lagdyn.export.code.generate`` writes each target (C, C++, Julia, MATLAB, JavaScript,
numba, JAX, CasADi) for the zoo's ``double_pendulum`` and ``planar_3r`` with their
default parameters bound (numbers folded into the code, so the files stay small); every
file must equal ``tests/golden/export/<model>/<file>`` byte for byte. A missing or
different file fails, and so does a golden file no target writes any more. After an
intended change to code generation, regenerate and review the diff::

    LAGDYN_UPDATE_GOLDEN=1 pytest tests/export/test_golden_exports.py

(which also deletes stale golden files). The source targets need no compiler and no
numba/jax/Julia/Octave/Node: they are compared as text (``tests/export/test_code.py``
runs them).

CasADi: the ``NAME_<function>.casadi`` files are casadi's own serialization, whose
format belongs to the installed casadi version. What lagdyn controls is compared on
every casadi version: ``NAME_README.md`` and ``NAME_casadi_signatures.txt``, written by
this test from the loaded functions (name, inputs and outputs with their shapes, and the
outputs at a fixed state to 9 significant digits). The serialized text itself is compared
only when the installed casadi is the version recorded in
``tests/golden/export/casadi_version.txt``, and skipped with a reason otherwise. Without
casadi the CasADi tests skip.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import lagdyn as ld
from lagdyn.export.code import TARGETS, generate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "export"
CASADI_VERSION = GOLDEN / "casadi_version.txt"
MODELS = ("double_pendulum", "planar_3r")
SOURCE_TARGETS = tuple(t for t in TARGETS if t != "casadi")
HAVE_CASADI = importlib.util.find_spec("casadi") is not None
needs_casadi = pytest.mark.skipif(not HAVE_CASADI, reason="casadi is not installed")

Exports = Callable[[str, str], dict[str, str]]


@pytest.fixture(scope="module")
def exports() -> Exports:
    """``exports(model, target)``: the generated files, each pair generated once."""
    done: dict[tuple[str, str], dict[str, str]] = {}

    def get(model: str, target: str) -> dict[str, str]:
        if (model, target) not in done:
            system = ld.zoo.get(model)
            done[model, target] = generate(system, target, name=model, params=system.defaults)
        return done[model, target]

    return get


def updating(config: pytest.Config) -> bool:
    """As ``check_golden`` decides: ``LAGDYN_UPDATE_GOLDEN=1`` or ``--update-golden``."""
    return bool(os.environ.get("LAGDYN_UPDATE_GOLDEN")) or bool(
        config.getoption("--update-golden", default=False)
    )


def casadi_signatures(files: dict[str, str]) -> str:
    """Name, signature and outputs at a fixed state of each serialized function."""
    import casadi as ca
    import numpy as np

    lines = []
    with tempfile.TemporaryDirectory(prefix="lagdyn-golden-") as tmp:
        for fname, text in sorted(files.items()):
            if not fname.endswith(".casadi"):
                continue
            path = Path(tmp) / fname
            path.write_text(text, encoding="ascii")
            f = ca.Function.load(str(path))
            ins = [f"{f.name_in(i)}{f.size_in(i)}" for i in range(f.n_in())]
            outs = [f"{f.name_out(i)}{f.size_out(i)}" for i in range(f.n_out())]
            lines.append(f"{fname}: {f.name()}({', '.join(ins)}) -> {', '.join(outs)}")
            args = [
                np.linspace(0.3 + 0.5 * i, -0.4 + 0.5 * i, f.numel_in(i)).reshape(
                    f.size_in(i), order="F"
                )
                for i in range(f.n_in())
            ]
            for i, arg in enumerate(args):
                lines.append(f"  {f.name_in(i)} = {_numbers(arg)}")
            for i, value in enumerate(f.call(args)):
                lines.append(f"  {f.name_out(i)} = {_numbers(np.asarray(value.full()))}")
    return "\n".join(lines) + "\n"


def _numbers(a) -> str:
    """Entries in column-major order to 9 significant digits (``-0`` and ``1e-13`` as 0)."""
    return " ".join(f"{(0.0 if abs(x) < 1e-12 else float(x)):.9g}" for x in a.ravel(order="F"))


@pytest.mark.parametrize("target", SOURCE_TARGETS)
@pytest.mark.parametrize("model", MODELS)
def test_source_export_matches_golden(model, target, exports, check_golden):
    files = exports(model, target)
    assert files
    for fname, text in sorted(files.items()):
        check_golden(GOLDEN / model / fname, text)


@needs_casadi
@pytest.mark.parametrize("model", MODELS)
def test_casadi_readme_and_signatures_match_golden(model, exports, check_golden):
    files = exports(model, "casadi")
    readme = f"{model}_README.md"
    check_golden(GOLDEN / model / readme, files[readme])
    check_golden(GOLDEN / model / f"{model}_casadi_signatures.txt", casadi_signatures(files))


@needs_casadi
@pytest.mark.parametrize("model", MODELS)
def test_casadi_serialized_matches_golden_on_the_recorded_version(
    model, exports, check_golden, request
):
    import casadi as ca

    if updating(request.config):
        check_golden(CASADI_VERSION, ca.__version__ + "\n")
    elif CASADI_VERSION.exists():
        recorded = CASADI_VERSION.read_text(encoding="utf-8").strip()
        if recorded != ca.__version__:
            pytest.skip(
                f"the serialized golden files were written by casadi {recorded}, "
                f"this is {ca.__version__} (README and signatures are still compared)"
            )
    else:
        check_golden(CASADI_VERSION, ca.__version__ + "\n")  # fails: missing
    files = exports(model, "casadi")
    for fname, text in sorted(files.items()):
        if fname.endswith(".casadi"):
            check_golden(GOLDEN / model / fname, text)


@pytest.mark.parametrize("model", MODELS)
def test_no_stale_golden_files(model, exports, request):
    """Every golden file of ``model`` is written by some target (stale ones are deleted on
    update); without casadi the CasADi files are not checked."""
    expected = {f for target in SOURCE_TARGETS for f in exports(model, target)}
    if HAVE_CASADI:
        expected |= set(exports(model, "casadi")) | {f"{model}_casadi_signatures.txt"}
    folder = GOLDEN / model
    present = {p.name for p in folder.glob("*") if p.is_file()}  # not __pycache__/
    if not HAVE_CASADI:
        present = {
            f
            for f in present
            if not f.endswith((".casadi", "_README.md", "_casadi_signatures.txt"))
        }
    stale = sorted(present - expected)
    if stale and updating(request.config):
        for f in stale:
            (folder / f).unlink()
        return
    assert not stale, (
        f"golden files no target writes any more: {stale} in {folder}; delete them with "
        "`LAGDYN_UPDATE_GOLDEN=1 pytest tests/export/test_golden_exports.py`"
    )

"""Every script in examples/ runs (so the gallery and the tutorials cannot rot).

Each script runs as ``__main__`` in the test process (``runpy``; the imports of sympy,
numpy, matplotlib and lagdyn are paid once per worker, not once per script) with
``MPLBACKEND=Agg``, ``LAGDYN_FAST=1`` and a temporary output directory as its first argument
(gallery scripts write their figures there). The gallery scripts render figures and GIFs
and are marked slow.
"""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))

GALLERY_OUTPUTS = {
    "gallery_double_pendulum.py": ["double_pendulum.png", "double_pendulum.gif"],
    "gallery_energy.py": ["energy.png"],
    "gallery_chaos.py": ["chaos.png"],
    "gallery_phase.py": ["phase.png", "timeseries.png"],
    "gallery_n_link.py": ["n_link.png", "n_link.gif"],
    "lqr_cart_pole.py": ["lqr_cart_pole.png"],
    "lqr_acrobot.py": ["lqr_acrobot.png"],
    "ur5.py": ["ur5_fall.png", "ur5_fall.gif"],
    "casadi_swingup.py": ["casadi_swingup.png", "casadi_swingup.gif"],
    "quadruped_contacts.py": ["quadruped_contacts.png", "quadruped_contacts.gif"],
    "quadruped_friction.py": ["quadruped_friction.png"],
}


def _param(path: Path) -> object:
    marks = [pytest.mark.slow] if path.name.startswith("gallery_") else []
    return pytest.param(path, id=path.name, marks=marks)


def test_examples_exist():
    names = {p.name for p in SCRIPTS}
    assert set(GALLERY_OUTPUTS) <= names
    # issue 21: four first sessions written from the docs alone
    users = ("roboticist", "control_engineer", "paper_author", "teacher")
    assert {f"user_{who}.py" for who in users} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_opens_with_a_docstring(script: Path):
    """Every example says what it shows before it does anything."""
    module = ast.parse(script.read_text(encoding="utf-8"))
    doc = ast.get_docstring(module)
    assert doc and len(doc.split()) >= 8, f"{script.name} has no docstring saying what it shows"


@pytest.mark.parametrize("script", [_param(p) for p in SCRIPTS])
def test_example_runs(script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    """Run the script as ``__main__`` in this process (imports are paid once per worker)."""
    if script.name in GALLERY_OUTPUTS:
        pytest.importorskip("matplotlib")
        pytest.importorskip("PIL")
    if script.name.startswith("casadi_"):
        pytest.importorskip("casadi")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("LAGDYN_FAST", "1")  # coarser grids where offered
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path / "out")])
    monkeypatch.chdir(tmp_path)
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:  # a script may end with sys.exit(0)
        assert exc.code in (None, 0), f"{script.name} exited with {exc.code}"
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    assert capsys.readouterr().out  # every example reports what it did
    for name in GALLERY_OUTPUTS.get(script.name, []):
        out = tmp_path / "out" / name
        assert out.exists() and out.stat().st_size > 0, f"{script.name} did not write {name}"

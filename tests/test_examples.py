"""Every script in examples/ runs (so the gallery and the tutorials cannot rot).

Each script runs in a subprocess with ``MPLBACKEND=Agg`` and a temporary output directory
as its first argument (gallery scripts write their figures there). Each takes under 15 s on
a quiet machine; the 600 s timeout only guards against a hang (a shared, loaded machine
must not turn a slow run into a failure). The gallery scripts render figures and GIFs and
are marked slow.
"""

from __future__ import annotations

import os
import subprocess
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
}


def _param(path: Path) -> object:
    marks = [pytest.mark.slow] if path.name.startswith("gallery_") else []
    return pytest.param(path, id=path.name, marks=marks)


def test_examples_exist():
    names = {p.name for p in SCRIPTS}
    assert set(GALLERY_OUTPUTS) <= names


@pytest.mark.parametrize("script", [_param(p) for p in SCRIPTS])
def test_example_runs(script: Path, tmp_path: Path):
    if script.name in GALLERY_OUTPUTS:
        pytest.importorskip("matplotlib")
        pytest.importorskip("PIL")
    if script.name.startswith("casadi_"):
        pytest.importorskip("casadi")
    env = {**os.environ, "MPLBACKEND": "Agg", "LAGDYN_FAST": "1"}  # coarser grids where offered
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "out")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard, not a speed assertion
    )
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout}\n{proc.stderr}"
    for name in GALLERY_OUTPUTS.get(script.name, []):
        out = tmp_path / "out" / name
        assert out.exists() and out.stat().st_size > 0, f"{script.name} did not write {name}"

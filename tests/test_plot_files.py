"""Files written by lagdyn.plot (the rules of every writer: tests/cli/test_output_files.py)."""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.plot import positions_for

pytest.importorskip("PIL")


def test_animate_creates_a_missing_directory_like_every_writer(tmp_path):
    res = ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))
    out = tmp_path / "new" / "dir" / "x.gif"
    assert ld.plot.animate(res, positions_for("double_pendulum"), out, frames=2, dpi=20) == out
    assert out.read_bytes()[:6] == b"GIF89a"
    assert sorted(p.name for p in out.parent.iterdir()) == ["x.gif"]


def test_animate_refuses_before_drawing(tmp_path, monkeypatch):
    res = ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))
    (tmp_path / "x.gif").write_text("keep")
    monkeypatch.setattr(ld.plot, "_figure", lambda *a, **k: pytest.fail("drew a figure"))
    with pytest.raises(ld.LagdynError, match="refusing to overwrite"):
        ld.plot.animate(res, positions_for("double_pendulum"), tmp_path / "x.gif")
    with pytest.raises(ld.LagdynError, match="unsupported file type"):
        ld.plot.animate(res, positions_for("double_pendulum"), tmp_path / "x.png")
    assert (tmp_path / "x.gif").read_text() == "keep"

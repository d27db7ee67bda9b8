"""Files written by lagdyn.plot."""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.plot import positions_for


def test_animate_refuses_a_missing_directory(tmp_path):
    res = ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))
    with pytest.raises(ld.LagdynError, match="does not exist"):
        ld.plot.animate(res, positions_for("double_pendulum"), tmp_path / "no" / "x.gif")
    assert not (tmp_path / "no").exists()

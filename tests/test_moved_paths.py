"""Public paths that moved in the layer refactor keep working for one release, with a warning.

Each old path must (1) still give the object the new path gives and (2) warn with a
``DeprecationWarning`` naming the new path. The subprocess runs a fresh interpreter so the
import really executes the alias module (a module imported once is not imported again).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import lagdyn as ld

MOVED = [
    ("lagdyn.casadi_model", "lagdyn.numeric.casadi"),
    ("lagdyn.robot.chain", "lagdyn.recursive.chain"),
    ("lagdyn.robot.programs", "lagdyn.recursive"),
    ("lagdyn.robot.proofs", "lagdyn.recursive.proofs"),
    ("lagdyn.robot.route", "lagdyn.recursive.route"),
    ("lagdyn.robot.regressor", "lagdyn.recursive.regressor"),
]


@pytest.mark.parametrize(("old", "new"), MOVED)
def test_old_module_path_warns_and_is_the_new_module(old: str, new: str) -> None:
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        f"new = importlib.import_module({new!r})\n"
        "try:\n"
        f"    importlib.import_module({old!r})\n"
        "except DeprecationWarning as w:\n"
        "    print('WARNED', w)\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        f"print('SAME', importlib.import_module({old!r}) is new)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert f"WARNED {old} moved to {new}" in out, out
    assert "SAME True" in out, out


def test_robot_programs_attribute_warns() -> None:
    code = (
        "import warnings, lagdyn as ld\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n"
        "    ld.robot.programs\n"
        "except DeprecationWarning as w:\n"
        "    print('WARNED', w)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert "WARNED lagdyn.robot.programs moved to lagdyn.recursive" in out, out


def test_robot_reexports_the_recursive_layer_plainly() -> None:
    assert ld.robot.Chain is ld.recursive.Chain
    assert ld.robot.proofs is ld.recursive.proofs
    assert ld.robot.regressor is ld.recursive.regressor
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        ld.robot.nothing  # noqa: B018

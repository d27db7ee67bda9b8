"""Golden files for the generated numeric source of the double pendulum.

Regenerate with ``LAGDYN_UPDATE_GOLDEN=1 pytest tests/codegen/test_golden_runtime.py`` (or
``--update-golden``) after an intended change to code generation, and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lagdyn as ld
from lagdyn.codegen import Binding, Program, c, python, system_program

GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.fixture(scope="module")
def spec() -> Program:
    dp = ld.zoo.double_pendulum()
    return system_program(dp, Binding(dp.parameters, dp.defaults))


@pytest.mark.parametrize("suffix", ["py", "c"])
def test_generated_source_golden(spec, suffix, check_golden):
    if suffix == "py":
        text = python.runtime_source(spec, "golden")
    else:
        text, _ = c.runtime_source(spec, "golden", simd=True)
    check_golden(GOLDEN / f"numeric_double_pendulum.{suffix}", text)  # a missing file fails

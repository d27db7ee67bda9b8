"""Golden files for the generated numeric source of the double pendulum.

Regenerate with ``LAGDYN_UPDATE_GOLDEN=1 pytest tests/test_numeric_golden.py`` (or
``--update-golden``) after an intended change to code generation, and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lagdyn as ld
from lagdyn.numeric import _codegen

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def spec() -> _codegen.Spec:
    dp = ld.zoo.double_pendulum()
    return _codegen.build_spec(dp, dp.defaults, [])


@pytest.mark.parametrize("suffix", ["py", "c"])
def test_generated_source_golden(spec, suffix, check_golden):
    if suffix == "py":
        text = _codegen.python_source(spec, "golden")
    else:
        text, _ = _codegen.c_source(spec, "golden", simd=True)
    check_golden(GOLDEN / f"numeric_double_pendulum.{suffix}", text)  # a missing file fails

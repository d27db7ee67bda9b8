"""Golden files for the generated numeric source of the double pendulum.

Regenerate with ``LAGDYN_UPDATE_GOLDEN=1 pytest tests/test_numeric_golden.py`` (or
``--update-golden``) after an intended change to code generation, and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import lagdyn as ld
from lagdyn.codegen import Binding, Program, c, python, system_program

GOLDEN = Path(__file__).parent / "golden"


def _update(request: pytest.FixtureRequest) -> bool:
    return bool(os.environ.get("LAGDYN_UPDATE_GOLDEN")) or bool(
        request.config.getoption("--update-golden", default=False)
    )


@pytest.fixture(scope="module")
def spec() -> Program:
    dp = ld.zoo.double_pendulum()
    return system_program(dp, Binding(dp.parameters, dp.defaults))


@pytest.mark.parametrize("suffix", ["py", "c"])
def test_generated_source_golden(spec, suffix, request):
    if suffix == "py":
        text = python.runtime_source(spec, "golden")
    else:
        text, _ = c.runtime_source(spec, "golden", simd=True)
    path = GOLDEN / f"numeric_double_pendulum.{suffix}"
    if _update(request):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"golden file {path} is missing: regenerate it (see the module doc)"
    assert text == path.read_text(encoding="utf-8"), f"generated source changed: compare {path}"

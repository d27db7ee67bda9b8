"""Shared pytest configuration: hypothesis profiles sized for a 2-core CI machine.

Locally every run explores new random examples; under CI (``CI`` set, as ``.ci/run``
runs) the examples are derandomized so a landing never depends on the draw.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "lagdyn",
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("lagdyn-ci", parent=settings.get_profile("lagdyn"), derandomize=True)
settings.load_profile("lagdyn-ci" if os.environ.get("CI") else "lagdyn")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden files")

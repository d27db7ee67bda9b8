"""Shared pytest configuration: hypothesis profiles sized for a 2-core CI machine."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "lagdyn",
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("lagdyn")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden files")

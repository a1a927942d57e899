"""Shared test fixtures. Spark fixtures live in tests/spark/conftest.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


# Hypothesis budgets, one home: a profile sets how many examples every property test draws.
#   SA_HYPOTHESIS=default (the suite), quick (a developer's loop: a sixth), deep (a search: ~8x).
# A test states its size at the default budget with tests.budget.examples(n); profiles scale it.
from hypothesis import HealthCheck, settings  # noqa: E402

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("default", max_examples=60, **_COMMON)
settings.register_profile("quick", max_examples=10, **_COMMON)
settings.register_profile("deep", max_examples=500, **_COMMON)
settings.load_profile(os.environ.get("SA_HYPOTHESIS", "default"))

# Spark JVMs that tests start in child processes (crash and race writers, bad-input scripts, session
# and cluster checks) live for seconds: C2 compilation and the parallel collector's threads cost
# about half of such a JVM's CPU (47 s against 23 s for a session that rebalances one group, on this
# 2-core machine), for code that never runs long enough to gain from them. spark-submit adds
# SPARK_SUBMIT_OPTS to the driver JVM's options; children inherit it. The tests' own long-lived
# session (tests/spark/conftest.py) starts without it. It changes how the JVM compiles, not what runs.
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("SPARK_SUBMIT_OPTS", SHORT_LIVED_JVM)


# Soak tests repeat what the suite checks once (every strategy, several kills per fault point) and
# cost minutes: they run with --soak (before an issue that they test is resolved), and are
# deselected otherwise, so the suite's loop keeps its budget.
def pytest_addoption(parser):
    parser.addoption("--soak", action="store_true", help="also run the tests marked soak (minutes)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--soak"):
        return
    kept = [item for item in items if item.get_closest_marker("soak") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("soak")])
        items[:] = kept

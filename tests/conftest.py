"""Shared test fixtures. Spark fixtures live in tests/spark/conftest.py."""

from __future__ import annotations

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
settings.load_profile(__import__("os").environ.get("SA_HYPOTHESIS", "default"))

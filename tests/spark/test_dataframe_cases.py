"""Reference cases through DataFrame.assign_partitions, all groups of a strategy in one DataFrame."""

import pytest

from spark_assign.testing import load_cases

from ..conftest import DATA
from .casefleet import run_fleet, supported

pytestmark = pytest.mark.spark

PUBLIC = load_cases(DATA / "public_cases.json")
KAFKA = load_cases(DATA / "kafka_client_cases.json") + load_cases(DATA / "kafka_server_cases.json")
STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]


@pytest.mark.parametrize("strategy", sorted({c["strategy"] for c in PUBLIC}))
def test_public_cases_as_one_fleet(spark, strategy):
    failures = run_fleet(spark, PUBLIC, strategy)
    # sticky-member-leaves round 2 expects pre-2.8 Kafka (see tests/core/consumer/test_public_cases.py).
    known = [f for f in failures if f.case == "sticky-member-leaves" and f.round == 1]
    assert (len(known) == 1) == (strategy == "sticky")
    rest = [f for f in failures if f not in known]
    assert not rest, "\n".join(map(str, rest))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kafka_cases_as_one_fleet(spark, strategy):
    cases = [c for c in KAFKA if c["strategy"] == strategy and supported(c)]
    assert cases
    failures = run_fleet(spark, cases, strategy)
    assert not failures, "\n".join(map(str, failures[:5]))

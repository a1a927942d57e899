"""Random clusters with the placements of Apache Kafka's own classes (tests/data/kafka_replica_oracle_cases.json).

The file's "about" says how they were produced. Where Kafka refused the input
(its exception is in ``kafka_error``), we must refuse it too, with an
``InvalidInputError``.
"""

import json

import pytest

from spark_assign.core import Broker, place_replicas
from spark_assign.errors import InvalidInputError

from ...conftest import DATA

CASES = json.loads((DATA / "kafka_replica_oracle_cases.json").read_text(encoding="utf-8"))["cases"]


def run(case):
    return place_replicas([Broker(b, rack=r, fenced=f) for b, r, f in case["brokers"]], case["partitions"],
                          case["replication_factor"], method=case["method"], start_index=case["start_index"],
                          start_partition=case["start_partition"], seed=case["seed"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_kafka(case):
    if "kafka_error" in case:
        with pytest.raises(InvalidInputError):
            run(case)
    else:
        result = run(case)
        assert result.replicas == case["expected"]
        start = case["start_partition"]
        assert result.partitions.tolist() == list(range(start, start + case["partitions"]))


def test_the_cases_cover_both_methods_racks_fencing_and_errors():
    placed = [c for c in CASES if "expected" in c]
    assert {c["method"] for c in placed} == {"admin-utils", "striped"}
    assert any(r is not None for c in placed if c["method"] == "admin-utils" for _, r, _ in c["brokers"])
    assert any(f for c in placed if c["method"] == "striped" for _, _, f in c["brokers"])
    assert any(c["start_index"] is None for c in placed) and any(c["start_index"] is not None for c in placed)
    errors = {c["kafka_error"].split(":")[0] for c in CASES if "kafka_error" in c}
    assert errors == {"InvalidReplicationFactorException", "AdminOperationException"}

"""Random clusters with the placements of Apache Kafka's own classes (tests/data/kafka_replica_oracle_cases.json,
and tests/data/kafka_striped_mixed_racks_cases.json: striped on clusters mixing rackless and racked brokers).

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
#: Clusters mixing rackless and racked brokers (issue 37's suspected striped defect), Kafka's placements.
MIXED = json.loads((DATA / "kafka_striped_mixed_racks_cases.json").read_text(encoding="utf-8"))["cases"]


def run(case):
    return place_replicas([Broker(b, rack=r, fenced=f) for b, r, f in case["brokers"]], case["partitions"],
                          case["replication_factor"], method=case["method"], start_index=case["start_index"],
                          start_partition=case["start_partition"], seed=case["seed"])


@pytest.mark.parametrize("case", CASES + MIXED, ids=[c["name"] for c in CASES + MIXED])
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


def test_the_mixed_rack_cases_mix_rackless_and_racked_live_brokers():
    for case in MIXED:
        live = [rack for _, rack, fenced in case["brokers"] if not fenced]
        assert None in live and any(rack is not None for rack in live), case["name"]
    assert {"Aa", "BB"} <= {rack for case in MIXED for _, rack, _ in case["brokers"]}    # String.hashCode twins

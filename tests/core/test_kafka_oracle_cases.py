"""Random groups with the outputs of Apache Kafka's own assignor classes (tests/data/kafka_oracle_cases.json).

The file's "about" says how they were produced and what was left out.
"""

import pytest

from spark_assign.testing import load_cases, run_case

from ..conftest import DATA

CASES = load_cases(DATA / "kafka_oracle_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_kafka(case):
    failures = run_case(case)
    assert not failures, "\n".join(map(str, failures))


def test_every_strategy_is_covered():
    assert {c["strategy"] for c in CASES} == {
        "range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"}

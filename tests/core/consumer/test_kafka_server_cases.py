"""Scenarios ported from Kafka's group-coordinator assignor tests (KIP-848), under Kafka's test names.

``uniform``: OptimizedUniformAssignmentBuilderTest ([homogeneous]) and
UniformHeterogeneousAssignmentBuilderTest ([heterogeneous]), with Kafka 4.1's
expectations; ``server-range``: RangeAssignorTest (group coordinator).
"""

import pytest

from spark_assign.testing import load_cases, run_case

from ...conftest import DATA

CASES = load_cases(DATA / "kafka_server_cases.json")


def _cases(strategy):
    chosen = [c for c in CASES if c["strategy"] == strategy]
    return pytest.mark.parametrize("case", chosen, ids=[c["name"] for c in chosen])


@_cases("uniform")
def test_UniformAssignor(case):
    failures = run_case(case)
    assert not failures, "\n".join(map(str, failures))


@_cases("server-range")
def test_ServerRangeAssignor(case):
    failures = run_case(case)
    assert not failures, "\n".join(map(str, failures))

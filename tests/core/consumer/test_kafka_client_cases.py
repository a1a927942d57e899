"""Scenarios ported from Apache Kafka's client assignor tests, under Kafka's test names.

tests/data/kafka_client_cases.json holds the inputs and the outputs Kafka's
RangeAssignorTest, RoundRobinAssignorTest, AbstractStickyAssignorTest (run as
StickyAssignorTest and CooperativeStickyAssignorTest) and the two subclasses'
own tests assert; its "about" field says how each was transcribed.
"""

import pytest

from spark_assign.testing import load_cases, run_case

from ...conftest import DATA

CASES = load_cases(DATA / "kafka_client_cases.json")


def _cases(strategy):
    chosen = [c for c in CASES if c["strategy"] == strategy]
    return pytest.mark.parametrize("case", chosen, ids=[c["name"] for c in chosen])


def _check(case):
    failures = run_case(case)
    assert not failures, "\n".join(map(str, failures))


@_cases("range")
def test_RangeAssignorTest(case):
    _check(case)


@_cases("roundrobin")
def test_RoundRobinAssignorTest(case):
    _check(case)


@_cases("sticky")
def test_StickyAssignorTest(case):
    _check(case)


@_cases("cooperative-sticky")
def test_CooperativeStickyAssignorTest(case):
    _check(case)


def test_every_kafka_case_states_something():
    """A case without expectations could never fail."""
    for case in CASES:
        for rnd in case["rounds"]:
            assert {"expected", "expected_count", "revoked", "checks"} & set(rnd), case["name"]

"""Random groups with the outputs of Apache Kafka's own assignor classes.

``kafka_oracle_cases.json``: small groups (up to 9 members, topics t0-t4).
``kafka_oracle_wide_cases.json``: groups that look like users' data (issue 16), made by
``tests/kafka_oracle``. Each file's "about" says how it was produced and what was left out.
"""

import pytest

from spark_assign.testing import load_cases, run_case

from ...conftest import DATA

SMALL = load_cases(DATA / "kafka_oracle_cases.json")
WIDE = load_cases(DATA / "kafka_oracle_wide_cases.json")
CASES = SMALL + WIDE


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_kafka(case):
    failures = run_case(case)
    assert not failures, "\n".join(map(str, failures))


@pytest.mark.parametrize("cases", [SMALL, WIDE], ids=["small", "wide"])
def test_every_strategy_is_covered(cases):
    assert {c["strategy"] for c in cases} == {
        "range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"}


def _names(case):
    members = case["rounds"][0]["members"]
    return list(members) + list(case["topics"]) + [t for m in members.values() for t in m["topics"]]


def test_the_wide_cases_hold_what_found_the_defects():
    """What issue 16's defects needed to show: ASCII and non-ASCII names in one group, topics
    sharing a HashMap bucket listed in order (range), 11+ subscribed topics missing from the
    metadata, a member holding partitions past 16, homogeneous uniform groups with topic ids
    and claims, stale claims on topics their claimant dropped."""
    def mixed(case):
        names = _names(case)
        return any(n.isascii() for n in names) and any(not n.isascii() for n in names)

    def missing(case):
        subscribed = {t for m in case["rounds"][0]["members"].values() for t in m["topics"]}
        return len(subscribed - set(case["topics"]))

    def owned(case):
        return [(m, t, p) for m, v in case["rounds"][0]["members"].items() for t, p in v["owned"]]

    def homogeneous(case):
        return len({tuple(m["topics"]) for m in case["rounds"][0]["members"].values()}) == 1

    def dropped(case):
        members = case["rounds"][0]["members"]
        return any(t in case["topics"] and t not in members[m]["topics"] for m, t, _ in owned(case))

    assert sum(map(mixed, WIDE)) > len(WIDE) / 2
    assert sum(1 for c in WIDE if c["strategy"] == "range" and len(c["topics"]) >= 10 and c["rounds"][0]["ordered"]) >= 15
    assert sum(1 for c in WIDE if missing(c) >= 11) >= 20
    assert sum(1 for c in WIDE if any(p >= 16 for _, _, p in owned(c))) >= 100
    assert sum(1 for c in WIDE if c["strategy"] == "uniform" and homogeneous(c) and owned(c)) >= 30
    assert sum(1 for c in WIDE if c["strategy"] in ("sticky", "cooperative-sticky") and dropped(c)) >= 50

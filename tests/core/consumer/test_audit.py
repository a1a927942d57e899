"""The audit of one classic group: each kind of difference is named, with the partition that shows
it, and an assignment the strategy itself made has none, whatever the strategy."""

from __future__ import annotations

import pytest

from spark_assign.core import Member, assign
from spark_assign.core.consumer.audit import EXACT_STRATEGIES, audit_group

TOPICS = {"orders": 4, "payments": 2}


def _subs(claims=None, generation=None, topics=("orders", "payments"), members=("c1", "c2", "c3")):
    claims = claims or {}
    return [(m, t, None, None, sorted(p for tt, p in claims.get(m, []) if tt == t), generation)
            for m in members for t in topics]


def _given(result):
    return [(m, t, p) for m, tps in result.assignment.items() for t, p in tps]


def _kinds(found):
    return {f.finding: f for f in found}


@pytest.mark.parametrize("strategy", EXACT_STRATEGIES)
def test_what_the_strategy_gives_has_no_finding(strategy):
    first = assign([Member(m, topics=list(TOPICS)) for m in ("c1", "c2", "c3")], TOPICS, strategy)
    claims = {m: list(tps) for m, tps in first.assignment.items()}
    members = [Member(m, topics=list(TOPICS), owned=claims.get(m, []), generation=1) for m in ("c1", "c2")]
    second = assign(members, TOPICS, strategy)            # c3 left: a cooperative round withholds what moves
    assert audit_group(strategy, _subs(claims, 1, members=("c1", "c2")), _given(second), TOPICS) == []


def test_each_difference_is_named_with_its_partition():
    result = assign([Member(m, topics=list(TOPICS)) for m in ("c1", "c2", "c3")], TOPICS, "range")
    given = _given(result)
    given.remove(("c1", "orders", 0))
    given += [("c2", "orders", 1), ("c3", "audit-log", 0)]
    found = _kinds(audit_group("range", _subs(), given, TOPICS))
    assert found["unowned"].example == "orders-0 -> nobody (strategy: c1)"
    assert found["owned twice"].example == "orders-1 -> c1, c2 (strategy: c1)"
    assert found["unsubscribed"].example == "audit-log-0 -> c3"
    assert found["differs"].partitions == 3
    assert "not sticky" not in found                      # range binds no claims


def test_a_sticky_group_that_moves_a_claimed_partition_is_not_sticky():
    claims = {"c1": [("orders", 0), ("orders", 1)], "c2": [("orders", 2), ("payments", 0)],
              "c3": [("orders", 3), ("payments", 1)]}
    members = [Member(m, topics=list(TOPICS), owned=c, generation=4) for m, c in claims.items()]
    given = _given(assign(members, TOPICS, "sticky"))
    given = [("c2" if (t, p) == ("orders", 0) else m, t, p) for m, t, p in given]
    found = _kinds(audit_group("sticky", _subs(claims, 4), given, TOPICS))
    assert found["not sticky"].example == "orders-0 -> c2 (claimed by c1)"
    assert found["unbalanced"].example == "member counts spread 2, strategy: 0"


def test_a_custom_strategy_is_held_to_the_properties_only():
    given = [("c1", "orders", p) for p in range(4)] + [("c2", "payments", 0), ("c3", "payments", 1)]
    found = audit_group("my-assignor", _subs(), given, TOPICS)
    assert [(f.finding, f.partitions) for f in found] == [("unbalanced", 3)]
    assert audit_group("my-assignor", _subs(), given[1:], TOPICS)[0].example == "orders-0 -> nobody"

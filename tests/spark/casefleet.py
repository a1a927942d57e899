"""Run conformance cases through the DataFrame method: every case a group of one fleet.

Round r of all cases runs as one Spark job; members that carry an ``owned``
entry send it as ``owned_partitions`` (a Kafka leader's view), the others own
what the previous round's result gave them, through ``previous``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from spark_assign.testing import CaseFailure, _compare_round

SUBS = ("group_id string, member_id string, topic string, group_instance_id string, rack string, "
        "owned_partitions array<int>, generation int")
TOPICS = "group_id string, topic string, num_partitions int, replica_racks array<array<string>>"


def supported(case: Mapping[str, Any]) -> bool:
    """Cases the DataFrame method can express: no engine options (Kafka test-harness
    knobs), and no claims on topics a member does not subscribe to (a subscription
    row carries the claims of its own topic only)."""
    if case.get("options"):
        return False
    return not any(t not in m.get("topics", []) for r in case["rounds"]
                   for m in r["members"].values() for t, _ in (m.get("owned") or []))


def run_fleet(spark, cases: List[Mapping[str, Any]], strategy: str) -> List[CaseFailure]:
    cases = [c for c in cases if c["strategy"] == strategy and supported(c)]
    failures: List[CaseFailure] = []
    topics = []
    for c in cases:
        racks = c.get("partition_racks") or {}
        for t, n in c["topics"].items():
            topics.append((c["name"], t, n, racks.get(t)))
    topics_df = spark.createDataFrame(topics, TOPICS)
    previous = None
    for r in range(max(len(c["rounds"]) for c in cases)):
        rows = []
        active = [c for c in cases if r < len(c["rounds"])]
        for c in active:
            for member, m in c["rounds"][r]["members"].items():
                subs = m.get("topics") or [None]
                owned = m.get("owned")
                for t in subs:
                    mine = None
                    if owned is not None:
                        mine = [p for tt, p in owned if tt == t] if t is not None else None
                    rows.append((c["name"], member, t, m.get("instance_id"), m.get("rack"), mine,
                                 m.get("generation") if owned is not None else None))
        subs_df = spark.createDataFrame(rows, SUBS)
        result = subs_df.assign_partitions(strategy, topics=topics_df, previous=previous)
        collected = result.collect()
        previous = spark.createDataFrame(collected, result.schema)
        by_case: Dict[str, Dict[str, list]] = {}
        for row in collected:
            if row.member_id is not None:
                by_case.setdefault(row.group_id, {}).setdefault(row.member_id, []).append(
                    (row.topic, row.partition))
        for c in active:
            got = {m: sorted(by_case.get(c["name"], {}).get(m, [])) for m in c["rounds"][r]["members"]}
            failures += [f for f in _compare_round(c, r, c["rounds"][r], got, {}, None)
                         if f.problem != "revoked differs"]
    return failures

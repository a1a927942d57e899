"""Reference cases through the SQL table functions, all cases of a strategy as one fleet.

Round r of every case is one SQL query. Members own what the previous round
gave them, sent as ``owned_partitions`` with generation r (Kafka's leader
view, exactly as ``spark_assign.testing.run_case`` feeds the engine), unless
the case states their ``owned`` partitions.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

import pytest

import spark_assign
from spark_assign.testing import CaseFailure, _compare_round, load_cases

from ..conftest import DATA
from .casefleet import supported

pytestmark = pytest.mark.spark

PUBLIC = load_cases(DATA / "public_cases.json")
KAFKA = load_cases(DATA / "kafka_client_cases.json") + load_cases(DATA / "kafka_server_cases.json")
INPUT = ("group_id string, member_id string, topic string, num_partitions int, group_instance_id string, "
         "rack string, owned_partitions array<int>, generation int, replica_racks array<array<string>>")


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)


def round_rows(case: Mapping[str, Any], r: int, previous: Dict[str, List]) -> List[tuple]:
    """The table-argument rows of round ``r`` of ``case``."""
    racks = case.get("partition_racks") or {}
    rows = []
    for member, m in case["rounds"][r]["members"].items():
        if "owned" in m:
            owned, generation = [tuple(x) for x in m["owned"]], m.get("generation")
        elif r > 0:
            owned, generation = previous.get(member, []), r
        else:
            owned, generation = None, m.get("generation")
        for t in m.get("topics") or [None]:
            mine = None if owned is None or t is None else [p for tt, p in owned if tt == t]
            rows.append((case["name"], member, t, case["topics"].get(t), m.get("instance_id"), m.get("rack"),
                         mine, generation if owned is not None else None, racks.get(t)))
    return rows


def run_sql_fleet(spark, cases: List[Mapping[str, Any]], strategy: str, function: str) -> List[CaseFailure]:
    cases = [c for c in cases if c["strategy"] == strategy and supported(c)]
    failures: List[CaseFailure] = []
    previous: Dict[str, Dict[str, List]] = {}
    for r in range(max(len(c["rounds"]) for c in cases)):
        active = [c for c in cases if r < len(c["rounds"])]
        rows = [row for c in active for row in round_rows(c, r, previous.get(c["name"], {}))]
        spark.createDataFrame(rows, INPUT).createOrReplaceTempView("case_input")
        if function == "assign_partitions":
            query = f"SELECT * FROM assign_partitions(TABLE(case_input) PARTITION BY group_id, strategy => '{strategy}')"
        else:
            query = f"SELECT * FROM {function}(TABLE(case_input))"
        by_case: Dict[str, Dict[str, list]] = {}
        for row in spark.sql(query).collect():
            if row.member_id is not None:
                by_case.setdefault(row.group_id, {}).setdefault(row.member_id, []).append((row.topic, row.partition))
        for c in active:
            got = {m: sorted(by_case.get(c["name"], {}).get(m, [])) for m in c["rounds"][r]["members"]}
            previous[c["name"]] = got
            failures += [f for f in _compare_round(c, r, c["rounds"][r], got, {}, None)
                         if f.problem != "revoked differs"]
    return failures


@pytest.mark.parametrize("strategy", sorted({c["strategy"] for c in PUBLIC}))
def test_public_cases_through_sql(spark, strategy):
    failures = run_sql_fleet(spark, PUBLIC, strategy, "assign_partitions")
    # sticky-member-leaves round 2 expects pre-2.8 Kafka (see tests/core/consumer/test_public_cases.py).
    known = [f for f in failures if f.case == "sticky-member-leaves" and f.round == 1]
    assert (len(known) == 1) == (strategy == "sticky")
    rest = [f for f in failures if f not in known]
    assert not rest, "\n".join(map(str, rest))


@pytest.mark.parametrize("strategy", ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform",
                                      "server-range"])
def test_kafka_cases_through_the_per_strategy_function(spark, strategy):
    function = "assign_" + strategy.replace("-", "_")
    failures = run_sql_fleet(spark, KAFKA, strategy, function)
    assert not failures, "\n".join(map(str, failures[:5]))

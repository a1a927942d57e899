"""The cluster test's work, the same on the cluster's driver and on ``local[2]``: generations
of a churning fleet, ``assign_partitions`` on a fleet, and the SQL bridge script; each returns
plain JSON-able values so the two runs compare exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from spark_assign.testing import FLEET_SCHEMA, churn_rows, fleet_rows

ROOT = Path(__file__).resolve().parents[2]
TOPICS = {"t0": 6, "t1": 4, "t2": 8}
STRATEGY = "cooperative-sticky"
ROW_COLUMNS = ("group_id", "generation", "member_id", "topic", "partition", "previous_member_id", "status")


def schedule(groups: int = 24, steps: int = 3) -> List[List[tuple]]:
    """A fleet and its churned successors (a third of the groups change per step)."""
    rounds = [fleet_rows(groups, seed=17)]
    for step in range(1, steps):
        rounds.append(churn_rows(rounds[-1], seed=17 + step, share=0.34))
    return rounds


def as_lists(frame) -> List[List[Any]]:
    return sorted([[r[c] for c in ROW_COLUMNS] for r in frame.select(*ROW_COLUMNS).collect()],
                  key=lambda r: (r[0], r[3], r[4], r[1]))


def generations(spark, table, rounds: List[List[tuple]]) -> Dict[str, Any]:
    """Rebalance ``table`` once per round; the versions, summaries and every generation's rows."""
    steps = []
    for rows in rounds:
        step = table.rebalance(spark.createDataFrame([tuple(r) for r in rows], FLEET_SCHEMA), TOPICS, STRATEGY)
        steps.append([step.version, step.summary["groups_recomputed"], step.summary["partitions_moved"]])
    return {"steps": steps, "rows": as_lists(table.state().rows)}


def assign_rows(spark, fleet: List[tuple]) -> List[List[Any]]:
    import spark_assign  # noqa: F401  - adds DataFrame.assign_partitions

    frame = spark.createDataFrame([tuple(r) for r in fleet], FLEET_SCHEMA)
    return as_lists(frame.assign_partitions("sticky", topics=TOPICS))


def sql_results(spark, state: str) -> List[List[Dict[str, Any]]]:
    """``sql/01`` then ``sql/06`` (the ``CALL spark_assign.rebalance`` loop) into ``state``."""
    import spark_assign
    from spark_assign.state.consumer.sql import run_script

    spark_assign.register(spark)
    run_script(spark, ROOT / "sql" / "01_example_tables.sql")
    results = run_script(spark, ROOT / "sql" / "06_delta_generations.sql", params={"state": state}, collect=True)
    return [[r.asDict(recursive=True) for r in rows] for rows in results]

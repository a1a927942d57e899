"""Incrementality at fleet scale: with 1% of 10,000 groups changed, only those are recomputed."""

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable

from .fleets import SUBS, churn, fleet_rows

pytestmark = [pytest.mark.spark, pytest.mark.slow]

GROUPS = 10_000
TOPICS = {"t0": 6, "t1": 4, "t2": 8}


def groups_of(rows):
    return {r[0] for r in rows}


def by_group(rows):
    out = {}
    for r in rows:
        out.setdefault(r[0], set()).add(r)
    return out


def test_one_percent_changed_recomputes_one_percent(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "fleet"), engine=engine)
    rows = fleet_rows(GROUPS, seed=3, members=3)
    first = table.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, "sticky")
    assert first.summary["groups_recomputed"] == GROUPS

    changed_rows = churn(rows, seed=4, share=0.01)
    before, after = by_group(rows), by_group(changed_rows)
    changed = {g for g in after if before.get(g) != after[g]}
    assert 50 <= len(changed) <= 150                                  # about 1% of the fleet

    step = table.rebalance(spark.createDataFrame(changed_rows, SUBS), TOPICS, "sticky")
    assert step.summary["groups_recomputed"] == len(changed)
    assert step.summary["groups_unchanged"] == GROUPS - len(changed)
    written = {(r.group_id, r.generation) for r in step.rows.select("group_id", "generation").distinct().collect()}
    assert written == {(g, 2) for g in changed}                       # a second generation for those only

    # The files of version 2 hold only the changed groups' rows.
    added = pa.table(DeltaTable(table.path).get_add_actions(flatten=True)).to_pandas()
    fresh = added[added["partition.commit_version"] == 2]
    assert int(fresh["num_records"].sum()) == step.rows.count()

    # And a re-run is a no-op.
    again = table.rebalance(spark.createDataFrame(changed_rows, SUBS), TOPICS, "sticky")
    assert again.version is None and again.summary["groups_recomputed"] == 0

"""``rebalance(dry_run=True)``: the plan, rows and summary a commit would give, and nothing written.

A dry run stops after the compute stage, so the engine it runs on does not matter
(the embedded one here); the replica table shares the loop (one check of it).
"""

import pytest

from spark_assign import AssignmentTable, ReplicaTable
from spark_assign.errors import InvalidInputError

from .fleets import SUBS, churn, fleet_rows, table_files

pytestmark = pytest.mark.spark

TOPICS = {"t0": 6, "t1": 4, "t2": 8}
COLUMNS = ["group_id", "generation", "member_id", "topic", "partition", "previous_member_id", "status"]



def rows_of(step):
    return sorted((tuple("" if v is None else v for v in r) for r in step.rows.select(*COLUMNS).collect()))


def test_a_dry_run_on_a_new_table_creates_nothing(spark, tmp_path):
    location = tmp_path / "state"
    subs = spark.createDataFrame(fleet_rows(5, seed=1, members=3), SUBS)
    preview = AssignmentTable(spark, str(location), engine="embedded").rebalance(
        subs, TOPICS, "cooperative-sticky", dry_run=True)
    assert preview.dry_run and preview.version is None
    assert preview.summary["groups_recomputed"] == 5 and preview.summary["new"] == preview.rows.count() > 0
    assert not location.exists()


def test_a_dry_run_previews_exactly_the_next_commit_and_leaves_the_table_alone(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    rows = fleet_rows(40, seed=7, members=3)
    table.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, "cooperative-sticky")
    before = table_files(tmp_path / "state")
    changed = spark.createDataFrame(churn(rows, seed=8, share=0.2), SUBS)

    preview = table.rebalance(changed, TOPICS, "cooperative-sticky", dry_run=True)
    assert table_files(tmp_path / "state") == before             # no commit, no data files, no heads
    real = table.rebalance(changed, TOPICS, "cooperative-sticky")
    assert real.version == 2 and not real.dry_run
    assert rows_of(preview) == rows_of(real)
    assert preview.summary == real.summary
    assert preview.summary["partitions_moved"] + preview.summary["revoked"] > 0     # the churn moved something


def test_a_dry_run_with_nothing_changed_says_so(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "state"), engine="embedded")
    subs = spark.createDataFrame(fleet_rows(3, seed=2, members=2), SUBS)
    table.rebalance(subs, TOPICS, "sticky")
    again = table.rebalance(subs, TOPICS, "sticky", dry_run=True)
    assert again.dry_run and again.version is None and again.summary["groups_recomputed"] == 0


def test_dry_run_must_be_a_bool(spark, tmp_path):
    subs = spark.createDataFrame(fleet_rows(1, seed=2, members=2), SUBS)
    with pytest.raises(InvalidInputError, match="dry_run must be True or False, got 'yes'"):
        AssignmentTable(spark, str(tmp_path / "s"), engine="embedded").rebalance(subs, TOPICS, "sticky", dry_run="yes")


def test_a_replica_dry_run_writes_nothing(spark, tmp_path):
    topics = spark.createDataFrame([("orders", 6, 2)], "topic string, num_partitions int, replication_factor int")
    brokers = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "broker_id int, rack string")
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    preview = table.rebalance(topics, brokers, dry_run=True)
    assert preview.dry_run and preview.version is None and preview.rows.count() == 12
    assert not (tmp_path / "replicas").exists()
    assert table.rebalance(topics, brokers).summary == preview.summary

"""Retention: prune keeps each group's last generations, vacuum frees files; rebalancing goes on."""

import json

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError
from spark_assign.state.layout import local_path

from .fleets import SUBS

pytestmark = pytest.mark.spark

TOPICS = {"orders": 4}


@pytest.mark.parametrize("engine", ["delta-spark"])
def test_a_prune_and_a_vacuum_leave_the_users_session_active(spark, tmp_path, engine):
    """delta-spark reads a commit's userMetadata from the JVM thread's active session, and its
    MERGE and VACUUM leave the session they ran in active: the child session that carries the
    prune's metadata must not stay active, or Delta commits that take the active session would
    carry spark-assign's metadata."""
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    members = [("busy", "a", "orders", None)]
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    table.rebalance(spark.createDataFrame(members + [("busy", "b", "orders", None)], SUBS), TOPICS, "sticky")
    sessions = spark.sparkContext._jvm.org.apache.spark.sql.SparkSession
    assert table.prune(keep_generations=1) is not None
    assert sessions.getActiveSession().get().equals(spark._jsparkSession)
    # ... on PySpark's side too: the prune's createDataFrame made the child PySpark's active session,
    # which getActiveSession() (the CLI's way to find a running session) would then hand out, with
    # the prune's metadata in its settings: a full run once saw a table's version 0 carry it.
    assert SparkSession.getActiveSession() is spark
    table.vacuum(retention_hours=168)
    assert sessions.getActiveSession().get().equals(spark._jsparkSession)
    assert sessions.getActiveSession().get().conf().get("spark.databricks.delta.commitInfo.userMetadata", "") == ""


def test_prune_keeps_the_last_generations_and_the_loop_continues(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    members = [("busy", "a", "orders", None), ("quiet", "q", "orders", None)]
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    for m in ("b", "c", "d"):                              # "busy" reaches generation 4, "quiet" stays at 1
        members.append(("busy", m, "orders", None))
        table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    latest = {(r.group_id, r.partition): r.member_id for r in table.latest().collect()}
    version = DeltaTable(table.path).version()

    pruned = table.prune(keep_generations=2)
    assert pruned == version + 1
    assert sorted({r.generation for r in table.history("busy").collect()}) == [3, 4]
    assert sorted({r.generation for r in table.history("quiet").collect()}) == [1]
    assert {(r.group_id, r.partition): r.member_id for r in table.latest().collect()} == latest
    assert table.at(version=version - 1).where("group_id = 'busy'").first().generation == 3
    assert {r.generation for r in table.at(version=1).collect()} == {1}     # time travel before the prune
    info = table.versions()[0]["spark_assign"]
    assert info["operation"] == "prune" and info["keep_generations"] == 2

    # The prune kept the heads: an unchanged fleet is still a no-op, a change recomputes one group.
    assert table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky").version is None
    step = table.rebalance(spark.createDataFrame(members[:-1], SUBS), TOPICS, "sticky")
    assert step.summary["groups_recomputed"] == 1
    assert {(r.group_id, r.generation) for r in step.rows.collect()} == {("busy", 5)}

    assert table.prune(keep_generations=10) is None                        # nothing that old
    assert table.vacuum() == 0                                             # pruned files are recent: kept
    assert sorted({r.generation for r in table.history("busy").collect()}) == [3, 4, 5]


def data_files(root) -> set:
    """The data files on disk (the ``commit_version=*`` partitions), as absolute paths."""
    return {str(p.resolve()) for p in root.glob("commit_version=*/*.parquet")}


def test_vacuum_deletes_the_files_no_version_needs_and_counts_them(spark, tmp_path, engine):
    """With the table's retention set to zero (a table property both engines honour), a vacuum
    deletes exactly the files the latest version does not reference, and says how many."""
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    members = [("g", "a", "orders", None), ("h", "x", "orders", None)]
    for m in ("a", "b", "c"):
        members.append(("g", m + "2", "orders", None))
        table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    table.prune(keep_generations=1)
    DeltaTable(table.path).alter.set_table_properties({"delta.deletedFileRetentionDuration": "interval 0 hours"})
    root = tmp_path / "t"
    live = {local_path(uri) for uri in DeltaTable(table.path).file_uris()}
    before = data_files(root)
    assert live < before                                  # the prune left files behind

    deleted = table.vacuum(retention_hours=0)
    assert data_files(root) == live
    assert deleted == len(before - live)
    assert table.vacuum(retention_hours=0) == 0
    assert {r.generation for r in table.history("g").collect()} == {3}
    assert table.rebalance(spark.createDataFrame(members[:-1], SUBS), TOPICS, "sticky").version is not None


def test_a_prune_landing_after_a_rebalance_keeps_that_rebalances_heads(spark, tmp_path, engine, monkeypatch):
    """delta-spark lets a prune's MERGE commit after a concurrent rebalance (an append does not
    conflict with it), so a prune must not name the heads it started from. Emulated here: the
    prune plans on the version before the rebalance and commits after it."""
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    members = [("g", "a", "orders", None), ("h", "x", "orders", None)]
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    members.append(("g", "b", "orders", None))
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")       # g at generation 2
    stale = table._backend.snapshot()
    members.append(("g", "c", "orders", None))
    won = table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")  # g at 3: the race's winner
    late = table._backend.delete_before
    monkeypatch.setattr(table, "_snapshot", lambda version=None: stale)
    monkeypatch.setattr(table._backend, "delete_before",
                        lambda snap, cutoffs, metadata: late(table._backend.snapshot(), cutoffs, metadata))
    assert table.prune(keep_generations=1) == won.version + 1
    monkeypatch.undo()

    owners = {(r.group_id, r.partition): (r.generation, r.member_id) for r in table.latest().collect()}
    assert owners == {(r.group_id, r.partition): (r.generation, r.member_id)
                      for r in table.at(version=won.version).collect()}
    assert {g for (g, _), (gen, _) in owners.items() if gen == 3} == {"g"}
    assert table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky").version is None


def test_retention_arguments_are_checked(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine="embedded")
    table.rebalance(spark.createDataFrame([("g", "a", "orders", None)], SUBS), TOPICS, "range")
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InvalidInputError, match="keep_generations must be a positive integer"):
            table.prune(keep_generations=bad)
    with pytest.raises(InvalidInputError, match="retention_hours"):
        table.vacuum(retention_hours=-5)


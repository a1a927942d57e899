"""A rebalance commits exactly the version after the one it read, or nothing, whatever lands first.

The table's rows carry ``commit_version``, the Delta version of their commit,
and the heads name it; a commit may therefore never slide onto a later
version. On delta-spark the driver runs Delta's own transaction for that
(``spark_assign.state.backends.deltajvm``); its public append, used where the
transaction cannot be driven (Spark Connect, catalog tables), can only
report the later version it landed on.
"""

import os
import threading

import pyarrow as pa
import pytest
from deltalake import DeltaTable

import spark_assign.state.backends.deltajvm as deltajvm
import spark_assign.state.generation_table as generations_module
import spark_assign.state.replicas.table as replica_module
import spark_assign.state.consumer.table as table_module
from spark_assign import AssignmentTable, ReplicaTable
from spark_assign.errors import CommitConflict
from spark_assign.state.heads import heads_name_at
from spark_assign.state.layout import APP_ID, heads_path

from ..delta import MISSING, jars
from .fleets import SUBS

pytestmark = pytest.mark.spark

TOPICS = {"orders": 4}
COMMITS = ["transaction", "public append"]


def needs_delta_spark():
    if not jars():
        pytest.skip(MISSING)


def two_generations(spark, path, engine):
    """A table at version 2 (g at generation 2), and the members of g's third generation."""
    table = AssignmentTable(spark, path, engine=engine)
    members = [("g", "a", "orders", None), ("h", "x", "orders", None)]
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    members.append(("g", "b", "orders", None))
    table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    return table, members + [("g", "c", "orders", None)]


def public_append_only(table):
    """Make a delta-spark table commit with the public append (as under Spark Connect)."""
    table._backend.committer = None
    table._backend.folder = None


@pytest.mark.parametrize("in_driver", [True, False], ids=["driver", "spark"])
def test_a_commit_landing_first_makes_the_rebalance_retry_on_the_next_version(spark, tmp_path, engine,
                                                                            monkeypatch, in_driver):
    """A prune (a commit with no application transaction) lands while a rebalance is about to
    commit: the rebalance's commit must not slide onto the next version with rows labelled for
    the one it read. It loses the race, plans again on the prune's version, and commits after it."""
    monkeypatch.setattr(table_module, "LOCAL_ROWS", table_module.LOCAL_ROWS if in_driver else 0)
    table, members = two_generations(spark, str(tmp_path / "t"), engine)
    landed = []

    def prune_first(point):
        if point == "before-commit" and not landed:
            landed.append(AssignmentTable(spark, table.location, engine=engine).prune(keep_generations=1))

    monkeypatch.setattr(generations_module, "fault", prune_first)
    step = table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    monkeypatch.undo()
    assert landed == [3]
    assert step.version == 4 and step.summary["attempts"] == 2
    assert DeltaTable(table.path).version() == 4
    third = table.history("g").where("generation = 3").collect()
    assert third and {r.commit_version for r in third} == {4}          # labelled with its Delta version
    rows = table.state().rows.collect()
    assert len({(r.group_id, r.generation, r.partition) for r in rows}) == len(rows)     # no row twice
    assert {(r.group_id, r.generation) for r in rows} == {("g", 2), ("g", 3), ("h", 1)}   # pruned to the last
    assert table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky").version is None


REPLICA_TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
REPLICA_BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"


# The loop and the backends are shared by every kind, and the assignment table runs every (engine,
# path) pair above: the replica kind runs once, on the embedded engine and Spark's compute path
# (its rows and heads are the kind's own; the engines' commits are the assignment table's).
@pytest.mark.parametrize("engine, in_driver", [("embedded", False)], ids=["embedded-spark"], indirect=["engine"])
def test_a_replica_table_commits_exactly_the_next_version_too(spark, tmp_path, engine, monkeypatch, in_driver):
    """The same race for a ReplicaTable: its rebalance loses to the prune, plans again and commits
    the version after it, rows labelled so."""
    monkeypatch.setattr(replica_module, "LOCAL_ROWS", replica_module.LOCAL_ROWS if in_driver else 0)
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine=engine)
    topics = spark.createDataFrame([("eu-ö", "orders-€", 6, 2), ("us", "audit", 4, 2)], REPLICA_TOPICS)
    brokers = [("eu-ö", b, None, False) for b in (1, 2, 3)] + [("us", b, None, False) for b in (7, 8)]
    assert table.rebalance(topics, spark.createDataFrame(brokers, REPLICA_BROKERS)).version == 1
    brokers.append(("eu-ö", 4, None, False))
    assert table.rebalance(topics, spark.createDataFrame(brokers, REPLICA_BROKERS)).version == 2
    brokers.append(("eu-ö", 5, None, False))
    landed = []

    def prune_first(point):
        if point == "before-commit" and not landed:
            landed.append(ReplicaTable(spark, table.location, engine=engine).prune(keep_generations=1))

    monkeypatch.setattr(generations_module, "fault", prune_first)
    step = table.rebalance(topics, spark.createDataFrame(brokers, REPLICA_BROKERS))
    monkeypatch.undo()
    assert landed == [3]
    assert step.version == 4 and step.summary["attempts"] == 2
    assert DeltaTable(table.path).version() == 4
    third = table.state().rows.where("cluster_id = 'eu-ö' AND generation = 3").collect()
    assert third and {r.commit_version for r in third} == {4}
    assert {(r.cluster_id, r.generation) for r in table.state().rows.collect()} == {("eu-ö", 2), ("eu-ö", 3), ("us", 1)}
    assert table.rebalance(topics, spark.createDataFrame(brokers, REPLICA_BROKERS)).version is None


def test_the_public_append_reports_the_later_version_it_lands_on(spark, tmp_path, monkeypatch):
    """Without Delta's transaction (Spark Connect, catalog tables) an append that a prune
    overtook lands on the next version: it is kept and reported as committed, with its heads,
    not mistaken for a lost race (its rows keep the label of the version it read)."""
    needs_delta_spark()
    table, members = two_generations(spark, str(tmp_path / "t"), "delta-spark")
    public_append_only(table)
    landed = []

    def prune_first(point):
        if point == "before-commit" and not landed:
            landed.append(AssignmentTable(spark, table.location, engine="delta-spark").prune(keep_generations=1))

    monkeypatch.setattr(generations_module, "fault", prune_first)
    step = table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    monkeypatch.undo()
    assert landed == [3] and step.version == 4 and step.summary["attempts"] == 1
    assert {r.commit_version for r in table.history("g").where("generation = 3").collect()} == {3}
    snap = table._backend.snapshot()
    name = heads_name_at(table._backend, snap)
    assert name is not None and name.startswith("3-")                 # its heads, kept and named
    assert os.path.isdir(heads_path(table.path, name))
    assert table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky").version is None


def staged_pair(table):
    """A snapshot and two attempts at its next version, staged from the same rows."""
    backend = table._backend
    snap = backend.snapshot()
    rows = table.latest().toArrow()
    version = snap.version + 1
    rows = rows.set_column(rows.schema.get_field_index("commit_version"), "commit_version",
                           pa.array([version] * rows.num_rows, pa.int64()))
    return backend, snap, backend.stage_arrow(rows, version), backend.stage_arrow(rows, version)


class CommitsFirst(list):
    """Staged files that let another writer commit the same version just before they are committed
    (when Delta's transaction reads them, after it checked the table's version)."""

    def __init__(self, files, other):
        super().__init__(files)
        self.other = other

    def __iter__(self):
        if self.other is not None:
            other, self.other = self.other, None
            other()
        return super().__iter__()


def test_a_version_taken_between_the_check_and_the_commit_is_a_conflict(spark, tmp_path):
    """Delta's transaction would move a blind append onto the next version; with one attempt
    allowed, a writer that finds its version taken at the last moment loses, and nothing else lands."""
    needs_delta_spark()
    table, _ = two_generations(spark, str(tmp_path / "t"), "delta-spark")
    backend, snap, mine, theirs = staged_pair(table)
    assert backend.committer is not None and isinstance(mine.files, list)
    won = []
    mine.files = CommitsFirst(mine.files, lambda: won.append(backend.commit(snap, theirs, APP_ID, {"who": 1})))
    with pytest.raises(CommitConflict):
        backend.commit(snap, mine, APP_ID, {"who": 2})
    assert won == [snap.version + 1] and DeltaTable(table.path).version() == snap.version + 1


@pytest.mark.slow
def test_one_of_two_racing_delta_spark_commits_lands(spark, tmp_path):
    """Two threads of one driver commit the same version at the same moment, round after round:
    exactly one lands each time, and the table gains one version per round."""
    needs_delta_spark()
    table, _ = two_generations(spark, str(tmp_path / "t"), "delta-spark")
    start = DeltaTable(table.path).version()
    rounds = 6
    for r in range(rounds):
        backend, snap, a, b = staged_pair(table)
        barrier, outcomes = threading.Barrier(2), []

        def commit(staged, who):
            barrier.wait()
            try:
                outcomes.append(backend.commit(snap, staged, APP_ID, {"round": r, "who": who}))
            except CommitConflict:
                outcomes.append(None)

        threads = [threading.Thread(target=commit, args=(s, w)) for w, s in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert sorted(outcomes, key=str) == [snap.version + 1, None], (r, outcomes)
    assert DeltaTable(table.path).version() == start + rounds


def test_without_delta_internals_the_public_append_commits(spark, tmp_path, monkeypatch):
    """A delta-spark that lacks a method the driver's commit calls is detected before any call:
    the public append commits instead, and the loop goes on."""
    needs_delta_spark()
    monkeypatch.setattr(deltajvm, "NEEDED", deltajvm.NEEDED + (("org.apache.spark.sql.delta.DeltaLog", "noSuch", 0),))
    table, members = two_generations(spark, str(tmp_path / "t"), "delta-spark")
    assert table._backend.committer is None
    step = table.rebalance(spark.createDataFrame(members, SUBS), TOPICS, "sticky")
    assert step.version == 3 and {r.commit_version for r in table.history("g").where("generation = 3").collect()} == {3}

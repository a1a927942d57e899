"""The rebalance plan: both ways of selecting groups agree, a lost race reuses what it can, few Spark jobs."""

import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError
from spark_assign.state import plan as plan_module

from .fleets import SUBS, churn, fleet_rows
from .test_stream import skip_without_delta_spark

pytestmark = pytest.mark.spark

TOPICS = {"t0": 6, "t1": 4, "t2": 8}


def state(table):
    return {(r.group_id, r.topic, r.partition): (r.generation, r.member_id, r.status, r.input_fingerprint)
            for r in table.latest().collect()}


def test_literal_and_broadcast_selection_give_the_same_generation(spark, tmp_path, monkeypatch):
    """Spark's compute path (forced: the fleet is small), selecting the changed groups with
    constants in the plan, with broadcast joins, or computing them in the driver."""
    import spark_assign.state.consumer.table as table_module

    rows1 = fleet_rows(60, seed=5)
    rows2 = churn(rows1, seed=6, share=0.3)
    results = []
    for name, limit, local in (("literal", 1000, 0), ("broadcast", 0, 0), ("driver", 1000, 10**6)):
        monkeypatch.setattr(plan_module, "LITERAL_GROUPS", limit)
        monkeypatch.setattr(plan_module, "LOOKUP_GROUPS", limit)
        monkeypatch.setattr(table_module, "LOCAL_ROWS", local)
        table = AssignmentTable(spark, str(tmp_path / name), engine="embedded")
        table.rebalance(spark.createDataFrame(rows1, SUBS), TOPICS, "cooperative-sticky")
        step = table.rebalance(spark.createDataFrame(rows2, SUBS), TOPICS, "cooperative-sticky")
        follow = table.rebalance(spark.createDataFrame(rows2, SUBS), TOPICS, "cooperative-sticky")
        assert 0 < step.summary["groups_recomputed"] < 60
        results.append((step.summary, follow.summary, state(table)))
    assert results[0] == results[1] == results[2]


#: Each engine and each compute path once (the race is the shared loop's; the four crossings cost 36 s).
RACES = [("embedded", True), ("delta-spark", False)]


@pytest.mark.parametrize("engine, in_driver", RACES, ids=["embedded-driver", "delta-spark-spark"])
def test_a_lost_race_recomputes_only_the_groups_the_winner_touched(spark, tmp_path, engine, monkeypatch, in_driver):
    """On Spark's path the retry reuses the rows of b, whose head did not move; in the driver
    both are recomputed (cheap). Either way a follows the winner's generation and b is written once."""
    import spark_assign.state.consumer.table as table_module

    if engine == "delta-spark":
        skip_without_delta_spark()

    monkeypatch.setattr(table_module, "LOCAL_ROWS", table_module.LOCAL_ROWS if in_driver else 0)
    path = str(tmp_path / "t")
    base = [("a", "a1", "t0", None), ("b", "b1", "t0", None), ("c", "c1", "t1", None)]
    table = AssignmentTable(spark, path, engine=engine)
    table.rebalance(spark.createDataFrame(base, SUBS), TOPICS, "sticky")
    ours = base + [("a", "a2", "t0", None), ("b", "b2", "t0", None)]        # we change a and b
    theirs = base + [("a", "a3", "t0", None)]                                # the winner changes a only

    backend_type = type(table._backend)
    real_commit = backend_type.commit
    calls = []

    def racing_commit(self, snap, staged, app_id, metadata, transactions=()):
        version = staged.version
        if self is table._backend:
            calls.append(version)
            if len(calls) == 1:                                             # another writer commits first
                other = AssignmentTable(spark, path, engine=engine)
                assert other.rebalance(spark.createDataFrame(theirs, SUBS), TOPICS, "sticky").version == version
        return real_commit(self, snap, staged, app_id, metadata, transactions)

    monkeypatch.setattr(backend_type, "commit", racing_commit)
    step = table.rebalance(spark.createDataFrame(ours, SUBS), TOPICS, "sticky")
    assert calls == [2, 3] and step.version == 3 and step.summary["attempts"] == 2
    written = {(r.group_id, r.generation) for r in step.rows.collect()}
    assert written == {("a", 3), ("b", 2)}                 # a after the winner's generation 2, b once
    assert DeltaTable(path).version() == 3
    latest = state(table)
    assert {m for (g, _, _), (_, m, _, _) in latest.items() if g == "a"} == {"a1", "a2"}
    assert {m for (g, _, _), (_, m, _, _) in latest.items() if g == "b"} == {"b1", "b2"}
    assert table.rebalance(spark.createDataFrame(ours, SUBS), TOPICS, "sticky").version is None


def test_a_null_group_id_is_refused_before_anything_is_written(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine="embedded")
    table.rebalance(spark.createDataFrame([("g", "a", "t0", None)], SUBS), TOPICS, "range")
    bad = spark.createDataFrame([("g", "a", "t0", None), (None, "b", "t0", None)], SUBS)
    with pytest.raises(InvalidInputError, match="null group_id"):
        table.rebalance(bad, TOPICS, "range")
    assert DeltaTable(table.path).version() == 1


#: Spark jobs of a warm incremental rebalance, the same on both engines: the plan (one query, two
#: jobs) and the changed groups' subscriptions (one). The snapshot, the previous rows, the data file
#: and the commit are the driver's (delta-spark: delta-rs and pyarrow for the files, Delta's
#: transaction for the commit, see spark_assign.state.backends.deltajvm). delta-spark's public append (Spark
#: Connect, catalog tables) adds eight: the newest commit (history), the previous rows (file
#: filtering, two, and the scan), the append (a log replay for its application transaction, two,
#: and the write) and the check that the commit is ours (history).
INCREMENTAL_JOBS = {"embedded": 3, "delta-spark": 3, "delta-spark public append": 11}


@pytest.mark.parametrize("public_append", [False, True], ids=["", "public-append"])
def test_an_incremental_rebalance_runs_few_spark_jobs(spark, tmp_path, engine, public_append):
    """No count, cache or per-step collect on top of the jobs listed in INCREMENTAL_JOBS."""
    if public_append and engine != "delta-spark":
        pytest.skip("delta-spark only")
    rows1 = fleet_rows(200, seed=7)
    rows2 = churn(rows1, seed=8, share=0.05)
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    table.rebalance(spark.createDataFrame(rows1, SUBS), TOPICS, "sticky")
    if public_append:               # as under Spark Connect: no driver-side files, the public append commits
        table._backend.committer = table._backend.folder = None
    subs = spark.createDataFrame(rows2, SUBS).cache()
    subs.count()
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    step = table.rebalance(subs, TOPICS, "sticky")
    jobs = set(tracker.getJobIdsForGroup(None)) - before
    assert 0 < step.summary["groups_recomputed"] < 200
    assert len(jobs) == INCREMENTAL_JOBS[engine + (" public append" if public_append else "")], len(jobs)
    subs.unpersist()

"""AssignmentTable.rebalance with per-partition weights.

What a backend stores or refuses to write (the weights, a format 1 table's upgrade, bad weights)
runs on both backends (``engine``); what only the plan decides (which groups re-plan, how
weights are read) runs on the embedded one.

Weights change every run and are not in a group's fingerprint: under a load-aware strategy a
group whose inputs did not change is re-planned only when its load exceeds the threshold, and
committed only if that moves something. Each row keeps its weight. Tables of format 1 (no
``weight`` column) stay readable and are upgraded by their first rebalance.
"""

import random

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError
from spark_assign.state.layout import TABLE_COLUMNS, arrow_schema
from spark_assign.state.consumer.compute import job_weights
from spark_assign.state.plan import Plan
from spark_assign.state.consumer.request import make_request

pytestmark = pytest.mark.spark

SUBS = "group_id string, member_id string, topic string"
WEIGHTS = "group_id string, topic string, partition int, weight double"
TOPICS = {"orders": 8, "audit": 4}
GROUPS = ["g0", "g1", "g2", "g3"]


def fleet(spark):
    return spark.createDataFrame([(g, f"{g}-m{i}", t) for g in GROUPS for i in range(3) for t in TOPICS], SUBS)


def weights(spark, lag):
    return spark.createDataFrame([(g, t, p, float(w)) for (g, t), ws in lag.items() for p, w in enumerate(ws)],
                                 WEIGHTS)


def zipf_lag(seed):
    rng = random.Random(seed)
    return {(g, t): [round(1000 / (rng.randint(1, 40) ** 1.2), 3) for _ in range(n)]
            for g in GROUPS for t, n in TOPICS.items()}


def test_weights_are_stored_and_stable_or_noisy_weights_commit_nothing(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    lag = zipf_lag(1)
    first = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    assert first.version == 1 and first.summary["new"] == 48
    stored = {(r.group_id, r.topic, r.partition): r.weight for r in table.latest().collect()}
    assert stored == {(g, t, p): w for (g, t), ws in lag.items() for p, w in enumerate(ws)}

    again = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    assert again.version is None and again.summary["groups_recomputed"] == 0
    rng = random.Random(2)
    noisy = {k: [w * rng.uniform(0.995, 1.005) for w in ws] for k, ws in lag.items()}
    quiet = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, noisy))
    assert quiet.version is None and quiet.summary["groups_recomputed"] == 0


def test_a_hot_partition_replans_its_group_only(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine="embedded")
    lag = zipf_lag(3)
    table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    # Partition orders-5 of g2 turns hot: twice a member's mean load. Its owner now carries it
    # and its share, far above the group's lower bound: moving (swapping) lowers the heaviest load.
    total = sum(sum(ws) for (g, _), ws in lag.items() if g == "g2")
    hot = dict(lag)
    hot[("g2", "orders")] = [w if p != 5 else 2 * total / 3 for p, w in enumerate(lag[("g2", "orders")])]

    def heaviest():
        loads = {}
        for r in table.latest().where("group_id = 'g2'").collect():
            loads[r.member_id] = loads.get(r.member_id, 0.0) + hot[(r.group_id, r.topic)][r.partition]
        return max(loads.values())

    before = heaviest()
    step = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, hot))
    assert step.version == 2 and step.summary["groups_replanned_for_load"] >= 1
    assert {r.group_id for r in step.rows.collect()} == {"g2"} and step.summary["groups_recomputed"] == 1
    assert step.summary["partitions_moved"] > 0 and heaviest() < before
    # The same weights again: the search resumes where it stopped, nothing to do.
    assert table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, hot)).version is None


def test_the_criterion_skips_only_groups_the_engine_would_leave_alone(spark, tmp_path):
    """Groups not re-planned are exactly those an unconditional rebalance under the new weights
    would not move (a re-planned group that moves nothing is not committed either)."""
    table = AssignmentTable(spark, str(tmp_path / "t"), engine="embedded")
    lag = zipf_lag(5)
    table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    rng = random.Random(6)
    drift = {k: [w * rng.choice([0.5, 1.0, 1.0, 2.0, 3.0]) for w in ws] for k, ws in lag.items()}
    every = fleet(spark).assign_partitions("load-aware", topics=TOPICS, previous=table,
                                           weights=weights(spark, drift)).collect()
    would_move = {r.group_id for r in every if r.status != "kept"}
    step = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, drift))
    committed = {r.group_id for r in step.rows.collect()}
    assert committed == would_move
    s = step.summary
    if would_move:
        assert s["groups_replanned_for_load"] - s["groups_replanned_unmoved"] == len(would_move)


def test_weights_do_not_recompute_count_strategies_and_knobs_recompute_everything(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine="embedded")
    lag, other = zipf_lag(7), zipf_lag(8)
    table.rebalance(fleet(spark), TOPICS, "sticky", weights=weights(spark, lag))
    assert table.rebalance(fleet(spark), TOPICS, "sticky", weights=weights(spark, other)).version is None
    assert {r.weight for r in table.latest().where("group_id = 'g0' AND topic = 'audit'").collect()} == \
        set(lag[("g0", "audit")])                       # the weights of the generation, as stored

    table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    skew = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag), max_count_skew=2)
    assert skew.summary["groups_recomputed"] == len(GROUPS)
    assert table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag),
                           max_count_skew=2).version is None


def test_bad_weights_write_nothing(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    lag = zipf_lag(9)
    table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag))
    for key, p, value, column in ((("g1", "audit"), 2, -1.0, "weight"), (("g3", "orders"), 8, 1.0, "partition")):
        rows = [(g, t, i, float(w)) for (g, t), ws in lag.items() for i, w in enumerate(ws)] + [(*key, p, value)]
        with pytest.raises(InvalidInputError) as info:
            table.rebalance(fleet(spark), TOPICS, "load-aware", weights=spark.createDataFrame(rows, WEIGHTS))
        assert (info.value.column, info.value.group) == (column, key[0])
    twice = [(g, t, i, 1.0) for (g, t), ws in lag.items() for i, _ in enumerate(ws)] + [("g0", "orders", 0, 2.0)]
    with pytest.raises(InvalidInputError) as info:
        table.rebalance(fleet(spark), TOPICS, "load-aware", weights=spark.createDataFrame(twice, WEIGHTS))
    assert (info.value.column, info.value.rows) == ("partition", [("orders", 0)])
    per_group = spark.createDataFrame([(g, t, n) for g in GROUPS for t, n in TOPICS.items()],
                                      "group_id string, topic string, num_partitions int")
    flat = spark.createDataFrame([("orders", 8, 1.0)], "topic string, partition int, weight double")
    with pytest.raises(InvalidInputError) as info:         # weights for every group, metadata per group
        table.rebalance(fleet(spark), per_group, "load-aware", weights=flat)
    assert info.value.column == "partition" and info.value.group in GROUPS
    with pytest.raises(InvalidInputError) as info:
        table.rebalance(fleet(spark), TOPICS, "lag-based")
    assert info.value.column == "weights"
    assert [v["version"] for v in table.versions()][0] == 1              # nothing written


def test_a_dict_of_weights_gives_the_rows_of_the_same_weights_as_a_dataframe(spark, tmp_path):
    rng = random.Random(11)
    shared = {"orders": [round(rng.paretovariate(1.2) * 10, 3) for _ in range(8)], "audit": [5, 5.5]}  # 2 short
    flat = spark.createDataFrame([(t, p, float(w)) for t, ws in shared.items() for p, w in enumerate(ws)],
                                 "topic string, partition int, weight double")
    def rows(table):
        return sorted((r.generation, r.group_id, r.member_id, r.topic, r.partition, r.status, r.weight)
                      for r in table.latest().collect())

    stored = []
    for given in (shared, flat):
        table = AssignmentTable(spark, str(tmp_path / f"t{len(stored)}"), engine="embedded")
        first = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=given)
        fresh = rows(table)
        assert first.version == 1
        churn = fleet(spark).where("member_id != 'g2-m0'")
        assert table.rebalance(churn, TOPICS, "load-aware", weights=given).summary["groups_recomputed"] == 1
        stored.append((fresh, rows(table)))
    assert stored[0] == stored[1]
    request = make_request(spark, fleet(spark), TOPICS, "load-aware", None, 1, False, weights=shared)
    assert request.weights is not None                            # rows, for the load check
    assert job_weights(request, Plan(len(GROUPS), {}), [], everything=False) is shared     # travels as given
    request = make_request(spark, fleet(spark), TOPICS, "load-aware", None, 1, False, weights=flat)
    assert job_weights(request, Plan(len(GROUPS), {}), [], everything=False) is request.weights
    table = AssignmentTable(spark, str(tmp_path / "bad"), engine="embedded")
    with pytest.raises(InvalidInputError) as info:        # longer than the topic
        table.rebalance(fleet(spark), TOPICS, "load-aware", weights={"audit": [1.0] * 5})
    assert (info.value.column, info.value.rows) == ("partition", [("audit", 4)])
    assert not table.exists()                             # nothing written


def _format_1_table(path, rows: pa.Table):
    """A state table as format 1 wrote it: no weight or members column, a rebalance commit naming no heads."""
    old = arrow_schema([c for c in TABLE_COLUMNS if c[0] not in ("weight", "members")])
    DeltaTable.create(path, old, partition_by=["commit_version"], raise_if_key_not_exists=False,
                      configuration={"spark_assign.format": "1"})
    write_deltalake(path, rows.select(old.names).cast(old), partition_by=["commit_version"], mode="append")


def test_a_format_1_table_is_read_and_upgraded_by_its_first_rebalance(spark, tmp_path, engine):
    scratch = AssignmentTable(spark, str(tmp_path / "scratch"), engine="embedded")
    scratch.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, zipf_lag(11)))
    path = str(tmp_path / "old")
    _format_1_table(path, DeltaTable(scratch.path).to_pyarrow_table())
    table = AssignmentTable(spark, path, engine=engine)
    latest = table.latest().collect()
    assert len(latest) == 48 and {r.weight for r in latest} == {None}       # read as it is
    assert "weight" not in DeltaTable(path).schema().to_arrow().names
    lag = zipf_lag(12)
    step = table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag), max_attempts=1)
    versions = table.versions()
    assert [v["spark_assign"]["operation"] for v in versions[:2]] == ["rebalance", "upgrade"]
    assert step.version == versions[0]["version"] == versions[1]["version"] + 1 and step.summary["attempts"] == 1
    assert "weight" in DeltaTable(path).schema().to_arrow().names
    assert table.rebalance(fleet(spark), TOPICS, "load-aware", weights=weights(spark, lag)).version is None
    history = table.history("g0").collect()
    assert {r.weight is None for r in history if r.generation == 1} == {True}

"""ReplicaTable's staged rebalances: one safe stage per generation, resumed or recomputed.

A staged rebalance (``max_moves_per_broker=``) commits the first stage of each
changed cluster's plan; the cluster stays *pending* (``stages_left`` > 0) and
the next rebalance, with the same input, commits its next stage. What a
backend records decides that (the heads' ``pending`` comes from the rows each
engine writes), so the stage walk runs on both; the format upgrade (the
embedded engine's own ``ALTER TABLE``; delta-spark's is held by the assignment
table's upgrade test, tests/state/test_weights.py), the interrupted plan
(``current=``), the byte cap and bad input run on the embedded one.
"""

from collections import Counter, defaultdict

import pytest
from deltalake import DeltaTable, write_deltalake

from spark_assign import ReplicaTable
from spark_assign.errors import InvalidInputError, SchemaError
from spark_assign.state.layout import REPLICAS, arrow_schema

from .test_replica_table import reassigned

pytestmark = pytest.mark.spark

TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"
EU = [("eu-ö", b, f"az-{b % 3}", False) for b in range(1, 7)]
US = [("us", b, None, False) for b in (10, 11, 12)]
FLEET = [("eu-ö", "orders-€", 24, 3), ("eu-ö", "audit", 12, 2), ("us", "clicks", 9, 2)]
#: Broker 7 joins eu-ö, on rack az-1.
JOINED = EU + [("eu-ö", 7, "az-1", False)]


def frames(spark, topics=FLEET, brokers=JOINED):
    return spark.createDataFrame(topics, TOPICS), spark.createDataFrame(brokers, BROKERS)


def lists(rows):
    """{(cluster, topic, partition): [broker, ...] in replica order} of replica rows."""
    slots = defaultdict(dict)
    for r in rows:
        slots[(r.cluster_id, r.topic, r.partition)][r.replica_index] = r.broker_id
    return {k: [v[i] for i in sorted(v)] for k, v in slots.items()}


def moves_per_broker(before, after):
    """Replicas each broker gains or loses from ``before`` to ``after``."""
    moves = Counter()
    for key, new in after.items():
        old = before.get(key, new)
        for b in set(new) ^ set(old):
            moves[b] += 1
    return moves


def data_moves(before, after):
    return sum(len(set(new) - set(before.get(key, new))) for key, new in after.items())


def test_a_staged_plan_goes_one_stage_per_rebalance_and_ends_balanced(spark, tmp_path, engine):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine=engine)
    table.rebalance(*frames(spark, brokers=EU + US))
    start = before = lists(table.latest().collect())
    cap, seen, bound = 8, [], None
    while True:
        step = table.rebalance(*frames(spark, brokers=JOINED + US), max_moves_per_broker=cap)
        if step.version is None or (engine != "embedded" and len(seen) == 2):
            break       # delta-spark: its heads carry the pending flag from stage 1 to stage 2; enough
        bound = step.summary["lower_bound"] if bound is None else bound
        rows = table.latest().collect()
        after = lists(rows)
        assert step.summary["clusters_recomputed"] == 1 and step.summary["clusters_unchanged"] == 1   # us waits
        assert {(r.stage, r.stages_left) for r in rows if r.cluster_id == "us"} == {(None, None)}
        marks = {(r.stage, r.stages_left) for r in rows if r.cluster_id == "eu-ö"}
        assert len(marks) == 1
        stage, left = marks.pop()
        seen.append((stage, left))
        assert step.summary["clusters_with_stages_left"] == (1 if left else 0)
        assert max(moves_per_broker(before, after).values(), default=0) <= cap
        if stage == 1:      # the version's reassignment is this stage, no more: kafka-reassign-partitions' input
            changed = {(r.cluster_id, r.topic, r.partition): list(r.replicas)
                       for r in table.reassignment().collect()}
            assert changed == {k: v for k, v in after.items() if before.get(k) != v}
        before = after
        assert len(seen) < 10
    assert [s for s, _ in seen] == list(range(1, len(seen) + 1)) and len(seen) >= 2
    if engine != "embedded":
        return                                          # what follows is the engine's, not the backend's
    assert seen[-1][1] == 0
    # It ends at the counts one unstaged rebalance gives (the racks' levels), moving as many
    # replicas (here one above the lower bound, as the unstaged plan does).
    old = {(t, p): v for (c, t, p), v in start.items() if c == "eu-ö"}
    at_once, _ = reassigned([f for f in FLEET if f[0] == "eu-ö"], JOINED, {
        ("eu-ö", t): [old[(t, p)] for p in range(n)] for c, t, n, _ in FLEET if c == "eu-ö"}, ["eu-ö"])
    at_once = {("eu-ö", t, p): row for (_, t), rows in at_once.items() for p, row in enumerate(rows)}
    mine = {k: v for k, v in before.items() if k[0] == "eu-ö"}
    assert Counter(b for bs in mine.values() for b in bs) == Counter(b for bs in at_once.values() for b in bs)
    assert data_moves(start, mine) == data_moves(start, at_once) >= bound


def test_a_format_3_replica_table_is_upgraded_by_its_first_staged_rebalance(spark, tmp_path):
    scratch = ReplicaTable(spark, str(tmp_path / "scratch"), engine="embedded")
    scratch.rebalance(*frames(spark, brokers=EU + US))
    path = str(tmp_path / "old")
    old = arrow_schema([c for c in REPLICAS.columns if c[0] not in ("stage", "stages_left")])
    DeltaTable.create(path, old, partition_by=["commit_version"], raise_if_key_not_exists=False,
                      configuration={"spark_assign.format": "3"})
    write_deltalake(path, DeltaTable(scratch.path).to_pyarrow_table().select(old.names).cast(old),
                    partition_by=["commit_version"], mode="append")
    table = ReplicaTable(spark, path, engine="embedded")
    assert {r.stage for r in table.latest().collect()} == {None}                       # read as it is
    step = table.rebalance(*frames(spark, brokers=JOINED + US), max_moves_per_broker=100, max_attempts=1)
    assert [v["spark_assign"]["operation"] for v in table.versions()[:2]] == ["rebalance", "upgrade"]
    assert {"stage", "stages_left"} <= set(DeltaTable(path).schema().to_arrow().names)
    marks = {(r.stage, r.stages_left) for r in table.latest().where("cluster_id = 'eu-ö'").collect()}
    assert marks == {(1, step.summary["clusters_with_stages_left"])}      # at most a reordering stage left


def test_an_interrupted_plan_is_recomputed_from_the_real_placement(spark, tmp_path):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    table.rebalance(*frames(spark, FLEET[:2], EU))
    real = table.latest().select("cluster_id", "topic", "partition", "replica_index", "broker_id")
    real = spark.createDataFrame(real.collect(), real.schema)                 # the brokers' own, not the table's
    first = table.rebalance(*frames(spark, FLEET[:2]), max_moves_per_broker=8)
    assert first.summary["clusters_with_stages_left"] == 1
    # The stage was never executed: the real placement is still generation 1's. Recomputed from it,
    # the plan starts again at stage 1, and what this version asks is a first stage again.
    again = table.rebalance(*frames(spark, FLEET[:2]), max_moves_per_broker=8, current=real)
    rows = table.latest().collect()
    assert again.version == 3 and {(r.stage, r.generation) for r in rows} == {(1, 3)}
    assert {r.previous_broker_id for r in rows if r.status == "kept"} <= {r.broker_id for r in rows}
    assert lists(rows) == lists(table.at(generation=2).collect())              # the same first stage
    # A plain rebalance finishes a pending plan in one generation.
    done = table.rebalance(*frames(spark, FLEET[:2]))
    rows = table.latest().collect()
    assert done.version == 4 and {(r.stage, r.stages_left) for r in rows} == {(None, None)}
    for rack in ("az-0", "az-1", "az-2"):                       # even within each rack (the racks' levels)
        counts = Counter(r.broker_id for r in rows if r.rack == rack)
        assert max(counts.values()) - min(counts.values()) <= 1
    # The real placement equal to the latest generation: nothing to recompute.
    same = table.latest().select("cluster_id", "topic", "partition", "replica_index", "broker_id")
    unchanged = spark.createDataFrame(same.collect(), same.schema)
    assert table.rebalance(*frames(spark, FLEET[:2]), current=unchanged).version is None


def test_stages_hold_the_byte_cap_and_bad_input_writes_nothing(spark, tmp_path):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    topics, brokers = frames(spark, FLEET[:2], EU)
    table.rebalance(topics, brokers)
    before = lists(table.latest().collect())
    sizes = spark.createDataFrame([("eu-ö", t, p, (p + 1) << 20) for _, t, n, _ in FLEET[:2] for p in range(n)],
                                  "cluster_id string, topic string, partition int, size_bytes long")
    joined = frames(spark, FLEET[:2])
    bad = [
        (dict(max_moves_per_broker=0), InvalidInputError, "max_moves_per_broker"),
        (dict(max_bytes_per_stage=10), InvalidInputError, "max_bytes_per_stage"),
        (dict(max_moves_per_broker=5, max_bytes_per_stage=10), InvalidInputError, "max_bytes_per_stage"),
        (dict(max_moves_per_broker=5, sizes=sizes.drop("size_bytes")), SchemaError, "size_bytes"),
        (dict(max_moves_per_broker=5, sizes=sizes.drop("cluster_id")), InvalidInputError, "cluster_id"),
        (dict(current=table.latest().select("cluster_id", "topic", "partition")), SchemaError, "replica_index"),
        (dict(current="latest"), InvalidInputError, "current"),
    ]
    for arguments, error, column in bad:
        with pytest.raises(error, match=column) as info:
            table.rebalance(*joined, **arguments)
        assert getattr(info.value, "column", column) == column, arguments
    negative = sizes.withColumn("size_bytes", sizes.size_bytes - (5 << 20))
    with pytest.raises(InvalidInputError, match="size_bytes"):
        table.rebalance(*joined, max_moves_per_broker=5, sizes=negative)
    assert DeltaTable(table.path).version() == 1                                   # nothing written
    size = {(t, p): (p + 1) << 20 for _, t, n, _ in FLEET[:2] for p in range(n)}
    cap = 160 << 20
    for _ in range(12):
        step = table.rebalance(*joined, max_moves_per_broker=50, max_bytes_per_stage=cap, sizes=sizes)
        if step.version is None:
            break
        after = lists(table.latest().collect())
        copies = [size[k[1:]] * len(set(v) - set(before[k])) for k, v in after.items() if k in before]
        assert sum(copies) <= cap or len([c for c in copies if c]) == 1
        before = after
    assert step.version is None and table.latest().first().stages_left == 0

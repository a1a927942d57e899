"""ReplicaTable.rebalance with per-partition loads: balanced, re-planned only when a goal is missed.

Loads are not in a cluster's fingerprint; an unchanged cluster is re-planned when its latest
generation misses a goal under the new loads, and committed only if the re-plan moves
something. What decides that is the plan and the compute, the same for both backends: these
tests run on the embedded one.
"""

from collections import defaultdict

import pytest

from spark_assign import ReplicaTable
from spark_assign.errors import InvalidInputError

pytestmark = pytest.mark.spark

TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"
LOADS = "cluster_id string, topic string, partition int, size_bytes long, bytes_out double"
FLEET = [("eu-ö", "orders-€", 12, 2), ("eu-ö", "audit", 6, 2), ("us", "clicks", 12, 2)]
BROKER_ROWS = [("eu-ö", b, None, False) for b in range(1, 5)] + [("us", b, None, False) for b in (10, 11, 12)]


def frames(spark):
    return spark.createDataFrame(FLEET, TOPICS), spark.createDataFrame(BROKER_ROWS, BROKERS)


def skewed(spark, heavy=None):
    """Every partition 1 GiB on disk, except ``heavy`` ({(cluster, topic, partition): bytes})."""
    heavy = heavy or {}
    rows = [(c, t, p, heavy.get((c, t, p), 1 << 30), 1e6 if p % 3 else 5e6)
            for c, t, n, _ in FLEET for p in range(n)]
    return spark.createDataFrame(rows, LOADS)


def heaviest_over_mean(table, loads, cluster):
    size = {(r.topic, r.partition): r.size_bytes for r in loads.collect() if r.cluster_id == cluster}
    carried = defaultdict(int)
    for r in table.latest().where(f"cluster_id = '{cluster}'").collect():
        carried[r.broker_id] += size[(r.topic, r.partition)]
    brokers = [b for c, b, _, _ in BROKER_ROWS if c == cluster]
    return max(carried.values()) / (sum(carried.values()) / len(brokers))


def test_loads_are_balanced_and_only_clusters_missing_a_goal_are_re_planned(spark, tmp_path):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    topics, brokers = frames(spark)
    table.rebalance(topics, brokers)
    # Every eu-ö partition on broker 1 holds 20 GiB: the first placement did not know.
    heavy = {("eu-ö", r.topic, r.partition): 20 << 30
             for r in table.latest().where("cluster_id = 'eu-ö' AND broker_id = 1").collect()}
    loads = skewed(spark, heavy)
    assert heaviest_over_mean(table, loads, "eu-ö") > 1.1
    step = table.rebalance(topics, brokers, loads=loads, threshold=0.1)
    assert step.version == 2 and step.summary["clusters_recomputed"] == 2        # new goals: every cluster
    assert heaviest_over_mean(table, loads, "eu-ö") <= 1.1
    # Two partitions of us grow: only us is re-planned (eu-ö meets every goal), and it moves.
    grown = skewed(spark, {**heavy, ("us", "clicks", 0): 12 << 30, ("us", "clicks", 1): 12 << 30})
    step = table.rebalance(topics, brokers, loads=grown, threshold=0.1)
    assert step.version == 3 and step.summary["clusters_recomputed"] == 1
    assert step.summary["clusters_replanned_for_load"] == 1 and step.summary["clusters_replanned_unmoved"] == 0
    assert {r.cluster_id for r in table.latest().where("generation = 3").collect()} == {"us"}
    # A partition larger than the rest together: no placement meets the goal. Once the engine
    # did what it could, the re-plan moves nothing, and nothing is committed.
    huge = skewed(spark, {**heavy, ("us", "clicks", 0): 12 << 30, ("us", "clicks", 1): 12 << 30,
                          ("us", "clicks", 5): 1 << 40})
    table.rebalance(topics, brokers, loads=huge, threshold=0.1)
    stuck = table.rebalance(topics, brokers, loads=huge, threshold=0.1)
    assert stuck.version is None
    assert stuck.summary["clusters_replanned_for_load"] == 1 and stuck.summary["clusters_replanned_unmoved"] == 1


def test_bad_loads_write_nothing(spark, tmp_path):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    topics, brokers = frames(spark)
    loads = skewed(spark)
    for arguments, column in [(dict(loads=loads, reassign=None), "loads"),
                              (dict(loads=loads.drop("cluster_id")), "cluster_id"),
                              (dict(loads="sizes.csv"), "loads")]:
        with pytest.raises(InvalidInputError) as info:
            table.rebalance(topics, brokers, **arguments)
        assert info.value.column == column
    assert not table.exists()

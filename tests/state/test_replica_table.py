"""ReplicaTable on both backends: generations of replica placements, against the engine, row for row.

Every generation is checked against ``place_replicas`` itself: a cluster's
first placement is ``striped`` with the topic's seed (``topic_seed``), a
changed cluster's next one is ``sticky`` from the table's latest generation.
The summary's moves, leader changes and lower bound are the engine's. Then
the table's guarantees: incremental (an unchanged cluster gets no new
generation), idempotent, history and time travel, diff and the reassignment,
nothing written for bad input.

The generations and retention tests run on the embedded engine only: reading, time travel and
pruning go through the same generic table code for both kinds, which the assignment table's
contract tests hold to both engines; what is the replica kind's own (its plan, compute and
rows) does not touch the engine. Bad input runs on both: what a failed rebalance leaves
behind is each engine's.
"""

from collections import defaultdict

import numpy as np
import pytest
from deltalake import DeltaTable

from spark_assign import ReplicaTable
from spark_assign.core import Broker, place_replicas
from spark_assign.core.replicas.cluster import place_sticky_cluster
from spark_assign.core.replicas.fleet import topic_seed
from spark_assign.errors import InvalidInputError, SchemaError, UnknownStrategyError

pytestmark = pytest.mark.spark

TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"
#: Two clusters: "eu-ö" on three racks, "us" without racks.
EU = [("eu-ö", b, f"az-{b % 3}", False) for b in range(1, 7)]
US = [("us", b, None, False) for b in (10, 11, 12, 13)]
FLEET_TOPICS = [("eu-ö", "orders-€", 24, 3), ("eu-ö", "audit", 6, 2), ("us", "orders-€", 8, 2)]


def frames(spark, topics, brokers):
    return spark.createDataFrame(topics, TOPICS), spark.createDataFrame(brokers, BROKERS)


def placed(df):
    """{(cluster, topic): [[broker, ...] per partition]} of replica rows."""
    slots = defaultdict(dict)
    for r in df.collect():
        slots[(r.cluster_id, r.topic)][(r.partition, r.replica_index)] = r.broker_id
    out = {}
    for key, cells in slots.items():
        width = 1 + max(i for _, i in cells)
        out[key] = [[cells[(p, i)] for i in range(width)] for p in range(1 + max(p for p, _ in cells))]
    return out


def members(brokers, cluster):
    return [Broker(b, rack=r, fenced=f) for c, b, r, f in sorted(brokers, key=lambda x: x[1]) if c == cluster]


def first_placement(topics, brokers):
    return {(c, t): place_replicas(members(brokers, c), n, rf, method="striped", seed=topic_seed(0, c, t)).replicas
            for c, t, n, rf in topics}


def reassigned(topics, brokers, before, clusters):
    """The engine's sticky reassignment of ``clusters``' topics (each cluster's planned together),
    and its totals."""
    out, totals = {}, defaultdict(int)
    for c in sorted(clusters):
        mine = [(t, n, rf) for c2, t, n, rf in topics if c2 == c]
        prev = [np.array(before[(c, t)]) for t, _, _ in mine]
        plan = place_sticky_cluster(members(brokers, c), np.array([n for _, n, _ in mine]),
                                    np.array([rf for _, _, rf in mine]), prev, None, [t for t, _, _ in mine])
        for (t, _, _), block, old in zip(mine, plan.blocks, prev):
            new = block.broker_ids
            out[(c, t)] = new.tolist()
            totals["replicas_moved"] += int((~(new[:, :, None] == old[:, None, :]).any(axis=2)).sum())
            totals["leaders_changed"] += int((new[:, 0] != old[:, 0]).sum())
        totals["lower_bound"] += plan.bound
    return out, dict(totals)


@pytest.mark.parametrize("engine", ["embedded"])
def test_a_broker_joins_then_a_rack_leaves_over_generations(spark, tmp_path, engine):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine=engine)
    brokers = EU + US
    first = table.rebalance(*frames(spark, FLEET_TOPICS, brokers))
    assert first.version == 1 and first.summary["clusters_recomputed"] == 2
    assert first.summary["replicas_new"] == 24 * 3 + 6 * 2 + 8 * 2 and first.summary["replicas_moved"] == 0
    expected = first_placement(FLEET_TOPICS, brokers)
    assert placed(table.latest()) == expected

    # A broker joins eu-ö (rack az-1): only that cluster gets a generation, the engine's sticky one.
    joined = brokers + [("eu-ö", 7, "az-1", False)]
    step = table.rebalance(*frames(spark, FLEET_TOPICS, joined))
    after_join, totals = reassigned(FLEET_TOPICS, joined, expected, {"eu-ö"})
    assert step.version == 2
    assert step.summary["clusters_recomputed"] == 1 and step.summary["clusters_unchanged"] == 1
    assert {k: step.summary[k] for k in totals} == totals
    assert 0 < totals["lower_bound"] <= totals["replicas_moved"]
    latest = placed(table.latest())
    assert {k: v for k, v in latest.items() if k[0] == "eu-ö"} == after_join
    assert latest[("us", "orders-€")] == expected[("us", "orders-€")]
    assert {r.generation for r in table.latest().collect() if r.cluster_id == "us"} == {1}

    # Rack az-2 (brokers 2 and 5) leaves: every replica there moves, replicas stay rack-distinct.
    gone = [b for b in joined if b[2] != "az-2"]
    step = table.rebalance(*frames(spark, FLEET_TOPICS, gone))
    after_rack, totals = reassigned(FLEET_TOPICS, gone, {**expected, **after_join}, {"eu-ö"})
    assert step.version == 3 and {k: step.summary[k] for k in totals} == totals
    rows = table.latest().where("cluster_id = 'eu-ö'").collect()
    assert not {r.broker_id for r in rows} & {2, 5}
    assert {k: v for k, v in placed(table.latest()).items() if k[0] == "eu-ö"} == after_rack
    by_partition = defaultdict(set)
    for r in rows:
        by_partition[(r.topic, r.partition)].add(r.rack)
    assert all(len(racks) == 2 for racks in by_partition.values())       # two racks left: both used
    assert {(r.status, r.method) for r in rows} <= {("kept", "sticky"), ("moved", "sticky")}
    assert all(r.is_preferred_leader == (r.replica_index == 0) for r in rows)

    # Nothing changed: nothing written.
    again = table.rebalance(*frames(spark, FLEET_TOPICS, gone))
    assert again.version is None and again.summary == {"clusters_recomputed": 0, "clusters_unchanged": 2,
                                                        "attempts": 1, "warnings": 0}
    assert DeltaTable(table.path).version() == 3

    # History, time travel, diff and the reassignment of the last step.
    assert sorted({r.generation for r in table.history("eu-ö").collect()}) == [1, 2, 3]
    assert table.history("us").count() == 16
    assert placed(table.at(version=1)) == expected
    assert placed(table.at(generation=2)) == {**expected, **after_join}
    diff = {(r.cluster_id, r.topic, r.partition): (r.from_replicas, r.to_replicas)
            for r in table.diff(1, 3).collect()}
    assert all(k[0] == "eu-ö" and expected[k[:2]][k[2]] == a and after_rack[k[:2]][k[2]] == b
               for k, (a, b) in diff.items())
    moves = table.reassignment().collect()
    assert {(r.topic, r.partition) for r in moves} == {
        k[1:] for k in (("eu-ö", t, p) for (c, t), parts in after_rack.items() for p in range(len(parts)))
        if after_join[("eu-ö", k[1])][k[2]] != after_rack[("eu-ö", k[1])][k[2]]}
    assert all(r.previous_replicas == after_join[("eu-ö", r.topic)][r.partition] for r in moves)
    assert [v["spark_assign"]["method"] for v in table.versions()[:3]] == ["striped"] * 3


def test_new_topics_are_placed_by_method_and_a_larger_replication_factor_is_reassigned(spark, tmp_path):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine="embedded")
    topics = [("eu-ö", "orders-€", 12, 2)]
    table.rebalance(*frames(spark, topics, EU))
    before = first_placement(topics, EU)
    grown = [("eu-ö", "orders-€", 12, 3), ("eu-ö", "payments", 5, 3)]
    step = table.rebalance(*frames(spark, grown, EU))
    latest = placed(table.latest())
    expected_orders, totals = reassigned(grown[:1], EU, before, {"eu-ö"})
    assert latest[("eu-ö", "orders-€")] == expected_orders[("eu-ö", "orders-€")]
    assert latest[("eu-ö", "payments")] == first_placement(grown[1:], EU)[("eu-ö", "payments")]
    assert step.summary["replicas_new"] == 15 and step.summary["lower_bound"] == totals["lower_bound"]
    assert step.summary["replicas_moved"] == totals["replicas_moved"] >= 12      # a third replica each
    methods = {(r.topic, r.method, r.status) for r in table.latest().collect()}
    assert {m for t, m, _ in methods if t == "payments"} == {"striped"}
    assert {s for t, _, s in methods if t == "payments"} == {"new"}

    # reassign=None places changed clusters again with method (what --generate does).
    scratch = table.rebalance(*frames(spark, grown, EU[:5]), reassign=None)
    assert {r.method for r in table.latest().collect()} == {"striped"}
    assert scratch.version == 3 and scratch.summary["replicas_moved"] > 0


def test_bad_input_writes_nothing(spark, tmp_path, engine):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine=engine)
    topics, brokers = frames(spark, FLEET_TOPICS, EU + US)
    doubled = brokers.union(spark.createDataFrame([("us", 10, None, False)], BROKERS))
    with pytest.raises(InvalidInputError, match="duplicate broker_id") as error:
        table.rebalance(topics, doubled)
    assert error.value.column == "broker_id" and error.value.group == "us"
    assert not table.exists()
    with pytest.raises(InvalidInputError, match="sticky"):
        table.rebalance(topics, brokers, method="sticky")
    with pytest.raises(UnknownStrategyError):
        table.rebalance(topics, brokers, reassign="stikcy")
    with pytest.raises(SchemaError):
        table.rebalance(topics, brokers.drop("cluster_id"))
    with pytest.raises(InvalidInputError, match="null cluster_id"):
        table.rebalance(topics.union(spark.createDataFrame([(None, "t", 1, 1)], TOPICS)), brokers)
    assert not table.exists()

    table.rebalance(topics, brokers)
    too_many = spark.createDataFrame([("us", "wide", 3, 5)], TOPICS)
    with pytest.raises(InvalidInputError, match="wide"):
        table.rebalance(topics.union(too_many), brokers)
    shrunk = spark.createDataFrame([("us", "orders-€", 4, 2)], TOPICS)
    with pytest.raises(InvalidInputError, match="partition"):
        table.rebalance(topics.where("cluster_id != 'us'").union(shrunk), brokers)
    assert DeltaTable(table.path).version() == 1


@pytest.mark.parametrize("engine", ["embedded"])
def test_one_cluster_without_cluster_ids_and_retention(spark, tmp_path, engine):
    table = ReplicaTable(spark, str(tmp_path / "replicas"), engine=engine)
    topics = spark.createDataFrame([("orders", 6)], "topic string, num_partitions int")
    for count in (3, 4, 5):
        brokers = spark.createDataFrame([(b,) for b in range(count)], "broker_id int")
        table.rebalance(topics, brokers, replication_factor=2, method="admin-utils", start_index=0)
    assert {r.cluster_id for r in table.latest().collect()} == {"default"}
    assert sorted({r.generation for r in table.history("default").collect()}) == [1, 2, 3]
    admin = place_replicas([Broker(b) for b in range(3)], 6, 2, method="admin-utils", start_index=0)
    assert placed(table.at(generation=1))[("default", "orders")] == admin.replicas
    assert table.prune(keep_generations=1) == 4
    assert sorted({r.generation for r in table.history("default").collect()}) == [3]
    assert placed(table.at(version=1))[("default", "orders")] == admin.replicas     # time travel still sees it
    assert table.rebalance(topics, brokers, replication_factor=2, method="admin-utils",
                           start_index=0).version is None

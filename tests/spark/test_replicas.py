"""DataFrame.assign_replicas: the engine's placement for each topic of each cluster, in one pass.

Every row is checked against the engine (``place_replicas`` with the topic's
seed from ``topic_seed``), so the Spark layer adds no placement logic of its
own; errors come before any job (schemas, arguments) or from the job's action
(data), as InvalidInputError naming the cluster, column and rows.
"""

import random

import numpy as np
import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_replicas)
from spark_assign.core import Broker, place_replicas
from spark_assign.core.replicas.fleet import REPLICA_STATUSES, place_topics, topic_seed
from spark_assign.errors import InvalidInputError, SchemaError, UnknownStrategyError

pytestmark = pytest.mark.spark

TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"


def fleet(seed: int, clusters: int = 6):
    """Random clusters as users have them: racked or not, fenced brokers, sparse ids, odd names."""
    rng = random.Random(seed)
    topics, brokers = [], []
    for c in range(clusters):
        cid = rng.choice(["prod-eu", "prod-üs", "集群", "dev"]) + f"-{c}"
        racked = rng.random() < 0.6
        ids = rng.sample(range(0, 5000), rng.randint(3, 12))
        for k, b in enumerate(ids):                   # 3 unfenced brokers at least: replication factors reach 3
            brokers.append((cid, b, f"az-{rng.randint(1, 3)}" if racked else None, k >= 3 and rng.random() < 0.1))
        for t in range(rng.randint(1, 8)):
            topics.append((cid, f"topic-{t}-{'é' * rng.randint(0, 3)}", rng.randint(1, 40), rng.randint(1, 3)))
    return topics, brokers


def engine_rows(topics, brokers, method, seed=0):
    out = set()
    for cid, name, count, rf in topics:
        members = [Broker(b, rack=r, fenced=f) for c, b, r, f in brokers if c == cid]
        rack = {b.id: b.rack for b in members}
        placed = place_replicas(members, count, rf, method=method, seed=topic_seed(seed, cid, name))
        for p, replicas in zip(placed.partitions.tolist(), placed.replicas):
            out |= {(cid, name, p, i, b, rack[b], i == 0, "new") for i, b in enumerate(replicas)}
    return out


@pytest.mark.parametrize("method", ["striped", "admin-utils"])
def test_each_cluster_is_placed_as_the_engine_places_it(spark, method):
    topics, brokers = fleet(7)
    got = spark.createDataFrame(topics, TOPICS).assign_replicas(spark.createDataFrame(brokers, BROKERS),
                                                                method=method, seed=0)
    assert set(map(tuple, got.collect())) == engine_rows(topics, brokers, method)


def test_rows_do_not_depend_on_the_order_or_the_tasks(spark):
    topics, brokers = fleet(3)
    once = spark.createDataFrame(topics, TOPICS).assign_replicas(spark.createDataFrame(brokers, BROKERS),
                                                                 num_partitions=1)
    again = spark.createDataFrame(topics[::-1], TOPICS).assign_replicas(
        spark.createDataFrame(brokers[::-1], BROKERS), num_partitions=3)
    assert sorted(map(tuple, once.collect())) == sorted(map(tuple, again.collect()))


def test_one_cluster_without_cluster_ids_and_a_default_replication_factor(spark):
    topics = spark.createDataFrame([("orders", 6), ("audit", 1)], "topic string, num_partitions int")
    brokers = spark.createDataFrame([(1, "r1"), (2, "r2"), (3, "r1")], "broker_id int, rack string")
    rows = topics.assign_replicas(brokers, replication_factor=2, method="admin-utils", start_index=0).collect()
    orders = place_replicas([Broker(1, "r1"), Broker(2, "r2"), Broker(3, "r1")], 6, 2, method="admin-utils",
                            start_index=0)
    got = {}
    for r in rows:
        assert r.cluster_id is None and r.is_preferred_leader == (r.replica_index == 0)
        got.setdefault((r.topic, r.partition), {})[r.replica_index] = r.broker_id
    assert [[got[("orders", p)][i] for i in range(2)] for p in range(6)] == orders.replicas
    assert len(rows) == 14


def data_error(df) -> InvalidInputError:
    rows = None
    with pytest.raises(InvalidInputError) as info:
        rows = df.collect()
    assert rows is None and "Traceback" not in str(info.value)
    return info.value


@pytest.mark.parametrize("topics, brokers, column, problem", [
    ([("c", "t", 3, 4)], [("c", 1, None, False), ("c", 2, None, False)], "replication_factor", "topic 't'"),
    ([("c", "t", 3, 2)], [("c", 1, None, False), ("c", 1, None, False)], "broker_id", "duplicate broker_id"),
    ([("c", "t", 3, 2), ("c", "t", 1, 2)], [("c", 1, None, False), ("c", 2, None, False)], "topic",
     "a topic listed twice"),
    ([("c", "t", None, 2)], [("c", 1, None, False), ("c", 2, None, False)], "num_partitions", "null num_partitions"),
    ([("c", "t", 3, 2)], [("c", 1, "r1", False), ("c", 2, None, False)], "rack", "some brokers have a rack"),
], ids=["rf-above-brokers", "duplicate-broker", "topic-twice", "null-count", "racks-on-some"])
def test_data_errors_name_the_cluster_and_the_column(spark, topics, brokers, column, problem):
    # admin-utils: Kafka's RackAwareMode.Enforced refuses racks on some brokers only (KRaft's
    # striped placer takes a broker without a rack as one of its own)
    error = data_error(spark.createDataFrame(topics, TOPICS).assign_replicas(spark.createDataFrame(brokers, BROKERS),
                                                                             method="admin-utils"))
    assert problem in str(error) and error.group == "c" and error.column == column


def test_argument_and_schema_errors_come_before_any_job(spark):
    topics = spark.createDataFrame([("t", 3)], "topic string, num_partitions int")
    brokers = spark.createDataFrame([(1,), (2,)], "broker_id int")
    with pytest.raises(InvalidInputError, match="replication_factor is required"):
        topics.assign_replicas(brokers)
    with pytest.raises(InvalidInputError, match="replication_factor must be at least 1, got 0"):
        topics.assign_replicas(brokers, replication_factor=0)
    with pytest.raises(UnknownStrategyError, match="unknown replica placement method 'zk'.*admin-utils"):
        topics.assign_replicas(brokers, replication_factor=1, method="zk")
    with pytest.raises(InvalidInputError, match="seed must be an integer"):
        topics.assign_replicas(brokers, replication_factor=1, seed=None)
    with pytest.raises(SchemaError, match="brokers lacks the required column 'broker_id'"):
        topics.assign_replicas(spark.createDataFrame([("r",)], "rack string"), replication_factor=1)
    with pytest.raises(SchemaError, match="column 'num_partitions' must be int"):
        spark.createDataFrame([("t", "3")], "topic string, num_partitions string").assign_replicas(
            brokers, replication_factor=1)
    with pytest.raises(SchemaError, match="cluster_id must be a column of both"):
        spark.createDataFrame([("c", "t", 3)], "cluster_id string, topic string, num_partitions int") \
            .assign_replicas(brokers, replication_factor=1)


def test_sticky_reassigns_the_previous_placement_as_the_engine_does(spark):
    topics, brokers = fleet(11, clusters=4)
    topic_df = spark.createDataFrame(topics, TOPICS)
    first = topic_df.assign_replicas(spark.createDataFrame(brokers, BROKERS), method="admin-utils")
    assert {r.status for r in first.select("status").distinct().collect()} == {"new"}
    racked = {c for c, _, r, _ in brokers if r is not None}
    grown = brokers + [(c, 9000 + i, "az-1" if c in racked else None, False)      # a broker joins each cluster
                       for i, c in enumerate(sorted({b[0] for b in brokers}))]
    second = topic_df.assign_replicas(spark.createDataFrame(grown, BROKERS), method="sticky", previous=first)
    got = second.collect()
    before = {}
    for r in first.collect():
        before.setdefault((r.cluster_id, r.topic), {}).setdefault(r.partition, {})[r.replica_index] = r.broker_id
    for cid in sorted({t[0] for t in topics}):               # the engine plans each cluster's topics together
        mine = [t for t in topics if t[0] == cid]
        members = [Broker(b, rack=r, fenced=f) for c, b, r, f in grown if c == cid]
        prev = [np.array([[before[(cid, name)][p][i] for i in sorted(before[(cid, name)][p])] for p in range(count)])
                for _, name, count, _ in mine]
        expected = place_topics(members, [t[1] for t in mine], [t[2] for t in mine], [t[3] for t in mine],
                                cluster_id=cid, method="sticky", previous=prev)
        rows = sorted(([n for _, n, _, _ in mine].index(r.topic), r.partition, r.replica_index, r.broker_id, r.status)
                      for r in got if r.cluster_id == cid)
        assert [r[3] for r in rows] == expected.broker_id.tolist()
        assert [REPLICA_STATUSES.index(r[4]) for r in rows] == expected.status.tolist()
        assert {r[4] for r in rows} <= {"kept", "moved"}
        if all(b.rack is None for b in members):                    # balanced across the cluster
            per_broker = np.bincount([r[3] for r in rows])[[b.id for b in members if not b.fenced]]
            assert per_broker.max() - per_broker.min() <= 1


def test_sticky_needs_previous_and_previous_must_fit_the_topics(spark):
    topics = spark.createDataFrame([("t", 2)], "topic string, num_partitions int")
    brokers = spark.createDataFrame([(1,), (2,), (3,)], "broker_id int")
    with pytest.raises(InvalidInputError, match="pass previous="):
        topics.assign_replicas(brokers, replication_factor=2, method="sticky")
    beyond = spark.createDataFrame([("t", 5, 0, 1)], "topic string, partition int, replica_index int, broker_id int")
    error = data_error(topics.assign_replicas(brokers, replication_factor=2, method="sticky", previous=beyond))
    assert error.column == "partition" and "topic 't' has 2 partitions" in str(error)
    with pytest.raises(SchemaError, match="previous lacks the required column 'replica_index'"):
        topics.assign_replicas(brokers, replication_factor=2, method="sticky",
                               previous=spark.createDataFrame([("t", 0, 1)], "topic string, partition int, broker_id int"))


@pytest.mark.parametrize("frame, column, row", [
    ("topics", "num_partitions", ("t", "2147483648")),
    ("brokers", "broker_id", "4294967296"),
    ("previous", "broker_id", ("t", "-2147483649")),
])
def test_a_value_beyond_kafkas_32_bits_fails_the_job_naming_the_column_and_row(spark, frame, column, row):
    # One int32 rule for every surface (spark.inputs.checked_int): the consumer side's and this one.
    inputs = {"topics": spark.createDataFrame([("t", 2)], "topic string, num_partitions bigint"),
              "brokers": spark.createDataFrame([(1,), (2,)], "broker_id bigint"),
              "previous": spark.createDataFrame([("t", 0, 0, 1), ("t", 1, 0, 2)],
                                                "topic string, partition int, replica_index int, broker_id bigint")}
    if frame == "topics":
        inputs["topics"] = spark.createDataFrame([("t", 2**31)], "topic string, num_partitions bigint")
    elif frame == "brokers":
        inputs["brokers"] = spark.createDataFrame([(1,), (2,), (2**32,)], "broker_id bigint")
    else:
        inputs["previous"] = spark.createDataFrame([("t", 0, 0, 1), ("t", 1, 0, -(2**31) - 1)],
                                                   "topic string, partition int, replica_index int, broker_id bigint")
    error = data_error(inputs["topics"].assign_replicas(inputs["brokers"], replication_factor=1, method="sticky",
                                                        previous=inputs["previous"]))
    assert error.column == column and "32-bit integer" in str(error)
    assert error.rows == [row]

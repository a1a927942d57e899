"""``assign_replicas(method="sticky", loads=...)``: loads and capacities balanced per cluster, as the engine does.

A fleet whose topics each put a 500 GB partition on the same brokers; one broker per cluster has
a small disk (``capacity_size_bytes``). The Spark rows equal the engine's
(:func:`~spark_assign.core.replicas.fleet.place_topics` with :class:`LoadOptions`) cluster by
cluster, the small disk is within its capacity, and bad load input is named before or by the job.
"""

from __future__ import annotations

import numpy as np
import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_replicas)
from spark_assign.core import Broker, place_replicas
from spark_assign.core.replicas.fleet import place_topics
from spark_assign.core.replicas.loads import LoadOptions
from spark_assign.errors import InvalidInputError, SchemaError

CLUSTERS = ("eu-ö", "集群-1")


def inputs(spark):
    rng = np.random.default_rng(1)
    brokers = [(c, b, f"az-{b % 3}", 3e12 if b == 0 else 1e13) for c in CLUSTERS for b in range(9)]
    topics = [(c, f"topic-{i}-é", int(rng.integers(1, 20)), 3) for c in CLUSTERS for i in range(25)]
    previous = []
    for c, name, count, rf in topics:
        placed = place_replicas([Broker(b, f"az-{b % 3}") for b in range(9)], count, rf, method="admin-utils",
                                start_index=0)
        previous += [(c, name, p, i, b) for p, r in enumerate(placed.replicas) for i, b in enumerate(r)]
    loads = [(c, t, p, 5e11 if p == 0 else 1e9, float(rng.lognormal(14, 1))) for c, t, n, _ in topics
             for p in range(n) if (c, t, p) != (CLUSTERS[1], "topic-3-é", 1)]       # one partition without loads
    frames = (spark.createDataFrame(topics, "cluster_id string, topic string, num_partitions int, replication_factor int"),
              spark.createDataFrame(brokers, "cluster_id string, broker_id int, rack string, capacity_size_bytes double"),
              spark.createDataFrame(previous, "cluster_id string, topic string, partition int, replica_index int, "
                                              "broker_id int"),
              spark.createDataFrame(loads, "cluster_id string, topic string, partition int, size_bytes double, "
                                           "bytes_in double"))
    return frames, (topics, brokers, previous, loads)


def test_loads_are_balanced_per_cluster_as_the_engine_does(spark):
    (topics, brokers, previous, loads), raw = inputs(spark)
    rows = topics.assign_replicas(brokers, method="sticky", previous=previous, loads=loads).collect()
    t_raw, b_raw, p_raw, l_raw = raw
    for cid in CLUSTERS:
        mine = [t for t in t_raw if t[0] == cid]
        names = [t[1] for t in mine]
        before = [np.full((n, 3), -1) for _, _, n, _ in mine]
        for c, name, p, i, b in p_raw:
            if c == cid:
                before[names.index(name)][p, i] = b
        size = [np.zeros(n) for _, _, n, _ in mine]
        bytes_in = [np.zeros(n) for _, _, n, _ in mine]
        for c, name, p, s, bi in l_raw:
            if c == cid:
                size[names.index(name)][p], bytes_in[names.index(name)][p] = s, bi
        caps = {b: cap for c, b, _, cap in b_raw if c == cid}
        expected = place_topics([Broker(b, r) for c, b, r, _ in b_raw if c == cid], names, [t[2] for t in mine],
                                [3] * len(mine), cluster_id=cid, method="sticky", previous=before,
                                loads=LoadOptions({"size_bytes": size, "bytes_in": bytes_in},
                                                  capacities={"size_bytes": caps}))
        got = sorted((names.index(r.topic), r.partition, r.replica_index, r.broker_id) for r in rows if r.cluster_id == cid)
        assert [g[3] for g in got] == expected.broker_id.tolist()
        on_small = sum(size[t][p] for t, p, _, b in got if b == 0)
        assert on_small <= caps[0]


def test_bad_load_input_is_named(spark):
    (topics, brokers, previous, loads), _ = inputs(spark)
    with pytest.raises(InvalidInputError, match="loads are balanced by the sticky reassignment"):
        topics.assign_replicas(brokers, method="striped", loads=loads)
    with pytest.raises(SchemaError, match="numeric load columns.*not numeric: owner"):
        topics.assign_replicas(brokers, method="sticky", previous=previous,
                               loads=loads.withColumn("owner", loads.topic))
    with pytest.raises(InvalidInputError, match="threshold must be a number from 0 to 1"):
        topics.assign_replicas(brokers, method="sticky", previous=previous, loads=loads, threshold=2)
    from pyspark.sql import functions as F
    holed = brokers.withColumn("capacity_size_bytes", F.when(F.col("broker_id") == 4, None)
                               .otherwise(F.col("capacity_size_bytes")))
    with pytest.raises(InvalidInputError, match="null capacity_size_bytes") as e:
        topics.assign_replicas(holed, method="sticky", previous=previous, loads=loads).collect()
    assert e.value.column == "capacity_size_bytes" and e.value.rows == [4]

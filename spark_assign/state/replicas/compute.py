"""A replica table's next generation: the placement of the changed clusters, and what it moved.

:func:`placement` is the one query that computes replica rows, for a
:class:`~.replica_table.ReplicaTable` and for the command line alike: it
calls :func:`~spark_assign.spark.replicas.dataframe.assign_replicas` (the DataFrame
method; the engine runs in Spark tasks) on the clusters given, and adds each
row's ``method`` and ``previous_broker_id`` (the broker at its
``replica_index`` in the previous placement). Within a cluster that has a
previous placement:

* a topic with previous replicas is *reassigned* with ``reassign``
  (``sticky`` by default: moves few replicas, keeps leaders), or placed again
  with ``method`` when ``reassign`` is None;
* a topic without previous replicas (new to the cluster) is placed with
  ``method``, as Kafka's controller places a topic it creates.

What a placement moved, beside the status counts of its rows
(:func:`figures`):

* ``leaders_changed``: partitions that had a preferred leader and got another;
* ``lower_bound``: the fewest replica moves any placement balanced as
  ``sticky``'s needs (each topic, and each broker's total over the topics that
  had replicas; :func:`~spark_assign.core.replicas.cluster.cluster_moves_bound`),
  summed over the clusters: one grouped Spark job over the clusters' brokers,
  topics and previous replicas
  (:func:`~spark_assign.spark.replicas.dataframe.wire_frame`).
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core import Broker
from ...core.replicas.cluster import cluster_moves_bound
from ...core.replicas.loads import DEFAULT_THRESHOLD
from ...errors import InvalidInputError
from ...spark.replicas.dataframe import PREVIOUS_PLACEMENT_COLUMNS, assign_replicas, wire_frame

__all__ = ["PlacementSettings", "LoadInput", "placement", "figures", "leaders_changed", "lower_bound", "cluster_lower_bound",
           "PREVIOUS_COLUMNS", "REPLICA_KEYS"]

#: What a placement reads of the previous one (``assign_replicas``' ``previous=``).
PREVIOUS_COLUMNS = [name for name, _, _ in PREVIOUS_PLACEMENT_COLUMNS]
#: The columns that name one replica slot.
REPLICA_KEYS = ["cluster_id", "topic", "partition", "replica_index"]


class PlacementSettings:
    """The checked settings of a placement: ``method`` (new topics and clusters), ``reassign``
    (topics with previous replicas; None: ``method`` again), ``replication_factor`` (topics
    without a ``replication_factor`` value), ``seed``, ``start_index`` and ``rack_aware``
    (as for ``assign_replicas``)."""

    def __init__(self, method: str, reassign: Optional[str], replication_factor: Optional[int], seed: int,
                 start_index: Optional[int], rack_aware: Optional[str]) -> None:
        self.method = method
        self.reassign = reassign
        self.replication_factor = replication_factor
        self.seed = seed
        self.start_index = start_index
        self.rack_aware = rack_aware

    def salt(self) -> str:
        """The settings as text, for the clusters' fingerprints: changing one recomputes every cluster."""
        return (f"replicas|{self.method}|{self.reassign}|{self.seed}|{self.start_index}|{self.rack_aware}")

    def check(self, topics: DataFrame, brokers: DataFrame) -> None:
        """Build (not run) the placement queries: ``assign_replicas`` checks the schemas and
        arguments before any job, with its own errors."""
        assign_replicas(topics, brokers, self.replication_factor, self.method, self.seed, self.start_index,
                        self.rack_aware)
        if self.reassign is not None:
            empty = topics.sparkSession.createDataFrame(
                [], "cluster_id string, topic string, partition int, replica_index int, broker_id int")
            assign_replicas(topics, brokers, self.replication_factor, self.reassign, self.seed, None,
                            self.rack_aware, previous=empty)


class LoadInput(NamedTuple):
    """Loads the reassignment balances: ``assign_replicas``' ``loads=`` rows, ``threshold=`` and
    ``max_replicas_per_broker=`` (``sticky`` only)."""

    frame: DataFrame
    threshold: float = DEFAULT_THRESHOLD
    max_replicas_per_broker: Optional[int] = None


def placement(topics: DataFrame, brokers: DataFrame, previous: Optional[DataFrame],
              settings: PlacementSettings, tasks: Optional[int] = None, loads: Optional[LoadInput] = None) -> DataFrame:
    """The replica rows of the clusters of ``topics`` (each with ``cluster_id``), placed on
    ``brokers``, reassigning ``previous`` (rows ``PREVIOUS_COLUMNS``; None: no previous
    placement): ``assign_replicas``' columns, then ``method`` and ``previous_broker_id``.
    ``loads``: balanced by the reassignment of the topics that had replicas. Lazy: no job.

    Example::

        rows = placement(topics, brokers, current, PlacementSettings("striped", "sticky", 3, 0, None, None))
    """
    s = settings
    balance: Dict[str, Any] = {} if loads is None else {"loads": loads.frame, "threshold": loads.threshold,
                                        "max_replicas_per_broker": loads.max_replicas_per_broker}
    if previous is None:
        placed = assign_replicas(topics, brokers, s.replication_factor, s.method, s.seed, s.start_index,
                                 s.rack_aware, num_partitions=tasks).withColumn("method", F.lit(s.method))
        return placed.withColumn("previous_broker_id", F.lit(None).cast("int"))
    previous = previous.select(*PREVIOUS_COLUMNS)
    held = previous.select("cluster_id", "topic").distinct()
    if s.reassign is None:
        placed = assign_replicas(topics, brokers, s.replication_factor, s.method, s.seed, s.start_index,
                                 s.rack_aware, previous=previous, num_partitions=tasks, **balance) \
            .withColumn("method", F.lit(s.method))
    else:
        fresh = assign_replicas(topics.join(held, ["cluster_id", "topic"], "left_anti"), brokers,
                                s.replication_factor, s.method, s.seed, s.start_index, s.rack_aware,
                                num_partitions=tasks).withColumn("method", F.lit(s.method))
        moved = assign_replicas(topics.join(held, ["cluster_id", "topic"], "left_semi"), brokers,
                                s.replication_factor, s.reassign, s.seed, None, s.rack_aware, previous=previous,
                                num_partitions=tasks, **balance).withColumn("method", F.lit(s.reassign))
        placed = fresh.unionByName(moved)
    before = previous.withColumnRenamed("broker_id", "previous_broker_id")
    return placed.join(before, REPLICA_KEYS, "left")


def leaders_changed(rows: Union[pa.Table, DataFrame]) -> int:
    """Partitions of ``rows`` (with ``previous_broker_id``) whose preferred leader changed: the
    replica at index 0 is on another broker than the previous leader (new partitions do not count).
    An Arrow table is counted here, a DataFrame by one Spark job."""
    if isinstance(rows, DataFrame):
        changed = (F.col("replica_index") == 0) & F.col("previous_broker_id").isNotNull() \
            & (F.col("previous_broker_id") != F.col("broker_id"))
        return int(rows.where(changed).count())
    before = rows.column("previous_broker_id")
    mask = pc.and_(pc.and_(pc.equal(rows.column("replica_index"), 0), pc.is_valid(before)),
                   pc.not_equal(before, rows.column("broker_id")))
    return int(pc.sum(pc.cast(pc.fill_null(mask, False), pa.int64())).as_py() or 0)


def lower_bound(topics: DataFrame, brokers: DataFrame, previous: Optional[DataFrame],
                settings: PlacementSettings) -> int:
    """The sum over the clusters of :func:`cluster_lower_bound`: one grouped Spark job over
    their brokers, topics and previous replicas (none without ``previous``)."""
    if previous is None:
        return 0
    wire = wire_frame(topics, brokers, settings.replication_factor, previous.select(*PREVIOUS_COLUMNS))
    rack_aware = settings.rack_aware

    def bound(table: pa.Table) -> pa.Table:
        return pa.table({"lower_bound": [cluster_lower_bound(table, rack_aware)]}, schema=_BOUND)

    per_cluster = wire.groupBy("cluster_id").applyInArrow(bound, "lower_bound long")
    total = per_cluster.agg(F.sum("lower_bound")).first()
    return int(total[0] or 0) if total is not None else 0


_BOUND = pa.schema([("lower_bound", pa.int64())])


def cluster_lower_bound(wire: pa.Table, rack_aware: Optional[str] = None) -> int:
    """The replica moves one cluster needs at least: ``sticky``'s bound for the cluster's topics
    that had replicas, planned together
    (:func:`~spark_assign.core.replicas.cluster.cluster_moves_bound`: every topic balanced, and
    every broker's total; moves in partitions that had replicas).

    ``wire``: the cluster's rows in :data:`~spark_assign.spark.replicas.dataframe.WIRE_DDL` columns
    (kind 0: brokers, 1: topics, 2: previous replicas). Brokers partly racked, which ``striped``
    accepts, count without racks.

    Example::

        cluster_lower_bound(wire_frame(topics, brokers, 3, previous).toArrow())
    """
    data = wire.to_pydict()
    kinds = data["kind"]
    brokers = [Broker(int(data["broker_id"][i]), rack=data["rack"][i], fenced=bool(data["fenced"][i]))
               for i, k in enumerate(kinds) if k == 0]
    topics = {data["topic"][i]: (data["num_partitions"][i], data["replication_factor"][i])
              for i, k in enumerate(kinds) if k == 1}
    held: Dict[str, Dict[int, Dict[int, int]]] = {}
    for i, k in enumerate(kinds):
        if k == 2 and data["topic"][i] in topics:
            held.setdefault(data["topic"][i], {}).setdefault(data["partition"][i], {})[
                data["replica_index"][i]] = data["broker_id"][i]
    names = sorted(held)                    # the topics sticky reassigns: those that had replicas
    previous: List[Optional[np.ndarray]] = []
    for name in names:
        count = topics[name][0]
        rows = [[b for _, b in sorted(held.get(name, {}).get(p, {}).items())] for p in range(count)]
        width = max((len(r) for r in rows), default=0)
        previous.append(np.array([r + [-1] * (width - len(r)) for r in rows], dtype=np.int64).reshape(count, width))
    counts = np.array([topics[n][0] for n in names], dtype=np.int64)
    factors = np.array([topics[n][1] for n in names], dtype=np.int64)
    try:
        return cluster_moves_bound(brokers, counts, factors, previous, rack_aware, names)
    except InvalidInputError:              # partly racked brokers: the bound without racks
        return cluster_moves_bound(brokers, counts, factors, previous, "disabled", names)


def figures(rows: Union[pa.Table, DataFrame], topics: DataFrame, brokers: DataFrame,
            previous: Optional[DataFrame], settings: PlacementSettings) -> Dict[str, int]:
    """``leaders_changed`` and ``lower_bound`` of a placement (see the module doc)."""
    return {"leaders_changed": leaders_changed(rows) if previous is not None else 0,
            "lower_bound": lower_bound(topics, brokers, previous, settings)}

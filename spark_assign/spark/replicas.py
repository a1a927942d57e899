"""``DataFrame.assign_replicas``: Kafka's replica placement for a fleet of clusters, in one Spark pass.

Called on a topics DataFrame with a brokers DataFrame, attached to
``pyspark.sql.DataFrame`` like ``assign_partitions`` and built on the
DataFrame API only (classic and Spark Connect). The pass:

1. **Wire.** Brokers (kind 0), topics (kind 1) and the previous placement's
   replicas (kind 2, with ``previous=``) in one frame of the :data:`WIRE_DDL`
   columns; schema and argument checks run here, before any job.
2. **Shuffle.** Hash-partitioned by ``cluster_id`` and sorted by cluster,
   kind and topic, so a worker sees each cluster's brokers, then its topics,
   and its previous replicas contiguously (possibly across Arrow batches).
3. **Place.** :func:`place_batches` calls the engine once per complete
   cluster (:func:`~spark_assign.core.replica_fleet.place_topics`: each topic
   with its own seed, so rows do not depend on the shuffle) and yields the
   :data:`REPLICA_DDL` rows.

Data errors (a duplicated broker or topic, a replication factor above the
usable brokers, racks on some brokers only) fail the job, whose action raises
:class:`~spark_assign.errors.InvalidInputError` naming the cluster, column and
rows (see :mod:`.failures`).
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Optional, cast

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core import Broker
from ..core.replica_fleet import REPLICA_STATUSES, place_topics
from ..core.replica_model import RACK_AWARE_MODES, check_count, check_seed
from ..core.replicas import get_replica_method
from ..errors import InvalidInputError, SchemaError
from . import failures

__all__ = ["assign_replicas", "REPLICA_DDL", "WIRE_DDL", "wire_frame", "place_batches", "attach"]

#: The rows ``assign_replicas`` returns: one per replica, the preferred leader at ``replica_index`` 0.
REPLICA_DDL = ("cluster_id string, topic string, partition int, replica_index int, broker_id int, "
               "rack string, is_preferred_leader boolean, status string")
#: The wire: brokers (kind 0: ``broker_id``, ``rack``, ``fenced``), topics (kind 1: ``topic``,
#: ``num_partitions``, ``replication_factor``) and previous replicas (kind 2: ``topic``,
#: ``partition``, ``replica_index``, ``broker_id``) of each cluster.
WIRE_DDL = ("cluster_id string, kind int, broker_id int, rack string, fenced boolean, topic string, "
            "num_partitions int, replication_factor int, partition int, replica_index int")
#: Columns each input may have: name -> (Spark types accepted, required).
TOPIC_COLUMNS = {"cluster_id": (("string",), False), "topic": (("string",), True),
                 "num_partitions": (("int", "bigint", "smallint", "tinyint"), True),
                 "replication_factor": (("int", "bigint", "smallint", "tinyint"), False)}
PREVIOUS_COLUMNS = {"cluster_id": (("string",), False), "topic": (("string",), True),
                    "partition": (("int", "bigint", "smallint", "tinyint"), True),
                    "replica_index": (("int", "bigint", "smallint", "tinyint"), True),
                    "broker_id": (("int", "bigint", "smallint", "tinyint"), True)}
BROKER_COLUMNS = {"cluster_id": (("string",), False), "broker_id": (("int", "bigint", "smallint", "tinyint"), True),
                  "rack": (("string",), False), "fenced": (("boolean",), False)}


def assign_replicas(
    self: DataFrame,
    brokers: DataFrame,
    replication_factor: Optional[int] = None,
    method: str = "striped",
    seed: int = 0,
    start_index: Optional[int] = None,
    rack_aware: Optional[str] = None,
    previous: Optional[DataFrame] = None,
    num_partitions: Optional[int] = None,
) -> DataFrame:
    """Place the replicas of every topic on its cluster's brokers, as Kafka's ``method`` would.

    Called on a topics DataFrame (``topic``, ``num_partitions``, optionally
    ``replication_factor`` and ``cluster_id``), with the brokers
    (``broker_id``, optionally ``rack``, ``fenced`` and ``cluster_id``).
    Without ``cluster_id`` columns, all rows are one cluster.

    Example::

        import spark_assign   # adds DataFrame.assign_replicas

        topics = spark.createDataFrame([("orders", 6)], "topic string, num_partitions int")
        brokers = spark.createDataFrame([(1, "r1"), (2, "r2"), (3, "r1")], "broker_id int, rack string")
        replicas = topics.assign_replicas(brokers, replication_factor=2, method="admin-utils")
        replicas.show()   # cluster_id, topic, partition, replica_index, broker_id, rack, is_preferred_leader

    Parameters
    ----------
    brokers:
        The brokers: ``broker_id`` (int), optionally ``rack`` (string), ``fenced``
        (boolean: KRaft brokers that are fenced get replicas only when too few others
        are usable) and ``cluster_id``.
    replication_factor:
        Replicas per partition for topics without a ``replication_factor`` value.
    method:
        ``striped`` (KRaft's ``StripedReplicaPlacer``, the default), ``admin-utils``
        (``AdminUtils.assignReplicasToBrokers``), or ``sticky`` (a reassignment of ``previous``
        that moves few replicas); see ``spark_assign.core.replicas``.
    seed:
        The fleet's seed: each topic's ``java.util.Random`` seed is derived from it, its
        cluster and its name (:func:`~spark_assign.core.replica_fleet.topic_seed`), so the
        rows are reproducible and independent of the order of the input.
    start_index:
        ``admin-utils``: Kafka's ``fixedStartIndex`` for every topic (None: drawn per topic).
    rack_aware:
        Kafka's ``RackAwareMode`` (``enforced``, ``safe``, ``disabled``); see ``place_replicas``.
    previous:
        The current placement, one row per replica: ``topic``, ``partition``,
        ``replica_index`` (0: the preferred leader), ``broker_id`` and ``cluster_id`` when
        the topics have it (this method's output fits). Required by ``sticky``; with the
        other methods it only sets ``status``.
    num_partitions:
        Spark partitions for the pass (default: ``spark.sql.shuffle.partitions``).

    Returns
    -------
    DataFrame
        One row per replica (:data:`REPLICA_DDL`): ``cluster_id``, ``topic``, ``partition``,
        ``replica_index`` (0 is the preferred leader), ``broker_id``, the broker's ``rack``,
        ``is_preferred_leader`` and ``status``: ``new`` (the partition had no replica in
        ``previous``), ``kept`` (this broker held it) or ``moved``.

    Raises
    ------
    SchemaError, InvalidInputError, UnknownStrategyError
        Before any job for schemas and arguments; data problems fail the job, whose action
        raises :class:`InvalidInputError` naming the cluster, the column and the rows.
    """
    chosen_method = get_replica_method(method)
    chosen = chosen_method.name
    if chosen_method.needs_previous and previous is None:
        raise InvalidInputError(f"method {chosen!r} reassigns a current placement: pass previous=, a DataFrame "
                                "(topic, partition, replica_index, broker_id)", column="previous")
    rf = None if replication_factor is None else check_count(replication_factor, "replication_factor", minimum=1)
    checked_seed = check_seed(seed)
    if checked_seed is None:
        raise InvalidInputError("seed must be an integer: rows must not change when Spark retries a task",
                                column="seed", rows=[seed])
    fixed = None if start_index is None else check_count(start_index, "start_index")
    if rack_aware is not None and rack_aware not in RACK_AWARE_MODES:
        raise InvalidInputError(f"rack_aware must be one of {', '.join(RACK_AWARE_MODES)} or None, "
                                f"got {rack_aware!r}", column="rack_aware", rows=[rack_aware])
    n = num_partitions if num_partitions is None else check_count(num_partitions, "num_partitions", minimum=1)
    failures.install()
    wire = wire_frame(self, brokers, rf, previous)
    n = n or int(cast(str, self.sparkSession.conf.get("spark.sql.shuffle.partitions")))

    def run(batches):
        from spark_assign.spark.replicas import place_batches

        return place_batches(batches, chosen, checked_seed, fixed, rack_aware)

    return (wire.repartition(n, "cluster_id")
                .sortWithinPartitions("cluster_id", "kind", "topic", "partition", "replica_index")
                .mapInArrow(run, REPLICA_DDL))


def _columns(df: DataFrame, allowed: Dict[str, tuple], argument: str) -> Dict[str, str]:
    """The Spark type of each known column of ``df``; SchemaError for a missing or mistyped one."""
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    for name, (accepted, required) in allowed.items():
        if name not in types and required:
            raise SchemaError(f"{argument} lacks the required column {name!r} ({accepted[0]})")
        if name in types and types[name] not in accepted:
            raise SchemaError(f"{argument}: column {name!r} must be {' or '.join(accepted)}, got {types[name]}")
    return {n: t for n, t in types.items() if n in allowed}


def wire_frame(topics: DataFrame, brokers: DataFrame, replication_factor: Optional[int],
               previous: Optional[DataFrame] = None) -> DataFrame:
    """Brokers, topics and previous replicas in the :data:`WIRE_DDL` columns (no job)."""
    if not isinstance(brokers, DataFrame):
        raise InvalidInputError(f"brokers must be a DataFrame (broker_id, rack, ...), got {type(brokers).__name__}",
                                column="brokers")
    t = _columns(topics, TOPIC_COLUMNS, "the topics DataFrame")
    b = _columns(brokers, BROKER_COLUMNS, "brokers")
    if ("cluster_id" in t) != ("cluster_id" in b):
        raise SchemaError("cluster_id must be a column of both the topics and the brokers, or of neither")
    if previous is not None and not isinstance(previous, DataFrame):
        raise InvalidInputError(f"previous must be a DataFrame (topic, partition, replica_index, broker_id), "
                                f"got {type(previous).__name__}", column="previous")
    v = _columns(previous, PREVIOUS_COLUMNS, "previous") if previous is not None else {}
    if previous is not None and ("cluster_id" in t) != ("cluster_id" in v):
        raise SchemaError("cluster_id must be a column of previous when the topics have it, and only then")
    if "replication_factor" not in t and replication_factor is None:
        raise InvalidInputError("replication_factor is required: an argument or a column of the topics",
                                column="replication_factor")

    def column(present: Dict[str, str], name: str, ddl: str, default=None):
        return (F.col(name) if name in present else F.lit(default)).cast(ddl).alias(name)

    rf = F.col("replication_factor") if "replication_factor" in t else F.lit(None)
    if replication_factor is not None:
        rf = F.coalesce(rf.cast("int"), F.lit(replication_factor))
    topic_rows = topics.select(column(t, "cluster_id", "string"), F.lit(1).alias("kind"),
                               F.lit(None).cast("int").alias("broker_id"), F.lit(None).cast("string").alias("rack"),
                               F.lit(None).cast("boolean").alias("fenced"), F.col("topic"),
                               # counts beyond int range become null here and are refused by the worker
                               F.when(F.col("num_partitions").between(-(1 << 31), (1 << 31) - 1),
                                      F.col("num_partitions")).cast("int").alias("num_partitions"),
                               rf.cast("int").alias("replication_factor"))
    broker_rows = brokers.select(column(b, "cluster_id", "string"), F.lit(0).alias("kind"),
                                 F.when(F.col("broker_id").between(-(1 << 31), (1 << 31) - 1),
                                        F.col("broker_id")).cast("int").alias("broker_id"),
                                 column(b, "rack", "string"), column(b, "fenced", "boolean", False),
                                 F.lit(None).cast("string").alias("topic"),
                                 F.lit(None).cast("int").alias("num_partitions"),
                                 F.lit(None).cast("int").alias("replication_factor"), *_no_replica())
    wire = broker_rows.unionByName(topic_rows.select("*", *_no_replica()))
    if previous is None:
        return wire
    replica_rows = previous.select(column(v, "cluster_id", "string"), F.lit(2).alias("kind"),
                                   _int32("broker_id"), F.lit(None).cast("string").alias("rack"),
                                   F.lit(None).cast("boolean").alias("fenced"), F.col("topic"),
                                   F.lit(None).cast("int").alias("num_partitions"),
                                   F.lit(None).cast("int").alias("replication_factor"),
                                   _int32("partition"), _int32("replica_index"))
    return wire.unionByName(replica_rows)


def _int32(name: str):
    """Column ``name`` as an int, null when beyond Kafka's 32-bit range (the worker refuses nulls)."""
    return F.when(F.col(name).between(-(1 << 31), (1 << 31) - 1), F.col(name)).cast("int").alias(name)


def _no_replica() -> list:
    """The previous-replica columns of a broker or topic row (null)."""
    return [F.lit(None).cast("int").alias("partition"), F.lit(None).cast("int").alias("replica_index")]


# ---------------------------------------------------------------------------------- the worker


def place_batches(batches: Iterator[pa.RecordBatch], method: str, seed: int, start_index: Optional[int],
                  rack_aware: Optional[str]) -> Iterator[pa.RecordBatch]:
    """Wire batches (sorted by cluster, kind, topic) in, replica rows out: one engine call per
    complete cluster; a cluster continuing into the next batch is carried over."""
    carried: List[pa.RecordBatch] = []
    for batch in batches:
        if batch.num_rows == 0:
            continue
        clusters = batch.column(0).to_pylist()
        last = clusters[-1]
        split = len(clusters)
        while split > 0 and clusters[split - 1] == last:
            split -= 1
        if split > 0:                                 # clusters complete in this batch
            done = pa.Table.from_batches(carried + [batch.slice(0, split)]) if carried else \
                pa.Table.from_batches([batch.slice(0, split)])
            carried = []
            yield from _place_table(done, method, seed, start_index, rack_aware)
        carried.append(batch.slice(split))
    if carried:
        yield from _place_table(pa.Table.from_batches(carried), method, seed, start_index, rack_aware)


def _place_table(table: pa.Table, method: str, seed: int, start_index: Optional[int],
                 rack_aware: Optional[str]) -> Iterator[pa.RecordBatch]:
    """Every complete cluster of ``table``, one output batch each."""
    data = table.to_pydict()
    ids = data["cluster_id"]
    start = 0
    for end in range(1, len(ids) + 1):
        if end == len(ids) or ids[end] != ids[start]:
            rows = {k: v[start:end] for k, v in data.items()}
            try:
                yield _place_cluster(ids[start], rows, method, seed, start_index, rack_aware)
            except InvalidInputError as e:
                raise e.for_driver() from None
            start = end


def _place_cluster(cluster_id: Optional[str], rows: Dict[str, list], method: str, seed: int,
                   start_index: Optional[int], rack_aware: Optional[str]) -> pa.RecordBatch:
    """One cluster's wire rows (brokers, then topics) placed: its :data:`REPLICA_DDL` rows."""
    kinds = rows["kind"]
    brokers, racks = _brokers(cluster_id, rows, kinds)
    topic_at = [i for i, k in enumerate(kinds) if k == 1]
    names = [rows["topic"][i] for i in topic_at]
    counts = [rows["num_partitions"][i] for i in topic_at]
    factors = [rows["replication_factor"][i] for i in topic_at]
    _check_topics(cluster_id, names, counts, factors)
    before = _previous(cluster_id, rows, kinds, names, counts)
    placed = place_topics(brokers, names, counts, factors, cluster_id=cluster_id, method=method, seed=seed,
                          start_index=start_index, rack_aware=rack_aware, previous=before)
    n = len(placed.broker_id)
    rack_of = racks[1][np.searchsorted(racks[0], placed.broker_id)] if n else np.array([], dtype=object)
    topic_names = pa.DictionaryArray.from_arrays(pa.array(placed.topic, type=pa.int32()),
                                                 pa.array(names, type=pa.string())).cast(pa.string())
    return pa.RecordBatch.from_arrays(
        [pa.array([cluster_id] * n, type=pa.string()), topic_names, pa.array(placed.partition),
         pa.array(placed.replica_index), pa.array(placed.broker_id), pa.array(rack_of, type=pa.string()),
         pa.array(placed.replica_index == 0),
         pa.DictionaryArray.from_arrays(pa.array(placed.status.astype(np.int32)),
                                        pa.array(REPLICA_STATUSES)).cast(pa.string())],
        names=["cluster_id", "topic", "partition", "replica_index", "broker_id", "rack", "is_preferred_leader",
               "status"])


def _previous(cluster_id: Optional[str], rows: Dict[str, list], kinds: list, names: list,
              counts: list) -> Optional[List[Optional[np.ndarray]]]:
    """Per topic, its previous replicas as a ``(partitions, RF_old)`` array padded with ``-1``
    (None: no previous rows); None when the cluster has no previous rows at all. Rows of topics
    no longer listed are ignored (the topic was deleted); a partition at or above the topic's
    count is refused (Kafka never takes partitions away)."""
    at = [i for i, k in enumerate(kinds) if k == 2]
    if not at:
        return None
    for column in ("partition", "replica_index", "broker_id"):
        bad = [(rows["topic"][i], rows["partition"][i]) for i in at if rows[column][i] is None]
        if bad:
            raise InvalidInputError(f"previous: null {column}, or one beyond Kafka's 32-bit range", column=column,
                                    rows=bad, group=cluster_id)
    index = {name: n for n, name in enumerate(names)}
    cells: Dict[str, Dict[tuple, int]] = {}
    for i in at:
        name, p, r = rows["topic"][i], rows["partition"][i], rows["replica_index"][i]
        if name not in index:
            continue
        if not 0 <= p < counts[index[name]] or r < 0:
            raise InvalidInputError(f"previous: topic {name!r} has {counts[index[name]]} partitions; a replica of "
                                    f"partition {p} (replica_index {r}) cannot be reassigned", column="partition",
                                    rows=[(name, p, r)], group=cluster_id)
        topic = cells.setdefault(name, {})
        if (p, r) in topic:
            raise InvalidInputError("previous: a replica listed twice", column="replica_index",
                                    rows=[(name, p, r)], group=cluster_id)
        topic[(p, r)] = rows["broker_id"][i]
    return [_matrix(cells[name], counts[n]) if name in cells else None for n, name in enumerate(names)]


def _matrix(cells: Dict[tuple, int], partitions: int) -> np.ndarray:
    """``{(partition, replica_index): broker}`` as rows in replica order, ``-1`` padded."""
    width = max(sum(1 for (p, _) in cells if p == q) for q in {p for p, _ in cells})
    out = np.full((partitions, width), -1, dtype=np.int64)
    filled = np.zeros(partitions, dtype=np.int64)
    for (p, _), broker in sorted(cells.items()):
        out[p, filled[p]] = broker
        filled[p] += 1
    return out


def _brokers(cluster_id: Optional[str], rows: Dict[str, list], kinds: list):
    """The cluster's :class:`Broker` objects, and their ids (sorted) with the rack of each;
    errors name the rows."""
    at = [i for i, k in enumerate(kinds) if k == 0]
    ids = [rows["broker_id"][i] for i in at]
    missing = [i for i in ids if i is None]
    if missing:
        raise InvalidInputError("null broker_id, or one beyond Kafka's 32-bit ids", column="broker_id",
                                rows=[(cluster_id, None)], group=cluster_id)
    twice = _repeated(ids)
    if twice:
        raise InvalidInputError("duplicate broker_id", column="broker_id", rows=twice, group=cluster_id)
    brokers = [Broker(int(rows["broker_id"][i]), rack=rows["rack"][i], fenced=bool(rows["fenced"][i]))
               for i in at]
    order = sorted(brokers, key=lambda b: b.id)
    racks = (np.array([b.id for b in order], dtype=np.int64), np.array([b.rack for b in order], dtype=object))
    return brokers, racks


def _repeated(values: list) -> list:
    """The values listed more than once, sorted."""
    return sorted(v for v, n in Counter(values).items() if n > 1)


def _check_topics(cluster_id: Optional[str], names: list, counts: list, factors: list) -> None:
    """Topic rows a placement cannot start from: null names, counts or factors, and duplicates."""
    for column, values in (("topic", names), ("num_partitions", counts), ("replication_factor", factors)):
        bad = [names[i] for i, v in enumerate(values) if v is None]
        if bad:
            what = "null topic" if column == "topic" else f"null {column}, or one beyond Kafka's 32-bit limit"
            raise InvalidInputError(what, column=column, rows=bad, group=cluster_id)
    twice = _repeated(names)
    if twice:
        raise InvalidInputError("a topic listed twice", column="topic", rows=twice, group=cluster_id)


def attach() -> None:
    """Add :func:`assign_replicas` to ``pyspark.sql.DataFrame`` (classic and Connect)."""
    DataFrame.assign_replicas = assign_replicas  # type: ignore[attr-defined]


attach()

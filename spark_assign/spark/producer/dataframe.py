"""A Kafka producer's partitioning, simulated over a DataFrame of records.

:func:`simulate_producer` gives every record the partition a Kafka producer
would send it to, so users can see how their traffic spreads before sending it:

* ``method="round-robin"``: Kafka's ``RoundRobinPartitioner`` for every record
  (it ignores keys, as Kafka's does), exact;
* ``method="sticky"``: Kafka's default partitioning. A record with a non-null key
  goes to ``kafka_partition(key, num_partitions)`` (murmur2 over all partitions,
  exact; unless ``ignore_keys``, Kafka's ``partitioner.ignore.keys``), the others
  are spread by the sticky partitioner (:mod:`spark_assign.core.producer.partitioners`:
  ``mode="built-in"``, Kafka 3.3+, or ``"uniform-sticky"``, Kafka 2.4-3.2), and get
  a ``batch`` number. Keyed records do not count towards the sticky batches (Kafka's
  ``RecordAccumulator`` passes no sticky partition info for them).

How it runs (DataFrame API only, so it works on Spark Connect too): the records
are hash-partitioned by topic and sorted by (topic, ``order_by``) within each
Spark partition, then ``mapInArrow`` calls the engine on each Arrow batch. All
records of a topic are in one task, in send order, but may span several Arrow
batches: the task keeps one engine partitioner whose per-topic state (the
round-robin counters; the sticky batch, its partition, fill and random stream)
carries over from batch to batch, so the result equals one engine call over the
topic's records (the tests check it). Each topic draws from its own stream
seeded by ``(seed, topic)``, so which task runs it does not matter.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union, cast

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...core.java.limits import check_count
from ...core.producer.murmur2 import kafka_partition
from ...core.producer.partitioners import RoundRobinPartitioner, StickyPartitioner, check_partition_counts
from ...errors import InvalidInputError, SchemaError, UnknownStrategyError
from .. import failures

__all__ = ["METHODS", "simulate_producer", "producer_batches", "producer_summary"]

#: ``method`` values of :func:`simulate_producer`.
METHODS = ("round-robin", "sticky")
_ORDER = "__spark_assign_send_order"


def _check_schema(records: DataFrame, topic_column: str, key_column: Optional[str],
                  bytes_column: Optional[str], order: List[str], method: str) -> None:
    fields = {f.name: f.dataType for f in records.schema.fields}

    def need(name: str, argument: str, ok: Any, kind: str) -> None:
        if name not in fields:
            raise SchemaError(f"records lack the column '{name}' ({argument}); they have: {', '.join(fields)}")
        if ok is not None and not isinstance(fields[name], ok):
            raise SchemaError(f"records column '{name}' ({argument}) must be {kind}, "
                              f"got {fields[name].simpleString()}")

    need(topic_column, "topic_column", T.StringType, "string")
    if key_column is not None:
        need(key_column, "key_column", (T.StringType, T.BinaryType), "string or binary")
    if bytes_column is not None:
        need(bytes_column, "record_bytes_column", (T.ByteType, T.ShortType, T.IntegerType, T.LongType), "an integer")
    for name in order:
        need(name, "order_by", None, "")
    outputs = ["partition"] + (["batch"] if method == "sticky" else [])
    clash = [c for c in outputs if c in fields]
    if clash:
        raise SchemaError(f"records already have a column '{clash[0]}', which simulate_producer adds; rename it")


def simulate_producer(records: DataFrame, num_partitions: Mapping[str, int], method: str = "sticky", *,
                      topic_column: str = "topic", key_column: Optional[str] = None,
                      record_bytes_column: Optional[str] = None, order_by: Union[None, str, Sequence[str]] = None,
                      batch_records: Optional[int] = None, batch_bytes: Optional[int] = None,
                      available: Any = None, start: Any = 0, seed: int = 0, mode: str = "built-in",
                      ignore_keys: bool = False, partitions: Optional[int] = None) -> DataFrame:
    """``records`` with the partition a Kafka producer sends each one to (and, for sticky, its batch).

    Example::

        out = simulate_producer(records, {"orders": 6}, "sticky", key_column="key",
                                batch_records=100, order_by="ts", seed=7)

    Parameters
    ----------
    records:
        One row per record: ``topic_column`` (string), optionally ``key_column``
        (string or binary; strings hash as UTF-8), ``record_bytes_column`` (integer
        size of the record in its batch, needed with ``batch_bytes``), and the
        ``order_by`` columns giving the send order (default: the DataFrame's current
        row order, ``monotonically_increasing_id``).
    num_partitions:
        ``{topic: partition count}``; a record of another topic fails the job with
        an :class:`~spark_assign.errors.InvalidInputError` naming ``num_partitions``.
    method:
        ``"round-robin"`` or ``"sticky"``.
    batch_records, batch_bytes:
        Sticky only, exactly one: the sticky limit in records, or Kafka's ``batch.size``.
    available:
        ``{topic: [partition, ...]}`` with a leader (others are never chosen while one is).
    start:
        Round-robin's counter start, an int32 or ``{topic: int32}``.
    seed, mode, ignore_keys:
        Sticky: the random streams' seed, ``"built-in"`` or ``"uniform-sticky"``, and
        Kafka's ``partitioner.ignore.keys`` (``True``: keyed records are sticky too).
    partitions:
        Spark partitions for the pass (default: ``spark.sql.shuffle.partitions``).

    Returns
    -------
    DataFrame
        ``records``' columns plus ``partition`` (int) and, for sticky, ``batch``
        (bigint: the record's sticky batch within its topic, from 0; null for keyed
        records), sorted by topic and send order within each Spark partition.
    """
    if method not in METHODS:
        raise UnknownStrategyError(method, METHODS, kind="method")
    order = [order_by] if isinstance(order_by, str) else list(order_by or [])
    config = _config(method, num_partitions, topic_column, key_column, record_bytes_column, batch_records,
                     batch_bytes, available, start, seed, mode, ignore_keys)
    _check_schema(records, topic_column, key_column, record_bytes_column, order, method)
    if partitions is not None:
        check_count(partitions, "partitions", minimum=1, maximum=None)
    failures.install()
    frame = records
    if not order:
        frame, order = records.withColumn(_ORDER, F.monotonically_increasing_id()), [_ORDER]
    extra = [T.StructField("partition", T.IntegerType())]
    if method == "sticky":
        extra.append(T.StructField("batch", T.LongType()))
    schema = T.StructType(list(frame.schema.fields) + extra)
    n = partitions or int(cast(str, records.sparkSession.conf.get("spark.sql.shuffle.partitions")))

    def run(batches: Any) -> Any:
        from spark_assign.spark.producer.dataframe import producer_batches

        return producer_batches(batches, config)

    out = frame.repartition(n, topic_column).sortWithinPartitions(topic_column, *order).mapInArrow(run, schema)
    return out.drop(_ORDER) if _ORDER in out.columns else out


def _config(method: str, num_partitions: Any, topic_column: str, key_column: Optional[str],
            bytes_column: Optional[str], batch_records: Any, batch_bytes: Any, available: Any, start: Any,
            seed: Any, mode: str, ignore_keys: bool) -> Dict[str, Any]:
    """The worker's settings, checked here on the driver by building the engine partitioner once."""
    counts = check_partition_counts(num_partitions)
    if method == "round-robin":
        if batch_records is not None or batch_bytes is not None:
            raise InvalidInputError("batch_records and batch_bytes are for method='sticky'",
                                    column="batch_records" if batch_records is not None else "batch_bytes")
        RoundRobinPartitioner(counts, available, start)
    else:
        StickyPartitioner(counts, batch_records=batch_records, batch_bytes=batch_bytes, available=available,
                          seed=seed, mode=mode)
        if (batch_bytes is not None) != (bytes_column is not None):
            raise InvalidInputError("batch_bytes and record_bytes_column go together (each record's size counts "
                                    "towards batch.size)", column="record_bytes_column")
    return {"method": method, "counts": counts, "topic": topic_column, "key": key_column, "bytes": bytes_column,
            "batch_records": batch_records, "batch_bytes": batch_bytes, "available": available, "start": start,
            "seed": seed, "mode": mode, "ignore_keys": bool(ignore_keys)}


def producer_batches(batches: Any, config: Dict[str, Any]) -> Any:
    """The ``mapInArrow`` body: each Arrow batch with ``partition`` (and ``batch``) appended.

    One partitioner per task; its per-topic state carries over from one Arrow batch
    to the next (a topic's records are contiguous and in send order in the task).
    """
    sticky = config["method"] == "sticky"
    engine: Any = (StickyPartitioner(config["counts"], batch_records=config["batch_records"],
                                     batch_bytes=config["batch_bytes"], available=config["available"],
                                     seed=config["seed"], mode=config["mode"]) if sticky
                   else RoundRobinPartitioner(config["counts"], config["available"], config["start"]))
    use_keys = sticky and config["key"] is not None and not config["ignore_keys"]
    for rb in batches:
        try:
            columns = _partition_batch(rb, engine, config, use_keys)
        except InvalidInputError as e:      # raised in a Spark worker: carry it to the driver as such
            raise e.for_driver() from None
        yield pa.RecordBatch.from_arrays(list(rb.columns) + columns,
                                         names=list(rb.schema.names) + (["partition", "batch"] if sticky
                                                                        else ["partition"]))


def _partition_batch(rb: pa.RecordBatch, engine: Any, config: Dict[str, Any], use_keys: bool) -> List[pa.Array]:
    """``[partition]`` or ``[partition, batch]`` for one Arrow batch of records."""
    topics = rb.column(config["topic"])
    if not isinstance(engine, StickyPartitioner):
        return [pa.array(engine.partition(topics), type=pa.int32())]
    n = rb.num_rows
    keyed = np.zeros(n, dtype=bool)
    partition = np.empty(n, dtype=np.int32)
    if use_keys:
        keys = rb.column(config["key"])
        keyed = np.asarray(keys.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if keyed.any():
            mask = pa.array(keyed)
            partition[keyed] = kafka_partition(keys.filter(mask), _counts_of(topics.filter(mask), config["counts"]))
    keyless = pa.array(~keyed)
    sizes = None
    if config["bytes"] is not None:
        sizes = rb.column(config["bytes"]).filter(keyless)
        if sizes.null_count:
            raise InvalidInputError("null record size", column=config["bytes"])
    out = engine.partition(topics.filter(keyless), sizes)
    partition[~keyed] = out.partition
    batch = np.zeros(n, dtype=np.int64)
    batch[~keyed] = out.batch
    return [pa.array(partition, type=pa.int32()), pa.array(batch, type=pa.int64(), mask=keyed if keyed.any() else None)]


def _counts_of(topics: pa.Array, counts: Dict[str, int]) -> np.ndarray:
    """Each record's topic's partition count (keyed records: murmur2 over all partitions)."""
    if topics.null_count:
        raise InvalidInputError("null topic", column="topic")
    encoded = topics.dictionary_encode()
    names = encoded.dictionary.to_pylist()
    unknown = [t for t in names if t not in counts]
    if unknown:
        raise InvalidInputError(f"num_partitions lacks topic {unknown[0]!r} ({len(unknown)} unknown topics)",
                                column="num_partitions", rows=unknown)
    per_name = np.array([counts[t] for t in names], dtype=np.int64)
    return per_name[encoded.indices.to_numpy(zero_copy_only=False)]


def producer_summary(result: DataFrame, num_partitions: Optional[Mapping[str, int]] = None, *,
                     topic_column: str = "topic", partition_column: str = "partition") -> DataFrame:
    """How evenly records spread, per topic: ``records``, ``partitions_used``, ``min_records``,
    ``max_records`` (per partition) and ``max_min_ratio`` (null when a partition got none).

    With ``num_partitions``, partitions that got no record count (``min_records`` 0).

    Example::

        producer_summary(simulate_producer(records, {"t": 6}, "round-robin"), {"t": 6})
    """
    fields = {f.name for f in result.schema.fields}
    for name, argument in ((topic_column, "topic_column"), (partition_column, "partition_column")):
        if name not in fields:
            raise SchemaError(f"result lacks the column '{name}' ({argument}); it has: {', '.join(sorted(fields))}")
    per = result.groupBy(F.col(topic_column).alias("topic"), F.col(partition_column).alias("partition")).count()
    stats = per.groupBy("topic").agg(F.sum("count").alias("records"), F.count("*").alias("partitions_used"),
                                     F.min("count").alias("min_records"), F.max("count").alias("max_records"))
    if num_partitions is not None:
        counts = check_partition_counts(num_partitions)
        expected = F.create_map(*[F.lit(x) for item in counts.items() for x in item])
        missing = F.col("partitions_used") < expected[F.col("topic")]
        stats = stats.withColumn("min_records", F.when(missing, F.lit(0).cast("long")).otherwise(F.col("min_records")))
    ratio = F.when(F.col("min_records") > 0, F.col("max_records") / F.col("min_records"))
    return stats.withColumn("max_min_ratio", ratio).orderBy("topic")

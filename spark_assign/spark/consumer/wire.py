"""The one pass: subscriptions, topic metadata and previous generations, per group.

All inputs of a group travel together as rows of one "wire" DataFrame:

* kind 0, subscriptions: one row per member and topic, with the topic's
  partition count joined from the metadata (null for unknown topics), unless
  the topics are a dict: then the counts travel with the job and the worker
  looks them up (:func:`counts_travel`);
* kind 1, previous rows: one row per partition of earlier generations (the
  worker keeps the latest generation of the group);
* kind 2, replica racks: one row per subscribed topic of the group whose
  metadata has ``replica_racks`` (rack-aware strategies only);
* kind 3, weights: one row per partition with a weight (``topic``,
  ``partition``, ``weight``), when weights are given: the group's own rows
  when the weights have ``group_id``, else the rows of the topics the group
  subscribes to; weights given as a dict travel with the job instead, and the
  worker picks each group's rows (:func:`weights_travel`).

The wire is hash-partitioned and sorted by group, then ``mapInArrow`` runs
:func:`.worker.assign_batches` over it: one shuffle, Arrow end to end, the
engine called once per group, nothing collected to the driver. (The state
table's small rebalances collect a few groups' wire instead and run the same
function in the driver: ``dataframe.assign_local``.)
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple, Union

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...core.consumer.model import check_topics
from ...schema import RESULT_COLUMNS
from ...types import ARROW_TYPES
from ..inputs import weight_table

__all__ = ["KIND_SUBSCRIPTION", "KIND_PREVIOUS", "KIND_RACKS", "KIND_WEIGHTS", "WIRE_DDL", "WIRE_SCHEMA",
           "OPTIONAL_COLUMNS", "wire_column", "wire_batch", "result_columns", "result_ddl", "result_arrow_schema",
           "with_topic_metadata", "counts_travel", "weights_travel", "append_rows", "build_wire"]

KIND_SUBSCRIPTION, KIND_PREVIOUS, KIND_RACKS, KIND_WEIGHTS = 0, 1, 2, 3

#: The wire's columns, in order (group_id first: the worker finds groups by it).
WIRE_COLUMNS = [
    ("group_id", "string"),
    ("kind", "tinyint"),
    ("member_id", "string"),
    ("topic", "string"),
    ("group_instance_id", "string"),
    ("rack", "string"),
    ("owned_partitions", "array<int>"),
    ("generation", "int"),
    ("num_partitions", "int"),
    ("partition", "int"),
    ("status", "string"),
    ("replica_racks", "array<array<string>>"),
    ("metadata_rows", "int"),          # rows the topic has in the metadata (1 unless duplicated)
    ("weight", "double"),              # weight rows only
]
WIRE_DDL = ", ".join(f"{n} {t}" for n, t in WIRE_COLUMNS)
#: The wire's columns as an Arrow schema (what the worker's batches hold, less any optional column).
WIRE_SCHEMA = pa.schema([pa.field(n, ARROW_TYPES[t]) for n, t in WIRE_COLUMNS])


def wire_column(batch: Union[pa.RecordBatch, pa.Table], name: str) -> Union[pa.Array, pa.ChunkedArray]:
    """Column ``name`` of a batch (or table) of wire rows; one the wire left out
    (:data:`OPTIONAL_COLUMNS`) as all nulls of its type."""
    if name in batch.schema.names:
        return batch.column(name)
    return pa.nulls(batch.num_rows, WIRE_SCHEMA.field(name).type)


def wire_batch(columns: Mapping[str, pa.Array], num_rows: int) -> pa.RecordBatch:
    """A batch of ``num_rows`` wire rows with every wire column: those in ``columns`` cast to
    their wire type, the others all nulls (how the SQL table functions lay out their rows)."""
    return pa.RecordBatch.from_arrays(
        [columns[f.name].cast(f.type) if f.name in columns else pa.nulls(num_rows, f.type) for f in WIRE_SCHEMA],
        schema=WIRE_SCHEMA)


def result_columns(with_instance: bool = False, with_weight: bool = False) -> List[Tuple[str, str]]:
    """The result's columns: ``RESULT_COLUMNS``, plus what a state table records beside them if
    asked (``with_instance``: the owner's ``group_instance_id`` and the group's ``members``, its
    subscribed members, those owning nothing included), and each partition's ``weight`` if asked."""
    return (RESULT_COLUMNS + ([("group_instance_id", "string"), ("members", "int")] if with_instance else [])
            + ([("weight", "double")] if with_weight else []))


def result_ddl(with_instance: bool = False, with_weight: bool = False) -> str:
    """:func:`result_columns` as Spark DDL."""
    return ", ".join(f"`{n}` {t}" for n, t in result_columns(with_instance, with_weight))


def result_arrow_schema(with_instance: bool = False, with_weight: bool = False) -> pa.Schema:
    """:func:`result_columns` as an Arrow schema."""
    return pa.schema([pa.field(n, ARROW_TYPES[t]) for n, t in result_columns(with_instance, with_weight)])


#: Columns that travel only when some row can hold a value; the worker reads an absent one as all
#: nulls. Spark's Arrow transfer of a null nested column costs about as much as the rest of the wire
#: together (measured: an identity ``mapInArrow`` over 500k rows took 5.5 s with both nested ones,
#: 0.9 s without), and every null scalar column still costs its slot in the shuffle and a buffer in
#: the Arrow batches (with :func:`counts_travel`, leaving the scalar ones out took 11% off a plain
#: 10,000-group fresh job and 15% off one with weights: docs/performance.md).
OPTIONAL_COLUMNS = ("owned_partitions", "replica_racks", "weight",
                    "group_instance_id", "rack", "generation", "status", "partition")


def _select(df: DataFrame, values: Dict[str, Column], skip: Set[str]) -> DataFrame:
    """``df`` projected to the wire columns but ``skip``; missing ones are typed nulls."""
    return df.select(*[
        (values[name] if name in values else F.lit(None)).cast(kind).alias(name)
        for name, kind in WIRE_COLUMNS if name not in skip
    ])


#: Up to this many topics given as a dict, their metadata is a map constant in the query plan:
#: no join, hence no broadcast job (a map literal is searched key by key: more are joined).
LITERAL_TOPICS = 100


def with_topic_metadata(rows: DataFrame, topics: DataFrame, counts: Optional[Mapping[str, int]] = None,
                        racks: bool = False) -> DataFrame:
    """``rows`` (with ``topic``, and ``group_id`` when ``topics`` has it) with their topic's metadata.

    Adds ``_num_partitions`` (the smallest count given), ``_metadata_rows``
    (the topic's rows in ``topics``: more than one is an error the worker
    reports) and, with ``racks``, ``_racks`` (the replica racks as JSON, for
    fingerprints); all null for an unknown topic. ``counts``: ``topics`` as
    the checked dict it came from, looked up as a literal map.
    """
    if counts is not None and len(counts) <= LITERAL_TOPICS and "group_id" not in topics.columns:
        known = F.from_json(F.lit(json.dumps(check_topics(counts))), "map<string,int>")   # one literal, folded
        n = F.try_element_at(known, F.col("topic"))
        out = rows.withColumns({"_num_partitions": n,
                                "_metadata_rows": F.when(n.isNotNull(), F.lit(1)).cast("int")})
        return out.withColumn("_racks", F.lit("")) if racks else out
    keys = ["group_id", "topic"] if "group_id" in topics.columns else ["topic"]
    aggs = [F.min("num_partitions").alias("_num_partitions"), F.count(F.lit(1)).cast("int").alias("_metadata_rows")]
    if racks:
        aggs.append((F.to_json(F.first("replica_racks")) if "replica_racks" in topics.columns
                     else F.lit("")).alias("_racks"))
    if "group_id" in topics.columns:
        return rows.join(topics.groupBy(*keys).agg(*aggs), on=keys, how="left")
    # One cluster's topics, broadcast whole to every task: aggregated in one task, without the
    # shuffle stage (one task per shuffle partition) a groupBy would add to every job.
    meta = topics.coalesce(1).groupBy(*keys).agg(*aggs)
    return rows.join(F.broadcast(meta), on=keys, how="left")


def counts_travel(topics: DataFrame, topic_counts: Optional[Mapping[str, int]]) -> bool:
    """Whether the topic metadata travels with the job rather than on the wire's rows: topics
    given as a dict (``topic_counts``, the same for every group). The wire then has no
    ``num_partitions`` or ``metadata_rows`` column, and the caller hands ``topic_counts`` to
    the worker (:func:`.worker.assign_batches`), which looks each row's topic up once per
    distinct name instead of Spark looking it up row by row."""
    return topic_counts is not None and "group_id" not in topics.columns


def weights_travel(weights: Any) -> Optional[pa.Table]:
    """The weight rows that travel with the job rather than on the wire: weights given as a dict
    (the same for every group), as :func:`.inputs.weight_table` rows; None for other weights.

    On the wire, a dict's rows would be copied once per group subscribing to each topic (Spark
    joins them to the groups' topics: a fleet of 100,000 groups on 32 weighted partitions
    ships 3.2 million weight rows through the shuffle). Travelling, they cross once per task, and
    the worker gives each group the rows of the topics it subscribes to
    (:class:`.group_rows.SharedWeights`): the same rows, hence the same weights and errors."""
    return weight_table(weights) if isinstance(weights, Mapping) else None


def append_rows(wire: pa.Table, rows: pa.Table, kind: int) -> pa.Table:
    """``wire`` (a wire Spark collected) followed by ``rows`` (an Arrow table with some wire
    columns) as wire rows of ``kind``: how rows read on the driver join a wire built by Spark.
    A column either has is kept (null where the other lacks it), so rows that carry a column
    the wire left out (:data:`OPTIONAL_COLUMNS`) keep it."""
    fields = [f for f in WIRE_SCHEMA if f.name in wire.column_names or f.name in rows.column_names]
    schema = pa.schema(fields)
    n = rows.num_rows
    head = pa.table([wire_column(wire, f.name).cast(f.type) for f in fields], schema=schema)
    tail = pa.table([pa.array([kind] * n, type=f.type) if f.name == "kind" else wire_column(rows, f.name).cast(f.type)
                     for f in fields], schema=schema)
    return pa.concat_tables([head, tail])


def build_wire(
    subscriptions: DataFrame,
    columns: Dict[str, Column],
    topics: DataFrame,
    previous: Optional[DataFrame],
    with_racks: bool,
    topic_counts: Optional[Mapping[str, int]] = None,
    weights: Optional[DataFrame] = None,
) -> DataFrame:
    """The wire DataFrame for one ``assign_partitions`` call (see the module docstring).

    A column of :data:`OPTIONAL_COLUMNS` is on the wire only if some row can
    hold a value: ``owned_partitions``, ``rack``, ``group_instance_id`` and
    ``generation`` if ``subscriptions`` (or, for the last two, ``previous``)
    has them, ``status`` if ``previous`` has it, ``replica_racks`` only for a
    rack-aware strategy whose metadata has it, ``weight`` only with
    ``weights`` (see :func:`.inputs.weights_frame`), ``partition`` with
    ``previous`` or ``weights``; the worker reads an absent column as all
    nulls. ``topic_counts``: ``topics`` as the dict it was made from; then
    the counts travel with the job (:func:`counts_travel`) and the wire has
    no ``num_partitions`` or ``metadata_rows``.
    """
    racks: Union[bool, DataFrame] = with_racks and "replica_racks" in topics.columns
    given = set(subscriptions.columns) | set(previous.columns if previous is not None else ())
    present = {"owned_partitions": "owned_partitions" in subscriptions.columns, "replica_racks": racks,
               "weight": weights is not None, "group_instance_id": "group_instance_id" in given,
               "rack": "rack" in subscriptions.columns, "generation": "generation" in given,
               "status": previous is not None and "status" in previous.columns,
               "partition": previous is not None or weights is not None}
    skip = {name for name in OPTIONAL_COLUMNS if not present[name]}
    keys = ["group_id", "topic"] if "group_id" in topics.columns else ["topic"]
    subs = subscriptions.select(*[c.alias(n) for n, c in columns.items()])
    values = {n: F.col(n) for n in columns} | {"kind": F.lit(KIND_SUBSCRIPTION)}
    if counts_travel(topics, topic_counts):
        skip |= {"num_partitions", "metadata_rows"}
        joined = subs
    else:   # one metadata row per topic: a duplicated topic is reported by the worker, not joined twice
        joined = with_topic_metadata(subs, topics, topic_counts)
        values |= {"num_partitions": F.col("_num_partitions"), "metadata_rows": F.col("_metadata_rows")}
    parts = [_select(joined, values, skip)]
    if previous is not None:
        prev_cols: Dict[str, Column]
        prev_cols = {n: F.col(n) for n in ("group_id", "member_id", "topic", "generation", "partition")
                     if n in previous.columns}
        for optional in ("status", "group_instance_id"):
            if optional in previous.columns:
                prev_cols[optional] = F.col(optional)
        if "group_id" not in previous.columns:
            prev_cols["group_id"] = F.lit(None)
        parts.append(_select(previous, {**prev_cols, "kind": F.lit(KIND_PREVIOUS)}, skip))
    group_topics = subs.select("group_id", "topic").where(F.col("topic").isNotNull()).distinct()
    if racks:
        racks = topics.select(*keys, "replica_racks").where(F.col("replica_racks").isNotNull())
        joined_racks = group_topics.join(racks, on=keys, how="inner")
        parts.append(_select(joined_racks, {"group_id": F.col("group_id"), "topic": F.col("topic"),
                                            "replica_racks": F.col("replica_racks"),
                                            "kind": F.lit(KIND_RACKS)}, skip))
    if weights is not None:
        # With group_id, a group's own rows (rows of topics it does not subscribe to are ignored by
        # the worker); without, each topic's rows for every group subscribing to it.
        rows = weights if "group_id" in weights.columns else group_topics.join(weights, on="topic", how="inner")
        parts.append(_select(rows, {n: F.col(n) for n in ("group_id", "topic", "partition", "weight")}
                             | {"kind": F.lit(KIND_WEIGHTS)}, skip))
    wire = parts[0]
    for p in parts[1:]:
        wire = wire.unionByName(p)
    return wire

"""A staged rebalance: each generation of a replica table is one safe stage of its cluster's plan.

``ReplicaTable.rebalance(..., max_moves_per_broker=)`` computes each changed
cluster's balanced placement as usual, then cuts the way there into stages
(:func:`~spark_assign.core.replicas.stages.plan_stages`: at most
``max_moves_per_broker`` replicas gained or lost per broker per stage, at most
``max_bytes_per_stage`` copied, the reordering-only stage last) and commits
only the first one: the generation written is the placement the cluster has
once that stage is done. So the table's latest generation is always a
placement the cluster can really be in, and its ``reassignment()`` is that
stage's ``kafka-reassign-partitions`` input.

Per cluster, in one grouped Arrow pass (:func:`first_stage`):

* a partition whose replicas change in the first stage takes its new
  replicas; one that changes in a later stage keeps its previous replicas
  (``status`` ``kept``, its previous ``method`` and ``rack``); partitions
  that do not change, new partitions and new topics take the placement as
  computed (creating a partition moves no data);
* the rows carry ``stage`` (1 for a plan's first generation, the previous
  generation's ``stage`` + 1 while its plan had stages left) and
  ``stages_left`` (the stages planned after this one; 0: done).

A cluster with stages left is *pending* (:class:`~spark_assign.state.layout.Pending`):
the next rebalance recomputes it even when its topics and brokers did not
change, from its latest generation (the stage reached), so the plan goes on
one stage per rebalance. Recomputing, rather than replaying a stored plan,
means a stage that was never executed, or a cluster that changed meanwhile,
costs nothing extra: the next stage starts from what the table says is there
(or from the real placement, ``current=``). A rebalance without
``max_moves_per_broker`` completes a pending plan in one generation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.java.limits import check_count
from ...core.replicas.stages import plan_stages
from ...errors import InvalidInputError
from ...spark.inputs import check_columns
from ...types import ARROW_TYPES

__all__ = ["StageOptions", "first_stage", "unstaged", "SIZE_COLUMNS", "STAGE_COLUMNS"]

#: The columns a staged generation adds to the placement's rows.
STAGE_COLUMNS = [("stage", "int"), ("stages_left", "int")]
#: Partition sizes (``sizes=``): the bytes a copy of the partition moves.
SIZE_COLUMNS = [("cluster_id", "string", False), ("topic", "string", True), ("partition", "int", True),
                ("size_bytes", "int", True)]           # "int": any integral width
#: The rows a placement computes (``placement()``), in order.
_PLACED = [("cluster_id", "string"), ("topic", "string"), ("partition", "int"), ("replica_index", "int"),
           ("broker_id", "int"), ("rack", "string"), ("is_preferred_leader", "boolean"), ("status", "string"),
           ("method", "string"), ("previous_broker_id", "int")]
_OUT = _PLACED + STAGE_COLUMNS
_OUT_DDL = ", ".join(f"{n} {t}" for n, t in _OUT)
#: The previous generation's rows the pass reads (``kind`` 1), and the sizes (``kind`` 2).
_PREVIOUS = ["cluster_id", "topic", "partition", "replica_index", "broker_id", "rack", "method", "stage",
             "stages_left"]
_PLACED_KIND, _PREVIOUS_KIND, _SIZE_KIND = 0, 1, 2


@dataclass(frozen=True)
class StageOptions:
    """A staged rebalance's limits (checked): per broker per stage, per stage in bytes (needs
    ``sizes``), and the partition sizes (rows of :data:`SIZE_COLUMNS`, or None: copies count 0 bytes)."""

    max_moves_per_broker: int
    max_bytes_per_stage: Optional[int] = None
    sizes: Optional[DataFrame] = None

    @classmethod
    def of(cls, max_moves_per_broker: object, max_bytes_per_stage: object, sizes: object) -> Optional["StageOptions"]:
        """The options of ``rebalance``'s arguments (None: not staged), or
        :class:`~spark_assign.errors.InvalidInputError` naming the bad one."""
        if max_moves_per_broker is None:
            for name, value in (("max_bytes_per_stage", max_bytes_per_stage), ("sizes", sizes)):
                if value is not None:
                    raise InvalidInputError(f"{name} applies to a staged rebalance: give max_moves_per_broker too",
                                            column=name)
            return None
        moves = check_count(max_moves_per_broker, "max_moves_per_broker", minimum=1, maximum=None)
        most = None if max_bytes_per_stage is None else \
            check_count(max_bytes_per_stage, "max_bytes_per_stage", minimum=1, maximum=None)
        if sizes is not None:
            if not isinstance(sizes, DataFrame):
                raise InvalidInputError(f"sizes must be a DataFrame, got {type(sizes).__name__}", column="sizes")
            check_columns(sizes, "sizes", SIZE_COLUMNS)
        elif max_bytes_per_stage is not None:
            raise InvalidInputError("max_bytes_per_stage counts bytes: give sizes (topic, partition, size_bytes)",
                                    column="max_bytes_per_stage", rows=[max_bytes_per_stage])
        return cls(moves, most, sizes)


def unstaged(placed: DataFrame) -> DataFrame:
    """``placed`` with null ``stage`` and ``stages_left``: a plan done in one generation."""
    for name, kind in STAGE_COLUMNS:
        placed = placed.withColumn(name, F.lit(None).cast(kind))
    return placed


def first_stage(placed: DataFrame, previous: Optional[DataFrame], options: StageOptions) -> DataFrame:
    """The rows of each cluster of ``placed`` once the first stage of its way from ``previous``
    is done (module docstring): one grouped Arrow pass. Lazy: no job.

    ``placed``: ``placement()``'s rows; ``previous``: the clusters' latest rows (columns
    ``_PREVIOUS``; None: no cluster has one). Example::

        rows = first_stage(placement(topics, brokers, latest, settings), latest, StageOptions(5))
    """
    wire = placed.select(*[F.col(n).cast(t) for n, t in _PLACED], F.lit(None).cast("int").alias("stage"),
                         F.lit(None).cast("int").alias("stages_left"), F.lit(None).cast("long").alias("size_bytes"),
                         F.lit(_PLACED_KIND).alias("kind"))
    if previous is not None:
        wire = wire.unionByName(previous.select(
            *[F.col(n) for n in _PREVIOUS], F.lit(None).cast("boolean").alias("is_preferred_leader"),
            F.lit(None).cast("string").alias("status"), F.lit(None).cast("int").alias("previous_broker_id"),
            F.lit(None).cast("long").alias("size_bytes"), F.lit(_PREVIOUS_KIND).alias("kind")))
    if options.sizes is not None:
        sizes = options.sizes
        if "cluster_id" not in sizes.columns:
            sizes = sizes.withColumn("cluster_id", F.lit("default"))
        null = {n: F.lit(None).cast(t) for n, t in _OUT if n not in ("cluster_id", "topic", "partition")}
        wire = wire.unionByName(sizes.select(
            F.col("cluster_id").cast("string"), F.col("topic").cast("string"), F.col("partition").cast("int"),
            *[c.alias(n) for n, c in null.items()], F.col("size_bytes").cast("long"),
            F.lit(_SIZE_KIND).alias("kind")))
    cap, max_bytes = options.max_moves_per_broker, options.max_bytes_per_stage

    def stage_one(table: pa.Table) -> pa.Table:
        try:
            return cluster_first_stage(table, cap, max_bytes)
        except InvalidInputError as e:              # the driver raises it again, naming the cluster
            raise e.in_group(table.column("cluster_id")[0].as_py()).for_driver() from None

    return wire.groupBy("cluster_id").applyInArrow(stage_one, _OUT_DDL)


def cluster_first_stage(table: pa.Table, cap: int, max_bytes: Optional[int]) -> pa.Table:
    """One cluster's wire rows (:func:`first_stage`) to its first stage's rows (``_OUT`` columns)."""
    kind = table.column("kind").to_numpy()
    new, old = table.filter(pa.array(kind == _PLACED_KIND)), table.filter(pa.array(kind == _PREVIOUS_KIND))
    sized = table.filter(pa.array(kind == _SIZE_KIND))
    names = np.unique(np.asarray(new.column("topic").to_pylist(), dtype=object)) if new.num_rows else np.array([])
    topic_new = _topic_index(new, names)
    count = np.zeros(len(names), dtype=np.int64)
    width = np.zeros(len(names), dtype=np.int64)
    p_new, i_new = _ints(new, "partition"), _ints(new, "replica_index")
    np.maximum.at(count, topic_new, p_new + 1)
    np.maximum.at(width, topic_new, i_new + 1)
    topic_old = _topic_index(old, names)            # -1: a topic gone from the placement
    p_old, i_old = _ints(old, "partition"), _ints(old, "replica_index")
    known = (topic_old >= 0) & (p_old < count[np.maximum(topic_old, 0)])
    old_width = np.zeros(len(names), dtype=np.int64)
    np.maximum.at(old_width, topic_old[known], i_old[known] + 1)
    after = _matrices(topic_new, p_new, i_new, _ints(new, "broker_id"), count, width)
    before = _matrices(topic_old[known], p_old[known], i_old[known], _ints(old, "broker_id")[known], count,
                       np.maximum(old_width, 1))
    sizes = _sizes(sized, names, count)
    plan = plan_stages(before, after, sizes, cap, max_bytes)
    later = plan.stage > 0
    key_later = _keys(plan.topic[later].astype(np.int64), plan.partition[later].astype(np.int64))
    stays = np.isin(_keys(topic_old, p_old), key_later) & (topic_old >= 0)
    moves_now = ~np.isin(_keys(topic_new, p_new), key_later)
    was_pending = old.num_rows > 0 and (old.column("stages_left").to_numpy(zero_copy_only=False) > 0).any()
    before_stage = int(pc.max(old.column("stage")).as_py() or 0) if was_pending else 0
    stage = before_stage + 1
    stages_left = max(len(plan.stages) - 1, 0)
    taken = new.filter(pa.array(moves_now))
    kept = old.filter(pa.array(stays))
    kept = kept.set_column(kept.schema.get_field_index("status"), "status",
                           pa.array(["kept"] * kept.num_rows, pa.string()))
    kept = kept.set_column(kept.schema.get_field_index("previous_broker_id"), "previous_broker_id",
                           kept.column("broker_id"))
    kept = kept.set_column(kept.schema.get_field_index("is_preferred_leader"), "is_preferred_leader",
                           pc.equal(kept.column("replica_index"), 0))
    rows = pa.concat_tables([taken, kept])
    columns = {n: rows.column(n).cast(ARROW_TYPES[t]) for n, t in _PLACED}
    columns["stage"] = pa.array(np.full(rows.num_rows, stage, dtype=np.int32))
    columns["stages_left"] = pa.array(np.full(rows.num_rows, stages_left, dtype=np.int32))
    return pa.table(columns)


def _ints(rows: pa.Table, name: str) -> np.ndarray:
    return rows.column(name).to_numpy(zero_copy_only=False).astype(np.int64)


def _topic_index(rows: pa.Table, names: np.ndarray) -> np.ndarray:
    """Each row's topic as an index into the sorted ``names`` (-1: not among them)."""
    if rows.num_rows == 0:
        return np.zeros(0, dtype=np.int64)
    topics = np.asarray(rows.column("topic").to_pylist(), dtype=object)
    if len(names) == 0:
        return np.full(len(topics), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(names, topics), len(names) - 1)
    return np.where(names[at] == topics, at, -1).astype(np.int64)


def _keys(topic: np.ndarray, partition: np.ndarray) -> np.ndarray:
    """One int64 per (topic index, partition): Kafka partitions are below 2^31."""
    return topic.astype(np.int64) << 32 | partition.astype(np.int64)


def _matrices(topic: np.ndarray, partition: np.ndarray, index: np.ndarray, broker: np.ndarray,
              count: np.ndarray, width: np.ndarray) -> List[np.ndarray]:
    """Per topic, its ``(count, width)`` broker ids (-1 where no row): the rows sorted once, cut per topic."""
    order = np.argsort(topic, kind="stable")
    bounds = np.searchsorted(topic[order], np.arange(len(count) + 1))
    out = []
    for t in range(len(count)):
        at = order[bounds[t]:bounds[t + 1]]
        m = np.full((int(count[t]), int(width[t])), -1, dtype=np.int64)
        m[partition[at], index[at]] = broker[at]
        out.append(m)
    return out


def _sizes(rows: pa.Table, names: np.ndarray, count: np.ndarray) -> Optional[List[Optional[np.ndarray]]]:
    """Per topic, each partition's size (0 where none is given), or None without any size row."""
    if rows.num_rows == 0:
        return None
    topic, partition = _topic_index(rows, names), _ints(rows, "partition")
    size = rows.column("size_bytes").to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~(size >= 0))              # a null size reads as NaN
    if len(bad):
        raise InvalidInputError("sizes: size_bytes must be a non-negative number of bytes", column="size_bytes",
                                rows=[(rows.column("topic")[int(i)].as_py(), int(partition[i])) for i in bad[:5]])
    out: List[Optional[np.ndarray]] = [np.zeros(int(c), dtype=np.int64) for c in count]
    ok = (topic >= 0) & (partition >= 0) & (partition < count[np.maximum(topic, 0)])
    for t, p, s in zip(topic[ok].tolist(), partition[ok].tolist(), size[ok].tolist()):
        out[t][p] = int(s)                          # type: ignore[index]
    return out

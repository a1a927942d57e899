"""What a rebalance recomputes, and what it leaves behind: fingerprints, the plan, the outcome, the heads.

The driver-side bookkeeping of :meth:`AssignmentTable.rebalance`, kept small
in Spark jobs:

* :func:`fingerprints` hashes each group's inputs (one aggregation, the only
  pass over all subscriptions);
* :func:`plan` compares them with the heads and brings the *changed* groups
  to the driver (id, fingerprint, head) with the fleet's group count, in one
  job. Every later step joins against that list as a local relation (no
  Spark job to broadcast it), reads only the partitions holding those
  groups' latest generations, and needs no further count;
* :class:`Outcome` is what the written generation holds per group (its new
  generation, a pending transfer) and the status counts; the embedded
  engine's file-writing tasks report it, so it costs no job of its own;
* :func:`changed_heads` builds the changed groups' heads on the driver; the next
  heads are the old heads of the other groups plus those, one small file,
  written by the driver with Arrow for a local table
  (:func:`write_heads_locally`, no Spark job) or by Spark (:func:`new_heads`).
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..errors import InvalidInputError
from ..schema import STATUSES
from .layout import HEADS_COLUMNS, PARTITION_COLUMN, arrow_schema, spark_ddl

__all__ = ["ChangedGroup", "Plan", "Outcome", "fingerprints", "plan", "outcome_of", "local_frame", "only_groups",
           "only_heads", "with_fingerprints", "changed_heads", "new_heads", "write_heads_locally"]


#: Up to this many groups, selecting them is a literal filter in the query plan (nothing to
#: broadcast: no job); more are joined as a broadcast local relation.
LITERAL_GROUPS = 1000
#: The topic metadata a fingerprint hashes, per topic.
META_COLUMNS = [("topic", "string"), ("_n", "int"), ("_rows", "bigint"), ("_racks", "string")]


@dataclass(frozen=True)
class ChangedGroup:
    """A group to recompute: its input fingerprint, partitions (an estimate of its rows) and head
    (latest generation, the ``commit_version`` holding it, its fingerprint; None for a new group)."""

    fingerprint: str
    partitions: int
    generation: Optional[int]
    commit_version: Optional[int]
    head_fingerprint: Optional[str]

    @property
    def head(self) -> Tuple[Optional[int], Optional[int], Optional[str]]:
        return self.generation, self.commit_version, self.head_fingerprint


@dataclass
class Plan:
    """The groups of one attempt: how many the input has, and the changed ones by id."""

    groups: int
    changed: Dict[str, ChangedGroup]

    @property
    def everything(self) -> bool:
        """Every group of the input changed (first run, new strategy, ``force``): nothing to filter."""
        return len(self.changed) == self.groups

    @property
    def rows(self) -> int:
        """Rows the new generation will have (one per partition of each subscribed topic)."""
        return sum(c.partitions for c in self.changed.values())


@dataclass
class Outcome:
    """Per written group ``(generation, pending)``, and the rows per status."""

    groups: Dict[str, Tuple[int, bool]] = field(default_factory=dict)
    counts: Dict[str, int] = field(default_factory=lambda: {s: 0 for s in STATUSES})

    def add(self, groups: Dict[str, Sequence], counts: Dict[str, int]) -> None:
        """Merge one file's report (a group split over two files is merged too)."""
        for g, (gen, pending) in groups.items():
            old = self.groups.get(g)
            self.groups[g] = (int(gen), bool(pending)) if old is None else \
                (max(old[0], int(gen)), old[1] or bool(pending))
        for s in STATUSES:
            self.counts[s] += int(counts.get(s, 0))

    def add_json(self, groups: str, counts: str) -> None:
        self.add(json.loads(groups), json.loads(counts))


def fingerprints(subscriptions: DataFrame, topics: DataFrame, strategy: str,
                 topic_counts: Optional[Mapping[str, int]] = None) -> DataFrame:
    """``(group_id, input_fingerprint, partitions)``: a hash of everything the group's assignment
    depends on, and the partitions of its subscribed topics (the rows a new generation has).

    ``topic_counts``: the topics as a checked dict, when given so: their metadata is then a
    local relation (the same values the aggregation of ``topics`` would give, without its jobs).
    """
    per_group_topics = "group_id" in topics.columns
    keys = ["group_id", "topic"] if per_group_topics else ["topic"]
    if topic_counts is not None:
        meta = local_frame(topics.sparkSession, META_COLUMNS,
                           {"topic": list(topic_counts), "_n": list(topic_counts.values()),
                            "_rows": [1] * len(topic_counts), "_racks": [""] * len(topic_counts)})
    else:
        meta = topics.groupBy(*keys).agg(
            F.min("num_partitions").alias("_n"),
            F.count(F.lit(1)).alias("_rows"),
            (F.to_json(F.first("replica_racks")) if "replica_racks" in topics.columns else F.lit("")).alias("_racks"))
    cols = {c: (F.col(c).cast("string") if c in subscriptions.columns else F.lit(""))
            for c in ("member_id", "topic", "group_instance_id", "rack", "generation")}
    owned = (F.array_join(F.array_sort(F.col("owned_partitions")).cast("array<string>"), ",")
             if "owned_partitions" in subscriptions.columns else F.lit(""))
    row = F.concat_ws("\u001f", *[F.coalesce(c, F.lit("\u2400")) for c in cols.values()],
                      F.coalesce(owned, F.lit("\u2400")), F.coalesce(F.col("_n").cast("string"), F.lit("?")),
                      F.col("_rows").cast("string"), F.coalesce(F.col("_racks"), F.lit("")))
    joined = subscriptions.join(F.broadcast(meta) if not per_group_topics else meta, on=keys, how="left")
    topic_sizes = F.array_distinct(F.collect_list(F.struct(F.col("topic"), F.col("_n"))))
    return joined.groupBy("group_id").agg(
        F.sha2(F.concat_ws("\u001e", F.lit(strategy), F.array_join(F.sort_array(F.collect_list(row)), "\u001e")),
               256).alias("input_fingerprint"),
        F.aggregate(topic_sizes, F.lit(0).cast("long"),
                    lambda acc, t: acc + F.greatest(F.coalesce(t["_n"], F.lit(0)), F.lit(0))).alias("partitions"))


def plan(fingerprints: DataFrame, heads: DataFrame, strategy: str, force: bool) -> Plan:
    """The groups to recompute, in one Spark job: new ones, those whose fingerprint or strategy
    changed, those waiting for a cooperative transfer, or all when ``force``."""
    h = heads.select("group_id", F.col("input_fingerprint").alias("_fp"), F.col("pending").alias("_pending"),
                     F.col("strategy").alias("_strategy"), F.col("generation").alias("_generation"),
                     F.col(PARTITION_COLUMN).alias("_commit"))
    j = fingerprints.join(h, "group_id", "left")
    changed = (F.lit(force) | F.col("_fp").isNull() | (F.col("_fp") != F.col("input_fingerprint")) |
               F.coalesce(F.col("_pending"), F.lit(False)) | (F.col("_strategy") != F.lit(strategy)))
    entry = F.struct("group_id", "input_fingerprint", "partitions", "_generation", "_commit", "_fp")
    row = j.agg(F.count(F.lit(1)).alias("groups"),
                F.collect_list(F.when(F.coalesce(changed, F.lit(True)), entry)).alias("changed")).first()
    out: Dict[str, ChangedGroup] = {}
    for e in row["changed"] or []:
        if e[0] is None:
            raise InvalidInputError("null group_id", column="group_id")
        out[e[0]] = ChangedGroup(e[1], int(e[2] or 0), e[3], e[4], e[5])
    return Plan(int(row["groups"]), out)


def local_frame(spark, columns: List[Tuple[str, str]], data: Dict[str, list]) -> DataFrame:
    """A DataFrame of driver-side data, as a local relation (from Arrow): joining or broadcasting
    it runs no Spark job, and its size is known to the optimizer."""
    schema = arrow_schema(columns)
    table = pa.table({n: pa.array(data[n], type=schema.field(n).type) for n in schema.names}, schema=schema)
    # The DDL too: Spark Connect cannot infer a schema from an empty table.
    return spark.createDataFrame(table, schema=spark_ddl(columns))


def _ids_frame(spark, ids: Sequence[str]) -> DataFrame:
    return local_frame(spark, [("group_id", "string")], {"group_id": list(ids)})


def only_groups(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """The rows of ``df`` of the groups ``ids``: a literal ``IN`` filter for a few groups (no job,
    pushed into scans), a broadcast semi-join of a local relation for many."""
    if len(ids) <= LITERAL_GROUPS:
        return df.where(F.col("group_id").isin(list(ids)))
    return df.join(F.broadcast(_ids_frame(df.sparkSession, ids)), "group_id", "left_semi")


def only_heads(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """The rows of ``df`` in the latest generation of the groups ``ids`` (those that have one)."""
    keep = [g for g in ids if p.changed[g].generation is not None]
    if len(keep) <= LITERAL_GROUPS:
        if not keep:
            return df.where(F.lit(False))
        generation = F.try_element_at(F.create_map(*[F.lit(x) for g in keep for x in (g, p.changed[g].generation)]),
                                      F.col("group_id"))
        return df.where(F.col("group_id").isin(keep) & (F.col("generation") == generation))
    heads = local_frame(df.sparkSession, [("group_id", "string"), ("generation", "int")],
                        {"group_id": keep, "generation": [p.changed[g].generation for g in keep]})
    return df.join(F.broadcast(heads), ["group_id", "generation"], "left_semi")


def with_fingerprints(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """``df`` (rows of the groups ``ids`` only) with each group's ``input_fingerprint``."""
    if len(ids) <= LITERAL_GROUPS:
        lookup = F.create_map(*[F.lit(x) for g in ids for x in (g, p.changed[g].fingerprint)])
        return df.withColumn("input_fingerprint", F.try_element_at(lookup, F.col("group_id")))
    fps = local_frame(df.sparkSession, [("group_id", "string"), ("input_fingerprint", "string")],
                      {"group_id": list(ids), "input_fingerprint": [p.changed[g].fingerprint for g in ids]})
    return df.join(F.broadcast(fps), "group_id")


def outcome_of(rows: DataFrame) -> Outcome:
    """The :class:`Outcome` of ``rows`` computed by Spark (for engines whose writers do not report it)."""
    per_group = rows.groupBy("group_id").agg(
        F.max("generation").alias("generation"), F.max(F.col("member_id").isNull()).alias("pending"),
        *[F.sum((F.col("status") == s).cast("long")).alias(s) for s in STATUSES]).collect()
    out = Outcome()
    for r in per_group:
        out.add({r["group_id"]: (r["generation"], r["pending"])}, {s: r[s] or 0 for s in STATUSES})
    return out


def changed_heads(p: Plan, outcome: Outcome, version: int, strategy: str) -> pa.Table:
    """The changed groups' heads at ``version`` (Arrow, built on the driver).

    A changed group without partitions keeps its generation; its fingerprint is still recorded.
    """
    data: Dict[str, list] = {n: [] for n, _ in HEADS_COLUMNS}
    for g, c in p.changed.items():
        written = outcome.groups.get(g)
        data["group_id"].append(g)
        data["generation"].append(written[0] if written else (c.generation or 0))
        data[PARTITION_COLUMN].append(version if written or c.commit_version is None else c.commit_version)
        data["strategy"].append(strategy)
        data["input_fingerprint"].append(c.fingerprint)
        data["pending"].append(bool(written and written[1]))
    return pa.table(data, schema=arrow_schema(HEADS_COLUMNS))


def new_heads(spark, heads: DataFrame, updated: pa.Table) -> DataFrame:
    """The next heads in Spark: ``heads`` of the groups not in ``updated``, then ``updated``."""
    ids = updated.column("group_id").to_pylist()
    unchanged = heads.where(~F.col("group_id").isin(ids)) if len(ids) <= LITERAL_GROUPS else \
        heads.join(F.broadcast(_ids_frame(spark, ids)), "group_id", "left_anti")
    return unchanged.unionByName(spark.createDataFrame(updated, schema=spark_ddl(HEADS_COLUMNS)))


def write_heads_locally(old: Optional[str], new: str, updated: pa.Table) -> None:
    """The next heads, written by the driver with Arrow (tables on a local filesystem): the heads
    directory ``old`` (None: no heads yet) without the groups of ``updated``, then ``updated``,
    as one Parquet file in the new directory ``new``. No Spark job; Spark reads it as any heads."""
    parts = []
    if old is not None:
        before = pq.read_table(old, schema=arrow_schema(HEADS_COLUMNS))
        moved = pc.is_in(before.column("group_id"), value_set=updated.column("group_id"))
        parts.append(before.filter(pc.invert(moved)))
    parts.append(updated)
    os.makedirs(new, exist_ok=True)
    temp = os.path.join(new, f".part-{uuid.uuid4().hex}.parquet")        # hidden from readers until renamed
    pq.write_table(pa.concat_tables(parts), temp, compression="snappy")
    os.replace(temp, os.path.join(new, f"part-00000-{uuid.uuid4().hex}.snappy.parquet"))

"""What a rebalance recomputes, and what it leaves behind: fingerprints, the plan, the outcome, the heads.

The driver-side bookkeeping of :meth:`AssignmentTable.rebalance`, kept small
in Spark jobs:

* :func:`plan` hashes each group's inputs (the only pass over all
  subscriptions), compares them with the heads and brings the *changed*
  groups to the driver (id, fingerprint, head) with the fleet's group count,
  in one query. Every later step selects those groups with constants in the
  query plan (no Spark job to broadcast them; a broadcast join past
  :data:`LITERAL_GROUPS`), reads only the partitions holding their latest
  generations, and needs no further count;
* :class:`Outcome` is what the written generation holds per group (its new
  generation, a pending transfer) and the status counts; the embedded
  engine's file-writing tasks report it, so it costs no job of its own;
* the heads the next version gets from the plan and the outcome are built in
  :mod:`.heads`.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from ..errors import EmptyInputWarning, InvalidInputError, MissingTopicWarning
from ..schema import STATUSES
from ..spark.inputs import local_frame
from ..spark.wire import with_topic_metadata
from .layout import PARTITION_COLUMN

__all__ = ["ChangedGroup", "Plan", "Outcome", "plan", "outcome_of", "only_groups", "only_heads",
           "with_fingerprints", "in_groups", "ids_frame", "summary_of", "warn_about_input", "LITERAL_GROUPS"]


#: Up to this many groups, selecting them is an ``IN`` list in the query plan, which Spark
#: evaluates as a hash set (nothing to broadcast: no job); more are joined as a broadcast
#: local relation. Per-group values (fingerprints) are a map constant up to LOOKUP_GROUPS:
#: a map literal is searched key by key.
LITERAL_GROUPS = 5000
LOOKUP_GROUPS = 100


@dataclass(frozen=True)
class ChangedGroup:
    """A group to recompute: its input fingerprint, partitions (no fewer than its new rows, see
    :func:`plan`) and head (latest generation, the ``commit_version`` holding it, its
    fingerprint; None for a new group; ``empty``: the group was left without partitions at that
    version, its rows are older)."""

    fingerprint: str
    partitions: int
    generation: Optional[int]
    commit_version: Optional[int]
    head_fingerprint: Optional[str]
    empty: bool = False


@dataclass
class Plan:
    """The groups of one attempt: how many the input has, and the changed ones by id; how many
    groups subscribe to topics the metadata lacks or gives 0 partitions, and up to 5 of those topics."""

    groups: int
    changed: Dict[str, ChangedGroup]
    missing_groups: int = 0
    missing_topics: List[str] = field(default_factory=list)

    @property
    def everything(self) -> bool:
        """Every group of the input changed (first run, new strategy, ``force``): nothing to filter."""
        return len(self.changed) == self.groups

    @property
    def rows(self) -> int:
        """At least the rows the new generation will have (one per partition of each subscribed
        topic; see :func:`plan`)."""
        return sum(c.partitions for c in self.changed.values())

    def latest(self, ids: Sequence[str]) -> Dict[str, int]:
        """The groups of ``ids`` whose latest generation has rows, and that generation."""
        return {g: c.generation for g in ids
                for c in (self.changed[g],) if c.generation is not None and not c.empty}

    def emptied(self, ids: Sequence[str]) -> Dict[str, int]:
        """The groups of ``ids`` left without partitions (see :func:`changed_heads`), and the
        generation number they stopped at, which the next one follows."""
        return {g: c.generation for g in ids for c in (self.changed[g],) if c.empty and c.generation}


@dataclass
class Outcome:
    """Per written group ``(generation, pending)``, and the rows per status."""

    groups: Dict[str, Tuple[int, bool]] = field(default_factory=dict)
    counts: Dict[str, int] = field(default_factory=lambda: {s: 0 for s in STATUSES})

    def add(self, groups: Mapping[str, Sequence], counts: Mapping[str, int]) -> None:
        """Merge one file's report (a group split over two files is merged too)."""
        for g, (gen, pending) in groups.items():
            old = self.groups.get(g)
            self.groups[g] = (int(gen), bool(pending)) if old is None else \
                (max(old[0], int(gen)), old[1] or bool(pending))
        for s in STATUSES:
            self.counts[s] += int(counts.get(s, 0))

    def add_json(self, groups: str, counts: str) -> None:
        self.add(json.loads(groups), json.loads(counts))

    def add_arrow(self, rows: pa.Table) -> None:
        """Add rows of the state table: per group its generation and whether a partition is
        unowned (a pending transfer), and rows per status."""
        per_group = rows.group_by("group_id").aggregate([
            ("generation", "max"), ("member_id", "count", pc.CountOptions(mode="only_null"))])
        groups = {g: (gen, unowned > 0) for g, gen, unowned in zip(
            per_group.column("group_id").to_pylist(), per_group.column("generation_max").to_pylist(),
            per_group.column("member_id_count").to_pylist())}
        counts = pc.value_counts(rows.column("status"))
        self.add(groups, dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist())))


def plan(subscriptions: DataFrame, topics: DataFrame, heads: DataFrame, strategy: str, force: bool,
         topic_counts: Optional[Mapping[str, int]] = None, key: Optional[str] = None) -> Plan:
    """The groups to recompute: new ones, those whose input fingerprint or strategy changed,
    those waiting for a cooperative transfer, or all when ``force``.

    One query, two Spark jobs (a shuffle by group, then the collect): each
    subscription row is hashed where it is read, the hashes are summed per
    group with the group's head beside them (a union, not a join: no
    broadcast), and only the changed groups reach the driver; the fleet's
    group count is observed on the way. Sums of hashes need no sort and are
    partly aggregated before the shuffle.

    ``partitions`` (the rows a group's new generation will have) is bounded
    from above: the sum, over the group's subscription rows, of the topic's
    partitions (exact when each topic has one subscriber; at most the member
    count times too high). It sizes the work: the driver path, tasks, files.

    A group's fingerprint covers everything its assignment depends on: per
    subscription row the member, topic, static id, rack, claimed partitions
    and claim generation, the topic's partition count, metadata rows and
    replica racks; plus the strategy. It is a multiset hash: each row's text
    is hashed twice (xxhash64 with two prefixes), the four 32-bit halves are
    summed over the group's rows (no overflow below 2^31 rows a group), and
    the sums, the row count and the strategy are hashed with SHA-256. Row
    order does not matter; a changed, added, removed or repeated row changes
    it (up to a 2^-128 chance). ``topic_counts``: the topics as a checked
    dict, when given so (see :func:`~spark_assign.spark.wire.with_topic_metadata`).
    ``key``: what the fingerprint hashes for the strategy (default its name; the
    load-aware strategies add their knobs, see :func:`.load.fingerprint_key`). Weights
    are not in it: they change every run (see :mod:`.load`).
    """
    # Written as SQL text: one call into the JVM per expression instead of one per function.
    present = set(subscriptions.columns)
    fields = [f"coalesce(cast(`{c}` AS string), '{NULL_MARK}')" if c in present else "''"
              for c in ("member_id", "topic", "group_instance_id", "rack", "generation")]
    fields.append(f"coalesce(array_join(cast(array_sort(owned_partitions) AS array<string>), ','), '{NULL_MARK}')"
                  if "owned_partitions" in present else "''")
    fields += ["coalesce(cast(_num_partitions AS string), '?')", "cast(_metadata_rows AS string)",
               "coalesce(_racks, '')"]
    text = f"concat_ws('{FIELD_SEP}', {', '.join(fields)})"
    inputs = with_topic_metadata(subscriptions, topics, topic_counts, racks=True).selectExpr(
        "group_id", "greatest(coalesce(_num_partitions, 0), 0) AS _n",
        # missing: no count, or 0 (a negative count is an input error, raised by the compute stage)
        "CASE WHEN topic IS NOT NULL AND coalesce(_num_partitions, 0) = 0 THEN topic END AS _missing",
        *[f"{half.format(f'xxhash64({seed}, {text})')} AS {lane}" for (seed, half), lane in zip(_HALVES, _LANES)],
        *[f"CAST(NULL AS {t}) AS {n}" for n, t in _HEAD])
    held = heads.selectExpr("group_id", "CAST(NULL AS int) AS _n", "CAST(NULL AS string) AS _missing",
                            *[f"CAST(NULL AS bigint) AS {lane}" for lane in _LANES],
                            *[f"`{c}` AS {n}" for (n, _), c in zip(_HEAD, _HEAD_SOURCES)])
    sums = ", ".join([f"sum({lane})" for lane in _LANES] + [f"count({_LANES[0]})"])
    groups = inputs.unionByName(held).groupBy("group_id").agg(*[F.expr(e) for e in [
        f"count({_LANES[0]}) AS _rows",
        f"sha2(concat_ws(':', '{key or strategy}', {sums}), 256) AS input_fingerprint",
        "coalesce(sum(_n), 0) AS partitions",
        "max(_missing) AS _missing",
        *[f"max({n}) AS {n}" for n, _ in _HEAD]]])
    observed = Observation("spark_assign_plan")
    groups = groups.where("_rows > 0").observe(
        observed, F.expr("count(1) AS groups"), F.expr("count(_missing) AS missing_groups"),
        F.expr("slice(array_sort(collect_set(_missing)), 1, 5) AS missing_topics"))
    changed = (f"{str(bool(force)).lower()} OR _fp IS NULL OR _fp != input_fingerprint"
               f" OR coalesce(_pending, false) OR _strategy != '{strategy}'")
    rows = groups.where(f"coalesce({changed}, true)").select(
        "group_id", "input_fingerprint", "partitions", "_generation", "_commit", "_fp", "_empty").collect()
    out: Dict[str, ChangedGroup] = {}
    for e in rows:
        if e[0] is None:
            raise InvalidInputError("null group_id", column="group_id")
        out[e[0]] = ChangedGroup(e[1], int(e[2] or 0), e[3], e[4], e[5], bool(e[6]))
    metrics = observed.get
    return Plan(int(metrics["groups"]), out, int(metrics["missing_groups"]), list(metrics["missing_topics"] or []))


#: What the plan takes from a group's head: (name in the plan, type), and the heads column.
_HEAD = [("_fp", "string"), ("_pending", "boolean"), ("_strategy", "string"), ("_generation", "int"),
         ("_commit", "bigint"), ("_empty", "boolean")]
_HEAD_SOURCES = ["input_fingerprint", "pending", "strategy", "generation", PARTITION_COLUMN, "empty"]
#: The separator of a subscription row's fields in its fingerprint text, and a null field's text.
FIELD_SEP, NULL_MARK = "\u001f", "\u2400"
#: A row's four hash lanes: the low and high 32 bits of two xxhash64 of its text.
_LANES = ["_h1", "_h2", "_h3", "_h4"]
_HALVES = [(1, "{} & 4294967295"), (1, "shiftrightunsigned({}, 32)"),
           (2, "{} & 4294967295"), (2, "shiftrightunsigned({}, 32)")]


def ids_frame(spark, ids: Sequence[str]) -> DataFrame:
    """``ids`` as a one-column local relation ``group_id`` (joined or broadcast without a job)."""
    return local_frame(spark, [("group_id", "string")], {"group_id": list(ids)})


def _string(value: str) -> str:
    """``value`` as a SQL string literal, hex-encoded: any text is safe in it."""
    return f"CAST(X'{value.encode('utf-8').hex()}' AS STRING)"


def in_groups(ids: Sequence[str]) -> str:
    """SQL: ``group_id`` is one of ``ids`` (Spark evaluates a long ``IN`` list as a hash set)."""
    return f"group_id IN ({', '.join(_string(g) for g in ids)})"


def only_groups(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """The rows of ``df`` of the groups ``ids``: an ``IN`` filter for a few thousand groups (one
    SQL expression, which Spark turns into a hash set; no job), a broadcast semi-join beyond."""
    if not ids:
        return df.where(F.lit(False))
    if len(ids) <= LITERAL_GROUPS:
        return df.where(F.expr(in_groups(ids)))
    return df.join(F.broadcast(ids_frame(df.sparkSession, ids)), "group_id", "left_semi")


def only_heads(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """The rows of ``df`` in the latest generation of the groups ``ids`` (those that have one)."""
    keep = p.latest(ids)
    if not keep:
        return df.where(F.lit(False))
    if len(keep) <= LITERAL_GROUPS:
        pairs = ", ".join(f"named_struct('g', {_string(g)}, 'n', {int(n)})" for g, n in keep.items())
        return df.where(F.expr(f"named_struct('g', group_id, 'n', generation) IN ({pairs})"))
    heads = local_frame(df.sparkSession, [("group_id", "string"), ("generation", "int")],
                        {"group_id": list(keep), "generation": list(keep.values())})
    return df.join(F.broadcast(heads), ["group_id", "generation"], "left_semi")


def with_fingerprints(df: DataFrame, p: Plan, ids: Sequence[str]) -> DataFrame:
    """``df`` (rows of the groups ``ids`` only) with each group's ``input_fingerprint``: a map
    constant for a few groups (a lookup in a map literal scans its keys), a broadcast join beyond."""
    if len(ids) <= LOOKUP_GROUPS:
        lookup = F.from_json(F.lit(json.dumps({g: p.changed[g].fingerprint for g in ids})), "map<string,string>")
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


def summary_of(outcome: Outcome, todo: Plan, attempt: int, warned: int) -> Dict[str, int]:
    """A committed rebalance's summary counts (see :class:`~spark_assign.state.Rebalance`)."""
    counts = outcome.counts
    return {"groups_recomputed": len(todo.changed), "groups_unchanged": todo.groups - len(todo.changed),
            "partitions_moved": counts["moved"], "revoked": counts["revoked"],
            "assigned": counts["assigned"], "new": counts["new"], "kept": counts["kept"],
            "attempts": attempt, "groups_with_missing_topics": todo.missing_groups, "warnings": warned}


def warn_about_input(todo: Plan, location: str) -> int:
    """Warn about likely mistakes that Kafka allows (see :mod:`spark_assign.errors`); the number
    of warnings given: an :class:`~spark_assign.errors.EmptyInputWarning` for subscriptions
    without rows, a :class:`~spark_assign.errors.MissingTopicWarning` for groups subscribing to
    topics the metadata lacks or gives 0 partitions."""
    if todo.groups == 0:
        warnings.warn(EmptyInputWarning(f"the subscriptions have no rows: nothing to assign, {location} "
                                        "is left as it was"), stacklevel=4)
        return 1
    if not todo.missing_groups:
        return 0
    shown = ", ".join(map(repr, todo.missing_topics)) + (" ..." if len(todo.missing_topics) == 5 else "")
    warnings.warn(MissingTopicWarning(
        f"{todo.missing_groups} of {todo.groups} groups subscribe to topics missing from the metadata or with "
        f"0 partitions, which get no partitions: {shown}"), stacklevel=4)
    return 1

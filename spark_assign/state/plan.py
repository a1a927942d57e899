"""What a rebalance recomputes, and what it leaves behind: fingerprints, the plan, the outcome, the heads.

The driver-side bookkeeping both state tables share, kept small in Spark
jobs. Each table kind hashes its own input rows (an assignment table's
subscriptions in :func:`.consumer.changes.plan`, a replica table's clusters in
:mod:`.replicas.table`); what follows is the same for every kind:

* :func:`changed_units` takes one text per input row, compares each unit's
  fingerprint with its head and brings the *changed* units to the driver
  (id, fingerprint, head) with the fleet's unit count, in one query. Every
  later step selects those units with constants in the query plan (no Spark
  job to broadcast them; a broadcast join past :data:`LITERAL_GROUPS`), reads
  only the partitions holding their latest generations, and needs no
  further count;
* :class:`Outcome` is what the written generation holds per unit (its new
  generation, a pending transfer) and the status counts; the embedded
  engine's file-writing tasks report it, so it costs no job of its own;
* the heads the next version gets from the plan and the outcome are built in
  :mod:`.heads`.
"""

from __future__ import annotations

import hashlib
import json
import struct
import warnings
from dataclasses import dataclass, field, replace
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import xxhash
from pyspark.sql import DataFrame, Observation
from pyspark.sql import functions as F

from ..errors import EmptyInputWarning, InvalidInputError, MissingTopicWarning, NegativeGenerationWarning
from ..schema import STATUSES
from ..spark.inputs import local_frame
from .layout import ASSIGNMENTS, PARTITION_COLUMN, TableKind

__all__ = ["ChangedGroup", "Plan", "Outcome", "changed_units", "outcome_of", "only_groups", "only_heads",
           "with_fingerprints", "with_unit_values", "in_groups", "warn_about_input", "ids_frame", "sql_string",
           "fingerprints_in_driver", "unmoved", "without_groups", "without_units", "without_unmoved", "LITERAL_GROUPS", "FIELD_SEP",
           "NULL_MARK"]


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
    #: Groups with claims whose generation is negative but not -1 (they count as carrying none).
    negative_generation_groups: int = 0
    #: Changed units their fingerprint did not pick: an assignment table's groups re-planned
    #: because their load under new weights exceeds the threshold (see :mod:`.load`).
    replanned: List[str] = field(default_factory=list)

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
    """Per written unit (group, cluster) ``(generation, pending)``, and the rows per status
    (every status of the table's kind, zeros included)."""

    groups: Dict[str, Tuple[int, bool]] = field(default_factory=dict)
    counts: Dict[str, int] = field(default_factory=lambda: {s: 0 for s in STATUSES})

    @classmethod
    def of(cls, kind: TableKind) -> "Outcome":
        """An empty outcome counting ``kind``'s statuses."""
        return cls(counts={s: 0 for s in kind.statuses})

    def add(self, groups: Mapping[str, Sequence], counts: Mapping[str, int]) -> None:
        """Merge one file's report (a unit split over two files is merged too)."""
        for g, (gen, pending) in groups.items():
            old = self.groups.get(g)
            self.groups[g] = (int(gen), bool(pending)) if old is None else \
                (max(old[0], int(gen)), old[1] or bool(pending))
        for s, n in counts.items():
            self.counts[s] = self.counts.get(s, 0) + int(n)

    def add_json(self, groups: str, counts: str) -> None:
        self.add(json.loads(groups), json.loads(counts))

    def add_arrow(self, rows: pa.Table, kind: TableKind = ASSIGNMENTS) -> None:
        """Add rows of a state table of ``kind``: per unit its generation and whether a row has
        is pending (:class:`~.layout.Pending`: a transfer, stages left; never for a kind without
        one), and rows per status."""
        flags = kind.pending.arrow(rows) if kind.pending else pa.array(np.zeros(rows.num_rows, dtype=bool))
        per_unit = (pa.table({"key": rows.column(kind.key), "generation": rows.column("generation"), "p": flags})
                    .group_by("key").aggregate([("generation", "max"), ("p", "any")]))
        groups = {g: (gen, bool(p)) for g, gen, p in zip(
            per_unit.column("key").to_pylist(), per_unit.column("generation_max").to_pylist(),
            per_unit.column("p_any").to_pylist())}
        counts = pc.value_counts(rows.column("status"))
        self.add(groups, dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist())))


def changed_units(rows: DataFrame, heads: DataFrame, salt: str, force: bool, also_changed: str = "false",
                  key: str = "group_id", recompute: Optional[DataFrame] = None) -> Plan:
    """The units (groups, clusters) to recompute: new ones, those whose fingerprint changed,
    those for which ``also_changed`` (SQL over the head's ``_pending``, ``_strategy``) holds,
    those ``recompute`` lists (rows of ``key``; units it lists that have no input rows are
    not units), or all when ``force``.

    ``rows``: one row per input row of a unit: ``key``, ``_text`` (the row's fields as text),
    ``_n`` (rows it adds to the unit's next generation, an upper bound is fine),
    ``_missing`` (a topic name the metadata lacks, else null) and ``_odd_generation`` (1 for a
    claim of a negative generation other than -1, else null; always null for replica rows).

    One query, two Spark jobs (a shuffle by unit, then the collect): each
    row is hashed where it is read, the hashes are summed per unit with the
    unit's head beside them (a union, not a join: no broadcast), and only the
    changed units reach the driver; the fleet's unit count is observed on the
    way. Sums of hashes need no sort and are partly aggregated before the shuffle.

    The fingerprint is a multiset hash: each row's text is hashed twice
    (xxhash64 with two seeds), the four 32-bit halves are summed over the
    unit's rows (no overflow below 2^31 rows a unit), and the sums, the row
    count and ``salt`` (the strategy, or a replica table's method settings)
    are hashed with SHA-256. Row order does not matter; a changed, added,
    removed or repeated row changes it (up to a 2^-128 chance).
    """
    inputs = rows.selectExpr(
        key, "_n", "_missing", "_odd_generation",
        *[f"{half.format(f'xxhash64({seed}, _text)')} AS {lane}" for (seed, half), lane in zip(_HALVES, _LANES)],
        *[f"CAST(NULL AS {t}) AS {n}" for n, t in _HEAD])
    inputs = inputs.withColumn("_recompute", F.lit(None).cast("boolean"))
    held = heads.selectExpr(key, "CAST(NULL AS int) AS _n", "CAST(NULL AS string) AS _missing",
                            "CAST(NULL AS int) AS _odd_generation",
                            *[f"CAST(NULL AS bigint) AS {lane}" for lane in _LANES],
                            *[f"`{c}` AS {n}" for (n, _), c in zip(_HEAD, _HEAD_SOURCES)],
                            "CAST(NULL AS boolean) AS _recompute")
    units = inputs.unionByName(held)
    if recompute is not None:               # marker rows: no hash lanes, so they leave fingerprints alone
        units = units.unionByName(recompute.selectExpr(
            key, "CAST(NULL AS int) AS _n", "CAST(NULL AS string) AS _missing", "CAST(NULL AS int) AS _odd_generation",
            *[f"CAST(NULL AS bigint) AS {lane}" for lane in _LANES], *[f"CAST(NULL AS {t}) AS {n}" for n, t in _HEAD],
            "true AS _recompute"))
    sums = ", ".join([f"sum({lane})" for lane in _LANES] + [f"count({_LANES[0]})"])
    groups = units.groupBy(key).agg(*[F.expr(e) for e in [
        f"count({_LANES[0]}) AS _rows",
        f"sha2(concat_ws(':', {sql_string(salt)}, {sums}), 256) AS input_fingerprint",
        "coalesce(sum(_n), 0) AS partitions",
        "max(_missing) AS _missing", "max(_odd_generation) AS _odd_generation",
        *[f"max({n}) AS {n}" for n, _ in _HEAD], "max(_recompute) AS _recompute"]])
    observed = Observation("spark_assign_plan")
    figures = [F.expr("count(1) AS groups"), F.expr("count(_missing) AS missing_groups"),
               F.expr("slice(array_sort(collect_set(_missing)), 1, 5) AS missing_topics"),
               F.expr("count(_odd_generation) AS negative_generation_groups")]
    groups = groups.where("_rows > 0")
    counted = groups
    groups = groups.observe(observed, *figures)
    changed = (f"{str(bool(force)).lower()} OR _fp IS NULL OR _fp != input_fingerprint OR {also_changed} "
               "OR coalesce(_recompute, false)")
    found = groups.where(f"coalesce({changed}, true)").select(
        key, "input_fingerprint", "partitions", "_generation", "_commit", "_fp", "_empty").collect()
    out: Dict[str, ChangedGroup] = {}
    for e in found:
        if e[0] is None:
            raise InvalidInputError(f"null {key}", column=key)
        out[e[0]] = ChangedGroup(e[1], int(e[2] or 0), e[3], e[4], e[5], bool(e[6]))
    metrics = observed.get
    if "groups" not in metrics:
        # Spark Connect can end the query before its observed metrics reach the client (seen under
        # load: an empty dict); they are then counted by one more job, never guessed.
        metrics = counted.agg(*figures).collect()[0].asDict()          # an aggregate has one row
    return Plan(int(metrics["groups"]), out, int(metrics["missing_groups"]), list(metrics["missing_topics"] or []),
                int(metrics["negative_generation_groups"]))


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
#: Spark's ``xxhash64(seed, text)`` hashes the int ``seed`` with its default seed 42, then the
#: text's UTF-8 bytes with that hash as the seed (both plain XXH64, the int as 4 little-endian bytes).
_SPARK_SEED = 42


def fingerprints_in_driver(keys: Sequence[str], texts: Sequence[str], salt: str) -> Dict[str, str]:
    """Per unit of ``keys``, the fingerprint :func:`changed_units` computes in Spark for the rows
    ``texts`` (``keys[i]`` is the unit of ``texts[i]``), computed in this process: the same
    multiset hash, bit for bit, so a table written by one path is read as unchanged by the other.

    Example::

        fingerprints_in_driver(["g", "g"], ["a", "b"], "sticky") == fingerprints_in_driver(["g", "g"], ["b", "a"], "sticky")
    """
    seeds = [xxhash.xxh64_intdigest(struct.pack("<i", s), seed=_SPARK_SEED) for s in (1, 2)]
    hashes = np.array([[xxhash.xxh64_intdigest(t.encode("utf-8"), seed=s) for s in seeds] for t in texts],
                      dtype=np.uint64).reshape(-1, 2)
    low, high = np.uint64(0xFFFFFFFF), np.uint64(32)
    lanes = np.stack([hashes[:, 0] & low, hashes[:, 0] >> high, hashes[:, 1] & low, hashes[:, 1] >> high], axis=1)
    units, index = np.unique(np.asarray(keys, dtype=object), return_inverse=True)
    sums = np.zeros((len(units), 4), dtype=np.int64)
    np.add.at(sums, index, lanes.astype(np.int64))
    counts = np.bincount(index, minlength=len(units))
    return {str(u): hashlib.sha256(":".join([salt, *map(str, sums[i].tolist()), str(int(counts[i]))])
                                   .encode("utf-8")).hexdigest() for i, u in enumerate(units)}


def ids_frame(spark, ids: Sequence[str], key: str = "group_id") -> DataFrame:
    """``ids`` as a one-column local relation ``key`` (joined or broadcast without a job)."""
    return local_frame(spark, [(key, "string")], {key: list(ids)})


def sql_string(value: str) -> str:
    """``value`` as a SQL string literal, hex-encoded: any text is safe in it."""
    return f"CAST(X'{value.encode('utf-8').hex()}' AS STRING)"


def in_groups(ids: Sequence[str], key: str = "group_id") -> str:
    """SQL: ``key`` is one of ``ids`` (Spark evaluates a long ``IN`` list as a hash set)."""
    return f"`{key}` IN ({', '.join(sql_string(g) for g in ids)})"


def only_groups(df: DataFrame, p: Plan, ids: Sequence[str], key: str = "group_id") -> DataFrame:
    """The rows of ``df`` of the units ``ids`` (in column ``key``): an ``IN`` filter for a few
    thousand (one SQL expression, which Spark turns into a hash set; no job), a broadcast
    semi-join beyond."""
    if not ids:
        return df.where(F.lit(False))
    if len(ids) <= LITERAL_GROUPS:
        return df.where(F.expr(in_groups(ids, key)))
    return df.join(F.broadcast(ids_frame(df.sparkSession, ids, key)), key, "left_semi")


def only_heads(df: DataFrame, p: Plan, ids: Sequence[str], key: str = "group_id") -> DataFrame:
    """The rows of ``df`` in the latest generation of the units ``ids`` (those that have one)."""
    keep = p.latest(ids)
    if not keep:
        return df.where(F.lit(False))
    if len(keep) <= LITERAL_GROUPS:
        pairs = ", ".join(f"named_struct('g', {sql_string(g)}, 'n', {int(n)})" for g, n in keep.items())
        return df.where(F.expr(f"named_struct('g', `{key}`, 'n', generation) IN ({pairs})"))
    heads = local_frame(df.sparkSession, [(key, "string"), ("generation", "int")],
                        {key: list(keep), "generation": list(keep.values())})
    return df.join(F.broadcast(heads), [key, "generation"], "left_semi")


def with_fingerprints(df: DataFrame, p: Plan, ids: Sequence[str], key: str = "group_id") -> DataFrame:
    """``df`` (rows of the units ``ids`` only) with each unit's ``input_fingerprint``."""
    return with_unit_values(df, {g: p.changed[g].fingerprint for g in ids}, "input_fingerprint", "string", key)


def with_unit_values(df: DataFrame, values: Mapping[str, object], name: str, sql_type: str,
                     key: str = "group_id") -> DataFrame:
    """``df`` (rows of the units of ``values`` only) with a column ``name`` of type ``sql_type``
    holding each unit's value: a map constant for a few units (a lookup in a map literal scans
    its keys), a broadcast join beyond."""
    if len(values) <= LOOKUP_GROUPS:
        lookup = F.from_json(F.lit(json.dumps(dict(values))), f"map<string,{sql_type}>")
        return df.withColumn(name, F.try_element_at(lookup, F.col(key)))
    table = local_frame(df.sparkSession, [(key, "string"), (name, sql_type)],
                        {key: list(values), name: list(values.values())})
    return df.join(F.broadcast(table), key)


def outcome_of(rows: DataFrame, kind: TableKind = ASSIGNMENTS) -> Outcome:
    """The :class:`Outcome` of ``rows`` (of a table of ``kind``) computed by Spark (for engines
    whose writers do not report it)."""
    pending = kind.pending.spark() if kind.pending else F.lit(False)
    per_unit = rows.groupBy(kind.key).agg(
        F.max("generation").alias("generation"), pending.alias("pending"),
        *[F.sum((F.col("status") == s).cast("long")).alias(s) for s in kind.statuses]).collect()
    out = Outcome.of(kind)
    for r in per_unit:
        out.add({r[kind.key]: (r["generation"], r["pending"])}, {s: r[s] or 0 for s in kind.statuses})
    return out


def warn_about_input(todo: Plan, location: str, source: str = "subscriptions") -> int:
    """Warn about likely mistakes that Kafka allows (see :mod:`spark_assign.errors`); the number
    of warnings given: an :class:`~spark_assign.errors.EmptyInputWarning` for an input (``source``)
    without rows, a :class:`~spark_assign.errors.MissingTopicWarning` for groups subscribing to
    topics the metadata lacks or gives 0 partitions, a
    :class:`~spark_assign.errors.NegativeGenerationWarning` for groups with claims of a negative
    generation other than -1."""
    if todo.groups == 0:
        warnings.warn(EmptyInputWarning(f"the {source} have no rows: nothing to assign, {location} "
                                        "is left as it was"), stacklevel=5)
        return 1
    given = 0
    if todo.missing_groups:
        shown = ", ".join(map(repr, todo.missing_topics)) + (" ..." if len(todo.missing_topics) == 5 else "")
        warnings.warn(MissingTopicWarning(
            f"{todo.missing_groups} of {todo.groups} groups subscribe to topics missing from the metadata or "
            f"with 0 partitions, which get no partitions: {shown}"), stacklevel=5)
        given += 1
    if todo.negative_generation_groups:
        warnings.warn(NegativeGenerationWarning(
            f"{todo.negative_generation_groups} of {todo.groups} groups have claims with a negative generation "
            "other than -1, which count as carrying no generation, as in Kafka"), stacklevel=5)
        given += 1
    return given


def without_units(df: DataFrame, ids: Sequence[str], key: str = "group_id") -> DataFrame:
    """``df`` without the rows of the units ``ids``."""
    if not ids:
        return df
    if len(ids) <= LITERAL_GROUPS:
        return df.where(F.expr(f"NOT ({in_groups(ids, key)})"))
    return df.join(F.broadcast(df.sparkSession.createDataFrame([(g,) for g in ids], f"{key} string")), key,
                   "left_anti")


def unmoved(rows: Union[pa.Table, DataFrame], ids: Set[str], p: Plan, key: str = "group_id") -> List[str]:
    """The units of ``ids`` (re-planned for load) whose new rows all say ``kept``: their re-plan
    found nothing worth moving. ``rows``: the new generation (Arrow on the driver, or Spark)."""
    if not ids:
        return []
    wanted = sorted(ids)
    if isinstance(rows, pa.Table):
        mine = rows.filter(pc.is_in(rows.column(key), value_set=pa.array(wanted, pa.string())))
        changed = mine.filter(pc.not_equal(mine.column("status"), "kept")).column(key)
        return sorted(set(wanted) - set(pc.unique(changed).to_pylist()))
    moving = only_groups(rows, p, wanted, key).where("status != 'kept'").select(key).distinct().collect()
    return sorted(set(wanted) - {r[0] for r in moving})


def without_groups(rows: Union[pa.Table, DataFrame], p: Plan, ids: Sequence[str],
                   key: str = "group_id") -> Union[pa.Table, DataFrame]:
    """``rows`` without the units ``ids``."""
    if not ids:
        return rows
    if isinstance(rows, pa.Table):
        return rows.filter(pc.invert(pc.is_in(rows.column(key), value_set=pa.array(list(ids), pa.string()))))
    return without_units(rows, ids, key)


def without_unmoved(rows: Union[pa.Table, DataFrame], todo: Plan,
                    key: str = "group_id") -> "Tuple[Union[pa.Table, DataFrame], Plan, List[str]]":
    """``rows`` and ``todo`` without the units re-planned for their load (``todo.replanned``) whose
    re-plan moved nothing (:func:`unmoved`): they get no new generation, so a load that cannot be
    improved writes nothing. Returns those units too."""
    settled = unmoved(rows, set(todo.replanned), todo, key)
    if not settled:
        return rows, todo, []
    gone = set(settled)
    kept = {g: c for g, c in todo.changed.items() if g not in gone}
    return without_groups(rows, todo, settled, key), replace(todo, changed=kept), settled

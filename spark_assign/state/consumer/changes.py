"""Which groups of an assignment table a rebalance recomputes: the subscriptions' fingerprint.

A group's fingerprint hashes what its assignment depends on, one text per
subscription row; :func:`~spark_assign.state.plan.changed_units` (shared with
the replica table) compares it with the group's head.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Set

import pyarrow as pa
from pyspark.sql import DataFrame

from ...spark.consumer.wire import with_topic_metadata
from ...errors import InvalidInputError
from ..layout import PARTITION_COLUMN
from ..plan import FIELD_SEP, NULL_MARK, ChangedGroup, Plan, changed_units, fingerprints_in_driver, sql_string

__all__ = ["plan", "plan_in_driver"]


def plan(subscriptions: DataFrame, topics: DataFrame, heads: DataFrame, strategy: str, force: bool,
         topic_counts: Optional[Mapping[str, int]] = None, key: Optional[str] = None) -> Plan:
    """The groups to recompute: new ones, those whose input fingerprint or strategy changed,
    those waiting for a cooperative transfer, or all when ``force``.

    One query, two Spark jobs (see :func:`changed_units`). ``partitions`` (the
    rows a group's new generation will have) is bounded from above: the sum,
    over the group's subscription rows, of the topic's partitions (exact when
    each topic has one subscriber; at most the member count times too high).
    It sizes the work: the driver path, tasks, files.

    A group's fingerprint covers everything its assignment depends on: per
    subscription row the member, topic, static id, rack, claimed partitions
    and claim generation, the topic's partition count, metadata rows and
    replica racks; plus the strategy. ``topic_counts``: the topics as a checked
    dict, when given so (see :func:`~spark_assign.spark.consumer.wire.with_topic_metadata`).
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
    odd_generation = "CASE WHEN generation < -1 THEN 1 END" if "generation" in present else "CAST(NULL AS int)"
    rows = with_topic_metadata(subscriptions, topics, topic_counts, racks=True).selectExpr(
        "group_id", f"concat_ws('{FIELD_SEP}', {', '.join(fields)}) AS _text",
        "greatest(coalesce(_num_partitions, 0), 0) AS _n",
        # missing: no count, or 0 (a negative count is an input error, raised by the compute stage)
        "CASE WHEN topic IS NOT NULL AND coalesce(_num_partitions, 0) = 0 THEN topic END AS _missing",
        f"{odd_generation} AS _odd_generation")
    also = f"coalesce(_pending, false) OR _strategy != {sql_string(strategy)}"
    return changed_units(rows, heads, key or strategy, force, also)


def plan_in_driver(subscriptions: pa.Table, counts: Mapping[str, int], heads: Optional[pa.Table], strategy: str,
                   force: bool) -> Plan:
    """:func:`plan` computed in this process, for the Spark-free rebalance (:mod:`.driver`):
    ``subscriptions`` as Arrow (with ``group_id``), the topics as a checked dict, the heads as
    Arrow (None: no table yet). The same rows give the same fingerprints, partitions, missing
    topics and changed groups as :func:`plan` does in Spark (a differential test holds them equal).
    """
    present = set(subscriptions.column_names)
    n = subscriptions.num_rows

    def column(name: str) -> list:
        return subscriptions.column(name).to_pylist() if name in present else [None] * n

    groups, topics = column("group_id"), column("topic")
    if any(g is None for g in groups):
        raise InvalidInputError("null group_id", column="group_id")
    plain = [[("" if c not in present else NULL_MARK if v is None else str(v)) for v in column(c)]
             for c in ("member_id", "topic", "group_instance_id", "rack", "generation")]
    owned = column("owned_partitions")
    generations = column("generation")
    texts: List[str] = []
    partitions: Dict[str, int] = {}
    missing: Dict[str, Set[str]] = {}
    odd: Set[str] = set()
    for i, group in enumerate(groups):
        claims = ("" if "owned_partitions" not in present else NULL_MARK if owned[i] is None
                  else ",".join(str(p) for p in sorted(p for p in owned[i] if p is not None)))
        count = counts.get(topics[i]) if topics[i] is not None else None
        metadata = [str(count), "1"] if count is not None else ["?"]      # an unknown topic has no metadata row
        texts.append(FIELD_SEP.join([*(f[i] for f in plain), claims, *metadata, ""]))
        partitions[group] = partitions.get(group, 0) + max(count or 0, 0)
        if topics[i] is not None and not count:
            missing.setdefault(group, set()).add(topics[i])
        if generations[i] is not None and generations[i] < -1:
            odd.add(group)
    fingerprints = fingerprints_in_driver(groups, texts, strategy)
    held = {} if heads is None else {r["group_id"]: r for r in heads.to_pylist()}
    changed: Dict[str, ChangedGroup] = {}
    for group, fingerprint in fingerprints.items():
        head = held.get(group)
        if (force or head is None or head["input_fingerprint"] != fingerprint or bool(head["pending"])
                or head["strategy"] != strategy):
            changed[group] = ChangedGroup(fingerprint, partitions[group], head and head["generation"],
                                          head and head[PARTITION_COLUMN], head and head["input_fingerprint"],
                                          bool(head and head["empty"]))
    topics_missing = sorted({t for names in missing.values() for t in names})[:5]
    return Plan(len(fingerprints), changed, len(missing), topics_missing, len(odd))

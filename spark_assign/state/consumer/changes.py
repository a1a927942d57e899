"""Which groups of an assignment table a rebalance recomputes: the subscriptions' fingerprint.

A group's fingerprint hashes what its assignment depends on, one text per
subscription row; :func:`~spark_assign.state.plan.changed_units` (shared with
the replica table) compares it with the group's head.
"""

from __future__ import annotations

from typing import Mapping, Optional

from pyspark.sql import DataFrame

from ...spark.consumer.wire import with_topic_metadata
from ..plan import FIELD_SEP, NULL_MARK, Plan, changed_units, sql_string

__all__ = ["plan"]


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

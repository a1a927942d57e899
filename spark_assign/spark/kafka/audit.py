"""``audit(state, topics)``: each classic group's recorded assignment against its strategy's, in
one Spark job.

The groups' subscription rows and assignment rows travel together, tagged, grouped by group id
(one shuffle); ``applyInArrow`` gives each group's rows to the engine's audit
(:func:`spark_assign.core.consumer.audit.audit_group`, which names the findings), and the
findings come back as rows (:data:`~spark_assign.schema.AUDIT_COLUMNS`). Nothing is collected but
the topics' partition counts (one row per topic), shipped to every task.
"""

from __future__ import annotations

from typing import Dict, Mapping, Union

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ...core.consumer.audit import audit_group
from ...core.consumer.model import check_topics
from ...schema import AUDIT_COLUMNS
from ...types import arrow_schema, spark_ddl
from ..inputs import topics_frame
from .records import ConsumerGroups

__all__ = ["audit", "audit_batch"]

_AUDIT_SCHEMA = arrow_schema(AUDIT_COLUMNS)


def _counts(spark: SparkSession, topics: Union[Mapping[str, int], DataFrame]) -> Dict[str, int]:
    """The topics' partition counts, checked as every other ``topics=`` is (the engine's check
    for a dict, ``topics_frame``'s for rows); the rows, one per topic, are collected."""
    if isinstance(topics, Mapping):
        return dict(check_topics(topics))
    return {r[0]: r[1] for r in topics_frame(spark, topics).select("topic", "num_partitions").collect()}


def audit_batch(table: pa.Table, topics: Mapping[str, int]) -> pa.Table:
    """The ``applyInArrow`` body: one group's tagged rows in, its findings out."""
    rows = table.to_pylist()
    first = rows[0]
    subscriptions = [(r["member_id"], r["topic"], r["group_instance_id"], r["rack"], r["owned_partitions"],
                      r["claim_generation"]) for r in rows if r["kind"] == "s"]
    assignment = [(r["member_id"], r["topic"], r["partition"]) for r in rows if r["kind"] == "a"]
    found = audit_group(first["strategy"], subscriptions, assignment, topics)
    return pa.table([pa.array([first["group_id"]] * len(found), pa.string()),
                     pa.array([first["strategy"]] * len(found), pa.string()),
                     pa.array([first["generation"]] * len(found), pa.int32()),
                     pa.array([f.finding for f in found], pa.string()),
                     pa.array([f.partitions for f in found], pa.int32()),
                     pa.array([f.example for f in found], pa.string())], schema=_AUDIT_SCHEMA)


def audit(state: ConsumerGroups, topics: Union[Mapping[str, int], DataFrame]) -> DataFrame:
    """The classic groups whose leader's assignment differs from their strategy's, and how: one row
    per group and finding (``group_id, strategy, generation, finding, partitions, example``).

    Example::

        from spark_assign.kafka import audit, consumer_groups

        state = consumer_groups(raw).persist()
        audit(state, {"orders": 12, "payments": 6}).show(truncate=False)

    Parameters
    ----------
    state:
        Groups read from ``__consumer_offsets`` (:func:`~spark_assign.kafka.consumer_groups`).
    topics:
        The topics' partition counts now: ``{topic: partitions}`` or a DataFrame ``(topic,
        num_partitions)`` (``kafka-topics --describe`` read by ``spark_assign.kafka``). A topic that
        grew since the group's last rebalance shows up as ``unowned`` partitions.

    The findings and what each strategy is held to: :mod:`spark_assign.core.consumer.audit`.
    Groups of the KIP-848 protocol (assigned by the broker) and non-consumer classic groups
    (Connect's, say) are not audited.
    """
    counts = _counts(state.groups.sparkSession, topics)
    groups = state.groups.where((F.col("protocol") == "classic") & (F.col("protocol_type") == "consumer")) \
        .select("group_id", "strategy", "generation")
    subs = state.subscriptions.select(
        F.lit("s").alias("kind"), "group_id", "member_id", "topic", "group_instance_id", "rack", "owned_partitions",
        F.col("generation").alias("claim_generation"), F.lit(None).cast("int").alias("partition"))
    given = state.assignment.select(
        F.lit("a").alias("kind"), "group_id", "member_id", "topic", F.lit(None).cast("string").alias("group_instance_id"),
        F.lit(None).cast("string").alias("rack"), F.lit(None).cast("array<int>").alias("owned_partitions"),
        F.lit(None).cast("int").alias("claim_generation"), "partition")
    wire = subs.unionByName(given).join(groups, "group_id")
    def run(table: pa.Table) -> pa.Table:       # annotated: Spark reads the hints to pick the Table API
        return audit_batch(table, counts)

    return wire.groupBy("group_id").applyInArrow(run, spark_ddl(AUDIT_COLUMNS))

"""``DataFrame.assign_partitions``: Kafka's assignment strategies for a fleet of groups.

A plain module-level function, attached to ``pyspark.sql.DataFrame`` (the
common base class of classic and Spark Connect DataFrames in Spark 4), built
on the DataFrame API only, so one definition serves both. Importing this
module attaches it: ``import spark_assign`` imports it as soon as
``pyspark.sql`` is loaded (see :mod:`spark_assign._pyspark_hook`).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, NamedTuple, Optional, Union, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.java.limits import check_count
from ...core import DEFAULT_STRATEGY, check_topics
from ...errors import InvalidInputError
from .. import failures
from ..inputs import load_knobs, previous_frame, spark_strategy, subscription_columns, topics_frame, weights_frame
from .wire import KIND_PREVIOUS, append_rows, build_wire, counts_travel, result_arrow_schema, result_ddl, weights_travel

__all__ = ["assign_partitions", "assign_frame", "assign_local", "attach"]


def assign_partitions(
    self: DataFrame,
    strategy: str = DEFAULT_STRATEGY,
    topics: Union[Mapping[str, int], DataFrame, None] = None,
    previous: Any = None,
    num_partitions: Optional[int] = None,
    weights: Any = None,
    max_count_skew: Optional[int] = None,
    min_improvement: Optional[float] = None,
) -> DataFrame:
    """Assign the partitions of each consumer group, as Kafka's ``strategy`` would.

    Called on a subscriptions DataFrame: one row per member and subscribed
    topic (``group_id``, ``member_id``, ``topic``, and optionally
    ``group_instance_id``, ``rack``, ``owned_partitions``, ``generation``).
    Each group is assigned independently, in one Spark pass.

    Example::

        import spark_assign   # adds DataFrame.assign_partitions

        subs = spark.createDataFrame(
            [("g1", "c1", "orders"), ("g1", "c2", "orders")],
            "group_id string, member_id string, topic string")
        result = subs.assign_partitions("range", topics={"orders": 3})
        result.show()   # one row per partition: group_id, generation, member_id, topic,
                        # partition, previous_member_id, status

        lag = spark.createDataFrame([("orders", 0, 900.0), ("orders", 1, 10.0), ("orders", 2, 10.0)],
                                    "topic string, partition int, weight double")
        subs.assign_partitions("load-aware", topics={"orders": 3}, weights=lag)   # + a weight column

    Parameters
    ----------
    strategy:
        ``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``,
        ``uniform``, ``server-range``, or the load-aware ``load-aware``,
        ``cooperative-load-aware`` and ``lag-based``, which need ``weights``
        (see ``spark_assign.core.strategy_names()`` and docs/load-aware.md).
    topics:
        Topic metadata: a dict ``{topic: partition count}`` or a DataFrame
        ``(topic, num_partitions)``, optionally with ``replica_racks``
        (``array<array<string>>``, the racks of each partition's replicas) and
        ``group_id`` (metadata per group). Subscribed topics missing from it
        get no partitions.
    previous:
        Earlier generations: None, a DataFrame ``(group_id, generation,
        member_id, topic, partition)``, a table name, a Delta table path, or an
        :class:`~spark_assign.AssignmentTable`. A group's latest generation is
        what its members own, unless a member's rows carry ``owned_partitions``.
    num_partitions:
        Spark partitions for the pass (default: ``spark.sql.shuffle.partitions``).
    weights:
        Per-partition weights (lag, bytes/s): a DataFrame ``(topic, partition,
        weight)``, optionally with ``group_id`` (without it a topic's weights
        apply to every group), or a dict ``{topic: [weight of p0, p1, ...]}``
        (shipped once with the job; each group reads its topics' rows).
        A partition without a weight gets the mean of its group's weights (1.0
        when the group has none). Given, the result has a ``weight`` column;
        strategies that do not balance weights check them and ignore them.
    max_count_skew, min_improvement:
        The load-aware knobs (default 1 and 0.05, see docs/load-aware.md).

    Returns
    -------
    DataFrame
        One row per partition of every subscribed topic of every group:
        ``group_id``, ``generation`` (the new one), ``member_id`` (null while a
        cooperative transfer is pending), ``topic``, ``partition``,
        ``previous_member_id``, ``status`` (``new``, ``kept``, ``moved``,
        ``revoked``, ``assigned``), and ``weight`` when ``weights`` are given.

    Raises
    ------
    UnknownStrategyError, SchemaError, InvalidInputError
        Before any job for schema and argument problems. Data problems (null
        member ids, duplicate rows, negative counts, null or negative weights,
        a weight for a partition the topic lacks...) fail the job that runs
        the assignment: its action (``collect``, ``write``...) raises
        :class:`InvalidInputError` naming the group, column and rows, on
        classic Spark and on Connect (see :mod:`spark_assign.spark.failures`).
    """
    return assign_frame(self, strategy, topics, previous, num_partitions, weights=weights,
                        max_count_skew=max_count_skew, min_improvement=min_improvement)


def assign_frame(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any = None,
                 num_partitions: Optional[int] = None, with_instance: bool = False, weights: Any = None,
                 max_count_skew: Optional[int] = None, min_improvement: Optional[float] = None) -> DataFrame:
    """:func:`assign_partitions`, optionally with each owner's ``group_instance_id`` column
    (the state table stores it)."""
    if num_partitions is not None:
        check_count(num_partitions, "num_partitions", minimum=1, maximum=None)
    failures.install()
    w = _wire(subscriptions, strategy, topics, previous, weights, max_count_skew, min_improvement)
    n = num_partitions or int(cast(str, subscriptions.sparkSession.conf.get("spark.sql.shuffle.partitions")))
    name, has_group, options, weighed, counts = w.strategy, w.has_group, w.options, w.with_weight, w.topic_counts
    shared = w.weights

    def run(batches):
        from spark_assign.spark.consumer.worker import assign_batches

        return assign_batches(batches, name, group_column=has_group, with_instance=with_instance,
                              options=options, with_weight=weighed, topic_counts=counts, weights=shared)

    # Sorted by group only: the worker needs a group's rows together, not its row kinds in order
    # (it tells them apart by ``kind``), and a second sort key costs every tie a full comparison
    # (about 8% of a rebalance's pass on a fleet of small groups).
    return (w.wire.repartition(n, "group_id")
                  .sortWithinPartitions("group_id")
                  .mapInArrow(run, result_ddl(with_instance, weighed)))


def assign_local(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any = None,
                 with_instance: bool = False, weights: Any = None, max_count_skew: Optional[int] = None,
                 min_improvement: Optional[float] = None) -> pa.Table:
    """:func:`assign_frame`'s rows computed in this process: the wire is collected as Arrow
    (one job) and the engine runs here, as a Spark worker would run it.

    For a few small groups (the state table's incremental rebalances), where
    the assignment job's fixed costs (a shuffle, Python workers) would dominate.
    The caller bounds the rows; bad input raises the same errors. ``previous``
    may also be an Arrow table (rows the caller read without Spark).
    """
    from .worker import assign_batches

    local = previous if isinstance(previous, pa.Table) else None
    w = _wire(subscriptions, strategy, topics, None if local is not None else previous, weights,
              max_count_skew, min_improvement)
    table = w.wire.toArrow()
    if local is not None:
        table = append_rows(table, local, KIND_PREVIOUS)
    schema = result_arrow_schema(with_instance, w.with_weight)
    if table.num_rows == 0:
        return schema.empty_table()
    table = table.sort_by([("group_id", "ascending")])
    batches = list(assign_batches(iter(table.combine_chunks().to_batches()), w.strategy, group_column=w.has_group,
                                  with_instance=with_instance, options=w.options, with_weight=w.with_weight,
                                  topic_counts=w.topic_counts, weights=w.weights))
    return pa.Table.from_batches(batches, schema=schema)


class _Wire(NamedTuple):
    """One assignment's wire (see :mod:`.wire`) and how to run it: the strategy's name, whether the
    subscriptions have ``group_id``, the engine options, whether the result has a ``weight``
    column, and what travels with the job rather than on the wire: the topic counts
    (:func:`.wire.counts_travel`) and a dict's weight rows (:func:`.wire.weights_travel`)."""

    wire: DataFrame
    strategy: str
    has_group: bool
    options: Dict[str, Any]
    with_weight: bool
    topic_counts: Optional[Dict[str, int]]
    weights: Optional[pa.Table]


def _wire(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any, weights: Any = None,
          max_count_skew: Optional[int] = None, min_improvement: Optional[float] = None) -> _Wire:
    """The wire of one assignment. Checks arguments and schemas, runs no job."""
    chosen = spark_strategy(strategy, weights_given=weights is not None)
    options = load_knobs(max_count_skew, min_improvement)
    if topics is None:
        raise InvalidInputError("topics is required: a dict {topic: partitions} or a DataFrame",
                                column="topics")
    spark = subscriptions.sparkSession
    columns, has_group = subscription_columns(subscriptions)
    if not has_group:
        columns["group_id"] = F.lit(None).cast("string")
    counts = check_topics(topics) if isinstance(topics, Mapping) else None   # the engine's own check
    topic_df = topics_frame(spark, topics if counts is None else counts)
    prev_df = previous_frame(spark, previous)
    travelling = weights_travel(weights)
    weight_df = weights_frame(spark, weights) if travelling is None else None
    if weight_df is not None and not has_group and "group_id" in weight_df.columns:
        raise InvalidInputError("weights have a group_id column but the subscriptions have none: give both, or "
                                "weights without group_id", column="group_id")
    wire = build_wire(subscriptions, columns, topic_df, prev_df, with_racks=chosen.rack_aware,
                      topic_counts=counts, weights=weight_df)
    return _Wire(wire, chosen.name, has_group, options, weights is not None,
                 counts if counts_travel(topic_df, counts) else None, travelling)


def attach() -> None:
    """Add :func:`assign_partitions` to ``pyspark.sql.DataFrame`` (classic and Connect)."""
    DataFrame.assign_partitions = assign_partitions  # type: ignore[attr-defined]


attach()   # what importing the Spark layer (and, once PySpark is loaded, ``import spark_assign``) promises
failures.install()     # Spark failures spark-assign explains (e.g. CALL spark_assign.*): from the start

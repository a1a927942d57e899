"""``DataFrame.assign_partitions``: Kafka's assignment strategies for a fleet of groups.

A plain module-level function, attached to ``pyspark.sql.DataFrame`` (the
common base class of classic and Spark Connect DataFrames in Spark 4), built
on the DataFrame API only, so one definition serves both. Importing this
module attaches it: ``import spark_assign`` imports it as soon as
``pyspark.sql`` is loaded (see :mod:`spark_assign._pyspark_hook`).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple, Union, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core import check_topics
from ..errors import InvalidInputError
from . import failures
from .inputs import previous_frame, spark_strategy, subscription_columns, topics_frame
from .wire import KIND_PREVIOUS, RESULT_DDL, arrow_wire, build_wire, result_arrow_schema

__all__ = ["assign_partitions", "assign_frame", "assign_local", "attach"]


def assign_partitions(
    self: DataFrame,
    strategy: str = "cooperative-sticky",
    topics: Union[Mapping[str, int], DataFrame, None] = None,
    previous: Any = None,
    num_partitions: Optional[int] = None,
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

    Parameters
    ----------
    strategy:
        ``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``,
        ``uniform`` or ``server-range`` (see ``spark_assign.core.strategy_names()``).
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

    Returns
    -------
    DataFrame
        One row per partition of every subscribed topic of every group:
        ``group_id``, ``generation`` (the new one), ``member_id`` (null while a
        cooperative transfer is pending), ``topic``, ``partition``,
        ``previous_member_id``, ``status`` (``new``, ``kept``, ``moved``,
        ``revoked``, ``assigned``).

    Raises
    ------
    UnknownStrategyError, SchemaError, InvalidInputError
        Before any job for schema and argument problems. Data problems (null
        member ids, duplicate rows, negative counts...) fail the job that
        runs the assignment: its action (``collect``, ``write``...) raises
        :class:`InvalidInputError` naming the group, column and rows, on
        classic Spark and on Connect (see :mod:`spark_assign.spark.failures`).
    """
    return assign_frame(self, strategy, topics, previous, num_partitions)


def assign_frame(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any = None,
                 num_partitions: Optional[int] = None, with_instance: bool = False) -> DataFrame:
    """:func:`assign_partitions`, optionally with each owner's ``group_instance_id`` column
    (the state table stores it)."""
    if num_partitions is not None and (isinstance(num_partitions, bool) or not isinstance(num_partitions, int)
                                       or num_partitions < 1):
        raise InvalidInputError(f"num_partitions must be a positive integer, got {num_partitions!r}",
                                column="num_partitions")
    failures.install()
    wire, name, has_group = _wire(subscriptions, strategy, topics, previous)
    n = num_partitions or int(cast(str, subscriptions.sparkSession.conf.get("spark.sql.shuffle.partitions")))
    ddl = RESULT_DDL + (", `group_instance_id` string" if with_instance else "")

    def run(batches):
        from spark_assign.spark.worker import assign_batches

        return assign_batches(batches, name, group_column=has_group, with_instance=with_instance)

    return (wire.repartition(n, "group_id")
                .sortWithinPartitions("group_id", "kind")
                .mapInArrow(run, ddl))


def assign_local(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any = None,
                 with_instance: bool = False) -> pa.Table:
    """:func:`assign_frame`'s rows computed in this process: the wire is collected as Arrow
    (one job) and the engine runs here, as a Spark worker would run it.

    For a few small groups (the state table's incremental rebalances), where
    the assignment job's fixed costs (a shuffle, Python workers) would dominate.
    The caller bounds the rows; bad input raises the same errors. ``previous``
    may also be an Arrow table (rows the caller read without Spark).
    """
    from .worker import assign_batches

    local = previous if isinstance(previous, pa.Table) else None
    wire, name, has_group = _wire(subscriptions, strategy, topics, None if local is not None else previous)
    table = wire.toArrow()
    if local is not None:
        table = pa.concat_tables([table, arrow_wire(local, table.schema, KIND_PREVIOUS)])
    if table.num_rows == 0:
        return result_arrow_schema(with_instance).empty_table()
    table = table.sort_by([("group_id", "ascending"), ("kind", "ascending")])
    batches = list(assign_batches(iter(table.combine_chunks().to_batches()), name, group_column=has_group,
                                  with_instance=with_instance))
    return pa.Table.from_batches(batches, schema=result_arrow_schema(with_instance))


def _wire(subscriptions: DataFrame, strategy: str, topics: Any, previous: Any) -> Tuple[DataFrame, str, bool]:
    """The wire of one assignment (see :mod:`.wire`), the strategy's name, and whether the
    subscriptions have a ``group_id`` column. Checks arguments and schemas, runs no job."""
    chosen = spark_strategy(strategy)
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
    wire = build_wire(subscriptions, columns, topic_df, prev_df, with_racks=chosen.rack_aware,
                      topic_counts=counts)
    return wire, chosen.name, has_group


def attach() -> None:
    """Add :func:`assign_partitions` to ``pyspark.sql.DataFrame`` (classic and Connect)."""
    DataFrame.assign_partitions = assign_partitions  # type: ignore[attr-defined]


attach()   # what importing the Spark layer (and, once PySpark is loaded, ``import spark_assign``) promises
failures.install()     # Spark failures spark-assign explains (e.g. CALL spark_assign.*): from the start

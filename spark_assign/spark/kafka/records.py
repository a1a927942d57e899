"""``consumer_groups(records)``: Kafka's ``__consumer_offsets`` records as DataFrames, in one Spark job.

The plan is the coordinator's own way of loading groups (:mod:`spark_assign.kafka.records.replay`),
spread over Spark: one shuffle puts each ``__consumer_offsets`` partition in one Spark partition,
sorted by offset (Kafka keeps all of a group's records in one partition), then one ``mapInArrow``
pass replays each partition and writes every frame's rows, tagged with the frame's name, in one
wide layout. The frames are that output filtered and projected: nothing is collected to the
driver, and the records are read once per action. Cache the result (:meth:`ConsumerGroups.persist`)
to read several frames from one pass.
"""

from __future__ import annotations

import warnings
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...errors import InvalidInputError, RecordProblemWarning, SchemaError
from ...kafka.records.replay import Frames, replay_partition
from ...schema import (KAFKA_ASSIGNMENT_COLUMNS, KAFKA_GROUP_COLUMNS, KAFKA_OFFSET_COLUMNS, KAFKA_PROBLEM_COLUMNS,
                       SUBSCRIPTION_COLUMNS)
from ...types import arrow_schema, spark_ddl

__all__ = ["ConsumerGroups", "consumer_groups", "FRAME_COLUMNS", "WIDE_COLUMNS"]

#: Each frame's columns (name, DDL type).
FRAME_COLUMNS: Dict[str, List[Tuple[str, str]]] = {
    "groups": KAFKA_GROUP_COLUMNS,
    "subscriptions": [(n, t) for n, t, _ in SUBSCRIPTION_COLUMNS],
    "assignment": KAFKA_ASSIGNMENT_COLUMNS,
    "offsets": KAFKA_OFFSET_COLUMNS,
    "problems": KAFKA_PROBLEM_COLUMNS,
}


def _wide() -> List[Tuple[str, str]]:
    columns: Dict[str, str] = {"frame": "string"}
    for frame, cols in FRAME_COLUMNS.items():
        for name, kind in cols:
            if columns.setdefault(name, kind) != kind:
                raise TypeError(f"column {name} is {columns[name]} in one frame and {kind} in {frame}")
    return list(columns.items())


#: The one layout every frame's rows travel in: ``frame`` then the union of the frames' columns
#: (a name means the same type in every frame that has it).
WIDE_COLUMNS = _wide()
_WIDE_SCHEMA = arrow_schema(WIDE_COLUMNS)
_INPUT = {"key": T.BinaryType, "value": T.BinaryType}
_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)


def _check_input(records: DataFrame) -> None:
    types = {f.name: f.dataType for f in records.schema.fields}
    for name, kind in _INPUT.items():
        if name not in types:
            raise SchemaError(f"records: no column {name!r} (binary); the columns are {sorted(types)}. "
                              f"Read __consumer_offsets with Spark's Kafka source, or a copy of it.")
        if not isinstance(types[name], kind):
            raise SchemaError(f"records: column {name!r} is {types[name].simpleString()}, not binary")
    for name in ("partition", "offset"):
        if name not in types:
            raise SchemaError(f"records: no column {name!r} (the record's __consumer_offsets partition and "
                              f"offset); the columns are {sorted(types)}")
        if not isinstance(types[name], _INTEGRAL):
            raise SchemaError(f"records: column {name!r} is {types[name].simpleString()}, not an integer")


def _wide_batch(frames: Frames) -> Iterator[pa.RecordBatch]:
    for name, table in zip(Frames._fields, frames):
        if table.num_rows == 0:
            continue
        n = table.num_rows
        columns = [pa.array([name] * n, pa.string())]
        for field in _WIDE_SCHEMA:
            if field.name == "frame":
                continue
            columns.append(table.column(field.name).cast(field.type) if field.name in table.column_names
                           else pa.nulls(n, field.type))
        yield from pa.Table.from_arrays(columns, schema=_WIDE_SCHEMA).to_batches()


def replay_batches(batches: Iterable[pa.RecordBatch],
                   topic_ids: Optional[Mapping[str, str]] = None) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` body: batches sorted by (partition, offset) in, each partition's frames out."""
    pending: List[pa.RecordBatch] = []

    def flush() -> Iterator[pa.RecordBatch]:
        if not pending:
            return
        table = pa.Table.from_batches(pending).combine_chunks()
        pending.clear()
        partition = table.column("partition")[0].as_py()
        yield from _wide_batch(replay_partition(partition, table.column("key").chunk(0),
                                                table.column("value").chunk(0), table.column("offset").to_numpy(),
                                                topic_ids))

    for batch in batches:
        parts = batch.column("partition").to_numpy(zero_copy_only=False)
        cuts = np.flatnonzero(parts[1:] != parts[:-1]) + 1
        start = 0
        for cut in list(cuts) + [batch.num_rows]:
            if start == cut:
                continue
            piece = batch.slice(start, cut - start)
            if pending and pending[-1].column("partition")[0].as_py() != parts[start]:
                yield from flush()
            pending.append(piece)
            start = cut
    yield from flush()


class ConsumerGroups:
    """The frames read from ``__consumer_offsets`` records (:func:`consumer_groups`).

    Each frame is a DataFrame; nothing runs until one is used.
    """

    def __init__(self, wide: DataFrame) -> None:
        self._wide = wide

    def _frame(self, name: str) -> DataFrame:
        return self._wide.where(F.col("frame") == name).select(*[n for n, _ in FRAME_COLUMNS[name]])

    @property
    def groups(self) -> DataFrame:
        """One row per live group: group_id, protocol (``classic``/``consumer``), protocol_type,
        strategy, generation, leader, members."""
        return self._frame("groups")

    @property
    def subscriptions(self) -> DataFrame:
        """One row per member and subscribed topic, in ``assign_partitions``' input schema, with each
        member's claims (``owned_partitions``) and generation as its group's assignor reads them."""
        return self._frame("subscriptions")

    @property
    def assignment(self) -> DataFrame:
        """What each member was last given: group_id, generation, member_id, topic, partition."""
        return self._frame("assignment")

    @property
    def offsets(self) -> DataFrame:
        """Committed offsets: group_id, topic, partition, committed_offset, leader_epoch, metadata,
        commit_timestamp."""
        return self._frame("offsets")

    @property
    def problems(self) -> DataFrame:
        """Records that could not be read: partition, offset, key, group_id, record_type, problem.
        A group with one is absent from groups, subscriptions and assignment."""
        return self._frame("problems")

    @property
    def all_frames(self) -> DataFrame:
        """Every frame's rows in one DataFrame: ``frame`` (the frame's name) then the union of the
        frames' columns (``WIDE_COLUMNS``); what the one pass writes, e.g. to save all frames at once."""
        return self._wide

    def persist(self) -> "ConsumerGroups":
        """Caches the one pass, so the frames read it once. Returns ``self``."""
        self._wide.persist()
        return self

    def check(self, first: int = 5) -> int:
        """Counts the problem records (one Spark job) and, if there are any, warns
        (:class:`~spark_assign.errors.RecordProblemWarning`) with the count and the first ``first``
        of them. Returns the count.

        Example::

            state = consumer_groups(raw).persist()
            state.check()          # RecordProblemWarning: 2 records could not be read: ...
        """
        problems = self.problems.orderBy("partition", "offset")
        count = problems.count()
        if count:
            shown = "; ".join(f"partition {r['partition']} offset {r['offset']} (group {r['group_id']!r}): "
                              f"{r['problem']}" for r in problems.limit(first).collect())
            warnings.warn(f"{count} __consumer_offsets records could not be read; their groups are left out: "
                          f"{shown}", RecordProblemWarning, stacklevel=2)
        return count


def _topic_ids(topic_ids: "Union[Mapping[str, str], DataFrame, None]") -> Dict[str, str]:
    if topic_ids is None:
        return {}
    if not isinstance(topic_ids, DataFrame):
        return {str(k): str(v) for k, v in topic_ids.items()}
    if not {"topic_id", "topic"} <= set(topic_ids.columns):
        raise SchemaError(f"topic_ids: needs columns topic_id and topic; it has {topic_ids.columns}")
    return {r[0]: r[1] for r in topic_ids.select("topic_id", "topic").collect()}


def consumer_groups(records: DataFrame, partitions: Optional[int] = None,
                    topic_ids: "Union[Mapping[str, str], DataFrame, None]" = None) -> ConsumerGroups:
    """Kafka's consumer groups, read from its ``__consumer_offsets`` records.

    Example::

        from spark_assign.kafka import consumer_groups

        raw = (spark.read.format("kafka").option("kafka.bootstrap.servers", "broker:9092")
               .option("subscribe", "__consumer_offsets").option("startingOffsets", "earliest").load())
        state = consumer_groups(raw).persist()
        state.groups.show()
        state.subscriptions.assign_partitions(topics, strategy="cooperative-sticky")

    Parameters
    ----------
    records:
        A DataFrame with binary ``key`` and ``value`` (null: a tombstone) and integral ``partition``
        and ``offset``: what Spark's Kafka source reads, or any saved copy of it.
    partitions:
        Spark partitions for the replay (default: ``spark.sql.shuffle.partitions``). Kafka's
        ``__consumer_offsets`` has 50 partitions, so more than 50 gains nothing.
    topic_ids:
        Topic id -> name (a dict, or a DataFrame ``topic_id, topic``; one row per topic, shipped
        to every task), for KIP-848 groups of Kafka 4.1+, whose records name their topics by id
        only: :func:`spark_assign.kafka.read_topic_ids` reads them from ``kafka-topics --describe``.

    Records are applied in offset order within their partition; the latest record of a key wins and
    a tombstone deletes it. Records that cannot be read are rows of ``problems``, never dropped
    silently and never a failed job; :meth:`ConsumerGroups.check` warns about them.
    """
    _check_input(records)
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1):
        raise InvalidInputError(f"partitions must be a positive integer, got {partitions!r}", column="partitions",
                                rows=[partitions])
    wire = records.select(F.col("key"), F.col("value"), F.col("partition").cast("int").alias("partition"),
                          F.col("offset").cast("long").alias("offset"))
    shuffled = wire.repartition(partitions, "partition") if partitions else wire.repartition("partition")
    ids = _topic_ids(topic_ids)

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return replay_batches(batches, ids)

    wide = shuffled.sortWithinPartitions("partition", "offset").mapInArrow(run, spark_ddl(WIDE_COLUMNS))
    return ConsumerGroups(wide)

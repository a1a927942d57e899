"""The ``kafka_consumer_groups`` SQL table function: ``__consumer_offsets`` records read from SQL.

::

    SELECT * FROM kafka_consumer_groups(TABLE(offsets_copy), frame => 'subscriptions')

The table argument holds the records (binary ``key`` and ``value``, integral ``partition`` and
``offset``: Spark's Kafka source's columns; others are ignored). ``frame`` names the frame to
return (``groups``, the default, ``subscriptions``, ``assignment``, ``offsets`` or ``problems``),
with the columns of :data:`~spark_assign.spark.kafka.records.FRAME_COLUMNS`. The function
partitions its input by ``partition`` and orders it by ``offset`` itself, and each handler replays
one ``__consumer_offsets`` partition with the DataFrame form's code
(:func:`~spark_assign.kafka.records.replay.replay_partition`): same rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional, cast

import numpy as np
import pyarrow as pa
from pyspark.sql.types import (BinaryType, ByteType, DataType, IntegerType, LongType, NullType, ShortType,
                               StringType, StructField, StructType, ArrayType)
from pyspark.sql.udtf import AnalyzeArgument, AnalyzeResult, OrderingColumn, PartitioningColumn, SelectedColumn

from ...errors import InvalidInputError, SchemaError
from ...kafka.records.replay import Frames, replay_partition
from ..udtf import GatheringHandler
from .records import FRAME_COLUMNS

__all__ = ["KAFKA_TABLE_FUNCTIONS", "KafkaConsumerGroups", "RecordsPlan"]

_USAGE = "kafka_consumer_groups(TABLE(records), frame => 'subscriptions')"
#: Built by hand: ``analyze`` runs where no SparkContext parses DDL.
_SPARK_TYPES: Dict[str, DataType] = {"string": StringType(), "int": IntegerType(), "bigint": LongType(),
                                     "binary": BinaryType(), "array<int>": ArrayType(IntegerType())}
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)


@dataclass
class RecordsPlan(AnalyzeResult):
    """What ``analyze`` decided, handed to every handler instance by Spark."""

    frame: str = "groups"


def analyze_records(table: Optional[AnalyzeArgument], frame: Optional[AnalyzeArgument] = None) -> RecordsPlan:
    """Check one call at analysis time: the table's columns, the frame's name."""
    if table is None or not table.isTable:
        raise SchemaError(f"kafka_consumer_groups: the first argument must be a table, as in {_USAGE}")
    fields = {f.name.lower(): f for f in cast(StructType, table.dataType).fields}
    for name, kinds, said in (("key", (BinaryType,), "binary"), ("value", (BinaryType,), "binary"),
                              ("partition", _INTEGRAL, "an integer"), ("offset", _INTEGRAL, "an integer")):
        f = fields.get(name)
        if f is None:
            raise SchemaError(f"kafka_consumer_groups: the table has no column '{name}' ({said}); it has: "
                              f"{', '.join(fields)}; usage: {_USAGE}")
        if not isinstance(f.dataType, kinds):
            raise SchemaError(f"kafka_consumer_groups: column '{name}' must be {said}, got "
                              f"{f.dataType.simpleString()}")
    name = "groups"
    if frame is not None:
        if frame.isTable or not frame.isConstantExpression or not isinstance(frame.dataType, (StringType, NullType)):
            raise InvalidInputError("kafka_consumer_groups: frame must be a constant string", column="frame")
        name = frame.value or "groups"
    if name not in FRAME_COLUMNS:
        raise InvalidInputError(f"kafka_consumer_groups: frame must be one of {', '.join(FRAME_COLUMNS)}; got "
                                f"{name!r}", column="frame", rows=[name])
    schema = StructType([StructField(n, _SPARK_TYPES[t]) for n, t in FRAME_COLUMNS[name]])
    return RecordsPlan(
        schema=schema,
        select=[SelectedColumn(f"`{fields['key'].name}`", alias="key"),
                SelectedColumn(f"`{fields['value'].name}`", alias="value"),
                SelectedColumn(f"CAST(`{fields['partition'].name}` AS INT)", alias="partition"),
                SelectedColumn(f"CAST(`{fields['offset'].name}` AS BIGINT)", alias="offset")],
        partitionBy=[PartitioningColumn(f"`{fields['partition'].name}`")],
        orderBy=[OrderingColumn(f"`{fields['offset'].name}`")],
        frame=name)


class KafkaConsumerGroups(GatheringHandler):
    """The ``kafka_consumer_groups`` SQL table function: one handler per ``__consumer_offsets`` partition."""

    analyze = staticmethod(analyze_records)
    RECEIVED = pa.schema([("key", pa.binary()), ("value", pa.binary()), ("partition", pa.int32()),
                          ("offset", pa.int64())])

    def __init__(self, plan: RecordsPlan) -> None:
        super().__init__()
        self._plan = plan

    def terminate(self) -> Iterator[Any]:
        records = self.gathered()
        if records is None:
            return
        frames = replay_partition(records.column("partition")[0].as_py(), records.column("key").chunk(0),
                                  records.column("value").chunk(0), np.asarray(records.column("offset")))
        yield from self.answer(frames[Frames._fields.index(self._plan.frame)].to_batches())


#: The table functions this module adds (``spark_assign.register``).
KAFKA_TABLE_FUNCTIONS = {"kafka_consumer_groups": KafkaConsumerGroups}

"""The ``assign_replicas`` SQL table function: Kafka's replica placement from SQL, as a Python UDTF.

::

    SELECT * FROM assign_replicas(TABLE(topics_with_brokers), method => 'striped', seed => 0)

A Python UDTF takes one TABLE argument, so each row is a topic that carries its
cluster's description: ``brokers``, an ``array<struct<broker_id, rack, fenced>>``
(the same on every topic row of a cluster: ``collect_list(struct(...))`` of the
brokers, joined in), and for reassignments its current placement ``previous``,
an ``array<struct<partition, replica_index, broker_id>>`` (one
``collect_list(struct(...))`` of the function's own output per topic). The
function partitions its input by ``cluster_id`` itself.

Analysis (``analyze``): the columns and their types, the method and the
constant arguments are checked with the DataFrame method's own checks
(:func:`.replicas.check_options`), and Catalyst is told exactly what to send:
fixed names, 32-bit ints (a bigint out of range fails with the project's error
naming the column), the broker and replica structs rebuilt with every field.

Run time: one handler per cluster collects the cluster's topic rows, turns them
into the DataFrame method's wire rows (brokers, topics, previous replicas) and
places them with its worker (:func:`.replica_worker.place_wire`): same checks,
same engine call, same rows as ``DataFrame.assign_replicas``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import (ArrayType, BooleanType, DataType, IntegerType, NullType, StringType, StructField,
                               StructType)
from pyspark.sql.udtf import AnalyzeArgument, AnalyzeResult, PartitioningColumn, SelectedColumn

from ...errors import InvalidInputError, SchemaError
from ...types import ARROW_TYPES
from ..inputs import checked_int_sql, type_matches
from ..udtf import GatheringHandler
from .dataframe import KIND_BROKER, KIND_REPLICA, KIND_TOPIC, REPLICA_COLUMNS, WIRE_COLUMNS, check_options
from .worker import place_wire

__all__ = ["REPLICA_INPUT_COLUMNS", "ReplicaPlan", "AssignReplicas", "REPLICA_TABLE_FUNCTIONS"]

#: The table argument's columns (docs/sql.md, "Replica placement"): ``(name, type, required)``.
REPLICA_INPUT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("cluster_id", "string", False),
    ("topic", "string", True),
    ("num_partitions", "int", True),
    ("replication_factor", "int", False),
    ("brokers", "array<struct<broker_id: int, rack: string, fenced: boolean>>", True),
    ("previous", "array<struct<partition: int, replica_index: int, broker_id: int>>", False),
]
#: The fields of the two struct columns: name -> (type, required).
BROKER_FIELDS: Dict[str, Tuple[str, bool]] = {"broker_id": ("int", True), "rack": ("string", False),
                                              "fenced": ("boolean", False)}
REPLICA_FIELDS: Dict[str, Tuple[str, bool]] = {"partition": ("int", True), "replica_index": ("int", True),
                                               "broker_id": ("int", True)}

_SPARK_TYPES: Dict[str, DataType] = {"string": StringType(), "int": IntegerType(), "boolean": BooleanType()}
#: The output schema (built by hand: ``analyze`` runs where no SparkContext parses DDL).
REPLICA_STRUCT = StructType([StructField(name, _SPARK_TYPES[kind]) for name, kind in REPLICA_COLUMNS])
_BROKERS_ARROW = pa.list_(pa.struct([pa.field(n, ARROW_TYPES[k]) for n, (k, _) in BROKER_FIELDS.items()]))
_PREVIOUS_ARROW = pa.list_(pa.struct([pa.field(n, ARROW_TYPES[k]) for n, (k, _) in REPLICA_FIELDS.items()]))
#: The columns the handler receives, in order, with their Arrow types.
_RECEIVED = pa.schema([("cluster_id", pa.string()), ("topic", pa.string()), ("num_partitions", pa.int32()),
                       ("replication_factor", pa.int32()), ("brokers", _BROKERS_ARROW),
                       ("previous", _PREVIOUS_ARROW)])
_WIRE = pa.schema([(name, ARROW_TYPES[kind]) for name, kind in WIRE_COLUMNS])
_USAGE = "assign_replicas(TABLE(t), method => 'striped')"


@dataclass
class ReplicaPlan(AnalyzeResult):
    """What ``analyze`` decided, handed to every handler instance by Spark."""

    method: str = "striped"
    seed: int = 0
    replication_factor: Optional[int] = None
    start_index: Optional[int] = None
    rack_aware: Optional[str] = None


# ---------------------------------------------------------------------------------- analysis


def _constant(name: str, argument: Optional[AnalyzeArgument], kind: str, default: Any) -> Any:
    """A scalar argument's constant value (``default`` when absent; NULL is None); ``kind`` is
    ``string`` or ``int`` (integral of any width)."""
    if argument is None:
        return default
    if argument.isTable or not argument.isConstantExpression or not (
            isinstance(argument.dataType, NullType) or type_matches(argument.dataType, kind)):
        what = "a constant string" if kind == "string" else "a constant integer"
        raise InvalidInputError(f"assign_replicas: {name} must be {what} or NULL, got an argument of type "
                                f"{argument.dataType.simpleString()}", column=name)
    return argument.value


def _struct_sql(column: str, dtype: DataType, fields: Dict[str, Tuple[str, bool]]) -> str:
    """``column`` (an array of structs) rebuilt with exactly ``fields``: ints narrowed to 32 bits
    (a value beyond fails the query naming the field, as every int32 check does), absent optional
    fields as NULL or false."""
    element = cast(ArrayType, dtype).elementType
    present = {f.name.lower(): f for f in cast(StructType, element).fields}
    parts = []
    for name, (kind, required) in fields.items():
        f = present.get(name)
        if f is None:
            if required:
                raise SchemaError(f"assign_replicas: column '{column}' holds structs without the field '{name}' "
                                  f"({kind}); it has: {', '.join(present) or 'none'}; usage: {_USAGE}")
            value = "false" if kind == "boolean" else f"CAST(NULL AS {kind.upper()})"
        elif not (type_matches(f.dataType, "int") if kind == "int" else
                  isinstance(f.dataType, type(_SPARK_TYPES[kind]))):
            raise SchemaError(f"assign_replicas: field '{name}' of column '{column}' must be {kind}, got "
                              f"{f.dataType.simpleString()}")
        elif kind == "int":
            value = checked_int_sql(name, f"x.`{f.name}`")
        else:
            value = f"x.`{f.name}`" if kind == "string" else f"coalesce(x.`{f.name}`, false)"
        parts.append(f"'{name}', {value}")
    return f"transform(`{column}`, x -> named_struct({', '.join(parts)}))"


def analyze_replicas(table: Optional[AnalyzeArgument], method: Optional[AnalyzeArgument] = None,
                     seed: Optional[AnalyzeArgument] = None, replication_factor: Optional[AnalyzeArgument] = None,
                     start_index: Optional[AnalyzeArgument] = None,
                     rack_aware: Optional[AnalyzeArgument] = None) -> ReplicaPlan:
    """Check one call of ``assign_replicas`` at analysis time and plan its input columns.

    Raises :class:`SchemaError` (a missing table, a missing or mistyped column or field),
    :class:`~spark_assign.errors.UnknownStrategyError` (an unknown method) and
    :class:`InvalidInputError` (an argument out of range, ``sticky`` without ``previous``).
    """
    if table is None or not table.isTable:
        raise SchemaError(f"assign_replicas: the first argument must be a table, as in {_USAGE}")
    fields = {f.name.lower(): f for f in cast(StructType, table.dataType).fields}
    missing = [n for n, _, required in REPLICA_INPUT_COLUMNS if required and n not in fields]
    if missing:
        raise SchemaError(f"assign_replicas: the input table lacks the required column '{missing[0]}' "
                          f"({dict((n, k) for n, k, _ in REPLICA_INPUT_COLUMNS)[missing[0]]}); it has: "
                          f"{', '.join(f.name for f in cast(StructType, table.dataType).fields)}; usage: {_USAGE}")
    options = check_options(_constant("method", method, "string", "striped"),
                            _constant("replication_factor", replication_factor, "int", None),
                            _constant("seed", seed, "int", 0),
                            _constant("start_index", start_index, "int", None),
                            _constant("rack_aware", rack_aware, "string", None),
                            "previous" in fields, "a column previous, array<struct<partition, replica_index, "
                            "broker_id>> (each topic's current replicas)")
    if "replication_factor" not in fields and options.replication_factor is None:
        raise InvalidInputError("assign_replicas: replication_factor is required: a column of the table or the "
                                "argument replication_factor => 3", column="replication_factor")
    selected = []
    for name, kind, _ in REPLICA_INPUT_COLUMNS:
        f = fields.get(name)
        if f is None:
            sql = f"CAST(NULL AS {kind})"
        elif name == "brokers" or name == "previous":
            if not (isinstance(f.dataType, ArrayType) and isinstance(f.dataType.elementType, StructType)):
                raise SchemaError(f"assign_replicas: column '{name}' must be {kind}, got {f.dataType.simpleString()}")
            sql = _struct_sql(f.name, f.dataType, BROKER_FIELDS if name == "brokers" else REPLICA_FIELDS)
        elif not type_matches(f.dataType, kind):
            raise SchemaError(f"assign_replicas: column '{name}' must be {kind}, got {f.dataType.simpleString()}")
        elif kind == "int":
            sql = checked_int_sql(name, f"`{f.name}`", key=f"`{fields['topic'].name}`")
        else:
            sql = f"`{f.name}`"
        selected.append(SelectedColumn(sql, alias=name))
    return ReplicaPlan(
        schema=REPLICA_STRUCT,
        select=selected,
        partitionBy=[PartitioningColumn(f"`{fields['cluster_id'].name}`" if "cluster_id" in fields else "0")],
        method=options.method, seed=options.seed, replication_factor=options.replication_factor,
        start_index=options.start_index, rack_aware=options.rack_aware)


# ---------------------------------------------------------------------------------- run time


class AssignReplicas(GatheringHandler):
    """The ``assign_replicas`` SQL table function: one handler per cluster (see the module docstring)."""

    analyze = staticmethod(analyze_replicas)
    RECEIVED = _RECEIVED

    def __init__(self, plan: ReplicaPlan) -> None:
        super().__init__()
        self._plan = plan

    def terminate(self) -> Iterator[Any]:
        try:
            out = place_topic_rows(self.gathered(), self._plan)
        except InvalidInputError as e:                  # to the caller as InvalidInputError (see .failures)
            raise e.for_driver() from None
        yield from self.answer(out)


def place_topic_rows(rows: Optional[pa.Table], plan: ReplicaPlan) -> List[pa.RecordBatch]:
    """One cluster's topic rows (the :data:`REPLICA_INPUT_COLUMNS`, brokers on every row) placed:
    the output batches. Errors name the cluster, the column and the rows."""
    if rows is None or rows.num_rows == 0:
        return []
    rows = rows.cast(_RECEIVED).combine_chunks()
    cluster = rows.column("cluster_id")[0].as_py()
    topics = rows.column("topic").to_pylist()
    brokers = _one_broker_list(rows.column("brokers").chunk(0), topics, cluster)
    n, t = len(brokers), rows.num_rows
    factor = rows.column("replication_factor")
    if plan.replication_factor is not None:
        factor = pc.coalesce(factor, pa.scalar(plan.replication_factor, pa.int32()))
    flat = brokers.flatten()
    broker_rows = _wire(cluster, KIND_BROKER, n, broker_id=flat[0], rack=flat[1], fenced=flat[2])
    topic_rows = _wire(cluster, KIND_TOPIC, t, topic=rows.column("topic"),
                       num_partitions=rows.column("num_partitions"), replication_factor=factor)
    previous = rows.column("previous").chunk(0)
    parent = np.asarray(pc.list_parent_indices(previous).to_numpy(zero_copy_only=False), dtype=np.int64)
    replicas = pc.list_flatten(previous)
    if replicas.null_count:
        raise InvalidInputError("previous: a null replica (a struct of partition, replica_index, broker_id)",
                                column="previous", rows=sorted({topics[i] for i in parent}), group=cluster)
    parts = replicas.flatten()
    replica_rows = _wire(cluster, KIND_REPLICA, len(parent), topic=rows.column("topic").take(pa.array(parent)),
                         partition=parts[0], replica_index=parts[1], broker_id=parts[2])
    wire = pa.concat_tables([broker_rows, topic_rows, replica_rows])
    return list(place_wire(wire, plan.method, plan.seed, plan.start_index, plan.rack_aware))


def _one_broker_list(brokers: pa.ListArray, topics: List[Optional[str]], cluster: Optional[str]) -> pa.Array:
    """The cluster's brokers: the ``brokers`` value every topic row carries, which must be one."""
    lengths = np.asarray(pc.list_value_length(brokers).fill_null(-1).to_numpy(zero_copy_only=False))
    if (lengths <= 0).any():
        bad = [topics[i] for i in np.flatnonzero(lengths <= 0)]
        raise InvalidInputError("a topic row without brokers: every row needs its cluster's brokers "
                                "(collect_list(struct(broker_id, rack, fenced)) per cluster)", column="brokers",
                                rows=bad, group=cluster)
    first = brokers[0].values
    if len(lengths) > 1:
        same = lengths == lengths[0]
        if same.all():
            flat = pc.list_flatten(brokers)
            for field in range(flat.type.num_fields):     # equal values, equal dictionary codes
                encoded = pc.dictionary_encode(flat.field(field)).indices.fill_null(-1)
                codes = np.asarray(encoded.to_numpy(zero_copy_only=False)).reshape(len(lengths), -1)
                same &= (codes == codes[0]).all(axis=1)
        if not same.all():
            bad = [topics[i] for i in np.flatnonzero(~same)]
            raise InvalidInputError("rows of one cluster disagree on brokers: every topic row of a cluster must "
                                    f"carry the same list (the first, topic {topics[0]!r}, has {int(lengths[0])})",
                                    column="brokers", rows=bad, group=cluster)
    return first


def _wire(cluster: Optional[str], kind: int, count: int, **columns: Any) -> pa.Table:
    """``count`` wire rows of ``kind``: the given columns, nulls elsewhere."""
    arrays = []
    for field in _WIRE:
        if field.name == "cluster_id":
            arrays.append(pa.array([cluster] * count, pa.string()))
        elif field.name == "kind":
            arrays.append(pa.array(np.full(count, kind, dtype=np.int32)))
        elif field.name in columns:
            arrays.append(pa.array(columns[field.name]).cast(field.type) if not isinstance(
                columns[field.name], (pa.Array, pa.ChunkedArray)) else columns[field.name].cast(field.type))
        else:
            arrays.append(pa.nulls(count, field.type))
    return pa.Table.from_arrays(arrays, schema=_WIRE)


#: SQL name -> handler class.
REPLICA_TABLE_FUNCTIONS: Dict[str, type] = {"assign_replicas": AssignReplicas}
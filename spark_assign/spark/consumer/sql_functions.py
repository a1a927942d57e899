"""The SQL table functions that assign partitions, as Python UDTFs.

``assign_partitions(TABLE(t) PARTITION BY group_id, strategy => 'sticky')`` and one
``assign_<strategy>(TABLE(t))`` per strategy (``assign_cooperative_sticky``...),
which partition their input by ``group_id`` themselves. The load-aware ones read a
``partition_weights`` column (per topic, like ``replica_racks``) and take the knobs as
constant arguments: ``assign_load_aware(TABLE(t), max_count_skew => 2, min_improvement => 0.1)``.

Analysis time (``analyze``, run by Spark's planner in a Python process): the table
argument's columns and types are checked, the strategy is resolved, and Catalyst
is told exactly which columns to send (``AnalyzeResult.select``: fixed names,
casts to the wire types, typed nulls for absent optional columns), so the
workers see one known layout whatever the user's table looks like. Every
mistake that can be seen from the schema fails here, before any job.

Run time: Spark makes one handler instance per group (the PARTITION BY) and feeds
it the group's rows through ``eval``: Arrow record batches when registered with
the Arrow eval type, else one ``Row`` at a time. ``terminate`` turns the rows
into the DataFrame method's wire layout (:mod:`.wire`) and assigns the group
with the DataFrame method's own worker code (:func:`.worker.assign_batches`):
same validation, same engine call, same generation rule, same output rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import (DataType, DecimalType, DoubleType, FloatType, IntegerType, LongType, StringType,
                               StructField, StructType)
from pyspark.sql.udtf import AnalyzeArgument, AnalyzeResult, PartitioningColumn, SelectedColumn

from ...core import get_strategy, strategy_names
from ...errors import InvalidInputError, SchemaError
from ...schema import RESULT_COLUMNS
from ...core.consumer.keys import run_positions
from ...core.consumer.weights import weights_from_rows
from ...types import ARROW_TYPES
from ..inputs import checked_int_sql, load_knobs, spark_strategy, type_matches
from .wire import KIND_RACKS, KIND_SUBSCRIPTION, KIND_WEIGHTS, WIRE_COLUMNS, WIRE_SCHEMA, wire_batch

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["INPUT_COLUMNS", "AssignPlan", "TABLE_FUNCTIONS", "assign_table_rows"]

#: The table argument's columns (docs/sql.md, "Input"): ``(name, type, required)``.
#: Integral types of any width are accepted where ``int`` is written.
INPUT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("group_id", "string", True),
    ("member_id", "string", True),
    ("topic", "string", True),
    ("num_partitions", "int", True),
    ("group_instance_id", "string", False),
    ("rack", "string", False),
    ("owned_partitions", "array<int>", False),
    ("generation", "int", False),
    ("replica_racks", "array<array<string>>", False),
    ("partition_weights", "array<double>", False),
]
#: The load-aware knobs, constant arguments of the functions of weighted strategies and of
#: ``assign_partitions``: (name, Spark types accepted).
KNOB_ARGUMENTS = (("max_count_skew", (IntegerType, LongType)),
                  ("min_improvement", (IntegerType, LongType, DecimalType, DoubleType, FloatType)))

_SQL_TYPES = {"string": "STRING", "int": "INT", "array<int>": "ARRAY<INT>",
              "array<array<string>>": "ARRAY<ARRAY<STRING>>", "tinyint": "TINYINT", "array<double>": "ARRAY<DOUBLE>"}
_SPARK_TYPES: Dict[str, DataType] = {"string": StringType(), "int": IntegerType()}

#: The output schema (built by hand: ``analyze`` runs where no SparkContext parses DDL).
RESULT_STRUCT = StructType([StructField(name, _SPARK_TYPES[kind]) for name, kind in RESULT_COLUMNS])
#: The output schema with weights: each partition's weight too.
WEIGHTED_STRUCT = StructType(RESULT_STRUCT.fields + [StructField("weight", DoubleType())])


@dataclass
class AssignPlan(AnalyzeResult):
    """What ``analyze`` decided, handed to every handler instance by Spark."""

    function: str = "assign_partitions"
    strategy: str = ""
    columns: Tuple[str, ...] = ()          # the selected columns, in order
    with_racks: bool = False               # send replica racks to the engine
    with_weights: bool = False             # send partition weights to the engine (and output them)
    options: Dict[str, Any] = field(default_factory=dict)   # the load-aware knobs given
    partitioned_by_itself: bool = False    # the function declared PARTITION BY group_id


# ---------------------------------------------------------------------------------- analysis


def _strategy_argument(function: str, strategy: Optional[AnalyzeArgument]) -> str:
    if strategy is None:
        return "cooperative-sticky"                # the DataFrame method's default
    if strategy.isTable or not strategy.isConstantExpression or not isinstance(strategy.dataType, StringType):
        raise InvalidInputError(
            f"{function}: strategy must be a constant string such as 'sticky' "
            f"(one of {', '.join(strategy_names())}), got an argument of type {strategy.dataType.simpleString()}",
            column="strategy")
    if strategy.value is None:
        raise InvalidInputError(f"{function}: strategy must not be NULL; use one of {', '.join(strategy_names())}",
                                column="strategy")
    return strategy.value


def _knobs(function: str, given: Dict[str, Optional[AnalyzeArgument]]) -> Dict[str, Any]:
    """The load-aware knobs given as constant arguments, checked (:func:`.inputs.load_knobs`)."""
    values: Dict[str, Any] = {}
    for name, types in KNOB_ARGUMENTS:
        arg = given.get(name)
        if arg is None:
            continue
        if arg.isTable or not arg.isConstantExpression or not isinstance(arg.dataType, types) or arg.value is None:
            raise InvalidInputError(f"{function}: {name} must be a constant number such as "
                                    f"{'2' if name == 'max_count_skew' else '0.05'}, got an argument of type "
                                    f"{arg.dataType.simpleString()}", column=name)
        values[name] = float(arg.value) if name == "min_improvement" else arg.value
    return load_knobs(values.get("max_count_skew"), values.get("min_improvement"))


def analyze_call(function: str, table: Optional[AnalyzeArgument], strategy: Optional[AnalyzeArgument],
                 fixed_strategy: Optional[str], knobs: Optional[Dict[str, Optional[AnalyzeArgument]]] = None
                 ) -> AssignPlan:
    """Check one call of ``function`` at analysis time and plan its input columns.

    Raises :class:`SchemaError` for a missing table argument, a missing or
    mistyped column, :class:`UnknownStrategyError` for an unknown strategy, and
    :class:`InvalidInputError` for a weighted strategy without ``partition_weights``
    or a bad knob (``knobs``: the ``max_count_skew`` and ``min_improvement`` arguments).
    """
    usage = (f"{function}(TABLE(t))" if fixed_strategy else
             f"{function}(TABLE(t) PARTITION BY group_id, strategy => 'sticky')")
    if table is None or not table.isTable:
        raise SchemaError(f"{function}: the first argument must be a table, as in {usage}")
    fields = {f.name.lower(): f for f in cast(StructType, table.dataType).fields}
    chosen = spark_strategy(fixed_strategy or _strategy_argument(function, strategy),
                            weights_given="partition_weights" in fields, argument="partition_weights")
    options = _knobs(function, knobs or {})
    selected: List[SelectedColumn] = []
    names: List[str] = []
    present: Dict[str, str] = {}
    for name, kind, required in INPUT_COLUMNS:
        f = fields.get(name)
        if f is None:
            if required:
                raise SchemaError(
                    f"{function}: the input table lacks the required column '{name}' ({kind}); "
                    f"it has: {', '.join(x.name for x in cast(StructType, table.dataType).fields)}; usage: {usage}")
        elif not type_matches(f.dataType, kind):
            raise SchemaError(f"{function}: column '{name}' must be {kind}, got {f.dataType.simpleString()}")
        else:
            present[name] = f.name
        if name == "replica_racks" and not (chosen.rack_aware and f is not None):
            continue                               # only rack-aware strategies read replica racks
        if name == "partition_weights" and f is None:
            continue
        source = f"`{present[name]}`" if name in present else "NULL"
        if f is not None and kind == "int" and isinstance(f.dataType, LongType):   # no overflow error from CAST
            key = f"`{present['topic' if name == 'num_partitions' else 'member_id']}`"
            selected.append(SelectedColumn(checked_int_sql(name, source, key), alias=name))
        else:
            selected.append(SelectedColumn(f"CAST({source} AS {_SQL_TYPES[kind]})", alias=name))
        names.append(name)
    with_weights = "partition_weights" in names
    return AssignPlan(
        schema=WEIGHTED_STRUCT if with_weights else RESULT_STRUCT,
        select=selected,
        partitionBy=[PartitioningColumn(f"`{present['group_id']}`")] if fixed_strategy else [],
        function=function,
        strategy=chosen.name,
        columns=tuple(names),
        with_racks="replica_racks" in names,
        with_weights=with_weights,
        options=options,
        partitioned_by_itself=bool(fixed_strategy),
    )


# ---------------------------------------------------------------------------------- run time


class AssignHandler:
    """The UDTF handler: collects one group's rows, assigns them in ``terminate``.

    Subclasses (one per SQL name, made below) supply ``analyze``.
    """

    def __init__(self, plan: AssignPlan) -> None:
        self._plan = plan
        self._batches: List[pa.RecordBatch] = []
        self._rows: List[tuple] = []
        self._arrow = False
        self._group: Any = _NO_GROUP
        self._partitioned = plan.partitioned_by_itself or _made_for_one_partition()

    def eval(self, table: Any, *args: Any, **kwargs: Any) -> None:
        try:
            self._collect(table)
        except InvalidInputError as e:     # to the caller as InvalidInputError (see .failures)
            raise e.for_driver() from None

    def terminate(self) -> Iterator[Any]:
        try:
            yield from self._assign()
        except InvalidInputError as e:
            raise e.for_driver() from None

    def _collect(self, table: Any) -> None:
        if self._partitioned is False:
            self._not_partitioned()
        if isinstance(table, pa.RecordBatch):
            self._arrow = True
            if table.num_rows:
                groups = table.column(0)
                if self._group is _NO_GROUP:
                    self._group = groups[0].as_py()
                if pc.count_distinct(groups, mode="all").as_py() > 1 or groups[0].as_py() != self._group:
                    values = pc.unique(groups).to_pylist()
                    self._several_groups(self._group, next(g for g in values if g != self._group))
                self._batches.append(table)
        else:
            row = tuple(table)
            if self._group is _NO_GROUP:
                self._group = row[0]
            elif row[0] != self._group:
                self._several_groups(self._group, row[0])
            self._rows.append(row)

    def _assign(self) -> Iterator[Any]:
        batch = self._input_batch()
        if batch is None:
            return
        plan = self._plan
        out = assign_table_rows(batch, plan.strategy, plan.with_racks, plan.with_weights, plan.options)
        if out is None:
            return
        if self._arrow:
            yield out
        else:
            yield from zip(*(column.to_pylist() for column in out.columns))

    def _input_batch(self) -> Optional[pa.RecordBatch]:
        if self._batches:
            if len(self._batches) == 1:
                return self._batches[0]
            return pa.Table.from_batches(self._batches).combine_chunks().to_batches()[0]
        if not self._rows:
            return None
        kinds = dict((n, k) for n, k, _ in INPUT_COLUMNS)
        names = self._plan.columns
        columns = list(zip(*self._rows))
        return pa.RecordBatch.from_arrays(
            [pa.array(values, type=ARROW_TYPES[kinds[name]]) for name, values in zip(names, columns)],
            names=list(names))

    def _several_groups(self, first: Any, second: Any) -> None:
        function = self._plan.function
        raise InvalidInputError(
            f"{function} received rows of more than one group in one call: partition its input by "
            f"group, as in {function}(TABLE(t) PARTITION BY group_id, strategy => '{self._plan.strategy}')",
            column="group_id", rows=[first, second])

    def _not_partitioned(self) -> None:
        function = self._plan.function
        raise InvalidInputError(
            f"{function} needs its table argument partitioned by group: write "
            f"{function}(TABLE(t) PARTITION BY group_id, strategy => '{self._plan.strategy}'), or call "
            f"assign_{self._plan.strategy.replace('-', '_')}(TABLE(t)), which partitions by itself",
            column="group_id")


_NO_GROUP = object()
#: The classes with which Spark's Python worker wraps a UDTF whose table argument is partitioned.
_PARTITION_WRAPPERS = frozenset({"ArrowUDTFWithPartition", "UDTFWithPartitions"})


def _made_for_one_partition() -> Optional[bool]:
    """Whether Spark's worker is creating this handler for a partitioned table argument.

    Spark never tells ``analyze`` whether the call has a PARTITION BY, but its
    Python worker creates the handler through a wrapper class when it has one
    (``pyspark.worker.read_udtf``), and directly otherwise. True: a wrapper is
    among the callers; False: the worker's ``read_udtf`` created it directly
    (no PARTITION BY); None: neither was recognised (another Spark version, or
    a direct call), and only the several-groups check applies.
    """
    import sys

    try:
        frame: Optional[FrameType] = sys._getframe(2)
    except (AttributeError, ValueError):
        return None
    for _ in range(6):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        if owner is not None and type(owner).__name__ in _PARTITION_WRAPPERS:
            return True
        if frame.f_code.co_name == "read_udtf" and frame.f_globals.get("__name__", "").startswith("pyspark"):
            return False
        frame = frame.f_back
    return None


def assign_table_rows(batch: pa.RecordBatch, strategy: str, with_racks: bool, with_weights: bool = False,
                      options: Optional[Dict[str, Any]] = None) -> Optional[pa.RecordBatch]:
    """Assign the one group whose table-argument rows are ``batch`` (columns named as
    :data:`INPUT_COLUMNS`; absent optional ones may be missing). Returns the result
    rows (``RESULT_COLUMNS``, and ``weight`` with weights), or None when the group has no partition."""
    from .worker import assign_batches

    if batch.num_rows == 0:
        return None
    group = batch.column("group_id")[0].as_py()
    _check_topic_counts(batch, group)
    wire = _wire(batch, with_racks, group)
    if with_weights:
        wire = pa.concat_batches([wire, _weight_rows(batch, group)])
    out = list(assign_batches(iter([wire]), strategy, group_column=True, options=options,
                              with_weight=with_weights))
    return out[0] if out else None


def _check_topic_counts(batch: pa.RecordBatch, group: Any) -> None:
    """Rows of one topic must agree on ``num_partitions`` (the metadata is per topic)."""
    if batch.num_rows < 2:
        return
    topics = batch.column("topic").dictionary_encode()
    index = np.asarray(topics.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    counts = np.asarray(batch.column("num_partitions").cast(pa.int64()).fill_null(-(1 << 32))
                        .to_numpy(zero_copy_only=False), dtype=np.int64)
    keep = index >= 0
    pairs = np.unique(index[keep] * (1 << 33) + counts[keep] + (1 << 32))
    topic_of = pairs >> 33
    if len(pairs) == len(np.unique(topic_of)):
        return
    bad = int(topic_of[1:][topic_of[1:] == topic_of[:-1]][0])
    seen = sorted({None if c == -(1 << 32) else int(c) for c in counts[keep][index[keep] == bad]},
                  key=lambda c: (c is None, c))
    name = topics.dictionary[bad].as_py()
    raise InvalidInputError("rows of one topic disagree on num_partitions", column="num_partitions",
                            rows=[(name, c) for c in seen], group=group)


def _wire(batch: pa.RecordBatch, with_racks: bool, group: Any) -> pa.RecordBatch:
    """``batch`` as wire rows: one subscription row each, plus one replica-racks row per topic."""
    n = batch.num_rows
    present = set(batch.schema.names)
    given = {name: batch.column(name) for name, _ in WIRE_COLUMNS if name in present and name != "replica_racks"}
    given["kind"] = pa.array(np.full(n, KIND_SUBSCRIPTION, dtype=np.int8))
    subscriptions = wire_batch(given, n)
    if not with_racks or "replica_racks" not in present or batch.column("replica_racks").null_count == n:
        return subscriptions
    racks = _per_topic(batch, "replica_racks", group)
    m = len(racks)
    values = {"group_id": pa.array([group] * m, pa.string()),
              "kind": pa.array(np.full(m, KIND_RACKS, dtype=np.int8)),
              "topic": pa.array(list(racks), pa.string()),
              "replica_racks": pa.array(list(racks.values()), WIRE_SCHEMA.field("replica_racks").type)}
    return pa.concat_batches([subscriptions, wire_batch(values, m)])


def _per_topic(batch: pa.RecordBatch, column: str, group: Any) -> Dict[str, Any]:
    """``column``'s value per topic (rows of one topic must agree; NULL values and topics are skipped)."""
    per: Dict[str, Any] = {}
    for topic, value in zip(batch.column("topic").to_pylist(), batch.column(column).to_pylist()):
        if topic is None or value is None:
            continue
        if per.setdefault(topic, value) != value:
            raise InvalidInputError(f"rows of one topic disagree on {column}", column=column,
                                    rows=[(topic, per[topic]), (topic, value)], group=group)
    return per


def _weight_rows(batch: pa.RecordBatch, group: Any) -> pa.RecordBatch:
    """The group's ``partition_weights`` (one array per topic, ``p``-th element the weight of
    partition ``p``) as weight rows of the wire, checked here so that errors name the SQL column:
    a topic's rows must agree, and an array's length must be the topic's partition count; the
    values are checked by :func:`~spark_assign.core.consumer.weights.weights_from_rows`. A NULL array:
    the topic has no weights (it gets the mean of the group's, see docs/load-aware.md).
    Array passes only: the group's rows repeat each topic's array once per member."""
    arrays = batch.column("partition_weights")
    topics = batch.column("topic").dictionary_encode()
    codes = np.asarray(topics.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    rows = np.flatnonzero((codes >= 0) & np.asarray(arrays.is_valid().to_numpy(zero_copy_only=False), dtype=bool))
    names_all = topics.dictionary.to_pylist()
    _, first_at, of_row = np.unique(codes[rows], return_index=True, return_inverse=True)
    firsts = rows[first_at]                               # one row per topic with weights
    offsets = np.asarray(arrays.offsets, dtype=np.int64)
    lengths = offsets[1:] - offsets[:-1]
    values = arrays.values
    flat = np.asarray(values.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    nulls = np.asarray(values.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    mine = firsts[of_row.reshape(-1)]                     # each row's topic's first row
    same = lengths[rows] == lengths[mine]
    if same.any():
        r, f = rows[same], mine[same]
        within = run_positions(lengths[r])
        a, b = np.repeat(offsets[r], lengths[r]) + within, np.repeat(offsets[f], lengths[r]) + within
        equal = (nulls[a] == nulls[b]) & ((flat[a] == flat[b]) | np.isnan(flat[a]) & np.isnan(flat[b]) | nulls[a])
        bad_value = np.repeat(np.arange(len(r)), lengths[r])[~equal]
        same[np.flatnonzero(same)[np.unique(bad_value)]] = False
    if not same.all():
        row, first = int(rows[~same][0]), int(mine[~same][0])
        topic = names_all[codes[row]]
        raise InvalidInputError("rows of one topic disagree on partition_weights", column="partition_weights",
                                rows=[(topic, arrays[first].as_py()), (topic, arrays[row].as_py())], group=group)
    counts = _topic_counts(batch)
    keep = [i for i in firsts.tolist() if (counts.get(names_all[codes[i]]) or 0) > 0]
    names = [names_all[codes[i]] for i in keep]
    want = np.array([counts[t] for t in names], dtype=np.int64)
    have = lengths[keep] if keep else np.zeros(0, dtype=np.int64)
    if (want != have).any():
        raise InvalidInputError("partition_weights must have one weight per partition: (topic, partitions, "
                                "weights) differ", column="partition_weights",
                                rows=[(t, int(n), int(k)) for t, n, k in zip(names, want, have) if n != k], group=group)
    at = np.repeat(offsets[keep] if keep else np.zeros(0, dtype=np.int64), want) + run_positions(want)
    weight, null = flat[at], nulls[at]
    topic = np.repeat(np.arange(len(names), dtype=np.int64), want)
    partition = run_positions(want)
    try:
        weights_from_rows(names, want, topic, partition, weight, null,
                          weight_column="partition_weights", partition_column="partition_weights")
    except InvalidInputError as e:
        raise e.in_group(group) from None
    m = len(at)
    columns = {"group_id": pa.array([group] * m, pa.string()),
               "kind": pa.array(np.full(m, KIND_WEIGHTS, dtype=np.int8)),
               "topic": pa.DictionaryArray.from_arrays(pa.array(topic.astype(np.int32)),
                                                       pa.array(names, pa.string())).cast(pa.string()),
               "partition": pa.array(partition.astype(np.int32)),
               "weight": pa.array(weight, mask=null)}
    return wire_batch(columns, m)


def _topic_counts(batch: pa.RecordBatch) -> Dict[str, Optional[int]]:
    """Each topic's ``num_partitions`` (rows of a topic agree: :func:`_check_topic_counts`)."""
    return dict(zip(batch.column("topic").to_pylist(), batch.column("num_partitions").to_pylist()))


# ---------------------------------------------------------------------------------- SQL names


def _handler_class(function: str, strategy: Optional[str]) -> type:
    """The handler class of one SQL name, module-level so workers import it by name. ``analyze``
    takes the knobs of the load-aware strategies where they apply (``assign_partitions`` and the
    weighted strategies' own functions)."""
    if strategy is None:
        def analyze(table: AnalyzeArgument, strategy: Optional[AnalyzeArgument] = None,
                    max_count_skew: Optional[AnalyzeArgument] = None,
                    min_improvement: Optional[AnalyzeArgument] = None) -> AssignPlan:
            return analyze_call(function, table, strategy, None,
                                {"max_count_skew": max_count_skew, "min_improvement": min_improvement})
    elif get_strategy(strategy).weighted:
        def analyze(table: AnalyzeArgument, max_count_skew: Optional[AnalyzeArgument] = None,  # type: ignore[misc]
                    min_improvement: Optional[AnalyzeArgument] = None) -> AssignPlan:
            return analyze_call(function, table, None, strategy,
                                {"max_count_skew": max_count_skew, "min_improvement": min_improvement})
    else:
        def analyze(table: AnalyzeArgument) -> AssignPlan:  # type: ignore[misc]
            return analyze_call(function, table, None, strategy)
    class_name = "".join(part.capitalize() for part in function.split("_"))
    cls = type(class_name, (AssignHandler,), {
        "analyze": staticmethod(analyze),
        "__module__": __name__,
        "__qualname__": class_name,
        "__doc__": f"The ``{function}`` SQL table function"
                   + (f" (strategy ``{strategy}``, partitioned by group_id itself)." if strategy else "."),
    })
    globals()[class_name] = cls
    return cls


#: SQL name -> handler class: ``assign_partitions`` and one per built-in strategy.
TABLE_FUNCTIONS: Dict[str, type] = {"assign_partitions": _handler_class("assign_partitions", None)}
for _name in strategy_names():
    _function = "assign_" + _name.replace("-", "_")
    TABLE_FUNCTIONS[_function] = _handler_class(_function, _name)

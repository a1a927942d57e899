"""Checking and normalizing the DataFrame method's inputs, before any Spark job runs.

Schema problems (missing or mistyped columns, a bad ``topics`` dict, an unknown
strategy) are found here from DataFrame schemas alone; data problems (nulls,
duplicates, negative counts) are found per group inside the job.
"""

from __future__ import annotations

import json
import numbers
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..core.consumer.model import check_topics
from ..core.consumer.registry import Strategy, get_strategy
from ..core.consumer.weights import check_load_options
from ..columns import check_fields
from ..errors import WORKER_MARK, InvalidInputError
from ..schema import SUBSCRIPTION_COLUMNS, WEIGHT_COLUMNS
from ..types import arrow_schema, spark_ddl

__all__ = ["spark_strategy", "load_knobs", "weights_frame", "weight_table", "subscription_columns", "topics_frame",
           "previous_frame", "check_columns", "type_matches", "checked_int_sql", "checked_int", "checked_double",
           "checked_bool_sql", "checked_bool"]

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_NUMERIC = _INTEGRAL + (T.FloatType, T.DoubleType, T.DecimalType)

#: Arrow types of the Spark DDL types the project's columns use (timestamps: UTC microseconds,
#: as Delta protocol 1/2 stores them).
#: The columns of a dict's weight rows: ``WEIGHT_COLUMNS`` without ``group_id`` (a dict of
#: weights applies to every group that subscribes to its topics).
DICT_WEIGHT_COLUMNS: List[Tuple[str, str]] = [(n, t) for n, t, _ in WEIGHT_COLUMNS if n != "group_id"]


def spark_strategy(name: object, weights_given: bool, argument: str = "weights") -> Strategy:
    """The strategy called ``name`` for the Spark surfaces (DataFrame method, SQL functions, state
    tables). A weighted strategy (``load-aware`` and friends) needs the per-partition weights
    (``argument``): without them it would quietly behave as ``sticky``, so it is refused with an
    :class:`~spark_assign.errors.InvalidInputError` naming ``argument``.

    Example::

        spark_strategy("sticky", weights_given=False).name == "sticky"
    """
    chosen = get_strategy(name)
    if chosen.weighted and not weights_given:
        raise InvalidInputError(f"strategy {chosen.name!r} balances per-partition weights: give them as "
                                f"{argument} (docs/load-aware.md); without them it would assign as 'sticky'",
                                column=argument, rows=[chosen.name])
    return chosen


def load_knobs(max_count_skew: Any, min_improvement: Any) -> Dict[str, Any]:
    """The load-aware knobs given (None: the engine's default), checked by the engine's own check
    (:func:`~spark_assign.core.consumer.weights.check_load_options`), as engine options.

    Example::

        load_knobs(2, None) == {"max_count_skew": 2}
    """
    knobs = {k: v for k, v in (("max_count_skew", max_count_skew), ("min_improvement", min_improvement))
             if v is not None}
    check_load_options(knobs)
    return {k: int(v) if k == "max_count_skew" else float(v) for k, v in knobs.items()}


def weights_frame(spark, weights: Any) -> Optional[DataFrame]:
    """``weights`` as a DataFrame ``(topic, partition int, weight double[, group_id])`` (see
    :data:`~spark_assign.schema.WEIGHT_COLUMNS`), or None.

    ``weights`` is None, a DataFrame with those columns (``group_id`` optional: without it, a
    topic's weights apply to every group subscribing to it), or a dict ``{topic: [weight of
    p0, p1, ...]}`` (the engine's shape, for every group). Columns and types are checked here;
    values (null, NaN, negative, a partition out of range or given twice) in the job, per group,
    by :func:`~spark_assign.core.consumer.weights.weights_from_rows`.

    Example::

        weights_frame(spark, {"orders": [900.0, 10.0, 10.0]}).columns == ["topic", "partition", "weight"]
    """
    if weights is None:
        return None
    if isinstance(weights, Mapping):
        return table_frame(spark, DICT_WEIGHT_COLUMNS, weight_table(weights))
    if isinstance(weights, DataFrame):
        present = check_columns(weights, "weights", WEIGHT_COLUMNS)
        cols = [F.col("topic"), _as_int(present, "partition", "topic"), F.col("weight").cast("double").alias("weight")]
        if "group_id" in present:
            cols.append(F.col("group_id"))
        return weights.select(*cols)
    raise InvalidInputError(
        f"weights must be a DataFrame (topic, partition, weight[, group_id]) or a dict {{topic: [weights]}}, "
        f"got {type(weights).__name__}", column="weights")


def weight_table(weights: Mapping[str, Any]) -> pa.Table:
    """A dict ``{topic: [weight of p0, p1, ...]}`` as weight rows ``(topic, partition, weight)``,
    checked (a null weight stays a row: the worker names it with its group, as for a DataFrame's).

    Example::

        weight_table({"orders": [900.0, 10.0]}).to_pylist()[1] == {"topic": "orders", "partition": 1, "weight": 10.0}

    The DataFrame method ships this table with the job (:func:`.wire.weights_travel`); the
    state table makes a DataFrame of it (:func:`weights_frame`).
    """
    check_load_options({"weights": weights})
    data: Dict[str, list] = {"topic": [], "partition": [], "weight": []}
    for topic, values in weights.items():
        if not isinstance(topic, str) or not topic:
            raise InvalidInputError("weights: topic names must be non-empty strings", column="weights",
                                    rows=[topic])
        if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
            raise InvalidInputError("weights of a topic must be a list of numbers, one per partition",
                                    column="weights", rows=[(topic, type(values).__name__)])
        data["topic"].extend([topic] * len(values))
        data["partition"].extend(range(len(values)))
        data["weight"].extend(_weight_values(topic, values))
    return local_table(DICT_WEIGHT_COLUMNS, data)


_PLAIN_WEIGHTS = {float, int, type(None), np.float64, np.float32, np.int64, np.int32}


def _weight_values(topic: str, values: Any) -> List[Optional[float]]:
    """One topic's weights as floats (None stays None), each checked to be a number: a 1-D NumPy
    array of numbers, or a list or tuple of ints, floats (Python's or NumPy's) and Nones, in one
    pass; anything else (a masked array, a set, a dict's values...) value by value."""
    if type(values) is np.ndarray and values.dtype.kind in "iuf" and values.ndim == 1:
        return values.astype(np.float64).tolist()
    kinds = set(map(type, values)) if type(values) in (list, tuple) else None
    if kinds is not None and kinds <= _PLAIN_WEIGHTS:
        if type(None) in kinds:
            return [None if v is None else float(v) for v in values]
        return np.asarray(values, dtype=np.float64).tolist()
    out: List[Optional[float]] = []
    for p, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, type(None))):
            raise InvalidInputError("weights must be numbers", column="weights", rows=[(topic, p, v)])
        out.append(None if v is None else float(v))
    return out


def _as_int(present: Dict[str, T.DataType], name: str, key: str) -> Column:
    """The integral column ``name`` (of types ``present``) as INT: a bigint checked to fit
    (:func:`checked_int`, naming the ``key`` of a bad row), a narrower one cast."""
    value = checked_int(name, name, key=key) if isinstance(present[name], T.LongType) else F.col(name).cast("int")
    return value.alias(name)


def local_table(columns: List[Tuple[str, str]], data: Dict[str, list]) -> pa.Table:
    """Driver-side ``data`` (``{column: values}``) as an Arrow table of ``columns`` (name, DDL type)."""
    schema = arrow_schema(columns)
    return pa.table({n: pa.array(data[n], type=schema.field(n).type) for n in schema.names}, schema=schema)


def local_frame(spark, columns: List[Tuple[str, str]], data: Dict[str, list]) -> DataFrame:
    """Driver-side ``data`` (``{column: values}``) as a DataFrame of ``columns`` (name, DDL type).

    Made from Arrow, it is a local relation (a list of rows would be an RDD):
    joining or broadcasting it runs no Spark job, and the optimizer knows its
    size. The DDL is given too: Spark Connect cannot infer an empty table's schema.
    """
    return table_frame(spark, columns, local_table(columns, data))


def table_frame(spark, columns: List[Tuple[str, str]], table: pa.Table) -> DataFrame:
    """The driver-side Arrow ``table`` of ``columns`` (name, DDL type) as a DataFrame (see
    :func:`local_frame`)."""
    return spark.createDataFrame(table, schema=spark_ddl(columns))


def checked_int_sql(column: str, source: str, key: Optional[str] = None) -> str:
    """A SQL expression: ``source`` (any type: a bigint, or text read from a CSV file) as a
    32-bit INT. A non-null value that is not one (a count above 2,147,483,647, ``'twelve'``)
    fails the query with an :class:`~spark_assign.errors.InvalidInputError` naming ``column`` and
    the offending row (``(key, value)``, or the value), as the engine's own checks do, instead of
    Spark's cast error: the message carries the error's fields after
    :data:`~spark_assign.errors.WORKER_MARK` (see :meth:`InvalidInputError.from_spark`).

    Example::

        checked_int_sql("num_partitions", "`num_partitions`", key="`topic`")
    """
    problem = f"{column} must be a 32-bit integer (Kafka's partition counts, ids and generations are int32)"
    return _checked_cast_sql(column, source, key, problem, f"try_cast({source} AS INT)")


def checked_bool_sql(column: str, source: str, key: Optional[str] = None) -> str:
    """A SQL expression: ``source`` (text read from a CSV file) as a BOOLEAN from ``true`` or
    ``false`` (any case, spaces around ignored); any other non-null value fails the query with an
    :class:`~spark_assign.errors.InvalidInputError` naming ``column``, as :func:`checked_int_sql`.

    Example::

        checked_bool_sql("fenced", "`fenced`", key="`broker_id`")
    """
    word = f"lower(trim(CAST({source} AS STRING)))"
    value = f"CASE WHEN {word} = 'true' THEN true WHEN {word} = 'false' THEN false END"
    return _checked_cast_sql(column, source, key, f"{column} must be true or false", value)


def _checked_cast_sql(column: str, source: str, key: Optional[str], problem: str, value: str) -> str:
    """``value`` (a cast of ``source`` that is null when it fails), raising ``problem`` for a
    non-null ``source`` whose cast failed (see :func:`checked_int_sql`)."""
    fields = json.dumps({"problem": problem, "column": column, "group": None})
    head = f"{problem}; column '{column}'\n{WORKER_MARK}{fields[:-1]}, \"rows\": "
    shown = (f"array(CAST({key} AS STRING), CAST({source} AS STRING))" if key is not None
             else f"CAST({source} AS STRING)")
    message = f"concat({_sql_string(head)}, to_json(array({shown})), {_sql_string('}' + chr(10))})"
    return f"CASE WHEN {source} IS NOT NULL AND ({value}) IS NULL THEN raise_error({message}) ELSE {value} END"


def _sql_string(text: str) -> str:
    """``text`` as a SQL string literal."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return f"'{escaped}'"


def checked_int(column: str, source: str, key: Optional[str] = None) -> Column:
    """:func:`checked_int_sql` as a DataFrame column: the column named ``source`` as INT, failing
    the job with an :class:`~spark_assign.errors.InvalidInputError` naming ``column`` (and the
    value of the column named ``key``) for values that are not 32-bit integers."""
    return _checked(checked_int_sql, column, source, key)


def checked_bool(column: str, source: str, key: Optional[str] = None) -> Column:
    """:func:`checked_bool_sql` as a DataFrame column (see :func:`checked_int`)."""
    return _checked(checked_bool_sql, column, source, key)


def _checked(sql, column: str, source: str, key: Optional[str]) -> Column:
    from . import failures

    failures.install()                  # whichever job evaluates it raises the InvalidInputError
    return F.expr(sql(column, _quoted(source), _quoted(key) if key is not None else None))


def checked_double(column: str, source: str, key: Optional[str] = None) -> Column:
    """:func:`checked_int` for numbers: the column named ``source`` (text read from a CSV file) as
    DOUBLE, failing the job with an :class:`~spark_assign.errors.InvalidInputError` naming
    ``column`` for a value that is not a number (``'heavy'``)."""
    return _checked(_checked_double_sql, column, source, key)


def _checked_double_sql(column: str, source: str, key: Optional[str] = None) -> str:
    return _checked_cast_sql(column, source, key, f"{column} must be a number", f"try_cast({source} AS DOUBLE)")


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def type_matches(dtype: T.DataType, expected: str) -> bool:
    """Whether a column of Spark type ``dtype`` is accepted where the project's DDL type ``expected``
    is written (``int``: an integral type of any width; ``double``: any number type; ``string``;
    ``boolean``; ``array<int>``; ``array<double>``; ``array<array<string>>``). Shared by the DataFrame method's and the SQL functions' schema checks.

    Example::

        type_matches(T.LongType(), "int") and not type_matches(T.StringType(), "int")
    """
    if expected == "string":
        return isinstance(dtype, T.StringType)
    if expected == "boolean":
        return isinstance(dtype, T.BooleanType)
    if expected == "int":
        return isinstance(dtype, _INTEGRAL)
    if expected == "double":
        return isinstance(dtype, _NUMERIC)
    if expected == "array<int>":
        return isinstance(dtype, T.ArrayType) and isinstance(dtype.elementType, _INTEGRAL)
    if expected == "array<double>":
        return isinstance(dtype, T.ArrayType) and isinstance(dtype.elementType, _NUMERIC)
    if expected == "array<array<string>>":
        return (isinstance(dtype, T.ArrayType) and isinstance(dtype.elementType, T.ArrayType)
                and isinstance(dtype.elementType.elementType, T.StringType))
    raise ValueError(expected)


def check_columns(df: DataFrame, what: str, columns: List[Tuple[str, str, bool]],
                  warn_unknown: bool = False) -> Dict[str, T.DataType]:
    """Check that ``df`` has the required columns with acceptable types.

    ``columns`` lists ``(name, type, required)``. Returns the present ones' types.
    Raises :class:`SchemaError` naming the column, the expected and the actual type, or a
    column that carries another name of an expected one (:data:`COLUMN_ALIASES`). With
    ``warn_unknown``, columns that are none of ``columns`` get an :class:`UnknownColumnWarning`.
    """
    fields = {f.name: f.dataType for f in df.schema.fields}
    return check_fields(what, fields, columns, type_matches, lambda t: t.simpleString(), warn_unknown)


def subscription_columns(df: DataFrame) -> Tuple[Dict[str, Column], bool]:
    """The subscription columns of ``df``, cast to the wire types (missing optional ones null).

    Returns ``(columns, has_group_id)``.
    """
    present = check_columns(df, "subscriptions", SUBSCRIPTION_COLUMNS)
    cols: Dict[str, Column] = {}
    for name, kind, _ in SUBSCRIPTION_COLUMNS:
        if name in present:
            spark_type = {"string": "string", "int": "int", "array<int>": "array<int>"}[kind]
            cols[name] = F.col(name).cast(spark_type)
        else:
            cols[name] = F.lit(None).cast({"array<int>": "array<int>"}.get(kind, kind))
    return cols, "group_id" in present


def topics_frame(spark, topics: Any) -> DataFrame:
    """``topics`` (a dict or a DataFrame) as a DataFrame ``(topic, num_partitions[, replica_racks][, group_id])``.

    A dict is checked here, before any job, by the engine's own check
    (:func:`~spark_assign.core.consumer.model.check_topics`): topic names must be
    non-empty strings and counts non-negative integers (NumPy's too).
    """
    if isinstance(topics, Mapping):
        counts = check_topics(topics)
        return local_frame(spark, [("topic", "string"), ("num_partitions", "int")],
                           {"topic": list(counts), "num_partitions": list(counts.values())})
    if isinstance(topics, DataFrame):
        present = check_columns(topics, "topics", [
            ("topic", "string", True), ("num_partitions", "int", True),
            ("replica_racks", "array<array<string>>", False), ("group_id", "string", False)])
        cols = [F.col("topic"), _as_int(present, "num_partitions", "topic")]
        if "replica_racks" in present:
            cols.append(F.col("replica_racks"))
        if "group_id" in present:
            cols.append(F.col("group_id"))
        return topics.select(*cols)
    raise InvalidInputError(
        f"topics must be a dict {{topic: partition count}} or a DataFrame (topic, num_partitions), "
        f"got {type(topics).__name__}", column="topics")


#: A previous assignment (``previous=`` of the DataFrame method; what a state table's rebalance
#: reads of the latest generation): (name, type, required).
PREVIOUS_ASSIGNMENT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("group_id", "string", False), ("generation", "int", True), ("member_id", "string", True),
    ("topic", "string", True), ("partition", "int", True), ("status", "string", False),
    ("group_instance_id", "string", False),
]


def previous_frame(spark, previous: Any) -> Optional[DataFrame]:
    """``previous`` as a DataFrame: None, a DataFrame, anything with a public ``latest()`` that
    returns one (an ``AssignmentTable``: only its latest generation is read), or a catalog table
    name or Delta path (read whole: the latest generation of each group is picked during the
    assignment)."""
    if previous is None:
        return None
    latest = getattr(previous, "latest", None)
    if callable(latest) and not isinstance(previous, DataFrame):
        previous = latest()
    elif isinstance(previous, str) and previous:
        from .delta import read_delta

        previous = read_delta(spark, previous)
    if not isinstance(previous, DataFrame):
        raise InvalidInputError(
            "previous must be None, a DataFrame, an object with a latest() method returning one (such as an "
            f"AssignmentTable), a table name or a Delta path; got {type(previous).__name__}", column="previous")
    check_columns(previous, "previous", PREVIOUS_ASSIGNMENT_COLUMNS)
    return previous

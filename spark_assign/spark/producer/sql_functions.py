"""``kafka_partition(key, num_partitions)`` and ``kafka_murmur2(key)`` for Spark SQL.

Scalar Arrow UDFs (``pyspark.sql.functions.arrow_udf``, Spark 4.1+): Spark hands
each Python worker Arrow batches of keys and the vectorized kernel of
:mod:`spark_assign.core.producer.murmur2` hashes a whole batch in a few NumPy passes; no
Python code runs per key.

What SQL users call are two SQL functions with typed parameters,
``kafka_partition(key BINARY, num_partitions BIGINT)`` and ``kafka_murmur2(key BINARY)``,
wrapping the Arrow UDFs (registered as ``_spark_assign_kafka_partition`` and
``_spark_assign_kafka_murmur2``): Spark checks the number and types of the
arguments at analysis time and inlines the wrapper, so it costs nothing per row.

SQL semantics on top of the kernel:

* a NULL key gives NULL (Kafka never hashes a null key: it spreads such
  records with its sticky partitioner, which is not a function of the key);
* a NULL ``num_partitions`` gives NULL;
* ``num_partitions`` outside 1..2147483647 (Kafka's counts are 32-bit ints)
  fails the query with an :class:`~spark_assign.errors.InvalidInputError`
  naming the value. The parameter is a BIGINT so that every integer reaches
  that check (an INT parameter would make Spark's cast fail first, with
  advice to turn ANSI mode off);
* STRING keys are cast to BINARY, their UTF-8 bytes (Kafka's ``StringSerializer``).
  An argument Spark cannot cast to the parameter's type (an INT or DECIMAL key,
  an ARRAY count) fails at analysis time with an ``InvalidInputError`` naming
  the argument, the type received and the types accepted: Spark's
  ``DATATYPE_MISMATCH`` failure, whose query context is a call of one of these
  functions, is translated (:func:`argument_type_error`; its ``spark_error``
  keeps Spark's exception).
"""

from __future__ import annotations

import re
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core.producer.murmur2 import kafka_partition, murmur2
from ...errors import InvalidInputError
from ..failures import SparkFailure, translate_with

__all__ = ["kafka_partition_arrow", "kafka_murmur2_arrow", "udfs", "SQL_FUNCTIONS", "argument_type_error"]


def _array(values: Any) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _keys(keys: Any, function: str) -> pa.Array:
    keys = _array(keys)
    t = keys.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_null(t)):
        raise InvalidInputError(f"{function}: key must be BINARY or STRING (the serialized key bytes), "
                                f"got {t}", column="key").for_driver()
    return keys


def kafka_partition_arrow(keys: pa.Array, num_partitions: pa.Array) -> pa.Array:
    """``(murmur2(key) & 0x7fffffff) % num_partitions`` per row, NULL for NULL inputs."""
    keys = _keys(keys, "kafka_partition")
    counts = _array(num_partitions)
    n = len(keys)
    null = np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if counts.null_count:
        null |= np.asarray(counts.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if counts.null_count == n:
            return pa.nulls(n, pa.int32())
        counts = counts.fill_null(1)
    # One count for the whole batch (the usual literal) takes the kernel's scalar path.
    bounds = pc.min_max(counts)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    try:
        out = kafka_partition(keys, low if low == high else counts)
    except InvalidInputError as e:      # raised in a Spark worker: carry it to the driver as such
        raise e.for_driver() from None
    return pa.array(out, type=pa.int32(), mask=null if null.any() else None)


def kafka_murmur2_arrow(keys: pa.Array) -> pa.Array:
    """Kafka's ``Utils.murmur2`` of each key (a signed int), NULL for a NULL key."""
    keys = _keys(keys, "kafka_murmur2")
    null = np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    return pa.array(murmur2(keys), type=pa.int32(), mask=null if null.any() else None)


def udfs() -> dict:
    """Internal name -> Arrow UDF, for ``spark.udf.register`` (classic or Connect)."""
    from pyspark.sql.functions import arrow_udf
    from pyspark.sql.types import IntegerType

    return {
        "_spark_assign_kafka_partition": arrow_udf(kafka_partition_arrow, IntegerType()),  # type: ignore[call-overload]
        "_spark_assign_kafka_murmur2": arrow_udf(kafka_murmur2_arrow, IntegerType()),  # type: ignore[call-overload]
    }


#: The public SQL functions: typed wrappers of :func:`udfs`, created with ``spark.sql``.
SQL_FUNCTIONS = {
    "kafka_partition": (
        "CREATE OR REPLACE TEMPORARY FUNCTION kafka_partition(key BINARY, num_partitions BIGINT) RETURNS INT "
        "DETERMINISTIC COMMENT 'Kafka default partitioner: (murmur2(key) & 0x7fffffff) % num_partitions; "
        "STRING keys hash as UTF-8; NULL for a NULL key (spark-assign)' "
        "RETURN _spark_assign_kafka_partition(key, num_partitions)"),
    "kafka_murmur2": (
        "CREATE OR REPLACE TEMPORARY FUNCTION kafka_murmur2(key BINARY) RETURNS INT "
        "DETERMINISTIC COMMENT 'Kafka Utils.murmur2 of the key bytes, a signed int; STRING keys hash as UTF-8; "
        "NULL for a NULL key (spark-assign)' "
        "RETURN _spark_assign_kafka_murmur2(key)"),
}

#: The parameters of the SQL functions by the type Spark casts their argument to: what each accepts.
PARAMETERS = {
    "BINARY": ("key", "BINARY or STRING (the serialized key bytes; a STRING hashes as its UTF-8 bytes)"),
    "BIGINT": ("num_partitions", "an integer from 1 to 2147483647 (Kafka's partition counts are 32-bit ints)"),
}
#: A call of one of the SQL functions, as a query context's fragment shows it (maybe qualified, quoted).
_CALL = re.compile(r"^\s*(?:[`\w]+\.)*`?(kafka_partition|kafka_murmur2)`?\s*\(", re.I)


@translate_with
def argument_type_error(failure: SparkFailure) -> Optional[InvalidInputError]:
    """Spark's failure to cast an argument of ``kafka_partition``/``kafka_murmur2`` to its
    parameter's type (``DATATYPE_MISMATCH.*``, at analysis) as an :class:`InvalidInputError`
    naming the argument, the type received and what is accepted; None for any other failure.

    Example::

        spark.sql("SELECT kafka_partition(42, 3)")
        # InvalidInputError: kafka_partition: key must be BINARY or STRING (...), got INT (42); column 'key'
    """
    if not (failure.condition or "").startswith("DATATYPE_MISMATCH."):
        return None
    calls = [m.group(1).lower() for m in map(_CALL.match, failure.fragments) if m]
    target = failure.parameters.get("targetType", "").strip('"').upper()
    if not calls or target not in PARAMETERS:
        return None
    argument, accepted = PARAMETERS[target]
    received = failure.parameters.get("srcType", "?").strip('"')
    given = failure.parameters.get("sqlExpr", "").strip('"')
    return InvalidInputError(f"{calls[0]}: {argument} must be {accepted}, got {received}"
                             + (f" ({given})" if given else ""), column=argument)


"""``kafka_partition(key, num_partitions)`` and ``kafka_murmur2(key)`` for Spark SQL.

Scalar Arrow UDFs (``pyspark.sql.functions.arrow_udf``, Spark 4.1+): Spark hands
each Python worker Arrow batches of keys and the vectorized kernel of
:mod:`spark_assign.core.murmur2` hashes a whole batch in a few NumPy passes; no
Python code runs per key.

What SQL users call are two SQL functions with typed parameters,
``kafka_partition(key BINARY, num_partitions INT)`` and ``kafka_murmur2(key BINARY)``,
wrapping the Arrow UDFs (registered as ``_spark_assign_kafka_partition`` and
``_spark_assign_kafka_murmur2``): Spark checks the number and types of the
arguments at analysis time and inlines the wrapper, so it costs nothing per row.

SQL semantics on top of the kernel:

* a NULL key gives NULL (Kafka never hashes a null key: it spreads such
  records with its sticky partitioner, which is not a function of the key);
* a NULL ``num_partitions`` gives NULL;
* ``num_partitions`` outside 1..2147483647, or not an integer, fails the query
  with an :class:`~spark_assign.errors.InvalidInputError` naming the value;
* STRING keys are cast to BINARY, their UTF-8 bytes (Kafka's ``StringSerializer``).
  A key of another type fails at analysis time (ANSI mode): pass the serialized
  key bytes. ``num_partitions`` is cast to INT, as any INT parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.murmur2 import kafka_partition, murmur2
from ..errors import InvalidInputError

__all__ = ["kafka_partition_arrow", "kafka_murmur2_arrow", "udfs", "SQL_FUNCTIONS"]


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
        "CREATE OR REPLACE TEMPORARY FUNCTION kafka_partition(key BINARY, num_partitions INT) RETURNS INT "
        "DETERMINISTIC COMMENT 'Kafka default partitioner: (murmur2(key) & 0x7fffffff) % num_partitions; "
        "STRING keys hash as UTF-8; NULL for a NULL key (spark-assign)' "
        "RETURN _spark_assign_kafka_partition(key, num_partitions)"),
    "kafka_murmur2": (
        "CREATE OR REPLACE TEMPORARY FUNCTION kafka_murmur2(key BINARY) RETURNS INT "
        "DETERMINISTIC COMMENT 'Kafka Utils.murmur2 of the key bytes, a signed int; STRING keys hash as UTF-8; "
        "NULL for a NULL key (spark-assign)' "
        "RETURN _spark_assign_kafka_murmur2(key)"),
}

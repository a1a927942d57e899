"""``kafka_partition(key, num_partitions)`` and ``kafka_murmur2(key)`` for Spark SQL.

Scalar Arrow UDFs (``pyspark.sql.functions.arrow_udf``, Spark 4.1+): Spark hands
each Python worker Arrow batches of keys and the vectorized kernel of
:mod:`spark_assign.core.murmur2` hashes a whole batch in a few NumPy passes; no
Python code runs per key.

SQL semantics on top of the kernel:

* a NULL key gives NULL (Kafka never hashes a null key: it spreads such
  records with its sticky partitioner, which is not a function of the key);
* a NULL ``num_partitions`` gives NULL;
* ``num_partitions`` outside 1..2147483647, or not an integer, fails the query
  with an :class:`~spark_assign.errors.InvalidInputError` naming the value;
* STRING keys hash as their UTF-8 bytes (Kafka's ``StringSerializer``), so
  ``kafka_partition(s, n) = kafka_partition(CAST(s AS BINARY), n)``. A key of
  any other type fails the query: pass the serialized key bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.murmur2 import kafka_partition, murmur2

__all__ = ["kafka_partition_arrow", "kafka_murmur2_arrow", "udfs"]


def _keys(keys: Any) -> pa.Array:
    return keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys


def kafka_partition_arrow(keys: pa.Array, num_partitions: pa.Array) -> pa.Array:
    """``(murmur2(key) & 0x7fffffff) % num_partitions`` per row, NULL for NULL inputs."""
    keys = _keys(keys)
    counts = _keys(num_partitions)
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
    out = kafka_partition(keys, low if low == high else counts)
    return pa.array(out, type=pa.int32(), mask=null if null.any() else None)


def kafka_murmur2_arrow(keys: pa.Array) -> pa.Array:
    """Kafka's ``Utils.murmur2`` of each key (a signed int), NULL for a NULL key."""
    keys = _keys(keys)
    null = np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    return pa.array(murmur2(keys), type=pa.int32(), mask=null if null.any() else None)


def udfs() -> dict:
    """SQL name -> Arrow UDF, for ``spark.udf.register`` (classic or Connect)."""
    from pyspark.sql.functions import arrow_udf
    from pyspark.sql.types import IntegerType

    return {
        "kafka_partition": arrow_udf(kafka_partition_arrow, IntegerType()),
        "kafka_murmur2": arrow_udf(kafka_murmur2_arrow, IntegerType()),
    }

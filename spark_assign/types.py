"""Column types, from the DDL names the schemas use (``spark_assign.schema``) to Arrow and Spark.

The one home of the mapping: the Spark layer, the state tables and the Kafka record decoder (which
builds Arrow tables without Spark) all read it here.
"""

from __future__ import annotations

from typing import List, Tuple

import pyarrow as pa

__all__ = ["ARROW_TYPES", "DELTA_PRIMITIVES", "arrow_schema", "spark_ddl"]

#: Arrow type of each DDL type name the schemas use.
ARROW_TYPES = {"string": pa.string(), "int": pa.int32(), "bigint": pa.int64(), "boolean": pa.bool_(),
               "tinyint": pa.int8(), "double": pa.float64(), "timestamp": pa.timestamp("us", tz="UTC"),
               "binary": pa.binary(),
               "array<int>": pa.list_(pa.int32()), "array<array<string>>": pa.list_(pa.list_(pa.string())),
               "array<double>": pa.list_(pa.float64())}

#: The Delta protocol's name of each primitive DDL type name (``PrimitiveType`` of delta-rs).
DELTA_PRIMITIVES = {"string": "string", "int": "integer", "bigint": "long", "boolean": "boolean",
                    "tinyint": "byte", "double": "double", "timestamp": "timestamp", "binary": "binary"}


def arrow_schema(columns: List[Tuple[str, str]]) -> pa.Schema:
    """Arrow schema of ``columns`` (name, DDL type)."""
    return pa.schema([pa.field(n, ARROW_TYPES[t]) for n, t in columns])


def spark_ddl(columns: List[Tuple[str, str]]) -> str:
    """Spark DDL of ``columns`` (name, DDL type)."""
    return ", ".join(f"`{n}` {t}" for n, t in columns)

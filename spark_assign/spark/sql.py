"""The SQL surface: ``spark_assign.register(spark)`` and a runner for the ``sql/`` scripts.

``register(spark)`` adds to that session (classic or Spark Connect; registering
again replaces the same definitions, so it is idempotent):

* ``assign_partitions(TABLE(t) PARTITION BY group_id, strategy => 'sticky')``:
  every strategy, chosen by a constant argument (default ``cooperative-sticky``,
  as the DataFrame method);
* ``assign_range``, ``assign_roundrobin``, ``assign_sticky``,
  ``assign_cooperative_sticky``, ``assign_uniform``, ``assign_server_range``:
  ``(TABLE(t))`` only; they partition their input by ``group_id`` themselves,
  so the PARTITION BY cannot be forgotten (and must not be written);
* ``kafka_partition(key, num_partitions)`` and ``kafka_murmur2(key)``: Kafka's
  default partitioner and its hash, byte-exact, vectorized.

The table functions take one row per member and subscribed topic with the
topic's partition count (Kafka's subscription as the group leader sees it):
``group_id``, ``member_id``, ``topic``, ``num_partitions``, and optionally
``group_instance_id``, ``rack``, ``owned_partitions``, ``generation``,
``replica_racks``. They return the DataFrame method's columns (``group_id``,
``generation``, ``member_id``, ``topic``, ``partition``, ``previous_member_id``,
``status``), computed by the same code. See docs/sql.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, List, Union

from pyspark.util import PythonEvalType

from .sql_kafka import udfs
from .sql_table import TABLE_FUNCTIONS

__all__ = ["register", "TABLE_FUNCTION_NAMES", "SCALAR_FUNCTION_NAMES", "split_statements", "run_script"]

#: The table functions ``register`` adds.
TABLE_FUNCTION_NAMES: List[str] = list(TABLE_FUNCTIONS)
#: The scalar functions ``register`` adds.
SCALAR_FUNCTION_NAMES: List[str] = ["kafka_partition", "kafka_murmur2"]


def register(spark: Any, *, arrow: bool = True) -> List[str]:
    """Register spark-assign's SQL functions on ``spark``; returns their names.

    Example::

        import spark_assign

        spark_assign.register(spark)
        spark.sql(\"\"\"
            SELECT * FROM assign_partitions(
                TABLE(subscriptions) PARTITION BY group_id, strategy => 'sticky')
        \"\"\").show()

    Parameters
    ----------
    spark:
        A classic or Spark Connect ``SparkSession``. Functions are temporary:
        they live as long as the session. Calling again is harmless.
    arrow:
        ``True`` (default): the table functions exchange rows with Python as
        Arrow batches (Spark's ``SQL_ARROW_UDTF`` eval type, with our
        ``analyze``). ``False``: Spark's row-at-a-time Python UDTF, with the
        same ``analyze``; slower, kept as a fallback (docs/sql.md, "Design").
    """
    connect = type(spark).__module__.startswith("pyspark.sql.connect")
    if connect:
        from pyspark.sql.connect.udtf import UserDefinedTableFunction
    else:
        from pyspark.sql.udtf import UserDefinedTableFunction  # type: ignore[assignment]
    eval_type = PythonEvalType.SQL_ARROW_UDTF if arrow else PythonEvalType.SQL_TABLE_UDF
    for name, handler in TABLE_FUNCTIONS.items():
        # returnType=None: Spark asks the handler's ``analyze`` for the schema (and the checks).
        function = UserDefinedTableFunction(handler, returnType=None, name=name, evalType=eval_type,
                                            deterministic=True)
        spark.udtf.register(name, function)
    for name, function in udfs().items():
        spark.udf.register(name, function)
    return TABLE_FUNCTION_NAMES + SCALAR_FUNCTION_NAMES


# ---------------------------------------------------------------------------------- scripts

_TOKEN = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|;|[^;'\"`/-]+|.", re.S)


def split_statements(script: str) -> List[str]:
    """The statements of a SQL script, split at semicolons outside quotes and comments.

    Comments are kept inside statements (Spark accepts them); statements that
    hold only comments and whitespace are dropped.
    """
    statements, current = [], []
    for token in _TOKEN.findall(script):
        if token == ";":
            statements.append("".join(current))
            current = []
        else:
            current.append(token)
    statements.append("".join(current))
    code = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
    return [s.strip() for s in statements if code.sub("", s).strip()]


def run_script(spark: Any, script: Union[str, Path]) -> List[Any]:
    """Run every statement of a SQL script (a path or the text); returns one DataFrame each.

    Statements run in order with ``spark.sql``; commands (``CREATE``, ``CACHE``...)
    take effect at once, queries stay lazy in the returned DataFrames.
    """
    text = Path(script).read_text(encoding="utf-8") if isinstance(script, Path) else script
    return [spark.sql(statement) for statement in split_statements(text)]

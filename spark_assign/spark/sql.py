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
* ``assign_load_aware``, ``assign_cooperative_load_aware``, ``assign_lag_based``:
  the same for the load-aware strategies, whose input has a ``partition_weights``
  column, and which take the knobs ``max_count_skew => 2, min_improvement => 0.1``
  (so does ``assign_partitions``);
* ``assign_replicas(TABLE(t), method => 'striped')``: Kafka's replica placement
  (``striped``, ``admin-utils``) and the ``sticky`` reassignment, one row per topic
  carrying its cluster's brokers (:mod:`.sql_replicas`);
* ``kafka_partition(key, num_partitions)`` and ``kafka_murmur2(key)``: Kafka's
  default partitioner and its hash, byte-exact, vectorized (SQL functions with
  typed parameters over Arrow UDFs registered as ``_spark_assign_kafka_*``).

:func:`run_script` runs ``sql/`` scripts. Generations in Delta from SQL
(``CALL spark_assign.rebalance(...)``, views over a state table) are the state
layer's: :mod:`spark_assign.state.consumer.sql`, whose ``run_script`` runs those
statements too.

The table functions take one row per member and subscribed topic with the
topic's partition count (Kafka's subscription as the group leader sees it):
``group_id``, ``member_id``, ``topic``, ``num_partitions``, and optionally
``group_instance_id``, ``rack``, ``owned_partitions``, ``generation``,
``replica_racks``, ``partition_weights``. They return the DataFrame method's columns (``group_id``,
``generation``, ``member_id``, ``topic``, ``partition``, ``previous_member_id``,
``status``, and ``weight`` with weights), computed by the same code. See docs/sql.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Union

from pyspark.util import PythonEvalType

from ..errors import InvalidInputError
from ..progress import progress
from . import failures
from .producer.sql_functions import SQL_FUNCTIONS, udfs
from .kafka.sql_functions import KAFKA_TABLE_FUNCTIONS
from .replicas.sql_functions import REPLICA_TABLE_FUNCTIONS
from .consumer.sql_functions import TABLE_FUNCTIONS

__all__ = ["register", "TABLE_FUNCTION_NAMES", "SCALAR_FUNCTION_NAMES", "split_statements", "run_script",
           "Procedures"]

#: Runs the statements it knows (e.g. ``CALL spark_assign.rebalance(...)``) and returns their
#: result, or None for a statement that is not one of them (it then goes to ``spark.sql``).
Procedures = Callable[[Any, str], Optional[Any]]

#: The table functions ``register`` adds.
TABLE_FUNCTION_NAMES: List[str] = list(TABLE_FUNCTIONS) + list(REPLICA_TABLE_FUNCTIONS) + list(KAFKA_TABLE_FUNCTIONS)
#: The scalar functions ``register`` adds.
SCALAR_FUNCTION_NAMES: List[str] = list(SQL_FUNCTIONS)


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
    failures.install()
    connect = type(spark).__module__.startswith("pyspark.sql.connect")
    if connect:
        from pyspark.sql.connect.udtf import UserDefinedTableFunction
    else:
        from pyspark.sql.udtf import UserDefinedTableFunction  # type: ignore[assignment]
    eval_type = PythonEvalType.SQL_ARROW_UDTF if arrow else PythonEvalType.SQL_TABLE_UDF
    for name, handler in {**TABLE_FUNCTIONS, **REPLICA_TABLE_FUNCTIONS, **KAFKA_TABLE_FUNCTIONS}.items():
        # returnType=None: Spark asks the handler's ``analyze`` for the schema (and the checks).
        function = UserDefinedTableFunction(handler, returnType=None, name=name, evalType=eval_type,
                                            deterministic=True)
        spark.udtf.register(name, function)
    for name, function in udfs().items():
        spark.udf.register(name, function)
    for definition in SQL_FUNCTIONS.values():
        spark.sql(definition)
    return TABLE_FUNCTION_NAMES + SCALAR_FUNCTION_NAMES


# ---------------------------------------------------------------------------------- scripts

_TOKEN = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|;|[^;'\"`/-]+|.", re.S)


def split_statements(script: str) -> List[str]:
    """The statements of a SQL script, split at semicolons outside quotes and comments.

    Comments are kept inside statements (Spark accepts them); statements that
    hold only comments and whitespace are dropped.

    Example::

        split_statements("SELECT 1; -- done\nSELECT ';'")   # ['SELECT 1', "-- done\nSELECT ';'"]
    """
    current: List[str]
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


_PARAM = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def run_script(spark: Any, script: Union[str, Path], params: Optional[Mapping[str, str]] = None,
               collect: bool = False, procedures: Optional[Procedures] = None) -> List[Any]:
    """Run every statement of a SQL script (a ``pathlib.Path``, or the text itself); returns one DataFrame each.

    Example::

        from pathlib import Path
        from spark_assign.spark.sql import run_script

        frames = run_script(spark, Path("sql/03_one_shot_assignment.sql"))
        frames[-1].show()

    Statements run in order with ``spark.sql``; commands (``CREATE``, ``CACHE``...)
    take effect at once, queries stay lazy in the returned DataFrames.
    ``${name}`` is replaced by ``params[name]`` first, as is (names not in
    ``params`` are left for Spark's own variable substitution); quote values
    in the script, and pass values that need no escaping there.
    ``procedures`` runs the statements it recognises instead of ``spark.sql``:
    :func:`spark_assign.state.consumer.sql.run_script` passes the Delta bridge's, for
    ``CALL spark_assign.rebalance(...)`` and ``CALL spark_assign.views(...)``.
    ``collect=True`` returns each statement's rows instead, collected before
    the next statement runs (later statements may replace the views a query
    reads, and a Spark Connect DataFrame resolves its views when it runs).
    """
    text = Path(script).read_text(encoding="utf-8") if isinstance(script, Path) else script
    if params:
        bad = [k for k in params if not isinstance(k, str) or not _PARAM.fullmatch("${" + k + "}")]
        if bad:
            raise InvalidInputError(f"params names must be identifiers, got {bad}", column="params")
        text = _PARAM.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)
    frames = []
    statements = split_statements(text)
    with progress(len(statements), "run_script", unit="statement") as bar:   # on a terminal only
        for statement in statements:
            bar.set_postfix_str(" ".join(statement.split())[:40])
            called = procedures(spark, statement) if procedures is not None else None
            frame = called if called is not None else spark.sql(statement)
            frames.append(frame.collect() if collect else frame)
            bar.update()
    return frames

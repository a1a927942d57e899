"""A user's script running bad inputs: ``python -m tests.bad_input.child SURFACE``.

Points file descriptor 2 at a temporary file before Spark starts (the JVM and
the Python workers inherit it), builds :func:`spark_assign.local_session`
(``local[1]``, no delta-spark: the state table runs on the embedded engine),
runs each case of ``SURFACE`` (``dataframe``, ``sql`` or ``state``), catches
its error, and prints one JSON line: per case, the error's type and column and
what the process wrote to stderr while the case ran. The tests
(``tests/bad_input/stderr.py``) read it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Tuple

Case = Callable[[Any, str], Any]

S = "group_id string, member_id string, topic string"
SQL = "group_id string, member_id string, topic string, num_partitions {}"


def _assign(rows, topics: Any = None, schema: str = S, strategy: str = "range") -> Case:
    def run(spark, tmp):
        meta = topics if not isinstance(topics, tuple) else spark.createDataFrame(*topics)
        return spark.createDataFrame(rows, schema).assign_partitions(strategy, topics=meta or {"t": 3}).collect()
    return run


def _sql(query: str, rows=None, kind: str = "int") -> Case:
    def run(spark, tmp):
        if rows is not None:
            spark.createDataFrame(rows, SQL.format(kind)).createOrReplaceTempView("bad_input")
        return spark.sql(query).collect()
    return run


def _rebalance(rows, topics: Any = None, schema: str = S, where: str = "t") -> Case:
    def run(spark, tmp):
        from spark_assign import AssignmentTable

        table = AssignmentTable(spark, os.path.join(tmp, where))
        return table.rebalance(spark.createDataFrame(rows, schema), topics or {"t": 3}, "range")
    return run


def _path_is_a_file(spark, tmp):
    path = os.path.join(tmp, "file.txt")
    with open(path, "w") as f:
        f.write("x")
    return _rebalance([("g", "a", "t")], where="file.txt")(spark, tmp)


def _damaged(damage: Callable[[str], None], read: Callable[[Any], Any]) -> Case:
    def run(spark, tmp):
        from spark_assign import AssignmentTable

        path = os.path.join(tmp, f"damaged-{damage.__name__}")
        table = AssignmentTable(spark, path)
        for members in (["a"], ["a", "b"], ["b"]):
            table.rebalance(spark.createDataFrame([("g", m, "t") for m in members], S), {"t": 2}, "range")
        damage(path)
        return read(AssignmentTable(spark, path))
    return run


def drop_middle_commit(path: str) -> None:
    os.remove(os.path.join(path, "_delta_log", "00000000000000000002.json"))


def truncate_data_files(path: str) -> None:
    for root, _, files in os.walk(path):
        for name in files:
            if name.endswith(".parquet") and "commit_version=" in root:
                with open(os.path.join(root, name), "r+b") as f:
                    f.truncate(20)


RANGE = "SELECT * FROM assign_range(TABLE(bad_input))"

#: Per surface: case id -> (what it runs, the error type name expected).
CASES: Dict[str, Dict[str, Tuple[Case, str]]] = {
    "dataframe": {
        "member-id-null": (_assign([("g", None, "t"), ("g", "b", "t")]), "InvalidInputError"),
        "duplicate-rows": (_assign([("g", "a", "t"), ("g", "a", "t")]), "InvalidInputError"),
        "static-id-used-by-two-members": (_assign([("g", "a", "t", "s"), ("g", "b", "t", "s")], None,
                                                  S + ", group_instance_id string"), "InvalidInputError"),
        "topics-frame-topic-listed-twice": (_assign([("g", "a", "t")], ([("t", 1), ("t", 2)],
                                                                        "topic string, num_partitions int")),
                                            "InvalidInputError"),
        "topics-frame-negative-count": (_assign([("g", "a", "t")], ([("t", -1)], "topic string, num_partitions int")),
                                        "InvalidInputError"),
        "topics-frame-bigint-count-2^31": (_assign([("g", "a", "t")], ([("t", 2**31)],
                                                                       "topic string, num_partitions bigint")),
                                           "InvalidInputError"),
        "topics-dict-count-2^31": (_assign([("g", "a", "t")], {"t": 2**31}), "InvalidInputError"),
        "strategy-unknown": (_assign([("g", "a", "t")], None, S, "stiky"), "UnknownStrategyError"),
        "member-id-column-missing": (_assign([("g", "t")], None, "group_id string, topic string"), "SchemaError"),
    },
    "sql": {
        "member-id-null": (_sql(RANGE, [("g", None, "t", 3)]), "InvalidInputError"),
        "duplicate-rows": (_sql(RANGE, [("g", "a", "t", 3), ("g", "a", "t", 3)]), "InvalidInputError"),
        "negative-count": (_sql(RANGE, [("g", "a", "t", -3)]), "InvalidInputError"),
        "bigint-count-2^31": (_sql(RANGE, [("g", "a", "t", 2**31)], "bigint"), "InvalidInputError"),
        "kafka-partition-count-zero": (_sql("SELECT kafka_partition('k', 0)"), "InvalidInputError"),
        "missing-column": (_sql("SELECT * FROM assign_range(TABLE(SELECT 'g' AS group_id, 't' AS topic, "
                                "3 AS num_partitions))"), "AnalysisException"),
        "unknown-strategy": (_sql("SELECT * FROM assign_partitions(TABLE(bad_input) PARTITION BY group_id, "
                                  "strategy => 'stiky')", [("g", "a", "t", 3)]), "AnalysisException"),
        "kafka-partition-int-key": (_sql("SELECT kafka_partition(42, 3)"), "AnalysisException"),
    },
    "state": {
        "member-id-null": (_rebalance([("g", None, "t")]), "InvalidInputError"),
        "static-id-used-by-two-members": (_rebalance([("g", "a", "t", "s"), ("g", "b", "t", "s")], None,
                                                     S + ", group_instance_id string"), "InvalidInputError"),
        "topics-dict-count-2^31": (_rebalance([("g", "a", "t")], {"t": 2**31}), "InvalidInputError"),
        "path-is-a-file": (_path_is_a_file, "StateTableError"),
        "missing-middle-delta-log-file": (_damaged(drop_middle_commit, lambda t: t.latest().collect()),
                                          "StateTableError"),
        "truncated-parquet-read-by-history": (_damaged(truncate_data_files, lambda t: t.history("g").collect()),
                                              "StateTableError"),
    },
}


def main(surface: str) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log = tempfile.NamedTemporaryFile(prefix="bad-input-stderr-", delete=False)
    os.dup2(log.fileno(), 2)                                  # the JVM and the workers inherit it
    import spark_assign
    from spark_assign import local_session

    spark = local_session(master="local[1]", with_delta=False, **{"spark.sql.shuffle.partitions": "1"})
    spark_assign.register(spark)
    tmp = tempfile.mkdtemp(prefix="bad-input-")
    report: Dict[str, Dict[str, Any]] = {}
    for name, (case, _) in CASES[surface].items():
        sys.stderr.flush()
        start = os.fstat(2).st_size
        try:
            case(spark, tmp)
            caught: Dict[str, Any] = {"type": None, "column": None}
        except Exception as e:  # noqa: BLE001 - what a user's script sees
            caught = {"type": type(e).__name__, "column": getattr(e, "column", None)}
        time.sleep(0.3)                                       # let the JVM's log lines land
        sys.stderr.flush()
        with open(log.name, "rb") as f:
            f.seek(start)
            caught["stderr"] = f.read().decode("utf-8", "replace")
        report[name] = caught
    spark.stop()
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])

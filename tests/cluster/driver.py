"""The Spark driver of the cluster test: ``python -m tests.cluster.driver SPEC_JSON``.

SPEC_JSON: ``{"master": "spark://...", "jars": [...], "rounds": [[row, ...], ...],
"fleet": [row, ...], "tables": {"delta": dir, "embedded": dir, "hidden": dir, "sql": dir}}``.
Waits for both executors, then runs on them (the driver computes nothing: the
rebalance's in-driver shortcut is off) and prints one JSON line with what each part
produced, for the test to compare with the same work done on ``local[2]``.
"""

import json
import os
import sys
import time

from ..conftest import SHORT_LIVED_JVM
from ..delta import DELTA_SQL
from .workload import TOPICS, assign_rows, generations, sql_results


def wait_for_executors(spark, count: int, timeout_s: float = 120) -> int:
    deadline = time.monotonic() + timeout_s
    while True:
        seen = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1     # minus the driver
        if seen >= count or time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


def main() -> None:
    spec = json.loads(sys.argv[1])
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import spark_assign.state.consumer.table as table_module
    from spark_assign import AssignmentTable
    from spark_assign.errors import StateTableError

    builder = SparkSession.builder.master(spec["master"]).appName("spark-assign-cluster-test")
    conf = {"spark.jars": ",".join(spec["jars"]), **DELTA_SQL, "spark.executor.memory": "768m",
            "spark.executor.cores": "1", "spark.cores.max": "2", "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4", "spark.databricks.delta.snapshotPartitions": "2",
            "spark.driver.host": "127.0.0.1", "spark.executor.extraJavaOptions": SHORT_LIVED_JVM}
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    out = {"executors": wait_for_executors(spark, 2)}
    table_module.LOCAL_ROWS = 0                        # every generation computed by executor tasks

    tables = spec["tables"]
    delta = AssignmentTable(spark, tables["delta"])
    out["delta_engine"] = delta.engine
    out["delta"] = generations(spark, delta, spec["rounds"])
    out["assigned"] = assign_rows(spark, spec["fleet"])
    out["sql"] = sql_results(spark, tables["sql"])
    out["embedded"] = generations(spark, AssignmentTable(spark, tables["embedded"], engine="embedded"),
                                  spec["rounds"])
    try:
        generations(spark, AssignmentTable(spark, tables["hidden"], engine="embedded"), spec["rounds"][:1])
        out["hidden"] = "written"
    except StateTableError as e:
        out["hidden"] = str(e)
    out["topics"] = TOPICS
    print(json.dumps(out), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

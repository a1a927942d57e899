"""One session as a user configures it, for the detection tests:
``python -m tests.spark.session_child CONF_JSON TABLE``.

CONF_JSON: ``{"local_session": bool, "conf": {...}}``. Builds the session
(with :func:`spark_assign.local_session` or a plain ``SparkSession.builder``),
lets :class:`~spark_assign.AssignmentTable` choose its engine, rebalances one
group into TABLE and prints one JSON line: ``has_delta_spark``, ``engine``,
``version``.
"""

import json
import os
import sys


def main() -> None:
    spec = json.loads(sys.argv[1])
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from spark_assign import AssignmentTable, local_session
    from spark_assign.spark.session import has_delta_spark

    conf = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
            "spark.databricks.delta.snapshotPartitions": "2", **spec["conf"]}
    if spec["local_session"]:
        spark = local_session(master="local[1]", **conf)
    else:
        builder = SparkSession.builder.master("local[1]")
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
    table = AssignmentTable(spark, sys.argv[2])
    subs = spark.createDataFrame([("g", "a", "orders", None)],
                                 "group_id string, member_id string, topic string, group_instance_id string")
    step = table.rebalance(subs, {"orders": 2}, "range")
    print(json.dumps({"has_delta_spark": has_delta_spark(spark), "engine": table.engine, "version": step.version}))
    spark.stop()


if __name__ == "__main__":
    main()

"""A streaming rebalance for the kill tests: ``python -m tests.state.stream_child SPEC_JSON``.

SPEC_JSON: {"input": folder of membership files, "table": path, "checkpoint": path,
"engine": "embedded" | "delta-spark", "strategy": name, "topics": {...}}. Runs
``AssignmentTable.rebalance_stream`` over the files (one per micro-batch, ``availableNow``) on its
own local session and prints the table's version. ``SPARK_ASSIGN_FAULT`` (see
``spark_assign.state.generation_table.fault``) makes it kill itself at that point of its first
commit.
"""

import json
import os
import sys


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import AssignmentTable, local_session

    from ..delta import session_conf
    from .fleets import SUBS

    engine = spec["engine"]
    spark = local_session(app_name="spark-assign-stream-child", with_delta=False,
                          **{"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "1g",
                             **(session_conf() if engine == "delta-spark" else {})})
    table = AssignmentTable(spark, spec["table"], engine=engine)
    source = spark.readStream.schema(SUBS).option("maxFilesPerTrigger", 1).parquet(spec["input"])
    query = table.rebalance_stream(source, spec["topics"], strategy=spec["strategy"],
                                   checkpoint_location=spec["checkpoint"], trigger={"availableNow": True})
    query.awaitTermination()
    print(json.dumps({"version": table.state().version}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

"""A streaming rebalance for the kill tests: ``python -m tests.state.stream_child SPEC_JSON``.

SPEC_JSON: {"input": folder of membership files, "table": path, "checkpoint": path,
"engine": "embedded" | "delta-spark", "strategy": name, "topics": {...}}. Runs the table's
``foreach_batch`` function over the files (one per micro-batch, ``availableNow``) on its own
local session and prints the table's version. ``SPARK_ASSIGN_FAULT`` makes it kill itself: at a
point of a rebalance (``spark_assign.state.generation_table.fault``, after
``SPARK_ASSIGN_FAULT_SKIP`` passes), or ``between-batches``: at the start of the second batch
this process runs, after Spark checkpointed the first.
"""

import json
import os
import signal
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
    run = table.foreach_batch(spec["topics"], strategy=spec["strategy"])
    between = os.environ.get("SPARK_ASSIGN_FAULT") == "between-batches"
    batches_run = []

    def each_batch(batch, batch_id):
        if between and batches_run:
            os.kill(os.getpid(), signal.SIGKILL)
        run(batch, batch_id)
        batches_run.append(batch_id)

    source = spark.readStream.schema(SUBS).option("maxFilesPerTrigger", 1).parquet(spec["input"])
    query = (source.writeStream.foreachBatch(each_batch).option("checkpointLocation", spec["checkpoint"])
             .trigger(availableNow=True).start())
    query.awaitTermination()
    print(json.dumps({"version": table.state().version}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

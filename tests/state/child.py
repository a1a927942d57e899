"""A rebalancing process for the crash and concurrency tests: ``python -m tests.state.child SPEC_JSON``.

SPEC_JSON: {"table": path, "rounds": [{"rows": [[group, member, topic, instance], ...],
"topics": {...}, "strategy": "..."}, ...], "in_driver": true, "engine": "embedded"}; or, for a
replica table, "kind": "replicas" and rounds {"topics": [[cluster, topic, partitions, rf], ...],
"brokers": [[cluster, broker, rack, fenced], ...]}. Runs the rounds in order on its own
local Spark session and prints one JSON line per round; ``in_driver`` false
forces Spark's compute path (Spark tasks write the files). ``SPARK_ASSIGN_FAULT``
(see spark_assign.state.consumer.table.fault) makes it kill itself at that point.
"""

import json
import os
import sys

#: The schemas of a replica table's inputs in a spec.
REPLICA_TOPICS = "cluster_id string, topic string, num_partitions int, replication_factor int"
REPLICA_BROKERS = "cluster_id string, broker_id int, rack string, fenced boolean"


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import spark_assign.state.replicas.table as replica_module
    import spark_assign.state.consumer.table as table_module
    from spark_assign import AssignmentTable, ReplicaTable, local_session

    from ..delta import session_conf
    from .fleets import SUBS

    engine = spec.get("engine", "embedded")
    delta = session_conf() if engine == "delta-spark" else {}
    spark = local_session(app_name="spark-assign-child", with_delta=False,
                          **{"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "1g", **delta})
    if not spec.get("in_driver", True):
        table_module.LOCAL_ROWS = replica_module.LOCAL_ROWS = 0
    if spec.get("kind") == "replicas":
        replicas = ReplicaTable(spark, spec["table"], engine=engine)
        for r in spec["rounds"]:
            step = replicas.rebalance(spark.createDataFrame([tuple(x) for x in r["topics"]], REPLICA_TOPICS),
                                      spark.createDataFrame([tuple(x) for x in r["brokers"]], REPLICA_BROKERS),
                                      max_attempts=20)
            print(json.dumps({"version": step.version, "summary": step.summary}), flush=True)
        spark.stop()
        return
    table = AssignmentTable(spark, spec["table"], engine=engine)
    for r in spec["rounds"]:
        step = table.rebalance(spark.createDataFrame([tuple(x) for x in r["rows"]], SUBS), r["topics"],
                               r["strategy"], max_attempts=20)
        print(json.dumps({"version": step.version, "summary": step.summary}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

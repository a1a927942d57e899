"""A rebalancing process for the crash and concurrency tests: ``python -m tests.state.child SPEC_JSON``.

SPEC_JSON: {"table": path, "rounds": [{"rows": [[group, member, topic, instance], ...],
"topics": {...}, "strategy": "..."}, ...]}. Runs the rounds in order on its own
local Spark session and prints one JSON line per round. ``SPARK_ASSIGN_FAULT``
(see spark_assign.state.embedded._fault) makes it kill itself at that point.
"""

import json
import os
import sys


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import AssignmentTable, local_session

    from .fleets import SUBS

    spark = local_session(app_name="spark-assign-child", **{"spark.sql.shuffle.partitions": "2",
                                                           "spark.driver.memory": "1g"})
    table = AssignmentTable(spark, spec["table"])
    for r in spec["rounds"]:
        step = table.rebalance(spark.createDataFrame([tuple(x) for x in r["rows"]], SUBS), r["topics"],
                               r["strategy"], max_attempts=20)
        print(json.dumps({"version": step.version, "summary": step.summary}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()

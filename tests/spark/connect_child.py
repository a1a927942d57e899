"""A user's script on a local Spark Connect session: ``python -m tests.spark.connect_child``.

Starts :func:`spark_assign.local_session` with ``remote=True``, assigns one group, runs an
input with a null ``member_id`` (its job fails in a task) and prints one JSON line: the
session's class, the assignment, the error's class and the shuffle partitions setting.
"""

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import local_session
    from spark_assign.errors import InvalidInputError

    spark = local_session(master="local[1]", remote=True)
    schema = "group_id string, member_id string, topic string"
    subs = spark.createDataFrame([("g", "m1", "t"), ("g", "m2", "t")], schema)
    rows = subs.assign_partitions("range", topics={"t": 4}).select("member_id", "partition").collect()
    error = None
    try:
        spark.createDataFrame([("g", None, "t")], schema).assign_partitions("range", topics={"t": 4}).collect()
    except InvalidInputError as e:
        error = type(e).__name__
    print(json.dumps({"session": type(spark).__module__, "rows": sorted(map(tuple, rows)), "error": error,
                      "shuffle_partitions": spark.conf.get("spark.sql.shuffle.partitions")}))
    spark.stop()


if __name__ == "__main__":
    main()

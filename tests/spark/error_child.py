"""A user's script whose input has a bad row: ``python -m tests.spark.error_child``.

Builds :func:`spark_assign.local_session`, runs ``assign_partitions`` on a
group with a null member id, catches the error as ``InvalidInputError`` and
prints one JSON line: its type, column, group and rows. The test reads this
process's stderr for stacks.
"""

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import local_session
    from spark_assign.errors import InvalidInputError

    spark = local_session(master="local[1]", with_delta=False, **{"spark.sql.shuffle.partitions": "1"})
    subs = spark.createDataFrame([("g", "c1", "orders"), ("g", None, "orders")],
                                 "group_id string, member_id string, topic string")
    try:
        subs.assign_partitions("sticky", topics={"orders": 3}).collect()
        caught = None
    except InvalidInputError as e:
        caught = {"type": type(e).__name__, "column": e.column, "group": e.group, "rows": e.rows}
    print(json.dumps(caught))
    spark.stop()


if __name__ == "__main__":
    main()

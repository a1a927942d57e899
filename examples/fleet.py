"""A small fleet through ``DataFrame.assign_partitions``: assign, rebalance, see what moved.

    python examples/fleet.py

Six consumer groups of four members on two topics are assigned with
``cooperative-sticky``; then in every group one member leaves and two join,
and the fleet is rebalanced twice (cooperative: revoke, then assign), each
generation chained to the last through ``previous``.
"""

from __future__ import annotations

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign import local_session

TOPICS = {"orders": 12, "payments": 6}
STRATEGY = "cooperative-sticky"


def fleet(spark, groups: int = 6):
    """Subscriptions: members m0..m3 of each group subscribe to both topics."""
    rows = [(f"group-{g}", f"group-{g}-m{m}", t) for g in range(groups) for m in range(4) for t in TOPICS]
    return spark.createDataFrame(rows, "group_id string, member_id string, topic string")


def churn(subs):
    """In every group, m0 leaves and m4, m5 join."""
    from pyspark.sql import functions as F

    stay = subs.where(~F.col("member_id").endswith("-m0"))
    groups = subs.select("group_id").distinct()
    joins = (groups.crossJoin(subs.sparkSession.createDataFrame([("m4",), ("m5",)], "suffix string"))
             .crossJoin(subs.sparkSession.createDataFrame([(t,) for t in TOPICS], "topic string"))
             .select("group_id", F.concat_ws("-", "group_id", "suffix").alias("member_id"), "topic"))
    return stay.unionByName(joins)


def main() -> None:
    spark = local_session()
    subs = fleet(spark)
    first = subs.assign_partitions(STRATEGY, topics=TOPICS).cache()
    print("Generation 1: partitions per member")
    first.groupBy("group_id", "member_id").count().orderBy("group_id", "member_id").show(8)

    changed = churn(subs)
    second = changed.assign_partitions(STRATEGY, topics=TOPICS, previous=first).cache()
    third = changed.assign_partitions(STRATEGY, topics=TOPICS, previous=second).cache()
    for gen in (second, third):
        print(f"Generation {gen.first().generation}: status counts over the fleet")
        gen.groupBy("status").count().orderBy("status").show()

    moved = (first.alias("a").join(third.alias("b"), ["group_id", "topic", "partition"])
             .where("a.member_id <> b.member_id")
             .selectExpr("group_id", "topic", "partition", "a.member_id AS from_member", "b.member_id AS to_member"))
    print(f"Moved between generations 1 and 3: {moved.count()} partitions; in group-0:")
    moved.where("group_id = 'group-0'").orderBy("topic", "partition").show(truncate=False)
    pending = third.where("member_id IS NULL").count()
    print(f"Pending transfers after generation 3: {pending}")


if __name__ == "__main__":
    main()

"""The SQL table functions give exactly the DataFrame method's rows.

200 random groups per strategy (static members, racks, unknown topics), two
rounds: a fresh assignment, then churn where the remaining members claim what
round 1 gave them (``owned_partitions``, some with a stale generation, some
claimed twice). Same input rows to both, shuffled and partitioned differently.
"""

from __future__ import annotations

import random
from typing import Dict, List, Tuple

import pytest

import spark_assign
from spark_assign.testing import random_group

pytestmark = pytest.mark.spark

STRATEGIES = ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"]
GROUPS = 200
SUBS = ("group_id string, member_id string, topic string, group_instance_id string, rack string, "
        "owned_partitions array<int>, generation int")
TOPICS = "group_id string, topic string, num_partitions int, replica_racks array<array<string>>"
RACKS = ["r0", "r1", "r2"]


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)


def fleet(seed: int) -> Tuple[List[tuple], List[tuple]]:
    """Round-1 subscription rows and topic rows of GROUPS random groups."""
    rng = random.Random(seed)
    subs, topics = [], []
    for i in range(GROUPS):
        gid = f"g{i:03d}"
        members, counts = random_group(seed * 1000 + i, max_members=8, max_topics=4, max_partitions=10)
        racked = rng.random() < 0.5
        for t, n in counts.items():
            replicas = [rng.sample(RACKS, 2) for _ in range(n)] if racked else None
            topics.append((gid, t, n, replicas))
        for m in members:
            rack = rng.choice(RACKS) if racked else None
            extra = ["ghost"] if rng.random() < 0.1 else []      # a topic missing from the metadata
            for t in (list(m.topics) + extra) or [None]:
                subs.append((gid, m.member_id, t, m.instance_id, rack, None, None))
    return subs, topics


def churn(subs: List[tuple], result: List[tuple], rng: random.Random) -> List[tuple]:
    """Round 2: a quarter of the members leave, one joins per group; the others claim
    their round-1 partitions (generation 1, some stale at 0, some double claims)."""
    owned: Dict[Tuple[str, str, str], List[int]] = {}
    for group_id, _, member_id, topic, partition, _, _ in result:
        if member_id is not None:
            owned.setdefault((group_id, member_id, topic), []).append(partition)
    members: Dict[Tuple[str, str], List[tuple]] = {}
    for row in subs:
        members.setdefault((row[0], row[1]), []).append(row)
    out, joined = [], set()
    for (gid, member), rows in members.items():
        if rng.random() < 0.25:
            continue
        generation = 0 if rng.random() < 0.1 else 1
        for g, m, t, instance, rack, _, _ in rows:
            mine = sorted(owned.get((g, m, t), [])) if t is not None else None
            if mine is not None and rng.random() < 0.1:
                mine = mine + [0]                                # maybe a double claim
            out.append((g, m, t, instance, rack, sorted(set(mine)) if mine is not None else None, generation))
        if gid not in joined:
            joined.add(gid)
            out.append((gid, f"new-{gid}", rows[0][2], None, rows[0][4], None, None))
    rng.shuffle(out)
    return out


def both(spark, subs: List[tuple], topics_df, strategy: str) -> Tuple[list, list]:
    """(DataFrame method rows, SQL table function rows), each sorted."""
    subs_df = spark.createDataFrame(subs, SUBS)
    frame = subs_df.repartition(3).assign_partitions(strategy, topics=topics_df).collect()
    subs_df.join(topics_df, ["group_id", "topic"], "left").repartition(5, "member_id") \
        .createOrReplaceTempView("sql_engine_input")
    sql = spark.sql("SELECT * FROM assign_partitions(TABLE(sql_engine_input) PARTITION BY group_id, "
                    f"strategy => '{strategy}')").collect()
    return sorted(map(tuple, frame), key=repr), sorted(map(tuple, sql), key=repr)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sql_equals_dataframe(spark, strategy):
    rng = random.Random(strategy)
    subs, topics = fleet(seed=len(strategy))
    rng.shuffle(subs)
    topics_df = spark.createDataFrame(topics, TOPICS)
    frame1, sql1 = both(spark, subs, topics_df, strategy)
    assert len({r[0] for r in frame1}) > GROUPS * 0.8          # most groups have partitions
    assert sql1 == frame1
    frame2, sql2 = both(spark, churn(subs, frame1, rng), topics_df, strategy)
    assert {r[1] for r in frame2} >= {2}                       # claims of generation 1 give generation 2
    assert sql2 == frame2


@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
def test_row_mode_equals_arrow_mode(spark, strategy):
    """``register(spark, arrow=False)``: Spark's row-at-a-time UDTF, same rows."""
    subs, topics = fleet(seed=7)
    subs = [s for s in subs if s[0] < "g050"]
    topics_df = spark.createDataFrame(topics, TOPICS)
    frame, arrow_rows = both(spark, subs, topics_df, strategy)
    try:
        spark_assign.register(spark, arrow=False)
        _, row_rows = both(spark, subs, topics_df, strategy)
    finally:
        spark_assign.register(spark)
    assert arrow_rows == frame and row_rows == frame


def test_per_strategy_functions_equal_assign_partitions(spark):
    subs, topics = fleet(seed=3)
    spark.createDataFrame([s for s in subs if s[0] < "g040"], SUBS) \
        .join(spark.createDataFrame(topics, TOPICS), ["group_id", "topic"], "left") \
        .createOrReplaceTempView("sql_engine_small")
    for strategy in STRATEGIES:
        short = spark.sql(f"SELECT * FROM assign_{strategy.replace('-', '_')}(TABLE(sql_engine_small))")
        generic = spark.sql("SELECT * FROM assign_partitions(TABLE(sql_engine_small) PARTITION BY group_id, "
                            f"strategy => '{strategy}')")
        assert short.exceptAll(generic).count() == 0 and generic.exceptAll(short).count() == 0, strategy

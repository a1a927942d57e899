"""The SQL table functions with per-partition weights: a ``partition_weights`` column (one array per
topic, like ``replica_racks``) and the load-aware knobs as constant arguments.

The functions run the DataFrame method's worker, so for the same weights they must return the
DataFrame method's rows (random fleets, fresh and with claims); then every bad call and bad array.
"""

from __future__ import annotations

import random

import pytest

import spark_assign
from spark_assign.errors import InvalidInputError

from .test_sql_engine import SUBS, TOPICS, churn, fleet
from .test_sql_errors import analysis_error

pytestmark = pytest.mark.spark

WEIGHTS = "group_id string, topic string, partition int, weight double"


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)
    spark.createDataFrame([("g", "a", "t", 3, [5.0, 1.0, 1.0]), ("g", "b", "t", 3, [5.0, 1.0, 1.0]),
                           ("h", "c", "t", 3, None)],
                          "group_id string, member_id string, topic string, num_partitions int, "
                          "partition_weights array<double>").createOrReplaceTempView("w_subs")


def lag_of(topics, rng):
    """Per (group, topic): a weight per partition, or None (the topic has none: the group's mean)."""
    return {(g, t): (None if rng.random() < 0.1 else [float(rng.randint(0, 10) ** 3) for _ in range(n)])
            for g, t, n, _ in topics}


def both(spark, subs, topics, lag, function: str, args: str):
    """(DataFrame method rows, SQL rows), sorted: the same weights as a DataFrame and as arrays."""
    topics_df = spark.createDataFrame(topics, TOPICS)
    subs_df = spark.createDataFrame(subs, SUBS)
    rows = [(g, t, p, w) for (g, t), ws in lag.items() if ws is not None for p, w in enumerate(ws)]
    strategy = function[len("assign_"):].replace("_", "-")
    knobs = dict(kv.split(" => ") for kv in args.split(", ") if kv)
    frame = subs_df.repartition(3).assign_partitions(
        strategy, topics=topics_df, weights=spark.createDataFrame(rows, WEIGHTS),
        **{k: (int(v) if k == "max_count_skew" else float(v)) for k, v in knobs.items()}).collect()
    arrays = spark.createDataFrame([(g, t, ws) for (g, t), ws in lag.items()],
                                   "group_id string, topic string, partition_weights array<double>")
    subs_df.join(topics_df, ["group_id", "topic"], "left").join(arrays, ["group_id", "topic"], "left") \
        .repartition(4, "member_id").createOrReplaceTempView("sql_weights_input")
    sql = spark.sql(f"SELECT * FROM {function}(TABLE(sql_weights_input){', ' + args if args else ''})").collect()
    return sorted(map(tuple, frame), key=repr), sorted(map(tuple, sql), key=repr)


@pytest.mark.parametrize("function, args", [("assign_load_aware", ""),
                                            ("assign_cooperative_load_aware", "max_count_skew => 2"),
                                            ("assign_lag_based", "min_improvement => 0.2")])
def test_sql_equals_dataframe_with_weights(spark, function, args):
    rng = random.Random(function)
    subs, topics = fleet(seed=len(function) + 100)
    subs = [s for s in subs if s[0] < "g080"]
    topics = [t for t in topics if t[0] < "g080"]
    lag = lag_of(topics, rng)
    frame1, sql1 = both(spark, subs, topics, lag, function, args)
    assert sql1 == frame1 and len(frame1[0]) == 8              # ... and the weight column
    frame2, sql2 = both(spark, churn(subs, [r[:7] for r in frame1], rng), topics, lag, function, args)
    assert sql2 == frame2


def test_assign_partitions_takes_the_strategy_and_the_knobs(spark):
    generic = spark.sql("SELECT * FROM assign_partitions(TABLE(w_subs) PARTITION BY group_id, "
                        "strategy => 'load-aware', max_count_skew => 2, min_improvement => 0.1)")
    short = spark.sql("SELECT * FROM assign_load_aware(TABLE(w_subs), max_count_skew => 2, min_improvement => 0.1)")
    assert generic.columns[-1] == "weight"
    assert sorted(generic.collect()) == sorted(short.collect())
    weights = {(r.group_id, r.partition): r.weight for r in short.collect()}
    assert weights == {("g", 0): 5.0, ("g", 1): 1.0, ("g", 2): 1.0, ("h", 0): 1.0, ("h", 1): 1.0, ("h", 2): 1.0}


def test_row_mode_equals_arrow_mode(spark):
    query = "SELECT * FROM assign_load_aware(TABLE(w_subs)) ORDER BY group_id, partition"
    arrow_rows = spark.sql(query).collect()
    try:
        spark_assign.register(spark, arrow=False)
        row_rows = spark.sql(query).collect()
    finally:
        spark_assign.register(spark)
    assert arrow_rows == row_rows


# ------------------------------------------------------------------ bad calls and bad arrays


def job_error(spark, query: str) -> InvalidInputError:
    df = spark.sql(query)
    df.schema
    rows = None
    with pytest.raises(InvalidInputError) as info:
        rows = df.collect()
    assert rows is None and "Traceback" not in str(info.value)
    return info.value


def test_a_weighted_strategy_needs_partition_weights(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_load_aware(TABLE(SELECT group_id, member_id, topic, "
                                "num_partitions FROM w_subs))")
    assert "strategy 'load-aware' balances per-partition weights" in msg and "partition_weights" in msg
    msg = analysis_error(spark, "SELECT * FROM assign_partitions(TABLE(SELECT group_id, member_id, topic, "
                                "num_partitions FROM w_subs) PARTITION BY group_id, strategy => 'lag-based')")
    assert "strategy 'lag-based' balances per-partition weights" in msg


@pytest.mark.parametrize("args, expected", [
    ("max_count_skew => 0", "max_count_skew must be an integer >= 1"),
    ("max_count_skew => 1.5", "max_count_skew must be a constant number"),
    ("min_improvement => 1.0", "min_improvement must be a number in [0, 1)"),
    ("min_improvement => 'x'", "min_improvement must be a constant number"),
    ("max_count_skew => CAST(rand() * 3 AS INT)", "max_count_skew must be a constant number"),
    ("max_count_skew => CAST(NULL AS INT)", "max_count_skew must be a constant number"),
])
def test_bad_knobs_fail_at_analysis(spark, args, expected):
    msg = analysis_error(spark, f"SELECT * FROM assign_load_aware(TABLE(w_subs), {args})")
    assert expected in msg


def test_knobs_of_a_count_strategy_function_are_refused(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_sticky(TABLE(w_subs), max_count_skew => 2)")
    assert "unexpected keyword argument 'max_count_skew'" in msg


def test_mistyped_partition_weights(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_load_aware(TABLE(SELECT group_id, member_id, topic, "
                                "num_partitions, array('1') AS partition_weights FROM w_subs))")
    assert "column 'partition_weights' must be array<double>, got array<string>" in msg


@pytest.mark.parametrize("arrays, column, rows", [
    ("array(1.0D, 2.0D)", "partition_weights", [("t", 3, 2)]),
    ("array(1.0D, -2.0D, 0.0D)", "partition_weights", [("t", 1, -2.0)]),
    ("array(1.0D, CAST('NaN' AS DOUBLE), 0.0D)", "partition_weights", [("t", 1, "nan")]),
    ("array(1.0D, NULL, 0.0D)", "partition_weights", [("t", 1, None)]),
    ("IF(member_id = 'a', array(1.0D, 1.0D, 1.0D), array(1.0D, 2.0D, 1.0D))", "partition_weights",
     [("t", [1.0, 1.0, 1.0]), ("t", [1.0, 2.0, 1.0])]),
])
def test_bad_partition_weights_name_the_column_and_rows(spark, arrays, column, rows):
    e = job_error(spark, "SELECT * FROM assign_load_aware(TABLE(SELECT group_id, member_id, topic, num_partitions, "
                         f"{arrays} AS partition_weights FROM w_subs WHERE group_id = 'g'))")
    shown = [tuple("nan" if isinstance(x, float) and x != x else x for x in r) for r in e.rows]
    assert (e.column, e.group, shown) == (column, "g", rows)

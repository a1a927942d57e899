"""Bad SQL calls and bad rows: clear errors, no output.

Everything visible from the schema fails at analysis time (``.schema`` runs no
job), with spark-assign's message inside Spark's AnalysisException. Data
problems fail the job, whose action raises the engine's InvalidInputError
(group, column, rows), catchable as such.
"""

from __future__ import annotations

import pytest
from pyspark.errors import AnalysisException

import spark_assign
from spark_assign.errors import InvalidInputError

pytestmark = pytest.mark.spark

SUBS = "group_id string, member_id string, topic string, num_partitions int"
GOOD = [("g1", "a", "t", 3), ("g1", "b", "t", 3), ("g2", "c", "t", 2)]


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)
    spark.createDataFrame(GOOD, SUBS).createOrReplaceTempView("err_subs")


def analysis_error(spark, query: str) -> str:
    """``query`` must fail while Spark analyzes it; returns the message."""
    with pytest.raises(AnalysisException) as info:
        spark.sql(query).schema
    return str(info.value)


def job_error(spark, query: str) -> str:
    """``query`` analyzes, then its job fails and returns nothing; returns the message."""
    df = spark.sql(query)
    df.schema
    rows = None
    with pytest.raises(InvalidInputError) as info:
        rows = df.collect()
    assert rows is None
    assert info.value.column and "Traceback" not in str(info.value)
    return str(info.value)


def call(table: str, strategy: str = "'range'") -> str:
    return f"SELECT * FROM assign_partitions(TABLE({table}) PARTITION BY group_id, strategy => {strategy})"


# ------------------------------------------------------------------ analysis time


def test_missing_column(spark):
    msg = analysis_error(spark, call("SELECT group_id, topic, num_partitions FROM err_subs"))
    assert "assign_partitions: the input table lacks the required column 'member_id' (string)" in msg
    assert "it has: group_id, topic, num_partitions" in msg


def test_missing_partition_counts(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_sticky(TABLE(SELECT group_id, member_id, topic FROM err_subs))")
    assert "assign_sticky: the input table lacks the required column 'num_partitions' (int)" in msg


def test_wrong_type(spark):
    msg = analysis_error(spark, call("SELECT group_id, member_id, topic, CAST(num_partitions AS STRING) "
                                     "AS num_partitions FROM err_subs"))
    assert "assign_partitions: column 'num_partitions' must be int, got string" in msg


def test_wrong_array_type(spark):
    msg = analysis_error(spark, call("SELECT *, array('0') AS owned_partitions FROM err_subs", "'sticky'"))
    assert "column 'owned_partitions' must be array<int>, got array<string>" in msg


def test_unknown_strategy(spark):
    msg = analysis_error(spark, call("err_subs", "'stiky'"))
    assert "unknown strategy 'stiky'; valid strategies are: cooperative-load-aware, cooperative-sticky, lag-based" in msg


def test_strategy_must_be_a_constant(spark):
    msg = analysis_error(spark, call("err_subs", "CAST(rand() AS STRING)"))
    assert "assign_partitions: strategy must be a constant string" in msg


def test_strategy_must_not_be_null(spark):
    msg = analysis_error(spark, call("err_subs", "CAST(NULL AS STRING)"))
    assert "assign_partitions: strategy must not be NULL" in msg


def test_first_argument_must_be_a_table(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_partitions('err_subs')")
    assert "assign_partitions: the first argument must be a table" in msg


def test_per_strategy_function_partitions_by_itself(spark):
    """assign_<strategy> declares PARTITION BY group_id: a PARTITION BY in the call is refused."""
    msg = analysis_error(spark, "SELECT * FROM assign_range(TABLE(err_subs) PARTITION BY group_id)")
    assert "TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL" in msg
    assert "please remove these clauses" in msg


def test_per_strategy_function_takes_no_strategy(spark):
    msg = analysis_error(spark, "SELECT * FROM assign_range(TABLE(err_subs), strategy => 'sticky')")
    assert "unexpected keyword argument 'strategy'" in msg


# ------------------------------------------------------------------ run time


MISSING_PARTITION_BY = ("assign_partitions needs its table argument partitioned by group: write "
                        "assign_partitions(TABLE(t) PARTITION BY group_id, strategy => 'range'), or call "
                        "assign_range(TABLE(t)), which partitions by itself")


@pytest.mark.parametrize("clause", ["", " WITH SINGLE PARTITION"])
def test_missing_partition_by(spark, clause):
    """Analysis cannot see whether the call partitions its input (Spark does not tell
    ``analyze``); the handler sees how Spark's worker made it and stops the job
    before any row comes out."""
    msg = job_error(spark, f"SELECT * FROM assign_partitions(TABLE(SELECT * FROM err_subs){clause}, "
                           "strategy => 'range')")
    assert MISSING_PARTITION_BY in msg


def test_missing_partition_by_one_group_in_two_spark_partitions(spark):
    """Without the check, each Spark partition of a one-group table would be assigned on its own."""
    spark.createDataFrame([("g1", m, "t", 4) for m in "abcd"], SUBS).repartition(2) \
        .createOrReplaceTempView("err_one_group")
    msg = job_error(spark, "SELECT * FROM assign_partitions(TABLE(err_one_group), strategy => 'range')")
    assert MISSING_PARTITION_BY in msg


def test_several_groups_in_one_instance_are_refused():
    """The fallback when the worker's way of making the handler is not recognised."""
    from spark_assign.errors import InvalidInputError
    from spark_assign.spark.consumer.sql_functions import RESULT_STRUCT, TABLE_FUNCTIONS, AssignPlan

    handler = TABLE_FUNCTIONS["assign_partitions"](AssignPlan(RESULT_STRUCT, strategy="range", columns=("group_id",)))
    assert handler._partitioned is None                    # made by a test, not by Spark's worker
    handler.eval(("g1",))
    with pytest.raises(InvalidInputError, match="received rows of more than one group in one call") as info:
        handler.eval(("g2",))
    assert "'g1', 'g2'" in str(info.value)


def test_null_member_id(spark):
    spark.createDataFrame([("g1", None, "t", 3), ("g1", "a", "t", 3)], SUBS).createOrReplaceTempView("err_null")
    msg = job_error(spark, call("err_null"))
    assert "null or empty member_id; column 'member_id'; group 'g1'" in msg


def test_duplicate_rows(spark):
    spark.createDataFrame([("g1", "a", "t", 3), ("g1", "a", "t", 3)], SUBS).createOrReplaceTempView("err_dup")
    msg = job_error(spark, "SELECT * FROM assign_roundrobin(TABLE(err_dup))")
    assert "duplicate (member_id, topic) subscription rows; column 'topic'; group 'g1'" in msg


def test_negative_partition_count(spark):
    spark.createDataFrame([("g1", "a", "t", -1)], SUBS).createOrReplaceTempView("err_neg")
    msg = job_error(spark, call("err_neg"))
    assert "negative partition count; column 'num_partitions'; group 'g1'" in msg


def test_rows_of_a_topic_disagree_on_the_count(spark):
    spark.createDataFrame([("g1", "a", "t", 3), ("g1", "b", "t", 4), ("g1", "b", "u", None)], SUBS) \
        .createOrReplaceTempView("err_counts")
    msg = job_error(spark, call("err_counts"))
    assert "rows of one topic disagree on num_partitions; column 'num_partitions'; group 'g1'" in msg
    assert "('t', 3), ('t', 4)" in msg


def test_rows_of_a_topic_disagree_on_replica_racks(spark):
    spark.createDataFrame([("g1", "a", "t", 1, [["r1"]]), ("g1", "b", "t", 1, [["r2"]])],
                          SUBS + ", replica_racks array<array<string>>").createOrReplaceTempView("err_racks")
    msg = job_error(spark, "SELECT * FROM assign_range(TABLE(err_racks))")
    assert "rows of one topic disagree on replica_racks; column 'replica_racks'; group 'g1'" in msg


def test_member_rows_disagree_on_generation(spark):
    spark.createDataFrame([("g1", "a", "t", 3, 1), ("g1", "a", "u", 3, 2)], SUBS + ", generation int") \
        .createOrReplaceTempView("err_gen")
    msg = job_error(spark, call("err_gen", "'sticky'"))
    assert "a member's rows disagree on generation; column 'generation'; group 'g1'" in msg


# ------------------------------------------------------------------ accepted


def test_column_names_ignore_case_and_extra_columns_and_integral_widths(spark):
    spark.createDataFrame([("g1", "a", "t", 3, "x", [1], 2)],
                          "GROUP_ID string, Member_Id string, TOPIC string, num_partitions bigint, note string, "
                          "owned_partitions array<bigint>, generation smallint").createOrReplaceTempView("err_case")
    rows = spark.sql("SELECT * FROM assign_sticky(TABLE(err_case))").collect()
    assert sorted((r.partition, r.member_id, r.status, r.generation) for r in rows) == [
        (0, "a", "new", 3), (1, "a", "kept", 3), (2, "a", "new", 3)]


def test_unknown_topic_gets_no_partitions(spark):
    spark.createDataFrame([("g1", "a", "t", 2), ("g1", "a", "ghost", None)], SUBS).createOrReplaceTempView("err_ghost")
    rows = spark.sql(call("err_ghost")).collect()
    assert sorted((r.topic, r.partition) for r in rows) == [("t", 0), ("t", 1)]


def test_partition_owned_twice_in_one_generation_is_unowned(spark):
    spark.createDataFrame([("g", "a", "t", 3, [0, 1], 1), ("g", "b", "t", 3, [0, 2], 1), ("g", "c", "t", 3, None, None)],
                          SUBS + ", owned_partitions array<int>, generation int").createOrReplaceTempView("err_twice")
    rows = spark.sql("SELECT * FROM assign_cooperative_sticky(TABLE(err_twice))").collect()
    got = {r.partition: (r.member_id, r.previous_member_id, r.status) for r in rows}
    assert got == {0: (None, None, "revoked"), 1: ("a", "a", "kept"), 2: ("b", "b", "kept")}


def test_columns_in_any_order(spark):
    """The partitioning column need not come first (Spark maps PARTITION BY through our select)."""
    spark.createDataFrame([("x", "a", "t", 3, "g1"), ("y", "b", "t", 3, "g1"), ("z", "c", "t", 2, "g2")],
                          "note string, member_id string, topic string, num_partitions int, group_id string") \
        .createOrReplaceTempView("err_order")
    for query in [call("err_order"), "SELECT * FROM assign_range(TABLE(err_order))"]:
        rows = spark.sql(query).collect()
        assert sorted((r.group_id, r.partition, r.member_id) for r in rows) == [
            ("g1", 0, "a"), ("g1", 1, "a"), ("g1", 2, "b"), ("g2", 0, "c"), ("g2", 1, "c")]


@pytest.mark.parametrize("statement", [
    "CALL spark_assign.rebalance(state => '/tmp/call-hint', subscriptions => 's', topics => 't')",
    "CALL spark_assign.views(state => '/tmp/call-hint')",
])
def test_a_call_through_spark_sql_says_how_to_run_it(spark, statement):
    # Spark's catalog has no procedures (MISSING_CATALOG_ABILITY.PROCEDURES, recognised by that condition):
    # the AnalysisException stays, with a line saying what runs spark-assign's CALL statements.
    with pytest.raises(AnalysisException) as info:
        spark.sql(statement).collect()
    assert info.value.getCondition() == "MISSING_CATALOG_ABILITY.PROCEDURES"
    text = str(info.value)
    assert "spark_assign.state.consumer.sql.run_script(spark, script)" in text and "call_statement" in text
    assert "Traceback" not in text


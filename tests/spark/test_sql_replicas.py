"""The ``assign_replicas`` SQL table function: the DataFrame method's rows, from SQL.

Each topic row carries its cluster's brokers (``collect_list(struct(...))``
joined in) and, to reassign, its current replicas (``collect_list`` of the
function's own output). The rows must equal ``DataFrame.assign_replicas`` on
the same fleet, for placement and for the ``sticky`` reassignment; mistakes
visible from the schema fail at analysis, data mistakes fail the job with
InvalidInputError naming the cluster, column and rows.
"""

from __future__ import annotations

import pytest

import spark_assign
from spark_assign.errors import InvalidInputError

from .test_replicas import BROKERS, TOPICS, data_error, fleet
from .test_sql_errors import analysis_error

pytestmark = pytest.mark.spark

#: The input as the guide writes it: each topic with its cluster's brokers.
INPUT = """
SELECT t.*, b.brokers
FROM {topics} t
JOIN (SELECT cluster_id, collect_list(struct(broker_id, rack, fenced)) AS brokers FROM {brokers} GROUP BY cluster_id) b
  ON b.cluster_id = t.cluster_id
"""
#: The previous placement per topic, from a result of the function (or of the DataFrame method).
PREVIOUS = """
SELECT cluster_id, topic, collect_list(struct(partition, replica_index, broker_id)) AS previous
FROM {placed} GROUP BY cluster_id, topic
"""


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)
    topics, brokers = fleet(5, clusters=5)
    spark.createDataFrame(topics, TOPICS).createOrReplaceTempView("rsql_topics")
    spark.createDataFrame(brokers, BROKERS).createOrReplaceTempView("rsql_brokers")
    spark.sql(INPUT.format(topics="rsql_topics", brokers="rsql_brokers")).createOrReplaceTempView("rsql_input")


def rows(df) -> set:
    return set(map(tuple, df.collect()))


@pytest.mark.parametrize("method", ["striped", "admin-utils"])
def test_placement_equals_the_dataframe_method(spark, method):
    by_sql = spark.sql(f"SELECT * FROM assign_replicas(TABLE(rsql_input), method => '{method}', seed => 3)")
    by_method = spark.table("rsql_topics").assign_replicas(spark.table("rsql_brokers"), method=method, seed=3)
    assert rows(by_sql) == rows(by_method)


def test_sticky_reassigns_the_functions_own_output(spark):
    first = spark.sql("SELECT * FROM assign_replicas(TABLE(rsql_input), method => 'admin-utils')")
    first.createOrReplaceTempView("rsql_first")
    spark.sql(PREVIOUS.format(placed="rsql_first")).createOrReplaceTempView("rsql_previous")
    # one more broker in every cluster, and every replication factor one lower where it can be
    spark.sql("""SELECT cluster_id, broker_id, rack, fenced FROM rsql_brokers
                 UNION ALL SELECT DISTINCT cluster_id, 9000, CAST(NULL AS STRING), false FROM rsql_brokers
                 WHERE cluster_id NOT IN (SELECT cluster_id FROM rsql_brokers WHERE rack IS NOT NULL)""") \
        .createOrReplaceTempView("rsql_brokers_2")
    spark.sql("""SELECT cluster_id, topic, num_partitions, greatest(replication_factor - 1, 1) AS replication_factor
                 FROM rsql_topics""").createOrReplaceTempView("rsql_topics_2")
    again = spark.sql(f"""
        SELECT * FROM assign_replicas(TABLE(
            SELECT i.*, p.previous FROM ({INPUT.format(topics='rsql_topics_2', brokers='rsql_brokers_2')}) i
            LEFT JOIN rsql_previous p ON p.cluster_id = i.cluster_id AND p.topic = i.topic),
          method => 'sticky')""")
    by_method = spark.table("rsql_topics_2").assign_replicas(spark.table("rsql_brokers_2"), method="sticky",
                                                              previous=first)
    got = rows(again)
    assert got == rows(by_method)
    assert {r[-1] for r in got} <= {"kept", "moved"} and "kept" in {r[-1] for r in got}


def test_one_cluster_without_cluster_ids_and_a_replication_factor_argument(spark):
    out = spark.sql("""
        SELECT * FROM assign_replicas(TABLE(
            SELECT * FROM VALUES ('orders', 3), ('audit', 1) AS t(topic, num_partitions)
            CROSS JOIN (SELECT array(named_struct('broker_id', 1L), named_struct('broker_id', 2L),
                                     named_struct('broker_id', 3L)) AS brokers)),
          replication_factor => 2, method => 'striped', seed => 9)""").collect()
    assert len(out) == 8 and {r.cluster_id for r in out} == {None}
    by_method = spark.createDataFrame([("orders", 3), ("audit", 1)], "topic string, num_partitions int") \
        .assign_replicas(spark.createDataFrame([(1,), (2,), (3,)], "broker_id int"), replication_factor=2, seed=9)
    assert set(map(tuple, out)) == rows(by_method)


def test_row_at_a_time_registration_gives_the_same_rows(spark):
    query = "SELECT * FROM assign_replicas(TABLE(rsql_input), method => 'striped')"
    arrow = rows(spark.sql(query))
    try:
        spark_assign.register(spark, arrow=False)
        assert rows(spark.sql(query)) == arrow
    finally:
        spark_assign.register(spark)


# ------------------------------------------------------------------ errors


def job_error(spark, query: str) -> InvalidInputError:
    df = spark.sql(query)
    df.schema                                          # analysis passes
    return data_error(df)


@pytest.mark.parametrize("query, expected", [
    ("SELECT * FROM assign_replicas(TABLE(SELECT cluster_id, topic, num_partitions FROM rsql_topics), "
     "replication_factor => 1)", "lacks the required column 'brokers'"),
    ("SELECT * FROM assign_replicas(TABLE(SELECT topic, num_partitions, array(named_struct('id', 1)) AS brokers "
     "FROM rsql_topics), replication_factor => 1)", "without the field 'broker_id'"),
    ("SELECT * FROM assign_replicas(TABLE(SELECT topic, num_partitions, array(named_struct('broker_id', 'one')) "
     "AS brokers FROM rsql_topics), replication_factor => 1)", "field 'broker_id' of column 'brokers' must be int"),
    ("SELECT * FROM assign_replicas(TABLE(SELECT topic, num_partitions, 7 AS brokers FROM rsql_topics), "
     "replication_factor => 1)", "column 'brokers' must be array<struct"),
    ("SELECT * FROM assign_replicas(TABLE(rsql_input), method => 'zk')", "unknown replica placement method 'zk'"),
    ("SELECT * FROM assign_replicas(TABLE(rsql_input), method => 'sticky')", "method 'sticky' reassigns"),
    ("SELECT * FROM assign_replicas(TABLE(SELECT topic, num_partitions, brokers FROM rsql_input))",
     "replication_factor is required"),
    ("SELECT * FROM assign_replicas(TABLE(rsql_input), replication_factor => 0)",
     "replication_factor must be at least 1, got 0"),
    ("SELECT * FROM assign_replicas(TABLE(rsql_input), seed => 'x')", "seed must be a constant integer"),
    ("SELECT * FROM assign_replicas(TABLE(rsql_input), rack_aware => 'always')", "rack_aware must be one of"),
    ("SELECT * FROM assign_replicas('rsql_input')", "the first argument must be a table"),
], ids=["no-brokers", "broker-struct-without-id", "broker-id-string", "brokers-not-an-array", "unknown-method",
        "sticky-without-previous", "no-replication-factor", "rf-zero-argument", "seed-string", "rack-aware-unknown",
        "not-a-table"])
def test_schema_and_argument_mistakes_fail_at_analysis(spark, query, expected):
    assert expected in analysis_error(spark, query)


def test_rows_that_disagree_on_brokers_name_the_topics(spark):
    error = job_error(spark, """
        SELECT * FROM assign_replicas(TABLE(
            SELECT * FROM VALUES ('c', 'a', 1, array(named_struct('broker_id', 1), named_struct('broker_id', 2))),
                                 ('c', 'b', 1, array(named_struct('broker_id', 1), named_struct('broker_id', 3)))
            AS t(cluster_id, topic, num_partitions, brokers)), replication_factor => 1)""")
    assert error.column == "brokers" and error.rows == ["b"] and error.group == "c"


def test_a_replication_factor_of_zero_names_the_topic(spark):
    error = job_error(spark, """
        SELECT * FROM assign_replicas(TABLE(
            SELECT * FROM VALUES ('c', 'a', 1, 1), ('c', 'b', 1, 0) AS t(cluster_id, topic, num_partitions,
                                                                         replication_factor)
            CROSS JOIN (SELECT array(named_struct('broker_id', 1)) AS brokers)))""")
    assert error.column == "replication_factor" and error.rows == ["b"] and error.group == "c"

"""Bad input to the SQL surface: the table functions, ``kafka_partition``, ``CALL``.

docs/sql.md: mistakes visible from the schema fail at analysis time as
``AnalysisException`` carrying spark-assign's message (nothing runs); bad rows
fail the job, whose action raises ``InvalidInputError``; an argument of
``kafka_partition``/``kafka_murmur2`` of the wrong type or out of Kafka's
range is an ``InvalidInputError`` naming it. Each case asserts the exception
type, that the message names the column or argument, that no rows came back,
and that neither the message nor stderr holds a stack: the cases run in a
child process that captures its stderr (see stderr.py).
"""

from __future__ import annotations

import pytest
from pyspark.errors import AnalysisException

from spark_assign.errors import InvalidInputError

from .conftest import assert_clean
from .stderr import case_params, checks, run_in_child

pytestmark = pytest.mark.spark
SURFACE = "sql"

COLS = "group_id string, member_id string, topic string, num_partitions int"
RANGE = "SELECT * FROM assign_range(TABLE({}))"


def rows(data, schema=COLS, query=RANGE):
    """A case: ``data`` as a view, queried by ``query``."""
    def attempt(spark):
        spark.createDataFrame(data, schema).createOrReplaceTempView("bad_sql")
        return spark.sql(query.format("bad_sql")).collect()
    return attempt


def sql(query):
    return lambda spark: spark.sql(query).collect()


EXTRA = COLS + ", {}"


def replicas(rf: str, brokers: str, method: str = "striped", previous: str = ""):
    """A case: ``assign_replicas`` of one topic row (replication factor ``rf``, the structs of
    ``brokers``, and ``previous`` replica structs when given)."""
    extra = f", array({previous}) AS previous" if previous else ""
    return sql(f"SELECT * FROM assign_replicas(TABLE(SELECT 'c' AS cluster_id, 't' AS topic, 2 AS num_partitions, "
               f"{rf} AS replication_factor, array({brokers}) AS brokers{extra}), method => '{method}')")


JOB = [
    pytest.param(rows([("g", None, "t", 3), ("g", "a", "t", 3)]), "member_id", id="member-id-null"),
    pytest.param(rows([("g", "", "t", 3)]), "member_id", id="member-id-empty"),
    pytest.param(rows([("g", "a", "t", 3), ("g", "a", "t", 3)]), "topic", id="duplicate-rows"),
    pytest.param(rows([("g", "a", "t", -1)]), "num_partitions", id="negative-count"),
    pytest.param(rows([("g", "a", "t", 3), ("g", "b", "t", 4)]), "num_partitions", id="topic-rows-disagree-on-count"),
    pytest.param(rows([("g", "a", "t", 2**31)], COLS.replace("num_partitions int", "num_partitions bigint")),
                 "num_partitions", id="bigint-count-2^31"),
    pytest.param(rows([(None, "a", "t", 3)]), "group_id", id="group-id-null"),
    pytest.param(rows([("g", "a", "t", 3, "s"), ("g", "b", "t", 3, "s")], EXTRA.format("group_instance_id string")),
                 "group_instance_id", id="static-id-used-by-two-members"),
    pytest.param(rows([("g", "a", "t", 3, 1), ("g", "a", "u", 3, 2)], EXTRA.format("generation int"),
                      "SELECT * FROM assign_sticky(TABLE({}))"), "generation", id="generation-disagrees"),
    pytest.param(rows([("g", "a", "t", 3, 2**40)], EXTRA.format("generation bigint"),
                      "SELECT * FROM assign_sticky(TABLE({}))"), "generation", id="generation-bigint-above-int32"),
    pytest.param(rows([("g", "a", "t", 3, [-1])], EXTRA.format("owned_partitions array<int>"),
                      "SELECT * FROM assign_sticky(TABLE({}))"), "owned_partitions", id="owned-negative"),
    pytest.param(rows([("g", "a", "t", 3, [[["r"]]][0])], EXTRA.format("replica_racks array<array<string>>")),
                 "partition_racks", id="replica-racks-fewer-than-partitions"),
    pytest.param(rows([("g", "a", "t", 3), ("h", "b", "t", 3)],
                      query="SELECT * FROM assign_partitions(TABLE({}), strategy => 'range')"),
                 "group_id", id="assign-partitions-without-partition-by"),
    pytest.param(replicas("0", "named_struct('broker_id', 1)"), "replication_factor", id="replicas-rf-zero-in-a-row"),
    pytest.param(replicas("1", "named_struct('broker_id', 1), named_struct('broker_id', 1)"), "broker_id",
                 id="replicas-duplicate-broker-ids"),
    pytest.param(replicas("1", "named_struct('broker_id', 1, 'rack', 'a'), named_struct('broker_id', 2, 'rack', "
                               "CAST(NULL AS STRING))", method="admin-utils"), "rack",
                 id="replicas-racks-on-some-brokers"),
    pytest.param(replicas("1", "named_struct('broker_id', 1), named_struct('broker_id', 2)", method="sticky",
                          previous="named_struct('partition', 0, 'replica_index', 0, 'broker_id', 1), "
                                   "named_struct('partition', 0, 'replica_index', 1, 'broker_id', 1)"),
                 "broker_id", id="replicas-previous-same-broker-twice"),
    pytest.param(sql("SELECT kafka_partition('k', 0)"), "num_partitions", id="kafka-partition-count-zero"),
    pytest.param(sql("SELECT kafka_partition('k', -5)"), "num_partitions", id="kafka-partition-count-negative"),
    pytest.param(sql("SELECT kafka_partition(k, n) FROM VALUES ('a', 3), ('b', 0) AS v(k, n)"), "num_partitions",
                 id="kafka-partition-count-zero-in-a-column"),
]


FUNCTION_ARGUMENTS = [
    pytest.param(sql("SELECT kafka_partition(42, 3)"), "key", "got INT (42)", id="kafka-partition-int-key"),
    pytest.param(sql("SELECT kafka_partition(k, 3) FROM VALUES (42L) AS v(k)"), "key", "got BIGINT",
                 id="kafka-partition-bigint-key-column"),
    pytest.param(sql("SELECT kafka_murmur2(1.5)"), "key", "got DECIMAL(2,1) (1.5)", id="kafka-murmur2-decimal-key"),
    pytest.param(sql("SELECT kafka_partition('k', array(3))"), "num_partitions", "got ARRAY<INT>",
                 id="kafka-partition-array-count"),
    pytest.param(sql("SELECT kafka_partition('k', 2147483648L)"), "num_partitions", "at most 2147483647",
                 id="kafka-partition-count-bigint-2^31"),
]


def check_job(spark, tmp_path, attempt, name):
    out = None
    with pytest.raises(InvalidInputError) as info:
        out = attempt(spark)
    assert out is None
    assert_clean(info.value, name)


def check_argument(spark, tmp_path, attempt, name, said):
    """An argument of a Kafka function: InvalidInputError naming it, the type or value received and
    what is accepted (never Spark's advice to turn ANSI mode off)."""
    out = None
    with pytest.raises(InvalidInputError) as info:
        out = attempt(spark)
    assert out is None
    text = assert_clean(info.value, name)
    assert said in text and "ansi" not in text.lower(), text
    assert ("BINARY or STRING" if name == "key" else "2147483647") in text, text


@pytest.mark.parametrize("case", case_params(JOB, "job"))
def test_bad_rows_fail_the_job(case):
    run_in_child(SURFACE, case)


@pytest.mark.parametrize("case", case_params(FUNCTION_ARGUMENTS, "argument"))
def test_bad_arguments_of_the_kafka_functions(case):
    run_in_child(SURFACE, case)


ANALYSIS = [
    pytest.param(rows([("g", "t", 3)], "group_id string, topic string, num_partitions int"), "member_id",
                 id="member-id-column-missing"),
    pytest.param(rows([("g", "a", "t")], "group_id string, member_id string, topic string"), "num_partitions",
                 id="num-partitions-column-missing"),
    pytest.param(rows([("a", "t", 3)], "member_id string, topic string, num_partitions int"), "group_id",
                 id="group-id-column-missing"),
    pytest.param(rows([("g", 123, "t", 3)], "group_id string, member_id int, topic string, num_partitions int"),
                 "member_id", id="member-id-int-column"),
    pytest.param(rows([("g", "a", "t", "3")], COLS.replace("num_partitions int", "num_partitions string")),
                 "num_partitions", id="num-partitions-string-column"),
    pytest.param(rows([("g", "a", "t", 3.0)], COLS.replace("num_partitions int", "num_partitions double")),
                 "num_partitions", id="num-partitions-double-column"),
    pytest.param(rows([("g", "a", "t", 3, ["0"])], EXTRA.format("owned_partitions array<string>")),
                 "owned_partitions", id="owned-partitions-array-of-strings"),
    pytest.param(rows([("g", "a", "t", 3, 1)], EXTRA.format("group_instance_id int")), "group_instance_id",
                 id="static-id-int-column"),
    pytest.param(rows([("g", "a", "t", 3)], query="SELECT * FROM assign_partitions(TABLE({}) PARTITION BY group_id, "
                                                  "strategy => 'stiky')"),
                 "stiky", id="strategy-unknown"),
    pytest.param(rows([("g", "a", "t", 3)], query="SELECT * FROM assign_partitions(TABLE({}) PARTITION BY group_id, "
                                                  "strategy => CAST(NULL AS STRING))"),
                 "strategy", id="strategy-null"),
    pytest.param(rows([("g", "a", "t", 3)], query="SELECT * FROM assign_partitions(TABLE({}) PARTITION BY group_id, "
                                                  "strategy => 3)"),
                 "strategy", id="strategy-int"),
    pytest.param(sql("SELECT * FROM assign_partitions('bad_sql')"), "table", id="first-argument-not-a-table"),
    pytest.param(sql("SELECT * FROM assign_replicas(TABLE(SELECT 't' AS topic, 2 AS num_partitions), "
                     "replication_factor => 1)"), "brokers", id="replicas-brokers-column-missing"),
    pytest.param(sql("SELECT * FROM assign_replicas(TABLE(SELECT 't' AS topic, 2 AS num_partitions, "
                     "array(named_struct('broker_id', 1)) AS brokers), replication_factor => 0)"),
                 "replication_factor", id="replicas-rf-zero-argument"),
    pytest.param(sql("SELECT kafka_partition('k')"), "kafka_partition", id="kafka-partition-one-argument"),
    pytest.param(sql("CALL spark_assign.rebalance(state => '/tmp/bad-input-call', subscriptions => 's', "
                     "topics => 't')"), "run_script", id="call-rebalance-through-spark-sql"),
    pytest.param(sql("CALL spark_assign.views(state => '/tmp/bad-input-call')"), "call_statement",
                 id="call-views-through-spark-sql"),
]


def check_analysis(spark, tmp_path, attempt, name):
    out = None
    with pytest.raises(AnalysisException) as info:
        out = attempt(spark)
    assert out is None
    assert_clean(info.value, name)


@pytest.mark.parametrize("case", case_params(ANALYSIS, "analysis"))
def test_schema_mistakes_fail_at_analysis(case):
    run_in_child(SURFACE, case)


CHECKS = {**checks(JOB, "job", check_job), **checks(FUNCTION_ARGUMENTS, "argument", check_argument),
          **checks(ANALYSIS, "analysis", check_analysis)}

"""``register`` and the scalar SQL functions ``kafka_partition`` and ``kafka_murmur2``."""

from __future__ import annotations

import random

import pytest
from pyspark.errors import AnalysisException

import spark_assign
from spark_assign.core.producer.murmur2 import murmur2_bytes
from spark_assign.errors import InvalidInputError
from spark_assign.spark.sql import SCALAR_FUNCTION_NAMES, TABLE_FUNCTION_NAMES, split_statements

from ..core.producer.test_murmur2 import (
    KAFKA_RECORD_COLLECTOR_COUNTS,
    KAFKA_RECORD_COLLECTOR_KEYS,
    KAFKA_STREAMS_PARTITIONS_OF_3,
    KAFKA_UTILS_VECTORS,
    PARTITION_COUNTS,
    random_binary,
    random_strings,
    scalar_partition,
)

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    spark_assign.register(spark)


def test_register_twice_is_harmless(spark):
    names = spark_assign.register(spark)
    assert spark_assign.register(spark) == names
    assert names == TABLE_FUNCTION_NAMES + SCALAR_FUNCTION_NAMES
    assert {"assign_partitions", "assign_sticky", "assign_cooperative_sticky", "assign_server_range",
            "kafka_partition", "kafka_murmur2"} <= set(names)
    assert spark.sql("SELECT kafka_partition('foobar', 12) AS p").first().p == 6


def test_functions_are_listed_and_described(spark):
    listed = {f.name for f in spark.catalog.listFunctions() if f.isTemporary}
    assert {"kafka_partition", "kafka_murmur2"} <= listed
    described = " ".join(r[0] for r in spark.sql("DESCRIBE FUNCTION EXTENDED kafka_partition").collect())
    assert "key BINARY, num_partitions BIGINT" in described and "Kafka default partitioner" in described


def test_kafka_utils_vectors(spark):
    rows = [(k.decode(), h) for k, h in KAFKA_UTILS_VECTORS.items()]
    spark.createDataFrame(rows, "key string, expected int").createOrReplaceTempView("vectors")
    got = spark.sql("""
        SELECT key, expected, kafka_murmur2(key) AS h, kafka_murmur2(CAST(key AS BINARY)) AS hb,
               kafka_partition(key, 1000) AS p, kafka_partition(CAST(key AS BINARY), 7) AS pb
        FROM vectors""").collect()
    assert len(got) == len(rows)
    for r in got:
        assert r.h == r.hb == r.expected, r.key
        assert r.p == (r.expected & 0x7FFFFFFF) % 1000 and r.pb == (r.expected & 0x7FFFFFFF) % 7


def test_kafka_streams_partitions(spark):
    keys = list(KAFKA_STREAMS_PARTITIONS_OF_3) + KAFKA_RECORD_COLLECTOR_KEYS
    spark.createDataFrame([(k,) for k in keys], "key string").createOrReplaceTempView("streams_keys")
    got = {r.key: r.p for r in spark.sql("SELECT key, kafka_partition(key, 3) AS p FROM streams_keys").collect()}
    assert {k: got[k] for k in KAFKA_STREAMS_PARTITIONS_OF_3} == KAFKA_STREAMS_PARTITIONS_OF_3
    counts = [0, 0, 0]
    for k in KAFKA_RECORD_COLLECTOR_KEYS:
        counts[got[k]] += 1
    assert counts == KAFKA_RECORD_COLLECTOR_COUNTS


def test_random_keys_match_the_scalar_reference(spark):
    """Binary and UTF-8 keys (NULs, 4-byte characters, empty), per-row partition counts,
    several Arrow batches per task."""
    rng = random.Random(5)
    binary = random_binary(rng, 3000, max_len=80)
    strings = random_strings(rng, 3000, max_chars=40)
    rows = [(b, s, rng.choice(PARTITION_COUNTS)) for b, s in zip(binary, strings)]
    df = spark.createDataFrame(rows, "b binary, s string, n int").repartition(3)
    df.createOrReplaceTempView("random_keys")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "700")
    try:
        got = spark.sql("""SELECT b, s, n, kafka_partition(b, n) AS pb, kafka_partition(s, n) AS ps,
                                  kafka_partition(s, 12) AS p12, kafka_murmur2(b) AS hb
                           FROM random_keys""").collect()
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert len(got) == len(rows)
    for r in got:
        b, s = bytes(r.b), r.s.encode("utf-8")
        assert r.pb == scalar_partition(b, r.n) and r.ps == scalar_partition(s, r.n)
        assert r.p12 == scalar_partition(s, 12)
        assert r.hb == murmur2_bytes(b)


def test_nulls_give_null(spark):
    r = spark.sql("""SELECT kafka_partition(CAST(NULL AS STRING), 3) AS a, kafka_partition('k', CAST(NULL AS INT)) AS b,
                            kafka_murmur2(CAST(NULL AS BINARY)) AS c, kafka_partition('', 3) AS d,
                            kafka_murmur2('') AS e""").first()
    assert (r.a, r.b, r.c) == (None, None, None)
    assert r.d == scalar_partition(b"", 3) and r.e is not None
    mixed = spark.createDataFrame([("a", 3), (None, 3), ("b", None), ("c", 5)], "k string, n int")
    got = [r.p for r in mixed.selectExpr("kafka_partition(k, n) AS p").collect()]
    assert got == [scalar_partition(b"a", 3), None, None, scalar_partition(b"c", 5)]


@pytest.mark.parametrize("count", [0, -3])
def test_bad_num_partitions(spark, count):
    with pytest.raises(Exception) as info:
        spark.sql(f"SELECT kafka_partition('k', {count}) AS p").collect()
    assert f"num_partitions must be a positive integer, got {count}" in str(info.value)


def test_num_partitions_beyond_kafkas_int_is_named(spark):
    # The parameter is a BIGINT: any integer reaches the check, none fails in Spark's cast first.
    with pytest.raises(InvalidInputError) as info:
        spark.sql("SELECT kafka_partition('k', 2147483648L) AS p").collect()
    assert info.value.column == "num_partitions"
    assert "num_partitions must be at most 2147483647 (Kafka's partition counts are 32-bit ints), got 2147483648" \
        in str(info.value)
    assert spark.sql("SELECT kafka_partition('foobar', 12L) AS p").first().p == 6


def test_bad_num_partitions_in_a_column_names_the_row(spark):
    df = spark.createDataFrame([("a", 3), ("b", 0)], "k string, n int").coalesce(1)
    with pytest.raises(Exception) as info:
        df.selectExpr("kafka_partition(k, n)").collect()
    assert "num_partitions must be a positive integer, got 0 at row 1" in str(info.value)


@pytest.mark.parametrize("query, argument, received", [
    ("SELECT kafka_partition(42, 3)", "key", "INT (42)"),
    ("SELECT kafka_murmur2(1.5)", "key", "DECIMAL(2,1) (1.5)"),
    ("SELECT kafka_partition('k', array(3))", "num_partitions", "ARRAY<INT>"),
])
def test_an_argument_of_another_type_fails_at_analysis_naming_it(spark, query, argument, received):
    # Spark's DATATYPE_MISMATCH (which suggests turning ANSI mode off) becomes an InvalidInputError
    # naming the argument, the type received and what is accepted; Spark's exception stays beside it.
    with pytest.raises(InvalidInputError) as info:
        spark.sql(query).schema
    assert info.value.column == argument and f"got {received}" in str(info.value)
    assert ("must be BINARY or STRING" if argument == "key" else "must be an integer from 1 to 2147483647") \
        in str(info.value)
    assert isinstance(info.value.spark_error, AnalysisException)
    assert info.value.spark_error.getCondition().startswith("DATATYPE_MISMATCH.")


def test_a_users_own_cast_keeps_sparks_error(spark):
    # The failing cast is the user's, not the function's parameter: Spark's error stands.
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT kafka_partition(CAST(42 AS BINARY), 3)").schema
    assert info.value.getCondition().startswith("DATATYPE_MISMATCH.")


def test_wrong_number_of_arguments_fails_at_analysis(spark):
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT kafka_partition('k')").schema
    assert "WRONG_NUM_ARGS" in str(info.value)


def test_the_arrow_udf_refuses_other_key_types():
    import pyarrow as pa

    from spark_assign.errors import InvalidInputError
    from spark_assign.spark.producer.sql_functions import kafka_partition_arrow

    with pytest.raises(InvalidInputError, match="kafka_partition: key must be BINARY or STRING"):
        kafka_partition_arrow(pa.array([1, 2]), pa.array([3, 3]))


def test_split_statements():
    script = """
        -- a comment; with a semicolon
        SELECT 'a;b' AS x;   /* block; comment */
        SELECT `weird;name` FROM t;
        -- only a comment;
        SELECT "q;" ;
    """
    assert split_statements(script) == [
        "-- a comment; with a semicolon\n        SELECT 'a;b' AS x",
        "/* block; comment */\n        SELECT `weird;name` FROM t",
        "-- only a comment;\n        SELECT \"q;\"",
    ]

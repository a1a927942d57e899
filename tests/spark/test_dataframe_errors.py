"""Bad input: a clear error naming the problem, the column and sample rows; no output.

Schema and argument problems fail on the call, before any job; data problems
fail the job, whose action raises the engine's InvalidInputError (group,
column, rows), catchable as such.
"""

import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign.errors import InvalidInputError, SchemaError, UnknownStrategyError

pytestmark = pytest.mark.spark

SUBS = "group_id string, member_id string, topic string"
GOOD_TOPICS = {"t": 3}


def subs(spark, rows, schema=SUBS):
    return spark.createDataFrame(rows, schema)


def job_error(df) -> str:
    """Run ``df``; it must fail with InvalidInputError and return nothing. Returns the error text."""
    rows = None
    with pytest.raises(InvalidInputError) as info:
        rows = df.collect()
    assert rows is None
    assert info.value.column and "Traceback" not in str(info.value)
    return str(info.value)


# ------------------------------------------------------------------ before any job


def test_missing_member_id_column(spark):
    with pytest.raises(SchemaError, match="lacks the required column 'member_id'"):
        subs(spark, [("g", "t")], "group_id string, topic string").assign_partitions("range", topics=GOOD_TOPICS)


def test_mistyped_topic_column(spark):
    df = subs(spark, [("g", "c", 1)], "group_id string, member_id string, topic int")
    with pytest.raises(SchemaError, match="column 'topic' must be string, got int"):
        df.assign_partitions("range", topics=GOOD_TOPICS)


def test_mistyped_owned_partitions(spark):
    df = subs(spark, [("g", "c", "t", ["0"])], SUBS + ", owned_partitions array<string>")
    with pytest.raises(SchemaError, match="'owned_partitions' must be array<int>, got array<string>"):
        df.assign_partitions("sticky", topics=GOOD_TOPICS)


def test_unknown_strategy(spark):
    with pytest.raises(UnknownStrategyError, match="'stiky'.*cooperative-sticky.*sticky"):
        subs(spark, [("g", "c", "t")]).assign_partitions("stiky", topics=GOOD_TOPICS)


def test_topics_missing(spark):
    with pytest.raises(InvalidInputError, match="topics is required"):
        subs(spark, [("g", "c", "t")]).assign_partitions("range")


def test_negative_count_in_topics_dict(spark):
    with pytest.raises(InvalidInputError, match=r"non-negative integer.*num_partitions.*\('t', -1\)"):
        subs(spark, [("g", "c", "t")]).assign_partitions("range", topics={"t": -1})


def test_numpy_integer_topic_counts_are_accepted_as_by_the_engine(spark):
    # One validator (core.check_topics) for every surface: what core.assign takes, the method takes.
    import numpy as np

    from spark_assign.core import Member, assign

    topics = {"t": np.int64(3), "u": np.int32(1)}
    engine = assign([Member("c", topics=["t", "u"])], topics, "range").assignment
    rows = subs(spark, [("g", "c", "t"), ("g", "c", "u")]).assign_partitions("range", topics=topics).collect()
    assert sorted((r.topic, r.partition) for r in rows) == sorted(engine["c"]) == [("t", 0), ("t", 1), ("t", 2),
                                                                                   ("u", 0)]
    with pytest.raises(InvalidInputError) as info:
        subs(spark, [("g", "c", "t")]).assign_partitions("range", topics={"t": np.bool_(True)})
    assert info.value.column == "num_partitions"


def test_non_integer_count_in_topics_dict(spark):
    with pytest.raises(InvalidInputError, match=r"num_partitions.*\('t', '3'\)"):
        subs(spark, [("g", "c", "t")]).assign_partitions("range", topics={"t": "3"})


def test_topics_frame_without_counts(spark):
    topics = spark.createDataFrame([("t",)], "topic string")
    with pytest.raises(SchemaError, match="topics lacks the required column 'num_partitions'"):
        subs(spark, [("g", "c", "t")]).assign_partitions("range", topics=topics)


def test_previous_with_foreign_schema(spark):
    previous = spark.createDataFrame([("g", "c", "t")], SUBS)
    with pytest.raises(SchemaError, match="previous lacks the required column 'generation'"):
        subs(spark, [("g", "c", "t")]).assign_partitions("sticky", topics=GOOD_TOPICS, previous=previous)


def test_previous_of_the_wrong_kind(spark):
    with pytest.raises(InvalidInputError, match="previous must be None, a DataFrame.*got int"):
        subs(spark, [("g", "c", "t")]).assign_partitions("sticky", topics=GOOD_TOPICS, previous=3)


def test_bad_num_partitions(spark):
    with pytest.raises(InvalidInputError, match="num_partitions must be at least 1, got 0"):
        subs(spark, [("g", "c", "t")]).assign_partitions("range", topics=GOOD_TOPICS, num_partitions=0)


# ------------------------------------------------------------------ inside the job


def test_null_member_id(spark):
    msg = job_error(subs(spark, [("g1", None, "t"), ("g1", "c", "t")]).assign_partitions("range", topics=GOOD_TOPICS))
    assert "null or empty member_id; column 'member_id'; group 'g1'" in msg and "(None, 't')" in msg


def test_empty_member_id(spark):
    msg = job_error(subs(spark, [("g1", "", "t")]).assign_partitions("range", topics=GOOD_TOPICS))
    assert "null or empty member_id" in msg and "('', 't')" in msg


def test_duplicate_member_topic_rows(spark):
    msg = job_error(subs(spark, [("g2", "c", "t"), ("g2", "c", "t")]).assign_partitions("range", topics=GOOD_TOPICS))
    assert "duplicate (member_id, topic) subscription rows; column 'topic'; group 'g2'" in msg
    assert "('c', 't')" in msg


def test_negative_count_in_topics_frame(spark):
    topics = spark.createDataFrame([("t", -2)], "topic string, num_partitions int")
    msg = job_error(subs(spark, [("g", "c", "t")]).assign_partitions("range", topics=topics))
    assert "negative partition count; column 'num_partitions'; group 'g'" in msg and "('t', -2)" in msg


def test_topic_twice_in_the_metadata(spark):
    topics = spark.createDataFrame([("t", 2), ("t", 3)], "topic string, num_partitions int")
    msg = job_error(subs(spark, [("g", "c", "t")]).assign_partitions("range", topics=topics))
    assert "topic has 2 rows in the topic metadata; column 'topic'" in msg


def test_member_rows_disagree_on_static_id(spark):
    df = subs(spark, [("g", "c", "t", "i1"), ("g", "c", "u", "i2")], SUBS + ", group_instance_id string")
    msg = job_error(df.assign_partitions("range", topics={"t": 1, "u": 1}))
    assert "a member's rows disagree on group_instance_id; column 'group_instance_id'; group 'g'" in msg


def test_two_members_share_a_static_id(spark):
    df = subs(spark, [("g", "a", "t", "i1"), ("g", "b", "t", "i1")], SUBS + ", group_instance_id string")
    msg = job_error(df.assign_partitions("range", topics=GOOD_TOPICS))
    assert "two members share a group_instance_id" in msg and "'i1'" in msg


def test_negative_owned_partition(spark):
    df = subs(spark, [("g", "a", "t", [-1], 1)], SUBS + ", owned_partitions array<int>, generation int")
    msg = job_error(df.assign_partitions("sticky", topics=GOOD_TOPICS))
    assert "negative partition in owned partitions; column 'owned_partitions'" in msg


def test_null_group_id(spark):
    msg = job_error(subs(spark, [(None, "a", "t")]).assign_partitions("range", topics=GOOD_TOPICS))
    assert "null group_id; column 'group_id'" in msg


# ------------------------------------------------------------------ allowed, as in Kafka


def test_unknown_topic_gets_no_partitions(spark):
    rows = subs(spark, [("g", "a", "t"), ("g", "a", "ghost")]).assign_partitions("range", topics=GOOD_TOPICS).collect()
    assert sorted((r.topic, r.partition, r.member_id) for r in rows) == [("t", 0, "a"), ("t", 1, "a"), ("t", 2, "a")]


def test_partition_owned_twice_in_one_generation_is_unowned(spark):
    previous = spark.createDataFrame(
        [("g", 1, "a", "t", 0), ("g", 1, "b", "t", 0), ("g", 1, "a", "t", 1), ("g", 1, "b", "t", 2)],
        "group_id string, generation int, member_id string, topic string, partition int")
    rows = subs(spark, [("g", "a", "t"), ("g", "b", "t"), ("g", "c", "t")]).assign_partitions(
        "cooperative-sticky", topics=GOOD_TOPICS, previous=previous).collect()
    got = {r.partition: (r.member_id, r.previous_member_id, r.status) for r in rows}
    assert got == {0: (None, None, "revoked"), 1: ("a", "a", "kept"), 2: ("b", "b", "kept")}


def test_a_users_script_catches_the_error_and_sees_no_stack():
    """In a script of its own (a fresh local_session): ``except InvalidInputError`` catches a bad
    row found inside the job, and neither a JVM nor a Python stack reaches stderr."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    # A classic script: none of the variables a Connect session of this process may have set.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_REMOTE", "SPARK_CONNECT", "SPARK_LOCAL_REMOTE"))}
    done = subprocess.run([sys.executable, "-m", "tests.spark.error_child"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    caught = json.loads(done.stdout.strip().splitlines()[-1])
    assert caught == {"type": "InvalidInputError", "column": "member_id", "group": "g", "rows": [[None, "orders"]]}
    assert "Traceback" not in done.stderr and "\tat org.apache" not in done.stderr, done.stderr[-3000:]


@pytest.mark.parametrize("strategy", ["load-aware", "cooperative-load-aware", "lag-based"])
def test_weighted_strategies_need_weights(spark, strategy):
    """Without weights a weighted strategy would quietly assign as sticky: refused, naming weights."""
    with pytest.raises(InvalidInputError, match=f"strategy '{strategy}' balances per-partition weights") as info:
        subs(spark, [("g", "c", "t")]).assign_partitions(strategy, topics=GOOD_TOPICS)
    assert info.value.column == "weights"

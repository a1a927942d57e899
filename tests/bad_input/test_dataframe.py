"""Bad input to ``DataFrame.assign_partitions``: one case per bad input.

Schema and argument mistakes fail on the call; data mistakes fail the job,
whose action raises ``InvalidInputError`` (group, column, rows). Each case
asserts the exception type, that the message names the column or argument,
that the action returned no rows, and that neither the message nor stderr
holds a stack: the cases run in a child process that captures its stderr
(see stderr.py).
"""

from __future__ import annotations

import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign.errors import InvalidInputError, SchemaError, UnknownStrategyError

from .conftest import assert_clean
from .stderr import case_params, checks, run_in_child

pytestmark = pytest.mark.spark
SURFACE = "dataframe"

S = "group_id string, member_id string, topic string"
OWN = S + ", owned_partitions array<int>, generation int"
TOPICS_DDL = "topic string, num_partitions int"


def call(rows, topics=None, strategy="range", schema=S, **kw):
    """A case: subscriptions ``rows`` assigned with ``topics`` (a dict, or rows of a topics frame)."""
    def attempt(spark):
        subs = spark.createDataFrame(rows, schema)
        meta = topics if topics is None or isinstance(topics, dict) or not isinstance(topics, tuple) \
            else spark.createDataFrame(topics[0], topics[1])
        return subs.assign_partitions(strategy, topics={"t": 3} if meta is None else meta, **kw).collect()
    return attempt


def frame(rows, ddl=TOPICS_DDL):
    return (rows, ddl)


def previous(rows, ddl):
    def attempt(spark):
        subs = spark.createDataFrame([("g", "a", "t")], S)
        return subs.assign_partitions("sticky", topics={"t": 3}, previous=spark.createDataFrame(rows, ddl)).collect()
    return attempt


GOOD = [("g", "a", "t")]
PREV = "group_id string, generation int, member_id string, topic string, partition int"

CASES = [
    # ------------------------------------------------------------- data errors inside the job
    pytest.param(call([("g", None, "t"), ("g", "b", "t")]), InvalidInputError, "member_id", id="member-id-null"),
    pytest.param(call([("g", "", "t")]), InvalidInputError, "member_id", id="member-id-empty"),
    pytest.param(call([("g", "a", "t"), ("g", "a", "t")]), InvalidInputError, "topic", id="duplicate-rows"),
    pytest.param(call([("g", "a", "")]), InvalidInputError, "topic", id="topic-empty"),
    pytest.param(call([(None, "a", "t")]), InvalidInputError, "group_id", id="group-id-null"),
    pytest.param(call([("g", "a", "t", "s"), ("g", "b", "t", "s")], schema=S + ", group_instance_id string"),
                 InvalidInputError, "group_instance_id", id="static-id-used-by-two-members"),
    pytest.param(call([("g", "a", "t", "s1"), ("g", "a", "u", "s2")], {"t": 1, "u": 1},
                      schema=S + ", group_instance_id string"),
                 InvalidInputError, "group_instance_id", id="static-id-disagrees-across-member-rows"),
    pytest.param(call([("g", "a", "t", "r1"), ("g", "a", "u", "r2")], {"t": 1, "u": 1}, schema=S + ", rack string"),
                 InvalidInputError, "rack", id="rack-disagrees-across-member-rows"),
    pytest.param(call([("g", "a", "t", [0], 1), ("g", "a", "u", [0], 2)], {"t": 1, "u": 1}, "sticky", OWN),
                 InvalidInputError, "generation", id="generation-disagrees-across-member-rows"),
    pytest.param(call([("g", "a", "t", [-1], 1)], None, "sticky", OWN), InvalidInputError, "owned_partitions",
                 id="owned-negative"),
    pytest.param(call([("g", "a", "t", [0, 0], 1)], None, "sticky", OWN), InvalidInputError, "owned_partitions",
                 id="owned-twice"),
    pytest.param(call([("g", "a", "t", [None], 1)], None, "sticky", OWN), InvalidInputError, "owned_partitions",
                 id="owned-null-element"),
    pytest.param(call(GOOD, frame([("t", -2)])), InvalidInputError, "num_partitions", id="topics-frame-negative-count"),
    pytest.param(call(GOOD, frame([("t", 2), ("t", 3)])), InvalidInputError, "topic",
                 id="topics-frame-topic-listed-twice"),
    pytest.param(call(GOOD, frame([("t", 2), ("t", 2)])), InvalidInputError, "topic",
                 id="topics-frame-duplicate-rows"),
    pytest.param(call(GOOD, frame([("g", "t", 1), ("g", "t", 2)], "group_id string, " + TOPICS_DDL)),
                 InvalidInputError, "topic", id="topics-frame-per-group-topic-twice"),
    pytest.param(call(GOOD, frame([("t", 2**31)], "topic string, num_partitions bigint")), InvalidInputError,
                 "num_partitions", id="topics-frame-bigint-count-2^31"),
    pytest.param(call(GOOD, frame([("t", -(2**40))], "topic string, num_partitions bigint")), InvalidInputError,
                 "num_partitions", id="topics-frame-bigint-count-below-int"),
    pytest.param(call([("g", "a", "t")], frame([("t", 2, [["r"]])], TOPICS_DDL + ", replica_racks array<array<string>>")),
                 InvalidInputError, "partition_racks", id="replica-racks-fewer-than-partitions"),
    # ------------------------------------------------------------- arguments, before any job
    pytest.param(call(GOOD, {"t": 2**31}), InvalidInputError, "num_partitions", id="topics-dict-count-2^31"),
    pytest.param(call(GOOD, {"t": -1}), InvalidInputError, "num_partitions", id="topics-dict-negative"),
    pytest.param(call(GOOD, {"t": float("nan")}), InvalidInputError, "num_partitions", id="topics-dict-nan"),
    pytest.param(call(GOOD, {"t": 2.0}), InvalidInputError, "num_partitions", id="topics-dict-float"),
    pytest.param(call(GOOD, {"t": True}), InvalidInputError, "num_partitions", id="topics-dict-bool"),
    pytest.param(call(GOOD, {"t": None}), InvalidInputError, "num_partitions", id="topics-dict-none"),
    pytest.param(call(GOOD, {"": 1}), InvalidInputError, "topic", id="topics-dict-empty-name"),
    pytest.param(call(GOOD, {7: 1}), InvalidInputError, "topic", id="topics-dict-int-name"),
    pytest.param(call(GOOD, [("t", 1)]), InvalidInputError, "topics", id="topics-list"),
    pytest.param(call(GOOD, "t=1"), InvalidInputError, "topics", id="topics-string"),
    pytest.param(call(GOOD, frame([("t",)], "topic string")), SchemaError, "num_partitions",
                 id="topics-frame-without-counts"),
    pytest.param(call(GOOD, frame([("t", "3")], "topic string, num_partitions string")), SchemaError,
                 "num_partitions", id="topics-frame-string-counts"),
    pytest.param(call(GOOD, frame([("t", 3.0)], "topic string, num_partitions double")), SchemaError,
                 "num_partitions", id="topics-frame-double-counts"),
    pytest.param(call(GOOD, frame([(1, 3)], "topic int, num_partitions int")), SchemaError, "topic",
                 id="topics-frame-int-topic"),
    pytest.param(call(GOOD, strategy="stiky"), UnknownStrategyError, "stiky", id="strategy-unknown"),
    pytest.param(call(GOOD, strategy=None), UnknownStrategyError, "strategy", id="strategy-none"),
    pytest.param(call([("g", 123, "t")], schema="group_id string, member_id int, topic string"), SchemaError,
                 "member_id", id="member-id-int-column"),
    pytest.param(call([("g", "t")], schema="group_id string, topic string"), SchemaError, "member_id",
                 id="member-id-column-missing"),
    pytest.param(call([("g", "a")], schema="group_id string, member_id string"), SchemaError, "topic",
                 id="topic-column-missing"),
    pytest.param(call([(1, "a", "t")], schema="group_id int, member_id string, topic string"), SchemaError,
                 "group_id", id="group-id-int-column"),
    pytest.param(call([("g", "a", "t", ["0"])], None, "sticky", S + ", owned_partitions array<string>"), SchemaError,
                 "owned_partitions", id="owned-partitions-array-of-strings"),
    pytest.param(call([("g", "a", "t", 0)], None, "sticky", S + ", owned_partitions int"), SchemaError,
                 "owned_partitions", id="owned-partitions-not-an-array"),
    pytest.param(call([("g", "a", "t", "1")], None, "sticky", S + ", generation string"), SchemaError,
                 "generation", id="generation-string-column"),
    pytest.param(call([("g", "a", "t", 1)], None, "range", S + ", group_instance_id int"), SchemaError,
                 "group_instance_id", id="static-id-int-column"),
    pytest.param(call([("g", "a", "t", 1)], None, "range", S + ", rack int"), SchemaError, "rack",
                 id="rack-int-column"),
    pytest.param(call(GOOD, num_partitions=0), InvalidInputError, "num_partitions", id="num-partitions-zero"),
    pytest.param(call(GOOD, num_partitions="2"), InvalidInputError, "num_partitions", id="num-partitions-string"),
    pytest.param(call(GOOD, num_partitions=True), InvalidInputError, "num_partitions", id="num-partitions-bool"),
    pytest.param(call(GOOD, previous=3), InvalidInputError, "previous", id="previous-int"),
    pytest.param(call(GOOD, previous=""), InvalidInputError, "previous", id="previous-empty-string"),
    pytest.param(previous([("g", "a", "t", 0)], "group_id string, member_id string, topic string, partition int"),
                 SchemaError, "generation", id="previous-without-generation"),
    pytest.param(previous([("g", "1", "a", "t", 0)], PREV.replace("generation int", "generation string")),
                 SchemaError, "generation", id="previous-generation-string"),
]


def check(spark, tmp_path, attempt, error, name):
    rows = None
    with pytest.raises(error) as info:
        rows = attempt(spark)
    assert rows is None                                  # nothing came out
    assert_clean(info.value, name)


CHECKS = checks(CASES, "call", check)


@pytest.mark.parametrize("case", case_params(CASES, "call"))
def test_bad_input(case):
    run_in_child(SURFACE, case)


def test_topics_frame_with_null_rows_is_kafka_legal(spark):
    """A topic with a null count, or a null topic row, is a topic without metadata: no partitions."""
    topics = spark.createDataFrame([("t", None), (None, 3)], TOPICS_DDL)
    assert spark.createDataFrame(GOOD, S).assign_partitions("range", topics=topics).collect() == []


# ------------------------------------------------------------------ assign_replicas: column and rows

RT = "cluster_id string, topic string, num_partitions int, replication_factor int"
RB = "cluster_id string, broker_id int, rack string"
RP = "cluster_id string, topic string, partition int, replica_index int, broker_id int"
THREE = [("c", 1, None), ("c", 2, None), ("c", 3, None)]


def replicas(topics, brokers=THREE, previous=None, topics_ddl=RT, brokers_ddl=RB, **kw):
    """A case: ``assign_replicas`` of ``topics`` on ``brokers`` (rows), collected."""
    def attempt(spark):
        prev = None if previous is None else spark.createDataFrame(previous, RP)
        out = spark.createDataFrame(topics, topics_ddl).assign_replicas(
            spark.createDataFrame(brokers, brokers_ddl), previous=prev, **kw)
        return out.collect()
    return attempt


REPLICA_CASES = [
    pytest.param(replicas([("c", "t", 2, 1)], THREE + [("c", 2, None)]), "broker_id", [2], id="duplicate-broker-id"),
    pytest.param(replicas([("c", "t", 2, 1)], THREE + [("c", -4, None)]), "broker_id", [-4], id="negative-broker-id"),
    pytest.param(replicas([("c", "t", 2, 1), ("c", "u", 2, 0)]), "replication_factor", ["u"], id="rf-zero-in-a-row"),
    pytest.param(replicas([("c", "t", 2, -1), ("c", "u", 2, 1)], method="admin-utils"), "replication_factor", ["t"],
                 id="rf-negative-in-a-row"),
    pytest.param(replicas([("c", "t", 2, 1)], replication_factor=0), "replication_factor", [0], id="rf-zero-argument"),
    pytest.param(replicas([("c", "t", 2, 4), ("c", "u", 2, 5)]), "replication_factor", ["t", "u"],
                 id="rf-above-brokers"),
    pytest.param(replicas([("c", "t", -2, 1)]), "num_partitions", ["t"], id="negative-num-partitions"),
    pytest.param(replicas([("c", "t", 2, 1)], [("c", 1, "a"), ("c", 2, None), ("c", 3, "b"), ("c", 4, None)],
                          method="admin-utils"), "rack", [2, 4], id="racks-on-some-brokers"),
    pytest.param(replicas([("c", "t", 2, 1)], [("c", 1, "a"), ("c", 2, None)], method="sticky",
                          previous=[("c", "t", 0, 0, 1)]), "rack", [2], id="racks-on-some-brokers-sticky"),
    pytest.param(replicas([("c", "t", 2, 1)], [("c", 1, "a"), ("c", 2, "")]), "rack", [2], id="empty-rack"),
    pytest.param(replicas([("c", "t", 2, 2)], method="sticky", previous=[("c", "t", 0, 0, 1), ("c", "t", 0, 1, 1)]),
                 "broker_id", [("t", 0, 1)], id="previous-same-broker-twice"),
    pytest.param(replicas([("c", "t", 2, 2)], method="sticky", previous=[("c", "t", 0, 0, 1), ("c", "t", 0, 0, 2)]),
                 "replica_index", [("t", 0, 0)], id="previous-replica-twice"),
    pytest.param(replicas([("c", "t", 2, 2)], method="sticky", previous=[("c", "t", 5, 0, 1)]), "partition",
                 [("t", 5, 0)], id="previous-partition-beyond-count"),
    pytest.param(replicas([("c", "t", 2, 2)], method="sticky", previous=[("c", "t", 0, 0, None)]), "broker_id",
                 [("t", 0)], id="previous-null-broker"),
    pytest.param(replicas([("c", "t", 2, 2)], method="sticky", previous=[("c", "t", 0, 0, -3)]), "broker_id",
                 [("t", 0, -3)], id="previous-negative-broker"),
]


@pytest.mark.parametrize("attempt,name,rows", REPLICA_CASES)
def test_bad_replica_input_names_the_column_and_rows(spark, attempt, name, rows):
    out = None
    with pytest.raises(InvalidInputError) as info:
        out = attempt(spark)
    assert out is None                                   # nothing came out
    assert_clean(info.value, name)
    assert info.value.rows == rows


def test_an_unknown_broker_in_previous_is_a_broker_that_left(spark):
    """Kafka-legal, as for ``kafka-reassign-partitions --generate``: the brokers DataFrame lists the
    brokers to use; replicas on any other broker move (status ``moved``)."""
    rows = replicas([("c", "t", 1, 2)], method="sticky", previous=[("c", "t", 0, 0, 1), ("c", "t", 0, 1, 9)])(spark)
    assert sorted((r.broker_id, r.status) for r in rows) in ([(1, "kept"), (2, "moved")], [(1, "kept"), (3, "moved")])

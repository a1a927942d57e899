"""Bad input to the engine, ``spark_assign.core.assign``: one case per bad input.

Each case asserts the exception type, that the message (and ``column``) names
the argument or column, that no result came back, and that the message holds
no stack. Kafka-legal input (stale claims, unknown topics, ``topics={}``) is
not an error: the last tests pin that it stays accepted. Replica placement
(``place_replicas`` and the fleet's ``place_topics``) has its own table, whose
cases also check the rows named.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from spark_assign.core import Broker, Member, assign, place_replicas
from spark_assign.core.replicas.fleet import place_topics
from spark_assign.errors import InvalidInputError, MissingTopicWarning, NegativeGenerationWarning, UnknownStrategyError

from .conftest import assert_clean

M = Member
T1 = {"t": 1}
UUID = "AAAAAAAAAAAAAAAAAAAAAA"


def run(members, topics=T1, strategy="range", **kw):
    return lambda: assign(members, topics, strategy, **kw)


def member(*args, **kw):
    return lambda: assign([M(*args, **kw)], T1, "sticky")


CASES = [
    # ------------------------------------------------------------- topics
    pytest.param(run([M("a", ["t"])], {"t": 2**31}), InvalidInputError, "num_partitions", id="count-2^31-above-kafka-limit"),
    pytest.param(run([M("a", ["t"])], {"t": 2**70}), InvalidInputError, "num_partitions", id="count-2^70"),
    pytest.param(run([M("a", ["t"])], {"t": -3}), InvalidInputError, "num_partitions", id="count-negative"),
    pytest.param(run([M("a", ["t"])], {"t": float("nan")}), InvalidInputError, "num_partitions", id="count-nan"),
    pytest.param(run([M("a", ["t"])], {"t": math.inf}), InvalidInputError, "num_partitions", id="count-inf"),
    pytest.param(run([M("a", ["t"])], {"t": 3.0}), InvalidInputError, "num_partitions", id="count-float"),
    pytest.param(run([M("a", ["t"])], {"t": np.float64(3)}), InvalidInputError, "num_partitions", id="count-numpy-float"),
    pytest.param(run([M("a", ["t"])], {"t": True}), InvalidInputError, "num_partitions", id="count-bool"),
    pytest.param(run([M("a", ["t"])], {"t": np.bool_(True)}), InvalidInputError, "num_partitions", id="count-numpy-bool"),
    pytest.param(run([M("a", ["t"])], {"t": "3"}), InvalidInputError, "num_partitions", id="count-string"),
    pytest.param(run([M("a", ["t"])], {"t": None}), InvalidInputError, "num_partitions", id="count-none"),
    pytest.param(run([M("a", ["t"])], {"t": [3]}), InvalidInputError, "num_partitions", id="count-list"),
    pytest.param(run([M("a", ["t"])], [("t", 1)]), InvalidInputError, "topics", id="topics-list-of-pairs"),
    pytest.param(run([M("a", ["t"])], "t=1"), InvalidInputError, "topics", id="topics-string"),
    pytest.param(run([M("a", ["t"])], 3), InvalidInputError, "topics", id="topics-int"),
    pytest.param(run([M("a", ["t"])], None), InvalidInputError, "topics", id="topics-none"),
    pytest.param(run([M("a", ["t"])], {None: 1}), InvalidInputError, "topic", id="topic-name-none"),
    pytest.param(run([M("a", ["t"])], {"": 1}), InvalidInputError, "topic", id="topic-name-empty"),
    pytest.param(run([M("a", ["t"])], {1: 1}), InvalidInputError, "topic", id="topic-name-int"),
    pytest.param(run([M("a", ["t"])], {b"t": 1}), InvalidInputError, "topic", id="topic-name-bytes"),
    # ------------------------------------------------------------- strategy and options
    pytest.param(run([M("a", ["t"])], strategy="stiky"), UnknownStrategyError, "stiky", id="strategy-unknown"),
    pytest.param(run([M("a", ["t"])], strategy=""), UnknownStrategyError, "strategy", id="strategy-empty"),
    pytest.param(run([M("a", ["t"])], strategy=None), UnknownStrategyError, "strategy", id="strategy-none"),
    pytest.param(run([M("a", ["t"])], strategy=3), UnknownStrategyError, "strategy", id="strategy-int"),
    pytest.param(run([M("a", ["t"])], foo=1), InvalidInputError, "options", id="option-unknown"),
    pytest.param(run([M("a", ["t"])], prefer_rack_aware="yes"), InvalidInputError, "prefer_rack_aware",
                 id="option-prefer-rack-aware-string"),
    pytest.param(run([M("a", ["t"])], strategy="uniform", topic_ids=5), InvalidInputError, "topic_ids",
                 id="option-topic-ids-int"),
    pytest.param(run([M("a", ["t"])], strategy="uniform", topic_ids={"t": "not-a-uuid"}), InvalidInputError,
                 "topic_ids", id="option-topic-ids-bad-uuid"),
    pytest.param(run([M("a", ["t"])], strategy="uniform", topic_ids={"t": 7}), InvalidInputError, "topic_ids",
                 id="option-topic-ids-int-value"),
    pytest.param(run([M("a", ["t"])], {"t": 1, "u": 1}, "uniform", topic_ids={"u": UUID}), InvalidInputError,
                 "topic_ids", id="option-topic-ids-lacks-subscribed-topic"),
    # ------------------------------------------------------------- members
    pytest.param(run({"a": ["t"]}), InvalidInputError, "members", id="members-dict"),
    pytest.param(run("abc"), InvalidInputError, "members", id="members-string"),
    pytest.param(run(None), InvalidInputError, "members", id="members-none"),
    pytest.param(run([("a", ["t"])]), InvalidInputError, "members", id="member-tuple-not-Member"),
    pytest.param(run([M("a", [["t"]])]), InvalidInputError, "topic", id="subscribed-topic-a-list"),
    pytest.param(run([M("a", ["t"]), M("b", ["t", {"t": 1}])]), InvalidInputError, "topic",
                 id="subscribed-topic-a-dict-beside-other-lists"),
    pytest.param(run([M("a", ["t"], [(["t"], 0)])]), InvalidInputError, "topic", id="owned-topic-a-list"),
    pytest.param(run([M("a", ["t"]), M("a", ["t"])]), InvalidInputError, "member_id", id="member-id-duplicate"),
    pytest.param(member(123, ["t"]), InvalidInputError, "member_id", id="member-id-int-123"),
    pytest.param(member(None, ["t"]), InvalidInputError, "member_id", id="member-id-none"),
    pytest.param(member("", ["t"]), InvalidInputError, "member_id", id="member-id-empty"),
    pytest.param(member(b"a", ["t"]), InvalidInputError, "member_id", id="member-id-bytes"),
    pytest.param(member("a", "t"), InvalidInputError, "topic", id="member-topics-string"),
    pytest.param(member("a", 5), InvalidInputError, "topic", id="member-topics-int"),
    pytest.param(member("a", [None]), InvalidInputError, "topic", id="member-topic-none"),
    pytest.param(member("a", [""]), InvalidInputError, "topic", id="member-topic-empty"),
    pytest.param(member("a", [5]), InvalidInputError, "topic", id="member-topic-int"),
    pytest.param(member("a", ["t", "t"]), InvalidInputError, "topic", id="member-topic-twice"),
    pytest.param(run([M("a", ["t"], instance_id="s"), M("b", ["t"], instance_id="s")]), InvalidInputError,
                 "group_instance_id", id="static-id-shared-by-two-members"),
    pytest.param(member("a", ["t"], instance_id=3), InvalidInputError, "group_instance_id", id="static-id-int"),
    pytest.param(member("a", ["t"], rack=3), InvalidInputError, "rack", id="rack-int"),
    # ------------------------------------------------------------- claims and generations
    pytest.param(member("a", ["t"], [("t", -1)]), InvalidInputError, "owned_partitions", id="owned-negative"),
    pytest.param(member("a", ["t"], [("t", 0), ("t", 0)]), InvalidInputError, "owned_partitions", id="owned-twice"),
    pytest.param(member("a", ["t"], [("t", "0")]), InvalidInputError, "owned_partitions", id="owned-partition-string"),
    pytest.param(member("a", ["t"], [("t", 0.0)]), InvalidInputError, "owned_partitions", id="owned-partition-float"),
    pytest.param(member("a", ["t"], [("t", True)]), InvalidInputError, "owned_partitions", id="owned-partition-bool"),
    pytest.param(member("a", ["t"], [("t", 2**70)]), InvalidInputError, "owned_partitions", id="owned-partition-2^70"),
    pytest.param(member("a", ["t"], [("t", 0, 1)]), InvalidInputError, "owned_partitions", id="owned-triple"),
    pytest.param(member("a", ["t"], ["t0"]), InvalidInputError, "owned_partitions", id="owned-string-not-pair"),
    pytest.param(member("a", ["t"], [5]), InvalidInputError, "owned_partitions", id="owned-int-not-pair"),
    pytest.param(member("a", ["t"], 5), InvalidInputError, "owned_partitions", id="owned-not-a-list"),
    pytest.param(member("a", ["t"], [(None, 0)]), InvalidInputError, "topic", id="owned-topic-none"),
    pytest.param(member("a", ["t"], [("t", 0)], generation="1"), InvalidInputError, "generation", id="generation-string"),
    pytest.param(member("a", ["t"], [("t", 0)], generation=1.5), InvalidInputError, "generation", id="generation-float"),
    pytest.param(member("a", ["t"], generation=True), InvalidInputError, "generation", id="generation-bool"),
    pytest.param(member("a", ["t"], [("t", 0)], generation=2**70), InvalidInputError, "generation",
                 id="generation-2^70-above-int32"),
    # ------------------------------------------------------------- racks
    pytest.param(run([M("a", ["t"], rack="r")], {"t": 2}, partition_racks={"t": [["r"]]}), InvalidInputError,
                 "partition_racks", id="replica-racks-fewer-than-partitions"),
    pytest.param(run([M("a", ["t"], rack="r")], partition_racks={"t": ["r"]}), InvalidInputError,
                 "partition_racks", id="replica-racks-string-not-list"),
    pytest.param(run([M("a", ["t"], rack="r")], partition_racks=[["r"]]), InvalidInputError,
                 "partition_racks", id="replica-racks-not-a-mapping"),
]


@pytest.mark.parametrize("call,error,name", CASES)
def test_bad_input(call, error, name):
    result = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicWarning)
        with pytest.raises(error) as info:
            result = call()
    assert result is None
    assert_clean(info.value, name)


# ------------------------------------------------------------------ Kafka-legal: stays accepted


@pytest.mark.parametrize("owned", [[("t", 5)], [("u", 0)], [("gone", 0)]], ids=["out-of-range", "unsubscribed",
                                                                                "unknown-topic"])
def test_stale_claims_are_kafka_legal_and_dropped(owned):
    """Kafka's assignors drop claims on partitions a member cannot get (ownedPartitions is what
    the member had): not an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicWarning)
        result = assign([M("a", ["t"], owned, generation=1)], {"t": 1, "u": 1}, "sticky")
    assert result.assignment == {"a": [("t", 0)]}


def test_empty_topics_is_kafka_legal_with_a_warning():
    with pytest.warns(MissingTopicWarning):
        assert assign([M("a", ["t"])], {}, "range").assignment == {"a": []}


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_a_negative_generation_reads_as_none_as_in_kafka(strategy):
    """Kafka's Subscription reads any negative generationId as none (then DEFAULT_GENERATION, -1):
    -1, what a consumer without a generation sends, passes silently; another negative value
    reads the same, with a NegativeGenerationWarning. Two claims on one partition without a
    generation are of one generation: Kafka keeps the partition for neither."""
    def claims(generation):
        return [M("a", ["t"], [("t", 0)], generation=generation), M("b", ["t"], [("t", 0)], generation=None)]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        unknown = assign(claims(-1), {"t": 2}, strategy)
    with pytest.warns(NegativeGenerationWarning, match=r"'a' \(-5\)"):
        odd = assign(claims(-5), {"t": 2}, strategy)
    assert "kept" not in unknown.status_names()
    assert (odd.assignment, odd.revoked, odd.status_names()) == (
        unknown.assignment, unknown.revoked, unknown.status_names())


# ------------------------------------------------------------------ replica placement: column and rows


def place(brokers, rf=1, method="admin-utils", partitions=2, **kw):
    return lambda: place_replicas(brokers, partitions, rf, method=method, **kw)


def fleet(brokers, rfs, counts=None, method="striped", **kw):
    topics = [f"t{i}" for i in range(len(rfs))]
    return lambda: place_topics(brokers, topics, counts or [1] * len(rfs), rfs, cluster_id="c", method=method, **kw)


B3 = [Broker(1), Broker(2), Broker(3)]
PARTLY = [Broker(1, rack="a"), Broker(2), Broker(3, rack="b"), Broker(4)]

REPLICA_CASES = [
    pytest.param(place([Broker(1), Broker(2), Broker(1)]), "brokers", [1], id="duplicate-broker-ids"),
    pytest.param(place([Broker(1), Broker(2), Broker(2), Broker(3), Broker(3)], method="striped"), "brokers", [2, 3],
                 id="duplicate-broker-ids-striped"),
    pytest.param(place(B3, rf=0), "replication_factor", [0], id="rf-zero"),
    pytest.param(place(B3, rf=-1, method="striped"), "replication_factor", [-1], id="rf-negative"),
    pytest.param(place(B3, rf=True), "replication_factor", [True], id="rf-bool"),
    pytest.param(place(B3, rf=2.0), "replication_factor", [2.0], id="rf-float"),
    pytest.param(place(B3, rf=4), "replication_factor", [4], id="rf-above-brokers"),
    pytest.param(place(PARTLY), "brokers", [2, 4], id="racks-on-some-brokers-admin-utils"),
    pytest.param(place(PARTLY, method="sticky", previous=[[1], [3]]), "brokers", [2, 4],
                 id="racks-on-some-brokers-sticky"),
    pytest.param(place(B3, rf=2, method="sticky", previous=[[1, 1], [2, 3]]), "previous", [0],
                 id="previous-same-broker-twice"),
    pytest.param(place(B3, method="sticky", previous=[[1], [-2]]), "previous", [1], id="previous-negative-broker"),
    pytest.param(place(B3, method="sticky", previous=[[1], [None]]), "previous", [1], id="previous-null-broker"),
    pytest.param(place(B3, method="sticky", previous=[[1], [2**31]]), "previous", [1],
                 id="previous-broker-above-int32"),
    pytest.param(place(B3, method="sticky", previous=[[1]]), "previous", [1], id="previous-fewer-partitions"),
    pytest.param(place(B3, method="sticky", previous=[[1], [2]], start_partition=5, partitions=3), "previous", [2],
                 id="previous-fewer-partitions-shifted"),
    pytest.param(fleet(B3, [1, 0, 2, -1]), "replication_factor", ["t1", "t3"], id="fleet-rf-zero-and-negative"),
    pytest.param(fleet(B3, [1, 4, 5], method="admin-utils"), "replication_factor", ["t1", "t2"],
                 id="fleet-rf-above-brokers"),
    pytest.param(fleet(B3, [1, 1], counts=[-1, 2]), "num_partitions", ["t0"], id="fleet-negative-count"),
    pytest.param(fleet(PARTLY, [1], method="admin-utils", rack_column="rack"), "rack", [2, 4],
                 id="fleet-racks-on-some-brokers"),
    pytest.param(fleet([Broker(1), Broker(1)], [1]), "brokers", [1], id="fleet-duplicate-broker-ids"),
]


@pytest.mark.parametrize("call,name,rows", REPLICA_CASES)
def test_bad_replica_input_names_the_column_and_rows(call, name, rows):
    result = None
    with pytest.raises(InvalidInputError) as info:
        result = call()
    assert result is None
    assert_clean(info.value, name)
    assert info.value.rows == rows


def test_an_unknown_broker_in_previous_is_a_broker_that_left():
    """Kafka-legal: ``kafka-reassign-partitions --generate`` takes the brokers to use; replicas on
    any other broker move, even when none of a topic's brokers remains (moving a topic to new
    brokers is a reassignment like any other). Not an error."""
    moved = place_replicas(B3, 2, 2, method="sticky", previous=[[1, 9], [8, 7]])
    assert moved.moved.tolist() == [1, 2] and 9 not in moved.broker_ids

"""Replaying a ``__consumer_offsets`` partition: the latest record per key wins, tombstones delete,
and a record that cannot be read becomes a problem row whose group is left out whole."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_assign.errors import RecordFormatError
from spark_assign.kafka.records import decode_key, decode_value, encode_assignment, encode_key, encode_subscription, encode_value, \
    replay_partition
from spark_assign.kafka.records.groups import preferred_assignor
from spark_assign.kafka.records.offsets import decode_offset_commits

from .strategies import TEXT

TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"


def _member(member_id, topics, owned=(), assigned=(), version=3, instance=None):
    sub = {"Topics": topics, "OwnedPartitions": [{"Topic": t, "Partitions": list(p)} for t, p in owned],
           "GenerationId": 2, "RackId": "az1"}
    return {"memberId": member_id, "groupInstanceId": instance, "clientId": "c", "clientHost": "/h",
            "rebalanceTimeout": 1, "sessionTimeout": 1, "subscription": encode_subscription(sub, version),
            "assignment": encode_assignment({"AssignedPartitions": [{"Topic": t, "Partitions": list(p)}
                                                                   for t, p in assigned]}, 1)}


def _classic(generation, members, protocol="range"):
    return {"protocolType": "consumer", "generation": generation, "protocol": protocol,
            "leader": members[0]["memberId"] if members else None, "members": members}


def replay(records):
    keys, values = zip(*records)
    return replay_partition(7, pa.array(keys, pa.binary()), pa.array(values, pa.binary()), np.arange(len(keys)))


def test_the_latest_generation_wins_and_a_tombstone_deletes():
    old = _classic(1, [_member("a", ["t"], assigned=[("t", [0, 1])])])
    new = _classic(2, [_member("b", ["t"], owned=[("t", [1])], assigned=[("t", [0, 1])], instance="i-b")])
    frames = replay([
        (encode_key(2, group="g"), encode_value(2, old, 3)),
        (encode_key(2, group="gone"), encode_value(2, old, 3)),
        (encode_key(2, group="g"), encode_value(2, new, 4)),
        (encode_key(2, group="gone"), None),
    ])
    assert frames.groups.to_pylist() == [{"group_id": "g", "protocol": "classic", "protocol_type": "consumer",
                                          "strategy": "range", "generation": 2, "leader": "b", "members": 1}]
    assert frames.subscriptions.to_pylist() == [{"group_id": "g", "member_id": "b", "topic": "t",
                                                 "group_instance_id": "i-b", "rack": "az1",
                                                 "owned_partitions": [1], "generation": 2}]
    assert [(r["member_id"], r["partition"], r["generation"]) for r in frames.assignment.to_pylist()] == \
        [("b", 0, 2), ("b", 1, 2)]
    assert frames.problems.num_rows == 0


def test_a_group_with_a_broken_member_is_left_out_whole_and_reported():
    member = _member("a", ["t"])
    member["subscription"] = b"\x00\x01\x00\x00\x00\x09"          # nine topics promised, none there
    frames = replay([(encode_key(2, group="bad"), encode_value(2, _classic(3, [member, _member("b", ["t"])]), 3)),
                     (encode_key(2, group="ok"), encode_value(2, _classic(1, [_member("c", ["t"])]), 3))])
    assert frames.groups.column("group_id").to_pylist() == ["ok"]
    assert set(frames.subscriptions.column("group_id").to_pylist()) == {"ok"}
    (problem,) = frames.problems.to_pylist()
    assert (problem["partition"], problem["offset"], problem["group_id"], problem["record_type"]) == (7, 0, "bad", 2)
    assert "member 'a'" in problem["problem"] and "claims 9 elements" in problem["problem"]


def test_a_consumer_group_joins_its_records_and_resolves_topic_ids():
    def member(rack):
        return {"InstanceId": None, "RackId": rack, "ClientId": "c", "ClientHost": "h",
                "SubscribedTopicNames": ["orders", "missing"], "SubscribedTopicRegex": None,
                "RebalanceTimeoutMs": 1, "ServerAssignor": "range"}
    current = {"MemberEpoch": 5, "PreviousMemberEpoch": 4, "State": 0,
               "AssignedPartitions": [{"TopicId": TOPIC_ID, "Partitions": [0, 2]}],
               "PartitionsPendingRevocation": [{"TopicId": TOPIC_ID, "Partitions": [1]}]}
    frames = replay([
        (encode_key(3, GroupId="cg"), encode_value(3, {"Epoch": 6}, 0)),
        (encode_key(4, GroupId="cg"), encode_value(4, {"Topics": [{"TopicId": TOPIC_ID, "TopicName": "orders",
                                                                   "NumPartitions": 3}]}, 0)),
        (encode_key(5, GroupId="cg", MemberId="m1"), encode_value(5, member("az1"), 0)),
        (encode_key(5, GroupId="cg", MemberId="m2"), encode_value(5, member(None), 0)),
        (encode_key(8, GroupId="cg", MemberId="m1"), encode_value(8, current, 0)),
        (encode_key(5, GroupId="cg", MemberId="m2"), None),          # m2 left
        (b"\x00\x0b\x00\x05share", b"\x00\x00"),              # a share group's record: passed over
    ])
    assert frames.groups.to_pylist() == [{"group_id": "cg", "protocol": "consumer", "protocol_type": "consumer",
                                          "strategy": "range", "generation": 6, "leader": None, "members": 1}]
    assert [(r["topic"], r["owned_partitions"], r["generation"]) for r in frames.subscriptions.to_pylist()] == \
        [("orders", [0, 1, 2], 5), ("missing", [], 5)]
    assert [(r["topic"], r["partition"]) for r in frames.assignment.to_pylist()] == [("orders", 0), ("orders", 2)]
    assert frames.problems.num_rows == 0


def test_a_regex_subscription_and_topic_ids_given_by_the_caller():
    """Kafka 4.1+ writes no partition metadata (KIP-1101): ids come from the caller; a member's regex
    subscribes it to the topics the group's regular-expression record resolved it to."""
    current = {"MemberEpoch": 3, "PreviousMemberEpoch": 2, "State": 0,
               "AssignedPartitions": [{"TopicId": TOPIC_ID, "Partitions": [1]}], "PartitionsPendingRevocation": []}
    records = [
        (encode_key(3, GroupId="cg"), encode_value(3, {"Epoch": 3}, 0)),
        (encode_key(5, GroupId="cg", MemberId="m"), encode_value(5, {"ClientId": "c", "ClientHost": "h",
                                                                    "SubscribedTopicNames": ["audit"],
                                                                    "SubscribedTopicRegex": "orders.*"}, 0)),
        (encode_key(16, GroupId="cg", RegularExpression="orders.*"),
         encode_value(16, {"Topics": ["orders.eu", "orders.us"], "Version": 7, "Timestamp": 1}, 0)),
        (encode_key(8, GroupId="cg", MemberId="m"), encode_value(8, current, 0)),
    ]
    keys, values = zip(*records)
    frames = replay_partition(0, pa.array(keys, pa.binary()), pa.array(values, pa.binary()), np.arange(4),
                              topic_ids={TOPIC_ID: "orders.eu"})
    assert [(r["topic"], r["owned_partitions"]) for r in frames.subscriptions.to_pylist()] == \
        [("audit", []), ("orders.eu", [1]), ("orders.us", [])]
    assert frames.problems.num_rows == 0
    assert "topic_ids=" in replay(records).problems.column("problem")[0].as_py()


def test_an_unresolvable_topic_id_leaves_the_consumer_group_out():
    current = {"MemberEpoch": 1, "PreviousMemberEpoch": 0, "State": 0,
               "AssignedPartitions": [{"TopicId": TOPIC_ID, "Partitions": [0]}], "PartitionsPendingRevocation": []}
    frames = replay([
        (encode_key(3, GroupId="cg"), encode_value(3, {"Epoch": 1}, 0)),
        (encode_key(5, GroupId="cg", MemberId="m"), encode_value(5, {"ClientId": "c", "ClientHost": "h",
                                                                    "SubscribedTopicNames": ["t"]}, 0)),
        (encode_key(8, GroupId="cg", MemberId="m"), encode_value(8, current, 0)),
    ])
    assert frames.groups.num_rows == 0
    assert "is in no partition metadata record" in frames.problems.column("problem")[0].as_py()


def test_the_preferred_server_assignor_is_the_most_named_then_javas_first():
    assert preferred_assignor([None, None]) == "uniform"
    assert preferred_assignor(["range", "uniform", "range"]) == "range"
    # A tie goes to the first in a java.util.HashMap's iteration, whatever the members' order: a
    # HashMap of the two iterates {uniform=1, range=1} (checked with Java 17 here).
    assert preferred_assignor(["uniform", "range"]) == preferred_assignor(["range", "uniform"]) == "uniform"


@st.composite
def commits(draw):
    version = draw(st.integers(0, 4))
    metadata = draw(st.one_of(TEXT, st.text(min_size=130, max_size=200)))      # 127+ bytes: a 2-byte varint
    value = {"offset": draw(st.integers(-1, 2 ** 62)), "leaderEpoch": draw(st.sampled_from([-1, 0, 17])),
             "metadata": metadata, "commitTimestamp": draw(st.integers(0, 2 ** 45)), "expireTimestamp": -1}
    key = encode_key(draw(st.sampled_from([0, 1])), group=draw(TEXT), topic=draw(TEXT),
                     partition=draw(st.integers(0, 2 ** 31 - 1)))
    raw = encode_value(1, value, version)
    if draw(st.integers(0, 9)) == 0:
        raw = raw[:draw(st.integers(0, len(raw) - 1))]                               # cut short
    return key, raw


def _one_at_a_time(keys, values):
    rows, problems = [], []
    for k, v in zip(keys, values):
        try:
            key = decode_key(k)
            _, value = decode_value(key.record_type, v)
        except RecordFormatError as e:
            problems.append(str(e))
            continue
        epoch = value.get("leaderEpoch", -1)
        rows.append({"group_id": key.group_id, "topic": key.fields["topic"], "partition": key.fields["partition"],
                     "committed_offset": value["offset"], "leader_epoch": None if epoch == -1 else epoch,
                     "metadata": value["metadata"], "commit_timestamp": value["commitTimestamp"]})
    return rows, problems


@settings(max_examples=60, deadline=None)
@given(st.lists(commits(), min_size=1, max_size=30))
def test_commits_read_a_column_at_a_time_equal_one_at_a_time(records):
    keys, values = zip(*records)
    fast = decode_offset_commits(pa.array(keys, pa.binary()), pa.array(values, pa.binary()))
    rows, problems = _one_at_a_time(keys, values)
    key = lambda r: (r["group_id"], r["topic"], r["partition"], r["committed_offset"], r["metadata"])  # noqa: E731
    assert sorted(fast.table.to_pylist(), key=key) == sorted(rows, key=key)
    assert sorted(p for _, _, p in fast.problems) == sorted(problems)

"""Bad input gets a clear error naming the problem, the column and sample rows."""

import numpy as np
import pytest

from spark_assign.core import GroupInput, Member, assign, assign_group
from spark_assign.core.consumer import model
from spark_assign.errors import InvalidInputError, SparkAssignError, UnknownStrategyError


def err(members, topics, strategy="range", **kw):
    with pytest.raises(InvalidInputError) as info:
        assign(members, topics, strategy, **kw)
    return info.value


def test_null_or_empty_member_id():
    e = err([Member("", topics=["t"]), Member("ok", topics=["t"])], {"t": 1})
    assert e.column == "member_id" and "null or empty member_id" in str(e) and "''" in str(e)
    e = err([Member(None, topics=["t"])], {"t": 1})  # type: ignore[arg-type]
    assert e.column == "member_id" and "None" in str(e)


def test_ids_that_are_not_strings_are_named_as_such():
    e = err([Member(123, topics=["t"])], {"t": 1})  # type: ignore[arg-type]
    assert e.column == "member_id" and str(e).startswith("member_id must be a string, got int") and e.rows == [123]
    e = err([Member("a", topics=[7])], {"t": 1})  # type: ignore[list-item]
    assert e.column == "topic" and "topic must be a string, got int" in str(e)


def test_a_partition_count_above_kafkas_limit_is_named():
    e = err([Member("a", topics=["t"])], {"t": 2**31})
    assert e.column == "num_partitions" and "above Kafka's limit of 2,147,483,647" in str(e)
    assert e.rows == [("t", 2**31)]


def test_a_missing_or_empty_topic_is_a_warning_and_gets_no_partitions():
    from spark_assign.errors import MissingTopicWarning

    with pytest.warns(MissingTopicWarning, match="'empty', 'ordres'"):
        result = assign([Member("a", topics=["orders", "ordres", "empty"])], {"orders": 2, "empty": 0}, "range")
    assert result.assignment == {"a": [("orders", 0), ("orders", 1)]}


def test_duplicate_member_id():
    e = err([Member("a", topics=["t"]), Member("a", topics=["u"])], {"t": 1, "u": 1})
    assert e.column == "member_id" and "duplicate member_id" in str(e) and "'a'" in str(e)


def test_duplicate_subscription_rows():
    e = err([Member("a", topics=["t", "t"])], {"t": 1})
    assert e.column == "topic" and "('a', 't')" in str(e)


def test_negative_and_non_integer_partition_counts():
    e = err([Member("a", topics=["t"])], {"t": -3})
    assert e.column == "num_partitions" and "('t', -3)" in str(e)
    e = err([Member("a", topics=["t"])], {"t": None})
    assert e.column == "num_partitions" and "NoneType" in str(e)
    e = err([Member("a", topics=["t"])], {"t": 2.5})
    assert e.column == "num_partitions"


def test_bad_owned_partitions():
    e = err([Member("a", topics=["t"], owned=[("t", -1)])], {"t": 2})
    assert e.column == "owned_partitions" and "negative partition" in str(e)
    e = err([Member("a", topics=["t"], owned=[("t", 0), ("t", 0)])], {"t": 2})
    assert e.column == "owned_partitions" and "twice" in str(e)
    e = err([Member("a", topics=["t"], owned=[("t", "0")])], {"t": 2})
    assert e.column == "owned_partitions"
    for bad in (True, 1.0, 2**31, -2**31 - 1, -2**70, 2**70):
        e = err([Member("a", topics=["t"], owned=[("t", 0), ("t", bad)])], {"t": 2})
        assert e.column == "owned_partitions" and repr(bad) in repr(e.rows), bad
    for bad in (-2**31 - 1, -2**70):                  # every negative one is named alike
        e = err([Member("a", topics=["t"], owned=[("t", bad)])], {"t": 2})
        assert str(e).startswith("negative partition in owned partitions") and e.rows == [("a", "t", bad)]
    e = err([Member("a", topics=["t"], owned=[("t", 2**31)])], {"t": 2})
    assert "above Kafka's limit" in str(e)


def test_claimed_partitions_of_any_integer_type_read_alike():
    plain = assign([Member("a", topics=["t"], owned=[("t", 1)], generation=1), Member("b", topics=["t"])],
                   {"t": 3}, "sticky")
    for p in (np.int64(1), np.int32(1), np.uint8(1)):
        other = assign([Member("a", topics=["t"], owned=[("t", p)], generation=1), Member("b", topics=["t"])],
                       {"t": 3}, "sticky")
        assert other.assignment == plain.assignment and other.status.tolist() == plain.status.tolist()


def test_shared_static_instance_id():
    e = err([Member("a", topics=["t"], instance_id="i"), Member("b", topics=["t"], instance_id="i")], {"t": 2})
    assert e.column == "group_instance_id" and "'i'" in str(e)


def test_bad_generation_and_topics_types():
    e = err([Member("a", topics=["t"], generation="3")], {"t": 2})  # type: ignore[arg-type]
    assert e.column == "generation"
    with pytest.raises(InvalidInputError) as info:
        Member("a", topics="t")  # type: ignore[arg-type]
    assert info.value.column == "topic"
    e = err([Member("a", topics=["t"])], [("t", 2)])  # type: ignore[arg-type]
    assert e.column == "topics"


def test_generations_one_shared_or_mixed_read_the_same_way():
    from spark_assign.core.consumer.encode import encode

    def generations(values):
        spec = GroupInput(member_ids=[f"m{i}" for i in range(len(values))], topic_names=["t"],
                          topic_counts=np.array([1]), sub_member=np.arange(len(values)),
                          sub_topic=np.zeros(len(values), dtype=np.int64), generations=values)
        return encode(spec).generation.tolist()

    assert generations([7, 7, 7]) == [7, 7, 7]
    assert generations([-5, -5]) == [-1, -1]                # negative reads as none, as in Kafka
    assert generations([7, None, 7]) == [7, -1, 7]
    assert generations([2**31 - 1] * 2) == [2**31 - 1] * 2
    assert generations(np.array([5, 5], dtype=object)) == [5, 5]      # not a list: the general path
    assert generations((3, 3)) == [3, 3]
    for bad in ([1, True], [True, 1], [1, 1.0], [2**31] * 3, [-2**31 - 1] * 2):
        spec = GroupInput(member_ids=["m0", "m1"], topic_names=["t"], topic_counts=np.array([1]),
                          sub_member=np.arange(2), sub_topic=np.zeros(2, dtype=np.int64), generations=bad[:2])
        with pytest.raises(InvalidInputError) as info:
            encode(spec)
        assert info.value.column == "generation", bad


def test_partition_racks_must_match_partition_count():
    e = err([Member("a", topics=["t"], rack="r")], {"t": 2}, partition_racks={"t": [["r"]]})
    assert e.column == "partition_racks" and "2 partitions but 1" in str(e)


def test_unknown_strategy_lists_valid_names():
    with pytest.raises(UnknownStrategyError) as info:
        assign([Member("a", topics=["t"])], {"t": 1}, "round-robin")
    msg = str(info.value)
    assert "round-robin" in msg and "roundrobin" in msg and "cooperative-sticky" in msg
    assert isinstance(info.value, ValueError) and isinstance(info.value, SparkAssignError)


def test_unknown_option():
    e = err([Member("a", topics=["t"])], {"t": 1}, rack_awre=True)
    assert e.column == "options" and "rack_awre" in str(e)


def test_unknown_topics_are_allowed_and_get_nothing():
    r = assign([Member("a", topics=["t", "ghost"]), Member("b", topics=["ghost"])], {"t": 2}, "roundrobin")
    assert r.assignment == {"a": [("t", 0), ("t", 1)], "b": []}


def test_claims_on_shrunk_or_unknown_topics_are_dropped_and_revoked():
    r = assign([Member("a", topics=["t"], owned=[("t", 5), ("gone", 0), ("t", 0)], generation=1)],
               {"t": 2}, "sticky")
    assert r.assignment == {"a": [("t", 0), ("t", 1)]}
    assert r.revoked == {"a": [("gone", 0), ("t", 5)]}


@pytest.mark.parametrize("one_call", [1 << 16, 0])
def test_from_members_codes_topics_the_same_way_however_many_names_it_looks_up(monkeypatch, one_call):
    # One name, several, a name outside the metadata (new codes in order of first appearance,
    # count -1), a non-ASCII one; subscriptions and claims alike; names looked up in one call or
    # one by one.
    monkeypatch.setattr(model, "ONE_CALL_NAMES", one_call)
    topics = {"t": 2, "主题": 3}
    spec = GroupInput.from_members([Member("a", topics=["t"]), Member("b")], topics)
    assert spec.sub_topic.tolist() == [0] and spec.topic_names == ["t", "主题"]
    spec = GroupInput.from_members([Member("a", topics=["主题", "t"]), Member("b", topics=["t"])], topics)
    assert spec.sub_topic.tolist() == [1, 0, 0] and spec.topic_names == ["t", "主题"]
    members = [Member("a", topics=["主题", "ghost", "t"], owned=[("t", 1), ("gone", 0), ("ghost", 4)]),
               Member("b", topics=["ghost"], owned=[("主题", 2)])]
    spec = GroupInput.from_members(members, topics)
    assert spec.topic_names == ["t", "主题", "ghost", "gone"]
    assert spec.topic_counts.tolist() == [2, 3, -1, -1]
    assert spec.sub_member.tolist() == [0, 0, 0, 1] and spec.sub_topic.tolist() == [1, 2, 0, 2]
    assert spec.claim_member.tolist() == [0, 0, 0, 1] and spec.claim_topic.tolist() == [0, 3, 2, 1]
    assert spec.claim_partition.tolist() == [1, 0, 4, 2]
    spec = GroupInput.from_members([Member("a", owned=[("gone", 0)]), Member("b", topics=["t"])], topics)
    assert spec.claim_topic.tolist() == [2] and spec.topic_names == ["t", "主题", "gone"]


def test_a_topic_that_cannot_be_a_name_is_named_in_subscriptions_and_claims():
    for members in ([Member("a", topics=["t", ["t"]]), Member("b", topics=["t"])],  # type: ignore[list-item]
                    [Member("a", topics=["t"], owned=[("t", 0), (["t"], 1)]), Member("b", topics=["t"])]):
        e = err(members, {"t": 2})
        assert e.column == "topic" and "topic must be a string, got list" in str(e) and e.rows == [["t"]]


def test_members_without_subscriptions_are_listed_empty():
    r = assign([Member("a"), Member("b", topics=["t"])], {"t": 3}, "sticky")
    assert r.assignment == {"a": [], "b": [("t", 0), ("t", 1), ("t", 2)]}


def test_columnar_input_errors_name_rows():
    spec = GroupInput(member_ids=["a", "b"], topic_names=["t"], topic_counts=np.array([2]),
                      sub_member=np.array([0, 1, 1]), sub_topic=np.array([0, 0, 0]))
    with pytest.raises(InvalidInputError) as info:
        assign_group(spec, "range")
    assert "('b', 't')" in str(info.value)


def test_error_context_can_name_a_group():
    e = InvalidInputError("null or empty member_id", column="member_id", rows=[None]).in_group("g1")
    assert "group 'g1'" in str(e) and e.group == "g1" and e.column == "member_id"

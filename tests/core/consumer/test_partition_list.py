"""A result's member lists (TopicPartitionList): read-only lists that carry their arrays, and
read back as claims from those arrays with exactly the tuple path's columns."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import GroupInput, Member, TopicPartitionList, assign
from spark_assign.core.consumer import model
from spark_assign.errors import InvalidInputError, ReadOnlyError

from .strategies import groups


def _pairs() -> TopicPartitionList:
    return TopicPartitionList.of(["orders", "主题"], np.array([1, 0, 1]), np.array([4, 0, 7]))


def test_it_is_the_list_of_its_pairs():
    pairs = _pairs()
    assert pairs == [("主题", 4), ("orders", 0), ("主题", 7)]
    assert [("主题", 4), ("orders", 0), ("主题", 7)] == pairs
    assert isinstance(pairs, list) and repr(pairs) == repr(list(pairs))
    assert type(pairs[1:]) is list and pairs[1:] == [("orders", 0), ("主题", 7)]
    assert pairs.partitions.tolist() == [4, 0, 7] and pairs.topic_codes.tolist() == [1, 0, 1]


@pytest.mark.parametrize("change", [
    lambda x: x.append(("t", 1)), lambda x: x.extend([]), lambda x: x.insert(0, ("t", 1)), lambda x: x.pop(),
    lambda x: x.remove(("orders", 0)), lambda x: x.clear(), lambda x: x.sort(), lambda x: x.reverse(),
    lambda x: x.__setitem__(0, ("t", 1)), lambda x: x.__delitem__(0), lambda x: x.__iadd__([]),
    lambda x: x.__imul__(2),
], ids=["append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "setitem", "delitem",
        "iadd", "imul"])
def test_every_change_is_refused_and_the_pairs_stay(change):
    pairs = _pairs()
    with pytest.raises(ReadOnlyError, match="read-only"):
        change(pairs)
    with pytest.raises(TypeError):                 # a ReadOnlyError is a TypeError, as a tuple's would be
        change(pairs)
    assert pairs == [("主题", 4), ("orders", 0), ("主题", 7)]
    copied = list(pairs)
    copied.append(("t", 1))                        # a copy is a plain list
    assert len(copied) == 4


def test_the_arrays_are_read_only_too():
    result = assign([Member("a", topics=["t"]), Member("b", topics=["t"])], {"t": 4}, "range")
    a, b = result.assignment["a"], result.assignment["b"]
    for array in (a.partitions, a.topic_codes, b.partitions):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 3
    assert a.partitions.tolist() == [0, 1] and b.partitions.tolist() == [2, 3]
    given = np.array([0, 1])
    TopicPartitionList.of(["t"], np.zeros(2, dtype=np.int64), given)
    given[0] = 5                                   # of() copied the caller's array


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))],
                         ids=["copy", "deepcopy", "pickle"])
def test_copies_keep_pairs_and_arrays(clone):
    pairs = _pairs()
    again = clone(pairs)
    assert type(again) is TopicPartitionList and again == pairs
    assert again.partitions.tolist() == [4, 0, 7] and list(again.topic_names) == ["orders", "主题"]


def test_bad_arrays_name_the_argument():
    with pytest.raises(InvalidInputError, match="partitions"):
        TopicPartitionList.of(["t"], np.array([0, 0]), np.array([1]))
    with pytest.raises(InvalidInputError, match="topic_codes"):
        TopicPartitionList.of(["t"], np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(InvalidInputError, match="partitions.*offending rows: 2199023255552"):
        TopicPartitionList.of(["t"], np.array([0]), np.array([2**41]))
    with pytest.raises(InvalidInputError, match="topic_names"):
        TopicPartitionList.of(["t", ""], np.array([0]), np.array([1]))


def test_only_of_builds_one_and_it_copies_the_names():
    with pytest.raises(ReadOnlyError, match="TopicPartitionList.of"):
        TopicPartitionList([("t", 0)])
    pairs = _pairs()
    with pytest.raises(ReadOnlyError):
        pairs.__init__([("t", 0)])                 # type: ignore[misc]
    names = ["a", "b"]
    listed = TopicPartitionList.of(names, np.array([0]), np.array([1]))
    names[0] = "b"
    assert listed == [("a", 1)] and list(listed.topic_names) == ["a", "b"]


def test_a_member_keeps_only_pairs_as_fields():
    result = assign([Member("a", topics=["t"]), Member("b", topics=["t"])], {"t": 3}, "range")
    member = Member("a", topics=["t"], owned=result.assignment["a"], generation=1)
    assert Member(**dataclasses.asdict(member)) == member
    assert Member(*dataclasses.astuple(member)) == member
    again = pickle.loads(pickle.dumps(member))
    assert again == member and again.owned == (("t", 0), ("t", 1))


def test_a_result_gives_them_and_a_member_keeps_tuples():
    result = assign([Member("a", topics=["t"]), Member("b", topics=["t"])], {"t": 3}, "range")
    pairs = result.assignment["a"]
    assert type(pairs) is TopicPartitionList and pairs == [("t", 0), ("t", 1)]
    member = Member("a", topics=["t"], owned=pairs, generation=1)
    assert member.owned == (("t", 0), ("t", 1))
    assert member == Member("a", topics=["t"], owned=[("t", 0), ("t", 1)], generation=1)
    assert hash(member) == hash(Member("a", topics=["t"], owned=[("t", 0), ("t", 1)], generation=1))


def _round_trip(members, topics, strategy):
    """The members again, claiming what ``strategy`` gave them: as the result's lists, and as
    plain lists of the same pairs."""
    got = assign(members, topics, strategy).assignment
    lists = [Member(m.member_id, topics=m.topics, owned=got[m.member_id], generation=3, instance_id=m.instance_id)
             for m in members]
    plain = [Member(m.member_id, topics=m.topics, owned=list(got[m.member_id]), generation=3,
                    instance_id=m.instance_id) for m in members]
    return lists, plain


def _same_input(a: GroupInput, b: GroupInput) -> None:
    assert list(a.member_ids) == list(b.member_ids) and list(a.topic_names) == list(b.topic_names)
    for name in ("topic_counts", "sub_member", "sub_topic", "claim_member", "claim_topic", "claim_partition"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert getattr(a, name).dtype == getattr(b, name).dtype, name


@examples(60)
@given(groups(max_members=12, max_topics=8), st.sampled_from(["sticky", "cooperative-sticky", "range", "uniform"]),
       st.data())
def test_read_from_arrays_equals_read_from_tuples(group, strategy, data):
    members, topics = group
    lists, plain = _round_trip(members, topics, strategy)
    # The next rebalance may see other metadata: topics gone (claims on unknown topics take the
    # tuple path) or shrunk, members gone, and some claims arriving as plain lists.
    gone = data.draw(st.lists(st.sampled_from(sorted(topics)), max_size=2, unique=True)) if topics else []
    later = {t: (n if t not in gone else 0) for t, n in topics.items() if data.draw(st.booleans()) or t not in gone}
    keep = data.draw(st.lists(st.booleans(), min_size=len(members), max_size=len(members)))
    mixed = [p if data.draw(st.booleans()) else m for m, p in zip(lists, plain)]
    # Lists of two results (two names lists to map), and the same pairs as plain lists.
    other, other_plain = _round_trip(members, topics, "range")
    half = len(members) // 2
    two, two_plain = lists[:half] + other[half:], plain[:half] + other_plain[half:]
    with mock.patch.object(model, "ARRAY_CLAIMS", 0):          # small groups read arrays too
        for claims, reference_claims in ((lists, plain), (mixed, plain), (two, two_plain)):
            picked = [m for m, k in zip(claims, keep) if k]
            reference = [m for m, k in zip(reference_claims, keep) if k]
            _same_input(GroupInput.from_members(picked, later), GroupInput.from_members(reference, later))
            assert assign(picked, later, strategy).assignment == assign(reference, later, strategy).assignment


def test_a_large_group_reads_its_claims_from_the_arrays():
    topics = {f"主题-{i}": 700 for i in range(8)}
    members = [Member(f"consumer-{i:03d}", topics=list(topics)) for i in range(30)]
    lists, plain = _round_trip(members, topics, "cooperative-sticky")
    assert sum(len(m.owned) for m in lists) >= model.ARRAY_CLAIMS
    unpickled = [pickle.loads(pickle.dumps(m)) for m in lists]     # each list with its own names
    for claims in (lists, unpickled):
        _same_input(GroupInput.from_members(claims[1:], topics), GroupInput.from_members(plain[1:], topics))
        assert assign(claims[1:], topics, "sticky").assignment == assign(plain[1:], topics, "sticky").assignment

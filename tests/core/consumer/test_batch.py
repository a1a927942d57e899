"""The batch API (:func:`spark_assign.core.consumer.batch.api.assign_batch`) against the per-group engine.

A differential test over random fleets: groups of mixed sizes, homogeneous and mixed
subscriptions, previous ownership from an earlier round (members leaving and joining,
stale generations, a partition claimed twice), static members, racks with and without
replica racks, realistic non-ASCII ids and subscribed topics missing from the metadata.
Every group's rows (topic, partition, owner, previous owner, status) must equal
:func:`~spark_assign.core.assign_group`'s, row for row, whether the segment rules or the
per-group fallback assigned it.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import GroupInput, Member, assign_group
from spark_assign.core.consumer.batch.api import GroupBatch, assign_batch
from spark_assign.core.consumer.registry import STRATEGIES as REGISTRY
from spark_assign.core.java.util import hash_spread, java_string_hash
from spark_assign.errors import InvalidInputError

from .strategies import groups, names

#: The strategies the lock-step engine computes itself (the others go group by group).
BATCH_STRATEGIES = {s.name for s in REGISTRY if s.batchable}
SETTINGS = examples(60)
STRATEGIES = sorted(BATCH_STRATEGIES | {"lag-based"})

Row = Tuple[str, int, Optional[str], Optional[str], int]


def engine_rows(spec: GroupInput, strategy: str) -> List[Row]:
    r = assign_group(spec, strategy)
    g, names_ = r.group, r.group.owner_names()
    return [(g.topic_names[t], p, g.member_ids[o] if o >= 0 else None, names_[q] if q >= 0 else None, s)
            for t, p, o, q, s in zip(r.topic.tolist(), r.partition.tolist(), r.owner.tolist(),
                                     r.previous_owner.tolist(), r.status.tolist())]


def batch_rows(batch: GroupBatch, out, g: int) -> List[Row]:
    ids = batch.member_names
    rows = []
    for k in range(int(out.row_off[g]), int(out.row_off[g + 1])):
        o, pm, pd = out.owner[k], out.previous_member[k], out.previous_departed[k]
        previous = ids[batch.member_id[pm]] if pm >= 0 else (ids[pd] if pd >= 0 else None)
        rows.append((batch.topic_names[batch.topic_name[out.topic[k]]], int(out.partition[k]),
                     ids[batch.member_id[o]] if o >= 0 else None, previous, int(out.status[k])))
    return rows


def assert_same(specs: List[GroupInput], strategy: str) -> np.ndarray:
    """The batch's rows equal the engine's for every group (or both raise the same error);
    returns which groups the segment rules took."""
    batch = GroupBatch.from_inputs(specs, group_ids=[f"g{i}" for i in range(len(specs))])
    expected, error = [], None
    for i, spec in enumerate(specs):
        try:
            expected.append(engine_rows(spec, strategy))
        except InvalidInputError as e:
            error = e.in_group(f"g{i}")
            break
    if error is not None:
        with pytest.raises(InvalidInputError) as raised:
            assign_batch(batch, strategy)
        assert str(raised.value) == str(error)
        return np.zeros(0, dtype=bool)
    out = assign_batch(batch, strategy)
    for g, rows in enumerate(expected):
        assert batch_rows(batch, out, g) == rows, f"group {g} ({'batched' if out.batched[g] else 'fallback'})"
    return out.batched


# ------------------------------------------------------------------ random fleets


@st.composite
def homogeneous_group(draw, index: int) -> Tuple[List[Member], dict, Optional[dict]]:
    """A fleet's typical group: members sharing one subscription, maybe after a rebalance."""
    topic_names = draw(names(4))
    topics = {t: draw(st.integers(0, 40)) for t in topic_names}
    if draw(st.integers(0, 5)) == 0:
        topics.pop(topic_names[-1])                                  # subscribed, missing from metadata
    member_ids = [f"{m}-{index}" for m in draw(names(12))]
    static = draw(st.integers(0, 3)) == 0
    members = [Member(m, topics=topic_names, instance_id=f"i-{m}" if static and k % 2 else None)
               for k, m in enumerate(member_ids)]
    if draw(st.booleans()):                                          # previous round, then churn
        strategy = draw(st.sampled_from(["sticky", "range", "uniform"]))
        spec = GroupInput.from_members(members, topics)
        before = assign_group(spec, strategy).assignment
        kept = [m for m in members if draw(st.integers(0, 4))]
        members = [Member(m.member_id, topics=m.topics, owned=before[m.member_id],
                          generation=draw(st.sampled_from([1, 1, 2, None])), instance_id=m.instance_id)
                   for m in kept] or members[:1]
        if draw(st.booleans()):
            members.append(Member(f"joined-é-{index}", topics=topic_names))
    racks = None
    if draw(st.integers(0, 9)) == 0:
        members = [Member(m.member_id, topics=m.topics, owned=m.owned, generation=m.generation,
                          instance_id=m.instance_id, rack=draw(st.sampled_from(["r0", "r1", None])))
                   for m in members]
        if draw(st.booleans()):
            racks = {t: [[draw(st.sampled_from(["r0", "r1", "r2"]))] for _ in range(n)] for t, n in topics.items()}
    return members, topics, racks


@st.composite
def fleets(draw) -> List[GroupInput]:
    specs = []
    for i in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 3)) == 0:
            members, topics = draw(groups(max_members=12, max_topics=6))          # messy claims, mixed
            racks = None
        else:
            members, topics, racks = draw(homogeneous_group(i))
        specs.append(GroupInput.from_members(members, topics, racks))
    return specs


@SETTINGS
@given(fleets(), st.sampled_from(STRATEGIES))
def test_batch_rows_equal_the_per_group_engine(specs, strategy):
    assert_same(specs, strategy)


def test_plain_groups_take_the_segment_rules_and_the_rest_falls_back():
    topics = {"orders": 16, "payments": 16}
    plain = GroupInput.from_members([Member(f"m{i}", topics=list(topics)) for i in range(10)], topics)
    mixed = GroupInput.from_members([Member("a", topics=["orders"]), Member("b", topics=list(topics))], topics)
    for strategy in STRATEGIES:
        batched = assert_same([plain, mixed, plain], strategy)
        expected = [strategy in BATCH_STRATEGIES, strategy in ("range", "server-range"), strategy in BATCH_STRATEGIES]
        assert batched.tolist() == expected, strategy


def _walk_group(ids: List[str]) -> GroupInput:
    """Twelve members who held 3 or 4 of 40 partitions, and a newcomer: four of them may keep
    4, only one may (40 = 13 x 3 + 1), so the leader's HashMap walk picks it."""
    topics = {"t": 40}
    fresh = assign_group(GroupInput.from_members([Member(m, topics=["t"]) for m in ids], topics), "sticky")
    members = [Member(m, topics=["t"], owned=fresh.assignment[m], generation=1) for m in ids]
    return GroupInput.from_members(members + [Member("newcomer", topics=["t"])], topics)


def test_the_hashmap_walk_decides_who_keeps_the_larger_quota():
    spec = _walk_group([f"consumer-{i}" for i in range(12)])
    for strategy in ("sticky", "cooperative-sticky"):
        assert assert_same([spec], strategy).tolist() == [True]


def test_a_crowded_hashmap_bucket_goes_through_the_engine():
    """Twelve ids sharing a bucket of a 16-bucket HashMap: Kafka's map resizes for the crowded
    bucket (treeify), which the segment rules leave to the per-group engine."""
    crowded = [s for s in (f"member-{i}" for i in range(5000)) if hash_spread(java_string_hash(s)) & 15 == 3][:12]
    spec = _walk_group(crowded)
    for strategy in ("sticky", "cooperative-sticky"):
        assert assert_same([spec], strategy).tolist() == [False]


def test_a_bad_group_raises_the_engines_error_naming_the_group():
    topics = {"t": 4}
    good = GroupInput.from_members([Member("a", topics=["t"])], topics)
    bad = GroupInput(member_ids=["a", "a"], topic_names=["t"], topic_counts=np.array([4]),
                     sub_member=np.array([0, 1]), sub_topic=np.array([0, 0]))
    batch = GroupBatch.from_inputs([good, bad], group_ids=["ok", "broken"])
    with pytest.raises(InvalidInputError, match="duplicate member_id") as raised:
        assign_batch(batch, "range")
    assert raised.value.group == "broken"


def test_previous_owners_and_pending_transfers_feed_previous_and_status():
    """Rows of a previous generation (owners that left included) and partitions still pending
    a cooperative transfer, as the state table passes them."""
    spec = GroupInput.from_members([Member("a", topics=["t"]), Member("b", topics=["t"])], {"t": 6})
    spec.prior_topic = np.array([0, 0, 0, 0])
    spec.prior_partition = np.array([0, 1, 2, 5])
    spec.prior_owner = np.array([0, 1, 1, -1])
    spec.prior_owner_names = ["gone", "b"]
    spec.pending_topic = np.array([0, 0])
    spec.pending_partition = np.array([3, 4])
    for strategy in sorted(BATCH_STRATEGIES):
        assert assert_same([spec, spec], strategy).all()


def test_group_input_round_trips_a_batch():
    members = [Member("c1", topics=["t", "u"], owned=[("t", 1)], generation=3, instance_id="s1", rack="r"),
               Member("c2", topics=["u"])]
    spec = GroupInput.from_members(members, {"t": 2, "u": 1})
    again = GroupBatch.from_inputs([spec]).group_input(0)
    assert list(again.member_ids) == ["c1", "c2"] and list(again.topic_names) == ["t", "u"]
    assert again.instance_ids == ["s1", None] and again.racks == ["r", None] and again.generations == [3, None]
    assert again.claim_partition.tolist() == [1] and again.sub_topic.tolist() == spec.sub_topic.tolist()


def test_an_empty_batch_has_no_rows():
    out = assign_batch(GroupBatch.from_inputs([]), "sticky")
    assert out.row_off.tolist() == [0] and len(out.owner) == 0


def test_a_dictionary_repeating_a_name_reads_as_that_name():
    """Codes 0 and 1 both spell "a": the group has the same member twice, as the engine says."""
    batch = GroupBatch(member_off=np.array([0, 2]), member_id=np.array([0, 1]), member_names=["a", "a"],
                       topic_off=np.array([0, 1]), topic_name=np.array([0]), topic_names=["t"],
                       topic_count=np.array([2]), pair_off=np.array([0, 2]), pair_member=np.array([0, 1]),
                       pair_topic=np.array([0, 0]))
    with pytest.raises(InvalidInputError, match="duplicate member_id"):
        assign_batch(batch, "range")

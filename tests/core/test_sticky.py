"""Unit tests of the sticky builders' moving parts."""

import dataclasses
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_assign.core import GroupInput, Member, assign, assign_group
from spark_assign.core.context import Context
from spark_assign.core.encode import encode
from spark_assign.core.sticky import partitions_changing_hands
from spark_assign.core.sticky_general import _pid_ranges, water_fill

from .strategies import groups


def _greedy(counts, k):
    counts, picks = list(counts), []
    for _ in range(k):
        j = min(range(len(counts)), key=lambda i: (counts[i], i))
        picks.append(j)
        counts[j] += 1
    return picks


def test_water_fill_equals_one_at_a_time_least_loaded():
    rng = random.Random(7)
    for _ in range(2000):
        counts = np.array([rng.randint(0, 8) for _ in range(rng.randint(1, 15))])
        k = rng.randint(1, 40)
        assert water_fill(counts, k).tolist() == _greedy(counts, k)


def test_pid_ranges_concatenates_topic_ranges():
    offsets = np.array([0, 3, 3, 7, 9])
    assert _pid_ranges(offsets, np.array([2, 0, 3])).tolist() == [3, 4, 5, 6, 0, 1, 2, 7, 8]
    assert _pid_ranges(offsets, np.array([], dtype=np.int64)).tolist() == []


def test_member_keeping_max_quota_follows_java_hashmap_order():
    # Kafka's testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers: Java iterates
    # consumer3, consumer2, consumer1, so consumer2 keeps the one max-quota slot.
    t = ["topic1", "topic2"]
    members = [Member("consumer1", t, [("topic1", 0), ("topic2", 0)], 1),
               Member("consumer2", t, [("topic1", 1), ("topic2", 1)], 1),
               Member("consumer3", t, [], 1)]
    r = assign(members, {"topic1": 2, "topic2": 2}, "sticky")
    assert r.assignment == {"consumer1": [("topic1", 0)], "consumer2": [("topic1", 1), ("topic2", 1)],
                            "consumer3": [("topic2", 0)]}
    coop = assign(members, {"topic1": 2, "topic2": 2}, "cooperative-sticky")
    assert coop.assignment["consumer3"] == [] and coop.revoked["consumer1"] == [("topic2", 0)]
    assert coop.status_names() == ["kept", "kept", "revoked", "kept"]


def test_kept_partitions_come_first_in_member_lists():
    members = [Member("a", ["t"], [("t", 3), ("t", 1)], 1), Member("b", ["t"], [], 1)]
    r = assign(members, {"t": 6}, "sticky")
    assert r.assignment["a"][:2] == [("t", 1), ("t", 3)]


def test_cooperative_withholds_a_validly_owned_partition_even_from_a_stale_claimant():
    # m0 (generation 2) owns t0-0 but left the topic; m1 holds a stale claim on it.
    # Kafka's general path would hand it to m1 in the same round; we withhold it.
    members = [Member("m0", topics=[], owned=[("t0", 0)], generation=2),
               Member("m1", topics=["t0"], owned=[("t0", 0)], generation=None)]
    r = assign(members, {"t0": 1}, "cooperative-sticky")
    assert r.assignment == {"m0": [], "m1": []} and r.status_names() == ["revoked"]
    follow = [Member("m0", topics=[], generation=3), Member("m1", topics=["t0"], generation=3)]
    assert assign(follow, {"t0": 1}, "cooperative-sticky").assignment == {"m0": [], "m1": [("t0", 0)]}


def test_doubly_claimed_partition_in_one_generation_is_unowned():
    members = [Member("a", ["t"], [("t", 0), ("t", 1)], 1), Member("b", ["t"], [("t", 0), ("t", 2)], 1),
               Member("c", ["t"], [], 1)]
    r = assign(members, {"t": 3}, "cooperative-sticky")
    # Kafka's testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
    assert r.assignment == {"a": [("t", 1)], "b": [("t", 2)], "c": []}
    assert r.status_names()[0] == "revoked" and r.previous_owner[0] == -1


@settings(max_examples=150, deadline=None)
@given(groups(max_members=20, max_topics=8), st.randoms(use_true_random=False))
def test_partitions_changing_hands_reads_single_claims_as_the_general_rule_does(case, rng):
    # Without a partition claimed twice, the cooperative adjustment takes a shortcut; it must
    # withhold what the general rule (forced by marking the claims as overlapping) withholds,
    # for any owner array: the sticky result's, and one dealt at random.
    members, topics = case
    claimed: set = set()                  # each partition's first claim only, so none overlaps
    members = [dataclasses.replace(m, owned=[tp for tp in m.owned if not (tp in claimed or claimed.add(tp))])
               for m in members]
    group = encode(GroupInput.from_members(members, topics))
    assert not group.claims_overlap
    P, M = group.num_partitions, group.num_members
    sticky = assign_group(GroupInput.from_members(members, topics), "sticky").owner
    dealt = np.array([rng.randrange(-1, M) for _ in range(P)], dtype=np.int64)
    for owner in (sticky, dealt):
        shortcut = partitions_changing_hands(Context(group), owner)
        general = partitions_changing_hands(Context(dataclasses.replace(group, claims_overlap=True)), owner)
        assert shortcut.tolist() == general.tolist()

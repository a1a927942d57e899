"""Unit tests of the sticky builders' moving parts."""

import dataclasses
import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import GroupInput, Member, assign, assign_group
from spark_assign.core.consumer.context import Context
from spark_assign.core.consumer.encode import encode
from spark_assign.core.consumer.strategies.sticky import partitions_changing_hands
from spark_assign.core.consumer.strategies.sticky.general import _pid_ranges, water_fill

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


def _stale_claimant_group():
    """C claims x-3 from an older generation but now subscribes to y only; c1..c4 share x, two
    of them on rack a, so the rack-aware fill leaves c4 with 9 partitions of x. Kafka's rebalance
    moves x-3 back to C (2+ fewer than c4) and, once C is the heavy one, on to c1."""
    x_racks = ["a", "d", "a", "b", "d", "a", "d", "c", "a", "d", "a", "a", "b", "d", "a", "b"]
    y_racks = ["b", "d", "a", "a", "d", "b", "c", "b", "b", "c", "a", "a"]
    members = [Member("c2", topics=["y"]), Member("c4", topics=["x"]),
               Member("C", topics=["y"], owned=[("x", 3)]), Member("c3", topics=["x"], rack="a"),
               Member("c1", topics=["x"], rack="a", generation=6)]
    racks = {"x": [[r] for r in x_racks], "y": [[r] for r in y_racks]}
    return members, {"x": 16, "y": 12}, racks


def test_a_stale_claimant_that_left_the_topic_gets_it_back_then_passes_it_on_as_in_kafka():
    """Kafka's output on this group (its StickyAssignor and CooperativeStickyAssignor, run on it):
    the detour through C decides which partitions c1 and c3 end with."""
    members, topics, racks = _stale_claimant_group()

    def x(*partitions):
        return [("x", p) for p in sorted(partitions)]

    for strategy, c1 in (("sticky", x(0, 3, 4, 5, 10, 14)), ("cooperative-sticky", x(0, 4, 5, 10, 14))):
        got = {m: sorted(tps) for m, tps in assign(members, topics, strategy, partition_racks=racks).assignment.items()}
        assert got["c1"] == c1 and got["c3"] == x(1, 2, 6, 8, 11) and got["c4"] == x(7, 9, 12, 13, 15)
        assert got["C"] == [("y", p) for p in range(0, 12, 2)]


def test_where_kafka_would_leave_the_partition_with_a_member_that_left_its_topic_we_do_not():
    """Kafka moves x-3 back to C and leaves it there (C is never 2+ above an x subscriber again):
    an invalid assignment. The guarded rebalance gives x-3 to a subscriber (deliberate
    difference 2, docs/kafka-fidelity.md)."""
    members = [Member("A", ["y"]), Member("B", ["x"], owned=[("x", p) for p in range(8)], generation=2),
               Member("C", ["y"], owned=[("x", 3)], generation=1), Member("D", ["x"]), Member("E", ["x"])]
    r = assign(members, {"x": 8, "y": 4}, "sticky")
    assert r.assignment["C"] == [("y", 1), ("y", 3)]
    assert sorted(r.assignment["D"] + r.assignment["E"]) == [("x", p) for p in range(5)]


def test_doubly_claimed_partition_in_one_generation_is_unowned():
    members = [Member("a", ["t"], [("t", 0), ("t", 1)], 1), Member("b", ["t"], [("t", 0), ("t", 2)], 1),
               Member("c", ["t"], [], 1)]
    r = assign(members, {"t": 3}, "cooperative-sticky")
    # Kafka's testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
    assert r.assignment == {"a": [("t", 1)], "b": [("t", 2)], "c": []}
    assert r.status_names()[0] == "revoked" and r.previous_owner[0] == -1


@examples(150)
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


def test_a_group_kafkas_loop_never_finishes_ends_valid_balanced_and_sticky():
    """On this group Kafka's assignors throw (deliberate difference 2), and past that move Kafka's
    undo rule keeps moving a partition a third member holds, so the balance never improves (a copy
    of Kafka's code that skips the throwing move loops for good). The engine stops taking such
    undos after a bound and ends (docs/kafka-fidelity.md, difference 9)."""
    import json
    from pathlib import Path

    from spark_assign.core.consumer.checks import balance_violations, stickiness_violations, validity_errors

    case = json.loads((Path(__file__).parents[2] / "data" / "sticky_endless_undo_case.json").read_text("utf-8"))
    members = [Member(m["member_id"], topics=m["topics"], owned=[tuple(tp) for tp in m["owned"]],
                      generation=m["generation"], instance_id=m["instance_id"]) for m in case["members"]]
    for strategy in ("sticky", "cooperative-sticky"):
        result = assign(members, case["topics"], strategy)
        assert validity_errors(result, allow_withheld=strategy == "cooperative-sticky") == []
    result = assign(members, case["topics"], "sticky")
    assert balance_violations(result) == [] and stickiness_violations(result) == []

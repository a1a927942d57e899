"""Kafka's client ``RangeAssignor``.

Per topic, the subscribers in ``MemberInfo`` order (static members by
``group.instance.id`` first, then dynamic ones by member id, KIP-345) take
contiguous ranges of the partitions; the first ``n % c`` of them one extra.

Rack-aware mode (KIP-881) applies when Kafka's rule says so (see
:mod:`.racks`): first, ranges are filled with partitions that have a replica
on the member's rack (members without a rack match anything); topics with the
same subscribers and partition count are co-partitioned and matched jointly,
partition by partition; then the rest is assigned as usual. Balance per topic
is never traded for locality.

The non-rack path is fully vectorized: a partition's position in its topic
gives its range index arithmetically.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Set, Tuple

import numpy as np

from ..context import Context, Outcome
from ...java.util import hashmap_order, java_string_hash_array
from ..racks import partition_rack_sets, use_rack_aware

__all__ = ["assign_range", "partitions_per_topic_order", "subscribers_by_topic", "vectorized_ranges"]


def assign_range(ctx: Context) -> Outcome:
    g = ctx.group
    if g.has_racks():
        subscribers = subscribers_by_topic(ctx)
        states = [_TopicState(ctx, t, subscribers[t]) for t in range(g.num_topics) if g.topic_counts[t] > 0]
        if any(s.needs_rack_aware for s in states):
            owner = np.full(g.num_partitions, -1, dtype=np.int64)
            _assign_with_rack_matching(states)
            for s in states:
                s.assign_ranges(rack_matching=False)
                s.write(owner)
            # Kafka sorts every member's list by (topic, partition) in this mode.
            return Outcome(owner, np.arange(g.num_partitions, dtype=np.int64))
    return Outcome(vectorized_ranges(ctx), _kafka_topic_order(ctx))


def subscribers_by_topic(ctx: Context) -> List[np.ndarray]:
    """Each topic's subscribers in ``MemberInfo`` order."""
    g = ctx.group
    members, bounds = g.subscribers_by_topic()       # by member index
    if any(s is not None for s in g.instance_ids):
        rank = ctx.member_info_rank                   # static members first: re-sort within topics
        topic_of = np.repeat(np.arange(g.num_topics), np.diff(bounds))
        members = members[np.lexsort((rank[members], topic_of))]
    return [members[bounds[t]:bounds[t + 1]] for t in range(g.num_topics)]


def vectorized_ranges(ctx: Context) -> np.ndarray:
    """The owner of every partition (by pid) when each topic is split into contiguous ranges over
    its subscribers in ``MemberInfo`` order (:func:`subscribers_by_topic`), the first
    ``count % members`` ranges one longer (``RangeAssignor``'s split; ``server_range`` uses it
    too). Every topic of a group has a subscriber (its topics are the subscribed ones), so every
    partition gets an owner."""
    g = ctx.group
    n = g.topic_counts
    t = g.pid_topic()
    j = g.pid_partition()
    # Common case: every member subscribes to every topic and none is static, so the
    # subscribers of each topic are all members in index order: the range index is the owner.
    plain = g.subscriptions_complete and g.instance_ids.count(None) == len(g.instance_ids)
    if plain:
        c = np.full(g.num_topics, g.num_members, dtype=np.int64)
    else:
        subscribers = subscribers_by_topic(ctx)
        c = np.array([len(s) for s in subscribers], dtype=np.int64)
    q = n // np.maximum(c, 1)                       # partitions per member
    r = n % np.maximum(c, 1)                        # members with one extra
    qt, rt = q[t], r[t]
    head = rt * (qt + 1)                            # partitions in the longer ranges
    idx = np.where(j < head, j // (qt + 1), rt + (j - head) // np.maximum(qt, 1))
    if plain:
        return idx
    flat = np.concatenate(subscribers + [np.zeros(0, np.int64)]).astype(np.int64)
    first = np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.int64)
    return flat[first[t] + idx]


def _kafka_topic_order(ctx: Context) -> np.ndarray:
    """Order within member lists: topics as Kafka iterates ``partitionsPerTopic``, then partition."""
    g = ctx.group
    rank = np.empty(g.num_topics, dtype=np.int64)
    rank[partitions_per_topic_order(ctx)] = np.arange(g.num_topics, dtype=np.int64)
    return rank[g.pid_topic()] * (g.num_partitions + 1) + np.arange(g.num_partitions, dtype=np.int64)


def partitions_per_topic_order(ctx: Context) -> np.ndarray:
    """Topic indices in the iteration order of the client assignors' ``partitionsPerTopic``;
    topics without partitions (missing from the metadata, or 0) last, in index order.

    ``AbstractPartitionAssignor.assign`` builds two hash tables, and both decide the order:

    1. ``allSubscribedTopics``, a ``HashSet<String>``: every subscribed name, missing ones
       included, added as first met while walking the members in their ``HashMap`` order
       (:attr:`Context.hashmap_member_order`), each member's topics in name order (a Java
       consumer sends its own ``HashSet`` order, whose ties we cannot know);
    2. ``partitionsPerTopic``, a ``HashMap<String, List>``: the names with partitions, put
       in the first table's iteration order.

    Names sharing a bucket iterate in insertion order, and each table's capacity follows its
    own size, so neither name order nor one table alone gives Kafka's order.
    """
    g = ctx.group
    T = g.num_topics
    if T <= 1:
        return np.arange(T, dtype=np.int64)
    if g.subscriptions_complete:
        first_met = np.arange(T, dtype=np.int64)       # the first member's topics, in name order
    else:
        # A topic is first met at its subscriber earliest in the walk; ties (same member) by name.
        walk = ctx.hashmap_member_order                # members, in HashMap order
        position = np.empty(g.num_members, dtype=np.int64)
        position[walk] = np.arange(g.num_members, dtype=np.int64)
        members, bounds = g.subscribers_by_topic()      # every topic of a group has a subscriber
        first_member = np.minimum.reduceat(position[members], bounds[:-1]) if T else bounds[:0]
        first_met = np.argsort(first_member, kind="stable")
    hashes = java_string_hash_array(g.topic_names)
    subscribed_set = first_met[hashmap_order(hashes[first_met])]
    with_partitions = g.topic_known & (g.topic_counts > 0)
    put = subscribed_set[with_partitions[subscribed_set]]
    mapped = put[hashmap_order(hashes[put])]
    rest = np.flatnonzero(~with_partitions)
    return np.concatenate([mapped, rest]).astype(np.int64)


class _TopicState:
    """One topic during rack-aware range assignment (Kafka's ``TopicAssignmentState``)."""

    def __init__(self, ctx: Context, topic: int, subscribers: np.ndarray) -> None:
        g = ctx.group
        self.topic = topic
        self.first_pid = int(g.topic_offsets[topic])
        n = int(g.topic_counts[topic])
        self.consumers: List[int] = subscribers.tolist()
        self.rack = {m: int(g.member_rack[m]) for m in self.consumers}
        c = len(self.consumers)
        self.per_member = n // c if c else 0
        self.with_extra = n % c if c else 0
        self.assigned: Dict[int, List[int]] = {m: [] for m in self.consumers}
        self.unassigned: Dict[int, None] = dict.fromkeys(range(n))   # ordered set
        consumer_racks = {r for r in self.rack.values() if r >= 0}
        if consumer_racks:
            pids = np.arange(self.first_pid, self.first_pid + n)
            self.partition_racks: List[Set[int]] = partition_rack_sets(g, pids)
        else:
            self.partition_racks = []
        self.needs_rack_aware = use_rack_aware(
            consumer_racks, self.partition_racks, bool(ctx.options.get("prefer_rack_aware"))
        )

    def group_key(self) -> Tuple[Tuple[int, ...], int]:
        return tuple(self.consumers), len(self.partition_racks)

    def racks_match(self, member: int, p: int) -> bool:
        rack = self.rack[member]
        if rack < 0:
            return True
        return bool(self.partition_racks) and rack in self.partition_racks[p]

    def max_assignable(self, member: int) -> int:
        quota = self.per_member + (1 if self.with_extra > 0 else 0)
        return max(0, quota - len(self.assigned[member]))

    def on_assigned(self, member: int, partitions: List[int]) -> None:
        self.assigned[member].extend(partitions)
        if len(self.assigned[member]) > self.per_member:
            self.with_extra -= 1
        for p in partitions:
            del self.unassigned[p]

    def assign_ranges(self, rack_matching: bool) -> None:
        for m in self.consumers:
            if not self.unassigned:
                break
            limit = self.max_assignable(m)
            take: List[int] = []
            if limit > 0:
                for p in self.unassigned:
                    if not rack_matching or self.racks_match(m, p):
                        take.append(p)
                        if len(take) == limit:
                            break
            if take:
                self.on_assigned(m, take)

    def write(self, owner: np.ndarray) -> None:
        for m, parts in self.assigned.items():
            for p in parts:
                owner[self.first_pid + p] = m


def _assign_with_rack_matching(states: List[_TopicState]) -> None:
    groups: Dict[Tuple[Tuple[int, ...], int], List[_TopicState]] = defaultdict(list)
    for s in states:
        groups[s.group_key()].append(s)
    for (consumers, num_partitions), same in groups.items():
        if len(same) > 1:
            _assign_co_partitioned(list(consumers), num_partitions, same)
        elif same[0].needs_rack_aware:
            same[0].assign_ranges(rack_matching=True)


def _assign_co_partitioned(consumers: List[int], num_partitions: int, states: List[_TopicState]) -> None:
    """Topics with equal subscribers and partition counts: partition p of all of
    them goes to the same member, the first one whose rack matches them all."""
    remaining: Dict[int, None] = dict.fromkeys(consumers)
    for p in range(num_partitions):
        match = next(
            (c for c in remaining
             if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)),
            None,
        )
        if match is None:
            continue
        for s in states:
            s.on_assigned(match, [p])
        if all(s.max_assignable(match) == 0 for s in states):
            del remaining[match]
            if not remaining:
                break

"""Kafka's server-side ``UniformAssignor`` (KIP-848, group coordinator).

The broker computes a *target* assignment; a member's ``owned`` partitions are
its current target. Two builders, chosen by subscription type (homogeneous:
every member subscribes to every subscribed topic name, existing or not):

* homogeneous (Kafka 4.1+, KAFKA-18688): ``P // M`` partitions per member and
  ``P % M`` members with one more. Members keep what they hold up to their
  quota (the first ones as Java iterates their own assignment, see
  :func:`_own_iteration_order`); a member already holding the larger quota keeps it while extra slots
  remain, so an already balanced group does not move. Partitions nobody holds,
  then the ones taken from over-quota members, are dealt in order to the
  members still under quota.
* heterogeneous: members keep every partition of topics they still subscribe
  to; the rest are dealt topic by topic (most partitions per subscriber first)
  to the least loaded subscribers; then, topic by topic, partitions move from
  the most to the least loaded subscribers until every topic's subscribers
  differ by at most one, stopping after a full round of topics without a move
  (16 rounds at most).

Orders (Kafka keys topics by ``Uuid``, which we do not have): members in member
id order (as Kafka's tests); topics in name order, or, with the
``topic_ids={name: uuid}`` option, in Kafka's ``Uuid`` order and Java
``HashSet<Uuid>`` order where Kafka uses each. Racks are ignored, as in Kafka.
"""

from __future__ import annotations

import base64
import heapq
from operator import itemgetter
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..context import Context, Outcome
from ...java.util import collection_capacities, collection_capacity, growth_capacity, hash_spread, java_string_hash
from ..model import Group

__all__ = ["assign_uniform", "topic_orders"]

#: Kafka's MAX_ITERATION_COUNT for the heterogeneous balancing rounds.
MAX_BALANCE_ROUNDS = 16
#: Up to this many heap entries and picks in all, the heterogeneous fill runs heaps in Python.
_HEAP_WORK = 8192


def assign_uniform(ctx: Context) -> Outcome:
    g = ctx.group
    uuid_rank, hash_rank, uuid_hashes = topic_orders(g.topic_names, ctx.options.get("topic_ids"), g.topic_known)
    order = np.arange(g.num_partitions, dtype=np.int64)     # no order within a member: sorted
    if g.num_members == 0 or g.num_partitions == 0:
        return Outcome(np.full(g.num_partitions, -1, dtype=np.int64), order)
    held = _held_partitions(ctx)
    if g.subscriptions_complete:               # O(1): the pairs are unique, M x T means all
        return Outcome(_homogeneous(ctx, held, hash_rank, uuid_hashes), order)
    owner = np.full(g.num_partitions, -1, dtype=np.int64)
    _Heterogeneous(ctx, held, uuid_rank, owner).build()
    return Outcome(owner, order)


def topic_orders(names: List[str], topic_ids: Optional[Mapping[str, str]],
                 known: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """Ranks of topics in Kafka's ``Uuid`` order and in ``HashSet<Uuid>`` iteration order, and
    each topic's ``Uuid.hashCode()`` (None without ids).

    Without ids both ranks are name order (our topic indices are Java-sorted names).
    ``known`` marks the topics in the metadata: only they have a ``Uuid`` in Kafka, so only
    they are in its set of subscribed topic ids (and size it); the others need no id and
    rank last.
    """
    n = len(names)
    identity = np.arange(n, dtype=np.int64)
    if not topic_ids:
        return identity, identity, None
    known = np.ones(n, dtype=bool) if known is None else known
    msb, lsb = np.zeros(n, dtype=object), np.zeros(n, dtype=object)
    for i, name in enumerate(names):
        raw = topic_ids.get(name)
        if raw is None and known[i]:
            from ....errors import InvalidInputError
            raise InvalidInputError("topic_ids lacks a subscribed topic", column="topic_ids", rows=[name])
        if raw is None:
            continue
        data = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
        msb[i] = int.from_bytes(data[:8], "big", signed=True)
        lsb[i] = int.from_bytes(data[8:16], "big", signed=True)
    hashes = np.array([_uuid_hash(msb[i], lsb[i]) for i in range(n)], dtype=np.int64)
    by_uuid = sorted(range(n), key=lambda i: (not known[i], msb[i], lsb[i], i))
    # The homogeneous builder iterates a new HashSet<>(the first member's subscribed topic ids).
    # The broker hands those ids as a view of the member's HashSet<String> of names (TopicIds):
    # the view's size counts every name, missing ones too, and it yields the ids of the names
    # that exist in the names' own iteration order, which is then the insertion order, and so
    # the order of two ids in one bucket. The names set was filled in name order (a Java
    # consumer sends its subscription sorted) and has the same capacity.
    capacity = collection_capacity(n)
    mask = capacity - 1
    name_slot = [hash_spread(java_string_hash(name)) & mask for name in names]
    by_hash = sorted(range(n), key=lambda i: (not known[i], hash_spread(int(hashes[i])) & mask, name_slot[i], i))
    uuid_rank, hash_rank = np.empty(n, np.int64), np.empty(n, np.int64)
    uuid_rank[by_uuid] = identity
    hash_rank[by_hash] = identity
    return uuid_rank, hash_rank, hashes


def _uuid_hash(msb: int, lsb: int) -> int:
    """``Uuid.hashCode()``: the two halves of ``msb ^ lsb`` xor-ed (as an unsigned 32-bit int)."""
    x = (msb ^ lsb) & 0xFFFFFFFFFFFFFFFF
    return ((x >> 32) ^ x) & 0xFFFFFFFF


def _held_partitions(ctx: Context) -> np.ndarray:
    """``held[pid]``: the member whose current target holds the partition, or -1.
    Of two members claiming a partition, the newer generation holds it, and
    neither when their generations are equal: the rule of Kafka's client-side
    sticky assignors (:attr:`Context.claims`), applied here too. Kafka's
    server-side assignors never see such a claim: the group coordinator keeps
    one target assignment."""
    owner, _ = ctx.claims
    return owner


# ---------------------------------------------------------------- homogeneous


def _homogeneous(ctx: Context, held: np.ndarray, hash_rank: np.ndarray,
                 uuid_hashes: Optional[np.ndarray]) -> np.ndarray:
    """The owner of every pid. No sort over all partitions: only the members
    holding more than their quota need their partitions ranked."""
    g = ctx.group
    P, M = g.num_partitions, g.num_members
    visit = _visit_order(g, hash_rank)                    # None: pid order

    holders = held >= 0
    anyone_holds = bool(holders.any())
    n_held = np.bincount(held[holders], minlength=M) if anyone_holds else np.zeros(M, dtype=np.int64)
    min_quota, extras = divmod(P, M)
    # KAFKA-18688: members claim the extra slots in order, holders first; once the
    # slots left equal the members left, everyone left takes one.
    has_extra = n_held >= min_quota + 1
    before: np.ndarray = np.cumsum(has_extra) - has_extra
    left = extras - np.minimum(before, extras)
    forced = left >= M - np.arange(M)
    start = int(np.argmax(forced)) if forced.any() else M
    claims_extra = np.where(np.arange(M) < start, has_extra & (before < extras), True)
    if extras == 0:
        claims_extra[:] = False
    quota = min_quota + claims_extra.astype(np.int64)

    if not anyone_holds and visit is None:
        return np.repeat(np.arange(M, dtype=np.int64), quota)    # dealt in pid order

    # Members keep up to quota, first in their own iteration order; the rest is revoked.
    owner = held.copy()
    over = n_held > quota
    if over.any():
        pids = np.flatnonzero(over[np.maximum(held, 0)] & holders)
        members = held[pids]
        o = _own_iteration_order(g, members, pids, hash_rank, uuid_hashes)
        pids, members = pids[o], members[o]                 # grouped by member
        first = np.searchsorted(members, members, side="left")
        keep = (np.arange(len(pids)) - first) < quota[members]
        revoked = pids[~keep]                                # (member, own iteration) order
        owner[revoked] = -1
    else:
        revoked = np.zeros(0, dtype=np.int64)

    # Partitions nobody holds (visiting order), then the revoked ones, are dealt
    # in member order to fill each member's quota: sum(need) == P - kept == their number.
    never_held = np.flatnonzero(~holders) if visit is None else visit[~holders[visit]]
    need = quota - np.minimum(n_held, quota)
    receivers = np.repeat(np.arange(M, dtype=np.int64), need)
    owner[never_held] = receivers[:len(never_held)]
    owner[revoked] = receivers[len(never_held):]
    return owner


def _visit_order(g: Group, hash_rank: np.ndarray) -> Optional[np.ndarray]:
    """Pids in the homogeneous builder's visiting order: topics by ``hash_rank``,
    then partition number; None when that is pid order (topics ranked by index)."""
    T = g.num_topics
    if np.array_equal(hash_rank, np.arange(T)):
        return None
    by_rank = np.empty(T, dtype=np.int64)
    by_rank[hash_rank] = np.arange(T, dtype=np.int64)
    counts = g.topic_counts[by_rank]
    # Visiting position i of topic t (taken in rank order) is pid offsets[t] + (i - first position of t).
    shift = g.topic_offsets[by_rank] - (np.cumsum(counts) - counts)
    return np.repeat(shift, counts) + np.arange(g.num_partitions, dtype=np.int64)


def _own_iteration_order(g: Group, members: np.ndarray, pids: np.ndarray, hash_rank: np.ndarray,
                         uuid_hashes: Optional[np.ndarray]) -> np.ndarray:
    """An order of ``pids`` (each held by ``members[i]``): by member, then as Kafka walks that
    member's own assignment, a ``Map<Uuid, Set<Integer>>``, when it keeps the first ``quota``.

    * Topics: the member's map is a ``HashMap`` grown by ``put`` over every topic it holds,
      subscribed or not (ties in a bucket by ``hash_rank``); without topic ids, name order.
    * Partitions: each topic's set is a ``new HashSet<>(partitions)``, so partitions iterate
      by ``p & (capacity - 1)``, then ascending (the insertion order), where the capacity is
      the power of two at least ``max(16, (int) (n / 0.75f) + 1)`` for the member's ``n``
      partitions of the topic. Ascending only while partition numbers stay below it.
    """
    topic = g.pid_topic()[pids]
    part = g.pid_partition()[pids]
    T = max(g.num_topics, 1)
    pair = members * T + topic
    pairs, pair_of, per_pair = np.unique(pair, return_inverse=True, return_counts=True)
    capacity = collection_capacities(per_pair[pair_of])
    bucket = part & (capacity - 1)
    if uuid_hashes is None:
        topic_key = topic
    else:
        # Topics per member: the map's capacity grows by put (16, doubling past 3/4 full), and
        # the map holds the topics of its claims outside the universe too (unsubscribed ones).
        topics_of = np.bincount(pairs // T, minlength=g.num_members)
        held_names = {(m, g.topic_names[t]) for m, t in zip((pairs // T).tolist(), (pairs % T).tolist())}
        for m, _ in {(m, name) for m, name, _ in g.outside_claims} - held_names:
            topics_of[m] += 1
        map_capacity = np.asarray([growth_capacity(int(k)) for k in topics_of], dtype=np.int64)
        spread = np.asarray([hash_spread(int(h)) for h in uuid_hashes], dtype=np.int64)
        topic_key = (spread[topic] & (map_capacity[members] - 1)) * T + hash_rank[topic]
    return np.lexsort((part, bucket, topic_key, members))


# ---------------------------------------------------------------- heterogeneous


class _Heterogeneous:
    """The heterogeneous builder; sizes are totals over all topics and change live."""

    def __init__(self, ctx: Context, held: np.ndarray, uuid_rank: np.ndarray, owner: np.ndarray) -> None:
        g = ctx.group
        self.g, self.owner = g, owner
        self.subscribers, self.bounds = g.subscribers_by_topic()
        topic = g.pid_topic()
        subscribed = np.zeros(len(held), dtype=bool)
        holders = np.flatnonzero(held >= 0)
        subscribed[holders] = g.is_subscribed(held[holders], topic[holders])
        owner[subscribed] = held[subscribed]          # revoke partitions of unsubscribed topics
        self.size = np.bincount(owner[owner >= 0], minlength=g.num_members).astype(np.int64)
        n_subs = np.diff(self.bounds)
        counts = g.topic_counts
        self.topics = np.flatnonzero((counts > 0) & (n_subs > 0))
        per_subscriber = counts[self.topics] / n_subs[self.topics]
        # Most partitions per subscriber first, then fewer subscribers, then topic id.
        self.topics = self.topics[np.lexsort((uuid_rank[self.topics], n_subs[self.topics], -per_subscriber))]

    def subscribers_of(self, t: int) -> np.ndarray:
        return self.subscribers[self.bounds[t]:self.bounds[t + 1]]

    def by_load(self, members: np.ndarray) -> np.ndarray:
        return members[np.lexsort((members, self.size[members]))]

    def build(self) -> None:
        self.fill_unassigned()
        self.balance()

    def fill_unassigned(self) -> None:
        from .sticky.general import water_fill

        g = self.g
        free = np.flatnonzero(self.owner < 0)
        with_free = np.unique(g.pid_topic()[free])
        if len(free) + int(np.diff(self.bounds)[with_free].sum()) <= _HEAP_WORK:
            self._fill_with_heaps(free)
            return
        for t in self.topics.tolist():
            lo, hi = int(g.topic_offsets[t]), int(g.topic_offsets[t + 1])
            free = lo + np.flatnonzero(self.owner[lo:hi] < 0)
            if len(free) == 0:
                continue
            members = self.by_load(self.subscribers_of(t))
            # Least loaded first, dealt round-robin over the least loaded block.
            picks = members[water_fill(self.size[members], len(free))]
            self.owner[free] = picks
            self.size += np.bincount(picks, minlength=len(self.size))

    def _fill_with_heaps(self, free: np.ndarray) -> None:
        """:meth:`fill_unassigned` for a few thousand partitions, in Python: per topic, its
        subscribers sorted by load (then id) form a heap of (load, position), so the least
        loaded takes each partition, ties to the earlier position, as :func:`water_fill` deals.

        Each pair is packed into one int that compares as the pair does, and faster: a member's
        ``key`` is ``load * M + id``; in a topic's heap of n, ``load * n + position``."""
        if len(free) == 0:
            return
        g = self.g
        M = len(self.size)
        key = (self.size * M + np.arange(M)).tolist()
        listed, offsets = self.subscribers.tolist(), self.bounds.tolist()
        bounds = np.searchsorted(g.pid_topic()[free], np.arange(g.num_topics + 1)).tolist()
        pids: list = []
        picks: list = []
        for t in self.topics.tolist():                 # every one has a subscriber
            lo, hi = bounds[t], bounds[t + 1]
            if lo == hi:
                continue
            k = hi - lo
            mine = listed[offsets[t]:offsets[t + 1]]
            ranked = sorted(itemgetter(*mine)(key)) if len(mine) > 1 else [key[mine[0]]]
            if k <= len(ranked) and ranked[k - 1] // M == ranked[0] // M:
                # The k least loaded share one load: each takes one partition, in order (any
                # heap entry a pick puts back is at a higher load).
                for least in ranked[:k]:
                    picks.append(least % M)
                    key[least % M] = least + M
            else:
                n = len(ranked)
                members = [least % M for least in ranked]
                heap = [least // M * n + i for i, least in enumerate(ranked)]   # sorted, so a heap
                for _ in range(k):
                    least = heap[0]
                    m = members[least % n]
                    picks.append(m)
                    key[m] += M
                    heapq.heapreplace(heap, least + n)
            pids.extend(free[lo:hi].tolist())
        self.owner[pids] = picks
        self.size = np.array(key, dtype=np.int64) // M

    def balance(self) -> bool:
        """Kafka's balancing rounds; True when they ended by themselves (a full round of topics
        without a move), False at the round cap (:data:`MAX_BALANCE_ROUNDS`)."""
        topics = self.topics[np.diff(self.bounds)[self.topics] >= 2]
        if len(topics) == 0:
            return True
        # Each topic's subscribers as a range of self.subscribers, [start, end) interleaved for
        # reduceat; its load spread is recomputed only after a topic moved something.
        ranges = np.stack((self.bounds[topics], self.bounds[topics + 1]), axis=1).ravel()
        spread = self._spreads(ranges)
        last = -1
        listed = topics.tolist()
        for _ in range(MAX_BALANCE_ROUNDS):
            for k, t in enumerate(listed):
                if k == last:
                    return True
                moved = self.balance_topic(t) if spread[k] > 1 else 0
                if moved:
                    spread = self._spreads(ranges)
                if moved > 0 or last == -1:
                    last = k
        return False

    def _spreads(self, ranges: np.ndarray) -> List[int]:
        """Per range pair of :meth:`balance`, the most minus the fewest partitions of its
        subscribers (the ranges between the pairs are ignored; one entry past the end keeps
        the last range's end a valid index)."""
        loads = self.size[self.subscribers]
        loads = np.concatenate((loads, loads[:1]))
        return (np.maximum.reduceat(loads, ranges)[::2] - np.minimum.reduceat(loads, ranges)[::2]).tolist()

    def balance_topic(self, t: int) -> int:
        g = self.g
        subscribers = self.subscribers_of(t)
        loads = self.size[subscribers]
        if loads.max() - loads.min() <= 1:        # most topics, most rounds: nothing to move
            return 0
        members = self.by_load(subscribers)
        walk = _LoadWalk(members, self.size)
        lo, hi = int(g.topic_offsets[t]), int(g.topic_offsets[t + 1])
        owners = self.owner[lo:hi]
        # The topic's partitions grouped by holder; each holder gives from the top of its slice.
        sorted_parts = owners.argsort(kind="stable")
        held = owners[sorted_parts].tolist()
        starts: Dict[int, int] = {}
        for i, m in enumerate(held):            # each holder's first position; ends: the next one's
            starts.setdefault(m, i)
        bounds = list(starts.values()) + [len(held)]
        ends = dict(zip(starts, bounds[1:]))
        moved = 0
        while not walk.balanced():
            giver = walk.next_most()
            while giver != -1 and ends.get(giver, 0) - starts.get(giver, 0) <= 0:
                walk.exclude_most()
                giver = walk.next_most()
            if giver == -1:
                break
            ends[giver] -= 1
            pid = lo + int(sorted_parts[ends[giver]])
            taker = walk.next_least()
            if walk.balanced():
                break
            self.owner[pid] = taker
            self.size[giver] -= 1
            self.size[taker] += 1
            moved += 1
        return moved


class _LoadWalk:
    """Kafka's ``MemberAssignmentBalancer``: walks a topic's subscribers, sorted by
    load, from both ends. The least loaded are served round-robin over a block
    that grows as its level rises; the most loaded give, round-robin from the top,
    over a block that grows as its level falls. Members with nothing left to give
    are excluded. Balanced once the two levels are within one."""

    def __init__(self, members: np.ndarray, size: np.ndarray) -> None:
        self.members = members.tolist()
        self.size = size
        n = len(self.members)
        self.least_end, self.least_level, self.next_least_at = 0, int(size[self.members[0]]) - 1, 0
        self.most_start = self.most_end = n
        self.most_level = int(size[self.members[-1]]) + 1
        self.next_most_at = n - 1

    def next_least(self) -> int:
        m, size = self.members, self.size
        if self.next_least_at >= self.least_end:
            self.least_level += 1
            while self.least_end < len(m) and size[m[self.least_end]] == self.least_level:
                self.least_end += 1
            self.next_least_at = 0
        member = m[self.next_least_at]
        self.next_least_at += 1
        return member

    def next_most(self) -> int:
        m, size = self.members, self.size
        if self.next_most_at < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_level = int(size[m[self.most_start - 1]])
            else:
                self.most_level -= 1
            while self.most_start > 0 and size[m[self.most_start - 1]] == self.most_level:
                self.most_start -= 1
            self.next_most_at = self.most_end - 1
        if self.next_most_at < 0:
            return -1
        member = m[self.next_most_at]
        self.next_most_at -= 1
        return member

    def exclude_most(self) -> None:
        i, j = self.next_most_at + 1, self.most_end - 1
        self.members[i], self.members[j] = self.members[j], self.members[i]
        self.most_end -= 1

    def balanced(self) -> bool:
        return self.most_level - self.least_level <= 1

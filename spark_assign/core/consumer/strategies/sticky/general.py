"""The sticky assignor for differing subscriptions (Kafka's ``GeneralAssignmentBuilder``, KIP-54).

Stages:

1. ``keep_owned``: members keep the partitions they validly claim, except those
   of topics they no longer subscribe to or (rack-aware) not on their rack;
   dropping any of them means a revocation is required.
2. ``assign_unassigned``: visiting the rest topic by topic (topics with fewer
   potential members first, then by name), each partition goes to the member
   with the fewest partitions among those subscribed to its topic, ties to the
   smaller member id. Rack-aware: a first pass only considers members on a
   replica rack (members without a rack match anything).
3. ``rebalance``: while the assignment is not balanced, scan the partitions
   (first the ones just assigned, unless a revocation is required, then all),
   and move a partition when its owner has 2+ more partitions than its
   previous-generation owner (move it back) or than the least loaded member
   subscribed to its topic (move it there). A move that would undo an earlier
   move of the same topic between the same two members undoes that one
   instead (Kafka's ``PartitionMovements``, which keeps the result sticky).

Balanced means: no partition can move to a member subscribed to its topic that
has 2+ fewer partitions. Equivalently, per topic, the most loaded holder of one
of its partitions has at most one more than the least loaded subscriber.
A move from a member to one with 2+ fewer strictly lowers Kafka's balance score
(the sum of pairwise count differences), and Kafka's "revert if not better"
never fires. But the undo rule can pick a partition that a third member holds
now (it moved on since), and then the score need not fall: with the move-back guard below
(where Kafka throws), the loop can go on without end (the property tests found a
group; a copy of Kafka's own code that skips only the throwing move loops the
same way). Guard (deviation 9 of docs/kafka-fidelity.md): after more such moves
than the group has partitions and members, the partition itself moves instead
(``_reassign``).

Stage 2 is vectorized per topic (least-loaded filling is water-filling);
stage 3 moves one partition at a time and rescans with NumPy between moves.
Small groups take Python paths for both (NumPy's cost per call would dominate),
with the same results: see ``_HEAP_WORK`` and ``_LIST_WORK``.

Kafka moves a partition back to its previous-generation owner even when that
member no longer subscribes to the topic, and may move it on to a subscriber
later in the same rebalance: we do the same (``_rebalance_as_kafka``). Guard
(deviation): where the member would keep it to the end (an invalid result), or
cannot take part in the rebalance at all (a crash in Kafka), we skip the
move-back rule for it.
"""

from __future__ import annotations

import heapq
from operator import indexOf, itemgetter
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

from ...context import Context
from ....java.util import java_string_hash, topic_partition_hash
from ...keys import run_positions
from .movements import PartitionMovements
from ...racks import StickyRacks

__all__ = ["build_general", "water_fill"]

_SCAN_CHUNK = 4096
#: Up to this many picks, :func:`water_fill` pops a heap (Python) rather than doing array passes.
_HEAP_FILL = 48
#: Up to this many heap entries and picks in all, unassigned partitions are placed with a heap per
#: topic in Python (:meth:`_GeneralBuilder._least_loaded_picks`).
_HEAP_WORK = 8192
#: Up to this many partitions plus subscriptions, stage 3 runs on Python lists (:class:`_ListRebalance`).
_LIST_WORK = 4096
#: A scan of :class:`_ListRebalance` looks at this many partitions one by one, then at the rest with NumPy.
_SCAN_BUDGET = 16

_Ints = Union[np.ndarray, List[int]]


def build_general(ctx: Context, racks: StickyRacks) -> Tuple[np.ndarray, np.ndarray, None]:
    """Returns ``(owner, order, None)``: the cooperative adjustment is computed from the result."""
    builder = _GeneralBuilder(ctx, racks)
    builder.keep_owned()
    builder.assign_unassigned()
    builder.rebalance()
    return builder.owner, builder.order, None


class _GeneralBuilder:
    def __init__(self, ctx: Context, racks: StickyRacks) -> None:
        g = ctx.group
        self.ctx, self.g, self.racks = ctx, g, racks
        P, M = g.num_partitions, g.num_members
        self.pid_topic = g.pid_topic()
        self.owner = np.full(P, -1, dtype=np.int64)
        self.order = np.zeros(P, dtype=np.int64)
        self.counts = np.zeros(M, dtype=np.int64)
        self.step = P

        # Potential members of each topic: its subscribers (topics without partitions have none).
        with_parts = g.topic_counts > 0
        self.eligible, self.eligible_bounds = g.subscribers_by_topic()   # by member index
        bounds = self.eligible_bounds
        self.num_eligible = (bounds[1:] - bounds[:-1]) * with_parts
        # Kafka's sortedAllPartitions: topics by (potential members, name), partitions ascending.
        if P <= _HEAP_WORK:     # few pids: one stable sort of them (in name order) beats the ranges
            self.sorted_all = self.num_eligible[self.pid_topic].argsort(kind="stable")
        else:
            topics = np.flatnonzero(with_parts)
            topics = topics[np.lexsort((topics, self.num_eligible[topics]))]
            self.sorted_all = _pid_ranges(g.topic_offsets, topics)
        self.revocation_required = False
        self.unassigned = np.zeros(0, dtype=np.int64)
        self.topic_hash: Dict[int, int] = {}        # String.hashCode() of the topics that moved
        self.movements = PartitionMovements()
        self.foreign_undos = 0          # undo moves of a partition its mover does not hold (see _reassign)

    # ------------------------------------------------------------------ stage 1

    def keep_owned(self) -> None:
        g = self.g
        cm, cp = g.claim_member, g.claim_pid
        if len(cp) == 0:                # nothing claimed: nothing kept, every partition unassigned
            self.unassigned = self.sorted_all
            return
        if g.claims_overlap:            # else every claim stands (each pid has one claimant)
            claim_owner, _ = self.ctx.claims
            valid = claim_owner[cp] == cm
            if not valid.all():
                cm, cp = cm[valid], cp[valid]
        keep = g.is_subscribed(cm, self.pid_topic[cp])
        if self.racks.active:
            keep &= ~np.array([self.racks.mismatch(int(m), int(p)) for m, p in zip(cm, cp)], dtype=bool)
        self.revocation_required = not bool(keep.all())
        if self.revocation_required:
            cm, cp = cm[keep], cp[keep]
        self.owner[cp] = cm
        self.order[cp] = cp           # kept partitions first, in partition order (pid < P)
        self.counts = np.bincount(cm, minlength=g.num_members).astype(np.int64, copy=False)
        self.unassigned = self.sorted_all[self.owner[self.sorted_all] < 0]

    # ------------------------------------------------------------------ stage 2

    def _give(self, pids: np.ndarray, members: np.ndarray) -> None:
        self.owner[pids] = members
        self.order[pids] = self.step + np.arange(len(pids))
        self.step += len(pids)
        self.counts += np.bincount(members, minlength=len(self.counts))

    def assign_unassigned(self) -> None:
        rest = self.unassigned
        if self.racks.active:
            rest = self._assign_on_racks(rest)
        if len(rest) == 0:
            return
        topics = self.pid_topic[rest]
        bounds: np.ndarray = (topics[1:] != topics[:-1]).nonzero()[0] + 1
        # Heap work: the picks plus the subscribers of their topics (each topic is one run),
        # at most all subscriptions.
        if len(rest) + len(self.eligible) <= _HEAP_WORK or \
                len(rest) + int(self.num_eligible[topics[np.concatenate([[0], bounds])]].sum()) <= _HEAP_WORK:
            self._give(rest, self._least_loaded_picks(topics, bounds))
            return
        # Least-loaded filling has no memory beyond the counts, so consecutive topics
        # with the same subscribers are filled in one go.
        start, eligible = 0, None
        for stop in list(bounds) + [len(rest)]:
            t = int(topics[start])
            mine = self.eligible[self.eligible_bounds[t]:self.eligible_bounds[t + 1]]
            if eligible is None:
                eligible, run_start = mine, start
            elif not np.array_equal(mine, eligible):
                self._fill(rest[run_start:start], eligible)
                eligible, run_start = mine, start
            start = stop
        if eligible is not None:
            self._fill(rest[run_start:], eligible)

    def _least_loaded_picks(self, topics: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        """The member each of the unassigned partitions goes to (their topics given, in runs
        starting at ``bounds``): the least loaded subscriber of its topic, ties to the smaller
        index. In Python, for a few thousand partitions, where it beats the array passes of
        :func:`water_fill`, whose fixed cost is paid per topic.

        A member's key is ``count * M + index``: one int, which compares as the pair (count,
        index) does, and faster. Each pick takes the least key and puts back key + M. So the
        picks of a run of k partitions are the k least keys of the multiset {key + j * M};
        when the k least subscriber keys are all below the least one + M, those are they."""
        M = len(self.counts)
        key = (self.counts * M + np.arange(M)).tolist()          # per member, its current key
        offsets = self.eligible_bounds.tolist()
        picks: list = []
        starts = [0] + bounds.tolist()
        stops = starts[1:] + [len(topics)]
        run_topics = topics[starts].tolist()
        if len(self.eligible) <= _HEAP_WORK:      # one conversion, then a list slice per run
            listed = self.eligible.tolist()
            subscribers = [listed[offsets[t]:offsets[t + 1]] for t in run_topics]
        else:                                     # many subscriptions: convert only the runs' own
            subscribers = [self.eligible[offsets[t]:offsets[t + 1]].tolist() for t in run_topics]
        for start, stop, mine in zip(starts, stops, subscribers):
            k = stop - start
            if len(mine) == 1:
                least = key[mine[0]]
                picks.extend([mine[0]] * k)
                key[mine[0]] = least + k * M
                continue
            if k == 1:
                least = min(itemgetter(*mine)(key))
                picks.append(least % M)
                key[least % M] = least + M
                continue
            heap = sorted(itemgetter(*mine)(key))                 # a sorted list is a heap
            if k <= len(heap) and heap[k - 1] < heap[0] + M:
                for least in heap[:k]:
                    picks.append(least % M)
                    key[least % M] = least + M
                continue
            for _ in range(k):
                least = heap[0]
                m = least % M
                picks.append(m)
                key[m] = least + M
                heapq.heapreplace(heap, least + M)
        return np.array(picks, dtype=np.int64)

    def _fill(self, pids: np.ndarray, eligible: np.ndarray) -> None:
        self._give(pids, eligible[water_fill(self.counts[eligible], len(pids))])

    def _assign_on_racks(self, pids: np.ndarray) -> np.ndarray:
        left = []
        for pid in pids.tolist():
            t = int(self.pid_topic[pid])
            eligible = self.eligible[self.eligible_bounds[t]:self.eligible_bounds[t + 1]].tolist()
            candidates = [m for m in eligible if not self.racks.mismatch(m, pid)]
            if not candidates:
                left.append(pid)
                continue
            member = min(candidates, key=lambda m: (self.counts[m], m))
            self._give(np.array([pid]), np.array([member]))
        return np.asarray(left, dtype=np.int64)

    # ------------------------------------------------------------------ stage 3

    def rebalance(self) -> None:
        g = self.g
        reassignable_topic = self.num_eligible >= 2
        # Members that can neither gain nor lose a partition sit out (Kafka: they hold all the
        # partitions they could and none another member could take). After stages 1-2 these are
        # exactly the members subscribed to no reassignable topic: every partition of a topic
        # with one potential member is that member's, and a member of a reassignable topic
        # either holds one of its partitions or has room for one.
        self.taking_part = np.bincount(g.sub_member[reassignable_topic[g.sub_topic]], minlength=g.num_members) > 0
        self.active = self.taking_part.nonzero()[0]
        self.r_topics = reassignable_topic.nonzero()[0]
        loads = self.counts[self.active]
        if len(loads) == 0 or loads.max() - loads.min() <= 1:
            return                  # nothing is movable (see _ListRebalance): every pass stops at once
        self.prev_member, unsubscribed = self._previous_generation_owner()
        movable = reassignable_topic[self.pid_topic]
        passes = [] if self.revocation_required else [self.unassigned[movable[self.unassigned]]]
        passes.append(self.sorted_all[movable[self.sorted_all]])
        if unsubscribed:
            if self._rebalance_as_kafka(passes, unsubscribed):
                return
            self.prev_member[list(unsubscribed)] = -1          # the guard (module docstring)
        if g.num_partitions + len(self.eligible) <= _LIST_WORK:
            _ListRebalance(self).run(passes)
            return
        if len(self.r_topics) == g.num_topics:          # every topic: the ranges are the whole arrays
            self.r_pids = np.arange(g.num_partitions)
            self.r_pid_starts = g.topic_offsets[:-1]
            self.r_eligible, self.r_eligible_starts = self.eligible, self.eligible_bounds[:-1]
        else:
            self.r_pids = _pid_ranges(g.topic_offsets, self.r_topics)
            self.r_pid_starts = np.concatenate([[0], np.cumsum(g.topic_counts[self.r_topics])[:-1]])
            sizes = self.num_eligible[self.r_topics]
            self.r_eligible = _pid_ranges(self.eligible_bounds, self.r_topics, self.eligible)
            self.r_eligible_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        for pids in passes:
            self._perform(pids)

    def _previous_generation_owner(self) -> Tuple[np.ndarray, Dict[int, int]]:
        """Kafka's ``prevAssignment``: per partition, the newest claim of a member whose
        generation is older than the group's newest; ties to the first in the leader's order.
        Also returns, apart, ``{pid: member}`` where that member no longer subscribes to the
        partition's topic (see :meth:`_rebalance_as_kafka`)."""
        g = self.g
        prev = np.full(g.num_partitions, -1, dtype=np.int64)
        newest = self.ctx.max_generation
        cm, cp = g.claim_member, g.claim_pid
        stale = g.generation[cm] < newest
        cm, cp = cm[stale], cp[stale]
        if len(cp) == 0:
            return prev, {}
        walk_pos = np.empty(g.num_members, dtype=np.int64)
        walk_pos[self.ctx.hashmap_member_order] = np.arange(g.num_members)
        o = np.lexsort((walk_pos[cm], -g.generation[cm], cp))
        cm, cp = cm[o], cp[o]
        first = np.concatenate([[True], cp[1:] != cp[:-1]])
        prev[cp[first]] = cm[first]
        # Guard: only members that take part (Kafka: a NullPointerException otherwise).
        idx = np.flatnonzero(prev >= 0)
        members = prev[idx]
        prev[idx[~self.taking_part[members]]] = -1
        unsubscribed = ~g.is_subscribed(members, self.pid_topic[idx]) & self.taking_part[members]
        return prev, dict(zip(idx[unsubscribed].tolist(), members[unsubscribed].tolist()))

    def _rebalance_as_kafka(self, passes: List[np.ndarray], unsubscribed: Dict[int, int]) -> bool:
        """Stage 3 exactly as Kafka runs it when some partition's previous-generation owner no
        longer subscribes to its topic: Kafka moves the partition back to that member all the
        same when it has 2+ fewer partitions, and may move it on to a subscriber later in the
        same rebalance. Where it does, the result is valid and Kafka's: kept, True. Where the
        member keeps it to the end (an invalid assignment), the state before is restored and
        False returned, for the guarded rebalance (deliberate difference 2 of
        docs/kafka-fidelity.md). Rare by construction (a stale claim on a topic the claimant
        dropped), so it runs on lists whatever the group's size."""
        before = (self.owner.copy(), self.counts.copy(), self.order.copy(), self.step)
        _ListRebalance(self, unsubscribed).run(passes)
        held = np.flatnonzero(self.owner >= 0)
        if self.g.is_subscribed(self.owner[held], self.pid_topic[held]).all():
            return True
        self.owner, self.counts, self.order, self.step = before
        self.movements = PartitionMovements()
        return False

    def _min_eligible(self) -> np.ndarray:
        """Per topic (length T), the fewest partitions of a member subscribed to it."""
        out = np.full(self.g.num_topics, np.iinfo(np.int64).max // 2, dtype=np.int64)
        out[self.r_topics] = np.minimum.reduceat(self.counts[self.r_eligible], self.r_eligible_starts)
        return out

    def _is_balanced(self, min_eligible: np.ndarray) -> bool:
        active = self.counts[self.active]
        if len(active) == 0 or active.max() - active.min() <= 1:
            return True
        holder_max = np.maximum.reduceat(self.counts[self.owner[self.r_pids]], self.r_pid_starts)
        return bool((holder_max <= min_eligible[self.r_topics] + 1).all())

    def _perform(self, pids: np.ndarray) -> None:
        """Kafka's ``performReassignments`` over ``pids``, repeated while it moves something."""
        topics = self.pid_topic[pids]
        while True:
            moved = False
            i = 0
            min_eligible = self._min_eligible()
            while i < len(pids) and not self._is_balanced(min_eligible):
                hit = self._next_movable(pids, topics, i, min_eligible)
                if hit < 0:
                    break
                pid = int(pids[hit])
                back = int(self.prev_member[pid])
                if back >= 0 and self.counts[self.owner[pid]] > self.counts[back] + 1:
                    self._reassign(pid, back, self.owner, self.counts)
                else:
                    self._reassign(pid, self._least_loaded(int(self.pid_topic[pid])), self.owner, self.counts)
                moved = True
                i = hit + 1
                min_eligible = self._min_eligible()
            if not moved:
                return

    def _next_movable(self, pids: np.ndarray, topics: np.ndarray, start: int, min_eligible: np.ndarray) -> int:
        """First index >= start whose partition Kafka would move now, or -1: its owner has 2+
        more partitions than the least loaded member of its topic. (Kafka's other reason, 2+ more
        than its previous-generation owner, is implied: here that owner subscribes to the topic,
        see :meth:`rebalance`, so it has no fewer than the least loaded.)"""
        chunk = _SCAN_CHUNK
        n = len(pids)
        while start < n:
            stop = min(start + chunk, n)
            load = self.counts[self.owner[pids[start:stop]]]
            found = np.flatnonzero(load > min_eligible[topics[start:stop]] + 1)
            if len(found):
                return start + int(found[0])
            start = stop
            chunk *= 4
        return -1

    def _least_loaded(self, topic: int) -> int:
        eligible = self.eligible[self.eligible_bounds[topic]:self.eligible_bounds[topic + 1]]
        return int(eligible[np.argmin(self.counts[eligible])])

    def _reassign(self, pid: int, new_owner: int, owner: _Ints, counts: _Ints) -> int:
        """Moves ``pid`` (or the partition that undoes an earlier move, see
        :class:`PartitionMovements`) to ``new_owner`` in ``owner`` and ``counts`` (the
        builder's arrays, or :class:`_ListRebalance`'s lists); returns the old owner."""
        actual = self.movements.partition_to_move(pid, int(owner[pid]), new_owner, int(self.pid_topic[pid]))
        if actual != pid and owner[actual] != owner[pid]:
            # The undo picked a partition a third member holds: the score may not fall (module
            # docstring). Past the limit, Kafka's loop is taken to be endless: move pid itself.
            self.foreign_undos += 1
            if self.foreign_undos > self.g.num_partitions + self.g.num_members:
                actual = pid
        old = int(owner[actual])
        topic = int(self.pid_topic[actual])
        partition = actual - int(self.g.topic_offsets[topic])
        topic_hash = self.topic_hash.get(topic)
        if topic_hash is None:
            topic_hash = self.topic_hash[topic] = java_string_hash(self.g.topic_names[topic])
        self.movements.move(actual, old, new_owner, topic, topic_partition_hash(topic_hash, partition))
        owner[actual] = new_owner
        self.order[actual] = self.step
        self.step += 1
        counts[old] -= 1
        counts[new_owner] += 1
        return old


class _ListRebalance:
    """Stage 3 on Python lists, for groups small enough that NumPy's cost per call (a few
    microseconds, paid several times per move) outweighs the work: the same moves in the same
    order as :meth:`_GeneralBuilder._perform` (tests/core/consumer/test_sticky_paths.py compares them).

    "Balanced" needs no scan of its own: a group is balanced exactly when no partition is
    movable (its owner holds 2+ more than its topic's least loaded subscriber), so the scan for
    the next movable partition decides it. The one shortcut: when all members that take part
    are within one partition of each other, nothing is movable (members that sit out hold no
    partition of a reassignable topic and subscribe to none).

    With ``unsubscribed`` (pid -> a previous-generation owner that no longer subscribes to its
    topic, :meth:`_GeneralBuilder._rebalance_as_kafka`) a partition is also movable when that
    member holds 2+ fewer than its owner, a move Kafka makes only while the group is unbalanced
    in its own terms (:meth:`kafka_balanced`); scans then run to the end, on lists.

    Invariants between moves: ``least[t]`` is the fewest partitions of a subscriber of
    reassignable topic ``t``, or None (counted when next read; a move resets them all);
    ``levels`` maps a count to how many members taking part have it. ``owner`` and ``counts``
    are list copies of the builder's arrays, written back when it ends.
    """

    def __init__(self, builder: "_GeneralBuilder", unsubscribed: Optional[Dict[int, int]] = None) -> None:
        b = self.b = builder
        self.unsubscribed = unsubscribed or {}
        self.least: List[Optional[int]] = [None] * b.g.num_topics
        levels = np.bincount(b.counts[b.active])
        self.levels = dict(zip(np.flatnonzero(levels).tolist(), levels[levels > 0].tolist()))
        self.subscribers: Dict[int, List[int]] = {}     # topic -> its subscribers, on demand
        self.rounds = 0                                 # rounds of performReassignments begun
        self.owner: List[int] = b.owner.tolist()
        self.counts: List[int] = b.counts.tolist()

    def run(self, passes: List[np.ndarray]) -> None:
        b = self.b
        try:
            for pids in passes:
                topics = b.pid_topic[pids]
                self._perform(pids.tolist(), topics.tolist(), (pids, topics))
        finally:
            b.owner, b.counts = np.array(self.owner, dtype=np.int64), np.array(self.counts, dtype=np.int64)

    def _perform(self, pids: List[int], topics: List[int], arrays: Tuple[np.ndarray, np.ndarray]) -> None:
        """Kafka's ``performReassignments`` over ``pids`` (also given as ``arrays`` with their
        topics), repeated while it moves something."""
        b, prev, levels, owner, counts = self.b, self.b.prev_member, self.levels, self.owner, self.counts
        while True:
            moved = False
            i = 0
            while i < len(pids) and max(levels) - min(levels) > 1:
                if i == 0 and self.rounds and not self.unsubscribed:   # a later round mostly finds nothing
                    hit = self._next_movable_arrays(*arrays, 0)
                else:
                    hit = self._next_movable(pids, topics, i)
                    if hit < 0 and i + _SCAN_BUDGET < len(pids) and not self.unsubscribed:
                        hit = self._next_movable_arrays(*arrays, i + _SCAN_BUDGET)
                if hit < 0:
                    break
                pid = pids[hit]
                back = int(prev[pid])
                if back >= 0 and counts[owner[pid]] > counts[back] + 1:
                    new = back
                else:
                    new = self._least_loaded(topics[hit])
                old = b._reassign(pid, new, owner, counts)
                for was, now in ((counts[old] + 1, counts[old]), (counts[new] - 1, counts[new])):
                    levels[was] -= 1
                    if levels[was] == 0:
                        del levels[was]
                    levels[now] = levels.get(now, 0) + 1
                self.least = [None] * len(self.least)
                moved = True
                i = hit + 1
            self.rounds += 1
            if not moved:
                return

    def _next_movable(self, pids: List[int], topics: List[int], start: int) -> int:
        """The first index in ``start .. start + _SCAN_BUDGET - 1`` whose partition's owner holds
        2+ more than the least loaded subscriber of its topic; -1 if none (moves come in clusters:
        most scans end early, and a longer one goes on with :meth:`_next_movable_arrays`). With
        ``unsubscribed``, to the end, and Kafka's move back to such a member counts too."""
        counts, owner, least, unsubscribed = self.counts, self.owner, self.least, self.unsubscribed
        for i in range(start, len(pids) if unsubscribed else min(start + _SCAN_BUDGET, len(pids))):
            fewest = least[topics[i]]
            if fewest is None:
                fewest = self._least(topics[i])
            load = counts[owner[pids[i]]]
            if load > fewest + 1:
                return i
            back = unsubscribed.get(pids[i])
            if back is not None and load > counts[back] + 1:
                # Kafka's loop checks its own balance before each partition; a move to a
                # subscriber implies it is off, this one does not.
                return -1 if self.kafka_balanced() else i
        return -1

    def kafka_balanced(self) -> bool:
        """Kafka's ``isBalanced``: the members taking part are within one partition of each
        other, or no member short of all its topics' partitions holds fewer than the owner of
        a partition of one of its topics, i.e. than the most loaded holder of that topic.
        (Stricter than "nothing is movable", which is all the scans need otherwise: with
        subscribed previous owners every move Kafka makes implies it is unbalanced.) One NumPy
        pass over the partitions and the subscriptions."""
        levels = self.levels
        if max(levels) - min(levels) <= 1:
            return True
        g = self.b.g
        counts = np.array(self.counts, dtype=np.int64)
        load = counts[np.array(self.owner, dtype=np.int64)]       # every partition of a subscribed topic has one
        with_parts = g.topic_counts > 0
        holder_max = np.zeros(g.num_topics, dtype=np.int64)
        holder_max[with_parts] = np.maximum.reduceat(load, g.topic_offsets[:-1][with_parts])
        could_hold = np.bincount(g.sub_member, weights=g.topic_counts[g.sub_topic], minlength=g.num_members)
        short = self.b.taking_part & (counts < could_hold)
        m, t = g.sub_member, g.sub_topic
        pick = short[m] & with_parts[t]
        return not bool((counts[m[pick]] < holder_max[t[pick]]).any())

    def _next_movable_arrays(self, pids: np.ndarray, topics: np.ndarray, start: int) -> int:
        """:meth:`_next_movable` from ``start`` to the end, with NumPy over copies of the lists
        (the least counts of all topics computed on the way are kept)."""
        b = self.b
        counts = np.array(self.counts, dtype=np.int64)
        # A sentinel past the end keeps reduceat's empty ranges harmless (those topics have no pids).
        per_sub = np.append(counts[b.eligible], np.iinfo(np.int64).max)
        least = np.minimum.reduceat(per_sub, b.eligible_bounds[:-1])
        self.least = least.tolist()
        load = counts[np.array(self.owner, dtype=np.int64)[pids[start:]]]
        found = np.flatnonzero(load > least[topics[start:]] + 1)
        return start + int(found[0]) if len(found) else -1

    def _least(self, topic: int) -> int:
        fewest = self.least[topic]
        if fewest is None:
            fewest = min(map(self.counts.__getitem__, self._members_of(topic)))
            self.least[topic] = fewest
        return fewest

    def _members_of(self, topic: int) -> List[int]:
        members = self.subscribers.get(topic)
        if members is None:
            b = self.b
            members = self.subscribers[topic] = \
                b.eligible[b.eligible_bounds[topic]:b.eligible_bounds[topic + 1]].tolist()
        return members

    def _least_loaded(self, topic: int) -> int:
        """The subscriber of ``topic`` with the fewest partitions, ties to the smaller index."""
        members = self._members_of(topic)
        return members[indexOf(map(self.counts.__getitem__, members), self._least(topic))]


def _pid_ranges(offsets: np.ndarray, topics: np.ndarray, values: Optional[np.ndarray] = None) -> np.ndarray:
    """Concatenation of ``range(offsets[t], offsets[t+1])`` for ``t`` in ``topics``
    (or of ``values`` over those ranges)."""
    if len(topics) == 0:
        return np.zeros(0, dtype=np.int64)
    starts, ends = offsets[topics], offsets[topics + 1]
    lengths = ends - starts
    idx = np.repeat(starts, lengths) + run_positions(lengths)
    return idx if values is None else values[idx]


def water_fill(counts: np.ndarray, k: int) -> np.ndarray:
    """Positions in ``counts`` receiving k items, one at a time, each to the least
    loaded (ties to the lower position): the picks sorted by (level, position)."""
    n = len(counts)
    if k <= _HEAP_FILL:
        # Few picks: a heap of (count, position) pops the least loaded, ties to the lower position.
        heap = list(zip(counts.tolist(), range(n)))
        heapq.heapify(heap)
        picks = []
        for _ in range(k):
            level, position = heap[0]
            picks.append(position)
            heapq.heapreplace(heap, (level + 1, position))
        return np.array(picks, dtype=np.int64)
    # Smallest level L with k picks at levels <= L: with j members at or below L,
    # that is j * (L + 1) - (sum of their counts) >= k.
    sorted_counts = np.sort(counts)
    prefix = np.cumsum(sorted_counts)
    j = np.arange(1, n + 1)
    reach = np.empty(n, dtype=np.int64)          # picks available below the next member's count
    reach[:-1] = j[:-1] * sorted_counts[1:] - prefix[:-1]
    reach[-1] = np.iinfo(np.int64).max
    first = int(np.argmax(reach >= k))           # the first j (0-based) whose span holds the k-th pick
    members = first + 1
    level = max(int(sorted_counts[first]), -(-(k + int(prefix[first])) // members) - 1)
    extra = k - int(np.maximum(0, level - counts).sum())   # picks at ``level`` itself
    at_level = np.flatnonzero(counts <= level)[:extra]
    # Picks in (level, position) order, level by level: below the highest count only
    # some members take part; from there on, all of them (a tile of the positions).
    lowest, highest = int(counts.min()), min(int(counts.max()), level)
    if highest - lowest > 64:                              # many partial levels: sort instead
        below = np.maximum(0, level - counts)
        pos = np.repeat(np.arange(n), below)
        lev = counts[pos] + run_positions(below)
        order = np.lexsort((pos, lev))
        return np.concatenate([pos[order], at_level])
    parts = [np.flatnonzero(counts <= lv) for lv in range(lowest, highest)]
    if level > highest:
        parts.append(np.tile(np.arange(n), level - highest))
    parts.append(at_level)
    return np.concatenate(parts)

"""The result of assigning one group: columnar arrays plus Kafka-shaped views."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

import numpy as np

from .context import Context, Outcome
from .model import Group
from .partition_list import TopicPartitionList

__all__ = ["AssignmentResult", "MemberAssignment", "STATUS_NAMES", "NEW", "KEPT", "MOVED", "REVOKED", "ASSIGNED"]

#: Status codes of the ``status`` array, and their names in outputs.
NEW, KEPT, MOVED, REVOKED, ASSIGNED = 0, 1, 2, 3, 4
STATUS_NAMES = ("new", "kept", "moved", "revoked", "assigned")

TopicPartition = Tuple[str, int]


@dataclass(frozen=True)
class AssignmentResult:
    """One group's new assignment.

    Columnar views, one entry per partition of every subscribed topic, in
    (topic, partition) order: :attr:`topic`, :attr:`partition`, :attr:`owner`
    (member index, -1 while a cooperative transfer is pending),
    :attr:`previous_owner` (index into :meth:`owner_names`, -1 for none),
    :attr:`status` (codes, see ``STATUS_NAMES``).

    Kafka-shaped views: :attr:`assignment` ``{member_id: [(topic, partition), ...]}``
    with every member present, and :attr:`revoked`, what each member owned
    and does not get back this round.
    """

    group: Group
    strategy: str
    owner: np.ndarray
    previous_owner: np.ndarray
    status: np.ndarray
    order: np.ndarray

    @classmethod
    def build(cls, ctx: Context, strategy: str, outcome: Outcome) -> "AssignmentResult":
        g = ctx.group
        owner = outcome.owner
        if len(g.claim_pid) == 0 and g.prior_owner is None:
            previous = np.full(g.num_partitions, -1, dtype=np.int64)    # nothing was owned: all new
            status = np.full(g.num_partitions, NEW, dtype=np.int8)
            if g.pending is not None:
                status[(owner >= 0) & g.pending] = ASSIGNED
        else:
            claimed, _ = ctx.claims
            previous = claimed.copy()
            if g.prior_owner is not None:
                previous = np.where(previous >= 0, previous, g.prior_owner)
            status = np.full(g.num_partitions, NEW, dtype=np.int8)
            had_owner = previous >= 0
            status[had_owner] = MOVED             # those left without an owner are revoked below
            status[had_owner & (owner == previous)] = KEPT
            if g.pending is not None:
                status[(owner >= 0) & (previous < 0) & g.pending] = ASSIGNED
        if len(owner) and owner.min() < 0:
            status[owner < 0] = REVOKED
        return cls(g, strategy, owner, previous, status, outcome.order)

    # ----------------------------------------------------------------- columns

    @cached_property
    def topic(self) -> np.ndarray:
        """Topic index of every row (into ``group.topic_names``)."""
        return self.group.pid_topic()

    @cached_property
    def partition(self) -> np.ndarray:
        """Partition number of every row."""
        return self.group.pid_partition()

    def owner_names(self) -> List[str]:
        """Names for ``previous_owner`` indices: members, then members that left."""
        return self.group.owner_names()

    def status_names(self) -> List[str]:
        """The status of every row as a string."""
        names = np.asarray(STATUS_NAMES, dtype=object)
        return list(names[self.status])

    # ------------------------------------------------------------ Kafka views

    @cached_property
    def assignment(self) -> "MemberAssignment":
        """``{member_id: [(topic, partition), ...]}``, every member present (a read-only
        :class:`MemberAssignment`, whose lists are built as they are read)."""
        return MemberAssignment(self)

    @cached_property
    def revoked(self) -> Dict[str, List[TopicPartition]]:
        """What each member claimed to own and does not get this round, sorted.

        For ``cooperative-sticky`` this is what Kafka's consumers revoke before
        the follow-up rebalance; it includes partitions of topics a member no
        longer subscribes to and claims that lost to a newer generation.
        """
        g = self.group
        lost: Dict[str, List[TopicPartition]] = {m: [] for m in g.member_ids}
        cm, cp = g.claim_member, g.claim_pid
        gone = self.owner[cp] != cm
        topics, parts = self.topic, self.partition
        for m, pid in zip(cm[gone].tolist(), cp[gone].tolist()):
            lost[g.member_ids[m]].append((g.topic_names[topics[pid]], int(parts[pid])))
        for m, topic, p in g.outside_claims:
            lost[g.member_ids[m]].append((topic, p))
        return {m: sorted(v) for m, v in lost.items()}

    def counts(self) -> np.ndarray:
        """Partitions per member (index order)."""
        own = self.owner[self.owner >= 0]
        return np.bincount(own, minlength=self.group.num_members)


class MemberAssignment(Mapping[str, List[TopicPartition]]):
    """A group's assignment as Kafka shows it: ``{member_id: [(topic, partition), ...]}``, every
    member present, each list in Kafka's order for the strategy.

    Read-only. A list is built the first time it is read, so a group of a million partitions
    costs one sort of its owners until a caller reads lists, and then the tuples of the lists it
    reads (small groups build all lists at the first read). ``dict(result.assignment)`` gives a
    plain ``dict``; comparisons with dicts work either way round.

    Example::

        result = assign([Member("c1", topics=["t"]), Member("c2", topics=["t"])], {"t": 3}, "range")
        result.assignment["c1"] == [("t", 0), ("t", 1)]
        result.assignment == {"c1": [("t", 0), ("t", 1)], "c2": [("t", 2)]}
    """

    #: Groups with at most this many partitions build every list at the first read.
    EAGER = 4096

    def __init__(self, result: AssignmentResult) -> None:
        self._result = result
        self._ids = result.group.member_ids
        self._lists: Dict[str, TopicPartitionList] = {}
        self._complete = False
        self._index: Optional[Dict[str, int]] = None
        self._pids = self._bounds = np.zeros(0, dtype=np.int64)
        self._names = tuple(result.group.topic_names)      # shared by every list (their topic_names)

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __contains__(self, member: object) -> bool:
        if member in self._lists:
            return True
        return not self._complete and member in self._member_index()    # complete: every member is listed

    def __getitem__(self, member: str) -> List[TopicPartition]:
        listed = self._lists.get(member)
        if listed is not None:
            return listed
        if self._complete:
            raise KeyError(member)                  # a member not in the group
        if len(self._result.owner) <= self.EAGER:   # every list at once (no index needed)
            self._sort()
            self._lists = self._build(0, len(self._ids))
            self._complete = True
            return self._lists[member]
        i = self._member_index()[member]            # KeyError for a member not in the group
        listed = self._build(i, i + 1)[member]
        self._lists[member] = listed
        return listed

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def _member_index(self) -> Dict[str, int]:
        if self._index is None:
            self._index = {m: i for i, m in enumerate(self._ids)}
            self._sort()
        return self._index

    def _sort(self) -> None:
        """Partitions member by member (withheld ones, owner -1, first), each member's in its
        order: one stable radix sort by owner when the order follows pids, else a lexsort."""
        r = self._result
        owner, order = r.owner, r.order
        if (order[1:] >= order[:-1]).all():
            pids = np.argsort(owner.astype(np.int16) if len(self._ids) < 1 << 15 else owner, kind="stable")
        else:
            pids = np.lexsort((order, owner))
        self._pids = pids
        self._bounds = np.searchsorted(owner[pids], np.arange(len(self._ids) + 1))

    def _build(self, first: int, stop: int) -> Dict[str, TopicPartitionList]:
        """The lists of members ``first`` to ``stop - 1`` (by index)."""
        r = self._result
        lo, hi = int(self._bounds[first]), int(self._bounds[stop])
        pids = self._pids[lo:hi]
        names = self._names
        topics, partitions = r.topic[pids].astype(np.int64), r.partition[pids].astype(np.int64)
        topics.setflags(write=False)                # the lists' arrays: read-only, as the lists are
        partitions.setflags(write=False)
        pairs = list(zip(np.asarray(names, dtype=object)[topics].tolist(), partitions.tolist()))
        bounds = (self._bounds[first:stop + 1] - lo).tolist()
        return TopicPartitionList.wrap_runs(self._ids[first:stop], pairs, bounds, names, topics, partitions)

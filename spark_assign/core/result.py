"""The result of assigning one group: columnar arrays plus Kafka-shaped views."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Tuple

import numpy as np

from .context import Context, Outcome
from .model import Group

__all__ = ["AssignmentResult", "STATUS_NAMES", "NEW", "KEPT", "MOVED", "REVOKED", "ASSIGNED"]

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
            status[(owner >= 0) & (owner == previous)] = KEPT
            status[(owner >= 0) & (previous >= 0) & (owner != previous)] = MOVED
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
    def assignment(self) -> Dict[str, List[TopicPartition]]:
        """``{member_id: [(topic, partition), ...]}``, every member present."""
        g = self.group
        owner = self.owner
        if len(owner) == 0:
            return {m: [] for m in g.member_ids}
        # Partitions member by member (withheld ones, owner -1, first), each member's in its
        # order: one stable radix sort by owner when the order follows pids, else a lexsort.
        if (np.diff(self.order) >= 0).all():
            key = owner.astype(np.int16) if g.num_members < 1 << 15 else owner
            pids = np.argsort(key, kind="stable")
        else:
            pids = np.lexsort((self.order, owner))
        bounds = np.searchsorted(owner[pids], np.arange(g.num_members + 1)).tolist()
        names = np.asarray(g.topic_names, dtype=object)[self.topic[pids]].tolist()
        pairs = list(zip(names, self.partition[pids].tolist()))
        return {m: pairs[bounds[i]:bounds[i + 1]] for i, m in enumerate(g.member_ids)}

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

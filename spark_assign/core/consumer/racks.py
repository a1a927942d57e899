"""Rack facts shared by the rack-aware strategies (KIP-881).

Kafka uses rack-aware assignment only when it can help: some member has a
rack, some partition has a replica on one of those racks, and the partitions
are not all on the same set of racks (``AbstractPartitionAssignor
.useRackAwareAssignment``). Kafka's tests can force it on
(``preferRackAwareLogic``); we expose that as the ``prefer_rack_aware`` option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

import numpy as np

from .context import Context
from .model import Group

__all__ = ["partition_rack_sets", "use_rack_aware", "StickyRacks"]


def partition_rack_sets(group: Group, pids: Optional[np.ndarray] = None) -> List[Set[int]]:
    """Replica rack ids of each pid (all pids, or those given); empty without rack data."""
    if pids is None:
        pids = np.arange(group.num_partitions)
    off, ids = group.part_rack_offsets, group.part_rack_ids
    if off is None or ids is None:
        return [set() for _ in range(len(pids))]
    return [set(ids[off[p]:off[p + 1]].tolist()) for p in pids.tolist()]


def use_rack_aware(consumer_racks: Set[int], partition_racks: List[Set[int]], prefer: bool) -> bool:
    """Kafka's rule for when rack-aware assignment applies.

    ``consumer_racks``: racks of the members concerned; ``partition_racks``: the
    replica racks of each partition concerned.
    """
    all_partition_racks: Set[int] = set().union(*partition_racks) if partition_racks else set()
    if not consumer_racks or consumer_racks.isdisjoint(all_partition_racks):
        return False
    if prefer:
        return True
    return not all(r == all_partition_racks for r in partition_racks)


@dataclass
class StickyRacks:
    """Kafka's ``AbstractStickyAssignor.RackInfo`` for one group.

    ``active`` says whether rack-aware assignment applies. ``member_rack`` and
    ``partition_racks`` are only filled when it does (as in Kafka, where the
    maps are empty otherwise). ``consumers_on_racks[pid]`` counts members on
    the partition's replica racks; unassigned partitions are visited in
    ascending order of it, so scarce ones go first.
    """

    active: bool = False
    member_rack: Dict[int, int] = field(default_factory=dict)
    partition_racks: List[Set[int]] = field(default_factory=list)
    consumers_on_racks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def of(cls, ctx: Context) -> "StickyRacks":
        g = ctx.group
        if not g.rack_names:                # no rack named anywhere: no member has one
            return cls()
        with_rack = np.flatnonzero(g.member_rack >= 0)
        if len(with_rack) == 0:
            return cls()
        racks = partition_rack_sets(g)
        members_per_rack = np.bincount(g.member_rack[with_rack], minlength=len(g.rack_names))
        on_racks = np.array([int(members_per_rack[list(r)].sum()) if r else 0 for r in racks],
                            dtype=np.int64)
        consumer_racks = {int(r) for r in g.member_rack[with_rack]}
        if not use_rack_aware(consumer_racks, racks, bool(ctx.options.get("prefer_rack_aware"))):
            return cls(consumers_on_racks=on_racks)
        return cls(
            active=True,
            member_rack={int(m): int(g.member_rack[m]) for m in with_rack},
            partition_racks=racks,
            consumers_on_racks=on_racks,
        )

    def mismatch(self, member: int, pid: int) -> bool:
        """The member has a rack and the partition has no replica on it."""
        rack = self.member_rack.get(member)
        return rack is not None and rack not in self.partition_racks[pid]

    def reorders(self) -> bool:
        """Whether :meth:`sort_by_scarcity` can change an order (some partitions are scarcer)."""
        on = self.consumers_on_racks
        return len(on) > 0 and bool(on.min() != on.max())

    def sort_by_scarcity(self, pids: np.ndarray) -> np.ndarray:
        if not self.reorders():
            return pids
        return pids[np.argsort(self.consumers_on_racks[pids], kind="stable")]

    def next_on_rack(self, pid: int, members: List[int], first: int) -> int:
        """Index in ``members``, from ``first`` circularly, of one on a replica rack of ``pid``; -1 if none."""
        racks = self.partition_racks[pid]
        if not racks:
            return -1
        n = len(members)
        for i in range(n):
            index = (first + i) % n
            if self.member_rack.get(members[index]) in racks:
                return index
        return -1

"""Kafka's ``StickyAssignor`` and ``CooperativeStickyAssignor``.

Pipeline (``AbstractStickyAssignor.assignPartitions``):

1. ``claims``: read every member's claimed partitions with Kafka's generation
   rules (see :attr:`Context.claims`);
2. ``racks``: decide whether rack-aware assignment applies (KIP-881);
3. ``build``: identical subscriptions take the constrained builder
   (:mod:`.sticky_constrained`, quotas), others the general one
   (:mod:`.sticky_general`, least-loaded then rebalancing moves);
4. ``cooperative``: for ``cooperative-sticky`` (KIP-429), partitions that change
   owner are withheld this generation (owner -1) and handed over in the next.

Deviations from Kafka, on purpose (both only where Kafka would break its own
guarantees): Kafka treats subscriptions as identical when
the first member it meets has none and the others agree; that sends a member
without subscriptions into the quota builder, which can then give it
partitions of topics it never subscribed to. We call subscriptions identical
only when they are. And see :func:`partitions_changing_hands`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Set

import numpy as np

from .context import Context, Outcome
from .racks import partition_rack_sets, use_rack_aware

__all__ = ["assign_sticky", "assign_cooperative_sticky", "StickyRacks"]


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


def _identical_subscriptions(ctx: Context) -> bool:
    return ctx.group.subscriptions_complete    # pairs are unique: M x T of them means all


def _build(ctx: Context):
    from .sticky_constrained import build_constrained
    from .sticky_general import build_general

    racks = StickyRacks.of(ctx)
    if _identical_subscriptions(ctx):
        return build_constrained(ctx, racks)
    return build_general(ctx, racks)


def assign_sticky(ctx: Context) -> Outcome:
    owner, order, _ = _build(ctx)
    return Outcome(owner, order)


def assign_cooperative_sticky(ctx: Context) -> Outcome:
    owner, order, transferring = _build(ctx)
    if transferring is None:
        transferring = partitions_changing_hands(ctx, owner)
    return Outcome(np.where(transferring, -1, owner), order)


def partitions_changing_hands(ctx: Context, owner: np.ndarray) -> np.ndarray:
    """Partitions both added to a member that did not claim them and taken from
    a member that did (``CooperativeStickyAssignor.computePartitionsTransferringOwnership``),
    claims being the raw ones, stale generations included.

    Deviation: also any partition whose valid owner (by the generation rules)
    loses it. Kafka skips those when the receiver holds a stale claim on the
    partition, handing it over in the very round its owner revokes it.
    """
    g = ctx.group
    P = g.num_partitions
    cm, cp = g.claim_member, g.claim_pid
    revoked = np.zeros(P, dtype=bool)
    revoked[cp[owner[cp] != cm]] = True
    claimed_by_owner = np.zeros(P, dtype=bool)
    claimed_by_owner[cp[owner[cp] == cm]] = True
    added = (owner >= 0) & ~claimed_by_owner
    valid_owner, _ = ctx.claims
    taken_from_owner = (owner >= 0) & (valid_owner >= 0) & (owner != valid_owner)
    return (added & revoked) | taken_from_owner

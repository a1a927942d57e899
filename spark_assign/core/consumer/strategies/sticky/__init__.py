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

import numpy as np

from ...context import Context, Outcome
from ...racks import StickyRacks
from .constrained import build_constrained
from .general import build_general

__all__ = ["assign_sticky", "assign_cooperative_sticky"]


def _identical_subscriptions(ctx: Context) -> bool:
    return ctx.group.subscriptions_complete    # pairs are unique: M x T of them means all


def _build(ctx: Context):
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
    valid_owner, _ = ctx.claims
    taken_from_owner = (owner >= 0) & (valid_owner >= 0) & (owner != valid_owner)
    if not g.claims_overlap:
        # One claim per claimed partition, and it stands: "added and revoked" is then a new
        # owner where there was a claimant, which is taken_from_owner already.
        return taken_from_owner
    P = g.num_partitions
    cm, cp = g.claim_member, g.claim_pid
    kept = owner[cp] == cm
    revoked = np.zeros(P, dtype=bool)
    revoked[cp[~kept]] = True
    claimed_by_owner = np.zeros(P, dtype=bool)
    claimed_by_owner[cp[kept]] = True
    added = (owner >= 0) & ~claimed_by_owner
    return (added & revoked) | taken_from_owner

"""The sticky assignor for identical subscriptions (Kafka's ``ConstrainedAssignmentBuilder``, KIP-54/KAFKA-12464).

With P partitions and M members every member ends with ``min_quota = P // M``
or ``max_quota = ceil(P / M)`` partitions, and exactly ``P % M`` of them with
``max_quota``. Stages:

1. ``keep_owned``: walking members in the leader's ``HashMap`` order, each keeps
   its claimed partitions, lowest partition number first (then topic), up to
   ``max_quota`` while fewer than ``P % M`` members have taken that, else up to
   ``min_quota``. Rack-mismatched and doubly claimed partitions are not kept.
   Members left below ``min_quota`` are "under"; members at ``min_quota`` that
   may still take one more are "at min".
2. ``fill_on_racks`` (rack-aware only): unassigned partitions, scarcest racks
   first, go round-robin to under members on a replica rack, else to an at-min
   member on one.
3. ``fill``: the rest, in (topic, partition) order, go round-robin to under
   members until all reach ``min_quota``, then one each to at-min members.

``fill`` is vectorized: round-robin over members sorted by id, each member
dropping out at its own need, is an order of (round, member) pairs.

Invariants: the result is balanced (max - min <= 1) and every member keeps
``min(claimed, its quota)`` of its valid claims.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ...context import Context
from ...keys import run_positions
from ...racks import StickyRacks

__all__ = ["build_constrained"]

#: Below this many partitions to deal, the fill's order is built with Python lists.
_SMALL_FILL = 512


def build_constrained(ctx: Context, racks: StickyRacks) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns ``(owner, order, transferring)``."""
    g = ctx.group
    P, M = g.num_partitions, g.num_members
    owner = np.empty(P, dtype=np.int64)
    owner.fill(-1)
    order = np.zeros(P, dtype=np.int64)
    transferring = np.zeros(P, dtype=bool)
    if M == 0 or P == 0:
        return owner, order, transferring
    min_quota, expected_max = divmod(P, M)
    max_quota = min_quota + (1 if expected_max else 0)
    step = P * max(g.num_topics, 1)     # new assignments sort after every kept partition

    if len(g.claim_pid) == 0 and not racks.active and not racks.reorders():
        # Nothing claimed: every member is under its quota (or all at 0 < max_quota), and
        # the fill below deals the partitions round-robin in pid order: pid i to member i % M.
        owner = np.arange(P, dtype=np.int64) % M
        return owner, np.arange(step, step + P, dtype=np.int64), transferring

    claim_owner, multi = ctx.claims
    # Valid claims per member; Kafka drops rack-mismatched ones first, then doubly claimed.
    cm, cp = g.claim_member, g.claim_pid
    if g.claims_overlap:                     # else every claim stands
        valid = claim_owner[cp] == cm
        cm, cp = cm[valid], cp[valid]
    revoked_from = np.empty(P, dtype=np.int64)      # Kafka's maybeRevokedPartitions
    revoked_from.fill(-1)
    if racks.active:
        bad = np.array([racks.mismatch(int(m), int(p)) for m, p in zip(cm, cp)], dtype=bool)
        revoked_from[cp[bad]] = cm[bad]
        cm, cp = cm[~bad], cp[~bad]
    if g.claims_overlap and multi.any():
        keep = ~multi[cp]
        cm, cp = cm[keep], cp[keep]

    # Stage 1: keep_owned.
    partition, topic = g.pid_partition(), g.pid_topic()
    owned = np.bincount(cm, minlength=M)
    may_max = owned >= max_quota
    takes_max = np.zeros(M, dtype=bool)
    if expected_max and int(may_max.sum()) <= expected_max:
        takes_max = may_max                 # every candidate gets the larger quota: order is moot
    elif expected_max:
        walk = ctx.hashmap_member_order     # the first expected_max candidates in Kafka's walk
        takes_max[walk] = may_max[walk] & (may_max[walk].cumsum() <= expected_max)
    at_max = int(takes_max.sum())
    quota = np.where(owned < min_quota, owned, np.where(takes_max, max_quota, min_quota))
    trimmed = owned > quota                  # members that keep fewer than they claim
    any_trimmed = bool(trimmed.any())
    if any_trimmed:
        # Kafka keeps the lowest partition numbers (then topics) of a member's claims.
        kept = np.ones(len(cm), dtype=bool)
        sub = trimmed[cm].nonzero()[0]
        sub = sub[np.lexsort((topic[cp[sub]], partition[cp[sub]], cm[sub]))]
        first = cm[sub].searchsorted(cm[sub], side="left")
        kept[sub] = (np.arange(len(sub)) - first) < quota[cm[sub]]
        revoked_from[cp[~kept]] = cm[~kept]
        cm, cp = cm[kept], cp[kept]
    owner[cp] = cm
    # Within a member, kept partitions come first, by (partition, topic) as in Kafka.
    order[cp] = partition[cp] * g.num_topics + topic[cp]

    under = (owned < min_quota).nonzero()[0].tolist()
    if at_max < expected_max:
        at_min = ((owned >= min_quota) & ~takes_max).nonzero()[0].tolist()
    else:
        at_min = []

    counts = np.bincount(cm, minlength=M) if any_trimmed or racks.active else owned
    unassigned = racks.sort_by_scarcity((owner < 0).nonzero()[0])
    next_order = [step]

    def give(pids: np.ndarray, members: np.ndarray) -> None:
        owner[pids] = members
        order[pids] = next_order[0] + np.arange(len(pids))
        next_order[0] += len(pids)
        counts[:] += np.bincount(members, minlength=M)
        moved_in = (revoked_from[pids] >= 0) & (revoked_from[pids] != members)
        transferring[pids] = moved_in | multi[pids]

    if racks.active:
        unassigned, at_max = _fill_on_racks(racks, unassigned, under, at_min, counts, give,
                                            min_quota, max_quota, at_max, expected_max)
    _fill(unassigned, under, at_min, counts, give, min_quota)
    return owner, order, transferring


def _fill_on_racks(racks, unassigned, under, at_min, counts, give,
                   min_quota, max_quota, at_max, expected_max):
    """Stage 2; mutates ``under`` and ``at_min`` like Kafka's lists. Returns what is left."""
    left: List[int] = []
    next_under = 0
    for pid in unassigned.tolist():
        member: Optional[int] = None
        index = racks.next_on_rack(pid, under, next_under)
        if index >= 0:
            member = under[index]
            count = int(counts[member]) + 1
            if count >= min_quota:
                under.remove(member)
                if count < max_quota and at_max < expected_max:
                    at_min.append(member)
            else:
                index += 1
            next_under = index % len(under) if under else 0
        elif at_min:
            index = racks.next_on_rack(pid, at_min, 0)
            if index >= 0:
                member = at_min[index]
                if int(counts[member]) + 1 == max_quota:
                    del at_min[index]
                    at_max += 1
                    if at_max == expected_max:
                        at_min.clear()
        if member is None:
            left.append(pid)
        else:
            give(np.array([pid]), np.array([member]))
    return np.asarray(left, dtype=np.int64), at_max


def _fill(unassigned: np.ndarray, under: List[int], at_min: List[int], counts: np.ndarray,
          give, min_quota: int) -> None:
    """Stage 3: round-robin to ``under`` up to min_quota, then one each to ``at_min``, then to
    the ``under`` members in the order they reached min_quota."""
    if len(unassigned) == 0:
        return
    members, served = _fill_order(under, at_min, counts, min_quota, len(unassigned))
    if served > len(unassigned):
        raise AssertionError("sticky: fewer partitions than the quotas need")
    if len(members) < len(unassigned):
        raise AssertionError("sticky: no member left under its quota")
    give(unassigned, members[:len(unassigned)])


def _fill_order(under: List[int], at_min: List[int], counts: np.ndarray, min_quota: int,
                wanted: int) -> Tuple[np.ndarray, int]:
    """The members the fill deals to, in order, and how many of them are the rounds up to
    min_quota. Round r (0-based) serves, in index order, every under member that needs more
    than r; members reaching min_quota join the at-min queue in the order they got there (by
    need, then index)."""
    need = [min_quota - int(counts[m]) for m in under]
    if wanted + len(under) <= _SMALL_FILL:
        served = [m for r in range(max(need, default=0)) for m, k in zip(under, need) if k > r]
        finished = [under[i] for i in sorted(range(len(under)), key=lambda i: (need[i], i))]
        return np.array(served + at_min + finished, dtype=np.int64), len(served)
    under_arr = np.asarray(under, dtype=np.int64)
    need_arr = np.asarray(need, dtype=np.int64)
    slots = np.repeat(np.arange(len(under_arr)), need_arr)
    serve = slots[np.lexsort((slots, run_positions(need_arr)))]
    done = np.lexsort((np.arange(len(under_arr)), need_arr))
    return np.concatenate([under_arr[serve], np.asarray(at_min, dtype=np.int64), under_arr[done]]), len(serve)

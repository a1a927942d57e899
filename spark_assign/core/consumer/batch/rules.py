"""The strategies' rules over many groups at once (see :mod:`.batch`).

Each function takes a :class:`~.batch_layout.Layout` and ``take``, the groups it
should assign, and returns the owner of every row (a member row of the batch,
-1 where the group is not taken or a cooperative transfer withholds the
partition) and the groups it did take (a rule may decline some, which then go
through the per-group engine). They restate, with segment operations keyed by
group, the per-group modules they cite; the differential tests hold the two to
identical rows.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from .layout import Layout, segment_first, segment_positions
from ...java.util import collection_capacities, growth_capacities, java_string_hash_array
from ..keys import run_positions

__all__ = ["range_owner", "roundrobin_owner", "sticky_owner", "uniform_owner"]

_MASK32 = 0xFFFFFFFF
#: A ``HashMap`` of at most this many members may have resized for a crowded bucket (treeify).
_SMALL_TABLE = 48
_TREEIFY_THRESHOLD = 8


def _segment_cumsum(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """Inclusive cumulative sums restarting at each segment (elements sorted by ``segment``)."""
    total = np.cumsum(values)
    if len(values) == 0:
        return total
    before = (total - values)[segment_first(segment, count)[segment]]
    return total - before


def _order_by(*keys: np.ndarray) -> np.ndarray:
    """The stable order sorting by ``keys`` (first key primary; all >= 0): one argsort of a
    combined int64 key when their ranges fit in 62 bits, else a lexsort."""
    spans = [int(k.max()) + 1 if len(k) else 1 for k in keys]
    if sum(int(s).bit_length() for s in spans) > 62:
        return np.lexsort(keys[::-1])
    combined = np.zeros(len(keys[0]), dtype=np.int64)
    for k, span in zip(keys, spans):
        combined = combined * span + k
    return np.argsort(combined, kind="stable")


def _rows(lay: Layout, owner_slot: np.ndarray) -> np.ndarray:
    """Member slots to member rows (-1 stays)."""
    return np.where(owner_slot >= 0, lay.slot_row[np.maximum(owner_slot, 0)], -1)


# ------------------------------------------------------------------ range (range.py, server_range.py)


def range_owner(lay: Layout, take: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``RangeAssignor``: each topic's subscribers, in ``MemberInfo`` order, take contiguous
    ranges, the first ``count % subscribers`` one longer (:func:`.range.vectorized_ranges`)."""
    owner = np.full(lay.R, -1, dtype=np.int64)
    sel = take[lay.pair_group]
    uni = lay.topic_uni[lay.pair_topic[sel]]
    member = lay.pair_member[sel]
    with_parts = lay.uni_count[uni] > 0
    uni, member = uni[with_parts], member[with_parts]
    order = np.lexsort((lay.info_key[member], uni))
    uni, member = uni[order], member[order]
    subscribers = np.bincount(uni, minlength=len(lay.uni_row))
    first = np.cumsum(subscribers) - subscribers
    rows = np.flatnonzero(take[lay.row_group])
    u, j = lay.row_uni[rows], lay.row_partition[rows]
    n, c = lay.uni_count[u], subscribers[u]
    q, r = n // c, n % c
    head = r * (q + 1)
    idx = np.where(j < head, j // (q + 1), r + (j - head) // np.maximum(q, 1))
    owner[rows] = member[first[u] + idx]
    return owner, take


# ------------------------------------------------------------------ roundrobin (roundrobin.py)


def roundrobin_owner(lay: Layout, take: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``RoundRobinAssignor`` for groups whose members all subscribe to every topic with
    partitions: partition k of the group (in (topic, partition) order) goes to member
    ``k % M`` in ``MemberInfo`` order. Other groups are declined."""
    with_parts = lay.uni_count[lay.topic_uni[lay.pair_topic]] > 0
    pairs = np.bincount(lay.pair_group[with_parts], minlength=lay.G)
    topics = np.bincount(lay.uni_group, weights=lay.uni_count > 0, minlength=lay.G).astype(np.int64)
    take = take & (pairs == lay.members * topics)
    chosen = np.flatnonzero(take[lay.member_group])
    by_rank = chosen[np.lexsort((lay.info_key[chosen], lay.member_group[chosen]))]
    owner = np.full(lay.R, -1, dtype=np.int64)
    _deal(lay, take, by_rank, lay.member_group[by_rank], owner)
    return owner, take


def _deal(lay: Layout, groups: np.ndarray, members: np.ndarray, member_group: np.ndarray,
          owner: np.ndarray) -> None:
    """Partition k of each group in ``groups`` to its ``members[k % M]`` (``members`` grouped
    by ``member_group``, in dealing order)."""
    first = segment_first(member_group, lay.G)
    rows = np.flatnonzero(groups[lay.row_group])
    g = lay.row_group[rows]
    owner[rows] = members[first[g] + (rows - lay.row_off[g]) % np.maximum(lay.members[g], 1)]


# ------------------------------------------------------------------ sticky (sticky_constrained.py)


def sticky_owner(lay: Layout, take: np.ndarray, cooperative: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Kafka's ``ConstrainedAssignmentBuilder`` for homogeneous groups without racks
    (:func:`.sticky_constrained.build_constrained`); ``cooperative`` withholds partitions
    that change owner (KIP-429). Groups whose ``HashMap`` walk could involve a treeify
    resize are declined."""
    take = take & lay.complete
    owner = np.full(lay.R, -1, dtype=np.int64)
    claimed = np.zeros(lay.G, dtype=bool)
    claimed[lay.row_group[lay.claim_pid]] = True
    # Nothing claimed: every member is under quota and the fill deals pid k to member k % M.
    fresh = take & ~claimed
    slots = np.arange(len(lay.slot_group), dtype=np.int64)
    _deal(lay, fresh, slots, lay.slot_group, owner)
    if (take & claimed).any():
        take = fresh | _sticky_claimed(lay, take & claimed, owner, cooperative)
    return _rows(lay, owner), take


def _sticky_claimed(lay: Layout, take: np.ndarray, owner: np.ndarray, cooperative: bool) -> np.ndarray:
    """:func:`sticky_owner` for groups with claims: fills ``owner`` (member slots) for the
    groups it takes, which it returns."""
    M = lay.members
    P = np.diff(lay.row_off)
    min_q, extra = P // np.maximum(M, 1), P % np.maximum(M, 1)
    max_q = min_q + (extra > 0)
    gs = lay.slot_group
    cs, cp = lay.claim_slot, lay.claim_pid
    owned = np.bincount(cs, minlength=len(gs))
    may = take[gs] & (owned >= max_q[gs])
    takes_max = may & (extra[gs] > 0)
    contested = take & (extra > 0) & (np.bincount(gs, weights=may, minlength=lay.G) > extra)
    if contested.any():
        takes_max, risky = _walk_takes_max(lay, contested, may, extra, takes_max)
        take = take & ~risky
    sel = take[gs]
    in_take = take[lay.row_group[cp]]
    cs, cp = cs[in_take], cp[in_take]
    quota = np.where(owned < min_q[gs], owned, np.where(takes_max, max_q[gs], min_q[gs]))

    # Stage 1: members keep their claims up to quota, lowest (partition, topic) first.
    revoked_from = np.full(lay.R, -1, dtype=np.int64)
    over = np.flatnonzero((owned > quota)[cs])
    if len(over):
        o = over[np.lexsort((lay.row_uni[cp[over]], lay.row_partition[cp[over]], cs[over]))]
        position = np.arange(len(o)) - np.searchsorted(cs[o], cs[o], side="left")
        dropped = o[position >= quota[cs[o]]]
        revoked_from[cp[dropped]] = cs[dropped]
        kept = np.ones(len(cs), dtype=bool)
        kept[dropped] = False
        cs, cp = cs[kept], cp[kept]
    owner[cp] = cs

    # Stage 3 (the fill), for groups with partitions left: round-robin to members under
    # min_quota, then one each to members that may still take one more, then to the under
    # members in the order they filled up.
    free = np.flatnonzero((owner < 0) & take[lay.row_group])
    if len(free) == 0:
        return take
    filling = np.zeros(lay.G, dtype=bool)
    filling[lay.row_group[free]] = True
    sel &= filling[gs]
    at_max = np.bincount(gs, weights=takes_max & sel, minlength=lay.G)
    under = sel & (owned < min_q[gs])
    at_min = sel & (owned >= min_q[gs]) & ~takes_max & (at_max[gs] < extra[gs])
    need = np.where(under, min_q[gs] - owned, 0)
    us, am = np.flatnonzero(under), np.flatnonzero(at_min)
    served = np.repeat(us, need[us])
    queue = np.concatenate([served, am, us])
    phase = np.concatenate([np.zeros(len(served), np.int64), np.ones(len(am), np.int64), np.full(len(us), 2)])
    k2 = np.concatenate([run_positions(need[us]), np.zeros(len(am), np.int64), need[us]])
    queue = queue[_order_by(gs[queue], phase, k2, lay.local[queue])]
    first = segment_first(gs[queue], lay.G)
    g = lay.row_group[free]
    k = segment_positions(g, lay.G)
    if (k >= first[g + 1] - first[g]).any():
        raise AssertionError("sticky: no member left under its quota")
    owner[free] = queue[first[g] + k]
    if cooperative:
        moving = (revoked_from[free] >= 0) & (revoked_from[free] != owner[free])
        owner[free[moving]] = -1
    return take


def _walk_takes_max(lay: Layout, groups: np.ndarray, may: np.ndarray, extra: np.ndarray,
                    takes_max: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Where more members may take the larger quota than there are, the first ``extra`` in the
    leader's ``HashMap`` walk do (:attr:`.context.Context.hashmap_member_order`): members by
    bucket at the table's capacity, then in id order. Returns ``takes_max`` and the groups
    declined because a bucket of their 16-bucket table holds 9+ members (a treeify resize)."""
    gs = lay.slot_group
    ws = np.flatnonzero(groups[gs])
    names = lay.batch.member_names
    codes = lay.member_code[lay.slot_row[ws]]
    h = java_string_hash_array([names[c] for c in codes.tolist()]) & _MASK32
    spread = h ^ (h >> 16)
    g, size = gs[ws], lay.members[gs[ws]]
    crowd = np.bincount(g * 16 + (spread & 15), minlength=lay.G * 16).reshape(lay.G, 16).max(axis=1)
    risky = groups & (crowd > _TREEIFY_THRESHOLD) & (lay.members <= _SMALL_TABLE)
    bucket = spread & (growth_capacities(size) - 1)
    walk = ws[np.lexsort((lay.local[ws], bucket, g))]
    candidate = may[walk]
    rank = _segment_cumsum(candidate.astype(np.int64), gs[walk], lay.G)
    takes_max = takes_max.copy()
    takes_max[walk] = candidate & (rank <= extra[gs[walk]])
    return takes_max, risky


# ------------------------------------------------------------------ uniform (uniform.py, homogeneous)


def uniform_owner(lay: Layout, take: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The server's ``UniformAssignor`` for homogeneous groups (Kafka 4.1's builder,
    :func:`.uniform._homogeneous`, topics in name order)."""
    take = take & lay.complete
    M = lay.members
    P = np.diff(lay.row_off)
    min_q, extras = P // np.maximum(M, 1), P % np.maximum(M, 1)
    gs = lay.slot_group
    sel = take[gs]
    in_take = take[lay.row_group[lay.claim_pid]]
    cs, cp = lay.claim_slot[in_take], lay.claim_pid[in_take]
    held = np.bincount(cs, minlength=len(gs))
    # KAFKA-18688: members claim the extra slots in order, holders first; once the slots left
    # equal the members left, everyone left takes one.
    has_extra = sel & (held >= min_q[gs] + 1)
    before = _segment_cumsum(has_extra.astype(np.int64), gs, lay.G) - has_extra
    left = extras[gs] - np.minimum(before, extras[gs])
    forced = left >= M[gs] - lay.local
    start = np.full(lay.G, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(start, gs[forced], lay.local[forced])
    extra_slot = np.where(lay.local < start[gs], has_extra & (before < extras[gs]), True) & (extras[gs] > 0)
    quota = min_q[gs] + extra_slot

    owner = np.full(lay.R, -1, dtype=np.int64)
    owner[cp] = cs
    never = np.flatnonzero((owner < 0) & take[lay.row_group])       # pids nobody holds, in order
    revoked = np.zeros(0, dtype=np.int64)
    over = np.flatnonzero((held > quota)[cs])
    if len(over):
        # Keep the first ``quota`` as Kafka walks the member's own Map<topic, HashSet<partition>>.
        slot, pid = cs[over], cp[over]
        uni, part = lay.row_uni[pid], lay.row_partition[pid]
        pair = slot * max(len(lay.uni_row), 1) + uni
        _, pair_of, per_pair = np.unique(pair, return_inverse=True, return_counts=True)
        bucket = part & (collection_capacities(per_pair[pair_of]) - 1)
        o = np.lexsort((part, bucket, uni, slot))
        slot, pid = slot[o], pid[o]
        position = np.arange(len(o)) - np.searchsorted(slot, slot, side="left")
        revoked = pid[position >= quota[slot]]
        owner[revoked] = -1

    # Partitions nobody holds (pid order), then the revoked ones, dealt in member order.
    deal = np.concatenate([never, revoked])
    phase = np.concatenate([np.zeros(len(never), np.int64), np.ones(len(revoked), np.int64)])
    deal = deal[np.lexsort((phase, lay.row_group[deal]))]
    need = np.where(sel, quota - np.minimum(held, quota), 0)
    receivers = np.repeat(np.arange(len(gs), dtype=np.int64), need)
    first = segment_first(gs[receivers], lay.G)
    g = lay.row_group[deal]
    owner[deal] = receivers[first[g] + segment_positions(g, lay.G)]
    return _rows(lay, owner), take

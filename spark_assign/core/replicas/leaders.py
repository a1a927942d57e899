"""Preferred leaders of a reassigned placement: balanced by reordering replicas, no data moved.

The last stage of the ``sticky`` replica reassignment (:mod:`.replica_sticky`).
A partition's preferred leader is its first replica, so changing leaders only
reorders a row of the placement: it moves no data. The goal is ``P // N`` or
``P // N + 1`` leaders per broker (``P`` partitions, ``N`` brokers) wherever the
replica sets allow, and otherwise the most even counts they allow.

The previous leader stays first when it is kept. Leaders then move only when
the move makes the counts more even: from a broker leading ``c`` to one leading
at most ``c - 2``, first by direct swaps within a partition (vectorized rounds
across the two even levels), then along shortest augmenting paths
(breadth-first, backwards from the brokers leading too few), each a chain of
swaps in several partitions that moves one leader's worth of surplus, at every
level between the fewest and the most leaders. When no such path is left no
measure of spread can improve (a balanced orientation: max and min are both
optimal), which is also why a second run keeps every leader: a fixed goal per
broker could ask for swaps between brokers whose counts differ by one.

The replica sets themselves can leave no such path (a replication factor of
1 fixes its partitions' leaders, and the brokers the other partitions share
may not connect the busiest broker to the idlest). Before giving up,
:func:`open_leader_paths` changes which replicas this plan moves go where,
never how many: :func:`exchange_for_leaders` swaps two of them between two
partitions of one topic (no topic's or broker's count changes), and
:func:`relocate_for_leaders` puts a moved leader on an idler broker of its
rack where the topic's and the broker's counts stay within their floor and
ceiling (with a replication factor of 1, which broker takes a topic's
ceiling decides leaders). Either way no move more, racks kept.
"""

from __future__ import annotations

from typing import List

import numpy as np

from .repair import replica_counts

__all__ = ["group_rank", "balance_leaders", "swap_positions", "augment_leaders", "augment_all", "exchange_for_leaders",
           "relocate_for_leaders", "open_leader_paths"]


def group_rank(keys: np.ndarray) -> np.ndarray:
    """Each element's rank among the elements with the same key, in array order."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, len(keys)])
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys)) - np.repeat(starts, sizes)
    return rank


def balance_leaders(m: np.ndarray, previous_leader: np.ndarray, n: int, improve: bool = True) -> None:
    """Step 4, in place: order each row leader first (previous leader kept where present),
    then move leaderships within rows until no move can make the counts more even.

    Moves only improve: a leadership passes from a broker leading ``c`` to one leading at most
    ``c - 2`` (directly, through one relay that keeps its count, or along a path of such swaps). When none is left the counts are the
    most even the replica sets allow (every convex measure of spread is minimal: max - min <= 1
    whenever possible), and a second run on the result changes nothing. Rows may end in -1
    padding (a cluster's topics of several replication factors in one matrix). ``improve=False``
    stops once every row has a leader (the goal search then balances them, :mod:`.goals`)."""
    parts, rf = m.shape
    if parts == 0:
        return
    rows = np.arange(parts)
    is_prev = (m == previous_leader[:, None]) & (previous_leader[:, None] >= 0)
    has = is_prev.any(axis=1)
    pos = is_prev.argmax(axis=1)
    swap_positions(m, rows[has], pos[has])
    counts = np.bincount(m[has, 0], minlength=n)
    order = np.lexsort((np.arange(n), -counts))
    goal = np.full(n, parts // n, dtype=np.int64)
    goal[order[:parts % n]] += 1
    lost = np.flatnonzero(~has)
    while len(lost):                                      # new leaders: the replica furthest below its goal
        under = goal - counts
        sub = m[lost]
        col = np.where(sub >= 0, under[sub], np.iinfo(np.int64).min).argmax(axis=1)
        best = m[lost, col]
        fits = group_rank(best) < under[best]
        if not fits.any():
            fits[:] = True
        swap_positions(m, lost[fits], col[fits])
        counts += np.bincount(best[fits], minlength=n)
        lost = lost[~fits]
    if rf == 1 or not improve:
        return
    level = np.full(n, parts // n, dtype=np.int64)
    for aim in (goal, level, level + (parts % n > 0)):    # direct swaps: to the goal, then the even levels
        for _ in range(64):
            if not _swap_round(m, aim, n) and not _relay_round(m, aim, n):
                break
    augment_all(m, n)                                     # then paths, at every level met


def augment_all(m: np.ndarray, n: int) -> None:
    """In place: :func:`augment_leaders` at every level between the fewest and the most leaders,
    again until no path is left."""
    while True:
        counts = np.bincount(m[:, 0], minlength=n)
        if not any(augment_leaders(m, level, n) for level in range(int(counts.min()) + 1, int(counts.max()))):
            return


def _swap_round(m: np.ndarray, aim: np.ndarray, n: int) -> bool:
    """One vectorized round of direct swaps (leader <-> follower of one row) from brokers leading
    more than their ``aim`` to brokers leading fewer, never past it; False when none was made.
    A broker gives only to brokers aiming no higher, so every swap makes the counts more even
    (the giver leads at least two more than the taker)."""
    counts = np.bincount(m[:, 0], minlength=n)
    over, under = counts - aim, aim - counts
    rows = np.flatnonzero(over[m[:, 0]] > 0)
    if not rows.size or not (under > 0).any():
        return False
    sub = m[rows]
    score = np.where((sub >= 0) & (under[sub] > 0) & (aim[sub] <= aim[sub[:, :1]]), under[sub], 0)
    score[:, 0] = 0
    col = score.argmax(axis=1)
    ok = score[np.arange(len(rows)), col] > 0
    rows, col, sub = rows[ok], col[ok], sub[ok]
    u, v = sub[:, 0], sub[np.arange(len(rows)), col]
    keep = group_rank(u) < over[u]
    rows, col, v = rows[keep], col[keep], v[keep]
    keep = group_rank(v) < under[v]
    if not keep.any():
        return False
    swap_positions(m, rows[keep], col[keep])
    return True


def _relay_round(m: np.ndarray, aim: np.ndarray, n: int) -> bool:
    """One vectorized round of two-step moves ``u -> x -> v``: a partition led by ``u`` (above its
    ``aim``) passes its leadership to its follower ``x``, and a partition led by ``x`` passes one to
    its follower ``v`` (below its aim, aiming no higher than ``u``): ``x`` keeps its count. Racks
    often make these the only moves (``u`` and ``v`` on one rack never share a partition); the
    paths of :func:`augment_leaders` find the rest. False when none was made."""
    counts = np.bincount(m[:, 0], minlength=n)
    over, under = counts - aim, aim - counts
    if not (over > 0).any() or not (under > 0).any():
        return False
    lead = m[:, 0]
    # second steps: rows led by x (not above its aim: those rows are no first step) with a
    # follower v below its aim (the one furthest below)
    score = np.where((m >= 0) & (under[np.maximum(m, 0)] > 0), under[np.maximum(m, 0)], 0)
    score[:, 0] = 0
    score[over[lead] > 0] = 0
    col_q = score.argmax(axis=1)
    rows_q = np.flatnonzero(score[np.arange(len(m)), col_q] > 0)
    relay = np.bincount(lead[rows_q], minlength=n)          # what each x can pass on
    # first steps: rows led by u above its aim, passing to the follower x that can pass on the most
    rows_p = np.flatnonzero(over[lead] > 0)
    sub = m[rows_p]
    pick = np.where((sub >= 0) & (relay[np.maximum(sub, 0)] > 0), relay[np.maximum(sub, 0)], 0)
    pick[:, 0] = 0
    col_p = pick.argmax(axis=1)
    ok = pick[np.arange(len(rows_p)), col_p] > 0
    rows_p, col_p = rows_p[ok], col_p[ok]
    if not len(rows_p):
        return False
    x_p = m[rows_p, col_p]
    fits = group_rank(x_p) < relay[x_p]
    rows_p, col_p, x_p = rows_p[fits], col_p[fits], x_p[fits]
    u = lead[rows_p]
    keep = group_rank(u) < over[u]
    rows_p, col_p, x_p, u = rows_p[keep], col_p[keep], x_p[keep], u[keep]
    # pair each first step with a second step out of the same x, in order
    order_q = np.argsort(lead[rows_q], kind="stable")
    rows_q, col_q = rows_q[order_q], col_q[rows_q[order_q]]
    start = np.searchsorted(lead[rows_q], np.arange(n))
    q_at = start[x_p] + group_rank(x_p)
    rows_q, col_q = rows_q[q_at], col_q[q_at]
    v = m[rows_q, col_q]
    keep = (group_rank(v) < under[v]) & (aim[v] <= aim[u])
    if not keep.any():
        return False
    swap_positions(m, rows_p[keep], col_p[keep])
    swap_positions(m, rows_q[keep], col_q[keep])
    return True


def swap_positions(m: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
    first = m[rows, 0].copy()
    m[rows, 0] = m[rows, cols]
    m[rows, cols] = first


def augment_leaders(m: np.ndarray, level: int, n: int) -> bool:
    """Shortest paths ``u0 -> p1 -> v1 -> p2 -> ... -> vk`` from brokers leading more than
    ``level`` to brokers leading fewer (``u_i`` leads ``p_{i+1}``, which holds ``v_{i+1}``): each
    ``p_i``'s leadership passes to ``v_i``; no end crosses ``level``. One breadth-first search backwards from every short ``vk`` at
    once ("follower -> its leader"); then every tree path to a broker leading too many that
    shares no broker but its root with a shorter one taken (a root takes as many as it lacks).
    False when there is none."""
    parts, rf = m.shape
    counts = np.bincount(m[:, 0], minlength=n)
    over, under = counts - level, level - counts
    if not (over > 0).any() or not (under > 0).any():
        return False
    follower = m[:, 1:].ravel()
    order = np.argsort(follower, kind="stable")
    order = order[follower[order] >= 0]           # -1: a shorter row's padding (several topics at once)
    follower = follower[order]
    leader = np.repeat(m[:, 0], rf - 1)[order]
    part = np.repeat(np.arange(parts), rf - 1)[order]
    col = np.tile(np.arange(1, rf), parts)[order]
    start = np.searchsorted(follower, np.arange(n + 1))
    parent = np.full(n, -1, dtype=np.int64)
    seen = under > 0
    frontier = np.flatnonzero(seen)
    reached: List[int] = []
    while frontier.size:
        lengths = start[frontier + 1] - start[frontier]
        edges = np.repeat(start[frontier], lengths) + (np.arange(lengths.sum())
                                                       - np.repeat(np.cumsum(lengths) - lengths, lengths))
        to = leader[edges]
        fresh = ~seen[to]
        to, edges = to[fresh], edges[fresh]
        to, first = np.unique(to, return_index=True)
        edges = edges[first]
        seen[to] = True
        parent[to] = edges
        reached += to[over[to] > 0].tolist()
        frontier = to
    used = np.zeros(n, dtype=bool)
    room = np.maximum(under, 0)
    done = False
    for x in reached:                             # by depth: shortest paths first
        path, nodes = [], []
        while parent[x] >= 0:
            path.append(int(parent[x]))
            nodes.append(x)
            x = int(follower[parent[x]])
        if used[nodes].any() or room[x] == 0:
            continue
        used[nodes] = True
        room[x] -= 1
        swap_positions(m, part[path], col[path])
        done = True
    return done


def exchange_for_leaders(m: np.ndarray, prev: np.ndarray, topic: np.ndarray, rack_of: np.ndarray, n: int,
                         limit: int = 64) -> bool:
    """In place: while two brokers' leader counts differ by 2 or more and no path joins them,
    exchange replicas *new to their partitions* (not in ``prev``'s row) between two partitions
    ``p``, ``q`` of one ``topic``: ``p`` (led by ``u``, leading the most) gives a new replica
    ``b`` (a follower, or ``u`` itself) for ``q``'s new follower ``v`` (leading at least 2
    fewer), on the same rack, neither already in the other partition; then ``v`` leads ``p``.
    Each exchange keeps every topic's and broker's replica count, the moves and the racks of
    each partition, and makes the leader counts more even (``u`` loses one, ``v`` gains one),
    so a second run, which has no new replicas, keeps them. At most ``limit`` exchanges; False
    when none was made."""
    made = 0
    while made < limit:
        counts = np.bincount(m[:, 0], minlength=n)
        if counts.max() - counts.min() <= 1 or m.shape[1] < 2:
            break
        new = (m >= 0) & ~(m[:, :, None] == prev[:, None, :]).any(axis=2)
        found = _exchange(m, new, topic, rack_of, counts)
        if found is None:
            break
        p, c, q, d = found
        m[p, c], m[q, d] = m[q, d], m[p, c]
        swap_positions(m, np.array([p]), np.array([c]))      # c = 0: v took u's place, already first
        made += 1
        augment_all(m, n)                                 # the paths the exchange opened
    return made > 0


def _exchange(m: np.ndarray, new: np.ndarray, topic: np.ndarray, rack_of: np.ndarray,
              counts: np.ndarray) -> "tuple[int, int, int, int] | None":
    """The first exchange (``p``, ``c``, ``q``, ``d``) of :func:`exchange_for_leaders`, busiest
    leaders first, then the idlest takers; None when there is none."""
    p_rows, p_cols = np.nonzero(new & (counts[m[:, :1]] >= counts.min() + 2))
    if not len(p_rows):
        return None
    q_rows, q_cols = np.nonzero(new[:, 1:])          # v follows in q: q keeps its leader
    q_cols = q_cols + 1
    for i in np.argsort(-counts[m[p_rows, 0]], kind="stable").tolist():
        p, c = int(p_rows[i]), int(p_cols[i])
        u, b = int(m[p, 0]), int(m[p, c])
        v = m[q_rows, q_cols]
        ok = (topic[q_rows] == topic[p]) & (counts[v] <= counts[u] - 2) & (rack_of[v] == rack_of[b]) \
            & ~(m[p][None, :] == v[:, None]).any(axis=1) & ~(m[q_rows] == b).any(axis=1)
        if ok.any():
            j = np.flatnonzero(ok)[np.argmin(counts[v[ok]])]
            return p, c, int(q_rows[j]), int(q_cols[j])
    return None


def relocate_for_leaders(m: np.ndarray, prev: np.ndarray, topic: np.ndarray, rack_of: np.ndarray,
                         topic_bounds: "tuple[np.ndarray, np.ndarray]", broker_bounds: "tuple[np.ndarray, np.ndarray]",
                         n: int, limit: int = 64) -> bool:
    """In place: while two brokers' leader counts differ by 2 or more, a partition whose leader
    ``u`` (among the busiest) is new to it takes instead a broker ``w`` of ``u``'s rack leading
    at least 2 fewer and not in the partition, where ``u``'s and ``w``'s counts stay within the
    topic's bounds (``topic_bounds``: per topic and broker, the floor and ceiling of its level)
    and the cluster's (``broker_bounds``). The replica is still a move (or becomes a kept one),
    so no move is added; a second run, which has no new replicas, keeps it. False when none."""
    lo_t, hi_t = topic_bounds
    lo_b, hi_b = broker_bounds
    made = 0
    while made < limit:
        lead = np.bincount(m[:, 0], minlength=n)
        if lead.max() - lead.min() <= 1:
            break
        counts, total = replica_counts(m, topic, len(lo_t), n)
        u = m[:, 0]
        rows = np.flatnonzero(~(m[:, :1] == prev).any(axis=1) & (lead[u] >= lead.min() + 2)
                              & (counts[topic, u] > lo_t[topic, u]) & (total[u] > lo_b[u]))
        if not len(rows):
            break
        t, u = topic[rows], u[rows]
        fits = (lead[None, :] <= lead[u][:, None] - 2) & (rack_of[None, :] == rack_of[u][:, None]) \
            & (counts[t] < hi_t[t]) & (total < hi_b)[None, :]
        fits &= ~(m[rows][:, :, None] == np.arange(n)[None, None, :]).any(axis=1)
        ok = np.flatnonzero(fits.any(axis=1))
        if not len(ok):
            break
        i = ok[np.argmax(lead[u[ok]])]
        w = np.flatnonzero(fits[i])
        m[rows[i], 0] = w[np.argmin(lead[w])]
        made += 1
    return made > 0


def open_leader_paths(m: np.ndarray, prev: np.ndarray, topic: np.ndarray, rack_of: np.ndarray,
                      topic_bounds: "tuple[np.ndarray, np.ndarray]", broker_bounds: "tuple[np.ndarray, np.ndarray]",
                      n: int) -> None:
    """After :func:`balance_leaders`, in place: exchanges and relocations of moved replicas
    (module docstring) while leader counts differ by 2 or more, each followed by the paths it
    opened. Nothing is done (or computed) when the leaders are already within 1."""
    for _ in range(8):
        lead = np.bincount(m[:, 0], minlength=n)
        if lead.max() - lead.min() <= 1 or not (exchange_for_leaders(m, prev, topic, rack_of, n)
                                                 | relocate_for_leaders(m, prev, topic, rack_of, topic_bounds,
                                                                        broker_bounds, n)):
            return
        augment_all(m, n)

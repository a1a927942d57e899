"""The improve stage's choice of action, for many groups at once (see :mod:`.batch_load`).

For every group still improving, :func:`best_actions` finds what
``_LoadBuilder._best_action`` finds for its heaviest member: the best move of one
of its partitions to, or swap with, one of its ``PARTNERS`` lightest members. The
candidates, their scores and the order ties break in are the per-group engine's
(:mod:`.load_aware`); only the loops are replaced by array operations over groups:

* members tied at the top are tried in index order, the next only where the
  previous had no action;
* a swap pairs each partition ``p`` of the heaviest member ``a`` with the two
  partitions of ``b`` (in the order of weight, then pid) around ``w[p] - gap / 2``,
  found by a binary search run for all (row, ``p``) elements at once in their row's
  segment of ``b``'s partitions; the order is the bucket's, fixed for the whole run
  (``by_weight``), so nothing is sorted per round.
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np

from ..keys import run_positions
from ..strategies.load_aware import MIN_GAIN, PARTNERS

__all__ = ["best_actions"]

_I64 = np.int64
#: Top ties within this fraction of the peak (as ``_LoadBuilder.improve``).
_TIE = 1e-9

Actions = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def best_actions(bk: Any, active: np.ndarray) -> Actions:
    """``(pid1, to1, pid2, to2)`` per group of ``active`` (bucket indices): a move is ``pid1 -> to1``
    (``pid2`` -1), a swap also ``pid2 -> to2``; ``pid1`` -1 where the group has no action."""
    n = len(active)
    out = [np.full(n, -1, dtype=_I64) for _ in range(4)]
    loads, ok = bk.loads[active], bk.member_ok[active]
    top = np.where(ok, loads, -np.inf).max(axis=1)
    tied = ok & (loads >= (top - _TIE * np.abs(top))[:, None])
    rank = np.cumsum(tied, axis=1) - 1
    pending = np.arange(n)
    r = 0
    while len(pending):
        nth = tied[pending] & (rank[pending] == r)
        pending = pending[nth.any(axis=1)]
        if len(pending) == 0:
            break
        a = np.argmax(tied[pending] & (rank[pending] == r), axis=1)
        found = _best_for(bk, active[pending], a)
        hit = found[0] >= 0
        for dst, src in zip(out, found):
            dst[pending[hit]] = src[hit]
        pending = pending[~hit]
        r += 1
    return out[0], out[1], out[2], out[3]


def _best_for(bk: Any, g: np.ndarray, a: np.ndarray) -> Actions:
    """The best action of member ``a`` of each group ``g`` (see the module docstring). Each
    (group, partner) pair is one row of the arrays below: ``t = group * P + partner``; the
    partitions of ``a`` under a row are flat elements, in (row, pid) order."""
    n = len(g)
    i = np.arange(n)
    loads, counts, ok = bk.loads[g], bk.counts[g], bk.member_ok[g]
    la = loads[i, a]
    tol = MIN_GAIN * la
    ia, pa = np.nonzero(bk.own[g] == a[:, None])           # a's partitions, by group then pid
    na = np.bincount(ia, minlength=n)
    key = np.where(ok, loads, np.inf)
    key[i, a] = np.inf
    partners = np.argsort(key, axis=1, kind="stable")[:, :PARTNERS]
    P = partners.shape[1]
    real = np.take_along_axis(key, partners, axis=1) < np.inf
    cmax = np.where(ok, counts, -1).max(axis=1)
    cmin = np.where(ok, counts, np.iinfo(_I64).max).min(axis=1)
    t = np.repeat(i, P)                                   # the group of each (group, partner) row
    b = partners.reshape(-1)
    gap = la[t] - loads[t, b]
    usable = real.reshape(-1) & (gap > tol[t]) & (na > 0)[t]
    move = (np.full(len(t), -np.inf), np.zeros(len(t)), np.full(len(t), -1, dtype=_I64),
            np.full(len(t), -1, dtype=_I64))
    swap = tuple(x.copy() for x in move)
    u = np.flatnonzero(usable)                            # only rows with a gap worth closing
    if len(u):
        tu, bu, gu = t[u], b[u], gap[u]
        # A move keeps the count spread within the skew (the old extremes assumed to stay).
        keeps = np.maximum(cmax[tu], counts[tu, bu] + 1) - np.minimum(cmin[tu], counts[tu, a[tu]] - 1) <= bk.skew
        # Flat elements: each row of u with each partition of its group's a.
        per = na[tu]
        er = np.repeat(np.arange(len(u)), per)
        ep = pa[np.repeat((np.cumsum(na) - na)[tu], per) + run_positions(per)]
        rows = g[tu]
        cost = bk.cost[rows]
        ew = bk.w[rows[er], ep]
        thr = (gu - tol[tu])[er]
        mv = np.flatnonzero((ew > 0) & (ew < thr) & keeps[er])
        if len(mv):
            mg = np.minimum(ew[mv], gu[er[mv]] - ew[mv])
            ms = mg / (ew[mv] + cost[er[mv]])
            best = _segment_first_best(er[mv], (ms, mg))
            at = u[er[mv][best]]
            move[0][at], move[1][at], move[2][at] = ms[best], mg[best], ep[mv][best]
        in_order = np.take_along_axis(bk.own[g], bk.by_weight[g], axis=1)[tu]     # owners by (weight, pid)
        for dst, src in zip(swap, _best_swap(bk, rows, in_order, cost, er, ep, ew, bu, gu, tol[tu])):
            dst[u] = src
    # Candidates in the engine's order: per partner (lightest first) its move, then its swap.
    S, Gn, Pm, Q = (np.stack([m.reshape(n, P), s_.reshape(n, P)], axis=2).reshape(n, 2 * P)
                    for m, s_ in zip(move, swap))
    c = _lex_best(S > -np.inf, (S, Gn, -Pm.astype(np.float64)))
    got = c >= 0
    cc = np.maximum(c, 0)
    pid1 = np.where(got, Pm[i, cc], -1)
    to1 = partners[i, cc // 2]
    pid2 = np.where(got, Q[i, cc], -1)
    to2 = np.where(pid2 >= 0, a, -1)
    return pid1, to1, pid2, to2


def _best_swap(bk: Any, g: np.ndarray, in_order: np.ndarray, cost: np.ndarray, er: np.ndarray, ep: np.ndarray,
               ew: np.ndarray, b: np.ndarray, gap: np.ndarray, tol: np.ndarray
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row (a group ``g`` and a partner ``b`` with a gap worth closing), the best swap between
    ``a`` and ``b``: ``(score, gain, pid of a's partition, pid of b's)``; score -inf where there
    is none. ``in_order``: each row's owners in the bucket's (weight, pid) order; ``er``, ``ep``,
    ``ew``: a's partitions as flat elements (row, pid, weight)."""
    n = len(g)
    score, gain = np.full(n, -np.inf), np.zeros(n)
    pid_a, pid_b = np.full(n, -1, dtype=_I64), np.full(n, -1, dtype=_I64)
    # b's partitions of every row, in (row, weight, pid) order: a segment per row.
    r, k = np.nonzero(in_order == b[:, None])
    q, wq = bk.by_weight[g[r], k], bk.w_by_weight[g[r], k]
    nb = np.bincount(r, minlength=n)
    first = np.cumsum(nb) - nb
    # Only a partition of a with some pair inside the window can have a candidate: float
    # subtraction is monotone, so b's lightest and heaviest bound every difference (exact).
    has = nb > 0
    lightest, heaviest = np.full(n, np.inf), np.full(n, -np.inf)
    lightest[has], heaviest[has] = wq[first[has]], wq[first[has] + nb[has] - 1]
    sel = np.flatnonzero(has[er] & (ew - lightest[er] > tol[er]) & (ew - heaviest[er] < (gap - tol)[er]))
    if len(sel) == 0:
        return score, gain, pid_a, pid_b
    # Each such p: how many of b's weigh less than w[p] - gap / 2 (a binary search in its row's
    # segment, all elements at once), and the two around that point.
    ra, p, wp = er[sel], ep[sel], ew[sel]
    target = wp - gap[ra] / 2
    lo, hi = first[ra], first[ra] + nb[ra]
    for _ in range(int(nb.max()).bit_length()):
        mid = (lo + hi) // 2
        below = (mid < hi) & (wq[np.minimum(mid, len(wq) - 1)] < target)
        lo, hi = np.where(below, mid + 1, lo), np.where(below, hi, mid)
    at = lo - first[ra]
    last = nb[ra] - 1
    j = np.stack([np.clip(at - 1, 0, last), np.clip(at, 0, last)], axis=1).reshape(-1)
    rr, pp, wa = np.repeat(ra, 2), np.repeat(p, 2), np.repeat(wp, 2)     # (row, p, lower neighbour first)
    qb, wb = q[first[rr] + j], wq[first[rr] + j]
    delta = wa - wb
    e = np.flatnonzero((delta > tol[rr]) & (delta < (gap - tol)[rr]))
    if len(e) == 0:
        return score, gain, pid_a, pid_b
    sg = np.minimum(delta[e], gap[rr[e]] - delta[e])
    ss = sg / (wa[e] + wb[e] + 2 * cost[rr[e]])
    best = _segment_first_best(rr[e], (ss, sg))
    rows = rr[e][best]
    score[rows], gain[rows] = ss[best], sg[best]
    pid_a[rows], pid_b[rows] = pp[e][best], qb[e][best]
    return score, gain, pid_a, pid_b


def _segment_first_best(seg: np.ndarray, keys: Sequence[np.ndarray]) -> np.ndarray:
    """For elements sorted by ``seg``, per segment the position of the first element maximising
    ``keys`` in turn."""
    starts = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]]))
    cand = np.ones(len(seg), dtype=bool)
    which = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(seg))))
    for key in keys:
        v = np.where(cand, key, -np.inf)
        cand &= v == np.maximum.reduceat(v, starts)[which]
    at = np.flatnonzero(cand)
    return at[np.searchsorted(at, starts)]


def _lex_best(valid: np.ndarray, keys: Sequence[np.ndarray]) -> np.ndarray:
    """Per row, the first column maximising ``keys`` in turn among ``valid`` ones; -1 if none."""
    cand = valid
    for key in keys:
        v = np.where(cand, key, -np.inf)
        cand = cand & (v == v.max(axis=1)[:, None])
    return np.where(valid.any(axis=1), np.argmax(cand, axis=1), -1)

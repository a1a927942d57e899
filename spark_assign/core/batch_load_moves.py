"""The improve stage's choice of action, for many groups at once (see :mod:`.batch_load`).

For every group still improving, :func:`best_actions` finds what
``_LoadBuilder._best_action`` finds for its heaviest member: the best move of one
of its partitions to, or swap with, one of its ``PARTNERS`` lightest members. The
candidates, their scores and the order ties break in are the per-group engine's
(:mod:`.load_aware`); only the loops are replaced by array operations over groups:

* members tied at the top are tried in index order, the next only where the
  previous had no action;
* a swap pairs each partition ``p`` of the heaviest member ``a`` with the two
  partitions of ``b`` (sorted by weight, then pid) around ``w[p] - gap / 2``; their
  positions come from one ``searchsorted`` over the whole batch, on integer keys
  (group, weight rank, pid), so no float is ever compared but the weights themselves.
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple

import numpy as np

from .load_aware import MIN_GAIN, PARTNERS

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
    """The best action of member ``a`` of each group ``g`` (see the module docstring)."""
    n = len(g)
    i = np.arange(n)
    loads, counts, ok = bk.loads[g], bk.counts[g], bk.member_ok[g]
    own, w, cost = bk.own[g], bk.w[g], bk.cost[g]
    la = loads[i, a]
    tol = MIN_GAIN * la
    mine = own == a[:, None]
    has = mine.any(axis=1)
    key = np.where(ok, loads, np.inf)
    key[i, a] = np.inf
    partners = np.argsort(key, axis=1, kind="stable")[:, :PARTNERS]
    real = np.take_along_axis(key, partners, axis=1) < np.inf
    cmax = np.where(ok, counts, -1).max(axis=1)
    cmin = np.where(ok, counts, np.iinfo(_I64).max).min(axis=1)
    cols = np.arange(w.shape[1])
    score, gain, pid, their_pid, other = [], [], [], [], []
    for j in range(partners.shape[1]):
        b = partners[:, j]
        gap = la - loads[i, b]
        usable = real[:, j] & (gap > tol) & has
        # A move keeps the count spread within the skew (the old extremes assumed to stay).
        keeps = np.maximum(cmax, counts[i, b] + 1) - np.minimum(cmin, counts[i, a] - 1) <= bk.skew
        room = (gap - tol)[:, None]
        mv = mine & (w > 0) & (w < room) & (usable & keeps)[:, None]
        mg = np.minimum(w, gap[:, None] - w)
        ms = mg / (w + cost[:, None])
        k = _lex_best(mv, (ms, mg))
        found = k >= 0
        kk = np.maximum(k, 0)
        score.append(np.where(found, ms[i, kk], -np.inf))
        gain.append(mg[i, kk])
        pid.append(np.where(found, cols[kk], -1))
        their_pid.append(np.full(n, -1))
        other.append(b)
        s = _best_swap(bk, g, own, w, cost, mine, b, gap, tol, usable)
        score.append(s[0])
        gain.append(s[1])
        pid.append(s[2])
        their_pid.append(s[3])
        other.append(b)
    S, Gn, P, Q, O = (np.stack(x, axis=1) for x in (score, gain, pid, their_pid, other))
    valid = S > -np.inf
    c = _lex_best(valid, (S, Gn, -P.astype(np.float64)))
    got = c >= 0
    cc = np.maximum(c, 0)
    pid1 = np.where(got, P[i, cc], -1)
    to1 = O[i, cc]
    pid2 = np.where(got, Q[i, cc], -1)
    to2 = np.where(pid2 >= 0, a, -1)
    return pid1, to1, pid2, to2


def _best_swap(bk: Any, g: np.ndarray, own: np.ndarray, w: np.ndarray, cost: np.ndarray, mine: np.ndarray,
               b: np.ndarray, gap: np.ndarray, tol: np.ndarray, usable: np.ndarray
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group, the best swap between ``a`` (``mine``) and ``b``: ``(score, gain, pid of a's
    partition, pid of b's)``; score -inf where there is none."""
    n, Np = w.shape
    i = np.arange(n)
    theirs = own == b[:, None]
    nb = theirs.sum(axis=1)
    # b's partitions of every group, sorted by (group row, weight, pid) as integer keys.
    R = bk.ranks + 1
    r, q = np.nonzero(theirs)
    keys = (r * R + bk.wrank[g[r], q]) * Np + q
    order = np.argsort(keys, kind="stable")
    keys, q_sorted = keys[order], q[order]
    first = np.searchsorted(keys, i * R * Np)
    # For each partition p of a: how many of b's weigh less than w[p] - gap / 2.
    x = w - gap[:, None] / 2
    rx = np.searchsorted(bk.uniq, x, side="left")
    at = np.searchsorted(keys, ((i * R)[:, None] + rx) * Np) - first[:, None]
    last = np.maximum(nb - 1, 0)[:, None]
    j = np.stack([np.clip(at - 1, 0, last), np.clip(at, 0, last)], axis=2)      # [n, Np, 2]
    pos = np.minimum(first[:, None, None] + j, max(len(q_sorted) - 1, 0))
    qb = q_sorted[pos] if len(q_sorted) else np.zeros_like(j)
    wb = w[i[:, None, None], qb]
    wa = w[:, :, None]
    delta = wa - wb
    g_ = (gap - tol)[:, None, None]
    ok = mine[:, :, None] & (nb > 0)[:, None, None] & usable[:, None, None] & \
        (delta > tol[:, None, None]) & (delta < g_)
    sg = np.minimum(delta, gap[:, None, None] - delta)
    ss = sg / (wa + wb + 2 * cost[:, None, None])
    flat = (n, Np * 2)                                   # (p, then the lower neighbour first)
    k = _lex_best(ok.reshape(flat), (ss.reshape(flat), sg.reshape(flat)))
    found = k >= 0
    kk = np.maximum(k, 0)
    score = np.where(found, ss.reshape(flat)[i, kk], -np.inf)
    return score, sg.reshape(flat)[i, kk], np.where(found, kk // 2, -1), \
        np.where(found, qb.reshape(flat)[i, kk], -1)


def _lex_best(valid: np.ndarray, keys: Sequence[np.ndarray]) -> np.ndarray:
    """Per row, the first column maximising ``keys`` in turn among ``valid`` ones; -1 if none."""
    cand = valid
    for key in keys:
        v = np.where(cand, key, -np.inf)
        cand = cand & (v == v.max(axis=1)[:, None])
    return np.where(valid.any(axis=1), np.argmax(cand, axis=1), -1)

"""``load-aware`` and ``cooperative-load-aware`` over many groups at once (see :mod:`.batch`).

The same rules as :mod:`.load_aware`, run in lock step: every group of a bucket
takes its k-th decision in the same round of array operations, so a fleet of
small groups costs a few dozen NumPy calls per round instead of a few hundred
per group. Each group sees exactly the sequence of float operations the
per-group engine performs (loads summed in pid order, then updated action by
action), so every comparison, tie included, comes out the same; the
differential tests hold the two to identical rows.

Covered: plain groups where every member subscribes to every topic (one class),
with at most :data:`MAX_ROWS` partitions and :data:`MAX_MEMBERS` members. Groups
whose weights are all equal are count balancing, i.e. ``sticky``
(``cooperative-sticky``), and go to that rule (:func:`.batch_rules.sticky_owner`).
Everything else is declined (the per-group engine assigns it).

Pipeline of :func:`load_owner`: ``keep`` (claims) -> ``place`` (fresh groups:
heaviest first to the least loaded with count room, as :func:`.load_aware._fill_fresh`
does for small groups; others: the unowned heaviest first under the count cap)
-> ``repair`` -> ``improve`` (moves and swaps of the heaviest member, then the
``min_improvement`` prefix) -> ``withhold`` (cooperative).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from .layout import Layout
from .load_moves import best_actions
from .rules import sticky_owner
from ..strategies.load_aware import MAX_STEPS, SMALL

__all__ = ["load_owner", "MAX_ROWS", "MAX_MEMBERS"]

#: Most partitions of a group the lock step takes: the per-group engine's one-by-one fill
#: covers a fresh group up to this size (larger ones deal rounds, per group).
MAX_ROWS = SMALL
#: Most members of a group the lock step takes (arrays are padded to a bucket's widest group).
MAX_MEMBERS = 64

_I64 = np.int64
_NONE = -1


def load_owner(lay: Layout, take: np.ndarray, weight: np.ndarray, skew: int, min_improvement: float,
               cooperative: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Owners (member rows, -1 while withheld) of the rows of the groups taken, and which groups
    were taken. ``weight``: each row's weight (float64, checked; the engine's dense weights)."""
    rows = np.diff(lay.row_off)
    take = take & lay.complete & (rows > 0) & (rows <= MAX_ROWS) & (lay.members <= MAX_MEMBERS)
    owner = np.full(lay.R, -1, dtype=_I64)
    if not take.any():
        return owner, take
    # All weights of a group equal: count balance, which is sticky's (load_aware.assign_load_aware).
    hi, lo = np.full(lay.G, -np.inf), np.full(lay.G, np.inf)
    starts = lay.row_off[:-1][rows > 0]            # a group's rows run to the next such start
    hi[rows > 0] = np.maximum.reduceat(weight, starts)
    lo[rows > 0] = np.minimum.reduceat(weight, starts)
    uniform = take & (hi == lo)
    if uniform.any():
        sticky, took = sticky_owner(lay, uniform, cooperative)
        owner[took[lay.row_group]] = sticky[took[lay.row_group]]
        take = (take & ~uniform) | took
        uniform = took
    weighted = take & ~uniform
    # Buckets of groups of like size (partitions up to the next power of two): arrays are padded
    # to a bucket's largest group, so one large group does not widen every small group's rows.
    size = np.ceil(np.log2(np.maximum(rows, 1))).astype(_I64)
    for bucket in np.unique(size[weighted]).tolist():
        groups = np.flatnonzero(weighted & (size == bucket))
        slots = _Bucket(lay, groups, weight, skew).run(min_improvement)
        inside = np.zeros(lay.G, dtype=bool)
        inside[groups] = True
        owner[inside[lay.row_group]] = lay.slot_row[slots]
    if cooperative and weighted.any():
        # KIP-429: a partition changing owner is revoked first, assigned the next generation.
        claimer = np.where(lay.claimed >= 0, lay.slot_row[np.maximum(lay.claimed, 0)], -1)
        owner[weighted[lay.row_group] & (lay.claimed >= 0) & (owner != claimer)] = -1
    return owner, take


@dataclass
class _Log:
    """The actions of the improve stage, in the order they were applied (a swap is two rows)."""

    group: List[np.ndarray]
    pid: List[np.ndarray]
    to: List[np.ndarray]
    number: List[np.ndarray]          # the action's 1-based number within its group
    peak: List[np.ndarray]            # the heaviest load after the action (per action, first row)


class _Bucket:
    """The groups ``groups`` of ``lay``, padded to ``Mp`` members and ``Np`` partitions.

    Group ``b``'s partition ``j`` (its pid, Java topic order then partition) is row
    ``lay.row_off[groups[b]] + j``; member ``m`` is its slot ``first_slot[b] + m`` (Java id
    order, the engine's member index). ``own[b, j]``: member index, -1 for padding.
    """

    def __init__(self, lay: Layout, groups: np.ndarray, weight: np.ndarray, skew: int) -> None:
        self.lay, self.groups, self.skew = lay, groups, skew
        B = len(groups)
        self.n = np.diff(lay.row_off)[groups]
        self.m = lay.members[groups]
        self.Np, self.Mp = int(self.n.max()), int(self.m.max())
        cols = np.arange(self.Np)
        self.row_ok = cols[None, :] < self.n[:, None]
        self.rows = np.where(self.row_ok, lay.row_off[groups][:, None] + cols[None, :], 0)
        self.w = np.where(self.row_ok, weight[self.rows], 0.0)
        self.member_ok = np.arange(self.Mp)[None, :] < self.m[:, None]
        self.first_slot = np.searchsorted(lay.slot_group, groups)
        self.own = np.full((B, self.Np), _NONE, dtype=_I64)
        # Weights as integer ranks: exact integer sort keys for (weight, pid) orders.
        uniq, inverse = np.unique(self.w[self.row_ok], return_inverse=True)
        self.ranks = len(uniq)
        self.wrank = np.zeros((B, self.Np), dtype=_I64)
        self.wrank[self.row_ok] = inverse.reshape(-1)
        # Each group's pids by (weight, pid), padding last: fixed for the whole run (weights do
        # not change), so a swap search never sorts a member's partitions again.
        self.by_weight = np.argsort(np.where(self.row_ok, self.wrank * self.Np + cols[None, :], np.iinfo(_I64).max),
                                    axis=1, kind="stable")
        self.w_by_weight = np.take_along_axis(self.w, self.by_weight, axis=1)
        # One restart costs one mean positive weight, summed in pid order as the engine sums it
        # (adding the zeros in between changes no partial sum).
        total = np.cumsum(np.where(self.w > 0, self.w, 0.0), axis=1)[:, -1]
        positive = (self.w > 0).sum(axis=1)
        self.cost = np.where(positive > 0, total / np.maximum(positive, 1), 1.0)

    # ------------------------------------------------------------------ pipeline

    def run(self, min_improvement: float) -> np.ndarray:
        """The member slot owning each row of the bucket's groups, in row order."""
        fresh = self.keep()
        self.place_fresh(np.flatnonzero(fresh))
        self.place_claimed(np.flatnonzero(~fresh))
        self.repair()
        self.improve(fresh, min_improvement)
        slot = self.first_slot[:, None] + self.own
        return slot[self.row_ok]

    def keep(self) -> np.ndarray:
        """Stage 1: every claim stands (a plain group has no partition claimed twice, and every
        member subscribes to every topic). Returns which groups are fresh (nothing claimed)."""
        lay = self.lay
        claimed = lay.claimed[self.rows]
        self.own = np.where(self.row_ok & (claimed >= 0), lay.local[np.maximum(claimed, 0)], _NONE)
        return np.asarray(~(self.own >= 0).any(axis=1), dtype=bool)

    def tally(self) -> None:
        """Counts and loads per member, loads summed in pid order (as ``np.bincount`` does)."""
        B = len(self.groups)
        key = (np.arange(B)[:, None] * self.Mp + self.own)[self.own >= 0]
        held = self.w[self.own >= 0]
        self.counts = np.bincount(key, minlength=B * self.Mp).reshape(B, self.Mp).astype(_I64)
        self.loads = np.bincount(key, weights=held, minlength=B * self.Mp).reshape(B, self.Mp).astype(np.float64)

    def _heaviest_first(self, bs: np.ndarray, unowned: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows (group, pid) with ``unowned`` of groups ``bs``, by group, then decreasing weight,
        then pid; and each one's position within its group."""
        b, j = np.nonzero(unowned[bs])
        b = bs[b]
        R = self.ranks + 1                  # heavier = higher weight rank: one int64 sort key
        order = np.argsort((b * R + (R - 1 - self.wrank[b, j])) * self.Np + j)
        b, j = b[order], j[order]
        start = np.searchsorted(b, b, side="left")
        return b, j, np.arange(len(b)) - start

    def place_fresh(self, bs: np.ndarray) -> None:
        """Stage 2, fresh groups: each partition (heaviest first, ties: lower pid) to the member
        with room of least (load, count, index); room: fewer than ``q = N // M``, or ``q`` while
        fewer than ``N % M`` members have reached ``q + 1`` (:func:`.load_aware._fill_fresh`)."""
        if len(bs) == 0:
            self.tally()
            return
        b, j, k = self._heaviest_first(bs, self.row_ok)
        # Dense by step: row i of ``order`` lists group bs[i]'s pids heaviest first (-1 past its end),
        # so each step works on whole arrays, no gather of a group's member rows.
        order = np.full((len(bs), int(k.max()) + 1), -1, dtype=_I64)
        order[np.searchsorted(bs, b), k] = j
        q, extra = (self.n // self.m)[bs][:, None], (self.n % self.m)[bs]
        ok, w = self.member_ok[bs], self.w[bs]
        loads = np.zeros((len(bs), self.Mp))
        counts = np.zeros((len(bs), self.Mp), dtype=_I64)
        for step in order.T:
            i = np.flatnonzero(step >= 0)                 # groups with a partition left
            room = ok & ((counts < q) | ((counts == q) & (extra > 0)[:, None]))
            m = _least(np.where(room, loads, np.inf), counts)[i]
            p = step[i]
            extra[i] -= counts[i, m] == q[i, 0]
            loads[i, m] += w[i, p]
            counts[i, m] += 1
            self.own[bs[i], p] = m
        self.tally()

    def place_claimed(self, bs: np.ndarray) -> None:
        """Stage 2, groups with claims: the unowned partitions, heaviest first, each to the least
        loaded member (ties: fewer partitions, lower index) holding fewer than ``min + skew``."""
        if len(bs) == 0:
            return
        b, j, k = self._heaviest_first(bs, self.row_ok & (self.own < 0))
        for step in range(int(k.max()) + 1 if len(k) else 0):
            at = k == step
            g, p = b[at], j[at]
            c = self.counts[g]
            floor = np.where(self.member_ok[g], c, np.iinfo(_I64).max).min(axis=1)
            room = self.member_ok[g] & (c < (floor + self.skew)[:, None])
            m = _least(np.where(room, self.loads[g], np.inf), c)
            self.loads[g, m] += self.w[g, p]
            self.counts[g, m] += 1
            self.own[g, p] = m

    def repair(self) -> None:
        """Stage 3: while a group's counts differ by more than ``skew``, its fullest member (most
        load among them) gives the partition whose weight is nearest half their load gap (ties:
        lower pid) to its emptiest (least load among them)."""
        big = np.iinfo(_I64).max
        while True:
            cmax = np.where(self.member_ok, self.counts, -1).max(axis=1)
            cmin = np.where(self.member_ok, self.counts, big).min(axis=1)
            g = np.flatnonzero((cmax - cmin > self.skew) & (self.m >= 2))
            if len(g) == 0:
                return
            loads, counts = self.loads[g], self.counts[g]
            a = np.argmax(np.where(counts == cmax[g][:, None], loads, -np.inf), axis=1)
            bm = np.argmin(np.where(self.member_ok[g] & (counts == cmin[g][:, None]), loads, np.inf), axis=1)
            i = np.arange(len(g))
            target = np.maximum(0.0, (loads[i, a] - loads[i, bm]) / 2)
            mine = self.own[g] == a[:, None]
            pid = np.argmin(np.where(mine, np.abs(self.w[g] - target[:, None]), np.inf), axis=1)
            self._apply(g, pid, bm)

    def _apply(self, g: np.ndarray, pid: np.ndarray, to: np.ndarray) -> None:
        """Move partition ``pid`` of each group ``g`` to member ``to`` (as ``_LoadBuilder._apply``)."""
        frm = self.own[g, pid]
        w = self.w[g, pid]
        self.own[g, pid] = to
        self.loads[g, frm] -= w
        self.loads[g, to] += w
        self.counts[g, frm] -= 1
        self.counts[g, to] += 1

    # ------------------------------------------------------------------ stage 4

    def improve(self, fresh: np.ndarray, min_improvement: float) -> None:
        """Stage 4, in lock step (see :meth:`.load_aware._LoadBuilder.improve`)."""
        B = len(self.groups)
        start = self.own.copy()
        first_peak = np.where(self.member_ok, self.loads, -np.inf).max(axis=1)
        limit = MAX_STEPS * self.m + 64
        done = np.zeros(B, dtype=np.int64)             # actions taken per group
        active = np.arange(B)
        log = _Log([], [], [], [], [])
        while len(active):
            pid1, to1, pid2, to2 = best_actions(self, active)
            acted = pid1 >= 0
            active, pid1, to1, pid2, to2 = active[acted], pid1[acted], to1[acted], pid2[acted], to2[acted]
            if len(active) == 0:
                break
            self._apply(active, pid1, to1)
            swap = pid2 >= 0
            self._apply(active[swap], pid2[swap], to2[swap])
            done[active] += 1
            peak = np.where(self.member_ok[active], self.loads[active], -np.inf).max(axis=1)
            log.group += [active, active[swap]]
            log.pid += [pid1, pid2[swap]]
            log.to += [to1, to2[swap]]
            log.number += [done[active], done[active][swap]]
            log.peak += [peak, peak[swap]]
            active = active[done[active] < limit[active]]
        self._cut(log, start, first_peak, ~fresh & (done > 0), min_improvement)

    def _cut(self, log: _Log, start: np.ndarray, first_peak: np.ndarray, sticky: np.ndarray,
             min_improvement: float) -> None:
        """A rebalance keeps only the shortest prefix of its actions reaching ``(1 + r)`` times the
        final peak, or none when the first peak is already within it."""
        if not sticky.any():
            return
        group, number, peak = (np.concatenate(x) for x in (log.group, log.number, log.peak))
        pid, to = np.concatenate(log.pid), np.concatenate(log.to)
        last = np.zeros(len(self.groups), dtype=np.int64)
        np.maximum.at(last, group, number)
        final = np.full(len(self.groups), np.nan)
        final[group[number == last[group]]] = peak[number == last[group]]
        bound = (1 + min_improvement) * final
        keep = np.where(first_peak <= bound, 0, last)       # the last action always reaches the bound
        reach = (peak <= bound[group])
        np.minimum.at(keep, group[reach], number[reach])
        cut = np.flatnonzero(sticky & (keep < last))
        if len(cut) == 0:
            return
        self.own[cut] = start[cut]
        cut_mask = np.zeros(len(self.groups), dtype=bool)
        cut_mask[cut] = True
        redo = np.flatnonzero(cut_mask[group] & (number <= keep[group]))
        # In log order, a pid's last action wins: keep the last row of each (group, pid).
        key = (group[redo] * self.Np + pid[redo])[::-1]
        _, last_row = np.unique(key, return_index=True)
        redo = redo[::-1][last_row]
        self.own[group[redo], pid[redo]] = to[redo]


#: Up to this many columns, :func:`_least` walks them one by one (NumPy reduces a short last
#: axis slowly); wider arrays are reduced along the axis.
_NARROW = 8


def _least(loads: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per row, the column of least (load, count, index) (``loads`` +inf where not allowed)."""
    if loads.shape[1] <= _NARROW:
        best = np.zeros(len(loads), dtype=_I64)
        low, few = loads[:, 0], counts[:, 0]
        for m in range(1, loads.shape[1]):
            lm, cm = loads[:, m], counts[:, m]
            better = (lm < low) | ((lm == low) & (cm < few))     # strict: a full tie keeps the lower index
            best[better] = m
            low, few = np.where(better, lm, low), np.where(better, cm, few)
        return best
    lowest = loads.min(axis=1)
    tied = loads == lowest[:, None]
    c = np.where(tied, counts, np.iinfo(_I64).max)
    return np.argmin(c, axis=1)

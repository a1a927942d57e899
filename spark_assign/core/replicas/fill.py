"""Filling a reassignment's holes so that every broker meets its target exactly.

Step 3 of the ``sticky`` replica reassignment (:mod:`.replica_sticky`). The
placement so far is a ``(P, RF)`` matrix of dense broker numbers with ``-1``
holes; each broker holds at most its target (:mod:`.replica_targets`), and the
holes add up to what the brokers lack. Filling them is a flow problem:

    hole of partition p -> (p, rack r) -> broker b of rack r -> b's deficit

where ``(p, r)`` may receive up to ``hi_r`` replicas, must receive ``lo_r``
(``RF > R``: every rack covered), and ``(p, r) -> b`` carries one unit only
when ``b`` is not in ``p`` yet. A rack-distinct placement meeting any
feasible targets exists (deal the racks' replicas column by column), so a
complete flow exists and augmenting paths always find it.

1. **Greedy** (almost everything): partition by partition, each hole takes a
   short broker that held a replica of the partition before (free), else the
   broker furthest below its target the partition accepts (a heap; an
   uncovered rack first when the partition has no slack).
2. **Augmenting paths** for the holes the greedy leaves (every short broker
   already in the partition, or on a full rack): a 0-1 breadth-first search
   over the residual graph, from every hole at once, to a short broker. A path
   reassigns replicas along the way (``y`` leaves ``q`` for ``p``, a short
   broker takes ``y``'s place in ``q``, ...), at a cost of one per replica
   taken off a broker that held it before: the cheapest path first.

With the lower bound of flows (``lo_r`` per rack) written as supplies, a hole
is either *mandatory* (a rack the partition does not cover yet; it starts at
``(p, r)``) or *free* (it starts at ``p``), and ``(q, r) -> q`` (a replica
moving to another rack of ``q``) exists only while ``q`` keeps ``lo_r`` there.
Limits: the greedy loops in Python over the partitions with holes (time grows
with the moves); each augmenting path may visit the whole placement, which
only the rare leftovers pay.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Deque, Dict, List, Set, Tuple

import numpy as np

from .targets import RackLayout, rack_counts

__all__ = ["fill_holes"]


class _Short:
    """Brokers below their target, the furthest below first (a heap with lazy deletion over the
    shared ``deficit`` list)."""

    def __init__(self, deficit: List[int], brokers: List[int]) -> None:
        self.deficit = deficit
        self.heap = [(-deficit[b], b) for b in brokers if deficit[b] > 0]
        heapq.heapify(self.heap)

    def pop(self, members: Set[int]) -> int:
        """The furthest-below broker not in ``members`` (its deficit decremented), or -1."""
        aside = []
        found = -1
        while self.heap:
            d, b = heapq.heappop(self.heap)
            if -d != self.deficit[b]:
                continue                              # stale entry
            if b not in members:
                found = b
                break
            aside.append((d, b))
        for item in aside:
            heapq.heappush(self.heap, item)
        if found >= 0:
            self.take(found)
        return found

    def take(self, b: int) -> None:
        self.deficit[b] -= 1
        if self.deficit[b] > 0:
            heapq.heappush(self.heap, (-self.deficit[b], b))


def fill_holes(m: np.ndarray, prev: np.ndarray, layout: RackLayout, target: np.ndarray) -> None:
    """Fill every hole of ``m`` in place, each broker ending exactly at its ``target``.

    Example::

        m = np.array([[0, -1], [1, -1]])
        fill_holes(m, np.array([[0, 1], [1, 2]]), rack_layout([Broker(i) for i in range(3)], 2, None),
                   np.array([1, 2, 1]))   # m == [[0, 1], [1, 2]]: both taken back from prev

    Parameters
    ----------
    m:
        ``(P, RF)`` dense brokers, ``-1`` holes; no broker above its target, the holes as many as
        the brokers lack, every row within the rack rules with room for the racks it lacks.
    prev:
        The previous placement (dense, ``-1`` padding): a short broker that held a replica of the
        partition is taken back first, and an augmenting path avoids taking replicas off it.
    layout, target:
        The brokers and racks, and the per-broker targets.
    """
    n = len(layout.ids)
    deficit = (target - np.bincount(m[m >= 0], minlength=n)).astype(np.int64).tolist()
    hole_rows = np.flatnonzero((m < 0).any(axis=1))
    if not len(hole_rows):
        return
    rows = m[hole_rows]
    left = _greedy(rows, prev[hole_rows], layout, deficit)
    m[hole_rows] = rows
    if left:
        holes = [(int(p), int(j)) for p, j in np.argwhere(m < 0)]
        if not all([_swap(m, p, j, prev, layout, deficit) for p, j in holes]):
            _Augmenter(m, prev, layout, deficit).run()


def _greedy(rows: np.ndarray, before: np.ndarray, layout: RackLayout, deficit: List[int]) -> bool:
    """Step 1 of the fill, in place on the rows with holes; True when holes are left.

    Row by row, each hole gets a rack, then the broker of that rack furthest below its target.
    Racks come in order of need: the racks the row does not cover yet (``RF > R``); then as many
    replicas of a rack as the rows after this one cannot take (``D_r`` short of rack ``r`` against
    their room ``A_r``: a rack no later row has room for is served now); the other holes take
    back a short broker that held a replica of the partition before (free), else a replica of
    the rack with the least slack ``A_r - D_r``."""
    racks, width = layout.racks, rows.shape[1]
    rack_of, lo, hi = layout.rack_of.tolist(), layout.lo.tolist(), layout.hi.tolist()
    short = [_Short(deficit, np.flatnonzero(layout.rack_of == r).tolist()) for r in range(racks)]
    rk = np.where(rows >= 0, layout.rack_of[np.maximum(rows, 0)], racks)
    have = np.stack([(rk == r).sum(axis=1) for r in range(racks)], axis=1)
    holes = (rows < 0).sum(axis=1)
    room = np.minimum(holes[:, None], np.maximum(layout.hi[None, :] - have, 0))
    avail = room.sum(axis=0).tolist()
    wanted = np.bincount(layout.rack_of, weights=np.asarray(deficit), minlength=racks).astype(np.int64).tolist()
    left = False
    for i, (row, old, x, free) in enumerate(zip(rows.tolist(), before.tolist(), have.tolist(), room.tolist())):
        for r in range(racks):
            avail[r] -= free[r]
        members = set(row)
        slots = [j for j in range(width) if row[j] < 0]
        need = [max(0, lo[r] - x[r]) for r in range(racks)]
        for r in range(racks):                    # what the later rows cannot take
            need[r] = min(max(need[r], wanted[r] - avail[r]), hi[r] - x[r])
        while sum(need) > len(slots):             # too many: keep the coverage, drop the most slack
            r = max((r for r in range(racks) if need[r] > max(0, lo[r] - x[r])), key=lambda r: avail[r] - wanted[r])
            need[r] -= 1
        chosen: List[int] = []
        for r in range(racks):
            for _ in range(need[r]):
                chosen.append(_take(r, old, members, short, deficit, rack_of))
                x[r] += 1
        for _ in range(len(slots) - len(chosen)):
            back = [b for b in old if b >= 0 and deficit[b] > 0 and b not in members and x[rack_of[b]] < hi[rack_of[b]]]
            if back:
                b = max(back, key=lambda c: deficit[c])
                short[rack_of[b]].take(b)
            else:
                b = -1
                for r in sorted((r for r in range(racks) if x[r] < hi[r] and wanted[r] > 0),
                                key=lambda r: (avail[r] - wanted[r], r)):
                    b = short[r].pop(members)
                    if b >= 0:
                        break
            if b >= 0:
                members.add(b)
                x[rack_of[b]] += 1
            chosen.append(b)
        for j, b in zip(slots, chosen):
            rows[i, j] = b
            if b >= 0:
                wanted[rack_of[b]] -= 1
            left = left or b < 0
    return left


def _take(r: int, old: List[int], members: Set[int], short: List[_Short], deficit: List[int],
          rack_of: List[int]) -> int:
    """A broker of rack ``r`` for a hole of a row (``members``): one that held a replica of it
    before if short, else the furthest below target; -1 when every short one is in the row."""
    back = [b for b in old if b >= 0 and rack_of[b] == r and deficit[b] > 0 and b not in members]
    if back:
        b = max(back, key=lambda c: deficit[c])
        short[r].take(b)
    else:
        b = short[r].pop(members)
    if b >= 0:
        members.add(b)
    return b


def _swap(m: np.ndarray, p: int, j: int, prev: np.ndarray, layout: RackLayout, deficit: List[int]) -> bool:
    """Step 2 of the fill, in place: the hole ``(p, j)`` takes a broker ``y`` from some partition
    ``q`` whose place a short broker ``b`` takes (``q: y -> b``; vectorized over every ``q``).
    A ``y`` the fill placed (not in ``prev``) first: that swap costs no move more, another one.
    False when no such swap exists (the holes then go to the augmenting paths)."""
    racks, rack_of = layout.racks, layout.rack_of
    row = m[p]
    have = np.bincount(rack_of[row[row >= 0]], minlength=racks)
    no_slack = layout.spread and int((row < 0).sum()) <= int((have == 0).sum())
    ok_in_p = (have[rack_of] < layout.hi[rack_of]) & ~(no_slack & (have[rack_of] > 0))
    ok_in_p[row[row >= 0]] = False
    valid, rk, cnt = rack_counts(m, rack_of)
    fresh = ~(m[:, :, None] == prev[:, None, :]).any(axis=2)
    for b in sorted((b for b, d in enumerate(deficit) if d > 0), key=lambda b: -deficit[b]):
        rb = int(rack_of[b])
        same = (rk == rb).sum(axis=1)
        fits = valid & ok_in_p[np.maximum(m, 0)] & ~(m == b).any(axis=1)[:, None] \
            & ((same[:, None] - (rk == rb)) < layout.hi[rb])
        if layout.spread:                            # y's rack stays covered in q
            fits &= (cnt >= 2) | (rk == rb)
        fits[p] = False
        hit = np.argwhere(fits & fresh)
        if not len(hit):
            hit = np.argwhere(fits)
        if len(hit):
            q, c = int(hit[0, 0]), int(hit[0, 1])
            m[p, j] = m[q, c]
            m[q, c] = b
            deficit[b] -= 1
            return True
    return False


class _Augmenter:
    """Augmenting paths for the holes left (see the module docstring). Nodes are ints:
    ``q`` (partition ``q``'s free units), ``P + q R + r`` (its rack ``r``), ``P + P R + b``
    (broker ``b``)."""

    def __init__(self, m: np.ndarray, prev: np.ndarray, layout: RackLayout, deficit: List[int]) -> None:
        self.m, self.prev, self.deficit = m, prev, deficit
        self.parts, self.racks = m.shape[0], layout.racks
        self.rack_of, self.lo, self.hi = layout.rack_of.tolist(), layout.lo.tolist(), layout.hi.tolist()
        self.members: List[List[int]] = [[] for _ in range(self.racks)]
        for b, r in enumerate(self.rack_of):
            self.members[r].append(b)
        self.rows_of: List[Set[int]] = [set() for _ in range(len(self.rack_of))]
        rows, _ = np.nonzero(m >= 0)
        for q, b in zip(rows.tolist(), m[m >= 0].tolist()):
            self.rows_of[b].add(q)
        self.holes = set(np.flatnonzero((m < 0).any(axis=1)).tolist())

    def run(self) -> None:
        """One cheapest path at a time until no hole is left."""
        while self.holes:
            path = self._search()
            if not path:
                raise AssertionError("sticky fill: no augmenting path to a broker short of its target (a bug)")
            self._apply(path)

    def _row(self, q: int) -> Tuple[List[int], List[int]]:
        """Row ``q``'s brokers and its replicas per rack."""
        row = [b for b in self.m[q].tolist() if b >= 0]
        x = [0] * self.racks
        for b in row:
            x[self.rack_of[b]] += 1
        return row, x

    def _search(self) -> List[int]:
        """The cheapest augmenting path (nodes, start first) from any hole to a short broker
        (a 0-1 breadth-first search); empty when there is none."""
        parts, racks = self.parts, self.racks
        brokers_at = parts + parts * racks
        dist: Dict[int, int] = {}
        parent: Dict[int, int] = {}
        queue: Deque[Tuple[int, int]] = deque()
        cache: Dict[int, Tuple[List[int], List[int]]] = {}

        def row(q: int) -> Tuple[List[int], List[int]]:
            if q not in cache:
                cache[q] = self._row(q)
            return cache[q]

        def relax(node: int, frm: int, d: int, cost: int) -> None:
            if d + cost < dist.get(node, 1 << 60):
                dist[node] = d + cost
                parent[node] = frm
                (queue.appendleft if cost == 0 else queue.append)((d + cost, node))

        for p in sorted(self.holes):
            members, x = row(p)
            mandatory = [r for r in range(racks) if x[r] < self.lo[r]]
            for r in mandatory:
                relax(parts + p * racks + r, -1, 0, 0)
            if self.m.shape[1] - len(members) > len(mandatory):
                relax(p, -1, 0, 0)
        while queue:
            d, node = queue.popleft()
            if d > dist[node]:
                continue
            if node >= brokers_at:                           # broker b: short (the end) or leaves a row
                b = node - brokers_at
                if self.deficit[b] > 0:
                    path = [node]
                    while parent[path[-1]] >= 0:
                        path.append(parent[path[-1]])
                    return path[::-1]
                r = self.rack_of[b]
                for q in self.rows_of[b]:
                    relax(parts + q * racks + r, node, d, 1 if b in self.prev[q].tolist() else 0)
            elif node >= parts:                              # (q, r): a broker of r joins q, or a free unit
                q, r = divmod(node - parts, racks)
                members, x = row(q)
                old = self.prev[q].tolist()
                for b in self.members[r]:
                    if b not in members:
                        relax(brokers_at + b, node, d, 0 if b in old else 1)
                if x[r] > self.lo[r]:
                    relax(q, node, d, 0)
            else:                                            # q's free unit goes to a rack with room
                members, x = row(node)
                for r in range(racks):
                    if x[r] < self.hi[r]:
                        relax(parts + node * racks + r, node, d, 0)
        return []

    def _apply(self, path: List[int]) -> None:
        """Apply a path: ``(q, r) -> b`` puts ``b`` in ``q``; ``b -> (q, r)`` takes it out."""
        parts, racks = self.parts, self.racks
        brokers_at = parts + parts * racks
        changes: Dict[int, Tuple[List[int], List[int]]] = {}
        for a, b in zip(path, path[1:]):
            if parts <= a < brokers_at and b >= brokers_at:
                changes.setdefault((a - parts) // racks, ([], []))[1].append(b - brokers_at)
            elif a >= brokers_at and parts <= b < brokers_at:
                changes.setdefault((b - parts) // racks, ([], []))[0].append(a - brokers_at)
        for q, (out, into) in changes.items():
            cells = self.m[q]
            free = [int(np.flatnonzero(cells == y)[0]) for y in out] + np.flatnonzero(cells < 0).tolist()
            for y in out:
                self.rows_of[y].discard(q)
            for z, col in zip(into, free):
                cells[col] = z
                self.rows_of[z].add(q)
            if not (cells < 0).any():
                self.holes.discard(q)
        self.deficit[path[-1] - brokers_at] -= 1

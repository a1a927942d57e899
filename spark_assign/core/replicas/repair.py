"""After the fill: give back kept replicas the fill dropped, along a chain of moved ones.

Stage 3 of the cluster ``sticky`` (:mod:`.cluster`) fills each topic to the
per-broker targets the integer program chose (:mod:`.transport`). The program
counts; it does not see that a partition needs distinct brokers. When a
partition has more holes than there are brokers below target outside it, the
fill puts a broker at its target into the partition and sheds one of that
broker's *kept* replicas elsewhere: one move more than the targets needed. A
different choice of targets (the same counts per broker, within the same
floors and ceilings) would have needed no such shedding.

:func:`restore_kept` repairs it without touching the balance: for a partition
``p`` that lost its previous replica on broker ``b`` and gained one on ``w``
(same rack), ``b`` takes back its place in ``p`` and gives up a replica it
gained in another partition ``q1`` of the topic to a broker ``x1`` not in
``q1``; ``x1`` gives up one it gained in ``q2`` to ``x2``, and so on, until
the chain reaches ``w`` (every count as before) or a broker with room (below
its topic ceiling and its cluster ceiling, while ``w`` is above its floors).
Each link stays on one rack, so every partition keeps its racks. The
partition ``p`` keeps a replica instead of moving one: one move fewer, and
every other link replaces a moved replica by another (or by a kept one). The
chain is a shortest path, found breadth first over the brokers.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

__all__ = ["restore_kept", "replica_counts"]


def restore_kept(m: np.ndarray, prev: np.ndarray, had: np.ndarray, topic: np.ndarray, rack_of: np.ndarray,
                 topic_bounds: Callable[[], Tuple[np.ndarray, np.ndarray]],
                 broker_bounds: Tuple[np.ndarray, np.ndarray], n: int, limit: int = 256) -> int:
    """In place on ``m`` (rows of every topic, dense brokers, -1 padding; ``prev`` the rows'
    previous replicas on brokers still usable, ``had`` whether a row had replicas at all, on any
    broker: those that had only on brokers gone move all theirs; ``topic`` each row's topic):
    the repairs of the module docstring, at most
    ``limit``. ``topic_bounds``: per topic and broker, the floor and ceiling of its count (asked
    only when a chain may start);
    ``broker_bounds``: per broker, of its total. Returns the moves saved."""
    lost = had[:, None] & (prev >= 0) & (prev < n) & ~(prev[:, :, None] == m[:, None, :]).any(axis=2)
    if not lost.any():
        return 0
    gained = _gained(m, prev, had)
    # Only a broker that lost a kept replica and gained one in the same topic can start a chain
    # (a broker shedding down to its target gained nothing): the common case ends here.
    starts = np.zeros((int(topic.max()) + 1, n), dtype=bool)
    starts[np.broadcast_to(topic[:, None], m.shape)[gained], m[gained]] = True
    lost &= starts[topic[:, None], np.clip(prev, 0, n - 1)]
    if not lost.any():
        return 0
    lo_t, hi_t = topic_bounds()
    lo_b, hi_b = broker_bounds
    counts, total = replica_counts(m, topic, len(lo_t), n)
    saved = 0
    for p, j in zip(*np.nonzero(lost)):
        if saved >= limit:
            break
        b, t = int(prev[p, j]), int(topic[p])
        if (m[p] == b).any():
            continue                                   # an earlier repair gave it back
        gained = _gained(m, prev, had)
        chain = _chain(m, gained, topic, rack_of, counts, total, lo_t, hi_t, lo_b, hi_b, int(p), b, t, n)
        if chain is None:
            continue
        w_col, links = chain
        w = int(m[p, w_col])
        m[p, w_col] = b
        end = b
        for q, c, y in links:                          # each link: y takes the place of m[q, c]
            m[q, c] = y
            end = y
        counts[t, w] -= 1
        counts[t, end] += 1
        total[w] -= 1
        total[end] += 1
        saved += 1
    return saved


def replica_counts(m: np.ndarray, topic: np.ndarray, topics: int, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """Replicas of ``m`` (rows of every topic, -1 padding) per topic and broker, and per broker."""
    cells = m >= 0
    counts = np.zeros((topics, n), dtype=np.int64)
    np.add.at(counts, (np.broadcast_to(topic[:, None], m.shape)[cells], m[cells]), 1)
    return counts, np.bincount(m[cells], minlength=n)


def _gained(m: np.ndarray, prev: np.ndarray, had: np.ndarray) -> np.ndarray:
    """Cells of ``m`` holding a replica new to its partition, in partitions that had replicas."""
    return (m >= 0) & had[:, None] & ~(m[:, :, None] == prev[:, None, :]).any(axis=2)


def _chain(m: np.ndarray, gained: np.ndarray, topic: np.ndarray, rack_of: np.ndarray, counts: np.ndarray,
           total: np.ndarray, lo_t: np.ndarray, hi_t: np.ndarray, lo_b: np.ndarray, hi_b: np.ndarray,
           p: int, b: int, t: int, n: int) -> Optional[Tuple[int, List[Tuple[int, int, int]]]]:
    """The column of ``w`` in row ``p`` and the links ``(q, c, y)`` from ``b`` to the chain's end
    (empty: ``b`` itself ends it), or None when no chain exists."""
    same = rack_of == rack_of[b]
    w_cols = np.flatnonzero(gained[p] & same[np.maximum(m[p], 0)])
    if not len(w_cols):
        return None
    ws = {int(m[p, c]): int(c) for c in w_cols}
    can_lose = {w: c for w, c in ws.items() if counts[t, w] > lo_t[t, w] and total[w] > lo_b[w]}
    rows = np.flatnonzero(topic == t)
    parent: Dict[int, Tuple[int, int, int]] = {}       # broker y -> (x, q, c): y took x's place at (q, c)
    frontier, seen = [b], {b}
    while frontier:
        for x in frontier:                             # a chain ending here: the counts allow it
            if x in ws:                                # back to w: every count as before
                return ws[x], _links(parent, x)
            if can_lose and counts[t, x] < hi_t[t, x] and total[x] < hi_b[x]:
                return next(iter(can_lose.values())), _links(parent, x)
        following = []
        for x in frontier:
            qs, cs = np.nonzero(gained[rows] & (m[rows] == x))
            for q, c in zip(rows[qs].tolist(), cs.tolist()):
                if q == p:
                    continue
                present = set(m[q][m[q] >= 0].tolist())
                for y in np.flatnonzero(same).tolist():
                    if y not in seen and y not in present:
                        seen.add(y)
                        parent[y] = (x, q, c)
                        following.append(y)
        frontier = following
    return None


def _links(parent: Dict[int, Tuple[int, int, int]], end: int) -> List[Tuple[int, int, int]]:
    """The links from the chain's start to ``end``, in order."""
    out = []
    while end in parent:
        x, q, c = parent[end]
        out.append((q, c, end))
        end = x
    return out[::-1]

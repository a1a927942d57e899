"""The most replicas any balanced, rack-distinct placement can keep from a previous one: a
maximum flow, the test oracle for replication-factor decreases (a tighter lower bound on moves
than :func:`~spark_assign.core.moves_lower_bound`, which counts per partition and per broker
separately).

The network relaxes the rules a placement must meet, so its maximum flow bounds the replicas
kept from above: source -> partition (capacity RF) -> (partition, rack) (capacity: replicas one
partition may put on the rack) -> broker (one edge per usable previous replica) -> sink
(capacity: the ceiling of the broker's water level). Dinic's algorithm, plain Python.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction
from math import ceil
from typing import Dict, List, Mapping, Optional, Sequence


class _Network:
    def __init__(self) -> None:
        self.head: List[int] = []          # per edge: the node it points to
        self.cap: List[int] = []
        self.out: List[List[int]] = []     # per node: its edges (the reverse of edge e is e ^ 1)

    def node(self) -> int:
        self.out.append([])
        return len(self.out) - 1

    def edge(self, a: int, b: int, cap: int) -> None:
        for frm, to, c in ((a, b, cap), (b, a, 0)):
            self.out[frm].append(len(self.head))
            self.head.append(to)
            self.cap.append(c)

    def max_flow(self, s: int, t: int) -> int:
        flow = 0
        while True:
            level = self._levels(s)
            if level[t] < 0:
                return flow
            nxt = [0] * len(self.out)
            while True:
                pushed = self._push(s, t, level, nxt)
                if not pushed:
                    break
                flow += pushed

    def _levels(self, s: int) -> List[int]:
        level = [-1] * len(self.out)
        level[s] = 0
        queue = deque([s])
        while queue:
            a = queue.popleft()
            for e in self.out[a]:
                if self.cap[e] and level[self.head[e]] < 0:
                    level[self.head[e]] = level[a] + 1
                    queue.append(self.head[e])
        return level

    def _push(self, s: int, t: int, level: List[int], nxt: List[int]) -> int:
        """One augmenting path along the level graph (iterative DFS); its bottleneck, or 0."""
        path: List[int] = []
        a = s
        while True:
            if a == t:
                amount = min(self.cap[e] for e in path)
                for e in path:
                    self.cap[e] -= amount
                    self.cap[e ^ 1] += amount
                return amount
            edges = self.out[a]
            while nxt[a] < len(edges):
                e = edges[nxt[a]]
                if self.cap[e] and level[self.head[e]] == level[a] + 1:
                    break
                nxt[a] += 1
            else:
                if not path:
                    return 0
                level[a] = -1                      # a dead end: never again this phase
                e = path.pop()
                a = self.head[e ^ 1]
                nxt[a] += 1
                continue
            path.append(edges[nxt[a]])
            a = self.head[edges[nxt[a]]]


def most_kept(previous: Sequence[Sequence[int]], racks: Mapping[int, Optional[str]], rf: int,
              levels: Mapping[int, Fraction]) -> int:
    """The most previous replicas any balanced rack-distinct placement of ``rf`` replicas keeps.

    ``previous``: broker ids per partition (-1 padding); ``racks``: the usable brokers and their
    racks; ``levels``: each usable broker's water level (its count is at most the ceiling)."""
    sizes: Dict[Optional[str], int] = {}
    for r in racks.values():
        sizes[r] = sizes.get(r, 0) + 1
    per_rack = {r: 1 if rf <= len(sizes) else min(s, rf - len(sizes) + 1) for r, s in sizes.items()}
    net = _Network()
    source, sink = net.node(), net.node()
    broker_node = {}
    for b, level in levels.items():
        broker_node[b] = net.node()
        net.edge(broker_node[b], sink, ceil(level))
    for row in previous:
        kept = [b for b in dict.fromkeys(row) if b in racks]
        if not kept:
            continue
        p = net.node()
        net.edge(source, p, rf)
        by_rack: Dict[Optional[str], List[int]] = {}
        for b in kept:
            by_rack.setdefault(racks[b], []).append(b)
        for r, brokers in by_rack.items():
            via = p
            if len(brokers) > per_rack[r]:
                via = net.node()
                net.edge(p, via, per_rack[r])
            for b in brokers:
                net.edge(via, broker_node[b], 1)
    return net.max_flow(source, sink)

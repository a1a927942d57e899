"""Kafka's ``PartitionMovements`` (``AbstractStickyAssignor``): the record that keeps the sticky
general path's rebalance sticky. When a partition of a topic is to move from A to B and an
earlier move of the same rebalance took another partition of that topic from B to A, that
partition goes back to B instead: the members end with the same counts and fewer partitions
change hands.

Partitions are pids (dense ints); members are indices. The per-pair sets are Java ``HashSet``s
because Kafka takes "the first" of one, which is its iteration order.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, cast

from ....java.util import JavaHashSet

__all__ = ["PartitionMovements"]


class PartitionMovements:
    """Kafka's record of moves within one rebalance: per partition its first source
    and current destination; per topic and (source, destination) pair, the set of
    partitions that moved that way (a Java ``HashSet``, whose order matters)."""

    def __init__(self) -> None:
        self.moves: Dict[int, Tuple[int, int]] = {}
        self.by_topic: Dict[int, Dict[Tuple[int, int], JavaHashSet]] = {}
        self.hashes: Dict[int, int] = {}

    def partition_to_move(self, pid: int, old: int, new: int, topic: int) -> int:
        pairs = self.by_topic.get(topic)
        if pairs is None:
            return pid
        if pid in self.moves:
            old = self.moves[pid][0]
        reverse: Optional[JavaHashSet] = pairs.get((new, old))
        if reverse is None:
            return pid
        return int(cast(int, reverse.first()))

    def move(self, pid: int, old: int, new: int, topic: int, java_hash: int) -> None:
        self.hashes[pid] = java_hash
        if pid in self.moves:
            src, _dst = self._remove(pid, topic)
            if src != new:
                self._add(pid, (src, new), topic)
        else:
            self._add(pid, (old, new), topic)

    def _remove(self, pid: int, topic: int) -> Tuple[int, int]:
        pair = self.moves.pop(pid)
        pairs = self.by_topic[topic]
        pairs[pair].remove(pid)
        if len(pairs[pair]) == 0:
            del pairs[pair]
        if not pairs:
            del self.by_topic[topic]
        return pair

    def _add(self, pid: int, pair: Tuple[int, int], topic: int) -> None:
        self.moves[pid] = pair
        pairs = self.by_topic.setdefault(topic, {})
        moved = pairs.get(pair)
        if moved is None:
            moved = pairs[pair] = JavaHashSet()
        moved.add(pid, self.hashes[pid])

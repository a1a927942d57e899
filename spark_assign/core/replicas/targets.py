"""What a balanced replica placement is when racks constrain it: per-broker targets and the move bound.

The home of ``sticky``'s notion of balance (:mod:`.replica_sticky`). With ``R``
racks (every usable broker racked; no racks is one rack) a partition's
``RF`` replicas must span ``min(RF, R)`` racks:

* ``RF <= R``: at most one replica per rack (``lo_r = 0``, ``hi_r = 1``);
* ``RF > R``: at least one on every rack, at most ``min(s_r, RF - R + 1)`` on a
  rack of ``s_r`` brokers (``lo_r = 1``).

Over ``P`` partitions rack ``r`` therefore holds between ``P lo_r`` and
``P hi_r`` replicas, and every such split of the ``P RF`` replicas among the
racks is reachable (deal the racks' replicas column by column over the
partitions). With racks of unequal sizes the even share ``P RF / N`` can be
out of reach: a rack of 2 brokers beside a rack of 8, with RF 3, holds at least
``P`` replicas, ``P / 2`` per broker, above the even ``0.3 P``.

**Balance** is then defined against the most even counts the racks allow.
Water-filling finds the level ``L`` with ``sum_r s_r clip(L, P lo_r / s_r,
P hi_r / s_r) = P RF``: each broker's *level* is its rack's clipped value, the
fractional count a perfectly even rack-distinct placement would give it. A
placement is balanced when every broker holds the floor or the ceiling of its
level (racks of equal size, or none: ``floor(P RF / N)`` or one more, max -
min <= 1). No rack-distinct placement is more even: the levels minimise every
convex measure of spread (max, max - min, variance) over the racks' bounds.

:func:`broker_targets` turns the levels into integer targets (summing to
``P RF``, within each rack's bounds), the ceilings going to the brokers with the
most ``weight`` (``sticky``: the replicas a broker holds now, so a balanced
placement is its own target). :func:`moves_bound` is the fewest replica moves a
balanced placement needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .admin import admin_brokers, check_factor
from .model import Broker

__all__ = ["RackLayout", "rack_layout", "broker_levels", "broker_targets", "rack_counts", "moves_bound",
           "partition_moves", "floor_ceil"]


@dataclass(frozen=True)
class RackLayout:
    """The usable brokers, dense: ``ids[i]`` is broker ``i``'s id, ``rack_of[i]`` its rack number;
    per rack: ``sizes`` (brokers), ``lo``/``hi`` (replicas one partition may put there)."""

    ids: np.ndarray
    rack_of: np.ndarray
    sizes: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    #: :func:`broker_levels` by (partitions, rf), filled as asked.
    levels: Dict[Tuple[int, int], np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    @property
    def racks(self) -> int:
        return len(self.sizes)

    @property
    def spread(self) -> bool:
        """True when every rack must hold a replica of every partition (``RF > R``)."""
        return bool(self.lo[0] > 0)


def rack_layout(brokers: Sequence[Broker], rf: int, rack_aware: Optional[str]) -> RackLayout:
    """The usable brokers (unfenced, ascending id) and the rack bounds for ``rf`` replicas.

    Example::

        rack_layout([Broker(1, "a"), Broker(2, "b"), Broker(3, "b")], 3, None).hi.tolist() == [1, 2]

    Parameters
    ----------
    brokers:
        The cluster's brokers (checked).
    rf:
        The replication factor (at least 1); above the usable brokers is an error naming it.
    rack_aware:
        As for ``admin-utils``: None/``enforced``, ``safe`` or ``disabled``.
    """
    ids, racks = admin_brokers(brokers, rack_aware)
    n = len(ids)
    check_factor(rf, n, sum(b.fenced for b in brokers))
    if racks is None:
        rack_of = np.zeros(n, dtype=np.int64)
    else:
        codes = {name: i for i, name in enumerate(sorted(set(racks)))}
        rack_of = np.array([codes[r] for r in racks], dtype=np.int64)
    sizes = np.bincount(rack_of, minlength=1).astype(np.int64)
    count = len(sizes)
    if rf <= count:
        lo, hi = np.zeros(count, dtype=np.int64), np.ones(count, dtype=np.int64)
    else:
        lo, hi = np.ones(count, dtype=np.int64), np.minimum(sizes, rf - count + 1)
    return RackLayout(np.asarray(ids, dtype=np.int64), rack_of, sizes, lo, hi)


def broker_levels(layout: RackLayout, partitions: int, rf: int) -> np.ndarray:
    """Each broker's water level (float): its rack's ``clip(L, P lo_r / s_r, P hi_r / s_r)``
    (remembered per layout: a cluster's topics share a few shapes; do not change the result).

    Example::

        brokers = [Broker(i, rack="a" if i < 8 else "b") for i in range(10)]
        broker_levels(rack_layout(brokers, 3, None), 10, 3)    # 2.5 on rack a (8 brokers), 5.0 on b
    """
    key = (partitions, rf)
    known = layout.levels.get(key)
    if known is None:
        known = layout.levels[key] = _water_levels(layout, partitions, rf)
        known.setflags(write=False)
    return known


def _water_levels(layout: RackLayout, partitions: int, rf: int) -> np.ndarray:
    s, total = layout.sizes.astype(np.float64), partitions * rf
    a, b = partitions * layout.lo / s, partitions * layout.hi / s
    low, high = 0.0, float(partitions)
    for _ in range(100):                          # f(L) = sum s clip(L, a, b) is non-decreasing
        mid = (low + high) / 2
        if float((s * np.clip(mid, a, b)).sum()) < total:
            low = mid
        else:
            high = mid
    return np.asarray(np.clip(high, a, b)[layout.rack_of], dtype=np.float64)


def floor_ceil(level: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """A level's floor and ceiling as integers (equal when it is whole, to 1e-6)."""
    floor = np.floor(level + 1e-6).astype(np.int64)
    return floor, np.maximum(np.ceil(level - 1e-6).astype(np.int64), floor)


def broker_targets(layout: RackLayout, partitions: int, rf: int, weight: np.ndarray) -> np.ndarray:
    """Per-broker replica targets: the floor or the ceiling of each broker's level, summing to
    ``partitions * rf``, each rack's total within ``[P lo_r, P hi_r]``; the ceilings go to the
    brokers with the most ``weight`` (ties: the lower id).

    A placement whose counts are floors and ceilings of the levels is its own target when
    ``weight`` is its counts: ``sticky`` keeps a balanced placement as it is.

    Example::

        layout = rack_layout([Broker(i) for i in range(4)], 2, None)
        broker_targets(layout, 3, 2, np.array([0, 2, 2, 2.0])).tolist() == [1, 2, 2, 1]
    """
    level = broker_levels(layout, partitions, rf)
    floor, ceil = floor_ceil(level)
    total = partitions * rf
    sizes, rack = layout.sizes, layout.rack_of
    rack_floor = np.bincount(rack, weights=floor, minlength=layout.racks).astype(np.int64)
    rack_ceil = np.bincount(rack, weights=ceil, minlength=layout.racks).astype(np.int64)
    need = np.maximum(partitions * layout.lo - rack_floor, 0)             # ceilings a rack must take
    room = np.minimum(partitions * layout.hi, rack_ceil) - rack_floor    # ceilings it may take
    target = floor.copy()
    order = np.lexsort((np.arange(len(layout.ids)), -(weight - floor)))
    left = total - int(target.sum())
    racks, taken = rack.tolist(), [0] * layout.racks
    for first_pass in (True, False):
        for i in order.tolist():
            r = racks[i]
            if left and target[i] < ceil[i] and taken[r] < (need[r] if first_pass else room[r]):
                target[i] += 1
                taken[r] += 1
                left -= 1
    if left or sizes.size == 0:
        raise AssertionError(f"replica targets: {left} replicas left over (a bug)")
    return target


def rack_counts(m: np.ndarray, rack_of: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a matrix of dense brokers (-1 empty): the valid mask, each cell's rack (-1 empty) and
    how many cells of its row share its rack (0 for empty cells)."""
    valid = m >= 0
    rk = np.where(valid, rack_of[np.maximum(m, 0)], -1)
    cnt = np.zeros(m.shape, dtype=np.int64)
    for j in range(m.shape[1]):
        cnt[:, j] = ((rk == rk[:, j:j + 1]) & valid).sum(axis=1)
    cnt[~valid] = 0
    return valid, rk, cnt


def moves_bound(prev: np.ndarray, layout: RackLayout, rf: int, target: Optional[np.ndarray] = None) -> int:
    """The fewest replica moves from ``prev`` (dense brokers, -1 for none or unusable) to any
    balanced rack-distinct placement of ``rf`` replicas (with ``target``: to any that holds
    exactly ``target[b]`` replicas on broker ``b``, where ``floor_b = ceil_b = target[b]``):
    the largest of

    * ``P RF - sum_p min(RF, u_p)``, ``u_p`` the replicas partition ``p`` may keep (on usable
      brokers, at most ``hi_r`` per rack, and room left for the racks it lacks when ``RF > R``);
    * ``sum_b max(0, floor_b - v_b)``: what under-filled (e.g. new) brokers must receive
      (``v_b``: replicas on broker ``b`` now; ``floor_b``, ``ceil_b``: its level rounded);
    * ``P RF - sum_b min(v_b, ceil_b)``: every broker keeps at most its ceiling.

    Example::

        moves_bound(np.array([[0, 1], [1, 2], [2, 0]]), rack_layout([Broker(i) for i in range(4)], 2, None), 2) == 1
    """
    parts, n = prev.shape[0], len(layout.ids)
    if parts == 0:
        return 0
    have = np.bincount(prev[prev >= 0], minlength=n)
    low, high = floor_ceil(broker_levels(layout, parts, rf)) if target is None else (target, target)
    return int(max(partition_moves(prev, layout, rf),
                   np.maximum(low - have, 0).sum(),
                   parts * rf - np.minimum(have, high).sum()))


def partition_moves(prev: np.ndarray, layout: RackLayout, rf: int) -> int:
    """The first term of :func:`moves_bound`: ``P RF - sum_p min(RF, u_p)``, the replicas no
    partition can keep whatever the brokers' counts (on removed or fenced brokers, a second
    replica on a rack, new replicas when ``rf`` grows).

    Example::

        partition_moves(np.array([[0, 1], [1, -1]]), rack_layout([Broker(i) for i in range(3)], 2, None), 2) == 1
    """
    if prev.shape[0] == 0:
        return 0
    valid, rk, cnt = rack_counts(prev, layout.rack_of)
    cap = layout.hi[np.maximum(rk, 0)]
    keep = np.rint((valid * np.minimum(cnt, cap) / np.maximum(cnt, 1)).sum(axis=1)).astype(np.int64)
    if layout.spread:                             # room left for the racks a row does not cover yet
        covered = np.rint((valid / np.maximum(cnt, 1)).sum(axis=1)).astype(np.int64)
        keep = np.minimum(keep, rf - (layout.racks - covered))
    return int(prev.shape[0] * rf - np.minimum(keep, rf).sum())

"""``sticky`` replica reassignment: a new placement from a ``previous`` one, moving few replicas.

What none of Kafka's tools offers: ``kafka-reassign-partitions --generate`` places
every partition from scratch on the new broker list (``AdminUtils``), moving most
replicas. Given the current placement and a changed cluster (brokers added,
removed or fenced, racks changed) or a changed replication factor, ``sticky``
computes a placement that is

* valid: a partition's replicas are distinct unfenced brokers of the new list;
* rack-distinct wherever the racks allow: with ``R`` racks (every usable broker
  racked) a partition's replicas span ``min(RF, R)`` racks: at most one per rack
  when ``RF <= R``; otherwise one on every rack and at most ``RF - R + 1`` on one
  (no racks, or ``rack_aware`` 'safe'/'disabled' on partly racked brokers: one rack);
* balanced: every broker holds exactly its target, the floor or the ceiling of its
  water level (:mod:`.replica_targets`: ``P RF / N`` without racks or on racks of
  equal size, more per broker on a small rack that rack-distinctness forces to hold
  more); preferred leaders as even as the replica sets allow (``P // N`` or one
  more whenever possible, :mod:`.replica_leaders`);
* sticky: it keeps every replica it can and moves the fewest its greedy finds, never
  fewer than :func:`moves_lower_bound` (a bound for any balanced placement);
* stable: run again on its own output it moves nothing and changes no leader (the
  output meets its own targets, and no leader swap can make the counts more even).

Algorithm, on dense broker numbers ``0..N-1`` (usable brokers, ascending id):

1. keep every previous replica on a usable broker; while a partition breaks the
   rack rules or holds more than ``RF`` replicas, drop one: a replica on an
   over-full rack first, then a follower before the leader, a rack's second
   replica before its only one, the most overloaded broker first (vectorized,
   one drop per bad partition per pass, at most ``RF_old`` passes);
2. targets (:func:`~.replica_targets.broker_targets`), ties to the brokers that kept
   the most; brokers above their target shed the excess: followers first, in
   partitions whose hole a broker short of its target can fill (vectorized);
3. holes are filled so that every broker meets its target exactly
   (:mod:`.replica_fill`: a greedy that serves the racks later partitions cannot
   take, one-swap repairs, then augmenting paths, which always succeed);
4. preferred leaders (:mod:`.replica_leaders`): the previous leader stays first when it
   is kept; then leaders move within partitions (reordering, no data movement) only
   where that makes the counts more even.

Limits: the fill loops in Python over partitions with holes, so time grows with
the replicas moved (a million moves take seconds); step 1 and the leader rounds
are NumPy over all partitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError
from .leaders import balance_leaders, group_rank
from .fill import fill_holes
from ..java.limits import INT32_MAX, check_count
from .model import Broker, PlacementRequest, ReplicaPlacement, check_brokers
from .targets import RackLayout, broker_targets, moves_bound, rack_counts, rack_layout

__all__ = ["ReplicaReassignment", "check_previous", "dense_previous", "keep_valid", "keep_weight", "fill_to_targets",
           "moves_lower_bound", "place_sticky", "reassignment", "refuse_start_index"]


def _empty_previous() -> np.ndarray:
    return np.empty((0, 0), dtype=np.int64)


def check_previous(previous: object, partitions: int, start_partition: int = 0) -> np.ndarray:
    """``previous`` (the current placement) as an ``int64`` array of broker ids, one row per
    partition, ``-1`` padding rows shorter than the longest; errors name ``previous`` and the
    partition ids at fault.

    Example::

        check_previous([[1, 2], [2]], partitions=2).tolist() == [[1, 2], [2, -1]]

    Parameters
    ----------
    previous:
        A :class:`ReplicaPlacement`, a 2-D integer array ``(partitions, RF_old)``, or a
        sequence of replica lists (leader first; lengths may differ, an empty list is a
        partition without replicas, e.g. one being added).
    partitions:
        How many partitions the placement must have (rows).
    start_partition:
        The id of the first row's partition, for the messages.
    """
    def fail(problem: str, rows: Sequence[object]) -> InvalidInputError:
        return InvalidInputError(problem, column="previous", rows=list(rows))

    if isinstance(previous, ReplicaPlacement):
        previous = previous.broker_ids
    if isinstance(previous, np.ndarray) and previous.dtype.kind in "iu":
        if previous.ndim != 2:
            raise fail(f"previous must be a 2-D array (partitions, replicas), got shape {previous.shape}",
                       [previous.shape])
        if previous.size and previous.dtype.kind == "u" and int(previous.max()) > INT32_MAX:
            bad = np.flatnonzero((previous > INT32_MAX).any(axis=1)) + start_partition
            raise fail(f"previous: broker ids must be between 0 and {INT32_MAX}", bad.tolist())
        arr = previous.astype(np.int64)
        outside = (arr < 0) | (arr > INT32_MAX)
        if outside.any():
            bad = np.flatnonzero(outside.any(axis=1)) + start_partition
            raise fail(f"previous: broker ids must be between 0 and {INT32_MAX}, e.g. "
                       f"{int(arr[outside][0])}", bad.tolist())
    else:
        if isinstance(previous, (str, bytes, dict)) or not isinstance(previous, (Sequence, np.ndarray)):
            raise fail("previous must be a ReplicaPlacement, a 2-D integer array or a list of replica "
                       f"lists, got {type(previous).__name__}", [])
        rows = list(previous)
        not_lists = [start_partition + i for i, r in enumerate(rows)
                     if isinstance(r, (str, bytes, dict)) or not isinstance(r, (Sequence, np.ndarray))]
        if not_lists:
            raise fail("previous: every partition needs a list of broker ids", not_lists)
        bad_ids = [start_partition + i for i, r in enumerate(rows)
                   if not all(isinstance(b, Integral) and not isinstance(b, (bool, np.bool_))
                              and 0 <= int(b) <= INT32_MAX for b in r)]
        if bad_ids:
            raise fail(f"previous: broker ids must be integers between 0 and {INT32_MAX}", bad_ids)
        width = max((len(r) for r in rows), default=0)
        arr = np.full((len(rows), width), -1, dtype=np.int64)
        for i, r in enumerate(rows):
            arr[i, :len(r)] = [int(b) for b in r]
    if arr.shape[0] != partitions:
        raise fail(f"previous has {arr.shape[0]} partitions but partitions={partitions}", [arr.shape[0]])
    if arr.shape[1] > 1:
        ordered = np.sort(arr, axis=1)
        twice = ((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)).any(axis=1)
        if twice.any():
            raise fail("previous: a partition lists the same broker twice", (np.flatnonzero(twice) + start_partition)
                       .tolist())
    return arr


def dense_previous(previous: np.ndarray, layout: RackLayout) -> np.ndarray:
    """``previous`` with ids replaced by dense broker numbers; -1 for padding and for brokers
    no longer usable (removed or fenced)."""
    if layout.ids.size == 0 or previous.size == 0:
        return np.full(previous.shape, -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(layout.ids, previous), len(layout.ids) - 1)
    return np.where(layout.ids[at] == previous, at, -1)


def _drop_invalid(m: np.ndarray, layout: RackLayout, rf: int, targets: Callable[[], np.ndarray]) -> None:
    """Step 1, in place: drop replicas until every row keeps at most ``rf``, within the rack
    limits, with room left for the racks it must still cover (``targets``: the brokers'
    targets, computed only when a row must drop)."""
    n, cols = len(layout.ids), np.arange(m.shape[1])
    target: Optional[np.ndarray] = None
    while True:
        valid, rk, cnt = rack_counts(m, layout.rack_of)
        rack = np.maximum(rk, 0)
        over_cap = valid & (cnt > layout.hi[rack])
        kept = valid.sum(axis=1)
        if layout.spread:
            covered = np.rint((valid / np.maximum(cnt, 1)).sum(axis=1)).astype(np.int64)
            need = kept + layout.racks - covered > rf
        else:
            need = kept > rf
        bad = np.flatnonzero(over_cap.any(axis=1) | need)
        if not bad.size:
            return
        if target is None:
            target = targets()
        load = np.bincount(m[valid], minlength=n) - target
        capped = over_cap[bad].any(axis=1)
        cand = np.where(capped[:, None], over_cap[bad], valid[bad] & (cnt[bad] > layout.lo[rack[bad]]))
        sub = np.maximum(m[bad], 0)
        excess = np.clip(load[sub], -(1 << 31), (1 << 31) - 1) + (1 << 31)
        score = (((load[sub] > 0).astype(np.int64) << 46) | ((cols > 0).astype(np.int64) << 45)
                 | (np.minimum(cnt[bad], 255) << 37) | (excess << 4) | np.minimum(cols, 15))
        pick = np.where(cand, score, -1).argmax(axis=1)
        chosen = sub[np.arange(len(bad)), pick]
        over = load[chosen]
        if (over > 0).any():                      # drops from brokers above target, at most their excess
            ok = np.flatnonzero(over > 0)
            ok = ok[group_rank(chosen[ok]) < over[ok]]
        else:                                     # every candidate is at or below target: spread the cost
            ok = np.flatnonzero(group_rank(chosen) <= len(bad) // n)
        m[bad[ok], pick[ok]] = -1


def _shed(m: np.ndarray, prev: np.ndarray, layout: RackLayout, target: np.ndarray) -> None:
    """Step 2, in place: every broker above its target drops the excess, preferably where a
    short broker held a replica in ``prev`` (step 1 dropped it: taking it back is free)."""
    n = len(layout.ids)
    valid, rk, cnt = rack_counts(m, layout.rack_of)
    over = np.bincount(m[valid], minlength=n) - target
    if not (over > 0).any():
        return
    rows, cols = np.nonzero(valid & (over[np.maximum(m, 0)] > 0))
    broker = m[rows, cols]
    rack = layout.rack_of[broker]
    keeps_cover = cnt[rows, cols] > layout.lo[rack]
    short_rack = np.bincount(layout.rack_of, weights=np.maximum(-over, 0), minlength=layout.racks) > 0
    if layout.racks <= 64:                        # the hole can be filled by a short broker's rack
        in_row = np.zeros((len(rows), layout.racks), dtype=np.int64)
        sub = rk[rows]
        for j in range(m.shape[1]):
            np.add.at(in_row, (np.arange(len(rows))[sub[:, j] >= 0], sub[sub[:, j] >= 0, j]), 1)
        in_row[np.arange(len(rows)), rack] -= 1
        fillable = (short_rack[None, :] & (in_row < layout.hi[None, :])).any(axis=1)
    else:
        fillable = np.ones(len(rows), dtype=bool)
    # a different pseudo-random order per broker, so brokers seldom pick the same rows
    spread = ((rows.astype(np.uint64) + broker.astype(np.uint64) * np.uint64(40503)) * np.uint64(2654435761)) \
        % np.uint64(1 << 32)
    short = np.maximum(-over, 0) > 0
    gone = (prev[rows] >= 0) & ~(prev[rows][:, :, None] == m[rows][:, None, :]).any(axis=2)
    readd = (gone & short[np.maximum(prev[rows], 0)]).any(axis=1)
    order = np.lexsort((spread, ~keeps_cover, cols == 0, ~fillable, ~readd, broker))
    rows, cols, broker = rows[order], cols[order], broker[order]
    need = np.maximum(over, 0)
    holed: np.ndarray = np.asarray((~valid).any(axis=1))   # one hole per row first: a short broker fills one only
    taken = np.zeros(len(rows), dtype=bool)
    strict = True
    while need.any():
        free = np.flatnonzero(~taken & ~holed[rows]) if strict else np.flatnonzero(~taken)
        pick = free[group_rank(broker[free]) < need[broker[free]]]
        if strict:
            pick = pick[group_rank(rows[pick]) == 0]
        if not pick.size:
            if not strict:
                break
            strict = False                        # no row without a hole left for some broker
            continue
        taken[pick] = True
        holed[rows[pick]] = True
        need -= np.bincount(broker[pick], minlength=n)
    m[rows[taken], cols[taken]] = -1


def place_sticky(request: PlacementRequest) -> Tuple[np.ndarray, Optional[int]]:
    """The ``sticky`` method: a balanced, rack-distinct placement close to ``request.previous``.

    Example::

        from spark_assign.core import Broker, place_replicas
        moved = place_replicas([Broker(i) for i in range(4)], partitions=2, replication_factor=2,
                               method="sticky", previous=[[0, 1], [1, 2]])
        moved.replicas_moved == 1        # broker 3 takes one replica

    Parameters
    ----------
    request:
        The checked arguments; ``previous`` (required) holds the current placement with -1
        padding. ``rack_aware`` as ``admin-utils``: None/``enforced``, ``safe``, ``disabled``.
        ``start_index`` is refused; the seed is not used (the method draws nothing).
    """
    if request.previous is None:
        raise InvalidInputError("the sticky method reassigns an existing placement: pass previous=",
                                column="previous")
    refuse_start_index(request.start_index)
    rf = request.replication_factor
    layout = rack_layout(request.brokers, rf, request.rack_aware)
    n, parts = len(layout.ids), request.partitions
    prev = dense_previous(request.previous, layout)
    if parts == 0:
        return np.empty((0, rf), dtype=np.int32), None
    m = keep_valid(prev, layout, rf)
    target = broker_targets(layout, parts, rf, keep_weight(m, prev, n))
    m = fill_to_targets(m, prev, layout, rf, target)
    leader = prev[:, 0] if prev.shape[1] else np.full(parts, -1, dtype=np.int64)
    balance_leaders(m, leader, n)
    return layout.ids[m].astype(np.int32), None


def refuse_start_index(start_index: Optional[int]) -> None:
    """The error for a ``start_index`` given to ``sticky`` (AdminUtils' fixed start; sticky draws nothing)."""
    if start_index is not None:
        raise InvalidInputError("start_index is AdminUtils' fixedStartIndex; the sticky method starts from "
                                "previous=", column="start_index", rows=[start_index])


def keep_valid(prev: np.ndarray, layout: RackLayout, rf: int) -> np.ndarray:
    """Step 1: ``prev`` (dense, from :func:`dense_previous`) with the replicas dropped that the new
    rack rules or a smaller ``rf`` refuse (a copy; -1 where dropped).

    Example::

        keep_valid(np.array([[0, 1, 2]]), rack_layout([Broker(i) for i in range(3)], 2, None), 2)  # one dropped
    """
    n, parts = len(layout.ids), prev.shape[0]
    weight = np.bincount(prev[prev >= 0], minlength=n).astype(np.float64)
    m = prev.copy()
    if parts:
        _drop_invalid(m, layout, rf, lambda: broker_targets(layout, parts, rf, weight))
    return m


def keep_weight(kept: np.ndarray, prev: np.ndarray, n: int) -> np.ndarray:
    """The weight that gives a topic's ceilings to the brokers that kept the most of it (ties: those
    that held the most before): what :func:`~.targets.broker_targets` takes."""
    weight = np.bincount(prev[prev >= 0], minlength=n).astype(np.float64)
    return np.bincount(kept[kept >= 0], minlength=n) + weight / (weight.sum() + 1)


def fill_to_targets(m: np.ndarray, prev: np.ndarray, layout: RackLayout, rf: int, target: np.ndarray) -> np.ndarray:
    """Steps 2 and 3: from ``m`` (what :func:`keep_valid` kept), brokers above their ``target`` shed
    the excess and the holes are filled until every broker holds exactly its target; the
    ``(P, rf)`` dense placement, leaders not yet balanced.

    Example::

        layout = rack_layout([Broker(i) for i in range(3)], 1, None)
        fill_to_targets(np.array([[0], [0]]), np.array([[0], [0]]), layout, 1, np.array([1, 1, 0]))  # [[0], [1]]

    Parameters
    ----------
    m, prev:
        The kept replicas and the previous placement (dense, -1 padding).
    layout, rf:
        The brokers and racks, and the replication factor.
    target:
        Per broker, its replicas of this topic: floors and ceilings of its level that sum to
        ``P rf`` within every rack's bounds (:func:`~.targets.broker_targets`, or chosen for a
        whole cluster by :mod:`.transport`).
    """
    parts = m.shape[0]
    m = m.copy()
    _shed(m, prev, layout, target)
    width = m.shape[1]
    m = np.take_along_axis(m, np.argsort(m < 0, axis=1, kind="stable"), axis=1)
    m = m[:, :rf] if width >= rf else np.hstack([m, np.full((parts, rf - width), -1, dtype=np.int64)])
    m = np.ascontiguousarray(m)
    fill_holes(m, prev, layout, target)
    return m


def moves_lower_bound(previous: object, brokers: Sequence[Broker], replication_factor: int,
                      rack_aware: Optional[str] = None) -> int:
    """The fewest replica moves any placement with ``sticky``'s balance targets needs.

    A move is a replica on a broker that did not hold one of the partition in ``previous``.
    With ``v_b`` the previous replicas on usable broker ``b``, ``u_p`` the previous replicas of
    partition ``p`` the new rack rules let it keep (those on usable brokers; with racks, at most
    ``hi_r`` per rack and, when ``RF > R``, room left for the racks it lacks) and ``[lo_b, hi_b]``
    the floor and ceiling of broker ``b``'s share of its rack's total (module docstring;
    ``P RF / N`` without racks), the bound is the largest of

    * ``P RF - sum_p min(RF, u_p)``: replicas on removed or fenced brokers, on a rack the
      partition already uses, and new ones when the replication factor grows;
    * ``sum_b max(0, lo_b - v_b)``: what the under-filled (e.g. new) brokers must receive;
    * ``P RF - sum_b min(v_b, hi_b)``: every broker keeps at most its share.

    It counts per partition and per broker separately, so their interplay can force more.

    Example::

        from spark_assign.core import Broker
        moves_lower_bound([[0, 1], [1, 2], [2, 0]], [Broker(i) for i in range(4)], 2) == 1

    Parameters
    ----------
    previous:
        The current placement, as :func:`check_previous` takes it.
    brokers:
        The new broker list.
    replication_factor:
        The new replication factor.
    rack_aware:
        As for ``place_replicas``: None/``enforced``, ``safe`` or ``disabled``.
    """
    checked = check_brokers(brokers)
    rf = check_count(replication_factor, "replication_factor", minimum=1)
    rows = len(previous.broker_ids) if isinstance(previous, ReplicaPlacement) else \
        len(previous) if isinstance(previous, (Sequence, np.ndarray)) else 0
    prev = check_previous(previous, rows)
    layout = rack_layout(checked, rf, rack_aware)
    return moves_bound(dense_previous(prev, layout), layout, rf)


@dataclass(frozen=True, eq=False)
class ReplicaReassignment(ReplicaPlacement):
    """A placement computed from a ``previous`` one, with what changed, per partition.

    :attr:`previous` holds the previous broker ids (``-1`` pads short rows). Per-partition
    NumPy columns: :attr:`kept` (replicas already there), :attr:`moved` (replicas on a broker
    new to the partition: each is a copy of the partition's data) and :attr:`leader_changed`;
    totals :attr:`replicas_moved`, :attr:`leaders_changed`; :attr:`lower_bound` is
    :func:`moves_lower_bound`.
    """

    previous: np.ndarray = field(default_factory=_empty_previous)
    rack_aware: Optional[str] = None

    @cached_property
    def moved(self) -> np.ndarray:
        """Replicas per partition on a broker that held none of it before (``int32``)."""
        now = self.broker_ids.astype(np.int64)
        before = (now[:, :, None] == self.previous[:, None, :]).any(axis=2)
        return (~before).sum(axis=1).astype(np.int32)

    @property
    def kept(self) -> np.ndarray:
        """Replicas per partition already there before (``int32``)."""
        return (self.replication_factor - self.moved).astype(np.int32)

    @cached_property
    def leader_changed(self) -> np.ndarray:
        """Whether the partition's preferred leader changed (``bool``)."""
        before = self.previous[:, 0] if self.previous.shape[1] else np.full(len(self.partitions), -1)
        return np.asarray(self.leaders != before, dtype=bool)

    @property
    def replicas_moved(self) -> int:
        """Replica moves in all: replicas placed on a broker new to their partition."""
        return int(self.moved.sum())

    @property
    def leaders_changed(self) -> int:
        """Partitions whose preferred leader changed."""
        return int(self.leader_changed.sum())

    @cached_property
    def lower_bound(self) -> int:
        """:func:`moves_lower_bound` for this change."""
        layout = rack_layout(self.brokers, self.replication_factor, self.rack_aware)
        return moves_bound(dense_previous(self.previous, layout), layout, self.replication_factor)


def reassignment(placement: ReplicaPlacement, previous: np.ndarray, rack_aware: Optional[str]) -> ReplicaReassignment:
    """``placement`` as a :class:`ReplicaReassignment` from ``previous`` (checked, -1 padded).

    Example::

        reassignment(placed, check_previous([[0, 1]], 1), None).replicas_moved

    Parameters
    ----------
    placement:
        The new placement.
    previous:
        The previous one, as :func:`check_previous` returns it.
    rack_aware:
        The rack mode the placement was computed with (for :attr:`~ReplicaReassignment.lower_bound`).
    """
    return ReplicaReassignment(placement.method, placement.brokers, placement.partitions, placement.broker_ids,
                               placement.seed, previous, rack_aware)

"""A reassignment cut into safe stages: few concurrent moves per broker, bounded bytes per stage.

``kafka-reassign-partitions --execute`` starts every listed partition's copy at
once; on a real cluster that saturates the brokers that receive. Cruise
Control's executor instead moves replicas in batches: at most
``num.concurrent.partition.movements.per.broker`` (5 by default) per broker at a
time, with a replication throttle, leaders last. :func:`plan_stages` does the
same for a plan computed here:

* a partition **moves data** when its replica set changes: each broker that
  gains a replica copies the partition (``size_bytes``) from the leader, each
  broker that loses one deletes it. A stage holds at most
  ``max_moves_per_broker`` such gains and losses on any one broker, and at most
  ``max_bytes_per_stage`` bytes copied in all (a partition larger than that
  alone takes a stage of its own);
* partitions are packed first fit, largest copy first (ties: topic, then
  partition), so a stage's slowest copies start together; the stage count is
  compared with :attr:`StagePlan.stage_bound`, the fewest any packing needs
  (the busiest broker's moves over the per-broker cap; the copies larger than
  the per-stage cap, one stage each, plus the other bytes over the cap);
* a partition whose set is unchanged but whose order is (a preferred leader
  moved by reordering: no data) goes in a last stage of its own, and every
  partition whose preferred leader changed is elected last
  (``kafka-leader-election --election-type PREFERRED``), once its replicas
  are in sync: leaders move after the data, never before;
* with a ``throttle`` (bytes/s, Kafka's ``--throttle``: per broker, for the
  leaders sending and the followers receiving), a stage lasts at least its
  busiest broker's bytes in or out over the throttle: the plan's estimate is
  the sum over the stages.

Sizes are optional: without them every copy counts 0 bytes, the per-stage byte
cap does not bind and no duration is estimated.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from ...errors import InvalidInputError

__all__ = ["DEFAULT_MAX_MOVES_PER_BROKER", "StageFigures", "StagePlan", "plan_stages"]

#: Cruise Control's default ``num.concurrent.partition.movements.per.broker``.
DEFAULT_MAX_MOVES_PER_BROKER = 5


@dataclass(frozen=True)
class StageFigures:
    """One stage: its number (0-based), whether it only reorders replicas, its partitions, the
    replicas it copies and their bytes, the most moves any one broker makes in it, and its
    estimated seconds at the throttle (None without one)."""

    stage: int
    reorder_only: bool
    partitions: int
    replica_moves: int
    bytes: int
    busiest_broker_moves: int
    seconds: Optional[float]

    def as_dict(self) -> Dict[str, object]:
        """The figures as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class StagePlan:
    """The stages of a cluster's reassignment, one row per partition that changes.

    Columns (NumPy, equal length): ``topic`` (index into the caller's topics), ``partition``,
    ``stage`` (0-based; data stages first, then the reordering stage), ``copied_bytes`` (its
    size times the replicas it gains), ``reorder_only`` (no data moved) and ``leader_changed``
    (elected once the stages are done). ``stages``: per stage its :class:`StageFigures`.
    ``stage_bound``: the fewest data stages any packing needs.
    """

    topic: np.ndarray
    partition: np.ndarray
    stage: np.ndarray
    copied_bytes: np.ndarray
    reorder_only: np.ndarray
    leader_changed: np.ndarray
    stages: List[StageFigures] = field(default_factory=list)
    stage_bound: int = 0
    max_moves_per_broker: int = DEFAULT_MAX_MOVES_PER_BROKER
    max_bytes_per_stage: Optional[int] = None
    throttle: Optional[int] = None

    @property
    def data_stages(self) -> int:
        """Stages that copy data (the reordering stage, if any, comes after them)."""
        return sum(1 for s in self.stages if not s.reorder_only)

    @property
    def estimated_seconds(self) -> Optional[float]:
        """The sum of the stages' estimates at the throttle (None without a throttle)."""
        if self.throttle is None:
            return None
        return float(sum(s.seconds or 0.0 for s in self.stages))


def plan_stages(previous: Sequence[np.ndarray], placed: Sequence[np.ndarray],
                sizes: Optional[Sequence[Optional[np.ndarray]]] = None,
                max_moves_per_broker: int = DEFAULT_MAX_MOVES_PER_BROKER,
                max_bytes_per_stage: Optional[int] = None, throttle: Optional[int] = None) -> StagePlan:
    """The stages of moving a cluster from ``previous`` to ``placed`` (module docstring).

    Example::

        stages = plan_stages([np.array([[1, 2], [2, 3]])], [np.array([[4, 2], [2, 3]])],
                             sizes=[np.array([10 << 20, 5 << 20])], throttle=50 << 20)
        stages.stage.tolist(), stages.estimated_seconds      # [0], 0.2: 10 MiB to broker 4 at 50 MiB/s

    Parameters
    ----------
    previous, placed:
        Per topic, its placement before and after: ``(partitions, replicas)`` broker ids, the
        preferred leader first, ``-1`` padding (before: none for a new partition).
    sizes:
        Per topic, each partition's size in bytes (``kafka-log-dirs``' ``size``), or None.
    max_moves_per_broker:
        At most this many replicas gained or lost by any broker in one stage (at least 1).
    max_bytes_per_stage:
        At most this many bytes copied per stage (None: no cap; at least 1).
    throttle:
        Bytes per second each broker may send or receive for the reassignment, for the
        estimate (None: no estimate; at least 1).
    """
    _positive(max_moves_per_broker, "max_moves_per_broker")
    for name, value in (("max_bytes_per_stage", max_bytes_per_stage), ("throttle", throttle)):
        if value is not None:
            _positive(value, name)
    if len(previous) != len(placed) or (sizes is not None and len(sizes) != len(placed)):
        raise InvalidInputError("previous, placed and sizes need one entry per topic",
                                column="previous", rows=[len(previous), len(placed)])
    rows = _changes(previous, placed, sizes)
    copied = np.array([s * len(g) for s, g in zip(rows.size, rows.gains)], dtype=np.int64)
    stage = _pack(rows, copied, max_moves_per_broker, max_bytes_per_stage)
    return _plan(rows, copied, stage, max_moves_per_broker, max_bytes_per_stage, throttle)


def _positive(value: object, name: str) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}", column=name, rows=[value])


@dataclass
class _Changes:
    """The partitions that change, flat: per row its topic, partition, size, the brokers that gain
    and lose a replica, its leader before (the copies' source) and whether only the order changed."""

    topic: List[int] = field(default_factory=list)
    partition: List[int] = field(default_factory=list)
    size: List[int] = field(default_factory=list)
    gains: List[List[int]] = field(default_factory=list)
    losses: List[List[int]] = field(default_factory=list)
    source: List[int] = field(default_factory=list)
    leader_changed: List[bool] = field(default_factory=list)


def _changes(previous: Sequence[np.ndarray], placed: Sequence[np.ndarray],
             sizes: Optional[Sequence[Optional[np.ndarray]]]) -> _Changes:
    out = _Changes()
    for t, (old, new) in enumerate(zip(previous, placed)):
        old, new = np.asarray(old, dtype=np.int64), np.asarray(new, dtype=np.int64)
        if old.ndim != 2 or new.ndim != 2 or old.shape[0] != new.shape[0]:
            raise InvalidInputError(f"topic {t}: previous and placed need one row per partition",
                                    column="previous", rows=[t])
        size = np.zeros(len(new), dtype=np.int64) if sizes is None or sizes[t] is None \
            else np.asarray(sizes[t], dtype=np.int64)
        if len(size) != len(new) or (size < 0).any():
            raise InvalidInputError(f"topic {t}: sizes need one non-negative value per partition",
                                    column="size_bytes", rows=[t])
        had = (old >= 0).any(axis=1)
        width = max(old.shape[1], new.shape[1])
        a = np.full((len(new), width), -1, dtype=np.int64)
        b = a.copy()
        a[:, :old.shape[1]], b[:, :new.shape[1]] = old, new
        changed = had & (a != b).any(axis=1)
        for p in np.flatnonzero(changed).tolist():
            before, after = [x for x in a[p].tolist() if x >= 0], [x for x in b[p].tolist() if x >= 0]
            out.topic.append(t)
            out.partition.append(p)
            out.size.append(int(size[p]))
            out.gains.append([x for x in after if x not in before])
            out.losses.append([x for x in before if x not in after])
            out.source.append(before[0])
            out.leader_changed.append(before[0] != after[0])
    return out


def _pack(rows: _Changes, copied: np.ndarray, cap: int, max_bytes: Optional[int]) -> np.ndarray:
    """First fit, largest copy first (``copied``: each row's bytes): each moving partition's data
    stage; a reorder-only row gets the stage after the data."""
    count = len(rows.topic)
    stage = np.full(count, -1, dtype=np.int64)
    copied = copied.tolist()
    order = sorted((i for i in range(count) if rows.gains[i] or rows.losses[i]),
                   key=lambda i: (-copied[i], rows.topic[i], rows.partition[i]))
    used: List[Dict[int, int]] = []               # per stage: moves per broker
    volume: List[int] = []                        # per stage: bytes copied
    first_open: Dict[int, int] = {}               # per broker: the first stage where it has room
    for i in order:
        brokers = rows.gains[i] + rows.losses[i]
        k = max((first_open.get(b, 0) for b in brokers), default=0)
        while True:
            if k == len(used):
                used.append({})
                volume.append(0)
            fits = all(used[k].get(b, 0) < cap for b in brokers)
            if fits and (max_bytes is None or volume[k] == 0 or volume[k] + copied[i] <= max_bytes):
                break
            k += 1
        stage[i] = k
        volume[k] += copied[i]
        for b in brokers:
            used[k][b] = used[k].get(b, 0) + 1
            f = first_open.get(b, 0)
            while f < len(used) and used[f].get(b, 0) >= cap:
                f += 1
            first_open[b] = f
    data = len(used)
    stage[stage < 0] = data                       # reorder only: the stage after the data
    return stage


def _plan(rows: _Changes, copied: np.ndarray, stage: np.ndarray, cap: int, max_bytes: Optional[int],
          throttle: Optional[int]) -> StagePlan:
    count = len(rows.topic)
    reorder = np.array([not g and not l for g, l in zip(rows.gains, rows.losses)], dtype=bool)
    figures: List[StageFigures] = []
    per_broker_total: Dict[int, int] = {}
    for k in range(int(stage.max()) + 1 if count else 0):
        members = np.flatnonzero(stage == k).tolist()
        moves: Dict[int, int] = {}
        received: Dict[int, int] = {}
        sent: Dict[int, int] = {}
        for i in members:
            for b in rows.gains[i] + rows.losses[i]:
                moves[b] = moves.get(b, 0) + 1
            for b in rows.gains[i]:
                received[b] = received.get(b, 0) + rows.size[i]
                sent[rows.source[i]] = sent.get(rows.source[i], 0) + rows.size[i]
        for b, m in moves.items():
            per_broker_total[b] = per_broker_total.get(b, 0) + m
        busiest = max(list(received.values()) + list(sent.values()), default=0)
        figures.append(StageFigures(k, bool(reorder[members].all()) if members else False, len(members),
                                    sum(len(rows.gains[i]) for i in members), int(copied[members].sum()),
                                    max(moves.values(), default=0), None if throttle is None else busiest / throttle))
    bound = max([-(-m // cap) for m in per_broker_total.values()] + [0])
    if max_bytes:                                 # an oversize copy takes a stage alone; the rest fill theirs
        over = copied > max_bytes
        bound = max(bound, int(over.sum()) + -(-int(copied[~over].sum()) // max_bytes))
    return StagePlan(np.array(rows.topic, dtype=np.int32), np.array(rows.partition, dtype=np.int32),
                     stage.astype(np.int32), copied, reorder, np.array(rows.leader_changed, dtype=bool),
                     figures, int(bound), cap, max_bytes, throttle)

"""Per-topic replica targets chosen for a whole cluster at once: balanced per topic and per broker.

``sticky`` balances each topic on its own: broker ``b`` holds the floor or the
ceiling of its level for topic ``t`` (:mod:`.targets`). Topic by topic, the
ceilings go to the brokers that hold the most already, so on a cluster of many
topics they pile up on the same (old) brokers: a broker that joins a 3-broker
cluster of 20 topics of 5 partitions x 3 replicas ends with 80 replicas beside
three with 100, although every topic is balanced.

Which brokers take each topic's ceilings is a transportation problem. With
``floor[t, b]``/``ceil[t, b]`` the rounded levels and ``x[t, b]`` in {0, 1}
(ceiling taken; only where ``ceil > floor``):

* per topic: ``sum_b x[t, b] = K_t``, the replicas the floors leave over;
* per topic and rack: between the ceilings the rack must take (``P lo_r``
  replicas at least) and may take (``P hi_r`` at most), as
  :func:`~.targets.broker_targets`;
* per broker: its cluster total ``sum_t floor[t, b] + x[t, b]`` is the floor or
  the ceiling of its cluster level ``L_b = sum_t level[t, b]`` (without racks or
  with racks of equal size, every broker within 1 of every other).

The topic and topic-rack rows form one laminar family and the broker rows
another, so the matrix is totally unimodular: the integer optimum is a vertex of
the linear program, and a feasible integer choice always exists (the fractional
``level - floor`` satisfies every row).

The objective is the fewest moves, as :func:`~.targets.moves_bound` counts them
for fixed targets: topic ``t`` needs at least ``max(part_t, P RF - sum_b
min(T[t, b], v[t, b]))`` moves (``part_t``: what its partitions cannot keep;
``v``: its replicas on each usable broker now). A ceiling on a broker with
``v >= ceil`` saves one. Minimising the sum over topics (one integer ``z_t`` per
topic holds the ``max``) gives the targets and, as the optimum, the fewest moves
any plan meeting these balance rules needs as far as per-partition and per-broker
counting tells: the bound ``sticky`` is held to in the property tests.

The solver is HiGHS through SciPy's ``milp`` (the rows for ``z_t`` are not
unimodular; the branch and bound rarely goes past the root).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np

from .targets import RackLayout, broker_levels, floor_ceil, partition_moves

__all__ = ["TopicCounts", "ClusterTargets", "cluster_targets"]


@dataclass(frozen=True)
class TopicCounts:
    """One topic of a cluster, dense: its rack bounds (``layout``, by replication factor), its
    partitions and replication factor, ``prev`` (dense previous placement, -1 padding) and
    ``fresh``: its partitions that had no replica at all before (new ones: their replicas are
    new, not moves)."""

    layout: RackLayout
    partitions: int
    replication_factor: int
    prev: np.ndarray
    fresh: int = 0


@dataclass(frozen=True)
class ClusterTargets:
    """Per topic, its per-broker targets (``int64``, dense brokers); ``bound``: the fewest moves
    any plan meeting the balance rules needs (the optimum; a move is a replica on a broker that
    held none of its partition, in a partition that had replicas: status ``moved``);
    ``broker_floor``/``broker_ceil``: each broker's cluster-wide total, rounded down and up."""

    targets: List[np.ndarray]
    bound: int
    broker_floor: np.ndarray
    broker_ceil: np.ndarray


def cluster_targets(topics: Sequence[TopicCounts]) -> ClusterTargets:
    """Per-topic targets balanced across the cluster, with the fewest moves (module docstring).

    Example::

        layout = rack_layout([Broker(i) for i in range(4)], 1, None)
        t = TopicCounts(layout, 2, 1, np.array([[0], [1]]))
        cluster_targets([t, t]).targets    # [[1, 1, 0, 0], [0, 0, 1, 1]]: each topic balanced, and the cluster

    Parameters
    ----------
    topics:
        Every topic of the cluster, over the same brokers.
    """
    if not topics:
        empty = np.zeros(0, dtype=np.int64)
        return ClusterTargets([], 0, empty, empty)
    n = len(topics[0].layout.ids)
    floors, ceils, haves = [], [], []
    level_sum = np.zeros(n, dtype=np.float64)
    for t in topics:
        level = broker_levels(t.layout, t.partitions, t.replication_factor)
        level_sum += level
        low, high = floor_ceil(level)
        floors.append(low)
        ceils.append(high)
        haves.append(np.bincount(t.prev[t.prev >= 0], minlength=n))
    lo_b, hi_b = floor_ceil(level_sum)
    problem = _Problem(topics, floors, ceils, haves, lo_b, hi_b)
    chosen, bound = problem.solve()
    targets = [f + x for f, x in zip(floors, chosen)]
    fresh = sum(t.fresh * t.replication_factor for t in topics)    # counted by both terms, never moves
    return ClusterTargets(targets, bound - fresh, lo_b, hi_b)


class _Problem:
    """The integer program of the module docstring, as sparse rows for ``scipy.optimize.milp``."""

    def __init__(self, topics: Sequence[TopicCounts], floors: List[np.ndarray], ceils: List[np.ndarray],
                 haves: List[np.ndarray], lo_b: np.ndarray, hi_b: np.ndarray) -> None:
        n = len(lo_b)
        self.n, self.count = n, len(topics)
        self.var_topic: List[np.ndarray] = []     # per topic's x: the topics and brokers, concatenated
        self.var_broker: List[np.ndarray] = []
        self.saves: List[np.ndarray] = []         # 1 where a ceiling saves a move (v >= ceil)
        rows: List[Tuple[np.ndarray, float, float]] = []    # (variable indices, lower, upper) per row
        base, part = np.zeros(len(topics)), np.zeros(len(topics))
        start = 0
        for i, t in enumerate(topics):
            low, high, have = floors[i], ceils[i], haves[i]
            total = t.partitions * t.replication_factor
            free = np.flatnonzero(high > low)
            index = start + np.arange(len(free))
            start += len(free)
            self.var_topic.append(np.full(len(free), i))
            self.var_broker.append(free)
            self.saves.append((have[free] >= high[free]).astype(np.float64))
            base[i] = total - np.minimum(low, have).sum()
            part[i] = partition_moves(t.prev, t.layout, t.replication_factor)
            left = total - int(low.sum())
            rows.append((index, left, left))
            layout = t.layout
            if layout.racks > 1 and len(free):
                rack_floor = np.bincount(layout.rack_of, weights=low, minlength=layout.racks)
                rack_ceil = np.bincount(layout.rack_of, weights=high, minlength=layout.racks)
                need = np.maximum(t.partitions * layout.lo - rack_floor, 0)
                room = np.minimum(t.partitions * layout.hi, rack_ceil) - rack_floor
                rack_of = layout.rack_of[free]
                for r in range(layout.racks):
                    at = index[rack_of == r]
                    if len(at):
                        rows.append((at, float(need[r]), float(room[r])))
        self.x_count = start
        self.rows = rows
        self.base, self.part = base, part
        self.floor_total = np.sum(floors, axis=0)
        self.lo_b, self.hi_b = lo_b, hi_b

    def solve(self) -> Tuple[List[np.ndarray], int]:
        """Each topic's chosen ceilings (0/1 per broker) and the optimum (the move bound)."""
        fixed = np.maximum(self.base, self.part)
        if self.x_count == 0:
            return [np.zeros(self.n, dtype=np.int64) for _ in range(self.count)], int(fixed.sum())
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import csr_matrix

        nx, nt = self.x_count, self.count
        broker = np.concatenate(self.var_broker)
        topic = np.concatenate(self.var_topic)
        row_of, col_of, lower, upper = [], [], [], []
        for r, (cols, lo, hi) in enumerate(self.rows):
            row_of.append(np.full(len(cols), r))
            col_of.append(cols)
            lower.append(lo)
            upper.append(hi)
        r0 = len(self.rows)                        # broker rows: cluster totals within floor/ceil
        row_of.append(r0 + broker)
        col_of.append(np.arange(nx))
        lower.extend((self.lo_b - self.floor_total).tolist())
        upper.extend((self.hi_b - self.floor_total).tolist())
        r1 = r0 + self.n                           # z_t + sum saves * x >= base_t
        row_of += [r1 + topic, r1 + np.arange(nt)]
        col_of += [np.arange(nx), nx + np.arange(nt)]
        lower.extend(self.base.tolist())
        upper.extend([np.inf] * nt)
        values = np.concatenate([np.ones(sum(len(c) for c in col_of[:len(self.rows)]) + nx),
                                 np.concatenate(self.saves), np.ones(nt)])
        matrix = csr_matrix((values, (np.concatenate(row_of), np.concatenate(col_of))),
                            shape=(r1 + nt, nx + nt))
        cost = np.concatenate([np.zeros(nx), np.ones(nt)])
        result = milp(cost, integrality=np.ones(nx + nt), constraints=LinearConstraint(matrix, lower, upper),
                      bounds=Bounds(np.concatenate([np.zeros(nx), self.part]),
                                    np.concatenate([np.ones(nx), np.full(nt, np.inf)])))
        if result.x is None:
            raise AssertionError(f"cluster replica targets: the solver found none ({result.message}); a bug")
        taken = np.rint(result.x[:nx]) > 0
        chosen = np.zeros((nt, self.n), dtype=np.int64)
        chosen[topic[taken], broker[taken]] = 1
        return list(chosen), int(round(result.fun))

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
unimodular; the branch and bound rarely goes past the root). Its size is that of
the distinct topics, not of all of them: topics whose rows are equal (the same
free brokers, savings, rack rows and move terms; a fleet's topics of one shape
placed by the same tool fall into a few dozen classes) form one class whose
variables count its topics (:class:`_Problem`), and the class's answer is split
back into one choice per topic (:func:`_split`). The split is exact (Gale and
Ryser: each topic takes the brokers with the most ceilings left), checked, and
where a class's move counts cannot reach the optimum so split, the program is
solved again topic by topic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

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
        Every topic of the cluster, over the same brokers. Topics given as the same object (as
        :mod:`.cluster` gives topics of equal content) are read once.
    """
    if not topics:
        empty = np.zeros(0, dtype=np.int64)
        return ClusterTargets([], 0, empty, empty)
    n = len(topics[0].layout.ids)
    known: Dict[int, _Rows] = {}
    rows: List[_Rows] = []
    for t in topics:
        r = known.get(id(t))
        if r is None:
            r = known[id(t)] = _rows(t, n)
        rows.append(r)
    level_sum = np.sum([r.level for r in rows], axis=0)
    lo_b, hi_b = floor_ceil(level_sum)
    floor_total = np.sum([r.floor for r in rows], axis=0)
    problem = _Problem(n, lo_b - floor_total, hi_b - floor_total)
    solved = problem.solve(_classes(rows), rows)      # topics of equal rows as one class
    if solved is None:                               # cannot be split evenly enough: topic by topic
        solved = problem.solve([[i] for i in range(len(rows))], rows)
        if solved is None:
            raise AssertionError("cluster replica targets: the solver found none; a bug")
    chosen, bound = solved
    targets = [r.floor + x for r, x in zip(rows, chosen)]
    fresh = sum(t.fresh * t.replication_factor for t in topics)    # counted by both terms, never moves
    return ClusterTargets(targets, bound - fresh, lo_b, hi_b)


@dataclass(frozen=True)
class _Rows:
    """One topic's part of the integer program: its levels and their floors (per broker), the
    ``free`` brokers (ceiling above floor) with ``saves`` (1 where a ceiling there saves a move),
    ``left`` (ceilings to hand out), per rack the free brokers' positions and the ceilings the rack
    must and may take, and the two terms of its move count, ``base`` and ``part``."""

    level: np.ndarray
    floor: np.ndarray
    free: np.ndarray
    saves: np.ndarray
    left: int
    racks: Tuple[Tuple[np.ndarray, float, float], ...]
    base: float
    part: float

    def key(self) -> Tuple[object, ...]:
        """Equal for topics whose rows are equal: they form one class of the program."""
        racks = tuple((at.tobytes(), need, room) for at, need, room in self.racks)
        return self.free.tobytes(), self.saves.tobytes(), self.left, racks, self.base, self.part


def _rows(t: TopicCounts, n: int) -> _Rows:
    level = broker_levels(t.layout, t.partitions, t.replication_factor)
    low, high = floor_ceil(level)
    have = np.bincount(t.prev[t.prev >= 0], minlength=n)
    total = t.partitions * t.replication_factor
    free = np.flatnonzero(high > low)
    racks: List[Tuple[np.ndarray, float, float]] = []
    layout = t.layout
    if layout.racks > 1 and len(free):
        rack_floor = np.bincount(layout.rack_of, weights=low, minlength=layout.racks)
        rack_ceil = np.bincount(layout.rack_of, weights=high, minlength=layout.racks)
        need = np.maximum(t.partitions * layout.lo - rack_floor, 0)
        room = np.minimum(t.partitions * layout.hi, rack_ceil) - rack_floor
        rack_of = layout.rack_of[free]
        for r in range(layout.racks):
            at = np.flatnonzero(rack_of == r)
            if len(at):
                racks.append((at, float(need[r]), float(room[r])))
    return _Rows(level, low, free, (have[free] >= high[free]).astype(np.float64), total - int(low.sum()),
                 tuple(racks), float(total - np.minimum(low, have).sum()),
                 float(partition_moves(t.prev, t.layout, t.replication_factor)))


def _classes(rows: Sequence[_Rows]) -> List[List[int]]:
    """The topics grouped by equal rows, in order of first appearance (each in planning order)."""
    groups: Dict[Tuple[object, ...], List[int]] = {}
    seen: Dict[int, Tuple[object, ...]] = {}
    for i, r in enumerate(rows):
        key = seen.get(id(r))
        if key is None:
            key = seen[id(r)] = r.key()
        groups.setdefault(key, []).append(i)
    return list(groups.values())


class _Problem:
    """The integer program of the module docstring over classes of equal topics.

    A class of ``k`` topics has one integer ``y[b]`` in ``[0, k]`` per free broker (how many of
    its topics take a ceiling there), its topic and rack rows scaled by ``k``, and one integer
    ``z`` for the sum of its topics' move counts: ``z >= k part`` and ``z + saves.y >= k base``.
    With one topic per class this is the program topic by topic; with more it is a relaxation
    (its optimum is a lower bound), exact when the split reaches it (:meth:`solve`)."""

    def __init__(self, n: int, lower: np.ndarray, upper: np.ndarray) -> None:
        self.n = n
        self.lower, self.upper = lower, upper        # per broker: the ceilings its total may take

    def solve(self, classes: List[List[int]], rows: Sequence[_Rows]) -> Optional[Tuple[List[np.ndarray], int]]:
        """Each topic's chosen ceilings (0/1 per broker) and the optimum; None when a class's
        answer cannot be split into its topics at that optimum."""
        reps = [rows[c[0]] for c in classes]
        sizes = np.array([len(c) for c in classes], dtype=np.float64)
        widths = [len(r.free) for r in reps]
        starts = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        nx, nc = int(starts[-1]), len(classes)
        ys: List[np.ndarray] = [np.zeros(0) for _ in classes]
        if nx:
            ys, optimum = self._milp(reps, sizes, starts, nx, nc)
        else:
            optimum = int(sum(k * max(r.base, r.part) for r, k in zip(reps, sizes)))
        chosen: List[np.ndarray] = [np.zeros(self.n, dtype=np.int64)] * len(rows)
        cost = 0.0
        for c, r, y in zip(classes, reps, ys):
            split = _split(r, np.rint(y).astype(np.int64), len(c))
            cost += float(np.maximum(r.part, r.base - split @ r.saves).sum())   # no free broker: k max(base, part)
            for i, x in zip(c, split):
                full = np.zeros(self.n, dtype=np.int64)
                full[r.free] = x
                chosen[i] = full
        if round(cost) != optimum:
            return None
        return chosen, optimum

    def _milp(self, reps: Sequence[_Rows], sizes: np.ndarray, starts: np.ndarray, nx: int,
              nc: int) -> Tuple[List[np.ndarray], int]:
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import csr_matrix

        row_of: List[np.ndarray] = []
        col_of: List[np.ndarray] = []
        values: List[np.ndarray] = []
        lower: List[float] = []
        upper: List[float] = []

        def add(cols: np.ndarray, coef: np.ndarray, lo: float, hi: float) -> None:
            row_of.append(np.full(len(cols), len(lower)))
            col_of.append(cols)
            values.append(coef)
            lower.append(lo)
            upper.append(hi)

        for c, (r, k) in enumerate(zip(reps, sizes)):
            index = starts[c] + np.arange(len(r.free))
            if len(index):
                add(index, np.ones(len(index)), k * r.left, k * r.left)
            for at, need, room in r.racks:
                add(index[at], np.ones(len(at)), k * need, k * room)
            # z_c + saves . y_c >= k base (z_c is column nx + c)
            add(np.concatenate([index, [nx + c]]), np.concatenate([r.saves, [1.0]]), k * r.base, np.inf)
        broker = np.concatenate([r.free for r in reps])
        r0 = len(lower)                              # broker rows: cluster totals within floor/ceil
        row_of.append(r0 + broker)
        col_of.append(np.arange(nx))
        values.append(np.ones(nx))
        lower.extend(self.lower.tolist())
        upper.extend(self.upper.tolist())
        matrix = csr_matrix((np.concatenate(values), (np.concatenate(row_of), np.concatenate(col_of))),
                            shape=(r0 + self.n, nx + nc))
        cap = np.repeat(sizes, [len(r.free) for r in reps])
        floor_z = np.array([k * r.part for r, k in zip(reps, sizes)])
        result = milp(np.concatenate([np.zeros(nx), np.ones(nc)]), integrality=np.ones(nx + nc),
                      constraints=LinearConstraint(matrix, lower, upper),
                      bounds=Bounds(np.concatenate([np.zeros(nx), floor_z]),
                                    np.concatenate([cap, np.full(nc, np.inf)])))
        if result.x is None:
            raise AssertionError(f"cluster replica targets: the solver found none ({result.message}); a bug")
        ys = [result.x[starts[c]:starts[c + 1]] for c in range(nc)]
        return ys, int(round(result.fun))


def _split(r: _Rows, y: np.ndarray, k: int) -> np.ndarray:
    """A class's ceilings ``y`` (per free broker, each at most ``k``) as ``k`` topics' 0/1 rows,
    each meeting the topic's rows: per rack, every topic takes the floor or the ceiling of the
    rack's share (which rack's ceilings go to which topic: largest remainders first), then within
    the rack the topics taking more come first and each takes the brokers with the most ceilings
    left. Both steps always succeed (Gale-Ryser: the column sums are at most ``k`` and the row
    sums differ by at most one)."""
    out = np.zeros((k, len(r.free)), dtype=np.int64)
    groups = r.racks if r.racks else ((np.arange(len(r.free)), 0.0, float(r.left)),)
    totals = np.array([int(y[at].sum()) for at, _, _ in groups], dtype=np.int64)
    base, extra = totals // k, totals % k
    share = np.tile(base, (k, 1))
    per_topic = int(extra.sum()) // k                        # the racks' ceilings add up to k topics' rows
    remain = extra.copy()
    for t in range(k):                                       # each topic: the racks with the most left
        order = np.argsort(-remain, kind="stable")[:per_topic]
        share[t, order] += 1
        remain[order] -= 1
    for g, (at, _, _) in enumerate(groups):
        left_at = y[at].copy()
        for t in np.argsort(-share[:, g], kind="stable").tolist():
            take = np.argsort(-left_at, kind="stable")[:share[t, g]]
            out[t, at[take]] = 1
            left_at[take] -= 1
    return out

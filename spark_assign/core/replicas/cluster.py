"""``sticky`` for every topic of a cluster at once: balanced per topic and across the cluster.

What ``place_topics`` (and through it ``assign_replicas``, ``ReplicaTable`` and
the CLI) runs for ``sticky``. One topic alone is :func:`~.sticky.place_sticky`;
a cluster adds what a platform engineer checks first, the totals per broker.
The stages, on dense broker numbers (usable brokers, ascending id):

1. **keep** (:func:`~.sticky.keep_valid`, per topic): the previous replicas the
   new brokers, racks and replication factor allow;
2. **targets** (:func:`~.transport.cluster_targets`, all topics together): each
   topic's per-broker counts, the floor or the ceiling of its level (every topic
   balanced on its own), chosen so that every broker's total is the floor or the
   ceiling of its cluster level (within 1 of every other without racks), with the
   fewest moves those rules allow: that optimum is :attr:`ClusterPlan.bound`;
3. **fill** (:func:`~.sticky.fill_to_targets`, per topic): brokers above their
   target shed, holes are filled, every broker ends exactly at its target; where
   a partition's distinct brokers made the fill shed a kept replica that other
   targets within the same bounds would have kept, :func:`~.repair.restore_kept`
   gives it back along a chain of moved ones;
4. **leaders** (:func:`~.leaders.balance_leaders`, all partitions together): the
   previous leader stays first where kept, then leaderships move within
   partitions (reordering, no data moved) only where that makes the cluster's
   leader counts more even; they end as even as the replica sets allow. Where
   those sets leave leader counts 2 apart (a replication factor of 1 fixes
   leaders), :func:`~.leaders.open_leader_paths` changes where moved replicas
   go, within every topic's and broker's floor and ceiling, never how many move.

A second run on the output moves nothing and changes no leader: the output's
counts are targets of cost zero, the only ones (stage 2), and no leader move can
make the counts more even (stage 4).

With loads (:class:`~.loads.LoadOptions`) a fifth stage follows, the **goal
search** (:mod:`.goals`): Cruise Control's order of goals, hard before soft,
each never worsening an earlier one; the load distributions come before the
counts. When nothing needs filling (no replica lost, same replication
factors, no broker left empty: an unchanged cluster, or brokers joining one
that already holds replicas) stages 2 and 3 leave the placement as it is and
stage 4 only gives leaderless partitions a leader, so that the goal search
alone decides what moves and a second run finds nothing to do. Otherwise
(a broker joined empty, a replica was lost) stages 2 to 4 run as without
loads, the fewest moves to balanced counts, and the goal search goes on from
there. A topic's own balance is not a goal then: it gives way to the loads
(Cruise Control's topic replica distribution comes after them too).

Limits: stage 2 is one integer program over the classes of equal topics and
the brokers where their level is fractional (HiGHS: milliseconds for hundreds
of classes, about a second for 1,000 distinct topics on 50 brokers); stages 1
and 3 loop over the distinct topics (equal shape, previous placement and
targets: computed once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError
from .goals import GoalSearch
from .leaders import balance_leaders, open_leader_paths
from .loads import GoalRow, LoadOptions, RackBounds, broker_state, goal_report, goals_of, load_model
from .model import Broker, PlacementBlock
from .repair import restore_kept
from .sticky import check_previous, dense_previous, fill_to_targets, keep_valid
from .targets import RackLayout, broker_levels, floor_ceil, rack_layout
from .transport import ClusterTargets, TopicCounts, cluster_targets

__all__ = ["ClusterPlan", "place_sticky_cluster", "cluster_moves_bound"]


@dataclass(frozen=True)
class ClusterPlan:
    """A cluster's ``sticky`` plan: one block per topic (broker ids, leader first), the per-topic
    targets and move bound (:class:`~.transport.ClusterTargets`), each topic's checked previous
    placement (broker ids, -1 padding) and, with loads, each goal before and after
    (:class:`~.loads.GoalRow`) and the goal search's actions."""

    blocks: List[PlacementBlock]
    targets: ClusterTargets
    previous: List[np.ndarray]
    goals: List[GoalRow] = field(default_factory=list)
    actions: int = 0

    @property
    def bound(self) -> int:
        """The fewest replica moves any plan meeting the cluster's balance rules needs."""
        return self.targets.bound


def place_sticky_cluster(brokers: Sequence[Broker], counts: np.ndarray, factors: np.ndarray,
                         previous: Optional[Sequence[Optional[np.ndarray]]], rack_aware: Optional[str],
                         names: Optional[Sequence[str]] = None, loads: Optional[LoadOptions] = None) -> ClusterPlan:
    """Every topic of a cluster reassigned together (module docstring).

    Example::

        from spark_assign.core import Broker
        plan = place_sticky_cluster([Broker(i) for i in range(4)], np.array([3, 3]), np.array([2, 2]),
                                    [np.array([[0, 1], [1, 2], [2, 0]])] * 2, None)
        [b.broker_ids.tolist() for b in plan.blocks]    # broker 3 takes 3 replicas, one topic's 2 and the other's 1

    Parameters
    ----------
    brokers:
        The cluster's brokers (checked).
    counts, factors:
        Per topic, its partitions and replication factor (checked; each factor at most the
        usable brokers).
    previous:
        Per topic, its current placement: a ``(partitions, RF_old)`` array of broker ids, ``-1``
        padding; None (or None for a topic): placed from scratch.
    rack_aware:
        As for ``place_replicas``.
    names:
        The topics' names: the order the topics are planned in (so the plan does not depend on the
        order of the rows) and the messages (default: their numbers, in the given order).
    loads:
        Per-partition loads, capacities and thresholds (:class:`~.loads.LoadOptions`): stage 5
        balances them goal by goal (:mod:`.goals`); None: counts only.
    """
    order, topics, checked = _topics(brokers, counts, factors, previous, rack_aware, names)
    kept = _per_content(topics, lambda t: keep_valid(t.prev, t.layout, t.replication_factor))   # stage 1
    targets = cluster_targets(topics)                                             # stage 2
    filled = loads is None or not all(_whole(k, t) for k, t in zip(kept, topics)) or _empty(topics, targets)
    # with loads and nothing to fill, the goal search alone moves and reorders (a second run is stable)
    placed = _fill(kept, topics, targets.targets) if filled else kept             # stage 3
    ids = topics[0].layout.ids if topics else np.zeros(0, dtype=np.int64)
    flat = _Flat(placed, topics)
    bounds = _Bounds(topics, targets)
    if filled and len(ids):                                                      # stage 3, kept given back
        had = np.concatenate([(c >= 0).any(axis=1) for c in checked]) if checked else np.zeros(0, dtype=bool)
        restore_kept(flat.m, flat.prev, had, flat.topic, topics[0].layout.rack_of, bounds.topics, bounds.brokers,
                     len(ids))
    balance_leaders(flat.m, flat.leader, len(ids), improve=filled)               # stage 4
    if filled and len(ids) and np.ptp(np.bincount(flat.m[:, 0], minlength=len(ids))) > 1:
        open_leader_paths(flat.m, flat.prev, flat.topic, topics[0].layout.rack_of, bounds.topics(),
                          bounds.brokers, len(ids))                               # stage 4, no path left
    report: List[GoalRow] = []
    actions = 0
    if loads is not None and len(ids):                                            # stage 5
        planned = [names[i] for i in order] if names is not None else [str(i) for i in order]
        report, actions = _balance_loads(flat, topics, order, planned, ids, targets, loads)
    placed = flat.split()
    back = np.argsort(order).tolist()
    blocks = [PlacementBlock(np.full(len(placed[j]), i, dtype=np.int32), np.arange(len(placed[j]), dtype=np.int32),
                             ids[placed[j]].astype(np.int32)) for i, j in enumerate(back)]
    return ClusterPlan(blocks, ClusterTargets([targets.targets[j] for j in back], targets.bound,
                                              targets.broker_floor, targets.broker_ceil),
                       [checked[j] for j in back], report, actions)


def cluster_moves_bound(brokers: Sequence[Broker], counts: np.ndarray, factors: np.ndarray,
                        previous: Optional[Sequence[Optional[np.ndarray]]], rack_aware: Optional[str],
                        names: Optional[Sequence[str]] = None) -> int:
    """:attr:`ClusterPlan.bound` without the plan (stage 2 only): the fewest replica moves any
    plan balanced per topic and across the cluster needs. Parameters as :func:`place_sticky_cluster`.

    Example::

        cluster_moves_bound([Broker(i) for i in range(4)], np.array([3, 3]), np.array([2, 2]),
                            [np.array([[0, 1], [1, 2], [2, 0]])] * 2, None) == 3
    """
    return cluster_targets(_topics(brokers, counts, factors, previous, rack_aware, names)[1]).bound


def _topics(brokers: Sequence[Broker], counts: np.ndarray, factors: np.ndarray,
            previous: Optional[Sequence[Optional[np.ndarray]]], rack_aware: Optional[str],
            names: Optional[Sequence[str]]) -> Tuple[List[int], List[TopicCounts], List[np.ndarray]]:
    """The planning order (by name: the integer program's choice among equal optima may depend
    on the order of its rows, and a cluster's rows must not depend on the order its topics
    arrive in), each topic's counts in that order and its checked previous placement."""
    order = sorted(range(len(counts)), key=lambda i: names[i]) if names is not None else list(range(len(counts)))
    layouts: Dict[int, RackLayout] = {}
    topics: List[TopicCounts] = []
    checked: List[np.ndarray] = []
    seen: Dict[Tuple[object, ...], Tuple[np.ndarray, TopicCounts]] = {}
    for i in order:
        count, rf = int(counts[i]), int(factors[i])
        if rf not in layouts:
            layouts[rf] = rack_layout(brokers, rf, rack_aware)
        raw = previous[i] if previous is not None else None
        key = _content(raw, count, rf)
        if key is None or key not in seen:
            before = _checked(raw, count, names[i] if names is not None else str(i))
            fresh = int((~(before >= 0).any(axis=1)).sum())
            known = (before, TopicCounts(layouts[rf], count, rf, dense_previous(before, layouts[rf]), fresh))
            if key is not None:
                seen[key] = known
        else:
            known = seen[key]
        checked.append(known[0])
        topics.append(known[1])
    return order, topics, checked


def _content(raw: Optional[np.ndarray], count: int, rf: int) -> Optional[Tuple[object, ...]]:
    """A key equal for topics of equal shape and previous placement (an integer array), else None.

    Topics of equal content share one :class:`~.transport.TopicCounts` object, so stages 1 to 3
    compute each distinct topic once (:func:`_per_content`): a fleet's topics of one shape placed
    by one tool take a few dozen distinct placements among thousands of topics."""
    if raw is None:
        return (count, rf)
    if not isinstance(raw, np.ndarray) or raw.dtype.kind not in "iu" or raw.ndim != 2:
        return None
    return count, rf, raw.shape, raw.dtype.str, raw.tobytes()


def _per_content(topics: Sequence[TopicCounts], compute: Callable[[TopicCounts], np.ndarray]) -> List[np.ndarray]:
    """``compute(t)`` per topic, once per distinct topic object (the result is shared: read only)."""
    done: Dict[int, np.ndarray] = {}
    out = []
    for t in topics:
        value = done.get(id(t))
        if value is None:
            value = done[id(t)] = compute(t)
        out.append(value)
    return out


def _fill(kept: List[np.ndarray], topics: Sequence[TopicCounts], targets: Sequence[np.ndarray]) -> List[np.ndarray]:
    """Stage 3 per topic, once per distinct (topic, kept replicas, targets)."""
    done: Dict[Tuple[int, int, bytes], np.ndarray] = {}
    out = []
    for k, t, target in zip(kept, topics, targets):
        key = (id(t), id(k), target.tobytes())
        value = done.get(key)
        if value is None:
            value = done[key] = fill_to_targets(k, t.prev, t.layout, t.replication_factor, target)
        out.append(value)
    return out


class _Bounds:
    """The counts a balanced plan keeps within: per broker its cluster total's floor and ceiling
    (``brokers``), and per topic and broker the floor and ceiling of its level (``topics()``,
    computed when first asked: only a repair needs them)."""

    def __init__(self, topics: Sequence[TopicCounts], targets: ClusterTargets) -> None:
        self._topics = topics
        self._per_topic: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self.brokers = (targets.broker_floor, targets.broker_ceil)

    def topics(self) -> Tuple[np.ndarray, np.ndarray]:
        if self._per_topic is None:
            pairs = [floor_ceil(broker_levels(t.layout, t.partitions, t.replication_factor)) for t in self._topics]
            self._per_topic = np.stack([lo for lo, _ in pairs]), np.stack([hi for _, hi in pairs])
        return self._per_topic


def _checked(before: Optional[np.ndarray], count: int, name: str) -> np.ndarray:
    """A topic's previous placement, checked (errors name the topic and its partitions)."""
    if before is None:
        return np.zeros((count, 0), dtype=np.int64)
    rows = [[int(b) for b in row if b >= 0] for row in np.asarray(before).tolist()]
    try:
        return check_previous(rows, count)
    except InvalidInputError as e:
        raise InvalidInputError(f"topic {name!r}: {e.problem}", column=e.column, rows=e.rows) from None


def _empty(topics: Sequence[TopicCounts], targets: ClusterTargets) -> bool:
    """Whether a broker holds no replica although its share is at least one (it joined): then the
    counts are filled first and the goal search starts from there, instead of moving its share one
    relocation at a time. A second run finds no such broker."""
    held = np.zeros(len(targets.broker_floor), dtype=bool)
    for t in {id(t): t for t in topics}.values():
        held[t.prev[t.prev >= 0]] = True
    return bool((~held & (targets.broker_floor > 0)).any())


def _whole(kept: np.ndarray, topic: TopicCounts) -> bool:
    """Whether a topic kept every previous replica, each partition with exactly its replication
    factor (nothing to fill: same brokers, racks and replication factor)."""
    return kept.shape[1] == topic.replication_factor and bool((kept >= 0).all()) and \
        bool((kept == topic.prev).all())


class _Flat:
    """A cluster's topics as one matrix: rows in planning order, ``-1`` padding shorter rows;
    ``leader`` each row's previous leader, ``prev`` its previous replicas (dense)."""

    def __init__(self, placed: List[np.ndarray], topics: List[TopicCounts]) -> None:
        self.sizes = [len(m) for m in placed]
        self.widths = [m.shape[1] for m in placed]
        width = max(self.widths, default=1)
        old = max((t.prev.shape[1] for t in topics), default=0)
        total = sum(self.sizes)
        self.m = np.full((total, width), -1, dtype=np.int64)
        self.prev = np.full((total, max(old, 1)), -1, dtype=np.int64)
        self.topic = np.repeat(np.arange(len(placed)), self.sizes)
        at = 0
        for m, t in zip(placed, topics):
            self.m[at:at + len(m), :m.shape[1]] = m
            self.prev[at:at + len(m), :t.prev.shape[1]] = t.prev
            at += len(m)
        self.leader = self.prev[:, 0].copy()

    def split(self) -> List[np.ndarray]:
        ends = np.cumsum(self.sizes).tolist()
        return [self.m[start:end, :w].copy() for start, end, w in zip([0] + ends[:-1], ends, self.widths)]


def _balance_loads(flat: _Flat, topics: List[TopicCounts], order: List[int], names: List[str], ids: np.ndarray,
                   targets: ClusterTargets, options: LoadOptions) -> Tuple[List[GoalRow], int]:
    """Stage 5, in place on ``flat.m``: the goal search over the loads; the report and actions.
    ``order``/``names``: the topics' input positions and names, in planning order."""
    per_topic: Dict[str, Sequence[np.ndarray]] = {name: [values[i] for i in order]
                                                  for name, values in options.loads.items()}
    model = load_model(per_topic, [t.partitions for t in topics], ids, options.capacities, names)
    sizes = [t.partitions for t in topics]
    lo = np.repeat(np.stack([t.layout.lo for t in topics]), sizes, axis=0)
    hi = np.repeat(np.stack([t.layout.hi for t in topics]), sizes, axis=0)
    leader_in = model.values[:, model.names.index("bytes_in")] if "bytes_in" in model.names else None
    n = len(ids)
    before = broker_state(flat.prev, model, leader_in, n)       # the previous placement on the new brokers
    racks = RackBounds(lo, hi, topics[0].layout.rack_of) if topics[0].layout.racks > 1 else None
    goals = goals_of(model, model.broker_totals(flat.m, n), (targets.broker_floor, targets.broker_ceil),
                     len(flat.m), options.threshold, options.max_replicas_per_broker,
                     None if leader_in is None else float(leader_in.sum()), racks)
    search = GoalSearch(flat.m, flat.prev, flat.topic, lo, hi, topics[0].layout.rack_of, model, goals, leader_in)
    actions = search.run()
    return goal_report(goals, model, before, search.state(), leader_in), actions

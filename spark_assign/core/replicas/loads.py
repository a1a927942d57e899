"""Partition loads, broker capacities and the goals a cluster's placement is held to, in order.

Cruise Control balances a cluster against an ordered list of goals, hard ones
first; a goal may not worsen one before it. ``sticky`` with loads does the
same (the search is :mod:`.goals`), with these goals, in this order:

========================  ====  =====================================================
goal                      kind  a broker's violation (0: met)
========================  ====  =====================================================
rack awareness            hard  kept by every action (``min(RF, racks)`` racks)
capacity: ``<load>``      hard  its load above its capacity for that load
replica capacity          hard  its replicas above ``max_replicas_per_broker``
distribution: ``<load>``  soft  its load outside ``level * (1 +- threshold)``
replica distribution      soft  its replicas outside the floor/ceiling of its level
leader distribution       soft  its preferred leaders outside ``P / N`` rounded
leader bytes-in           soft  the ``bytes_in`` it leads outside ``mean * (1 +- t)``
========================  ====  =====================================================

**Loads** are named per partition, in the caller's order (which is the order of
their distribution goals). A load is carried by every replica (``size_bytes``:
each replica stores the partition; ``bytes_in``: each replica writes what
producers send; any other name), except ``bytes_out``, which only the leader
serves (consumers fetch from it). With capacities for a load (per broker, in
the load's unit) its distribution is of the utilization, load over capacity,
and its mean is the cluster's total over the total capacity: a broker twice as
big is given twice the load.

A load carried by every replica is also bound by the racks: a partition puts
between ``lo_r`` and ``hi_r`` of its replicas on rack ``r`` (``min(RF, racks)``
racks), so rack ``r`` carries between ``sum_p lo_r w_p`` and ``sum_p hi_r w_p``.
A broker's **level** is its rack's share once those bounds are met, water-filled
as the replica counts are (:func:`rack_levels`): on 3 racks of 3, 2 and 2 brokers
with RF 3, every rack holds a third, so a broker of the small racks carries 1.5
times what one of the large rack does, and no placement does better. Without
racks (or with ``RF`` below the racks and even capacity) the level is the mean.

Every violation is a sum over brokers, in the load's unit (bytes, replicas), so
an action that changes two brokers changes it by their two terms. The report
(:func:`goal_report`) gives each goal's value before and after against its
bound: for a distribution, the heaviest broker's load (utilization with
capacities) against the cluster's mean and against the lower bound the racks and
the partitions allow (the highest level, or the largest single replica's load if
larger).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError

__all__ = ["LEADER_LOADS", "DEFAULT_THRESHOLD", "LoadOptions", "LoadModel", "BrokerState", "broker_state", "Goal", "goals_of", "GoalRow", "goal_report",
           "load_model", "RackBounds", "rack_levels"]

#: Loads only the preferred leader carries (consumers fetch from the leader).
LEADER_LOADS = ("bytes_out",)
#: Cruise Control's default balance threshold (``*.balance.threshold`` 1.10): 10% around the mean.
DEFAULT_THRESHOLD = 0.10


@dataclass(frozen=True)
class LoadOptions:
    """What ``sticky`` balances beside the counts: ``loads`` (name -> one array per topic, one value
    per partition, names in goal order), ``capacities`` (name -> broker id -> capacity, in the
    load's unit), the distribution ``threshold`` (0.10: within 10% of the mean) and an optional
    ``max_replicas_per_broker``."""

    loads: Mapping[str, Sequence[np.ndarray]]
    capacities: Optional[Dict[str, Dict[int, float]]] = None
    threshold: float = DEFAULT_THRESHOLD
    max_replicas_per_broker: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.threshold, (int, float)) or isinstance(self.threshold, bool) or \
                not 0 <= self.threshold < 1:
            raise InvalidInputError(f"threshold must be a number from 0 to 1 (0.10: within 10% of the mean), "
                                    f"got {self.threshold!r}", column="threshold", rows=[self.threshold])
        limit = self.max_replicas_per_broker
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise InvalidInputError(f"max_replicas_per_broker must be a positive integer, got {limit!r}",
                                    column="max_replicas_per_broker", rows=[limit])


@dataclass(frozen=True)
class LoadModel:
    """A cluster's loads, flat over its partitions (rows in topic order), dense brokers.

    ``names`` in priority order; ``values`` ``(partitions, loads)``; ``leader_only`` per load;
    ``capacity`` ``(brokers, loads)`` (``inf`` where none); ``has_capacity`` per load."""

    names: Tuple[str, ...]
    values: np.ndarray
    leader_only: np.ndarray
    capacity: np.ndarray
    has_capacity: np.ndarray

    def broker_totals(self, m: np.ndarray, n: int) -> np.ndarray:
        """``(brokers, loads)``: each broker's load under placement ``m`` (dense, -1 padding)."""
        out = np.zeros((n, len(self.names)))
        rows, cols = np.nonzero(m >= 0)
        brokers = m[rows, cols]
        for k in range(len(self.names)):
            keep = cols == 0 if self.leader_only[k] else np.ones(len(rows), dtype=bool)
            out[:, k] = np.bincount(brokers[keep], weights=self.values[rows[keep], k], minlength=n)
        return out


def load_model(loads: Mapping[str, Sequence[np.ndarray]], counts: Sequence[int], ids: np.ndarray,
               capacities: Optional[Dict[str, Dict[int, float]]] = None,
               topics: Optional[Sequence[str]] = None) -> LoadModel:
    """The :class:`LoadModel` of per-topic ``loads`` (name -> one array per topic, one value per
    partition) and ``capacities`` (name -> broker id -> capacity); errors name the load, and the
    topics at fault by name (``topics``; default: their numbers).

    Example::

        load_model({"size_bytes": [np.array([5.0, 7.0])]}, [2], np.array([1, 2]), {"size_bytes": {1: 10, 2: 10}})
    """
    names = tuple(loads)
    total = int(sum(counts))
    values = np.zeros((total, len(names)))
    for k, name in enumerate(names):
        per_topic = loads[name]
        if len(per_topic) != len(counts):
            raise InvalidInputError(f"loads[{name!r}] needs one array per topic ({len(counts)}), got {len(per_topic)}",
                                    column=name, rows=[len(per_topic)])
        column = [np.asarray(v, dtype=np.float64).reshape(-1) for v in per_topic]
        bad = [t for t, (v, c) in enumerate(zip(column, counts)) if len(v) != c or not np.isfinite(v).all()
               or (v < 0).any()]
        if bad:
            raise InvalidInputError(f"loads[{name!r}]: one finite, non-negative value per partition is needed",
                                    column=name, rows=[topics[t] for t in bad] if topics is not None else bad)
        values[:, k] = np.concatenate(column) if column else np.zeros(0)
    capacity = np.full((len(ids), len(names)), np.inf)
    has = np.zeros(len(names), dtype=bool)
    for name, per_broker in (capacities or {}).items():
        if name not in names:
            raise InvalidInputError(f"capacities name the load {name!r}, which no partition carries "
                                    f"(loads: {', '.join(names) or 'none'})", column="capacities", rows=[name])
        k = names.index(name)
        missing = [int(b) for b in ids.tolist() if b not in per_broker]
        if missing:
            raise InvalidInputError(f"capacities[{name!r}] lacks brokers", column=name, rows=missing)
        caps = np.array([float(per_broker[int(b)]) for b in ids.tolist()])
        if not (np.isfinite(caps) & (caps > 0)).all():
            raise InvalidInputError(f"capacities[{name!r}]: every capacity must be positive",
                                    column=name, rows=ids[~(np.isfinite(caps) & (caps > 0))].tolist())
        capacity[:, k], has[k] = caps, True
    leader_only = np.array([name in LEADER_LOADS for name in names], dtype=bool)
    return LoadModel(names, values, leader_only, capacity, has)


@dataclass(frozen=True)
class Goal:
    """One goal: its ``name``, whether it is ``hard``, and what its per-broker violation reads:
    ``kind`` (``capacity``, ``limit``, ``spread``, ``replicas``, ``leaders``), the load index
    ``k`` (spread of a load; -1 for leader bytes-in) and the per-broker bounds ``low``/``high``
    (for a spread: of the utilization)."""

    name: str
    hard: bool
    kind: str
    k: int = -1
    low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scale: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: Changes smaller than this are noise (sums of floats updated action by action): half a
    #: replica for counts, a ten-millionth of the cluster's total for a load.
    tolerance: float = 0.5

    def term(self, totals: np.ndarray, replicas: np.ndarray, leaders: np.ndarray, leader_in: np.ndarray,
             broker: np.ndarray) -> np.ndarray:
        """Per broker (any shape, ``broker`` its indices): its violation of this goal, from its
        load totals ``(..., loads)``, replica and leader counts, and the ``bytes_in`` it leads."""
        if self.kind == "replicas":
            value = replicas.astype(np.float64)
        elif self.kind == "leaders":
            value = leaders.astype(np.float64)
        elif self.kind == "leader_in":
            value = leader_in / self.scale[broker]
        elif self.kind == "limit":
            value = replicas.astype(np.float64)
        else:
            value = totals[..., self.k] / self.scale[broker]
        over = np.maximum(value - self.high[broker], 0.0)
        under = np.maximum(self.low[broker] - value, 0.0)
        return (over + under) * self.scale[broker]


class RackBounds(NamedTuple):
    """The racks' rules per partition: ``lo``/``hi`` ``(P, racks)``, the replicas partition ``p``
    must and may put on each rack, and ``rack_of`` each dense broker's rack."""

    lo: np.ndarray
    hi: np.ndarray
    rack_of: np.ndarray


def rack_levels(values: np.ndarray, total: float, racks: Optional[RackBounds], scale: np.ndarray) -> np.ndarray:
    """Each broker's level for a load every replica carries (``values`` per partition, ``total``
    what all replicas carry): its rack's share, over its capacity (``scale``), once every rack
    carries between the least and the most the racks' rules let it (module docstring). Without
    ``racks``: the cluster's mean.

    Example::

        rack_levels(np.array([1.0]), 2.0, RackBounds(np.ones((1, 2)), np.ones((1, 2)), np.array([0, 0, 1])),
                    np.ones(3))    # [0.5, 0.5, 1.0]: each rack carries one replica
    """
    n = len(scale)
    total_cap = float(scale.sum())
    if racks is None or not len(values) or not total_cap:
        return np.full(n, total / total_cap if total_cap else 0.0)
    cap = np.bincount(racks.rack_of, weights=scale, minlength=racks.lo.shape[1])
    low = values @ racks.lo / np.maximum(cap, 1e-300)        # per rack: the least and the most it carries,
    high = values @ racks.hi / np.maximum(cap, 1e-300)       # per unit of capacity
    lo_u, hi_u = float(low.min()), float(high.max())
    for _ in range(100):                                     # sum_r cap_r clip(U, low_r, high_r) = total
        mid = (lo_u + hi_u) / 2
        if float((cap * np.clip(mid, low, high)).sum()) < total:
            lo_u = mid
        else:
            hi_u = mid
    return np.clip(hi_u, low, high)[racks.rack_of]


def goals_of(model: LoadModel, totals: np.ndarray, replica_bounds: Tuple[np.ndarray, np.ndarray], parts: int,
             threshold: float, max_replicas_per_broker: Optional[int], leader_in_total: Optional[float],
             racks: Optional[RackBounds] = None) -> List[Goal]:
    """The goals of the module docstring, in order, for ``model`` on ``n`` dense brokers:
    ``totals`` ``(n, loads)`` (what the brokers carry; actions move it, never change its sum),
    ``replica_bounds`` each broker's cluster-wide replica floor and ceiling, ``parts`` the
    partitions, ``leader_in_total`` the partitions' ``bytes_in`` (None: no leader bytes-in goal)
    and ``racks`` the racks' rules (None: the levels are the means)."""
    n = len(replica_bounds[0])
    ones = np.ones(n)
    goals: List[Goal] = []
    noise = 1e-7 * np.maximum(totals.sum(axis=0), 1.0) if totals.size else np.ones(len(model.names))
    for k, name in enumerate(model.names):
        if model.has_capacity[k]:
            goals.append(Goal(f"capacity: {name}", True, "capacity", k, np.full(n, -np.inf), model.capacity[:, k],
                              ones, float(noise[k])))
    if max_replicas_per_broker is not None:
        goals.append(Goal("replica capacity", True, "limit", -1, np.full(n, -np.inf),
                          np.full(n, float(max_replicas_per_broker)), ones))
    for k, name in enumerate(model.names):
        scale = model.capacity[:, k] if model.has_capacity[k] else ones
        if model.leader_only[k] or racks is None:
            level = np.full(n, float(totals[:, k].sum()) / float(scale.sum()) if scale.sum() else 0.0)
        else:
            level = rack_levels(model.values[:, k], float(totals[:, k].sum()), racks, scale)
        goals.append(_spread(f"distribution: {name}", "spread", k, scale, level, threshold, float(noise[k])))
    goals.append(Goal("replica distribution", False, "replicas", -1, replica_bounds[0].astype(np.float64),
                      replica_bounds[1].astype(np.float64), ones))
    goals.append(Goal("leader distribution", False, "leaders", -1, np.full(n, float(parts // n)),
                      np.full(n, float(parts // n + (parts % n > 0))), ones))
    if leader_in_total is not None:
        goals.append(_spread("leader bytes-in", "leader_in", -1, ones, np.full(n, leader_in_total / n), threshold,
                             1e-7 * max(leader_in_total, 1.0)))
    return goals


def _spread(name: str, kind: str, k: int, scale: np.ndarray, level: np.ndarray, threshold: float,
            tolerance: float) -> Goal:
    """A distribution goal: each broker's utilization (load over ``scale``, the capacities or
    ones) within ``level * (1 +- threshold)``."""
    return Goal(name, False, kind, k, level * (1 - threshold), level * (1 + threshold), scale, tolerance)


class BrokerState(NamedTuple):
    """Per broker: its load totals ``(brokers, loads)``, replicas, preferred leaders and the
    ``bytes_in`` of the partitions it leads."""

    totals: np.ndarray
    replicas: np.ndarray
    leaders: np.ndarray
    leader_in: np.ndarray


def broker_state(m: np.ndarray, model: LoadModel, leader_in: Optional[np.ndarray], n: int) -> BrokerState:
    """The :class:`BrokerState` of placement ``m`` (dense brokers, -1 padding; column 0 the leader)
    over ``n`` brokers; ``leader_in``: each partition's ``bytes_in`` (None: zeros)."""
    lead = m[:, 0] >= 0
    led_in = np.zeros(n) if leader_in is None else \
        np.bincount(m[lead, 0], weights=leader_in[lead], minlength=n).astype(np.float64)
    return BrokerState(model.broker_totals(m, n), np.bincount(m[m >= 0], minlength=n).astype(np.float64),
                       np.bincount(m[lead, 0], minlength=n).astype(np.float64), led_in)


@dataclass(frozen=True)
class GoalRow:
    """One goal of the report: ``value`` before and after (the heaviest broker's load or
    utilization for a distribution, else the violation in its unit), the ``bound`` it is held
    to (the highest upper limit of a distribution), the cluster's ``mean`` and the
    ``lower_bound`` of a distribution (the highest level the racks allow, or the largest
    replica's load), and whether it is met before and after."""

    goal: str
    hard: bool
    before: float
    after: float
    bound: float
    mean: Optional[float]
    lower_bound: Optional[float]
    met: bool
    met_before: bool = False

    def as_dict(self) -> Dict[str, object]:
        return {"goal": self.goal, "kind": "hard" if self.hard else "soft", "before": self.before,
                "after": self.after, "bound": self.bound, "mean": self.mean, "lower_bound": self.lower_bound,
                "met_before": self.met_before, "met": self.met}


def goal_report(goals: Sequence[Goal], model: LoadModel, before: BrokerState, after: BrokerState,
                leader_in: Optional[np.ndarray]) -> List[GoalRow]:
    """Each goal before and after (:class:`GoalRow`), from the brokers' states; ``leader_in``:
    each partition's ``bytes_in`` (None without it)."""
    rows: List[GoalRow] = []
    n = len(after.replicas)
    broker = np.arange(n)
    for g in goals:
        b_terms, a_terms = (g.term(s.totals, s.replicas, s.leaders, s.leader_in, broker) for s in (before, after))
        met, met_before = bool(a_terms.sum() <= g.tolerance), bool(b_terms.sum() <= g.tolerance)
        if g.kind not in ("spread", "leader_in") or not n:
            rows.append(GoalRow(g.name, g.hard, float(b_terms.sum()), float(a_terms.sum()), 0.0, None, None, met,
                                met_before))
            continue
        b_value, a_value = (float(((s.leader_in if g.kind == "leader_in" else s.totals[:, g.k]) / g.scale).max())
                            for s in (before, after))
        carried = after.leader_in if g.kind == "leader_in" else after.totals[:, g.k]
        mean = float(carried.sum() / g.scale.sum())
        level = float(((g.low + g.high) / 2).max())          # the highest level the racks allow
        largest = model.values[:, g.k] if g.kind == "spread" else \
            (leader_in if leader_in is not None else np.zeros(0))
        single = float(largest.max() / g.scale.max()) if len(largest) else 0.0
        rows.append(GoalRow(g.name, g.hard, b_value, a_value, float(g.high.max()), mean, max(level, single), met,
                            met_before))
    return rows

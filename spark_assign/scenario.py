"""A seeded model of a fleet of consumer groups changing over generations.

A :class:`Scenario` describes the fleet and its churn; :func:`generate` turns it
into one :class:`Generation` after another: each group's members and the topic
metadata. Nothing is assigned here (see :mod:`spark_assign.compare`), and the
same scenario and seed always give the same generations::

    from spark_assign.scenario import Scenario, generate

    fleet = Scenario(groups=2, members=3, topics={"orders": 6}, generations=3,
                     joins=1, crashes=1, static_share=0.5, seed=7)
    for gen in generate(fleet):
        print(gen.number, {g: [m.member_id for m in ms] for g, ms in gen.groups.items()})

The model, per group:

* generation 1 is the initial fleet: ``members`` members, of which
  ``round(static_share * members)`` are static (they have a
  ``group_instance_id``, KIP-345);
* before each later generation, in this order: ``leaves`` members leave;
  ``crashes`` members crash (a static member restarts with a new member id and
  the same ``group_instance_id``, topics and rack; a dynamic member crashing
  simply leaves); ``joins`` new members join, each static with probability
  ``static_share``. Counts are clipped to the members there are;
* then ``partition_growth`` partitions are added to random topics (the topics
  are shared by the whole fleet, and Kafka topics only grow).

With ``lag="zipf"`` partitions also carry a load, the consumer lag that
:class:`LagModel` draws and drifts generation after generation (for the
load-aware strategies, docs/load-aware.md): Zipf-distributed (``lag_skew``),
drifting by a log-normal step (``lag_drift``); from generation
``hot_partition_at`` one partition per group is hot (``hot_factor`` mean
weights); from generation ``stall_at`` one member per group stalls, and the lag
of every partition it owns grows (``stall_growth`` times the partition's own lag
per generation, so it depends on the previous assignment; moved away, the extra
lag drains by half per generation).

Subscriptions never change: with ``subscription="uniform"`` every member
subscribes to every topic; with ``"mixed"`` each member subscribes to a random
non-empty subset. With ``racks=R``, the ``k``-th member created in a group
(from 0) sits in rack ``r{k % R}`` and partition ``p`` has replicas in ``min(3, R)`` racks from
``r{p % R}`` on (:meth:`Generation.partition_racks`). Member ids are
``{group}-m0001``, ``{group}-m0002``, ... in order of creation; instance ids
``{group}-s0001``, ... No Spark import.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Mapping, Optional, Tuple, Union, cast

from .core.java.limits import is_int
from .errors import InvalidInputError

__all__ = ["Scenario", "ScenarioMember", "Event", "Generation", "generate", "SUBSCRIPTION_MODES", "LAG_MODES",
           "LagModel"]

#: Values of :attr:`Scenario.subscription`.
SUBSCRIPTION_MODES = ("uniform", "mixed")
#: Values of :attr:`Scenario.lag`: no weights, or Zipf-distributed lag per partition.
LAG_MODES = ("none", "zipf")
#: Zipf draws are capped at this many units (a partition heavier than a member's share would
#: make load balance a matter of that one partition).
LAG_CAP = 200

#: Replicas per partition when racks are modelled.
REPLICAS = 3


@dataclass(frozen=True)
class Scenario:
    """A fleet of consumer groups and its churn per generation (see the module docstring).

    * ``groups``, ``members``: how many groups, and members per group at first;
    * ``topics``: ``{name: partitions}``, or a number of topics ``t0, t1, ...``
      of ``partitions`` partitions each, shared by every group;
    * ``generations``: how many to generate, the first being the initial fleet;
    * ``joins``, ``leaves``, ``crashes``: churn per group before each later generation;
    * ``partition_growth``: partitions added (fleet-wide) before each later generation;
    * ``static_share``: the share of members with a ``group_instance_id``;
    * ``racks``: how many racks (0: no racks);
    * ``subscription``: ``"uniform"`` (every topic) or ``"mixed"`` (random subsets);
    * ``lag``: ``"none"`` or ``"zipf"`` (per-partition weights, see :class:`LagModel`), with
      ``lag_skew`` (the Zipf exponent, > 1), ``lag_drift`` (log-normal step per generation),
      ``hot_partition_at`` / ``hot_factor`` (a hot partition from that generation, that many
      mean weights; 0: never), ``stall_at`` / ``stall_growth`` (a stalled member from that
      generation, its partitions' lag growing by that multiple of their own per generation);
    * ``seed``: the same seed gives the same generations.
    """

    groups: int = 1
    members: int = 6
    topics: Union[int, Mapping[str, int]] = 2
    partitions: int = 6
    generations: int = 5
    joins: int = 0
    leaves: int = 0
    crashes: int = 0
    partition_growth: int = 0
    static_share: float = 0.0
    racks: int = 0
    subscription: str = "uniform"
    lag: str = "none"
    lag_skew: float = 1.5
    lag_drift: float = 0.05
    hot_partition_at: int = 0
    hot_factor: float = 20.0
    stall_at: int = 0
    stall_growth: float = 2.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("groups", "members", "partitions", "generations", "joins", "leaves",
                     "crashes", "partition_growth", "racks", "hot_partition_at", "stall_at", "seed"):
            _check_count(name, getattr(self, name))
        for name in ("groups", "generations"):
            if getattr(self, name) < 1:
                raise InvalidInputError(f"{name} must be at least 1", column=name, rows=[getattr(self, name)])
        share = self.static_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise InvalidInputError("static_share must be a number from 0 to 1", column="static_share",
                                    rows=[share])
        if self.lag not in LAG_MODES:
            raise InvalidInputError(f"lag must be one of {', '.join(LAG_MODES)}", column="lag", rows=[self.lag])
        for name, low in (("lag_skew", 1.0), ("lag_drift", 0.0), ("hot_factor", 0.0), ("stall_growth", 0.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low or \
                    (name == "lag_skew" and value == low) or value == float("inf"):
                raise InvalidInputError(f"{name} must be a number {'>' if name == 'lag_skew' else '>='} {low:g}",
                                        column=name, rows=[value])
        if self.subscription not in SUBSCRIPTION_MODES:
            raise InvalidInputError(f"subscription must be one of {', '.join(SUBSCRIPTION_MODES)}",
                                    column="subscription", rows=[self.subscription])
        if isinstance(self.topics, Mapping):
            object.__setattr__(self, "topics", _check_topic_counts(self.topics))
        else:
            _check_count("topics", self.topics)
            if self.topics < 1:
                raise InvalidInputError("topics must be at least 1", column="topics", rows=[self.topics])

    def topic_counts(self) -> Dict[str, int]:
        """The topic metadata of generation 1: ``{topic: partitions}``."""
        if isinstance(self.topics, Mapping):
            return dict(self.topics)
        width = len(str(self.topics - 1))
        return {f"t{i:0{width}d}": self.partitions for i in range(self.topics)}


@dataclass(frozen=True)
class ScenarioMember:
    """A member of one group in one generation."""

    member_id: str
    topics: Tuple[str, ...]
    group_instance_id: Optional[str] = None
    rack: Optional[str] = None


@dataclass(frozen=True)
class Event:
    """A change before a generation: ``kind`` is ``"join"``, ``"leave"`` or ``"crash"``.

    A crashed static member comes back as ``new_member_id``; a crashed dynamic
    member is gone (``new_member_id`` is ``None``).
    """

    group: str
    kind: str
    member_id: str
    new_member_id: Optional[str] = None


@dataclass
class Generation:
    """One generation: the members of every group, the topic metadata, and what changed
    before it (``events``; ``growth``: partitions added per topic)."""

    number: int
    topics: Dict[str, int]
    groups: Dict[str, List[ScenarioMember]]
    events: List[Event] = field(default_factory=list)
    growth: Dict[str, int] = field(default_factory=dict)
    racks: int = 0

    def partition_racks(self) -> Optional[Dict[str, List[List[str]]]]:
        """Replica racks of every partition (``None`` without racks), for rack-aware strategies."""
        if not self.racks:
            return None
        copies = min(REPLICAS, self.racks)
        return {t: [[f"r{(p + k) % self.racks}" for k in range(copies)] for p in range(n)]
                for t, n in self.topics.items()}

    def event_counts(self) -> Dict[str, int]:
        """How many joins, leaves and crashes happened before this generation (whole fleet)."""
        counts = {"join": 0, "leave": 0, "crash": 0}
        for e in self.events:
            counts[e.kind] += 1
        return counts


def generate(scenario: Scenario) -> Iterator[Generation]:
    """Yield the generations ``1 .. scenario.generations`` of ``scenario`` (deterministic)."""
    return _Fleet(scenario).run()


class _Fleet:
    """The mutable state behind :func:`generate`: one random stream drives everything."""

    def __init__(self, scenario: Scenario) -> None:
        self.s = scenario
        self.rng = random.Random(scenario.seed)
        self.topics = scenario.topic_counts()
        self.names = list(self.topics)
        width = len(str(scenario.groups - 1))
        self.groups: Dict[str, List[ScenarioMember]] = {f"g{i:0{width}d}": [] for i in range(scenario.groups)}
        self.serial = {g: 0 for g in self.groups}

    def run(self) -> Iterator[Generation]:
        s = self.s
        for g in self.groups:
            static = set(self.rng.sample(range(s.members), round(s.static_share * s.members)))
            self.groups[g] = [self.new_member(g, i in static) for i in range(s.members)]
        yield self.snapshot(1, [], {})
        for number in range(2, s.generations + 1):
            events: List[Event] = []
            for g in self.groups:
                events += self.churn(g)
            growth: Dict[str, int] = {}
            for _ in range(s.partition_growth):
                topic = self.rng.choice(self.names)
                growth[topic] = growth.get(topic, 0) + 1
                self.topics[topic] += 1
            yield self.snapshot(number, events, growth)

    def new_member(self, group: str, static: bool) -> ScenarioMember:
        self.serial[group] += 1
        n = self.serial[group]
        if self.s.subscription == "uniform":
            topics = tuple(self.names)
        else:
            topics = tuple(sorted(self.rng.sample(self.names, self.rng.randint(1, len(self.names)))))
        return ScenarioMember(
            member_id=f"{group}-m{n:04d}",
            topics=topics,
            group_instance_id=f"{group}-s{n:04d}" if static else None,
            rack=f"r{(n - 1) % self.s.racks}" if self.s.racks else None,
        )

    def churn(self, group: str) -> List[Event]:
        s, rng, members = self.s, self.rng, self.groups[group]
        events = []
        for m in rng.sample(members, min(s.leaves, len(members))):
            members.remove(m)
            events.append(Event(group, "leave", m.member_id))
        for m in rng.sample(members, min(s.crashes, len(members))):
            at = members.index(m)
            if m.group_instance_id is None:
                del members[at]
                events.append(Event(group, "crash", m.member_id))
                continue
            self.serial[group] += 1
            new_id = f"{group}-m{self.serial[group]:04d}"
            members[at] = ScenarioMember(new_id, m.topics, m.group_instance_id, m.rack)
            events.append(Event(group, "crash", m.member_id, new_id))
        for _ in range(s.joins):
            m = self.new_member(group, rng.random() < s.static_share)
            members.append(m)
            events.append(Event(group, "join", m.member_id))
        return events

    def snapshot(self, number: int, events: List[Event], growth: Dict[str, int]) -> Generation:
        return Generation(number, dict(self.topics), {g: list(ms) for g, ms in self.groups.items()},
                          events, growth, self.s.racks)


class LagModel:
    """The lag of every partition of a scenario's fleet, generation after generation (see the
    module docstring): what ``simulate`` gives the load-aware strategies as weights.

    The drifting base lag and the hot partitions are the scenario's (the same for every
    strategy); the backlog of a stalled member depends on who owned its partitions, so each
    strategy has its own (``strategy`` names it). Call :meth:`weights` for the generations in
    order, once per strategy::

        model = LagModel(Scenario(groups=2, members=3, lag="zipf", stall_at=2, seed=7))
        for gen in generate(model.scenario):
            w = model.weights(gen, "load-aware", owners)   # {group: {topic: [lag of p0, p1, ...]}}

    ``owners``: ``{(group, topic, partition): member_id}`` of the strategy's previous generation
    (empty for the first; a pending partition is owned by nobody).
    """

    def __init__(self, scenario: Scenario) -> None:
        import numpy as np

        self.scenario = scenario
        self._np = np
        self._rng = np.random.default_rng(scenario.seed + 1)
        self._base: Dict[str, Dict[str, "np.ndarray"]] = {}
        self._at = 0                                  # the generation the base lag is at
        self._hot: Dict[str, Tuple[str, int]] = {}
        self._stalled: Dict[str, str] = {}
        self._backlog: Dict[str, Dict[str, Dict[str, "np.ndarray"]]] = {}   # strategy -> group -> topic

    def _draw(self, n: int):
        s = self.scenario
        return self._np.minimum(self._rng.zipf(s.lag_skew, n), LAG_CAP).astype(float)

    def _advance(self, gen: Generation) -> None:
        """The base lag of ``gen``: new partitions drawn, the rest drifted; hot partitions and the
        stalled members chosen when their generation comes."""
        s, np = self.scenario, self._np
        for g in gen.groups:
            mine = self._base.setdefault(g, {})
            for t, n in gen.topics.items():
                old = mine.get(t, np.zeros(0))
                drift = np.exp(self._rng.normal(0, s.lag_drift, len(old))) if len(old) else old
                mine[t] = np.concatenate([old * drift, self._draw(n - len(old))])
            if s.hot_partition_at and gen.number == s.hot_partition_at and gen.topics:
                topic = sorted(gen.topics)[int(self._rng.integers(len(gen.topics)))]
                self._hot[g] = (topic, int(self._rng.integers(max(gen.topics[topic], 1))))
            if s.stall_at and gen.number == s.stall_at and gen.groups[g]:
                self._stalled[g] = gen.groups[g][0].member_id
        self._at = gen.number

    def weights(self, gen: Generation, strategy: str,
                owners: Mapping[Tuple[str, str, int], Optional[str]]) -> Dict[str, Dict[str, List[float]]]:
        """Each group's lag per topic in ``gen`` under ``strategy`` (see the class docstring)."""
        np = self._np
        if gen.number != self._at:
            self._advance(gen)
        backlog = self._backlog.setdefault(strategy, {})
        out: Dict[str, Dict[str, List[float]]] = {}
        for g, members in gen.groups.items():
            base = self._base[g]
            extra = backlog.setdefault(g, {})
            stalled = self._stalled.get(g)
            present = {m.member_id for m in members}
            mean = float(np.mean(np.concatenate(list(base.values())))) if base else 0.0
            out[g] = {}
            for t, lag in base.items():
                more = np.concatenate([extra.get(t, np.zeros(0)), np.zeros(len(lag) - len(extra.get(t, ())))])
                if gen.number > 1:           # the previous generation's consumers drained or not
                    stuck = np.array([stalled is not None and stalled in present
                                      and owners.get((g, t, p)) == stalled for p in range(len(lag))], dtype=bool)
                    more = np.where(stuck, more + self.scenario.stall_growth * lag, more * 0.5)
                extra[t] = more
                w = lag + more
                if self._hot.get(g, ("", -1))[0] == t:
                    w = w.copy()
                    w[self._hot[g][1]] += self.scenario.hot_factor * mean
                out[g][t] = [float(x) for x in w]
        return out


def _check_topic_counts(topics: Mapping[str, int]) -> Dict[str, int]:
    """``topics`` checked by the engine's own check (:func:`~spark_assign.core.consumer.model.check_topics`),
    its errors naming the ``topics`` setting and the topic: ``{orders: -3}`` is a bad partition
    count of topic 'orders', not a bad number of topics."""
    from .core.consumer.model import check_topics

    try:
        return check_topics(topics)
    except InvalidInputError as e:
        shown = ", ".join(f"{r[0]}: {r[1]!r}" if isinstance(r, tuple) else repr(r) for r in e.rows[:5])
        raise InvalidInputError(f"topics: {e.problem} ({shown})", column="topics", rows=e.rows) from None


def _check_count(name: str, value: object) -> None:
    # Not check_count: the CLI adds the value to a scenario error itself ("bad scenario: ..., got -1").
    if not is_int(value) or cast(int, value) < 0:
        raise InvalidInputError(f"{name} must be a non-negative integer", column=name, rows=[value])

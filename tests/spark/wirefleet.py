"""Random fleets as users' data, as wire rows, as Spark frames, and the per-group engine's rows.

:func:`random_fleet` draws groups the way a fleet looks: mostly small homogeneous groups,
some with mixed subscriptions, a few larger ones; static members (some restarted under a
new member id), member racks and replica racks, claims in ``owned_partitions`` (now and
then two members claiming one partition), previous generations (the latest, a stale older
one, members that left, a pending transfer), subscribed topics missing from the metadata,
and realistic non-ASCII ids. It takes any ``random.Random``: a seeded one for Spark tests,
Hypothesis's ``st.randoms()`` where failures should shrink.

:func:`expected_rows` is the oracle: each group's input built here from the model in plain
Python (the wire's rules for previous generations, restated, see
:mod:`spark_assign.spark.consumer.group_rows`), assigned by :func:`~spark_assign.core.assign_group`
one group at a time, and written out as result rows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa

from spark_assign.core import STATUS_NAMES, GroupInput, Member, assign_group
from spark_assign.spark.consumer.wire import WIRE_COLUMNS
from spark_assign.testing import NAME_STEMS

_TYPES = {"string": pa.string(), "tinyint": pa.int8(), "int": pa.int32(), "array<int>": pa.list_(pa.int32()),
          "array<array<string>>": pa.list_(pa.list_(pa.string())), "double": pa.float64()}
WIRE_SCHEMA = pa.schema([pa.field(n, _TYPES[t]) for n, t in WIRE_COLUMNS])
SUBS_DDL = ("group_id string, member_id string, topic string, group_instance_id string, rack string, "
            "owned_partitions array<int>, generation int")
TOPICS_DDL = "group_id string, topic string, num_partitions int, replica_racks array<array<string>>"
PREVIOUS_DDL = ("group_id string, generation int, member_id string, topic string, partition int, "
                "status string, group_instance_id string")

Row = Tuple[Optional[str], int, Optional[str], str, int, Optional[str], str, Optional[str]]


@dataclass
class WireMember:
    member_id: str
    topics: List[str]
    instance: Optional[str] = None
    rack: Optional[str] = None
    owned: Optional[List[Tuple[str, int]]] = None     # carried in owned_partitions when not None
    generation: Optional[int] = None


@dataclass
class WireGroup:
    group_id: str
    members: List[WireMember]
    topics: Dict[str, int]                               # this group's metadata
    replica_racks: Dict[str, List[List[str]]] = field(default_factory=dict)
    #: (member_id, topic, partition, generation, status, group_instance_id)
    previous: List[Tuple[Optional[str], str, int, int, str, Optional[str]]] = field(default_factory=list)
    #: the weights option (kind 3 rows): a weight per partition of some topics; None: no rows
    weights: Optional[Dict[str, List[float]]] = None


def _name(rng: random.Random, tag: str) -> str:
    return f"{rng.choice(NAME_STEMS)}-{tag}-{rng.randrange(10**4)}"


def random_group(rng: random.Random, group_id: str, racks: bool) -> WireGroup:
    """One group (see the module docstring)."""
    large = rng.random() < 0.05
    names = sorted({_name(rng, "t") for _ in range(rng.randint(1, 6 if large else 3))})
    topics = {t: rng.randint(0, 200 if large else 16) for t in names}
    if len(names) > 1 and rng.random() < 0.1:
        topics.pop(names[-1])                            # subscribed, missing from the metadata
    homogeneous = rng.random() < 0.7
    members = []
    for i in range(rng.randint(1, 60 if large else 12)):
        subs = names if homogeneous else rng.sample(names, rng.randint(1, len(names)))
        members.append(WireMember(f"{_name(rng, 'm')}-{i}", list(subs),
                                  instance=f"i-{i}-{rng.choice(NAME_STEMS)}" if rng.random() < 0.2 else None,
                                  rack=rng.choice(["r0", "r1", "é"]) if racks and rng.random() < 0.5 else None))
    group = WireGroup(group_id, members, topics)
    if racks and rng.random() < 0.5:
        group.replica_racks = {t: [[rng.choice(["r0", "r1", "é"])] for _ in range(n)] for t, n in topics.items()}
    if rng.random() < 0.4:
        _previous_generation(rng, group)
    if rng.random() < 0.25:
        _owned_claims(rng, group)
    return group


def _partitions(group: WireGroup) -> List[Tuple[str, int]]:
    return [(t, p) for t, n in sorted(group.topics.items()) for p in range(n)]


def _previous_generation(rng: random.Random, group: WireGroup) -> None:
    """Rows of an earlier generation: owners still here, gone, restarted under a new id."""
    generation = rng.randint(1, 9)
    owners = group.members + [WireMember(_name(rng, "gone"), [], instance=rng.choice([None, "i-old"]))
                              for _ in range(rng.randint(0, 2))]
    for t, p in _partitions(group):
        if rng.random() < 0.1:
            continue                                     # nobody owned it
        owner = rng.choice(owners)
        if rng.random() < 0.05:
            group.previous.append((None, t, p, generation, "revoked", None))   # a pending transfer
            continue
        member_id = owner.member_id
        if owner.instance is not None and rng.random() < 0.5:
            member_id = f"old-{owner.member_id}"         # the static member's id before it restarted
        group.previous.append((member_id, t, p, generation, rng.choice(["kept", "new", "moved"]), owner.instance))
        if rng.random() < 0.1:                           # a stale row of an older generation
            group.previous.append((rng.choice(owners).member_id, t, p, generation - 1, "kept", None))


def _owned_claims(rng: random.Random, group: WireGroup) -> None:
    """Claims carried by the members' rows (``owned_partitions``), now and then one twice."""
    parts = _partitions(group)
    for m in group.members:
        if rng.random() < 0.7:
            mine = [tp for tp in parts if tp[0] in m.topics and rng.random() < 0.3]
            m.owned, m.generation = mine, rng.choice([None, 1, 2, 3])


def random_weights(rng: random.Random, group: WireGroup) -> None:
    """Weights for most topics (ties, zeros, heavy ones; now and then all equal)."""
    pool = [0.0, 1.0, 1.0, 2.0, 3.5, 40.0]
    same = rng.random() < 0.1
    group.weights = {t: [1.0 if same else rng.choice(pool) if rng.random() < 0.6 else rng.random() * 100
                         for _ in range(n)]
                     for t, n in group.topics.items() if rng.random() < 0.85}


def random_fleet(rng: random.Random, groups: int, racks: bool = False, prefix: str = "g",
                 weights: bool = False) -> List[WireGroup]:
    """``groups`` random groups with ids sorted as the wire sorts them (some non-ASCII); with
    ``weights``, most of them with weights (:func:`random_weights`)."""
    fleet = [random_group(rng, f"{prefix}{i:04d}{rng.choice(['', '-é', '-主题'])}", racks) for i in range(groups)]
    for group in fleet:
        if weights and rng.random() < 0.9:
            random_weights(rng, group)
    return fleet


# ------------------------------------------------------------------ as wire rows and as Spark frames


def subscription_rows(fleet: List[WireGroup]) -> List[tuple]:
    return [(g.group_id, m.member_id, t, m.instance, m.rack,
             None if m.owned is None else [p for tt, p in m.owned if tt == t], m.generation)
            for g in fleet for m in g.members for t in m.topics]


def topic_rows(fleet: List[WireGroup]) -> List[tuple]:
    return [(g.group_id, t, n, g.replica_racks.get(t)) for g in fleet for t, n in g.topics.items()]


def previous_rows(fleet: List[WireGroup]) -> List[tuple]:
    return [(g.group_id, gen, m, t, p, s, i) for g in fleet for m, t, p, gen, s, i in g.previous]


def wire_table(fleet: List[WireGroup], with_racks: bool = False) -> pa.Table:
    """The fleet's wire (:mod:`spark_assign.spark.consumer.wire`), sorted by group and kind."""
    rows = []
    for g in fleet:
        for m in g.members:
            for t in m.topics:
                rows.append(dict(group_id=g.group_id, kind=0, member_id=m.member_id, topic=t,
                                 group_instance_id=m.instance, rack=m.rack, generation=m.generation,
                                 owned_partitions=None if m.owned is None else [p for tt, p in m.owned if tt == t],
                                 num_partitions=g.topics.get(t), metadata_rows=1 if t in g.topics else None))
        for member, t, p, gen, status, instance in g.previous:
            rows.append(dict(group_id=g.group_id, kind=1, member_id=member, topic=t, partition=p,
                             generation=gen, status=status, group_instance_id=instance))
        if with_racks:
            subscribed = {t for m in g.members for t in m.topics}
            rows += [dict(group_id=g.group_id, kind=2, topic=t, replica_racks=r)
                     for t, r in g.replica_racks.items() if t in subscribed]
        rows += [dict(group_id=g.group_id, kind=3, topic=t, partition=p, weight=w)
                 for t, ws in (g.weights or {}).items() for p, w in enumerate(ws)]
    table = pa.Table.from_pydict({n: [r.get(n) for r in rows] for n, _ in WIRE_COLUMNS}, schema=WIRE_SCHEMA)
    return table.sort_by([("group_id", "ascending"), ("kind", "ascending")])


def frames(spark, fleet: List[WireGroup]):
    """``(subscriptions, topics, previous)`` DataFrames of the fleet."""
    return (spark.createDataFrame(subscription_rows(fleet), SUBS_DDL),
            spark.createDataFrame(topic_rows(fleet), TOPICS_DDL),
            spark.createDataFrame(previous_rows(fleet), PREVIOUS_DDL))


# ------------------------------------------------------------------ the oracle


def group_input(g: WireGroup, with_racks: bool) -> Tuple[GroupInput, int, Dict[str, str]]:
    """The group's engine input, its new generation, and renamed static members (new id -> old id)."""
    members = [Member(m.member_id, topics=m.topics, instance_id=m.instance, rack=m.rack) for m in g.members]
    subscribed = sorted({t for m in g.members for t in m.topics})
    spec = GroupInput.from_members(members, {t: g.topics[t] for t in subscribed if t in g.topics},
                                   {t: r for t, r in g.replica_racks.items() if t in subscribed}
                                   if with_racks and g.replica_racks else None)
    generations = [m.generation for m in g.members]
    claims = [(i, t, p) for i, m in enumerate(g.members) if m.owned is not None for t, p in m.owned]
    dated = [row[3] for row in g.previous]
    latest = max(dated) if dated else 0
    index = {m.member_id: i for i, m in enumerate(g.members)}
    static = {m.instance: i for i, m in enumerate(g.members) if m.instance is not None}
    renamed: Dict[str, str] = {}
    prior, pending, inherited = [], [], set()
    for owner, t, p, gen, status, instance in g.previous:
        if gen != latest:
            continue
        i = index.get(owner) if owner is not None else None
        if owner is not None and i is None and instance is not None and instance in static:
            i = static[instance]
            renamed[g.members[i].member_id] = owner
        if owner is None:
            if status == "revoked":
                pending.append((t, p))
        elif i is None:
            prior.append((t, p, owner))
        elif g.members[i].owned is None:
            claims.append((i, t, p))
            inherited.add(i)
    for i in inherited:
        generations[i] = latest
    kept_topics = {t for _, t, _, gen, _, _ in g.previous if gen == latest}
    topic_names = list(spec.topic_names) + sorted(kept_topics - set(spec.topic_names))
    counts = list(spec.topic_counts) + [-1] * (len(topic_names) - len(spec.topic_names))
    code = {t: k for k, t in enumerate(topic_names)}
    spec.topic_names, spec.topic_counts = topic_names, np.array(counts, dtype=np.int64)
    spec.claim_member = np.array([i for i, _, _ in claims], dtype=np.int64)
    spec.claim_topic = np.array([code[t] for _, t, _ in claims], dtype=np.int64)
    spec.claim_partition = np.array([p for _, _, p in claims], dtype=np.int64)
    spec.generations = generations
    if g.previous:
        departed = sorted({o for _, _, o in prior})
        spec.prior_topic = np.array([code[t] for t, _, _ in prior], dtype=np.int64)
        spec.prior_partition = np.array([p for _, p, _ in prior], dtype=np.int64)
        spec.prior_owner = np.array([departed.index(o) for _, _, o in prior], dtype=np.int64)
        spec.prior_owner_names = departed
        spec.pending_topic = np.array([code[t] for t, _ in pending], dtype=np.int64)
        spec.pending_partition = np.array([p for _, p in pending], dtype=np.int64)
    new_generation = max([latest] + [x for x in generations if x is not None]) + 1
    return spec, new_generation, renamed


def expected_rows(fleet: List[WireGroup], strategy: str, with_racks: bool = False) -> List[Row]:
    """Every group's result rows, group by group in the fleet's order, each in the engine's
    (topic, partition) order: ``(group_id, generation, member_id, topic, partition,
    previous_member_id, status, group_instance_id, members)``, ``members`` the engine's member count."""
    out: List[Row] = []
    for g in fleet:
        spec, generation, renamed = group_input(g, with_racks)
        r = assign_group(spec, strategy, **({} if g.weights is None else {"weights": g.weights}))
        names = [renamed.get(n, n) for n in r.owner_names()]
        instances = r.group.instance_ids
        for t, p, o, q, s in zip(r.topic.tolist(), r.partition.tolist(), r.owner.tolist(),
                                 r.previous_owner.tolist(), r.status.tolist()):
            out.append((g.group_id, generation, r.group.member_ids[o] if o >= 0 else None, r.group.topic_names[t],
                        p, names[q] if q >= 0 else None, STATUS_NAMES[s], instances[o] if o >= 0 else None,
                        len(r.group.member_ids)))
    return out

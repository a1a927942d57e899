"""Seeded input generators, conformance-case runner and invariant checks.

Shipped in the package so that tests, benchmarks and users share them::

    from spark_assign.testing import random_group, run_case
    members, topics = random_group(seed=7)

Reference cases are JSON (``{"cases": [...]}``): each case names a strategy, a
topic metadata map and rounds of members; a round may state the expected
assignment, the expected revocations, or properties to check. Rounds chain:
a member without an ``owned`` entry owns what the previous round gave it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, cast

import numpy as np

from .core import AssignmentResult, Broker, GroupInput, Member, assign
from .core.consumer.checks import balance_violations, stickiness_violations, validity_errors

__all__ = [
    "fleet_rows",
    "churn_rows",
    "FLEET_SCHEMA",
    "EVENTS_SCHEMA",
    "membership_events",
    "random_group",
    "NAME_STEMS",
    "large_group",
    "with_owned",
    "load_cases",
    "run_case",
    "CaseFailure",
    "Executor",
    "RecordFleet",
    "consumer_offsets_fleet",
    "PLANTED_KINDS",
    "ReplicaCluster",
    "random_replica_cluster",
    "CLUSTER_CHANGES",
    "change_cluster",
]

TopicPartition = Tuple[str, int]


# ------------------------------------------------------------------ generators


def random_group(
    seed: int,
    max_members: int = 50,
    max_topics: int = 30,
    max_partitions: int = 40,
    uniform: Optional[bool] = None,
    static_share: float = 0.2,
) -> Tuple[List[Member], Dict[str, int]]:
    """A random group: members with random (or identical) subscriptions, some static.

    Deterministic for a given ``seed``. Names look like users' (:data:`NAME_STEMS`: dotted,
    accented, CJK, Cyrillic, emoji, long), so Java's orderings of strings are exercised; about
    one subscribed topic in ten (never the first) is missing from the metadata. No ownership: use
    :func:`with_owned` or feed a previous result back to model rebalances.
    """
    rng = random.Random(seed)
    n_topics = rng.randint(1, max_topics)
    names = [f"{rng.choice(NAME_STEMS)}-{i}" for i in range(n_topics)]
    topics = {t: rng.randint(0, max_partitions) for t in names if t == names[0] or rng.random() >= 0.1}
    if uniform is None:
        uniform = rng.random() < 0.5
    shared = rng.sample(names, rng.randint(1, n_topics))
    members = []
    for i in range(rng.randint(1, max_members)):
        subs = shared if uniform else rng.sample(names, rng.randint(0, n_topics))
        static = f"i{rng.randrange(10**6):06d}-{i}" if rng.random() < static_share else None
        member = f"{rng.choice(NAME_STEMS)}-{rng.randrange(10**6):06d}-{i}"
        members.append(Member(member, topics=subs, instance_id=static))
    return members, topics


#: Stems of the names :func:`random_group` makes: ASCII, dotted, accented, CJK, Cyrillic, emoji, long.
NAME_STEMS = ("orders", "payments.v2", "événements", "主题", "заказы", "stream-😀", "t", "consumer-" + "x" * 100)


def large_group(
    num_topics: int = 500,
    partitions_per_topic: int = 2000,
    num_members: int = 2000,
    single_topic_last: bool = False,
) -> GroupInput:
    """Kafka's large sticky test group, columnar (no Python object per partition).

    Topics ``t000..``, members ``c0000..``, everyone subscribed to every topic;
    with ``single_topic_last`` the last member subscribes to the first topic
    only (Kafka's ``testLargeAssignmentAndGroupWithNonEqualSubscription``).
    """
    width_t, width_m = len(str(num_topics)), len(str(num_members))
    topic_names = [f"t{i:0{width_t}d}" for i in range(num_topics)]
    member_ids = [f"c{i:0{width_m}d}" for i in range(num_members)]
    sub_member = np.repeat(np.arange(num_members, dtype=np.int64), num_topics)
    sub_topic = np.tile(np.arange(num_topics, dtype=np.int64), num_members)
    if single_topic_last:
        keep = (sub_member < num_members - 1) | (sub_topic == 0)
        sub_member, sub_topic = sub_member[keep], sub_topic[keep]
    return GroupInput(
        member_ids=member_ids,
        topic_names=topic_names,
        topic_counts=np.full(num_topics, partitions_per_topic, dtype=np.int64),
        sub_member=sub_member,
        sub_topic=sub_topic,
    )


def with_owned(spec: GroupInput, result: AssignmentResult, generation: int,
               leave: Sequence[str] = ()) -> GroupInput:
    """``spec`` where every member claims what ``result`` gave it (generation ``generation``),
    minus the members in ``leave``. Columnar throughout."""
    g = result.group
    gone = set(leave)
    keep_rows = [i for i, m in enumerate(spec.member_ids) if m not in gone]
    row_of = {spec.member_ids[i]: new for new, i in enumerate(keep_rows)}
    member_map = np.array([row_of.get(m, -1) for m in g.member_ids], dtype=np.int64)
    topic_code = {name: i for i, name in enumerate(spec.topic_names)}
    topic_map = np.array([topic_code[t] for t in g.topic_names], dtype=np.int64)
    pids = np.flatnonzero(result.owner >= 0)
    claim_member = member_map[result.owner[pids]]
    keep = claim_member >= 0
    old_rows = np.full(len(spec.member_ids), -1, dtype=np.int64)
    old_rows[keep_rows] = np.arange(len(keep_rows))
    sub_keep = old_rows[np.asarray(spec.sub_member)] >= 0
    return GroupInput(
        member_ids=[spec.member_ids[i] for i in keep_rows],
        topic_names=spec.topic_names,
        topic_counts=spec.topic_counts,
        sub_member=old_rows[np.asarray(spec.sub_member)][sub_keep],
        sub_topic=np.asarray(spec.sub_topic)[sub_keep],
        claim_member=claim_member[keep],
        claim_topic=topic_map[result.topic[pids]][keep],
        claim_partition=result.partition[pids][keep],
        generations=[generation] * len(keep_rows),
    )


# ------------------------------------------------------------------ __consumer_offsets records

#: What :func:`consumer_offsets_fleet` can plant in a leader's assignment, in turn.
PLANTED_KINDS = ("owned twice", "unowned", "unsubscribed", "moved")
_CLASSIC_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")
_GROUP_STEMS = ("orders", "billing-events", "注文処理", "grüppe.zählung", "клиенты", "🚀-launches")


@dataclass
class RecordFleet:
    """Records of ``__consumer_offsets`` (``records``: key, value, partition, offset), the topics'
    partition counts, and the groups whose last assignment was altered (group id -> kind)."""

    records: List[Tuple[bytes, Optional[bytes], int, int]]
    topics: Dict[str, int]
    planted: Dict[str, str]


def _offsets_partition(group_id: str, partitions: int) -> int:
    """Kafka's ``partitionFor``: the group id's Java hash, made non-negative (``Utils.abs``), mod."""
    from .core.java.util import java_string_hash
    h = java_string_hash(group_id)
    return (0 if h == -2 ** 31 else abs(h)) % partitions


def _plant(kind: str, given: Dict[str, List[TopicPartition]], subs: Dict[str, List[str]],
           topics: Dict[str, int], rng: random.Random) -> bool:
    """Alters one leader's assignment ``given`` in place, as a buggy assignor might; False when
    the group cannot have this kind (nothing assigned, or one member for a kind that needs two)."""
    holders = [m for m in given if given[m]]
    if not holders:
        return False
    src = rng.choice(holders)
    tp = rng.choice(given[src])
    others = [m for m in given if m != src]
    foreign = sorted(set(topics) - set(subs[src]))
    if (kind in ("owned twice", "moved") and not others) or (kind == "unsubscribed" and not foreign):
        return False
    if kind == "owned twice":
        given[rng.choice(others)].append(tp)
    elif kind == "unowned":
        given[src].remove(tp)
    elif kind == "unsubscribed":
        topic = rng.choice(foreign)
        given[src].append((topic, rng.randrange(topics[topic])))
    else:
        dst = rng.choice(others)
        given[src].remove(tp)
        given[dst].append(tp)
    return True


def consumer_offsets_fleet(groups: int, seed: int, commits: int = 0, plant: int = 0,
                           partitions: int = 50, topic_count: int = 40) -> RecordFleet:
    """A seeded fleet of classic consumer groups as their records in ``__consumer_offsets``.

    Each group has 1-6 members (some static, some with racks) subscribing to 1-4 of the fleet's
    topics, a strategy of Kafka's four client assignors, and two generations: the first
    superseded, the second its latest, where members claim what the first gave them (the
    subscription's ``OwnedPartitions``, or ``StickyAssignor``'s user data). Each generation's
    assignment is what the strategy gives (this package's engines, Kafka-exact), except in
    ``plant`` groups, where the last one is altered (:data:`PLANTED_KINDS`, in turn; a group that
    cannot have the next kind, one with a single member say, is left as it is and not counted). ``commits``
    offset commits are written per partition a group consumes (the last one live). Group ids are
    non-ASCII for some; member ids are as Java clients make them (long).

    Example::

        fleet = consumer_offsets_fleet(1000, seed=1, commits=3, plant=20)
        raw = spark.createDataFrame(fleet.records, "key binary, value binary, partition int, offset long")
    """
    from .kafka.records.encode import encode_key, encode_value
    rng = random.Random(seed)
    topics = {f"{rng.choice(NAME_STEMS)}.{i:03d}": rng.randint(1, 32) for i in range(topic_count)}
    names = sorted(topics)
    logs: Dict[int, List[Tuple[bytes, Optional[bytes]]]] = {}
    planted: Dict[str, str] = {}
    plant_at = set(rng.sample(range(groups), min(plant, groups)))
    for g in range(groups):
        group_id = f"{rng.choice(_GROUP_STEMS)}-{g:06d}" + ("-" + "x" * 150 if g % 17 == 0 else "")
        log = logs.setdefault(_offsets_partition(group_id, partitions), [])
        strategy = rng.choice(_CLASSIC_STRATEGIES)
        chosen = rng.sample(names, rng.randint(1, 4))
        ids = [f"consumer-{group_id}-{m + 1}-{rng.getrandbits(64):016x}" for m in range(rng.randint(1, 6))]
        subs = {m: sorted(rng.sample(chosen, rng.randint(1, len(chosen)))) if rng.random() < 0.3 else sorted(chosen)
                for m in ids}
        static = {m: (f"host-{g}-{i}" if rng.random() < 0.3 else None) for i, m in enumerate(ids)}
        racks = {m: (rng.choice(["use1-az1", "use1-az2"]) if rng.random() < 0.3 else None) for m in ids}
        claims: Dict[str, List[TopicPartition]] = {}
        for generation in (1, 2):
            if generation == 2 and len(ids) > 1 and rng.random() < 0.5:
                ids = ids[:-1]
            members = [Member(m, topics=subs[m], owned=claims.get(m, []), generation=generation - 1 if claims else None,
                              instance_id=static[m], rack=racks[m]) for m in ids]
            given = {m: list(tps) for m, tps in assign(members, {t: topics[t] for t in chosen}, strategy)
                     .assignment.items()}
            if generation == 2 and g in plant_at:
                kind = PLANTED_KINDS[len(planted) % len(PLANTED_KINDS)]
                if _plant(kind, given, subs, topics, rng):
                    planted[group_id] = kind
            rows = [_member_value(m, g, i, strategy, subs[m], claims.get(m, []), bool(claims), generation,
                                  static[m], racks[m], given.get(m, [])) for i, m in enumerate(ids)]
            value = {"protocolType": "consumer", "generation": generation, "protocol": strategy, "leader": ids[0],
                     "currentStateTimestamp": 1_700_000_000_000 + g, "members": rows}
            log.append((encode_key(2, group=group_id), encode_value(2, value, 3 + (g % 2))))
            claims = given
        for t in chosen:
            for p in range(topics[t]):
                for c in range(commits):
                    log.append((encode_key(1, group=group_id, topic=t, partition=p),
                                encode_value(1, {"offset": 1000 * c + p, "leaderEpoch": 5, "metadata": "",
                                                 "commitTimestamp": 1_700_000_000_000 + c}, 3)))
    records = [(k, v, part, offset) for part, log in sorted(logs.items()) for offset, (k, v) in enumerate(log)]
    return RecordFleet(records, topics, planted)


def _member_value(member: str, g: int, i: int, strategy: str, topics: List[str], claims: List[TopicPartition],
                  claimed: bool, generation: int, instance: Optional[str], rack: Optional[str],
                  given: List[TopicPartition]) -> Dict[str, Any]:
    """One member of a ``GroupMetadataValue``: its subscription (claims as its strategy's client
    sends them) and assignment, as Kafka's classic consumer encodes them."""
    from .kafka.records.encode import encode_assignment, encode_sticky_user_data, encode_subscription

    held = _pairs_by_topic(claims)
    sub: Dict[str, Any] = {"Topics": topics, "RackId": rack}
    if strategy == "sticky":
        sub["UserData"] = encode_sticky_user_data(held, generation - 1) if claimed else None
    else:
        sub["OwnedPartitions"] = [{"Topic": t, "Partitions": p} for t, p in held.items()]
        sub["GenerationId"] = generation - 1 if claimed else -1
    mine = _pairs_by_topic(given)
    return {"memberId": member, "groupInstanceId": instance, "clientId": f"consumer-{g}",
            "clientHost": f"/10.0.{g % 250}.{i + 1}", "rebalanceTimeout": 300000, "sessionTimeout": 45000,
            "subscription": encode_subscription(sub, 3),
            "assignment": encode_assignment({"AssignedPartitions": [{"Topic": t, "Partitions": p}
                                                                    for t, p in mine.items()]}, 3)}


def _pairs_by_topic(pairs: Sequence[TopicPartition]) -> Dict[str, List[int]]:
    out: Dict[str, List[int]] = {}
    for t, p in sorted(pairs):
        out.setdefault(t, []).append(p)
    return out


# ------------------------------------------------------------------ cases


@dataclass(frozen=True)
class ReplicaCluster:
    """A Kafka cluster's brokers and topics: ``names``, ``partitions`` and ``replication_factors``
    per topic (NumPy ``int64``)."""

    brokers: List[Any]
    names: List[str]
    partitions: np.ndarray
    replication_factors: np.ndarray


def random_replica_cluster(seed: int, brokers: Tuple[int, int] = (3, 50), racks: Tuple[int, int] = (0, 5),
                           topics: Tuple[int, int] = (1, 200), max_rf: int = 4) -> ReplicaCluster:
    """A random cluster as platform teams run them: ``brokers`` and ``racks`` drawn within the
    ranges (racks dealt in turn, so their sizes differ by at most one; 0: no racks), topic names
    with non-ASCII and long ones, partition counts skewed towards few (1 to 256, log-uniform),
    replication factors 1 to ``max_rf`` (3 most often), none above the brokers.

    Example::

        cluster = random_replica_cluster(7)
        place_topics(cluster.brokers, cluster.names, cluster.partitions, cluster.replication_factors)
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(brokers[0], brokers[1] + 1))
    r = int(rng.integers(racks[0], racks[1] + 1))
    ids = np.sort(rng.choice(np.arange(1, 4 * n + 1), n, replace=False)).tolist()
    members = [Broker(b, rack=f"az-{i % r}" if r else None) for i, b in enumerate(ids)]
    t = int(rng.integers(topics[0], topics[1] + 1))
    names = [f"{NAME_STEMS[i % len(NAME_STEMS)]}-{i}" + ("-x" * 60 if i % 17 == 0 else "") for i in range(t)]
    counts = np.exp(rng.uniform(0, np.log(256), t)).astype(np.int64)
    factors = np.minimum(rng.choice(np.arange(1, max_rf + 1), t, p=_rf_weights(max_rf)), n).astype(np.int64)
    return ReplicaCluster(members, names, counts, factors)


def _rf_weights(max_rf: int) -> np.ndarray:
    weight = np.array([1.0 if rf != 3 else 4.0 for rf in range(1, max_rf + 1)])
    return weight / weight.sum()


#: The changes :func:`change_cluster` makes.
CLUSTER_CHANGES = ("broker joins", "broker leaves", "rack joins")


def change_cluster(brokers: Sequence[Any], change: str, seed: int) -> List[Any]:
    """``brokers`` after ``change`` (one of :data:`CLUSTER_CHANGES`): a broker joins (on the
    smallest rack), a broker leaves (at random), or a rack joins with as many brokers as the
    smallest rack (without racks: as many brokers as a third of the cluster, unracked).

    Example::

        change_cluster(random_replica_cluster(7).brokers, "rack joins", 7)
    """
    if change not in CLUSTER_CHANGES:
        raise ValueError(f"change must be one of {', '.join(CLUSTER_CHANGES)}, got {change!r}")
    rng = np.random.default_rng(seed)
    racks: Dict[Optional[str], int] = {}
    for b in brokers:
        racks[b.rack] = racks.get(b.rack, 0) + 1
    top = max(b.id for b in brokers)
    if change == "broker leaves":
        gone = int(rng.integers(len(brokers)))
        return [b for i, b in enumerate(brokers) if i != gone]
    if change == "broker joins":
        smallest = min(racks, key=lambda k: (racks[k], k or ""))
        return list(brokers) + [Broker(top + 1, rack=smallest)]
    size = min(racks.values()) if None not in racks else max(1, len(brokers) // 3)
    rack = f"az-{len(racks)}" if None not in racks else None
    return list(brokers) + [Broker(top + 1 + i, rack=rack) for i in range(size)]


def load_cases(path: "str | Path") -> List[Dict[str, Any]]:
    """The cases of a conformance JSON file."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)["cases"]


#: Runs one round: ``(members, topics, strategy, partition_racks, options)`` ->
#: ``(assignment, revoked)``, both ``{member: [(topic, partition), ...]}``.
Executor = Callable[
    [List[Member], Mapping[str, int], str, Optional[Mapping[str, Any]], Mapping[str, Any]],
    Tuple[Dict[str, List[TopicPartition]], Dict[str, List[TopicPartition]]],
]


def engine_executor(members, topics, strategy, partition_racks, options):
    """The default :data:`Executor`: the engine itself."""
    result = assign(members, topics, strategy, partition_racks=partition_racks, **options)
    return result.assignment, result.revoked, result


@dataclass
class CaseFailure:
    """A mismatch in one round of a case."""

    case: str
    round: int
    problem: str
    details: Dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.case} round {self.round}: {self.problem} {self.details}"


def _pairs(items: Sequence[Sequence[Any]]) -> List[TopicPartition]:
    return [(str(t), int(p)) for t, p in items]


def case_members(case: Mapping[str, Any], index: int, previous: Optional[Dict[str, List[TopicPartition]]]) -> List[Member]:
    """Members of round ``index``, owning what ``previous`` gave them unless stated."""
    members = []
    for member_id, m in case["rounds"][index]["members"].items():
        if "owned" in m:
            owned, generation = _pairs(m["owned"]), m.get("generation")
        elif previous is not None:
            owned, generation = previous.get(member_id, []), index
        else:
            owned, generation = [], m.get("generation")
        members.append(Member(member_id, topics=m.get("topics", []), owned=owned, generation=generation,
                              instance_id=m.get("instance_id"), rack=m.get("rack")))
    return members


def run_case(case: Mapping[str, Any], executor: Optional[Executor] = None) -> List[CaseFailure]:
    """Run every round of ``case``; returns the mismatches (empty when it passes)."""
    run = executor or engine_executor
    failures: List[CaseFailure] = []
    previous: Optional[Dict[str, List[TopicPartition]]] = None
    for i, rnd in enumerate(case["rounds"]):
        members = case_members(case, i, previous)
        out = run(members, case["topics"], case["strategy"], case.get("partition_racks"), case.get("options", {}))
        assignment, revoked = out[0], out[1]
        result = cast(Tuple[Any, ...], out)[2] if len(out) > 2 else None   # engine_executor's third item
        failures += _compare_round(case, i, rnd, assignment, revoked, result)
        previous = assignment
    return failures


def _compare_round(case, i, rnd, assignment, revoked, result) -> List[CaseFailure]:
    name = case["name"]
    out: List[CaseFailure] = []
    ordered = rnd.get("ordered", False)

    def norm(v: Sequence[TopicPartition]) -> List[TopicPartition]:
        return list(v) if ordered else sorted(v)

    if "expected" in rnd:
        want = {m: norm(_pairs(v)) for m, v in rnd["expected"].items()}
        got = {m: norm(v) for m, v in assignment.items()}
        if want != got:
            out.append(CaseFailure(name, i, "assignment differs", {"expected": want, "got": got}))
    if "expected_count" in rnd:
        got_counts = {m: len(v) for m, v in assignment.items()}
        if any(got_counts.get(m) != n for m, n in rnd["expected_count"].items()):
            out.append(CaseFailure(name, i, "counts differ", {"expected": rnd["expected_count"], "got": got_counts}))
    if "revoked" in rnd:
        want_r = {m: sorted(_pairs(v)) for m, v in rnd["revoked"].items() if v}
        got_r = {m: sorted(v) for m, v in revoked.items() if v}
        if want_r != got_r:
            out.append(CaseFailure(name, i, "revoked differs", {"expected": want_r, "got": got_r}))
    checks = rnd.get("checks", [])
    if checks and result is not None:
        if "valid" in checks and validity_errors(result):
            out.append(CaseFailure(name, i, "invalid", {"errors": validity_errors(result)}))
        if "balanced" in checks and balance_violations(result):
            out.append(CaseFailure(name, i, "unbalanced", {"violations": balance_violations(result)}))
        if "sticky" in checks and stickiness_violations(result):
            out.append(CaseFailure(name, i, "not sticky", {"violations": stickiness_violations(result)}))
    return out


def iter_rounds(case: Mapping[str, Any]) -> Iterator[int]:
    """Round indices of a case."""
    return iter(range(len(case["rounds"])))


#: Spark DDL of the rows :func:`fleet_rows` and :func:`churn_rows` make.
FLEET_SCHEMA = "group_id string, member_id string, topic string, group_instance_id string"


def fleet_rows(groups: int, seed: int, members: int = 4, topics: int = 3, prefix: str = "g") -> List[tuple]:
    """Subscription rows ``(group_id, member_id, topic, group_instance_id)`` of a seeded fleet.

    Each of ``groups`` groups has ``members`` members (the first one static),
    each subscribed to a random non-empty subset of topics ``t0..t{topics-1}``::

        rows = fleet_rows(1000, seed=1)
        df = spark.createDataFrame(rows, FLEET_SCHEMA)
    """
    rng = random.Random(seed)
    names = [f"t{i}" for i in range(topics)]
    rows = []
    for g in range(groups):
        for m in range(members):
            subs = rng.sample(names, rng.randint(1, topics))
            static = f"s{g}-{m}" if m == 0 else None
            rows += [(f"{prefix}{g:05d}", f"{prefix}{g:05d}-m{m}", t, static) for t in subs]
    return rows


def churn_rows(rows: Sequence[tuple], seed: int, share: float, topics: int = 3) -> List[tuple]:
    """``rows`` (from :func:`fleet_rows`) with ``share`` of the groups changed.

    A changed group has a member leave, a member join, or a member subscribe
    to one more topic (chosen at random; a leave in a one-member group and a
    subscription by a member that has every topic change nothing).
    """
    rng = random.Random(seed)
    by_group: Dict[str, List[tuple]] = {}
    for r in rows:
        by_group.setdefault(r[0], []).append(r)
    names = [f"t{i}" for i in range(topics)]
    out: List[tuple] = []
    for gid, grows in sorted(by_group.items()):
        if rng.random() < share:
            kind = rng.choice(["leave", "join", "subscribe"])
            members = sorted({r[1] for r in grows})
            if kind == "leave" and len(members) > 1:
                gone = rng.choice(members)
                grows = [r for r in grows if r[1] != gone]
            elif kind == "join":
                new = f"{gid}-j{seed}"
                grows = grows + [(gid, new, t, None) for t in rng.sample(names, rng.randint(1, topics))]
            else:
                who = rng.choice(members)
                mine = {r[2] for r in grows if r[1] == who}
                extra = [t for t in names if t not in mine]
                if extra:
                    grows = grows + [(gid, who, extra[0], next(r[3] for r in grows if r[1] == who))]
        out += grows
    return out


EVENTS_SCHEMA = "group_id string, member_id string, event string, topic string, group_instance_id string"


def membership_events(before: Sequence[tuple], snapshot: Sequence[tuple]) -> List[tuple]:
    """The membership events (rows of :data:`EVENTS_SCHEMA`) that turn the groups of ``before``
    into those of ``snapshot``, both rows of :data:`FLEET_SCHEMA`; ``snapshot`` holds the full
    membership of the groups it mentions (the others are left alone). A member missing from its
    group's snapshot leaves; a new one joins; one whose topics or instance id changed updates::

        events = membership_events(fleet, churn_rows(fleet, seed=2, share=0.1))
        df = spark.createDataFrame(events, EVENTS_SCHEMA)
    """
    def members(rows: Sequence[tuple]) -> Dict[str, Dict[str, Tuple[frozenset, Any]]]:
        found: Dict[str, Dict[str, Tuple[set, Any]]] = {}
        for g, m, t, instance in rows:
            found.setdefault(g, {}).setdefault(m, (set(), instance))[0].add(t)
        return {g: {m: (frozenset(ts), i) for m, (ts, i) in ms.items()} for g, ms in found.items()}

    was_all, events = members(before), []
    for g, now in sorted(members(snapshot).items()):
        was = was_all.get(g, {})
        events += [(g, m, "leave", None, None) for m in sorted(set(was) - set(now))]
        for m, (topics, instance) in sorted(now.items()):
            if was.get(m) != (topics, instance):
                kind = "update" if m in was else "join"
                events += [(g, m, kind, t, instance) for t in sorted(topics)]
    return events

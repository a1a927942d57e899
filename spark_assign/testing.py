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

from .core import AssignmentResult, GroupInput, Member, assign
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


# ------------------------------------------------------------------ cases


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

"""DataFrame.assign_partitions gives exactly what the engine gives, group by group.

200 random groups per strategy, input rows shuffled and repartitioned
differently, two rounds: fresh, then after churn with ``previous``.
"""

import random

import numpy as np
import pytest

from spark_assign.core import STATUS_NAMES, GroupInput, Member, assign_group
from spark_assign.testing import random_group

pytestmark = pytest.mark.spark

SUBS = "group_id string, member_id string, topic string, group_instance_id string"
TOPICS = "group_id string, topic string, num_partitions int"
GROUPS = 200


def fleet(seed):
    groups = {}
    for i in range(GROUPS):
        members, topics = random_group(seed * 1000 + i, max_members=10, max_topics=4, max_partitions=12)
        groups[f"g{i:03d}"] = (members, topics)
    return groups


def churn(groups, rng):
    """Some members leave, one joins per group; subscriptions unchanged otherwise."""
    out = {}
    for gid, (members, topics) in groups.items():
        kept = [m for m in members if rng.random() > 0.25] or members[:1]
        joiner = Member(f"new-{gid}", topics=rng.sample(list(topics), rng.randint(1, len(topics))))
        out[gid] = (kept + [joiner], topics)
    return out


def rows_of(groups, rng):
    rows = [(gid, m.member_id, t, m.instance_id) for gid, (members, _) in groups.items()
            for m in members for t in (m.topics or [None])]
    rng.shuffle(rows)
    return rows


def engine(gid, members, topics, strategy, previous, **options):
    """The engine's answer, given previous rows {(topic, partition): (owner, status)} of generation 1
    (``options``: engine options, such as ``weights``)."""
    claimed = {}
    for (t, p), (owner, _) in previous.items():
        if owner is not None:
            claimed.setdefault(owner, []).append((t, p))
    current = {m.member_id for m in members}
    owned = [Member(m.member_id, m.topics, claimed.get(m.member_id, []), 1 if previous else None,
                    m.instance_id) for m in members]
    spec = GroupInput.from_members(owned, topics)
    if previous:
        prior = [(t, p, o) for (t, p), (o, _) in previous.items() if o is not None and o not in current]
        names = sorted({o for _, _, o in prior})
        code = {n: i for i, n in enumerate(spec.topic_names)}
        known = [x for x in prior if x[0] in code]
        spec.prior_topic = np.array([code[t] for t, _, _ in known], dtype=np.int64)
        spec.prior_partition = np.array([p for _, p, _ in known], dtype=np.int64)
        spec.prior_owner = np.array([names.index(o) for _, _, o in known], dtype=np.int64)
        spec.prior_owner_names = names
        pend = [(t, p) for (t, p), (o, s) in previous.items() if o is None and s == "revoked" and t in code]
        spec.pending_topic = np.array([code[t] for t, _ in pend], dtype=np.int64)
        spec.pending_partition = np.array([p for _, p in pend], dtype=np.int64)
    r = assign_group(spec, strategy, **options)
    names = r.owner_names()
    out = {}
    for t, p, o, po, s in zip(r.topic.tolist(), r.partition.tolist(), r.owner.tolist(),
                              r.previous_owner.tolist(), r.status.tolist()):
        out[(gid, r.group.topic_names[t], p)] = (names[o] if o >= 0 else None,
                                                   names[po] if po >= 0 else None, STATUS_NAMES[s])
    return out


@pytest.mark.parametrize("strategy", ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform",
                                      "server-range"])
def test_dataframe_equals_engine(spark, strategy):
    rng = random.Random(strategy)
    groups = fleet(seed=len(strategy))
    topics = spark.createDataFrame([(g, t, n) for g, (_, ts) in groups.items() for t, n in ts.items()], TOPICS)

    first = spark.createDataFrame(rows_of(groups, rng), SUBS).repartition(5)
    result1 = first.assign_partitions(strategy, topics=topics)
    got1 = result1.collect()
    want1 = {}
    for gid, (members, ts) in groups.items():
        want1.update(engine(gid, members, ts, strategy, {}))
    assert {(r.group_id, r.topic, r.partition): (r.member_id, r.previous_member_id, r.status)
            for r in got1} == want1
    assert {r.generation for r in got1} == {1}

    later = churn(groups, rng)
    second = spark.createDataFrame(rows_of(later, rng), SUBS).repartition(3, "member_id")
    previous = spark.createDataFrame(got1, result1.schema).repartition(4)
    got2 = second.assign_partitions(strategy, topics=topics, previous=previous, num_partitions=3).collect()
    by_group = {}
    for r in got1:
        by_group.setdefault(r.group_id, {})[(r.topic, r.partition)] = (r.member_id, r.status)
    want2 = {}
    for gid, (members, ts) in later.items():
        want2.update(engine(gid, members, ts, strategy, by_group.get(gid, {})))
    assert {(r.group_id, r.topic, r.partition): (r.member_id, r.previous_member_id, r.status)
            for r in got2} == want2
    # A group is new (generation 1) when the previous generation had no row of it.
    assert all(r.generation == (2 if r.group_id in by_group else 1) for r in got2)

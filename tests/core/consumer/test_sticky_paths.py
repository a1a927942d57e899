"""The general sticky builder's two code paths give the same result.

Small groups take Python paths (least-loaded picks from sorted keys or a heap, stage 3 on
lists, :class:`~spark_assign.core.consumer.strategies.sticky.general._ListRebalance`); large ones take the array
paths (water filling, NumPy rescans). Which one runs depends on size thresholds only, so each
random group here runs both ways (thresholds patched) and the owners and list orders must agree.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from typing import Dict, List, Tuple

from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import Member, assign
from spark_assign.core.consumer.strategies.sticky import general as sticky_general

from .strategies import groups

SETTINGS = examples(80)

SMALL = {"_LIST_WORK": 1 << 40, "_HEAP_WORK": 1 << 40}     # Python paths whatever the size
LARGE = {"_LIST_WORK": -1, "_HEAP_WORK": -1}               # array paths whatever the size


@contextmanager
def _thresholds(values: Dict[str, int]):
    saved = {name: getattr(sticky_general, name) for name in values}
    try:
        for name, value in values.items():
            setattr(sticky_general, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(sticky_general, name, value)


def _both_ways(members: List[Member], topics: Dict[str, int], **kwargs) -> Tuple[dict, dict]:
    out = []
    for values in (SMALL, LARGE):
        with _thresholds(values):
            out.append({s: assign(members, topics, s, **kwargs).assignment
                        for s in ("sticky", "cooperative-sticky")})
    return out[0], out[1]


@SETTINGS
@given(groups(max_members=40, max_topics=20))
def test_python_and_array_paths_agree_on_random_groups(case):
    members, topics = case
    small, large = _both_ways(members, topics)
    assert small == large


@SETTINGS
@given(groups(max_members=40, max_topics=20), st.randoms(use_true_random=False), st.integers(0, 3))
def test_python_and_array_paths_agree_after_members_leave(case, rng: random.Random, stale: int):
    """Members leave a group that was assigned before; the others claim what they got, some with
    an older generation (so previous-generation owners pull partitions back)."""
    members, topics = case
    before = assign(members, topics, "sticky").assignment
    stay = [m for m in members if rng.random() < 0.7] or members[:1]
    regrouped = [Member(m.member_id, topics=m.topics, owned=before[m.member_id],
                        generation=5 - (rng.randrange(4) < stale), instance_id=m.instance_id) for m in stay]
    small, large = _both_ways(regrouped, topics)
    assert small == large


@SETTINGS
@given(groups(max_members=30, max_topics=10), st.randoms(use_true_random=False))
def test_python_and_array_paths_agree_with_racks(case, rng: random.Random):
    members, topics = case
    racks = ["r0", "r1", "r2"]
    members = [Member(m.member_id, topics=m.topics, owned=m.owned, generation=m.generation,
                      instance_id=m.instance_id, rack=rng.choice(racks + [None])) for m in members]
    partition_racks = {t: [rng.sample(racks, rng.randint(1, 2)) for _ in range(n)] for t, n in topics.items()}
    small, large = _both_ways(members, topics, partition_racks=partition_racks)
    assert small == large


def test_kafka_smaller_large_case_agrees():
    """Kafka's testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription, scaled as
    in benchmarks/engine_bench.py: 40 topics of 1-10 partitions, 200 members."""
    rng = random.Random(16)
    names = [f"t{i:02d}" for i in range(40)]
    topics = {t: rng.randint(1, 10) for t in names}
    members = [Member(f"c{i:03d}", topics=list(dict.fromkeys(names[rng.randrange(40)]
                                                           for _ in range(rng.randrange(20)))))
               for i in range(200)]
    small, large = _both_ways(members, topics)
    assert small == large
    before = small["sticky"]
    stay = [m for m in members if rng.random() < 0.75]
    regrouped = [Member(m.member_id, topics=m.topics, owned=before[m.member_id], generation=1) for m in stay]
    small, large = _both_ways(regrouped, topics)
    assert small == large

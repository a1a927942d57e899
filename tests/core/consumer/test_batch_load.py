"""The lock-step load-aware rules (:mod:`spark_assign.core.consumer.batch.load`) against the per-group engine.

Random fleets of weighted groups (homogeneous ones, which the lock step takes, and mixed
ones, which fall back), fresh or after a rebalance with members leaving and joining, static
members, non-ASCII ids, ties and zeros in the weights, partitions without a weight; weights
given as the ``weights`` option and as rows (the Spark wire's form). Every group's rows must
equal :func:`~spark_assign.core.assign_group`'s with the same weights and knobs, row for row.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import GroupInput, Member, assign_group
from spark_assign.core.consumer.batch.api import GroupBatch, assign_batch
from spark_assign.core.consumer.weights import NULL_PARTITION, rejected_weight_rows, weights_from_rows
from spark_assign.errors import InvalidInputError

from .strategies import groups
from .test_batch import batch_rows, homogeneous_group

SETTINGS = examples(60)
LOAD = ["load-aware", "cooperative-load-aware"]

Weights = Dict[str, List[float]]


@st.composite
def weights_for(draw, topics: Dict[str, int]) -> Optional[Weights]:
    """Per topic, each partition's weight from a small pool (ties, zeros) or any float; sometimes
    a topic without weights, or a group without any (1.0 each)."""
    if draw(st.integers(0, 9)) == 0:
        return None
    value = st.one_of(st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.5, 40.0]),
                      st.floats(0, 1e3, allow_nan=False, allow_infinity=False))
    out: Weights = {}
    for t, n in topics.items():
        if draw(st.integers(0, 6)) == 0:
            continue
        same = draw(st.integers(0, 7)) == 0
        first = draw(value)
        out[t] = [first] * n if same else [draw(value) for _ in range(n)]
    return out


@st.composite
def weighted_fleets(draw) -> List[Tuple[GroupInput, Optional[Weights]]]:
    fleet = []
    for i in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 4)) == 0:
            members, topics = draw(groups(max_members=10, max_topics=4))        # mixed, messy claims
            spec = GroupInput.from_members(members, topics)
        else:
            members, topics, racks = draw(homogeneous_group(i))
            spec = GroupInput.from_members(members, topics, racks)
        fleet.append((spec, draw(weights_for(topics))))
    return fleet


def engine_rows(spec: GroupInput, strategy: str, weights: Optional[Weights], **knobs) -> list:
    r = assign_group(spec, strategy, **knobs, **({} if weights is None else {"weights": weights}))
    g, names_ = r.group, r.group.owner_names()
    return [(g.topic_names[t], p, g.member_ids[o] if o >= 0 else None, names_[q] if q >= 0 else None, s)
            for t, p, o, q, s in zip(r.topic.tolist(), r.partition.tolist(), r.owner.tolist(),
                                     r.previous_owner.tolist(), r.status.tolist())]


def as_rows(batch: GroupBatch, fleet, drop: List[bool]) -> None:
    """The fleet's weights as rows on ``batch`` (``drop[k]``: leave row k out: a partition
    without weight gets the group's mean)."""
    off, topic, part, value = [0], [], [], []
    k = 0
    for g, (spec, weights) in enumerate(fleet):
        row_of = {name: i for i, name in enumerate(spec.topic_names)}
        for name, ws in (weights or {}).items():
            for p, w in enumerate(ws):
                if not drop[k % len(drop)]:
                    topic.append(row_of.get(name, -1))
                    part.append(p)
                    value.append(w)
                k += 1
        off.append(len(topic))
    batch.weights = None
    batch.weight_off = np.array(off, dtype=np.int64)
    batch.weight_topic = np.array(topic, dtype=np.int64)
    batch.weight_partition = np.array(part, dtype=np.int64)
    batch.weight_value = np.array(value, dtype=np.float64)


def assert_same(fleet, strategy: str, knobs: dict, drop: Optional[List[bool]] = None) -> np.ndarray:
    batch = GroupBatch.from_inputs([spec for spec, _ in fleet])
    if drop is None:
        batch.weights = {g: w for g, (_, w) in enumerate(fleet) if w is not None}
        expected = [engine_rows(spec, strategy, w, **knobs) for spec, w in fleet]
    else:
        as_rows(batch, fleet, drop)
        expected = [engine_rows(batch.group_input(g), strategy, batch.group_weights(g), **knobs)
                    for g in range(len(fleet))]
    out = assign_batch(batch, strategy, **knobs)
    for g, rows in enumerate(expected):
        assert batch_rows(batch, out, g) == rows, f"group {g} ({'batched' if out.batched[g] else 'fallback'})"
    return out.batched


@SETTINGS
@given(weighted_fleets(), st.sampled_from(LOAD), st.integers(1, 3), st.sampled_from([0.0, 0.05, 0.3]))
def test_lock_step_rows_equal_the_per_group_engine(fleet, strategy, skew, gain):
    assert_same(fleet, strategy, {"max_count_skew": skew, "min_improvement": gain})


@SETTINGS
@given(weighted_fleets(), st.sampled_from(LOAD), st.lists(st.booleans(), min_size=1, max_size=7))
def test_weights_as_rows_equal_the_per_group_engine(fleet, strategy, drop):
    assert_same(fleet, strategy, {}, drop)


def test_homogeneous_weighted_groups_take_the_lock_step():
    """Fresh and after a member leaves: the lock step takes them (the rest falls back)."""
    topics = {"orders": 9, "payments": 6}
    members = [Member(f"consumer-ü-{i}", topics=list(topics)) for i in range(4)]
    weights = {"orders": [9, 1, 1, 0, 5, 5, 2, 7, 3], "payments": [100, 0, 1, 1, 2, 3]}
    fresh = GroupInput.from_members(members, topics)
    first = assign_group(fresh, "load-aware", weights=weights).assignment
    later = GroupInput.from_members([Member(m.member_id, topics=m.topics, owned=first[m.member_id], generation=1)
                                     for m in members[1:]], topics)
    mixed = GroupInput.from_members([Member("a", topics=["orders"]), Member("b", topics=list(topics))], topics)
    fleet = [(fresh, weights), (later, weights), (mixed, weights), (fresh, None)]
    for strategy in LOAD:
        assert assert_same(fleet, strategy, {}).tolist() == [True, True, False, True]


def test_ties_among_many_partners_break_to_the_lower_index():
    """Twelve members, all weights equal but one: every partner candidate ties on load."""
    topics = {"t": 24}
    members = [Member(f"m{i:02d}", topics=["t"]) for i in range(12)]
    weights = {"t": [50.0] + [1.0] * 23}
    spec = GroupInput.from_members(members, topics)
    assert assert_same([(spec, weights)], "load-aware", {}).tolist() == [True]


def test_a_group_with_bad_weights_raises_the_engines_error_naming_it():
    topics = {"t": 3}
    spec = GroupInput.from_members([Member("a", topics=["t"]), Member("b", topics=["t"])], topics)
    batch = GroupBatch.from_inputs([spec, spec], group_ids=["fine", "broken"])
    batch.weights = {0: {"t": [1.0, 2.0, 3.0]}, 1: {"t": [1.0, -2.0, 3.0]}}
    with pytest.raises(InvalidInputError, match="non-negative") as raised:
        assign_batch(batch, "load-aware")
    assert raised.value.group == "broken" and raised.value.column == "weights"


# ------------------------------------------------------------------ rejected_weight_rows


@st.composite
def weight_rows(draw):
    counts = draw(st.lists(st.integers(-1, 4), min_size=1, max_size=3))
    n = draw(st.integers(0, 8))
    topic = [draw(st.integers(-1, len(counts) - 1)) for _ in range(n)]
    part = [draw(st.sampled_from([0, 1, 2, 3, 5, -1, NULL_PARTITION])) for _ in range(n)]
    weight = [draw(st.sampled_from([0.0, 1.5, -1.0, math.nan, math.inf, 7.0])) for _ in range(n)]
    null = [draw(st.integers(0, 9)) == 0 for _ in range(n)]
    return np.array(counts), np.array(topic, dtype=np.int64), np.array(part, dtype=np.int64), \
        np.array(weight), np.array(null, dtype=bool)


@SETTINGS
@given(weight_rows())
def test_rejected_rows_are_exactly_what_the_validator_refuses(rows):
    counts, topic, part, weight, null = rows
    names_ = [f"t{i}" for i in range(len(counts))]
    count = np.where(topic >= 0, counts[np.maximum(topic, 0)], 0)
    rejected = rejected_weight_rows(count, part, weight, null, np.maximum(topic, 0) * 10 + np.clip(part, 0, 9))
    try:
        weights_from_rows(names_, counts, topic, part, weight, null)
        refused = False
    except InvalidInputError:
        refused = True
    assert bool(rejected.any()) == refused


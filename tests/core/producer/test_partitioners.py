"""Producer partitioning of keyless records: Kafka's own tests under their names, then properties.

Kafka's sources: ``RoundRobinPartitionerTest`` (clients, producer), ``BuiltInPartitionerTest``
and ``StickyPartitionCacheTest`` (clients, producer/internals). Where Kafka mocks its random
numbers (``BuiltInPartitioner.mockRandom = () -> mockRandom.getAndAdd(1)``), ``draws`` gives
the same values, so the asserted partitions are Kafka's; where Kafka uses ``ThreadLocalRandom``
its assertions are properties, ported as such.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import (
    RoundRobinPartitioner,
    StickyPartitioner,
    round_robin_partitions,
    sticky_batches,
    sticky_partitions,
)
from spark_assign.errors import InvalidInputError, UnknownStrategyError


def sequential():
    """Kafka's ``mockRandom``: 0, 1, 2, ..."""
    counter = itertools.count()
    return lambda: next(counter)


# ---------------------------------------------------------------------------
# RoundRobinPartitionerTest
# ---------------------------------------------------------------------------

def test_round_robin_with_unavailable_partitions():
    # Partitions listed [1 (no leader), 2, 0]: availablePartitionsForTopic is [2, 0], in that order.
    parts = round_robin_partitions(["test"] * 100, {"test": 3}, available={"test": [2, 0]})
    assert set(parts.tolist()) == {0, 2}                      # never a leader-less partition
    assert Counter(parts.tolist())[0] == Counter(parts.tolist())[2] == 50
    assert parts[:4].tolist() == [2, 0, 2, 0]                 # availablePartitions.get(counter % 2)


def test_round_robin_with_key_bytes():
    # Keys are ignored; topicB's counter is its own: topicA gets 10 of 30 on each of 3 partitions.
    topics = []
    for i in range(30):
        topics.append("topicA")
        if i % 5 == 0:
            topics.append("topicB")
    parts = round_robin_partitions(topics, {"topicA": 3, "topicB": 1})
    a = parts[np.array(topics) == "topicA"]
    assert Counter(a.tolist()) == {0: 10, 1: 10, 2: 10}
    assert a[:6].tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize("count,records", [(3, 30), (4, 40)])
def test_round_robin_with_null_key_bytes_and_even_partition_count(count, records):
    # testRoundRobinWithNullKeyBytes / ...AndEvenPartitionCount: with single-record batches every
    # partition gets records/count (KAFKA-17632; the double count of KAFKA-16283 would give 20/0/20/0).
    topics = []
    for i in range(records):
        topics.append("topicA")
        if i % 5 == 0:
            topics.append("topicB")
    parts = round_robin_partitions(topics, {"topicA": count, "topicB": 1})
    assert Counter(parts[np.array(topics) == "topicA"].tolist()) == {p: 10 for p in range(count)}


def test_round_robin_counter_wraps_like_a_java_int():
    # The AtomicInteger overflows to -2**31; toPositive(n) = n & 0x7fffffff.
    start = 2**31 - 2
    parts = round_robin_partitions(["t"] * 4, {"t": 3}, start=start).tolist()
    expected = [((start + k + 2**31) % 2**32 - 2**31) & 0x7FFFFFFF for k in range(4)]
    assert parts == [v % 3 for v in expected] == [0, 1, 0, 1]     # 2**31 - 1 then 0: the cycle jumps


def test_round_robin_with_no_available_partition_uses_all():
    # "no partitions are available, give a non-available partition": toPositive(counter) % numPartitions.
    assert round_robin_partitions(["t"] * 5, {"t": 3}, available={"t": []}, start=7).tolist() == [1, 2, 0, 1, 2]


def test_round_robin_counters_carry_over_chunks():
    rr = RoundRobinPartitioner({"a": 3, "b": 2}, start={"a": 1, "b": 0})
    first = rr.partition(["a", "b", "a"]).tolist()
    second = rr.partition(pa.array(["a", "b"])).tolist()
    assert first + second == round_robin_partitions(["a", "b", "a", "a", "b"], {"a": 3, "b": 2},
                                                    start={"a": 1, "b": 0}).tolist() == [1, 0, 2, 0, 1]
    assert rr.counters == {"a": 4, "b": 2}


# ---------------------------------------------------------------------------
# BuiltInPartitionerTest
# ---------------------------------------------------------------------------

def test_sticky_partitioning():
    # Sticky batch size 3 (bytes), 1-byte records, mockRandom 0, 1, 2, ...: topicA stays on
    # partition 0 (0 % 3) for 3 records, then switches (to 1 % 3); topicB (one partition) stays on 0.
    out = sticky_batches(["topicA"] * 4, {"topicA": 3}, batch_bytes=3, record_bytes=[1] * 4, draws=sequential())
    assert out.partition.tolist() == [0, 0, 0, 1]
    assert out.batch.tolist() == [0, 0, 0, 1]
    b = sticky_partitions(["topicB"] * 10, {"topicB": 1}, batch_bytes=1, record_bytes=[1] * 10, draws=sequential())
    assert b.tolist() == [0] * 10


def test_built_in_unavailable_partitions():
    # topicA partition 1, topicB partition 0, topicC partition 0 have no leader.
    nums = {"topicA": 3, "topicB": 2, "topicC": 1}
    available = {"topicA": [0, 2], "topicB": [1], "topicC": []}
    a = sticky_partitions(["topicA"] * 101, nums, batch_records=1, available=available, seed=3)
    assert 1 not in a.tolist() and len(set(a.tolist())) > 1
    b = sticky_partitions(["topicB"] * 101, nums, batch_records=1, available=available, seed=3)
    assert set(b.tolist()) == {1}
    c = sticky_partitions(["topicC"] * 2, nums, batch_records=1, available=available, seed=3)
    assert c.tolist() == [0, 0]                       # none available: still one among all


def test_sticky_batch_size_more_than_zero():
    with pytest.raises(InvalidInputError, match="batch_bytes"):
        StickyPartitioner({"t": 1}, batch_bytes=0)
    StickyPartitioner({"t": 1}, batch_bytes=1)


# ---------------------------------------------------------------------------
# StickyPartitionCacheTest (Kafka 2.4-3.2, mode="uniform-sticky")
# ---------------------------------------------------------------------------

def test_sticky_partition_cache():
    # A batch keeps its partition; a new batch changes it; one partition: always that one.
    out = sticky_batches(["topicA"] * 4 + ["topicB"] * 4, {"topicA": 3, "topicB": 1}, batch_records=2,
                         mode="uniform-sticky", seed=11)
    a, b = out.partition[:4].tolist(), out.partition[4:].tolist()
    assert a[0] == a[1] and a[2] == a[3] and a[2] != a[0]
    assert b == [0, 0, 0, 0]


def test_sticky_partition_cache_with_kafka_draws():
    # partition() draws p0 = 0 % 3, onNewBatch(p0) redraws until different: 1. Next batch: 2, then 0.
    out = sticky_partitions(["topicA"] * 7, {"topicA": 3}, batch_records=3, mode="uniform-sticky",
                            draws=sequential())
    assert out.tolist() == [1, 1, 1, 2, 2, 2, 0]
    # The redraw loop: p0 = 0; then 0 and 3 (% 3 = 0) are rejected, 4 gives 1. Next batch:
    # 1 rejected, 5 gives 2. Every value is consumed as Kafka's while loop consumes it.
    values = [0, 0, 3, 4, 1, 5]
    supply = iter(values)
    out = sticky_partitions(["t"] * 2, {"t": 3}, batch_records=1, mode="uniform-sticky", draws=lambda: next(supply))
    assert out.tolist() == [1, 2]
    assert next(supply, None) is None


def test_uniform_sticky_unavailable_partitions():
    nums = {"topicA": 3, "topicB": 2, "topicC": 1}
    available = {"topicA": [0, 2], "topicB": [1], "topicC": []}
    kw = dict(batch_records=1, available=available, mode="uniform-sticky", seed=5)
    a = sticky_partitions(["topicA"] * 101, nums, **kw).tolist()
    assert 1 not in a
    assert all(x != y for x, y in zip(a, a[1:]))      # two available: strictly alternating
    assert sticky_partitions(["topicB"] * 101, nums, **kw).tolist() == [1] * 101
    assert sticky_partitions(["topicC"] * 2, nums, **kw).tolist() == [0, 0]


# ---------------------------------------------------------------------------
# Batch boundaries
# ---------------------------------------------------------------------------

def test_built_in_switches_after_the_record_that_reaches_batch_size():
    # producedBytes >= batch.size after appending: that record stays, the next one switches.
    out = sticky_batches(["t"] * 6, {"t": 5}, batch_bytes=10, record_bytes=[4, 4, 4, 9, 20, 1], seed=1)
    assert out.batch.tolist() == [0, 0, 0, 1, 1, 2]


def test_uniform_sticky_opens_a_batch_for_the_record_that_does_not_fit():
    # A batch takes records while they fit in batch.size; its first record always fits.
    out = sticky_batches(["t"] * 6, {"t": 5}, batch_bytes=10, record_bytes=[4, 4, 4, 9, 20, 1],
                         mode="uniform-sticky", seed=1)
    assert out.batch.tolist() == [0, 0, 1, 2, 3, 4]


def test_built_in_draws_the_next_partition_when_a_batch_completes():
    # Kafka's updatePartitionInfo draws at once, so a topic whose last record completes a batch
    # has consumed one more draw (the global mockRandom order across topics shows it).
    out = sticky_partitions(["a", "a", "b"], {"a": 4, "b": 4}, batch_records=2, draws=sequential())
    assert out.tolist() == [0, 0, 2]      # a: draw 0, completion draws 1; b: draw 2


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

TOPICS = ["a", "b", "c"]
records = st.lists(st.sampled_from(TOPICS), max_size=200)
counts = st.fixed_dictionaries({t: st.integers(1, 7) for t in TOPICS})


@st.composite
def setups(draw):
    nums = draw(counts)
    available = {}
    for t, n in nums.items():
        mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        if draw(st.booleans()):
            available[t] = mask
    return nums, available


def available_of(nums, available, topic):
    mask = available.get(topic)
    return set(range(nums[topic])) if mask is None else {p for p, ok in enumerate(mask) if ok}


@examples(60)
@given(records, setups(), st.integers(-2**31, 2**31 - 1))
def test_round_robin_spreads_each_topic_evenly_over_available_partitions(topics, setup, start):
    nums, available = setup
    parts = round_robin_partitions(topics, nums, available=available, start=start)
    for t in TOPICS:
        mine = parts[np.array(topics, dtype=object) == t].tolist()
        allowed = available_of(nums, available, t) or set(range(nums[t]))
        assert set(mine) <= allowed
        if mine and start + len(mine) < 2**31:            # away from the int32 wrap
            got = Counter(mine)
            spread = [got.get(p, 0) for p in allowed]
            assert max(spread) - min(spread) <= 1


@examples(60)
@given(records, setups(), st.sampled_from(["built-in", "uniform-sticky"]), st.integers(0, 1000),
       st.one_of(st.integers(1, 5).map(lambda r: ("records", r)), st.integers(1, 60).map(lambda b: ("bytes", b))),
       st.data())
def test_sticky_batches_stay_on_one_partition_and_switch_only_at_boundaries(topics, setup, mode, seed, limit, data):
    nums, available = setup
    kind, value = limit
    sizes = np.array(data.draw(st.lists(st.integers(0, 30), min_size=len(topics), max_size=len(topics))),
                     dtype=np.int64)
    kw = dict(batch_records=value) if kind == "records" else dict(batch_bytes=value, record_bytes=sizes)
    out = sticky_batches(topics, nums, available=available, seed=seed, mode=mode, **kw)
    arr = np.array(topics, dtype=object)
    for t in TOPICS:
        sel = arr == t
        part, batch = out.partition[sel], out.batch[sel]
        size = sizes[sel] if kind == "bytes" else np.ones(sel.sum(), dtype=np.int64)
        allowed = available_of(nums, available, t)
        assert set(part.tolist()) <= (allowed or set(range(nums[t])))
        if not len(batch):
            continue
        assert batch[0] == 0 and set(np.diff(batch).tolist()) <= {0, 1}
        for b in np.unique(batch):
            assert len(set(part[batch == b].tolist())) == 1          # one partition per batch
            fill = np.cumsum(size[batch == b])
            if b != batch[-1]:
                if mode == "built-in":                                # switched after reaching the limit
                    assert fill[-1] >= value and (len(fill) == 1 or fill[-2] < value)
                else:                                                 # the next record did not fit
                    nxt = size[np.flatnonzero(batch == b + 1)[0]]
                    assert fill[-1] + nxt > value and (len(fill) == 1 or fill[-1] <= value)
        if mode == "uniform-sticky" and len(allowed) > 1:
            firsts = [part[batch == b][0] for b in np.unique(batch)]
            assert all(x != y for x, y in zip(firsts, firsts[1:]))    # never the same partition twice


@examples(40)
@given(records, setups(), st.sampled_from(["built-in", "uniform-sticky"]), st.integers(1, 4),
       st.lists(st.integers(0, 200), max_size=4))
def test_sticky_state_carries_over_chunks(topics, setup, mode, batch_records, cuts):
    nums, available = setup
    whole = sticky_batches(topics, nums, batch_records=batch_records, available=available, mode=mode, seed=9)
    sp = StickyPartitioner(nums, batch_records=batch_records, available=available, mode=mode, seed=9)
    bounds = sorted({0, len(topics), *[min(c, len(topics)) for c in cuts]})
    pieces = [sp.partition(topics[a:b]) for a, b in zip(bounds, bounds[1:])]
    if pieces:
        assert np.concatenate([p.partition for p in pieces]).tolist() == whole.partition.tolist()
        assert np.concatenate([p.batch for p in pieces]).tolist() == whole.batch.tolist()


@pytest.mark.parametrize("mode", ["built-in", "uniform-sticky"])
def test_sticky_draws_are_uniform(mode):
    # 20,000 one-record batches over 4 available partitions of 6: each about 5,000 (Kafka's distribution).
    parts = sticky_partitions(["t"] * 20000, {"t": 6}, batch_records=1, available={"t": [5, 1, 2, 4]},
                              mode=mode, seed=2)
    got = Counter(parts.tolist())
    assert set(got) == {1, 2, 4, 5}
    assert all(4700 < c < 5300 for c in got.values()), got
    if mode == "uniform-sticky":
        assert not np.any(parts[1:] == parts[:-1])
    else:
        assert np.any(parts[1:] == parts[:-1])          # built-in may draw the same partition again


def test_sticky_is_reproducible_per_seed_and_topic():
    a = sticky_partitions(["x"] * 50 + ["y"] * 50, {"x": 8, "y": 8}, batch_records=2, seed=4)
    b = sticky_partitions(["y"] * 50 + ["x"] * 50, {"x": 8, "y": 8}, batch_records=2, seed=4)
    assert a[:50].tolist() == b[50:].tolist() and a[50:].tolist() == b[:50].tolist()
    assert sticky_partitions(["x"] * 50, {"x": 8}, batch_records=2, seed=5).tolist() != a[:50].tolist()


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call,column", [
    (lambda: round_robin_partitions(["t", "u"], {"t": 2}), "num_partitions"),
    (lambda: round_robin_partitions(["t"], {"t": 0}), "num_partitions"),
    (lambda: round_robin_partitions(["t"], [("t", 2)]), "num_partitions"),
    (lambda: round_robin_partitions(["t", None], {"t": 2}), "topic"),
    (lambda: round_robin_partitions("t", {"t": 2}), "topic"),
    (lambda: round_robin_partitions(["t"], {"t": 2}, available={"t": [2]}), "available"),
    (lambda: round_robin_partitions(["t"], {"t": 2}, available={"u": [0]}), "available"),
    (lambda: round_robin_partitions(["t"], {"t": 2}, available={"t": [True]}), "available"),
    (lambda: round_robin_partitions(["t"], {"t": 2}, start=2**31), "start"),
    (lambda: sticky_partitions(["t"], {"t": 2}), "batch_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_records=1, batch_bytes=1), "batch_records"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_records=0), "batch_records"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_bytes=-5, record_bytes=[1]), "batch_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_bytes=5), "record_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_bytes=5, record_bytes=[-1]), "record_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_bytes=5, record_bytes=[1, 2]), "record_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_records=5, record_bytes=[1]), "record_bytes"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_records=5, seed=-1), "seed"),
    (lambda: sticky_partitions(["t"], {"t": 2}, batch_records=1, draws=lambda: -1), "draws"),
])
def test_argument_errors_name_the_argument(call, column):
    with pytest.raises(InvalidInputError) as e:
        call()
    assert e.value.column == column and column in str(e.value)


def test_unknown_mode():
    with pytest.raises(UnknownStrategyError, match="built-in, uniform-sticky"):
        sticky_partitions(["t"], {"t": 2}, batch_records=1, mode="sticky")


def test_empty_input():
    assert round_robin_partitions([], {"t": 2}).tolist() == []
    out = sticky_batches(np.array([], dtype=object), {"t": 2}, batch_bytes=3, record_bytes=np.array([], dtype=int))
    assert out.partition.tolist() == [] and out.batch.tolist() == []

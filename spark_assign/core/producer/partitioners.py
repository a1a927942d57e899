"""Kafka's producer partitioning of records without a key: round-robin and sticky.

Keyed records keep :func:`~spark_assign.core.producer.murmur2.kafka_partition` (murmur2,
exact). This module places the others, one topic's records in send order:

* **round-robin**: Kafka's ``RoundRobinPartitioner``. One counter per topic
  (an ``AtomicInteger`` from 0, here from ``start``); record ``k`` of the topic
  takes ``available[toPositive(counter + k) % len(available)]``, where
  ``available`` is ``cluster.availablePartitionsForTopic`` (partitions with a
  known leader, in metadata order) and ``toPositive(n) = n & 0x7fffffff`` of the
  int32 counter (it wraps after 2**31 records). With no partition available,
  ``toPositive(counter) % numPartitions`` over all partitions. Exact: no
  randomness. The counter advances once per record, as since KAFKA-17632
  (Kafka 3.9.1/4.0; 4.0 also removed ``onNewBatch``). Kafka 2.4-3.9.0 called
  ``partition()`` a second time for a record that opened a new batch
  (KIP-480's ``abortOnNewBatch``; KAFKA-9965, KAFKA-13303, KAFKA-16283), which
  skipped counter values depending on batch timing (half the partitions got
  nothing with one-record batches and an even count); that bug is not emulated.
* **sticky**, ``mode="built-in"``: Kafka 3.3+'s ``BuiltInPartitioner``
  (KIP-794). A topic's records go to one partition until ``batch.size`` bytes
  were produced to it; the record that reaches it stays, and the partition is
  switched right after it (``updatePartitionInfo``) to a uniformly random
  *available* partition (possibly the same), or any partition when none is.
* **sticky**, ``mode="uniform-sticky"``: Kafka 2.4-3.2's
  ``StickyPartitionCache`` (KIP-480; ``DefaultPartitioner`` for keyless records,
  ``UniformStickyPartitioner`` for all). A batch fills until the next record does
  not fit (a batch always takes its first record); that record opens a new batch
  on a random available partition *different from the previous one* (when more
  than one is available).

What is exact and what is a distribution: round-robin is exact. For sticky, the
batch boundaries (which records share a batch) are exact for the sizes given
(``record_bytes``, or one unit per record with ``batch_records``), assuming every
batch is complete when the sticky limit is reached (Kafka 3.3+ defers the switch
while the partition's queue holds an incomplete batch, up to 2x ``batch.size``,
which depends on timing), and without KIP-794's adaptive load statistics
(``partitioner.adaptive.partitioning.enable``: switching by queue sizes and
broker latency). Kafka draws its random partitions from ``ThreadLocalRandom``,
which cannot be reproduced; here each topic has its own NumPy ``PCG64`` stream
seeded by ``(seed, topic)``, so results are reproducible and independent of how
the records are chunked, and follow Kafka's distribution and switching rule, not
its random values. Given Kafka's random values (``draws``, a supplier like
``BuiltInPartitioner.mockRandom`` in Kafka's tests), the result is Kafka's.

Records are dense arrays: topics as a NumPy/Arrow/list column, sizes as an
integer array; no Python object per record. Per batch (not per record) there is
a ``searchsorted`` in byte mode; with ``batch_records`` boundaries are closed-form.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa

from ..java.limits import is_int
from ...errors import InvalidInputError, UnknownStrategyError

__all__ = [
    "STICKY_MODES",
    "RoundRobinPartitioner",
    "StickyPartitioner",
    "StickyBatches",
    "round_robin_partitions",
    "sticky_partitions",
    "sticky_batches",
    "check_partition_counts",
]

#: ``mode`` values of the sticky partitioner.
STICKY_MODES = ("built-in", "uniform-sticky")

_INT32_MAX = 0x7FFFFFFF          # Utils.toPositive(n) = n & 0x7fffffff
_TWO31 = 1 << 31
_TWO32 = 1 << 32


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

def check_partition_counts(num_partitions: Any) -> Dict[str, int]:
    """``num_partitions`` checked: a mapping of non-empty topic names to counts in 1..2**31-1.

    Example::

        check_partition_counts({"orders": 6})   # {"orders": 6}
    """
    if not isinstance(num_partitions, Mapping):
        raise InvalidInputError("num_partitions must be a dict {topic: partition count}, got "
                                f"{type(num_partitions).__name__}", column="num_partitions")
    out: Dict[str, int] = {}
    for topic, count in num_partitions.items():
        if not isinstance(topic, str) or not topic:
            raise InvalidInputError(f"num_partitions: topic names must be non-empty strings, got {topic!r}",
                                    column="num_partitions", rows=[topic])
        if not is_int(count) or not 1 <= count <= _INT32_MAX:
            raise InvalidInputError(f"num_partitions: topic {topic!r} needs a partition count in "
                                    f"1..2147483647, got {count!r}", column="num_partitions",
                                    rows=[(topic, count)])
        out[topic] = int(count)
    return out


def _check_available(available: Any, counts: Dict[str, int]) -> Dict[str, np.ndarray]:
    """Per topic, the available partitions in metadata order (int64); all of them when unlisted.

    ``available[topic]`` is a list of partition ids (kept in the given order: it is
    ``availablePartitionsForTopic``'s order, which round-robin indexes into) or a
    boolean mask with one entry per partition (ascending ids).
    """
    out = {t: np.arange(n, dtype=np.int64) for t, n in counts.items()}
    if available is None:
        return out
    if not isinstance(available, Mapping):
        raise InvalidInputError("available must be a dict {topic: [partition, ...]} or None, got "
                                f"{type(available).__name__}", column="available")
    for topic, parts in available.items():
        if topic not in counts:
            raise InvalidInputError(f"available names topic {topic!r}, which num_partitions lacks",
                                    column="available", rows=[topic])
        n = counts[topic]
        values = np.asarray(list(parts) if not isinstance(parts, np.ndarray) else parts)
        if values.dtype == bool:
            if values.shape != (n,):
                raise InvalidInputError(f"available[{topic!r}]: a mask needs {n} entries, got {values.size}",
                                        column="available", rows=[topic])
            out[topic] = np.flatnonzero(values).astype(np.int64)
            continue
        ok = values.ndim == 1 and (values.size == 0 or values.dtype.kind in "iu")
        bad = ([p for p in values.tolist() if not 0 <= p < n] if ok else list(values.ravel().tolist()))
        if bad or not ok:
            raise InvalidInputError(f"available[{topic!r}]: partitions must be integers in 0..{n - 1}",
                                    column="available", rows=bad)
        if len(np.unique(values)) != len(values):
            raise InvalidInputError(f"available[{topic!r}]: partitions listed twice", column="available",
                                    rows=values.tolist())
        out[topic] = values.astype(np.int64)
    return out


def _positive_limit(name: str, value: Any) -> int:
    if not is_int(value) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}", column=name, rows=[value])
    return int(value)


def _topic_codes(topics: Any, counts: Dict[str, int]) -> Tuple[np.ndarray, List[str]]:
    """``topics`` as dense codes (int64, into the returned names, in order of first appearance)."""
    if isinstance(topics, (str, bytes)):
        raise InvalidInputError("topics must be one topic per record (an array or list), got one string",
                                column="topic", rows=[topics])
    arr = topics.combine_chunks() if isinstance(topics, pa.ChunkedArray) else topics
    if not isinstance(arr, pa.Array):
        values = np.asarray(arr, dtype=object) if isinstance(arr, np.ndarray) else list(arr)
        try:
            arr = pa.array(values, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            bad = [(i, t) for i, t in enumerate(values) if not isinstance(t, str)]
            raise InvalidInputError("topics must be strings", column="topic", rows=bad) from None
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) or pa.types.is_null(arr.type)):
        raise InvalidInputError(f"topics must be strings, got {arr.type}", column="topic")
    if arr.null_count:
        nulls = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
        raise InvalidInputError("null topic", column="topic", rows=[(int(i), None) for i in nulls[:5]])
    encoded = arr.cast(pa.string()).dictionary_encode()
    names = encoded.dictionary.to_pylist()
    unknown = [t for t in names if t not in counts]
    if unknown:
        raise InvalidInputError(f"num_partitions lacks topic {unknown[0]!r} ({len(unknown)} unknown topics)",
                                column="num_partitions", rows=unknown)
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), names


def _ranks(codes: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(order, rank, per)``: records grouped by code (stable), each record's 0-based position
    within its code in input order, and the count per code."""
    order = np.argsort(codes, kind="stable")
    per = np.bincount(codes, minlength=k)
    starts = np.cumsum(per) - per
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes), dtype=np.int64) - np.repeat(starts, per)
    return order, rank, per


def _int32(value: int) -> int:
    """``value`` wrapped to a Java int (an AtomicInteger overflows silently)."""
    return (value + _TWO31) % _TWO32 - _TWO31


# ---------------------------------------------------------------------------
# Round-robin
# ---------------------------------------------------------------------------

class RoundRobinPartitioner:
    """Kafka's ``RoundRobinPartitioner``, fed records in send order, chunk after chunk.

    The counters per topic (Kafka's ``topicCounterMap``) carry over from one call
    of :meth:`partition` to the next, so a stream of records may come in pieces.

    Example::

        rr = RoundRobinPartitioner({"t": 3}, available={"t": [2, 0]})
        rr.partition(["t"] * 4).tolist()    # [2, 0, 2, 0]

    Parameters
    ----------
    num_partitions:
        ``{topic: partition count}``; every record's topic must be there.
    available:
        ``{topic: [partition, ...]}`` (partitions with a leader, in metadata order)
        or ``{topic: [bool, ...]}`` (one per partition); unlisted topics: all.
    start:
        The counters' first value (Kafka: 0), an int32 or ``{topic: int32}``.
    """

    def __init__(self, num_partitions: Mapping[str, int], available: Any = None, start: Any = 0) -> None:
        self.counts = check_partition_counts(num_partitions)
        self.available = _check_available(available, self.counts)
        starts = start if isinstance(start, Mapping) else {t: start for t in self.counts}
        self.counters: Dict[str, int] = {}
        for topic, value in starts.items():
            if not is_int(value) or not -_TWO31 <= value < _TWO31:
                raise InvalidInputError(f"start must be a 32-bit integer (Kafka's AtomicInteger counter), "
                                        f"got {value!r}", column="start", rows=[(topic, value)])
            self.counters[topic] = int(value)

    def partition(self, topics: Any) -> np.ndarray:
        """One partition per record (int32), advancing each topic's counter by its records."""
        codes, names = _topic_codes(topics, self.counts)
        _, rank, per = _ranks(codes, len(names))
        # choices[offset[j] : offset[j] + modulus[j]] is what topic j's counter indexes:
        # the available partitions, or all of them when none is (Kafka's fallback).
        lists = [self.available[t] if len(self.available[t]) else np.arange(self.counts[t], dtype=np.int64)
                 for t in names]
        modulus = np.array([len(c) for c in lists], dtype=np.int64)
        offset = np.cumsum(modulus) - modulus
        choices = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
        base = np.array([self.counters.get(t, 0) for t in names], dtype=np.int64)
        # toPositive(int32(base + rank)) == (base + rank) mod 2**31, for any int64 sum.
        positive = (base[codes] + rank) & _INT32_MAX
        out = choices[offset[codes] + positive % modulus[codes]].astype(np.int32)
        for j, topic in enumerate(names):
            self.counters[topic] = _int32(int(base[j]) + int(per[j]))
        return out


def round_robin_partitions(topics: Any, num_partitions: Mapping[str, int], available: Any = None,
                           start: Any = 0) -> np.ndarray:
    """The partition Kafka's ``RoundRobinPartitioner`` gives each record, as an int32 array.

    Records are in send order; each topic has its own counter from ``start``.

    Example::

        round_robin_partitions(["a", "b", "a", "a"], {"a": 2, "b": 3}).tolist()   # [0, 0, 1, 0]

    Parameters are :class:`RoundRobinPartitioner`'s; ``topics`` is one topic name per
    record (a list, NumPy array or Arrow string array).
    """
    return RoundRobinPartitioner(num_partitions, available, start).partition(topics)


# ---------------------------------------------------------------------------
# Sticky
# ---------------------------------------------------------------------------

@dataclass
class StickyBatches:
    """What the sticky simulation gives each record: its ``partition`` (int32) and ``batch``
    (int64: the index of its sticky batch within its topic, from 0)."""

    partition: np.ndarray
    batch: np.ndarray


@dataclass
class _TopicState:
    """One topic's sticky state between chunks.

    Invariants: ``batch`` is the open batch's index (-1 before the topic's first
    record) and ``partition`` its partition (-1 likewise); ``fill`` is what it holds
    (bytes, or records). Built-in: ``fill < limit`` always, since the switch happens
    right after the record that reaches the limit (the next batch is open, empty).
    Uniform-sticky: an open batch holds at least one record.
    """

    rng: np.random.Generator
    batch: int = -1
    partition: int = -1
    fill: int = 0


@dataclass
class _Plan:
    """One topic's chunk: where new batches start (record indices within the chunk; ``n``
    for a built-in switch after the last record) and the draw's record index."""

    starts: np.ndarray
    events: np.ndarray
    fill: int


class StickyPartitioner:
    """Kafka's sticky partitioning of keyless records, fed in send order, chunk after chunk.

    Example::

        sp = StickyPartitioner({"t": 4}, batch_records=2, seed=1)
        out = sp.partition(["t"] * 5)
        out.batch.tolist()      # [0, 0, 1, 1, 2]; out.partition is constant per batch

    Parameters
    ----------
    num_partitions:
        ``{topic: partition count}``.
    batch_records, batch_bytes:
        The sticky limit, exactly one of them: records per batch, or Kafka's
        ``batch.size`` in bytes (then :meth:`partition` needs ``record_bytes``).
    available:
        As for :class:`RoundRobinPartitioner`: never chosen while another is.
    seed:
        A non-negative int; topic ``t`` draws from ``PCG64(SeedSequence((seed, digest(t))))``.
    mode:
        ``"built-in"`` (Kafka 3.3+) or ``"uniform-sticky"`` (Kafka 2.4-3.2).
    draws:
        Optional: a callable returning Kafka's next random value (a non-negative int,
        ``Utils.toPositive(nextInt())``), called in Kafka's order; replaces the seed.
    """

    def __init__(self, num_partitions: Mapping[str, int], *, batch_records: Optional[int] = None,
                 batch_bytes: Optional[int] = None, available: Any = None, seed: int = 0,
                 mode: str = "built-in", draws: Optional[Callable[[], int]] = None) -> None:
        self.counts = check_partition_counts(num_partitions)
        self.available = _check_available(available, self.counts)
        if (batch_records is None) == (batch_bytes is None):
            raise InvalidInputError("give exactly one of batch_records and batch_bytes, got "
                                    f"batch_records={batch_records!r}, batch_bytes={batch_bytes!r}",
                                    column="batch_records" if batch_records is not None else "batch_bytes")
        self.by_bytes = batch_bytes is not None
        self.limit = _positive_limit("batch_bytes" if self.by_bytes else "batch_records",
                                     batch_bytes if self.by_bytes else batch_records)
        if mode not in STICKY_MODES:
            raise UnknownStrategyError(mode, STICKY_MODES, kind="mode")
        if not is_int(seed) or seed < 0:
            raise InvalidInputError(f"seed must be a non-negative integer, got {seed!r}", column="seed", rows=[seed])
        self.mode, self.seed, self.draws = mode, int(seed), draws
        self.states: Dict[str, _TopicState] = {}

    def _state(self, topic: str) -> _TopicState:
        if topic not in self.states:
            digest = hashlib.blake2b(topic.encode("utf-8"), digest_size=8).digest()
            entropy = (self.seed, int.from_bytes(digest, "little"))
            self.states[topic] = _TopicState(np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy))))
        return self.states[topic]

    def partition(self, topics: Any, record_bytes: Any = None) -> StickyBatches:
        """Each record's partition and batch; the topics' states carry over to the next call.

        ``record_bytes``: with ``batch_bytes``, each record's size in bytes (what it
        adds to its batch), non-negative integers, one per record.
        """
        codes, names = _topic_codes(topics, self.counts)
        sizes = self._sizes(record_bytes, len(codes))
        order, _, per = _ranks(codes, len(names))
        out_part = np.empty(len(codes), dtype=np.int32)
        out_batch = np.empty(len(codes), dtype=np.int64)
        plans: List[Tuple[str, np.ndarray, _Plan]] = []
        at = 0
        for j, topic in enumerate(names):
            idx = order[at: at + per[j]]                # the topic's records, in send order
            at += per[j]
            state = self._state(topic)
            plans.append((topic, idx, self._plan(state, sizes[idx] if sizes is not None else None, len(idx))))
        drawn = self._draw_exact(plans) if self.draws is not None else {
            topic: self._draw(topic, len(plan.starts)) for topic, _, plan in plans}
        for topic, idx, plan in plans:
            state, parts = self.states[topic], drawn[topic]
            # New batches up to and including record r: count of starts <= r.
            k = np.searchsorted(plan.starts, np.arange(len(idx)), side="right")
            seq = np.concatenate([[state.partition], parts])
            out_part[idx] = seq[k]
            out_batch[idx] = state.batch + k
            if len(parts):
                state.partition = int(parts[-1])
            state.batch += len(parts)
            state.fill = plan.fill
        return StickyBatches(out_part, out_batch)

    def _sizes(self, record_bytes: Any, n: int) -> Optional[np.ndarray]:
        if not self.by_bytes:
            if record_bytes is not None:
                raise InvalidInputError("record_bytes is for batch_bytes; with batch_records leave it out",
                                        column="record_bytes")
            return None
        if record_bytes is None:
            raise InvalidInputError("batch_bytes needs record_bytes, each record's size", column="record_bytes")
        values = record_bytes.to_numpy(zero_copy_only=False) if isinstance(record_bytes, (pa.Array, pa.ChunkedArray)) \
            else np.asarray(record_bytes)
        if values.shape != (n,) or (n and values.dtype.kind not in "iu"):
            raise InvalidInputError(f"record_bytes must be {n} integers, one per record, got shape "
                                    f"{values.shape} of {values.dtype}", column="record_bytes")
        if n and values.min() < 0:
            bad = np.flatnonzero(values < 0)
            raise InvalidInputError("record_bytes must be non-negative", column="record_bytes",
                                    rows=[(int(i), int(values[i])) for i in bad[:5]])
        return values.astype(np.int64)

    def _plan(self, state: _TopicState, sizes: Optional[np.ndarray], n: int) -> _Plan:
        """Where the chunk's new batches start (see :class:`_Plan`), from the topic's state."""
        fresh = state.batch < 0
        if self.mode == "built-in":
            ends, fill = _built_in_ends(sizes, n, self.limit, state.fill)
            starts = ends + 1                            # switched right after the record reaching the limit
            events = ends
            if fresh and n:                               # peekCurrentPartitionInfo's first draw
                starts, events = np.concatenate([[0], starts]), np.concatenate([[0], events])
            return _Plan(starts.astype(np.int64), events.astype(np.int64), fill)
        starts, fill = _uniform_sticky_starts(sizes, n, self.limit, 0 if fresh else state.fill)
        return _Plan(starts, starts, fill)

    def _draw(self, topic: str, k: int) -> np.ndarray:
        """``k`` partitions for topic's next batches, from its own stream (one double per draw)."""
        state = self._state(topic)
        avail, n = self.available[topic], self.counts[topic]
        u = state.rng.random(k)
        m = len(avail)
        if m == 0:                                        # no leader anywhere: random % numPartitions
            return np.minimum((u * n).astype(np.int64), n - 1)
        if self.mode == "built-in" or m == 1:
            return avail[np.minimum((u * m).astype(np.int64), m - 1)]
        # Uniform-sticky: uniform over the m - 1 others than the previous partition, as
        # an offset 1..m-1 from it (Kafka redraws until different: same distribution).
        steps = 1 + np.minimum((u * (m - 1)).astype(np.int64), m - 2)
        if state.partition < 0:                           # the first batch: any available partition
            steps[:1] = np.minimum((u[:1] * m).astype(np.int64), m - 1)
            first = 0
        else:
            first = int(np.flatnonzero(avail == state.partition)[0])
        return avail[(first + np.cumsum(steps)) % m]

    def _draw_exact(self, plans: List[Tuple[str, np.ndarray, _Plan]]) -> Dict[str, np.ndarray]:
        """The draws with Kafka's random values: events in send order, Kafka's nextPartition each."""
        events = [(int(idx[e]) if e < len(idx) else int(idx[-1]), topic, i)
                  for topic, idx, plan in plans for i, e in enumerate(plan.events.tolist())]
        events.sort(key=lambda ev: (ev[0], ev[2]))
        chosen: Dict[str, List[int]] = {topic: [] for topic, _, _ in plans}
        for _, topic, _ in events:
            previous = chosen[topic][-1] if chosen[topic] else self.states[topic].partition
            chosen[topic].append(self._next_partition_exact(topic, previous))
        return {t: np.array(v, dtype=np.int64) for t, v in chosen.items()}

    def _next_partition_exact(self, topic: str, previous: int) -> int:
        avail, n = self.available[topic].tolist(), self.counts[topic]
        if self.mode == "built-in":                       # BuiltInPartitioner.nextPartition
            r = self._kafka_random()
            return avail[r % len(avail)] if avail else r % n
        if previous < 0:                                  # KIP-480: partition() then onNewBatch()
            previous = self._sticky_cache_next(avail, n, None)
        return self._sticky_cache_next(avail, n, previous)

    def _sticky_cache_next(self, avail: List[int], n: int, old: Optional[int]) -> int:
        """``StickyPartitionCache.nextPartition`` for a topic whose sticky partition is ``old``."""
        if not avail:
            return self._kafka_random() % n
        if len(avail) == 1:
            return avail[0]
        new = None
        while new is None or new == old:
            new = avail[self._kafka_random() % len(avail)]
        return new

    def _kafka_random(self) -> int:
        assert self.draws is not None
        value = self.draws()
        if not is_int(value) or not 0 <= value <= _INT32_MAX:
            raise InvalidInputError(f"draws must return non-negative 32-bit ints (Utils.toPositive values), "
                                    f"got {value!r}", column="draws", rows=[value])
        return int(value)


def _built_in_ends(sizes: Optional[np.ndarray], n: int, limit: int, fill: int) -> Tuple[np.ndarray, int]:
    """Indices of the records after which ``BuiltInPartitioner.updatePartitionInfo`` switches
    (``producedBytes >= batch.size``, counting the record), and the open batch's fill after
    the chunk. ``fill`` (< limit) is what the open batch held before it."""
    if sizes is None:                                     # one unit per record: closed form
        ends = np.arange(limit - fill - 1, n, limit, dtype=np.int64)
        return ends, (fill + n) % limit if not len(ends) else (n - 1 - int(ends[-1]))
    cum = np.cumsum(sizes)
    found: List[int] = []
    base = -fill                                          # cum value before the open batch's first byte
    while True:
        # First record whose cumulative bytes in the batch reach the limit; one search per batch.
        i = int(np.searchsorted(cum, base + limit, side="left"))
        if i >= n:
            break
        found.append(i)
        base = int(cum[i])
    total = int(cum[-1]) if n else 0
    return np.array(found, dtype=np.int64), total - base


def _uniform_sticky_starts(sizes: Optional[np.ndarray], n: int, limit: int, fill: int) -> Tuple[np.ndarray, int]:
    """Indices of the records that open a new batch under KIP-480 (the batch is full: the record
    does not fit; a batch always takes its first record), and the open batch's fill after the
    chunk. ``fill`` is the open batch's content before it, 0 when there is no batch yet."""
    if sizes is None:
        first = (limit - fill) % limit if fill else 0
        starts = np.arange(first, n, limit, dtype=np.int64)
        return starts, (fill + n if not len(starts) else n - int(starts[-1]))
    cum = np.cumsum(sizes)
    found: List[int] = []
    a = int(np.searchsorted(cum, limit - fill, side="right")) if fill else 0
    while a < n:
        found.append(a)
        base = int(cum[a - 1]) if a else 0
        a = max(a + 1, int(np.searchsorted(cum, base + limit, side="right")))
    total = int(cum[-1]) if n else 0
    if not found:
        return np.zeros(0, dtype=np.int64), fill + total
    return np.array(found, dtype=np.int64), total - (int(cum[found[-1] - 1]) if found[-1] else 0)


def sticky_batches(topics: Any, num_partitions: Mapping[str, int], *, batch_records: Optional[int] = None,
                   batch_bytes: Optional[int] = None, record_bytes: Any = None, available: Any = None,
                   seed: int = 0, mode: str = "built-in",
                   draws: Optional[Callable[[], int]] = None) -> StickyBatches:
    """Each keyless record's sticky ``partition`` and ``batch``, records in send order.

    Example::

        out = sticky_batches(["t"] * 6, {"t": 3}, batch_records=3, seed=7)
        out.batch.tolist()      # [0, 0, 0, 1, 1, 1]

    Parameters are :class:`StickyPartitioner`'s; ``topics`` is one topic per record,
    ``record_bytes`` one size per record (with ``batch_bytes``).
    """
    partitioner = StickyPartitioner(num_partitions, batch_records=batch_records, batch_bytes=batch_bytes,
                                    available=available, seed=seed, mode=mode, draws=draws)
    return partitioner.partition(topics, record_bytes)


def sticky_partitions(topics: Any, num_partitions: Mapping[str, int], *, batch_records: Optional[int] = None,
                      batch_bytes: Optional[int] = None, record_bytes: Any = None, available: Any = None,
                      seed: int = 0, mode: str = "built-in",
                      draws: Optional[Callable[[], int]] = None) -> np.ndarray:
    """The partition Kafka's sticky partitioning gives each keyless record (int32 array).

    Example::

        parts = sticky_partitions(["t"] * 6, {"t": 3}, batch_records=3, seed=7)
        len(set(parts[:3].tolist())) == 1     # one partition per batch

    Parameters: see :func:`sticky_batches`.
    """
    return sticky_batches(topics, num_partitions, batch_records=batch_records, batch_bytes=batch_bytes,
                          record_bytes=record_bytes, available=available, seed=seed, mode=mode,
                          draws=draws).partition


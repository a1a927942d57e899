"""The few Java behaviours that decide Kafka's exact output.

Kafka's assignors are Java. Where their output depends on how Java orders or
hashes things, we emulate that here, and nowhere else:

* ``String.compareTo`` orders by UTF-16 code units, Python's ``str`` by code
  points. They differ only when a string holds characters above U+FFFF.
* ``String.hashCode`` is ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units,
  in 32-bit two's complement.
* ``java.util.HashMap`` (and ``HashSet``) iterate bucket by bucket, where the
  bucket of a key is ``(h ^ (h >>> 16)) & (capacity - 1)``; keys sharing a
  bucket iterate in insertion order (a resize splits a bucket without
  reordering it). The capacity starts at 16 and doubles when the size exceeds
  3/4 of it, or when one bucket reaches 9 keys while the capacity is below 64.

Limit: with 64+ buckets, a bucket holding 9+ keys becomes a red-black tree whose
iteration starts at the tree's root. We do not emulate that; it needs 9 member
ids (or partitions) with colliding hashes in one group.
"""

from __future__ import annotations

import re
from typing import Dict, Hashable, Iterable, List, Optional, Sequence

import numpy as np

__all__ = [
    "java_string_hash",
    "java_string_hashes",
    "java_string_hash_array",
    "java_sort_key",
    "java_sorted",
    "topic_partition_hash",
    "hashmap_order",
    "hash_spread",
    "JavaHashSet",
    "INITIAL_CAPACITY",
    "collection_capacity",
    "growth_capacity",
    "table_sizes",
    "collection_capacities",
    "growth_capacities",
]

_MASK32 = 0xFFFFFFFF
#: ``HashMap``'s default initial capacity (``DEFAULT_INITIAL_CAPACITY``): a new map has 16 buckets.
INITIAL_CAPACITY = 16
_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64


def _utf16_units(s: str) -> Iterable[int]:
    if s.isascii():
        return s.encode("ascii")
    data = s.encode("utf-16-be")
    return (data[i] << 8 | data[i + 1] for i in range(0, len(data), 2))


def _to_int32(h: int) -> int:
    h &= _MASK32
    return h - (1 << 32) if h & 0x80000000 else h


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` of ``s`` as a signed 32-bit int."""
    h = 0
    for unit in _utf16_units(s):
        h = (31 * h + unit) & _MASK32
    return _to_int32(h)


def java_string_hashes(strings: Sequence[str]) -> List[int]:
    """``String.hashCode()`` of many strings (see :func:`java_string_hash_array`)."""
    return java_string_hash_array(strings).tolist()


#: Below this many UTF-16 units in all, a Python loop beats the array passes' fixed cost.
_SMALL_HASH_INPUT = 96
#: ``31**k mod 2**64`` for k = 0, 1, ...: grown on demand (only the low 32 bits matter).
_POWERS_OF_31 = np.ones(1, dtype=np.uint64)


def _powers_of_31(n: int) -> np.ndarray:
    global _POWERS_OF_31
    if len(_POWERS_OF_31) < n:
        size = max(n, 2 * len(_POWERS_OF_31))
        powers = np.array([pow(31, k, 1 << 64) for k in range(size)], dtype=np.uint64)
        _POWERS_OF_31 = powers
    return _POWERS_OF_31


def java_string_hash_array(strings: Sequence[str]) -> np.ndarray:
    """``String.hashCode()`` of many strings at once, as an int64 array of signed 32-bit values.

    One pass over all their UTF-16 units: unit ``k`` of an ``L``-unit string adds
    ``unit * 31**(L-1-k)``; sums are taken modulo 2**64 by NumPy's wrapping unsigned
    arithmetic, which keeps them right modulo 2**32, all the hash needs.

    Example::

        java_string_hash_array(["a", "主题"]).tolist() == [97, java_string_hash("主题")]
    """
    n = len(strings)
    joined = "".join(strings)
    if len(joined) <= _SMALL_HASH_INPUT:
        return np.array([java_string_hash(s) for s in strings], dtype=np.int64)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=n)
    if joined.isascii():
        units = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    else:
        units = np.frombuffer(joined.encode("utf-16-be"), dtype=">u2")
        if len(units) != len(joined):       # characters above U+FFFF take two units
            lengths = np.fromiter((len(s.encode("utf-16-be")) // 2 for s in strings), dtype=np.int64, count=n)
    ends = np.cumsum(lengths)
    exponent = np.repeat(ends, lengths) - np.arange(1, len(units) + 1, dtype=np.int64)
    terms = units.astype(np.uint64) * _powers_of_31(int(lengths.max()))[exponent]
    sums = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(terms, dtype=np.uint64)])
    h = ((sums[ends] - sums[ends - lengths]) & np.uint64(_MASK32)).astype(np.int64)
    return np.where(h >= 1 << 31, h - (1 << 32), h)


#: Characters outside the Basic Multilingual Plane: one code point in Python, two UTF-16 units in Java.
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _surrogates(match: "re.Match[str]") -> str:
    c = ord(match.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def java_sort_key(s: str) -> str:
    """A key that sorts strings as Java's ``String.compareTo`` does.

    Always a ``str``, so keys of ASCII and non-ASCII strings compare with each
    other. Code points and UTF-16 units agree below U+10000; a character above
    it is spelled as its surrogate pair (U+D800-U+DFFF), which sorts below
    U+E000-U+FFFF as in Java.

    Example::

        sorted(["\uffff", "\U0001F600", "a"], key=java_sort_key) == ["a", "\U0001F600", "\uffff"]
    """
    if s.isascii() or not _ASTRAL.search(s):
        return s
    return _ASTRAL.sub(_surrogates, s)


def java_sorted(strings: Iterable[str]) -> List[str]:
    """``strings`` sorted by Java's ``String.compareTo``."""
    return sorted(strings, key=java_sort_key)


def topic_partition_hash(topic_hash: int, partition: int) -> int:
    """``TopicPartition.hashCode()`` from the topic's ``String.hashCode()``."""
    return _to_int32(31 * (31 + partition) + topic_hash)


def hash_spread(h: int) -> int:
    """``HashMap.hash``'s spreading of a key's ``hashCode()`` ``h``: ``h ^ (h >>> 16)``, so the high
    bits reach the bucket index ``hash & (capacity - 1)``.

    Example::

        hash_spread(0x10000) == 0x10001
    """
    h &= _MASK32
    return h ^ (h >> 16)


def collection_capacity(n: int) -> int:
    """Buckets of ``new HashSet<>(collection)`` (or ``new HashMap<>(map)``) of ``n`` elements: the
    least power of two >= ``max(16, (int) (n / 0.75f) + 1)``, Java's sizing for a copy.

    Example::

        collection_capacity(12) == 32 and growth_capacity(12) == 16
    """
    wanted = max(int(np.float32(n) / np.float32(0.75)) + 1, INITIAL_CAPACITY)
    return 1 << (wanted - 1).bit_length()


def growth_capacity(n: int) -> int:
    """Buckets of a ``new HashMap<>()`` after ``n`` puts of keys in distinct buckets: 16,
    doubled while more than 3/4 full (the treeify resize, which needs 9 keys in one bucket,
    is not counted)."""
    capacity = INITIAL_CAPACITY
    while n > capacity * 3 // 4:
        capacity *= 2
    return capacity


def table_sizes(x: np.ndarray) -> np.ndarray:
    """``HashMap.tableSizeFor`` of each ``x`` (>= 1): the least power of two >= it.

    Example::

        table_sizes(np.array([1, 16, 17])).tolist() == [1, 16, 32]
    """
    x = np.asarray(x, dtype=np.int64)
    size = np.left_shift(1, np.ceil(np.log2(np.maximum(x, 1))).astype(np.int64))
    size = np.where(size < x, size * 2, size)                       # guard float rounding
    return np.where((size > 1) & (size // 2 >= x), size // 2, size)


def collection_capacities(n: np.ndarray) -> np.ndarray:
    """:func:`collection_capacity` of many sizes (Java's float arithmetic included)."""
    wanted = (np.asarray(n).astype(np.float32) / np.float32(0.75)).astype(np.int64) + 1
    return table_sizes(np.maximum(wanted, INITIAL_CAPACITY))


def growth_capacities(n: np.ndarray) -> np.ndarray:
    """:func:`growth_capacity` of many sizes: the least power of two >= 16 whose 3/4 holds ``n``."""
    n = np.asarray(n, dtype=np.int64)
    return table_sizes(np.maximum(-(-4 * n // 3), INITIAL_CAPACITY))


class _BucketCounter:
    """Tracks a Java HashMap's capacity as keys are inserted (never removed)."""

    def __init__(self) -> None:
        self.capacity = INITIAL_CAPACITY
        self.spreads: List[int] = []
        self.counts: Dict[int, int] = {}

    def _rebuild(self) -> None:
        mask = self.capacity - 1
        self.counts = {}
        for s in self.spreads:
            self.counts[s & mask] = self.counts.get(s & mask, 0) + 1

    def insert(self, spread: int) -> None:
        self.spreads.append(spread)
        bucket = spread & (self.capacity - 1)
        count = self.counts.get(bucket, 0) + 1
        self.counts[bucket] = count
        if count > _TREEIFY_THRESHOLD and self.capacity < _MIN_TREEIFY_CAPACITY:
            self.capacity *= 2  # treeifyBin resizes small tables instead
            self._rebuild()
        if len(self.spreads) > self.capacity * 3 // 4:
            self.capacity *= 2
            self._rebuild()


def hashmap_order(hashes: "Sequence[int] | np.ndarray") -> List[int]:
    """Iteration order of a ``new HashMap<>()`` filled with keys of these hashes.

    ``hashes[i]`` is the ``hashCode()`` of the i-th key put (keys distinct).
    Returns the indices ``i`` in the order Java iterates the map: by bucket at the final
    capacity, then insertion order. The capacity follows the size rule alone unless a bucket
    of the 16-bucket table would reach 9 keys (a treeify resize, possible only below 64
    buckets): then the insertions are replayed.
    """
    n = len(hashes)
    if n <= _TREEIFY_THRESHOLD:             # 16 buckets, no resize: Python beats array calls
        buckets = [hash_spread(int(h)) & (INITIAL_CAPACITY - 1) for h in hashes]
        return sorted(range(n), key=buckets.__getitem__)
    h = np.asarray(hashes, dtype=np.int64) & _MASK32
    spread = h ^ (h >> 16)
    if n > 3 * _MIN_TREEIFY_CAPACITY // 4 or n <= _TREEIFY_THRESHOLD or \
            np.bincount(spread & (INITIAL_CAPACITY - 1)).max() <= _TREEIFY_THRESHOLD:
        # The size rule alone decides: 128+ buckets are past any small-table resize, and
        # with at most 8 keys per bucket of 16 (so of 32 too) no resize for a bucket happens.
        return np.argsort(spread & (growth_capacity(n) - 1), kind="stable").tolist()
    counter = _BucketCounter()
    spreads = spread.tolist()
    for s in spreads:
        counter.insert(s)
    mask = counter.capacity - 1
    return sorted(range(n), key=lambda i: (spreads[i] & mask, i))


class JavaHashSet:
    """A ``new HashSet<>()`` whose iteration order matches Java's.

    Elements are any hashable values; their Java ``hashCode()`` is given on add.
    Removal does not shrink the table; a re-added element goes to the end of
    its bucket, as in Java.
    """

    def __init__(self) -> None:
        self._seq: Dict[Hashable, int] = {}
        self._spread: Dict[Hashable, int] = {}
        self._next = 0
        self._capacity = INITIAL_CAPACITY

    def __len__(self) -> int:
        return len(self._seq)

    def __contains__(self, item: Hashable) -> bool:
        return item in self._seq

    def add(self, item: Hashable, java_hash: int) -> None:
        if item in self._seq:
            return
        self._seq[item] = self._next
        self._next += 1
        self._spread[item] = hash_spread(java_hash)
        size = len(self._seq)
        mask = self._capacity - 1
        if self._capacity < _MIN_TREEIFY_CAPACITY and size > _TREEIFY_THRESHOLD:     # else no bucket can be that full
            bucket = self._spread[item] & mask
            if sum(1 for s in self._spread.values() if s & mask == bucket) > _TREEIFY_THRESHOLD:
                self._capacity *= 2
        if size > self._capacity * 3 // 4:
            self._capacity *= 2

    def remove(self, item: Hashable) -> None:
        self._seq.pop(item, None)
        self._spread.pop(item, None)

    def first(self) -> Optional[Hashable]:
        """The element ``iterator().next()`` returns, or None when empty."""
        if not self._seq:
            return None
        mask = self._capacity - 1
        return min(self._seq, key=lambda e: (self._spread[e] & mask, self._seq[e]))

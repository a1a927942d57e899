"""Kafka's default producer partitioner hash, vectorized over Arrow arrays.

A Kafka producer puts a record with a non-null key on partition
``(murmur2(keyBytes) & 0x7fffffff) % numPartitions`` (``BuiltInPartitioner.
partitionForKey``, ``Utils.toPositive``), where ``Utils.murmur2`` is MurmurHash2,
32 bits, seed ``0x9747b28c``, over the serialized key. Kafka's
``StringSerializer`` encodes strings as UTF-8, and so do we.

The algorithm, for ``n = len(data)``, ``m = 0x5bd1e995``, all arithmetic mod 2**32:

1. ``h = seed ^ n``.
2. For each whole 4-byte block ``k`` (little-endian), in order:
   ``k *= m; k ^= k >>> 24; k *= m; h *= m; h ^= k``.
3. If ``n % 4 != 0``: ``h ^= tail`` (the last 1-3 bytes, little-endian), ``h *= m``.
4. Final mix: ``h ^= h >>> 13; h *= m; h ^= h >>> 15``; read as a signed int32.

Vectorized layout: Arrow gives each chunk's offsets and data buffer as NumPy
arrays. Step 2 is the only sequential part (each block's ``h`` depends on the
previous one), so keys are ordered by block count and we iterate over the block
index ``j``: the keys that have a ``j``-th block are a suffix of that order, and
one step updates all of them with a few NumPy calls. The cost is O(total bytes)
plus a constant per step; when only a handful of (very long) keys remain, a
plain Python loop finishes them, so one huge key does not cost ``blocks x``
NumPy call overhead. Steps 1, 3 and 4 are one vectorized pass each. Keys go
through in cache-sized blocks (16k keys / 1 MiB), which made 1M-key calls 2-3x
faster than one pass over all of them.

Null keys: Kafka never hashes a null key (it uses sticky partitioning), so there
is no hash to reproduce. :func:`kafka_partition` returns :data:`NULL_PARTITION`
(``-1``, never a valid partition) for them. :func:`murmur2` returns
:data:`NULL_HASH` (``0``) for them; since every int32 is some key's hash, no
value can mark a null, and callers that need SQL ``NULL`` must take the
validity from the input (e.g. ``keys.is_null()``).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa

from ...errors import InvalidInputError

__all__ = [
    "SEED",
    "NULL_HASH",
    "NULL_PARTITION",
    "murmur2_bytes",
    "murmur2",
    "kafka_partition",
]

SEED = 0x9747B28C
_M = 0x5BD1E995              # MurmurHash2's mixing multiplier
_R = 24
_MASK32 = 0xFFFFFFFF
_INT32_MAX = 0x7FFFFFFF

#: What :func:`murmur2` returns for a null key (not a marker: 0 is also a real hash).
NULL_HASH = 0
#: What :func:`kafka_partition` returns for a null key; never a valid partition.
NULL_PARTITION = -1

# When at most this many keys still have blocks left, finish them with a Python
# loop (~0.1-0.3 us a block) instead of NumPy steps (~5-10 us a step whatever
# the number of keys). Measured break-even is around 20 keys.
_SCALAR_FINISH_KEYS = 16
# Blocks a long key mixes at once in that Python finish (bounds the memory).
_SCALAR_CHUNK_BLOCKS = 1 << 16
# Keys hashed together: at most this many keys, and about this many bytes of them.
_BLOCK_KEYS = 1 << 14
_BLOCK_BYTES = 1 << 20

_U32_M = np.uint32(_M)
# _TAIL_MASK[n % 4] keeps the n % 4 tail bytes of a 4-byte little-endian read.
_TAIL_MASK = np.array([0, 0xFF, 0xFFFF, 0xFFFFFF], dtype=np.uint32)

#: Accepted key inputs (a pandas Series works too).
Keys = Union[pa.Array, pa.ChunkedArray, np.ndarray, Sequence[Any]]


# ---------------------------------------------------------------------------
# Scalar reference (pure Python; the test oracle and the benchmark baseline)
# ---------------------------------------------------------------------------

def murmur2_bytes(data: bytes) -> int:
    """``Utils.murmur2(data)`` as a signed 32-bit int, one byte string at a time."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"murmur2_bytes needs bytes, got {type(data).__name__}",
                                column="key", rows=[data])
    data = bytes(data)
    length = len(data)
    h = (SEED ^ length) & _MASK32                                     # step 1
    for i in range(0, length - length % 4, 4):                        # step 2
        k = data[i] | data[i + 1] << 8 | data[i + 2] << 16 | data[i + 3] << 24
        k = (k * _M) & _MASK32
        k ^= k >> _R
        k = (k * _M) & _MASK32
        h = ((h * _M) & _MASK32) ^ k
    tail = length & ~3                                                # step 3, Java's fall-through switch
    rem = length % 4
    if rem == 3:
        h ^= data[tail + 2] << 16
    if rem >= 2:
        h ^= data[tail + 1] << 8
    if rem >= 1:
        h ^= data[tail]
        h = (h * _M) & _MASK32
    h ^= h >> 13                                                      # step 4
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


# ---------------------------------------------------------------------------
# Input normalization: anything key-like -> Arrow binary-like chunks
# ---------------------------------------------------------------------------

def _is_binary_like(t: pa.DataType) -> bool:
    return (pa.types.is_binary(t) or pa.types.is_large_binary(t)
            or pa.types.is_string(t) or pa.types.is_large_string(t))


def _to_chunks(keys: Keys) -> List[pa.Array]:
    """Arrow chunks of type (large_)binary/string, or null, holding ``keys``."""
    if isinstance(keys, (bytes, bytearray, memoryview, str)):
        raise InvalidInputError("keys must be an array or sequence of keys, got a single "
                                f"{type(keys).__name__}; use murmur2_bytes for one key",
                                column="key")
    if not isinstance(keys, (pa.Array, pa.ChunkedArray)):
        keys = _sequence_to_arrow(keys)
    out = []
    for c in (keys.chunks if isinstance(keys, pa.ChunkedArray) else [keys]):
        t = c.type
        if pa.types.is_dictionary(t):
            c = c.dictionary_decode()
            t = c.type
        if (pa.types.is_fixed_size_binary(t) or pa.types.is_binary_view(t)
                or pa.types.is_string_view(t)):
            c = c.cast(pa.large_binary())
        elif not (_is_binary_like(t) or pa.types.is_null(t)):
            raise InvalidInputError(f"keys must be binary or string, got {t}", column="key")
        out.append(c)
    return out


def _sequence_to_arrow(keys: Any) -> Union[pa.Array, pa.ChunkedArray]:
    """A NumPy array, pandas Series, list or tuple of bytes/str/None as Arrow."""
    if isinstance(keys, np.ndarray):
        if keys.ndim != 1:
            raise InvalidInputError(f"keys must be one-dimensional, got shape {keys.shape}",
                                    column="key")
        if keys.dtype.kind in "SU":
            # pyarrow cuts NumPy fixed-width strings at the first NUL; object keeps them.
            # (Trailing NULs are lost anyway: NumPy strips them, so a key ending in
            # b"\0" or "\0" must come as an object array, list or Arrow array.)
            keys = keys.astype(object)
    try:
        # The fast path: homogeneous str or bytes (C-level conversion, no Python loop).
        return pa.array(keys)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        pass
    # Mixed str and bytes: encode the str ones (a convenience path, not the hot one).
    values, bad = [], []
    for i, k in enumerate(keys):
        if k is None or isinstance(k, bytes):
            values.append(k)
        elif isinstance(k, str):
            values.append(k.encode("utf-8"))
        elif isinstance(k, (bytearray, memoryview)):
            values.append(bytes(k))
        else:
            bad.append((i, k))
    if bad:
        raise InvalidInputError("keys must be bytes, str or None", column="key", rows=bad)
    return pa.array(values, type=pa.large_binary())


def _buffers(chunk: pa.Array) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """``(data, starts, lengths, valid)`` of a binary-like chunk, zero-copy where Arrow allows.

    ``data[starts[i] : starts[i] + lengths[i]]`` are the bytes of key ``i``;
    null keys get length 0 and ``valid`` (None when there are no nulls) says which.
    """
    n = len(chunk)
    if n == 0 or pa.types.is_null(chunk.type):   # (a length-0 array may lack an offsets buffer)
        empty = np.zeros(n, dtype=np.int64)
        return np.zeros(0, dtype=np.uint8), empty, empty.copy(), np.zeros(n, dtype=bool)
    _, offset_buf, data_buf = chunk.buffers()[:3]
    large = pa.types.is_large_binary(chunk.type) or pa.types.is_large_string(chunk.type)
    offsets = np.frombuffer(offset_buf, dtype=np.int64 if large else np.int32)
    offsets = offsets[chunk.offset: chunk.offset + n + 1].astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = (np.frombuffer(data_buf, dtype=np.uint8)[lo:hi] if data_buf is not None
            else np.zeros(0, dtype=np.uint8))
    starts = offsets[:-1] - lo
    lengths = np.diff(offsets)
    valid = None
    if chunk.null_count:
        valid = chunk.is_valid().to_numpy(zero_copy_only=False)
        lengths[~valid] = 0                   # a null slot may span bytes; never read them
    return data, starts, lengths, valid


# ---------------------------------------------------------------------------
# The vectorized hash
# ---------------------------------------------------------------------------

def _mix_block(k: np.ndarray) -> np.ndarray:
    """Step 2's block mix, in place: ``k *= m; k ^= k >>> 24; k *= m``."""
    k *= _U32_M
    k ^= k >> _R
    k *= _U32_M
    return k


def _murmur2_arrays(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """uint32 murmur2 of ``data[starts[i] : starts[i] + lengths[i]]`` for every ``i``.

    ``starts`` must be non-decreasing (Arrow offsets are). Keys go through in
    blocks of at most _BLOCK_KEYS keys and about _BLOCK_BYTES bytes, so that one
    block's data and index arrays stay in cache while step 2 sweeps them once
    per block index (measured: 2-3x faster than one pass over 1M keys).
    """
    n = len(lengths)
    if len(data) < 4:                         # the 4-byte reads below need 4 bytes of buffer
        data = np.concatenate([data, np.zeros(4 - len(data), dtype=np.uint8)])
    # words[p] is the little-endian uint32 made of data[p:p+4]: an unaligned view with
    # a 1-byte stride, so no copy of the data.
    words = np.ndarray((len(data) - 3,), dtype="<u4", buffer=data, strides=(1,))
    h = np.empty(n, dtype=np.uint32)
    a = 0
    while a < n:
        b = min(n, a + _BLOCK_KEYS)
        if starts[b - 1] - starts[a] > _BLOCK_BYTES:
            b = max(a + 1, int(np.searchsorted(starts[a:b], starts[a] + _BLOCK_BYTES)) + a)
        h[a:b] = _murmur2_block(words, starts[a:b], lengths[a:b])
        a = b
    return h


def _murmur2_block(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """:func:`_murmur2_arrays` for one block of keys, given the 4-byte word view."""
    n = len(lengths)
    nblocks = lengths >> 2
    h = (lengths ^ SEED).astype(np.uint32)                            # step 1
    max_blocks = int(nblocks.max()) if n else 0

    if max_blocks:                                                    # step 2
        # Order keys by block count, stable: the keys with a j-th block are then
        # the suffix order[first[j]:]. A radix sort when the counts fit 16 bits.
        if int(nblocks.min()) == max_blocks:
            order = None
            nb_sorted = nblocks
        else:
            key = nblocks.astype(np.uint8 if max_blocks < 1 << 8 else
                                 np.uint16 if max_blocks < 1 << 16 else np.int64)
            order = np.argsort(key, kind="stable")
            nb_sorted = nblocks[order]
        # NumPy steps while more than _SCALAR_FINISH_KEYS keys are active, i.e. for
        # j < the block count of the (_SCALAR_FINISH_KEYS + 1)-th longest key.
        steps = int(nb_sorted[n - _SCALAR_FINISH_KEYS - 1]) if n > _SCALAR_FINISH_KEYS else 0
        first = np.searchsorted(nb_sorted, np.arange(steps), side="right")
        pos = starts.copy() if order is None else starts[order]       # next block of each key
        hs = h if order is None else h[order]
        for j in range(steps):
            # Invariant: keys first[j]: have a j-th block; their hs holds blocks 0..j-1
            # mixed in, and pos points at block j.
            active = slice(int(first[j]), n)
            k = _mix_block(words[pos[active]])
            hv = hs[active]
            hv *= _U32_M
            hv ^= k
            pos[active] += 4
        if steps < max_blocks:
            lo = int(np.searchsorted(nb_sorted, steps, side="right"))
            _finish_long_keys(words, pos, hs, nb_sorted, lo, steps)
        if order is not None:
            h[order] = hs

    rem = lengths & 3                                                 # step 3
    tail_at = starts + lengths - rem          # first byte after the last whole block
    # Read 4 bytes at tail_at, or, near the end of the buffer, at len-4 shifted down.
    read_at = np.minimum(tail_at, len(words) - 1)
    shift = np.minimum(tail_at - read_at, 3).astype(np.uint32) * np.uint32(8)
    tail = (words[read_at] >> shift) & _TAIL_MASK[rem]
    has_tail = rem != 0
    h = np.where(has_tail, (h ^ tail) * _U32_M, h)

    h ^= h >> np.uint32(13)                                           # step 4
    h *= _U32_M
    h ^= h >> np.uint32(15)
    return h


def _finish_long_keys(words: np.ndarray, pos: np.ndarray, hs: np.ndarray,
                      nb_sorted: np.ndarray, lo: int, j: int) -> None:
    """Step 2 for the few keys ``lo:`` that still have blocks ``j..``: a Python loop per key.

    The block mix is still vectorized, a chunk of blocks at a time; only the
    sequential ``h = h * m ^ k`` runs in Python.
    """
    for r in range(lo, len(hs)):
        hv = int(hs[r])
        p, end = int(pos[r]), int(pos[r]) + 4 * (int(nb_sorted[r]) - j)
        while p < end:
            stop = min(end, p + 4 * _SCALAR_CHUNK_BLOCKS)
            for k in _mix_block(words[p:stop:4].copy()).tolist():
                hv = ((hv * _M) & _MASK32) ^ k
            p = stop
        hs[r] = hv


def _hash_chunks(chunks: List[pa.Array]) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """uint32 hashes of all keys and their validity (None: no null keys)."""
    hashes, valids, any_null = [], [], False
    for chunk in chunks:
        data, starts, lengths, valid = _buffers(chunk)
        hashes.append(_murmur2_arrays(data, starts, lengths))
        valids.append(valid if valid is not None else np.ones(len(chunk), dtype=bool))
        any_null = any_null or valid is not None
    if not hashes:
        return np.zeros(0, dtype=np.uint32), None
    h = hashes[0] if len(hashes) == 1 else np.concatenate(hashes)
    valid = (valids[0] if len(valids) == 1 else np.concatenate(valids)) if any_null else None
    return h, valid


def murmur2(keys: Keys) -> np.ndarray:
    """Kafka's ``Utils.murmur2`` of every key, as a NumPy int32 array.

    ``keys``: a pyarrow (Large)Binary/String array or ChunkedArray (dictionary,
    view and fixed-size binary types are decoded), or a NumPy array, pandas
    Series, list or tuple of ``bytes``/``str``/``None``. Strings hash as UTF-8.
    NumPy fixed-width ``'S'``/``'U'`` arrays lose trailing NULs (NumPy's rule).
    A null key gives :data:`NULL_HASH` (0); see the module docstring.
    """
    h, valid = _hash_chunks(_to_chunks(keys))
    out = h.view(np.int32)
    if valid is not None:
        out[~valid] = NULL_HASH
    return out


def kafka_partition(keys: Keys, num_partitions: Any) -> np.ndarray:
    """The partition Kafka's default partitioner picks for each key, as a NumPy int32 array.

    ``(murmur2(key) & 0x7fffffff) % num_partitions``. ``num_partitions`` is an
    int in 1..2**31-1, or one such count per key (an array, Series or list of the
    same length; integral floats are accepted, as pandas makes a float column of
    an int column with nulls). Anything else, null included, raises
    :class:`~spark_assign.errors.InvalidInputError` naming the value.
    A null key gives :data:`NULL_PARTITION` (-1): Kafka spreads null keys with
    its sticky partitioner, which is not a function of the key.
    """
    counts = _partition_counts(num_partitions)
    chunks = _to_chunks(keys)
    n = sum(len(c) for c in chunks)
    if not isinstance(counts, int) and len(counts) != n:
        raise InvalidInputError(f"num_partitions has {len(counts)} values for {n} keys",
                                column="num_partitions")
    h, valid = _hash_chunks(chunks)
    positive = h & np.uint32(_INT32_MAX)                              # Utils.toPositive
    if isinstance(counts, int):
        out = (positive % np.uint32(counts)).astype(np.int32)
    else:
        out = (positive.astype(np.int64) % counts).astype(np.int32)
    if valid is not None:
        out[~valid] = NULL_PARTITION
    return out


def _partition_counts(num_partitions: Any) -> Union[int, np.ndarray]:
    """``num_partitions`` checked: an int in 1..2**31-1, or an int64 array of them."""
    value = num_partitions
    if isinstance(value, pa.Scalar):
        value = value.as_py()
    elif isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if value is None or isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating, str)):
        if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
                or not 1 <= value <= _INT32_MAX):
            raise InvalidInputError(f"num_partitions {_count_rule(value)}, got {value!r}",
                                    column="num_partitions", rows=[value])
        return int(value)
    # One count per key.
    arr = value if isinstance(value, (pa.Array, pa.ChunkedArray)) else pa.array(value, from_pandas=True)
    if not (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type) or pa.types.is_null(arr.type)):
        raise InvalidInputError(f"num_partitions must be integers, got {arr.type}",
                                column="num_partitions")
    # As float64 (exact for every int32), with nulls as NaN.
    values = np.asarray(arr.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    with np.errstate(invalid="ignore"):
        ok = (values >= 1) & (values <= _INT32_MAX) & (values == np.floor(values))
    if not ok.all():
        bad = np.flatnonzero(~ok)
        shown = [(int(i), None if np.isnan(values[i]) else arr[int(i)].as_py()) for i in bad[:5]]
        raise InvalidInputError(
            f"num_partitions {_count_rule(shown[0][1])}, got {shown[0][1]!r} at row {shown[0][0]}"
            f" ({len(bad)} bad rows)", column="num_partitions", rows=shown)
    return values.astype(np.int64)


def _count_rule(value: Any) -> str:
    """The rule a bad partition count breaks: a count above Kafka's int32 limit is named as such."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value > _INT32_MAX:
        return f"must be at most {_INT32_MAX} (Kafka's partition counts are 32-bit ints)"
    return "must be a positive integer"

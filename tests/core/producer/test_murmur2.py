"""Kafka's default partitioner hash: Kafka's own vectors, and the vectorized path against the scalar one."""

from __future__ import annotations

import math
import random
from typing import List, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core.producer import murmur2 as mm
from spark_assign.core.producer.murmur2 import (
    NULL_HASH,
    NULL_PARTITION,
    kafka_partition,
    murmur2,
    murmur2_bytes,
)
from spark_assign.errors import InvalidInputError

# Apache Kafka, clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java,
# testMurmur2 (all of its cases; the keys are ASCII, so getBytes() is UTF-8).
KAFKA_UTILS_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}

# Apache Kafka, streams/src/test/java/org/apache/kafka/streams/integration/
# KTableKTableForeignKeyInnerJoinMultiIntegrationTest.java: "Partitions pre-computed
# using the default Murmur2 hash" for StringSerializer keys on a 3-partition topic.
KAFKA_STREAMS_PARTITIONS_OF_3 = {
    "0": 2, "1": 0, "2": 2, "3": 2, "4": 1, "5": 0, "6": 1, "7": 0, "8": 0, "9": 2,
}

# Apache Kafka, streams/src/test/java/.../processor/internals/RecordCollectorTest.java,
# shouldUseDefaultPartitionerViaPartitions: these 9 string keys on 3 partitions end
# with last offsets 3, 2, 1 on partitions 0, 1, 2, i.e. 4, 3 and 2 records.
KAFKA_RECORD_COLLECTOR_KEYS = ["3", "9", "27", "81", "243", "28", "82", "244", "245"]
KAFKA_RECORD_COLLECTOR_COUNTS = [4, 3, 2]

PARTITION_COUNTS = [1, 2, 3, 7, 12, 50, 100, 1000, 2**31 - 1]


def scalar_partition(key: bytes, n: int) -> int:
    """BuiltInPartitioner.partitionForKey, from the scalar reference."""
    return (murmur2_bytes(key) & 0x7FFFFFFF) % n


def random_binary(rng: random.Random, count: int, max_len: int = 300) -> List[bytes]:
    """Binary keys of lengths 0..max_len, zero bytes frequent."""
    keys = []
    for _ in range(count):
        n = rng.randint(0, max_len)
        keys.append(bytes(rng.choice((0, rng.getrandbits(8))) for _ in range(n)))
    return keys


# 1-, 2-, 3- and 4-byte UTF-8 characters, and NUL.
_CHARS = ["a", "z", "0", "9", "-", " ", "\u0000", "\u00e9", "\u00df", "\u0436", "\u20ac", "\u4e2d",
          "\u6587", "\U0001F600", "\U00010348"]


def random_strings(rng: random.Random, count: int, max_chars: int = 140) -> List[str]:
    """Strings of 0..max_chars characters; UTF-8 lengths 0..~300."""
    return ["".join(rng.choice(_CHARS) for _ in range(rng.randint(0, max_chars)))
            for _ in range(count)]


# ---------------------------------------------------------------------------
# Kafka's vectors
# ---------------------------------------------------------------------------

def test_scalar_reference_matches_kafka_utils_test():
    for key, expected in KAFKA_UTILS_VECTORS.items():
        assert murmur2_bytes(key) == expected, key


def test_vectorized_matches_kafka_utils_test():
    keys = list(KAFKA_UTILS_VECTORS)
    expected = list(KAFKA_UTILS_VECTORS.values())
    for arr in (pa.array(keys, pa.binary()), pa.array([k.decode() for k in keys], pa.string())):
        out = murmur2(arr)
        assert out.dtype == np.int32
        assert out.tolist() == expected
    # The same keys among many (the NumPy step loop, not the few-keys Python finish).
    many = keys * 20
    assert murmur2(many).tolist() == expected * 20


def test_partitions_match_kafka_streams_tests():
    keys = list(KAFKA_STREAMS_PARTITIONS_OF_3)
    assert kafka_partition(keys, 3).tolist() == list(KAFKA_STREAMS_PARTITIONS_OF_3.values())
    parts = kafka_partition(KAFKA_RECORD_COLLECTOR_KEYS, 3)
    assert np.bincount(parts, minlength=3).tolist() == KAFKA_RECORD_COLLECTOR_COUNTS


def test_matches_kafka_python():
    """kafka-python's pure-Python port of Utils.murmur2 (unsigned result), an independent oracle."""
    kp = pytest.importorskip("kafka.partitioner.default")
    rng = random.Random(7)
    keys = random_binary(rng, 300) + [k.encode() for k in random_strings(rng, 300)]
    expected = [kp.murmur2(k) - (1 << 32) if kp.murmur2(k) >= 1 << 31 else kp.murmur2(k) for k in keys]
    assert [murmur2_bytes(k) for k in keys] == expected
    assert murmur2(keys).tolist() == expected


# ---------------------------------------------------------------------------
# Vectorized == scalar
# ---------------------------------------------------------------------------

def test_random_binary_keys_every_arrow_type():
    rng = random.Random(1)
    keys = random_binary(rng, 2000)
    expected = [murmur2_bytes(k) for k in keys]
    for typ in (pa.binary(), pa.large_binary(), pa.binary_view()):
        assert murmur2(pa.array(keys, typ)).tolist() == expected, typ
    assert murmur2(keys).tolist() == expected
    assert murmur2(tuple(keys)).tolist() == expected
    assert murmur2(np.array(keys, dtype=object)).tolist() == expected
    assert murmur2(pa.chunked_array([keys[:700], keys[700:701], keys[701:]], pa.binary())).tolist() \
        == expected


def test_random_utf8_string_keys_every_input_type():
    rng = random.Random(2)
    keys = random_strings(rng, 2000)
    encoded = [k.encode("utf-8") for k in keys]
    assert max(map(len, encoded)) > 250 and any(len(set(k)) > 1 and 0 in k for k in encoded)
    expected = [murmur2_bytes(k) for k in encoded]
    for typ in (pa.string(), pa.large_string(), pa.string_view()):
        assert murmur2(pa.array(keys, typ)).tolist() == expected, typ
    assert murmur2(keys).tolist() == expected
    assert murmur2(np.array(keys, dtype=object)).tolist() == expected
    # NumPy 'U' arrays cannot hold trailing NULs (NumPy strips them), so they hash what NumPy holds.
    fixed = np.array(keys)
    assert fixed.tolist() != keys
    assert murmur2(fixed).tolist() == [murmur2_bytes(k.encode()) for k in fixed.tolist()]
    assert murmur2(fixed.astype(object)).tolist() == murmur2(fixed).tolist()
    assert murmur2(pd.Series(keys)).tolist() == expected
    assert murmur2(pd.Series(keys, dtype="string[pyarrow]")).tolist() == expected
    assert murmur2(pd.Series(keys, dtype=pd.ArrowDtype(pa.large_string()))).tolist() == expected
    assert murmur2(pa.array(keys).dictionary_encode()).tolist() == expected


def test_numpy_fixed_width_keeps_embedded_nuls():
    """pyarrow's own NumPy 'S'/'U' conversion stops at the first NUL; ours must not."""
    for keys in (["x\u0000y", "\u0000\u0000z", "c"], [b"x\x00y", b"\x00\x00z", b"c"]):
        fixed = np.array(keys)
        assert fixed.tolist() == keys
        encoded = [k.encode() if isinstance(k, str) else k for k in keys]
        assert murmur2(fixed).tolist() == [murmur2_bytes(k) for k in encoded]


def test_mixed_str_and_bytes_list():
    keys = ["abc", b"abc", "\u00e9t\u00e9", b"\xff\x00", bytearray(b"xyz1"), None]
    expected = [murmur2_bytes(b"abc"), murmur2_bytes(b"abc"), murmur2_bytes("\u00e9t\u00e9".encode()),
                murmur2_bytes(b"\xff\x00"), murmur2_bytes(b"xyz1"), NULL_HASH]
    assert murmur2(keys).tolist() == expected


def test_fixed_size_binary():
    keys = [b"\x00\x01\x02\x03\x04", b"abcde", b"\xff" * 5]
    arr = pa.array(keys, pa.binary(5))
    assert murmur2(arr).tolist() == [murmur2_bytes(k) for k in keys]


def test_sliced_arrays_use_their_offset():
    rng = random.Random(3)
    keys = random_binary(rng, 500, max_len=40)
    expected = [murmur2_bytes(k) for k in keys]
    for typ in (pa.binary(), pa.large_binary(), pa.string()):
        arr = pa.array(keys, pa.binary()).cast(typ) if typ != pa.string() else \
            pa.array([k.hex() for k in keys])
        exp = expected if typ != pa.string() else [murmur2_bytes(k.hex().encode()) for k in keys]
        for start, length in ((0, 500), (1, 10), (137, 200), (499, 1), (250, 0)):
            assert murmur2(arr.slice(start, length)).tolist() == exp[start:start + length]


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17])
def test_every_tail_length_including_at_the_buffer_end(length):
    """The tail read near the end of the data buffer (and buffers shorter than 4 bytes)."""
    key = bytes(range(1, length + 1))
    assert murmur2([key]).tolist() == [murmur2_bytes(key)]
    for n in (3, 40):                          # few keys (Python finish) and many (NumPy steps)
        keys = [bytes([i]) * (i % 6) for i in range(n)] + [key]
        assert murmur2(keys).tolist() == [murmur2_bytes(k) for k in keys]


def test_equal_length_keys():
    """All keys with the same block count: the path that skips sorting."""
    rng = random.Random(4)
    for length in (4, 8, 11, 64):
        keys = [bytes(rng.getrandbits(8) for _ in range(length)) for _ in range(300)]
        assert murmur2(keys).tolist() == [murmur2_bytes(k) for k in keys]


def test_skewed_lengths():
    """One very long key, and more long keys than the Python finish takes, among short ones."""
    rng = random.Random(5)
    short = random_binary(rng, 1000, max_len=12)
    huge = bytes(rng.getrandbits(8) for _ in range(300_003))
    keys = short[:500] + [huge] + short[500:]
    out = murmur2(keys)
    assert out[500] == murmur2_bytes(huge)
    assert out.tolist() == [murmur2_bytes(k) for k in keys]

    longs = [bytes(rng.getrandbits(8) for _ in range(rng.randint(500, 3000)))
             for _ in range(mm._SCALAR_FINISH_KEYS * 3)]
    keys = short[:100] + longs + short[100:200]
    assert murmur2(keys).tolist() == [murmur2_bytes(k) for k in keys]


def test_long_key_spanning_python_finish_chunks(monkeypatch):
    monkeypatch.setattr(mm, "_SCALAR_CHUNK_BLOCKS", 7)
    rng = random.Random(6)
    keys = [bytes(rng.getrandbits(8) for _ in range(n)) for n in (0, 3, 101, 257, 1000)]
    assert murmur2(keys).tolist() == [murmur2_bytes(k) for k in keys]


@pytest.mark.parametrize("block_keys, block_bytes", [(1, 1 << 20), (7, 1 << 20), (1000, 64), (33, 3)])
def test_keys_hashed_in_blocks(monkeypatch, block_keys, block_bytes):
    """Large inputs go through in cache-sized blocks; every boundary must be seamless."""
    monkeypatch.setattr(mm, "_BLOCK_KEYS", block_keys)
    monkeypatch.setattr(mm, "_BLOCK_BYTES", block_bytes)
    rng = random.Random(block_keys)
    keys = random_binary(rng, 300) + [None, b"", None] + random_binary(rng, 100, max_len=9)
    expected = [NULL_HASH if k is None else murmur2_bytes(k) for k in keys]
    assert murmur2(pa.array(keys, pa.binary())).tolist() == expected
    assert murmur2(pa.array(keys, pa.binary()).slice(5)).tolist() == expected[5:]


@examples(200)
@given(st.lists(st.one_of(st.binary(max_size=70), st.text(max_size=30), st.none()), max_size=60))
def test_property_vectorized_equals_scalar(keys):
    encoded = [k.encode() if isinstance(k, str) else k for k in keys]
    expected = [NULL_HASH if k is None else murmur2_bytes(k) for k in encoded]
    assert murmur2(pa.array(encoded, pa.large_binary())).tolist() == expected
    assert murmur2(keys).tolist() == expected


# ---------------------------------------------------------------------------
# Nulls and empty input
# ---------------------------------------------------------------------------

def test_null_keys():
    keys: List[Optional[str]] = ["a", None, "foobar", None, "", "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"]
    h = murmur2(pa.array(keys))
    expected = [NULL_HASH if k is None else murmur2_bytes(k.encode()) for k in keys]
    assert h.tolist() == expected
    p = kafka_partition(pa.array(keys), 7)
    assert p.dtype == np.int32
    assert p.tolist() == [NULL_PARTITION if k is None else scalar_partition(k.encode(), 7) for k in keys]
    assert kafka_partition(keys, 7).tolist() == p.tolist()
    assert kafka_partition(pd.Series(keys), 7).tolist() == p.tolist()


def test_empty_key_is_hashed_not_null():
    assert murmur2([b""]).tolist() == [murmur2_bytes(b"")]
    assert kafka_partition([b""], 5).tolist() == [scalar_partition(b"", 5)]
    assert kafka_partition([b""], 5).tolist() != [NULL_PARTITION]


def test_null_slot_spanning_bytes_is_not_read():
    """Arrow lets a null slot own bytes; they must not leak into any hash."""
    data = b"abcXXXXde"
    offsets = np.array([0, 3, 7, 9], dtype=np.int32)
    validity = pa.py_buffer(bytes([0b101]))
    arr = pa.Array.from_buffers(pa.binary(), 3, [validity, pa.py_buffer(offsets), pa.py_buffer(data)])
    assert arr.to_pylist() == [b"abc", None, b"de"]
    assert murmur2(arr).tolist() == [murmur2_bytes(b"abc"), NULL_HASH, murmur2_bytes(b"de")]
    assert kafka_partition(arr, 4).tolist() == [scalar_partition(b"abc", 4), NULL_PARTITION,
                                                scalar_partition(b"de", 4)]


def test_all_null_and_empty_inputs():
    for arr in (pa.array([None, None]), pa.array([None, None], pa.string()), [None, None]):
        assert murmur2(arr).tolist() == [NULL_HASH, NULL_HASH]
        assert kafka_partition(arr, 3).tolist() == [NULL_PARTITION, NULL_PARTITION]
    for arr in (pa.array([], pa.binary()), [], pa.chunked_array([], pa.string())):
        out = murmur2(arr)
        assert out.dtype == np.int32 and len(out) == 0
        out = kafka_partition(arr, 3)
        assert out.dtype == np.int32 and len(out) == 0


# ---------------------------------------------------------------------------
# Partitions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("num_partitions", PARTITION_COUNTS)
def test_partitions_of_string_keys(num_partitions):
    rng = random.Random(num_partitions)
    keys = random_strings(rng, 500) + [f"user-{i}" for i in range(500)]
    expected = [scalar_partition(k.encode(), num_partitions) for k in keys]
    for arg in (num_partitions, np.int64(num_partitions), pa.scalar(num_partitions, pa.int32())):
        out = kafka_partition(pa.array(keys), arg)
        assert out.dtype == np.int32
        assert out.tolist() == expected
    assert all(0 <= p < num_partitions for p in expected)


def test_partitions_cover_all_with_many_keys():
    out = kafka_partition([f"key-{i}" for i in range(10_000)], 12)
    assert np.bincount(out, minlength=12).min() > 600          # roughly uniform over 12


def test_partition_count_per_key():
    rng = random.Random(9)
    keys = random_strings(rng, 300)
    counts = [rng.choice(PARTITION_COUNTS) for _ in keys]
    expected = [scalar_partition(k.encode(), n) for k, n in zip(keys, counts)]
    assert kafka_partition(keys, counts).tolist() == expected
    assert kafka_partition(keys, np.array(counts, dtype=np.int64)).tolist() == expected
    assert kafka_partition(keys, pa.array(counts, pa.int32())).tolist() == expected
    assert kafka_partition(keys, pd.Series(counts, dtype="float64")).tolist() == expected


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [0, -1, -(2**31), None, 2**31, True, False, 2.0, 2.5, "3",
                                 np.int32(0), pa.scalar(None, pa.int32()), np.array(0)])
def test_bad_num_partitions(bad):
    with pytest.raises(InvalidInputError) as info:
        kafka_partition(["a", "b"], bad)
    err = info.value
    assert err.column == "num_partitions"
    shown = bad.as_py() if isinstance(bad, pa.Scalar) else bad.item() if isinstance(bad, np.ndarray) else bad
    assert repr(shown) in str(err)
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("counts, row, shown", [
    ([3, 0, 4], 1, "0"),
    ([3, None, 4], 1, "None"),
    ([3, 4, -2], 2, "-2"),
    ([3.0, math.nan, 4.0], 1, "None"),
    ([3.0, 2.5, 4.0], 1, "2.5"),
    ([3, 4, 2**31], 2, str(2**31)),
])
def test_bad_num_partitions_per_key(counts, row, shown):
    with pytest.raises(InvalidInputError) as info:
        kafka_partition(["a", "b", "c"], counts)
    assert info.value.column == "num_partitions"
    assert f"got {shown} at row {row}" in str(info.value)


def test_num_partitions_length_mismatch_and_type():
    with pytest.raises(InvalidInputError, match="2 values for 3 keys"):
        kafka_partition(["a", "b", "c"], [3, 4])
    with pytest.raises(InvalidInputError, match="must be integers, got string"):
        kafka_partition(["a", "b"], ["3", "4"])


def test_bad_keys():
    with pytest.raises(InvalidInputError, match="binary or string, got int64") as info:
        murmur2(pa.array([1, 2, 3]))
    assert info.value.column == "key"
    with pytest.raises(InvalidInputError, match="bytes, str or None") as info:
        murmur2(["a", 3, b"c"])
    assert info.value.rows == [(1, 3)]
    with pytest.raises(InvalidInputError, match="single bytes"):
        murmur2(b"abc")
    with pytest.raises(InvalidInputError, match="single str"):
        kafka_partition("abc", 3)
    with pytest.raises(InvalidInputError, match="needs bytes, got str"):
        murmur2_bytes("abc")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="one-dimensional"):
        murmur2(np.array([[b"a"], [b"b"]], dtype=object))

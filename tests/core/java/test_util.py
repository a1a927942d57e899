"""The Java behaviours Kafka's exact output depends on, against values printed by a real JVM."""

from spark_assign.core.java.util import (
    JavaHashSet,
    hashmap_order,
    java_sorted,
    java_string_hash,
    java_string_hashes,
    topic_partition_hash,
)

# Printed by OpenJDK 17: String.hashCode().
JAVA_HASHES = {
    "consumer1": -421004549,
    "consumer2": -421004548,
    "consumer3": -421004547,
    "consumer": -567770122,
    "h\u00e9llo": 103094734,
    "\U0001F600x": 54959989,
    "C0": 2125,
    "a": 97,
    "zz": 3904,
}

# Printed by OpenJDK 17: keySet() of a new HashMap<>() filled in sorted order.
JAVA_ORDER_13 = ("consumer-11,consumer-10,consumer-6,consumer-5,consumer-4,consumer-3,consumer-2,"
                 "consumer-1,consumer-12,consumer-0,consumer-9,consumer-8,consumer-7").split(",")
JAVA_ORDER_30 = ("consumer-11,consumer-10,consumer-17,consumer-6,consumer-16,consumer-5,consumer-19,"
                 "consumer-4,consumer-18,consumer-3,consumer-13,consumer-2,consumer-1,consumer-12,"
                 "consumer-0,consumer-15,consumer-14,consumer-20,consumer-22,consumer-21,consumer-28,"
                 "consumer-27,consumer-29,consumer-24,consumer-23,consumer-26,consumer-25,consumer-9,"
                 "consumer-8,consumer-7").split(",")
JAVA_ORDER_100_PREFIX = ("consumer-53,consumer-52,consumer-55,consumer-54,consumer-51,consumer-50,"
                         "consumer-6,consumer-5,consumer-4,consumer-3,consumer-2,consumer-57,consumer-1,"
                         "consumer-56,consumer-0,consumer-59,consumer-58,consumer-64").split(",")


def test_string_hash_matches_java():
    for s, h in JAVA_HASHES.items():
        assert java_string_hash(s) == h, s


def test_vectorized_hashes_match_scalar():
    names = [f"c{i:04d}" for i in range(500)] + ["x"]
    assert java_string_hashes(names) == [java_string_hash(s) for s in names]
    same_width = [f"m{i:05d}" for i in range(300)]
    assert java_string_hashes(same_width) == [java_string_hash(s) for s in same_width]


def _java_order(n):
    keys = sorted(f"consumer-{i}" for i in range(n))
    return [keys[i] for i in hashmap_order([java_string_hash(k) for k in keys])]


def test_hashmap_order_matches_java():
    assert _java_order(3) == ["consumer-2", "consumer-1", "consumer-0"]
    assert _java_order(13) == JAVA_ORDER_13
    assert _java_order(30) == JAVA_ORDER_30
    assert _java_order(100)[:len(JAVA_ORDER_100_PREFIX)] == JAVA_ORDER_100_PREFIX


def test_java_string_order_uses_utf16_code_units():
    # Java sorts the surrogate pair of U+1F600 (0xD83D...) before U+FFFF; Python would not.
    assert java_sorted(["z\U0001F600", "z\uffff", "za"]) == ["za", "z\U0001F600", "z\uffff"]


def test_small_table_resizes_when_a_bucket_fills():
    # Nine keys in one bucket of a 16-bucket table make Java resize (treeifyBin on a small table).
    hashes = [16 * i for i in range(9)]     # all in bucket 0 of 16; split at 32 and 64
    order = hashmap_order(hashes)
    # Capacity is now 32: even multiples of 16 (bucket 0) iterate before odd ones (bucket 16).
    assert order == [0, 2, 4, 6, 8, 1, 3, 5, 7]


def test_java_hash_set_first_follows_buckets_then_insertion():
    s = JavaHashSet()
    s.add("b", 17)
    s.add("a", 1)
    assert s.first() == "b"          # both in bucket 1; "b" was inserted first
    s.remove("b")
    s.add("b", 17)
    assert s.first() == "a"          # re-added elements go to the end of their bucket
    assert topic_partition_hash(java_string_hash("t"), 0) == 31 * 31 + java_string_hash("t")

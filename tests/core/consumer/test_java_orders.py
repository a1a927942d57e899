"""Java orderings that decide Kafka's exact output, each on a case where getting it wrong shows.

The expected outputs are Apache Kafka's (its ``RangeAssignor`` and 4.1's
``UniformHomogeneousAssignmentBuilder``), run on the same inputs.
"""

import base64

import pytest

from spark_assign.core import Member, assign, strategy_names
from spark_assign.core.java.util import hash_spread, java_sort_key, java_sorted, java_string_hash


def bucket(name: str, capacity: int) -> int:
    return hash_spread(java_string_hash(name)) & (capacity - 1)


def topic_id(lsb: int, msb: int = 0) -> str:
    """A Kafka topic ``Uuid`` (base64, as ``Uuid.toString``); its ``hashCode`` is ``lsb`` when ``msb`` is 0."""
    return base64.urlsafe_b64encode(msb.to_bytes(8, "big") + lsb.to_bytes(8, "big")).decode().rstrip("=")


# ------------------------------------------------------------------ String.compareTo


def test_sort_key_compares_ascii_with_non_ascii():
    names = ["t", "主题", "a", "\U0001F600", "\uffff", "é"]
    assert sorted(names, key=java_sort_key) == ["a", "t", "é", "主题", "\U0001F600", "\uffff"]
    assert java_sorted(names) == sorted(names, key=java_sort_key)


def test_astral_characters_sort_as_their_surrogates():
    """Java compares UTF-16 units: U+1F600 is D83D DE00, below U+FFFF; Python's code points disagree."""
    assert sorted(["\uffff", "\U0001F600"]) == ["\uffff", "\U0001F600"]
    assert java_sorted(["\uffff", "\U0001F600"]) == ["\U0001F600", "\uffff"]


@pytest.mark.parametrize("strategy", strategy_names())
def test_every_strategy_takes_mixed_ascii_and_non_ascii_names(strategy):
    members = [Member("a", topics=["t", "主题"]), Member("b", topics=["t", "主题"]), Member("é", topics=["t"])]
    result = assign(members, {"t": 2, "主题": 2}, strategy)
    got = sorted(tp for parts in result.assignment.values() for tp in parts)
    assert got == [("t", 0), ("t", 1), ("主题", 0), ("主题", 1)] or strategy == "cooperative-sticky"


# ------------------------------------------------------------------ RangeAssignor's partitionsPerTopic


def test_range_lists_topics_in_first_met_order_within_a_bucket():
    """t9 and t11 share a bucket; c86 (first in HashMap order) meets t9 first, so Kafka lists
    c50's t9 partition before t11's although "t11" < "t9"."""
    assert bucket("t9", 16) == bucket("t11", 16)
    members = [Member("c50", topics=["t9", "t11"]), Member("c86", topics=["t9"])]
    result = assign(members, {"t9": 1, "t11": 1}, "range")
    assert result.assignment == {"c50": [("t9", 0), ("t11", 0)], "c86": []}


def test_range_sizes_the_subscribed_set_with_missing_topics():
    """Kafka's set of subscribed names holds missing topics too: 13 names make it 32 buckets, where
    t70 iterates before t0; the map of topics with partitions (2, 16 buckets) keeps that order."""
    assert bucket("t0", 16) == bucket("t70", 16) and bucket("t70", 32) < bucket("t0", 32)

    def listed(missing: int):
        m = Member("m", topics=["t0", "t70"] + [f"gone{i}" for i in range(missing)])
        return assign([m], {"t0": 1, "t70": 1}, "range").assignment["m"]

    assert listed(10) == [("t0", 0), ("t70", 0)]
    assert listed(11) == [("t70", 0), ("t0", 0)]


# ------------------------------------------------------------------ uniform: what an over-quota member keeps


def test_uniform_keeps_an_over_quota_members_partitions_in_its_hash_set_order():
    """c5's set of 6 partitions has 16 buckets: 16, 17 (buckets 0, 1), 2, 18 (bucket 2), 9, 15.
    Its quota is 5, so Kafka keeps the first five and revokes 15 (not 18, the highest)."""
    members = [Member(m, topics=["t1"]) for m in ("c1", "c2", "c3")]
    members.append(Member("c5", topics=["t1"], owned=[("t1", p) for p in (2, 9, 15, 16, 17, 18)]))
    result = assign(members, {"t1": 19}, "uniform")
    assert sorted(p for _, p in result.assignment["c5"]) == [2, 9, 16, 17, 18]


def test_uniform_keeps_the_lowest_while_partitions_stay_below_the_buckets():
    members = [Member("c1", topics=["t"]), Member("c2", topics=["t"], owned=[("t", p) for p in range(10)])]
    result = assign(members, {"t": 10}, "uniform")
    assert sorted(p for _, p in result.assignment["c2"]) == [0, 1, 2, 3, 4]


def test_uniform_needs_no_id_for_a_missing_topic():
    ids = {"a": "AAAAAAAAAAAAAAAAAAAAAA", "b": "AAAAAAAAAAAAAAAAAAAAAQ"}
    members = [Member(m, topics=["a", "b", "gone"]) for m in ("c1", "c2")]
    result = assign(members, {"a": 2, "b": 2}, "uniform", topic_ids=ids)
    assert sum(len(v) for v in result.assignment.values()) == 4


# ------------------------------------------------------------------ uniform: the broker's set of subscribed topic ids


def test_uniform_orders_ids_in_one_bucket_as_the_brokers_set_of_names_iterates():
    """The ids of b and q hash to 2 and 18: one bucket of 16. The broker fills its set of ids from
    its HashSet of names, which iterates q (bucket 1) before b (bucket 2), so q's partition is
    dealt first, although "b" < "q"."""
    assert bucket("q", 16) < bucket("b", 16)
    members = [Member(m, topics=["b", "q"]) for m in ("c1", "c2")]
    ids = {"b": topic_id(2), "q": topic_id(18)}
    result = assign(members, {"b": 1, "q": 1}, "uniform", topic_ids=ids)
    assert result.assignment == {"c1": [("q", 0)], "c2": [("b", 0)]}


@pytest.mark.parametrize("missing, first", [(9, "a"), (10, "b")])
def test_uniform_sizes_the_set_of_ids_with_missing_names(missing, first):
    """Ids hashing to 17 (a) and 2 (b) iterate a first in 16 buckets, b first in 32. The broker's
    set is as large as the subscribed names, missing ones included: 11 names keep 16 buckets,
    12 make 32, although only a and b exist."""
    members = [Member(m, topics=["a", "b"] + [f"gone{i}" for i in range(missing)]) for m in ("c1", "c2")]
    ids = {"a": topic_id(17), "b": topic_id(2)}
    result = assign(members, {"a": 1, "b": 1}, "uniform", topic_ids=ids)
    assert result.assignment["c1"] == [(first, 0)]


@pytest.mark.parametrize("others, kept", [(10, "a"), (11, "b")])
def test_uniform_sizes_an_over_quota_members_map_with_every_topic_it_holds(others, kept):
    """c1 holds a-0 and b-0 (ids hashing to 17 and 2) with a quota of 1, plus one partition of
    each of ``others`` topics it no longer subscribes to. Its assignment map holds them all: 12
    topics keep 16 buckets (a first, kept), 13 grow it to 32 (b first, kept)."""
    unsubscribed = [f"u{i}" for i in range(others)]
    topics = {"a": 1, "b": 1, **{u: 1 for u in unsubscribed}}
    ids = {"a": topic_id(17), "b": topic_id(2), **{u: topic_id(100 + i, 1) for i, u in enumerate(unsubscribed)}}
    members = [Member("c1", topics=["a", "b"], owned=[("a", 0), ("b", 0)] + [(u, 0) for u in unsubscribed]),
               Member("c2", topics=["a", "b"])]
    result = assign(members, topics, "uniform", topic_ids=ids)
    assert result.assignment["c1"] == [(kept, 0)]

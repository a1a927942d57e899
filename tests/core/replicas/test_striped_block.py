"""The placer's stretches computed as arrays (``replica_striped_block``) equal Kafka's walk
partition by partition (``RackList.place``), for any cluster, seed and split into calls."""

import numpy as np
from hypothesis import given, strategies as st
from ...budget import examples

from spark_assign.core.java.random import JavaRandom
from spark_assign.core.replicas.striped import RackList
from spark_assign.errors import InvalidInputError


@st.composite
def clusters(draw):
    """Brokers as the controller hands them over: sparse ids, 0-6 racks (none: one rack of
    ``None``) with non-ASCII names, some fenced, in any order."""
    racks = draw(st.integers(0, 6))
    names = draw(st.lists(st.text(min_size=1, max_size=12), min_size=racks, max_size=racks, unique=True))
    ids = iter(draw(st.lists(st.integers(0, 2**31 - 1), min_size=40, max_size=40, unique=True)))
    brokers = []
    for name in names or [None]:
        for _ in range(draw(st.integers(1, 6))):
            brokers.append((next(ids), name, draw(st.booleans()) and draw(st.booleans())))
    return draw(st.permutations(brokers))


@examples(300)
@given(clusters(), st.integers(1, 6), st.integers(0, 90), st.integers(-2**63, 2**63 - 1),
       st.lists(st.integers(1, 30), min_size=1, max_size=8))
def test_stretches_equal_the_walk(brokers, replication_factor, partitions, seed, calls):
    walk = RackList(JavaRandom(seed), brokers)
    try:
        walk.check(replication_factor)
    except InvalidInputError:
        return
    expected = [walk.place(replication_factor) for _ in range(partitions)]
    assert RackList(JavaRandom(seed), brokers).place_many(partitions, replication_factor).tolist() == expected
    pieces, rack_list, done = [], RackList(JavaRandom(seed), brokers), 0
    for size in calls * (partitions // sum(calls) + 1):
        take = min(size, partitions - done)
        pieces += rack_list.place_many(take, replication_factor).tolist()
        done += take
    assert pieces == expected
    assert (rack_list.epoch, rack_list.offset) == (walk.epoch, walk.offset)


def test_a_large_cluster_reshuffles_as_the_walk_does():
    brokers = [(i, f"rack-{i % 7}", i % 13 == 0) for i in range(60)]
    walk = RackList(JavaRandom(11), brokers)
    expected = np.array([walk.place(3) for _ in range(500)])
    assert (RackList(JavaRandom(11), brokers).place_many(500, 3) == expected).all()

"""``place_topics``: a cluster's topics placed together give, topic by topic, what ``place_replicas`` gives.

The batched ``admin-utils`` and ``striped`` paths (vectorized first draws, one
walk per replication factor, one placer run per distinct set of draws) are
compared with the per-topic engine on random clusters (hypothesis: 1-60
brokers on 0-8 racks, fenced ones, topics of 0-60 partitions, including more
partitions than unfenced brokers, where the striped placer reshuffles) and on
errors, which must name the topics at fault.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import Broker, place_replicas
from spark_assign.core.java.random import JavaRandom, next_int_many, random_states
from spark_assign.core.replicas.fleet import place_topics, replica_status, topic_seed
from spark_assign.errors import InvalidInputError

from ..consumer.strategies import clusters, names

SETTINGS = examples(60)


def per_topic(brokers, topics, counts, factors, cluster_id, method, seed, start_index=None, previous=None):
    """The rows, topic by topic, as the engine places each alone."""
    rows = []
    for t, (name, count, rf) in enumerate(zip(topics, counts, factors)):
        placed = place_replicas(brokers, count, rf, method=method, start_index=start_index,
                                seed=topic_seed(seed, cluster_id, name))
        before = previous[t] if previous is not None else None
        status = replica_status(placed.broker_ids, before)
        for p, replicas in enumerate(placed.replicas):
            rows += [(t, p, i, b, int(status[p, i])) for i, b in enumerate(replicas)]
    return rows


def fleet_rows(placed):
    return list(zip(placed.topic.tolist(), placed.partition.tolist(), placed.replica_index.tolist(),
                    placed.broker_id.tolist(), placed.status.tolist()))


@SETTINGS
@given(clusters(fenced=True), st.data())
def test_a_cluster_placed_together_matches_each_topic_alone(brokers, data):
    method = data.draw(st.sampled_from(["striped", "admin-utils"]))
    usable = [b for b in brokers if not b.fenced] if method == "admin-utils" else brokers
    assume(usable and any(not b.fenced for b in brokers))
    if method == "admin-utils" and {b.rack is None for b in usable} == {True, False}:
        brokers = [Broker(b.id, fenced=b.fenced) for b in brokers]            # enforced: all or none racked
    topics = data.draw(names(40))
    counts = data.draw(st.lists(st.integers(0, 60), min_size=len(topics), max_size=len(topics)))
    factors = data.draw(st.lists(st.integers(1, min(5, len(usable))), min_size=len(topics), max_size=len(topics)))
    cluster_id = data.draw(st.sampled_from([None, "prod-é", "集群-1"]))
    seed = data.draw(st.integers(-2**63, 2**63 - 1))
    start_index = data.draw(st.sampled_from([None, 0, 3])) if method == "admin-utils" else None
    placed = place_topics(brokers, topics, counts, factors, cluster_id=cluster_id, method=method, seed=seed,
                          start_index=start_index)
    assert fleet_rows(placed) == per_topic(brokers, topics, counts, factors, cluster_id, method, seed, start_index)


def test_striped_topics_longer_than_the_unfenced_brokers_reshuffle_as_alone():
    brokers = [Broker(i, rack=f"r{i % 3}", fenced=i == 4) for i in range(7)]
    topics = [f"t{i}" for i in range(30)]
    counts = [1, 6, 7, 40] * 7 + [0, 2]
    factors = [3] * 30
    placed = place_topics(brokers, topics, counts, factors, cluster_id="c", method="striped", seed=5)
    assert fleet_rows(placed) == per_topic(brokers, topics, counts, factors, "c", "striped", 5)


def test_status_against_previous_placements():
    brokers = [Broker(i) for i in range(4)]
    previous = [np.array([[0, 1], [-1, -1]]), None]
    placed = place_topics(brokers, ["a", "b"], [2, 1], [2, 2], method="admin-utils", start_index=0, previous=previous)
    assert fleet_rows(placed) == per_topic(brokers, ["a", "b"], [2, 1], [2, 2], None, "admin-utils", 0, 0, previous)
    assert placed.status.tolist() == [1, 1, 0, 0, 0, 0]          # partition 0 kept, the others new


def test_sticky_reassigns_each_topic():
    brokers = [Broker(i) for i in range(4)]
    previous = [np.array([[0, 1], [1, 2], [2, 9]]), None]
    placed = place_topics(brokers, ["a", "b"], [3, 2], [2, 2], method="sticky", previous=previous)
    alone = place_replicas(brokers, 3, 2, method="sticky", previous=[[0, 1], [1, 2], [2, 9]])
    assert placed.broker_id[:6].reshape(3, 2).tolist() == alone.replicas
    assert placed.status[:6].reshape(3, 2)[:2].tolist() == [[1, 1], [1, 1]]


@pytest.mark.parametrize("method", ["striped", "admin-utils", "sticky"])
def test_errors_name_the_topics_and_the_cluster(method):
    brokers = [Broker(0), Broker(1)]
    with pytest.raises(InvalidInputError) as info:
        place_topics(brokers, ["ok", "big", "bigger"], [1, 1, 1], [1, 3, 4], cluster_id="c1", method=method,
                     previous=[None] * 3 if method == "sticky" else None)
    assert info.value.column == "replication_factor" and info.value.rows == ["big", "bigger"]
    assert info.value.group == "c1" and "topic 'big' of cluster 'c1'" in str(info.value)
    with pytest.raises(InvalidInputError) as info:
        place_topics(brokers, ["ok", "zero"], [1, 1], [1, 0], cluster_id="c1", method=method)
    assert info.value.column == "replication_factor" and info.value.rows == ["zero"]
    with pytest.raises(InvalidInputError) as info:
        place_topics(brokers, ["ok", "minus"], [1, -2], [1, 1], method=method)
    assert info.value.column == "num_partitions" and info.value.rows == ["minus"]


@pytest.mark.parametrize("method", ["admin-utils", "sticky"])
def test_partly_racked_brokers_name_the_rack_column_given(method):
    brokers = [Broker(0, rack="a"), Broker(1), Broker(2, rack="b"), Broker(3)]
    with pytest.raises(InvalidInputError, match="some brokers have a rack") as info:
        place_topics(brokers, ["t"], [1], [1], cluster_id="c", method=method, rack_column="rack",
                     previous=[None] if method == "sticky" else None)
    assert info.value.column == "rack" and info.value.rows == [1, 3] and info.value.group == "c"


def test_vectorized_draws_match_java_random():
    seeds = np.array([0, 42, -1, 2**63 - 1, -2**63] + list(range(1000, 3000)), dtype=np.int64)
    for bound in (1, 6, 16, 2**30 + 1, 2**31 - 1):
        states = random_states(seeds)
        first, states = next_int_many(states, bound)
        second, _ = next_int_many(states, bound)
        for s, a, b in zip(seeds.tolist(), first.tolist(), second.tolist()):
            rnd = JavaRandom(s)
            assert (rnd.next_int(bound), rnd.next_int(bound)) == (a, b)


def test_a_method_without_a_batched_form_draws_from_each_topics_seed():
    """A method registered by a user is placed topic by topic, each with its topic_seed.
    Registered for the rest of the session under a name no other test uses."""
    from spark_assign.core.replicas.striped import place_striped
    from spark_assign.core.replicas.api import ReplicaMethod, register_replica_method

    register_replica_method(ReplicaMethod("test-striped-by-topic", lambda request: place_striped(request)))
    brokers = [Broker(i, rack=f"r{i % 2}") for i in range(5)]
    placed = place_topics(brokers, ["a", "b", "c"], [3, 7, 0], [2, 3, 1], cluster_id="c",
                          method="test-striped-by-topic", seed=11)
    assert fleet_rows(placed) == per_topic(brokers, ["a", "b", "c"], [3, 7, 0], [2, 3, 1], "c", "striped", 11)

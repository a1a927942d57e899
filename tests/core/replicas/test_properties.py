"""Property-based tests of replica placement on random clusters (:func:`.strategies.clusters`).

1-60 brokers on 0-8 racks, some without a rack, some fenced; RF 1-5; 1-2000
partitions; random Java seeds. What Kafka guarantees, and what its tests
(``RackAwareTest.checkReplicaDistribution``) assert:

* validity: a partition's replicas are distinct known brokers; leaders are unfenced;
* racks: a partition's replicas span ``min(RF, racks)`` racks (no rack counts as one for the
  striped placer, which places on it like any other);
* balance: ``admin-utils`` deals leaders round-robin (max - min <= 1 per broker). On equal
  racks (or none) each replica column is a bijection over every full round of ``n`` partitions,
  so only the two partial rounds, first and last, unbalance a follower column, by one each:
  replicas max - min <= 2 RF - 1, and 0 over full rounds from partition 0, as Kafka's tests assert.
  ``striped`` on one rack hands every unfenced broker out once per ``n`` partitions: leaders
  max - min <= 1, replicas <= RF. (Across racks it balances racks, not brokers: Kafka's own
  placement can give one broker 20% more leaders than another; we match it, see the oracle cases.)
"""

from __future__ import annotations


import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import Broker, ReplicaPlacement, place_replicas

from ..consumer.strategies import clusters

SETTINGS = examples(60)
METHODS = st.sampled_from(["admin-utils", "striped"])
SEEDS = st.integers(-2**63, 2**63 - 1)


def spread(counts: dict) -> int:
    values = np.array(list(counts.values()))
    return int(values.max() - values.min())


def check_valid(result: ReplicaPlacement, brokers, rf: int, count: int) -> None:
    known = {b.id: b for b in brokers}
    assert result.broker_ids.shape == (count, rf)
    for replicas in result.replicas:
        assert len(set(replicas)) == rf, replicas
        assert set(replicas) <= set(known)
    assert not any(known[b].fenced for b in result.leaders.tolist())


def rack_counts(result: ReplicaPlacement, brokers) -> list:
    rack = {b.id: b.rack for b in brokers}
    return [len({rack[b] for b in replicas}) for replicas in result.replicas]


@SETTINGS
@given(clusters(fenced=True), METHODS, st.integers(1, 5), st.integers(1, 2000), SEEDS)
def test_every_placement_is_valid_and_spreads_racks(brokers, method, rf, count, seed):
    usable = [b for b in brokers if not b.fenced] if method == "admin-utils" else brokers
    assume(rf <= len(usable) and any(not b.fenced for b in brokers))
    result = place_replicas(brokers, count, rf, method=method, seed=seed, rack_aware="safe"
                            if method == "admin-utils" else None)
    check_valid(result, brokers, rf, count)
    if method == "admin-utils":
        assert not any(b.fenced for b in brokers if b.id in set(result.broker_ids.ravel().tolist()))
    racks = {b.rack for b in usable}
    if method == "striped" or None not in racks:            # admin-utils 'safe' ignores partial racks
        assert rack_counts(result, brokers) == [min(rf, len(racks))] * count


@SETTINGS
@given(clusters(rackless=False), st.integers(1, 5), st.integers(1, 2000), SEEDS, st.integers(0, 200))
def test_admin_utils_deals_leaders_round_robin(brokers, rf, count, seed, start):
    assume(rf <= len(brokers))
    result = place_replicas(brokers, count, rf, method="admin-utils", seed=seed, start_partition=start)
    check_valid(result, brokers, rf, count)
    assert spread(result.leaders_per_broker()) <= 1


@SETTINGS
@given(clusters(even_racks=True), st.integers(1, 5), st.integers(1, 2000), SEEDS, st.integers(0, 200))
def test_admin_utils_balances_replicas_on_even_racks(brokers, rf, count, seed, start):
    n = len(brokers)
    assume(rf <= n)
    result = place_replicas(brokers, count, rf, method="admin-utils", seed=seed, start_partition=start)
    assert spread(result.replicas_per_broker()) <= 2 * rf - 1
    rounds = place_replicas(brokers, n * (count // n + 1), rf, method="admin-utils", seed=seed)
    assert set(rounds.leaders_per_broker().values()) == {count // n + 1}
    assert set(rounds.replicas_per_broker().values()) == {rf * (count // n + 1)}


@SETTINGS
@given(clusters(max_racks=1, rackless=False), st.integers(1, 5), st.integers(1, 2000), SEEDS)
def test_striped_balances_brokers_on_one_rack(brokers, rf, count, seed):
    assume(rf <= len(brokers))
    result = place_replicas(brokers, count, rf, method="striped", seed=seed)
    check_valid(result, brokers, rf, count)
    assert spread(result.leaders_per_broker()) <= 1
    assert spread(result.replicas_per_broker()) <= rf


@SETTINGS
@given(clusters(max_racks=1, rackless=False, fenced=True), st.integers(1, 5), st.integers(1, 300), SEEDS)
def test_striped_uses_fenced_brokers_only_when_it_must(brokers, rf, count, seed):
    unfenced = sum(not b.fenced for b in brokers)
    assume(1 <= unfenced and rf <= len(brokers))
    result = place_replicas(brokers, count, rf, method="striped", seed=seed)
    fenced_used = {b.id for b in brokers if b.fenced} & set(result.broker_ids.ravel().tolist())
    if rf <= unfenced:
        assert not fenced_used
    else:
        assert all(len(set(r) & fenced_used) == rf - unfenced for r in result.replicas)


@SETTINGS
@given(clusters(fenced=True), METHODS, st.integers(1, 3), st.integers(0, 300), SEEDS, st.integers(0, 1000))
def test_a_seed_gives_the_same_placement_again(brokers, method, rf, count, seed, start):
    usable = [b for b in brokers if not b.fenced]
    assume(usable and rf <= len(usable))
    options = dict(method=method, seed=seed, start_partition=start, rack_aware="disabled")
    first = place_replicas(brokers, count, rf, **options)
    assert place_replicas(list(brokers), count, rf, **options).replicas == first.replicas
    assert first.partitions.tolist() == list(range(start, start + count))
    if method == "striped":        # Kafka's placer ignores the start partition
        assert place_replicas(brokers, count, rf, **dict(options, start_partition=0)).replicas == first.replicas


@SETTINGS
@given(clusters(rackless=False), st.integers(1, 4), st.integers(1, 500), SEEDS)
def test_admin_utils_ignores_the_order_brokers_come_in(brokers, rf, count, seed):
    assume(rf <= len(brokers))
    forward = place_replicas(brokers, count, rf, method="admin-utils", seed=seed)
    backward = place_replicas(list(reversed(brokers)), count, rf, method="admin-utils", seed=seed)
    assert forward.replicas == backward.replicas


def test_one_broker_one_replica():
    for method in ("admin-utils", "striped"):
        result = place_replicas([Broker(7)], 3, 1, method=method, seed=1)
        assert result.replicas == [[7], [7], [7]]

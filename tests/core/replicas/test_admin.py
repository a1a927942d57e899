"""``AdminUtils.assignReplicasToBrokers``: Kafka's ``AdminRackAwareTest`` (with ``RackAwareTest``'s
``checkReplicaDistribution``) and ``AdminZkClientTest.testGetBrokerMetadatas``, under Kafka's test names.

Where Kafka's test leaves the start index to its unseeded ``Random``, we check
every seed in ``SEEDS``. Where Kafka only checks properties of a placement with
a fixed start index, we also assert the exact placement Kafka's own class
printed for it (apache/kafka@1eb7644, run locally).
"""

from typing import Dict, List, Optional

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ...budget import examples

from spark_assign.core import Broker, ReplicaPlacement, place_replicas
from spark_assign.core.replicas.admin import (admin_brokers, rack_alternated_broker_list, rack_aware_walk,
                                             rack_aware_walk_small)
from spark_assign.errors import InvalidInputError

SEEDS = range(40)


def brokers_of(racks: Dict[int, Optional[str]]) -> List[Broker]:
    return [Broker(b, rack=r) for b, r in racks.items()]


def admin(racks: Dict[int, Optional[str]], partitions: int, rf: int, start_index: Optional[int] = None,
          start_partition: int = 0, seed: Optional[int] = None, **options) -> ReplicaPlacement:
    return place_replicas(brokers_of(racks), partitions, rf, method="admin-utils", start_index=start_index,
                          start_partition=start_partition, seed=seed, **options)


def check_replica_distribution(result: ReplicaPlacement, racks: Dict[int, str], num_brokers: int,
                               num_partitions: int, rf: int, verify_rack_aware: bool = True,
                               verify_leader_distribution: bool = True,
                               verify_replicas_distribution: bool = True) -> None:
    """Kafka's ``RackAwareTest.checkReplicaDistribution``."""
    for replicas in result.replicas:
        assert len(set(replicas)) == len(replicas), "more than one replica of a partition on one broker"
    if verify_rack_aware:
        assert [len({racks[b] for b in replicas}) for replicas in result.replicas] == [rf] * num_partitions, \
            "more than one replica of a partition in one rack"
    if verify_leader_distribution:
        assert list(result.leaders_per_broker().values()) == [num_partitions // num_brokers] * num_brokers, \
            "preferred leader count is not even for brokers"
    if verify_replicas_distribution:
        assert list(result.replicas_per_broker().values()) == [num_partitions * rf // num_brokers] * num_brokers, \
            "replica count is not even for brokers"


def as_map(result: ReplicaPlacement) -> Dict[int, List[int]]:
    return dict(zip(result.partitions.tolist(), result.replicas))


# ---------------------------------------------------------------------------- AdminRackAwareTest

SIX = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}


def test_get_rack_alternated_broker_list_and_assign_replicas_to_brokers():
    rack_map = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
    assert rack_alternated_broker_list(rack_map) == [0, 3, 1, 5, 4, 2]
    assert rack_alternated_broker_list({b: r for b, r in rack_map.items() if b != 5}) == [0, 3, 1, 4, 2]
    assert as_map(admin(rack_map, 7, 3, start_index=0, start_partition=0)) == {
        0: [0, 3, 1], 1: [3, 1, 5], 2: [1, 5, 4], 3: [5, 4, 2], 4: [4, 2, 0], 5: [2, 0, 3], 6: [0, 4, 2]}


def test_assignment_with_rack_aware():
    result = admin(SIX, 6, 3, start_index=2)
    check_replica_distribution(result, SIX, 6, 6, 3)
    assert result.replicas == [[3, 2, 0], [5, 4, 1], [2, 0, 3], [4, 1, 5], [0, 3, 2], [1, 5, 4]]   # Kafka's


@pytest.mark.parametrize("seed", SEEDS)
def test_assignment_with_rack_aware_with_random_start_index(seed):
    check_replica_distribution(admin(SIX, 6, 3, seed=seed), SIX, 6, 6, 3)


def test_assignment_with_rack_aware_with_uneven_replicas():
    result = admin(SIX, 13, 3, start_index=0)
    check_replica_distribution(result, SIX, 6, 13, 3, verify_leader_distribution=False,
                               verify_replicas_distribution=False)
    assert result.replicas == [[0, 1, 3], [1, 3, 5], [3, 5, 2], [5, 2, 4], [2, 4, 0], [4, 0, 1], [0, 2, 4],
                               [1, 4, 0], [3, 0, 1], [5, 1, 3], [2, 3, 5], [4, 5, 2], [0, 3, 2]]   # Kafka's


@pytest.mark.parametrize("seed", SEEDS)
def test_assignment_with_rack_aware_with_uneven_racks(seed):
    racks = {0: "rack1", 1: "rack1", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}
    check_replica_distribution(admin(racks, 12, 3, seed=seed), racks, 6, 12, 3, verify_replicas_distribution=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_assignment_with2_replicas_rack_aware(seed):
    check_replica_distribution(admin(SIX, 12, 2, seed=seed), SIX, 6, 12, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_rack_aware_expansion(seed):
    racks = {6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack3", 11: "rack1"}
    result = admin(racks, 12, 2, start_partition=12, seed=seed)
    assert result.partitions.tolist() == list(range(12, 24))
    check_replica_distribution(result, racks, 6, 12, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_assignment_with2_replicas_rack_aware_with6_partitions(seed):
    check_replica_distribution(admin(SIX, 6, 2, seed=seed), SIX, 6, 6, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_assignment_with2_replicas_rack_aware_with6_partitions_and3_brokers(seed):
    racks = {0: "rack1", 1: "rack2", 4: "rack3"}
    check_replica_distribution(admin(racks, 3, 2, seed=seed), racks, 3, 3, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_large_number_partitions_assignment(seed):
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1",
             6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack1", 11: "rack3"}
    check_replica_distribution(admin(racks, 96, 3, seed=seed), racks, 12, 96, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_more_replicas_than_racks(seed):
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"}
    result = admin(racks, 6, 5, seed=seed)
    assert [len(r) for r in result.replicas] == [5] * 6
    assert all(len({racks[b] for b in r}) == 3 for r in result.replicas)


@pytest.mark.parametrize("seed", SEEDS)
def test_less_replicas_than_racks(seed):
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"}
    result = admin(racks, 6, 2, seed=seed)
    assert [len(r) for r in result.replicas] == [2] * 6
    assert all(len({racks[b] for b in r}) == 2 for r in result.replicas)


@pytest.mark.parametrize("seed", SEEDS)
def test_single_rack(seed):
    racks = {b: "rack1" for b in range(6)}
    result = admin(racks, 6, 3, seed=seed)
    assert [len(r) for r in result.replicas] == [3] * 6
    assert all(len({racks[b] for b in r}) == 1 for r in result.replicas)
    assert result.leaders_per_broker() == {b: 1 for b in range(6)}


def test_skip_broker_with_replica_already_assigned():
    rack_info = {0: "a", 1: "b", 2: "c", 3: "a", 4: "a"}
    # Kafka's startPartitionId -1 means 0.
    result = admin(rack_info, 6, 4, start_index=2, start_partition=0)
    check_replica_distribution(result, rack_info, 5, 6, 4, verify_rack_aware=False,
                               verify_leader_distribution=False, verify_replicas_distribution=False)
    assert result.replicas == [[2, 0, 1, 3], [3, 1, 2, 4], [4, 2, 1, 3], [0, 1, 2, 3], [1, 4, 2, 3],
                               [2, 4, 1, 3]]   # Kafka's


def test_replica_assignment():
    racks = {b: None for b in range(5)}
    with pytest.raises(InvalidInputError, match="replication_factor"):
        admin(racks, 10, 0)
    with pytest.raises(InvalidInputError, match="replication factor 6 is larger than the 5 available brokers"):
        admin(racks, 10, 6)
    assert as_map(admin(racks, 10, 3, start_index=0)) == {
        0: [0, 1, 2], 1: [1, 2, 3], 2: [2, 3, 4], 3: [3, 4, 0], 4: [4, 0, 1],
        5: [0, 2, 3], 6: [1, 3, 4], 7: [2, 4, 0], 8: [3, 0, 1], 9: [4, 1, 2]}


def test_assign_replicas_to_brokers_with_invalid_parameters():
    rack_map = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: None}
    # Kafka refuses 0 partitions (InvalidPartitionsException); we return an empty placement.
    assert admin({0: "r"}, 0, 1, start_index=0).broker_ids.shape == (0, 1)
    with pytest.raises(InvalidInputError, match="replication_factor"):
        admin(rack_map, 10, 0)
    with pytest.raises(InvalidInputError, match="larger than the 5 available brokers"):
        admin(rack_map, 10, 6, rack_aware="disabled")
    with pytest.raises(InvalidInputError, match="some brokers have a rack and some do not") as info:
        admin(rack_map, 10, 5)
    assert info.value.column == "brokers" and info.value.rows == [4]


# ------------------------------------------------ AdminZkClientTest.testGetBrokerMetadatas


def test_get_broker_metadatas():
    """``RackAwareMode``: broker 4 has no rack."""
    rack_info = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack1", 5: "rack3"}
    brokers = [Broker(b, rack=rack_info.get(b)) for b in range(6)]
    assert admin_brokers(brokers, "disabled") == (list(range(6)), None)
    assert admin_brokers(brokers, "safe") == (list(range(6)), None)
    with pytest.raises(InvalidInputError, match="rack_aware='enforced'"):
        admin_brokers(brokers, "enforced")
    with pytest.raises(InvalidInputError):
        admin_brokers(brokers, None)                     # Kafka's default is enforced
    partial = [b for b in brokers if b.id != 4]
    assert admin_brokers(partial, "enforced") == ([0, 1, 2, 3, 5], [rack_info[b] for b in (0, 1, 2, 3, 5)])
    result = place_replicas(brokers, 3, 2, method="admin-utils", rack_aware="safe", seed=1)
    assert len(result.replicas) == 3


# ------------------------------------------------------------------------------- ours


def kafka_loops(ids: List[int], racks: Optional[List[str]], partitions: int, rf: int, start_index: int,
                shift: int, start_partition: int) -> List[List[int]]:
    """A line-by-line transliteration of Kafka's two loops, to check the vectorised walks against."""
    if racks is None:
        order, rack_by = list(ids), None
    else:
        rack_by = dict(zip(ids, racks))
        order = rack_alternated_broker_list(rack_by)
    n, num_racks = len(order), len(set(racks)) if racks else 1
    out, p = [], start_partition
    for _ in range(partitions):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start_index) % n
        replicas = [order[first]]
        if rack_by is None:
            replicas += [order[(first + 1 + (shift + j) % (n - 1)) % n] for j in range(rf - 1)]
        else:
            used_racks, k = {rack_by[order[first]]}, 0
            for _ in range(rf - 1):
                while True:
                    broker = order[(first + 1 + (shift * num_racks + k) % (n - 1)) % n]
                    k += 1
                    if ((rack_by[broker] not in used_racks or len(used_racks) == num_racks)
                            and (broker not in replicas or len(replicas) == n)):
                        replicas.append(broker)
                        used_racks.add(rack_by[broker])
                        break
        out.append(replicas)
        p += 1
    return out


@pytest.mark.parametrize("layout", ["flat", "even", "skewed", "two-big"])
def test_the_vectorised_walks_follow_kafkas_loops(layout):
    rng = np.random.default_rng(5)
    for trial in range(30):
        n = int(rng.integers(2, 40))
        ids = sorted(rng.choice(5000, n, replace=False).tolist())
        if layout == "flat":
            racks = None
        elif layout == "even":
            racks = [f"r{int(x)}" for x in rng.integers(0, 6, n)]
        elif layout == "skewed":
            racks = ["big" if rng.random() < 0.8 else f"s{int(x)}" for x in rng.integers(0, 5, n)]
        else:
            racks = ["A" if rng.random() < 0.45 else "B" if rng.random() < 0.8 else f"s{i}" for i in range(n)]
        rf = int(rng.integers(1, min(n, 5) + 1))
        start_index, start_partition, count = int(rng.integers(0, 2 * n)), int(rng.integers(0, 60)), 70
        got = place_replicas([Broker(b, rack=None if racks is None else racks[i]) for i, b in enumerate(ids)],
                             count, rf, method="admin-utils", start_index=start_index,
                             start_partition=start_partition)
        assert got.replicas == kafka_loops(ids, racks, count, rf, start_index, start_index, start_partition), trial


def test_a_seed_draws_start_index_then_shift():
    # new Random(42): nextInt(5) twice gives 0 then 3 (JVM values), so startIndex 0 and nextReplicaShift 3.
    racks = {b: None for b in range(5)}
    drawn = admin(racks, 10, 3, seed=42)
    assert drawn.seed == 42
    assert drawn.replicas == kafka_loops(list(range(5)), None, 10, 3, 0, 3, 0)
    assert admin(racks, 10, 3, start_index=0).seed is None      # nothing drawn


def test_brokers_are_sorted_by_id_and_fenced_ones_left_out():
    shuffled = [Broker(3), Broker(1), Broker(9, fenced=True), Broker(2)]
    result = place_replicas(shuffled, 3, 2, method="admin-utils", start_index=0)
    assert result.replicas == [[1, 2], [2, 3], [3, 1]]
    assert result.replicas_per_broker() == {1: 2, 2: 2, 3: 2, 9: 0}
    with pytest.raises(InvalidInputError, match=r"1 fenced brokers left out"):
        place_replicas(shuffled, 3, 4, method="admin-utils", start_index=0)


def test_kafkas_32_bit_arithmetic_is_not_overflowed():
    with pytest.raises(InvalidInputError, match="32-bit") as info:
        admin({0: None, 1: None}, 10, 2, start_index=2**31 - 5)
    assert info.value.column == "start_index"


@examples(60)
@given(data=st.data())
def test_the_small_walk_is_the_array_walk(data):
    """Kafka's loop (small topics) and the array version (large ones) place alike."""
    n = data.draw(st.integers(2, 40), label="brokers")
    racks = data.draw(st.integers(1, min(n, 8)), label="racks")
    rack_of = np.array(data.draw(st.lists(st.integers(0, racks - 1), min_size=n, max_size=n), label="rack_of"))
    rack_of = np.unique(rack_of, return_inverse=True)[1].astype(np.int64)
    rf = data.draw(st.integers(2, n), label="rf")
    count = data.draw(st.integers(1, 30), label="partitions")
    first = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count)), dtype=np.int64)
    shift = np.array(data.draw(st.lists(st.integers(0, 3 * n), min_size=count, max_size=count)), dtype=np.int64)
    assert rack_aware_walk_small(first, shift, rack_of, rf).tolist() == \
        rack_aware_walk(first, shift, rack_of, rf).tolist()

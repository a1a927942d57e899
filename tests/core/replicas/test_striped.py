"""KRaft's ``StripedReplicaPlacer``: Kafka's ``StripedReplicaPlacerTest`` (metadata module), under its test names.

Kafka's tests draw from ``MockRandom`` (see :mod:`.mock_random`), so the
expected placements are Kafka's own asserted values. Kafka's exceptions are our
``InvalidInputError``; where Kafka asserts a message, we assert ours says the
same thing.
"""

from collections import Counter

import pytest

from spark_assign.core import Broker, place_replicas
from spark_assign.core.java.random import JavaRandom
from spark_assign.core.replicas.striped import BrokerList, RackList, controller_order, striped_place
from spark_assign.errors import InvalidInputError

from ..java.mock_random import MockRandom


def place(partitions, replication_factor, brokers):
    """``place(new StripedReplicaPlacer(new MockRandom()), 0, partitions, rf, brokers)`` of Kafka's test."""
    return striped_place(MockRandom(), brokers, partitions, replication_factor).tolist()


def test_broker_list():
    empty = BrokerList()
    assert len(empty.brokers) == 0 and empty.next(1) == -1
    brokers = BrokerList().add(0).add(1).add(2).add(3)
    assert len(brokers.brokers) == 4
    assert [brokers.next(0) for _ in range(6)] == [0, 1, 2, 3, -1, -1]
    assert [brokers.next(1) for _ in range(5)] == [1, 2, 3, 0, -1]     # a new epoch starts one further on


def test_avoid_fenced_replica_if_possible_on_single_rack():
    rack_list = RackList(MockRandom(), [(3, None, False), (1, None, True), (0, None, False), (4, None, False),
                                        (2, None, False)])
    assert (rack_list.num_total_brokers, rack_list.num_unfenced_brokers) == (5, 4)
    assert rack_list.rack_names == [None]
    for bad in (0, -1):
        with pytest.raises(InvalidInputError):
            rack_list.place(bad)
    assert [rack_list.place(4) for _ in range(5)] == [
        [3, 4, 0, 2], [4, 0, 2, 3], [0, 2, 3, 4], [2, 3, 4, 0], [0, 4, 3, 2]]


def test_multi_partition_topic_placement_on_single_unfenced_broker():
    assert place(3, 1, [(0, None, False), (1, None, True)]) == [[0], [0], [0]]


def test_placement_on_fenced_replica_on_single_rack():
    rack_list = RackList(MockRandom(), [(3, None, False), (1, None, True), (2, None, False)])
    assert (rack_list.num_total_brokers, rack_list.num_unfenced_brokers) == (3, 2)
    assert rack_list.rack_names == [None]
    assert [rack_list.place(3) for _ in range(4)] == [[3, 2, 1], [2, 3, 1], [3, 2, 1], [2, 3, 1]]


def test_rack_list_with_multiple_racks():
    rack_list = RackList(MockRandom(), [(11, "1", False), (10, "1", False), (30, "3", False), (31, "3", False),
                                        (21, "2", False), (20, "2", True)])
    assert (rack_list.num_total_brokers, rack_list.num_unfenced_brokers) == (6, 5)
    assert rack_list.rack_names == ["1", "2", "3"]
    assert [rack_list.place(4) for _ in range(3)] == [[11, 21, 31, 10], [21, 30, 10, 20], [31, 11, 21, 30]]


def test_rack_list_with_invalid_racks():
    rack_list = RackList(MockRandom(), [(11, "1", False), (10, "1", False), (30, "3", True), (31, "3", True),
                                        (20, "2", True), (21, "2", True), (41, "4", False), (40, "4", True)])
    assert (rack_list.num_total_brokers, rack_list.num_unfenced_brokers) == (8, 3)
    assert rack_list.rack_names == ["1", "2", "3", "4"]
    assert [rack_list.place(4) for _ in range(3)] == [[41, 11, 21, 30], [10, 20, 31, 41], [41, 21, 30, 11]]


def test_all_brokers_fenced():
    # Kafka: "All brokers are currently fenced."
    with pytest.raises(InvalidInputError, match="all 2 brokers are currently fenced"):
        place(1, 1, [(11, "1", True), (10, "1", True)])


def test_not_enough_brokers():
    with pytest.raises(InvalidInputError, match=r"the target replication factor of 3 cannot be reached because "
                                                r"only 2 broker\(s\) are registered"):
        place(1, 3, [(11, "1", False), (10, "1", False)])


def test_non_positive_replication_factor():
    # Kafka: "Invalid replication factor 0: the replication factor must be positive."
    with pytest.raises(InvalidInputError, match="invalid replication factor 0: it must be positive") as info:
        place(1, 0, [(11, "1", False), (10, "1", False)])
    assert info.value.column == "replication_factor"


def test_successful_placement():
    assert place(5, 3, [(0, None, False), (3, None, False), (2, None, False), (1, None, False)]) == [
        [2, 3, 0], [3, 0, 1], [0, 1, 2], [1, 2, 3], [1, 0, 2]]


def test_even_distribution():
    placed = place(200, 2, [(0, None, False), (1, None, False), (2, None, False), (3, None, False)])
    counts = Counter(tuple(replicas) for replicas in placed)
    assert counts == {(0, 1): 14, (0, 2): 22, (0, 3): 14, (1, 0): 17, (1, 2): 17, (1, 3): 16,
                      (2, 0): 13, (2, 1): 17, (2, 3): 20, (3, 0): 20, (3, 1): 19, (3, 2): 11}


def test_rack_list_all_brokers_fenced():
    rack_list = RackList(MockRandom(), [(0, None, True), (1, None, True), (2, None, True)])
    assert (rack_list.num_total_brokers, rack_list.num_unfenced_brokers) == (3, 0)
    assert rack_list.rack_names == [None]
    with pytest.raises(InvalidInputError, match="currently fenced"):
        rack_list.place(3)


def test_rack_list_not_enough_brokers():
    rack_list = RackList(MockRandom(), [(11, "1", False), (10, "1", False)])
    with pytest.raises(InvalidInputError, match="replication factor of 3 cannot be reached because only 2"):
        rack_list.place(3)


def test_rack_list_non_positive_replication_factor():
    rack_list = RackList(MockRandom(), [(11, "1", False), (10, "1", False)])
    with pytest.raises(InvalidInputError, match="invalid replication factor -1"):
        rack_list.place(-1)


# ------------------------------------------------------------- beyond Kafka's test file


def test_a_seed_is_a_java_util_random_seed():
    # new StripedReplicaPlacer(new Random(17)) on Kafka's testSuccessfulPlacement brokers, printed by
    # Kafka's own class (tests/data/kafka_replica_oracle_cases.json has 600 more such cases).
    brokers = [Broker(0), Broker(3), Broker(2), Broker(1)]
    result = place_replicas(brokers, partitions=5, replication_factor=3, method="striped", seed=17)
    assert result.replicas == [[2, 3, 0], [3, 0, 1], [0, 1, 2], [1, 2, 3], [3, 2, 1]]
    assert result.seed == 17 and result.method == "striped"
    again = place_replicas(brokers, partitions=5, replication_factor=3, method="striped", seed=result.seed)
    assert again.replicas == result.replicas


def test_an_unseeded_placement_reports_its_seed():
    brokers = [Broker(i, rack=f"r{i % 3}") for i in range(9)]
    first = place_replicas(brokers, partitions=20, replication_factor=3)
    assert first.method == "striped" and first.seed is not None
    assert place_replicas(brokers, partitions=20, replication_factor=3, seed=first.seed).replicas == first.replicas


def test_fenced_brokers_are_used_only_when_needed_and_never_lead():
    brokers = [Broker(1, fenced=True), Broker(2), Broker(3), Broker(4, fenced=True)]
    roomy = place_replicas(brokers, partitions=50, replication_factor=2, seed=3)
    assert set(roomy.broker_ids.ravel().tolist()) == {2, 3}
    tight = place_replicas(brokers, partitions=50, replication_factor=4, seed=3)
    assert set(tight.leaders.tolist()) <= {2, 3}
    assert all(sorted(r) == [1, 2, 3, 4] for r in tight.replicas)


def test_the_controller_hands_brokers_over_in_hashmap_order():
    # Integer.hashCode is the id: 16 buckets at first, so 17 (bucket 1) comes before 2 and after 16 (bucket 0).
    ids = [2, 17, 16, 40, 1]
    assert [b.id for b in controller_order([Broker(i) for i in ids])] == [16, 17, 1, 2, 40]


def test_rack_aware_disabled_drops_racks():
    racked = [Broker(i, rack=f"r{i % 2}") for i in range(4)]
    plain = [Broker(i) for i in range(4)]
    assert (place_replicas(racked, 10, 2, seed=9, rack_aware="disabled").replicas
            == place_replicas(plain, 10, 2, seed=9).replicas)


@pytest.mark.parametrize("argument", [{"rack_aware": "safe"}, {"rack_aware": "enforced"}, {"start_index": 0}])
def test_admin_utils_arguments_are_refused(argument):
    with pytest.raises(InvalidInputError) as info:
        place_replicas([Broker(1), Broker(2)], 2, 1, method="striped", **argument)
    assert info.value.column == next(iter(argument))


def test_zero_partitions_still_check_the_cluster():
    assert place_replicas([Broker(1)], 0, 1, seed=1).broker_ids.shape == (0, 1)
    with pytest.raises(InvalidInputError, match="fenced"):
        place_replicas([Broker(1, fenced=True)], 0, 1, seed=1)
    with pytest.raises(InvalidInputError, match="no brokers were given"):
        place_replicas([], 0, 1, seed=1)


def test_rack_hash_collisions_follow_java():
    # "Aa" and "BB" share String.hashCode 2112, so Kafka's HashMap of racks iterates them in the order
    # first met ("BB" here, broker 0), and draws their offsets in that order; iterating them sorted
    # would give other placements. Expected: printed by Kafka's StripedReplicaPlacer with new Random(s).
    brokers = [Broker(0, rack="BB"), Broker(1, rack="Aa"), Broker(2, rack="BB"), Broker(3, rack="Aa"),
               Broker(4, rack="BB")]
    kafka = {1: [[1, 0], [2, 3], [1, 4], [0, 3], [1, 2], [1, 4]],
             4: [[4, 3], [1, 0], [2, 3], [1, 4], [0, 3], [1, 4]],
             6: [[2, 1], [3, 4], [0, 1], [3, 2], [4, 1], [0, 1]]}
    for seed, expected in kafka.items():
        assert place_replicas(brokers, 6, 2, seed=seed).replicas == expected
    assert RackList(JavaRandom(5), [(0, "BB", False), (1, "Aa", False)]).map_order == ["BB", "Aa"]
    assert RackList(JavaRandom(5), [(0, "BB", False), (1, "Aa", False)]).rack_names == ["Aa", "BB"]

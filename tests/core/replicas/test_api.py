"""``place_replicas``: argument checks, the method registry and the result's views."""

import numpy as np
import pytest

from spark_assign.core import (
    Broker,
    ReplicaMethod,
    get_replica_method,
    place_replicas,
    register_replica_method,
    replica_method_names,
)
from spark_assign.errors import InvalidInputError, SparkAssignError, UnknownStrategyError

BROKERS = [Broker(1, rack="r1"), Broker(2, rack="r2"), Broker(3, rack="r1")]


def test_the_example_of_the_brief():
    result = place_replicas(brokers=BROKERS, partitions=6, replication_factor=2, method="admin-utils",
                            start_index=0, start_partition=0)
    assert result.broker_ids.dtype == np.int32 and result.broker_ids.shape == (6, 2)
    assert result.replicas == result.broker_ids.tolist()
    assert result.partitions.tolist() == list(range(6))
    assert result.leaders.tolist() == [r[0] for r in result.replicas]
    assert sum(result.replicas_per_broker().values()) == 12 and sum(result.leaders_per_broker().values()) == 6
    assert list(result.replicas_per_broker()) == [1, 2, 3]
    assert all(len({b for b in r}) == 2 for r in result.replicas)
    assert result.replication_factor == 2 and result.method == "admin-utils"


def test_method_names_and_unknown_names():
    assert {"admin-utils", "sticky", "striped"} <= set(replica_method_names())   # a test below registers one more
    assert get_replica_method("striped").kafka_class.endswith("StripedReplicaPlacer")
    with pytest.raises(UnknownStrategyError, match="unknown replica placement method 'zk'; valid replica "
                                                   "placement methods are: admin-utils, sticky, striped"):
        place_replicas(BROKERS, 1, 1, method="zk")
    with pytest.raises(UnknownStrategyError):
        place_replicas(BROKERS, 1, 1, method=None)


def test_a_registered_method_is_used_by_name():
    # Registered for the rest of the session: other tests name their methods explicitly.
    def leaders_only(request):
        ids = np.array([b.id for b in request.brokers], dtype=np.int32)
        return ids[np.arange(request.partitions) % len(ids)][:, None], None

    register_replica_method(ReplicaMethod("test-leaders-only", leaders_only))
    assert place_replicas(BROKERS, 4, 1, method="test-leaders-only").replicas == [[1], [2], [3], [1]]
    assert "test-leaders-only" in replica_method_names()


@pytest.mark.parametrize("ids,match", [([1, 2, 1, 3, 3], "duplicate broker ids: 1, 3")])
def test_duplicate_broker_ids_are_named(ids, match):
    with pytest.raises(InvalidInputError, match=match) as info:
        place_replicas([Broker(i) for i in ids], 1, 1)
    assert info.value.rows == [1, 3] and info.value.column == "brokers"


@pytest.mark.parametrize("bad", [True, 1.0, "1", None, -1, 2**31, np.float64(2)])
def test_broker_ids_are_non_negative_32_bit_ints(bad):
    with pytest.raises(InvalidInputError, match="broker id") as info:
        Broker(bad)
    assert info.value.rows == [bad]


def test_numpy_integers_are_accepted_everywhere():
    brokers = [Broker(np.int64(i)) for i in range(3)]
    assert type(brokers[0].id) is int
    result = place_replicas(brokers, np.int32(4), np.int64(2), method="admin-utils", start_index=np.int16(1),
                            start_partition=np.uint8(3), seed=np.int64(5))
    assert result.partitions.tolist() == [3, 4, 5, 6]
    assert place_replicas(brokers, np.int64(3), np.int8(3), seed=np.int64(-5)).seed == -5


@pytest.mark.parametrize("argument,value,match", [
    ("partitions", -1, "partitions must be at least 0, got -1"),
    ("partitions", 2.0, "partitions must be an integer, got float 2.0"),
    ("partitions", True, "partitions must be an integer, got bool"),
    ("replication_factor", 0, "replication_factor must be at least 1, got 0"),
    ("replication_factor", None, "replication_factor must be an integer"),
    ("start_partition", -1, "start_partition must be at least 0"),
    ("start_index", -1, "start_index must be at least 0"),
    ("seed", 2**63, "seed must fit a Java long"),
    ("seed", "7", "seed must be an integer or None"),
    ("rack_aware", "strict", "rack_aware must be one of enforced, safe, disabled or None"),
])
def test_arguments_are_checked_and_named(argument, value, match):
    args = dict(brokers=[Broker(0), Broker(1)], partitions=3, replication_factor=1, method="admin-utils")
    args[argument] = value
    with pytest.raises(InvalidInputError, match=match) as info:
        place_replicas(**args)
    assert info.value.column == argument and isinstance(info.value, (SparkAssignError, ValueError))


def test_partition_ids_stay_below_kafkas_limit():
    with pytest.raises(InvalidInputError, match="32-bit limit"):
        place_replicas([Broker(0)], 10, 1, start_partition=2**31 - 5)
    assert place_replicas([Broker(0)], 5, 1, start_partition=2**31 - 5, seed=1).partitions[-1] == 2**31 - 1


@pytest.mark.parametrize("brokers", ["b1", {"1": Broker(1)}, 7, [1, 2]])
def test_brokers_must_be_a_list_of_brokers(brokers):
    with pytest.raises(InvalidInputError, match="Broker") as info:
        place_replicas(brokers, 1, 1)
    assert info.value.column == "brokers"


@pytest.mark.parametrize("rack", ["", 3, b"r"])
def test_racks_are_non_empty_strings(rack):
    with pytest.raises(InvalidInputError, match="rack must be a non-empty string or None"):
        Broker(1, rack=rack)


def test_fenced_is_a_bool():
    with pytest.raises(InvalidInputError, match="fenced must be a bool"):
        Broker(1, fenced="yes")
    assert Broker(1, fenced=np.bool_(True)).fenced is True


def test_brokers_are_frozen_values():
    assert Broker(1, "r") == Broker(1, rack="r", fenced=False)
    with pytest.raises(AttributeError):
        Broker(1).id = 2  # type: ignore[misc]

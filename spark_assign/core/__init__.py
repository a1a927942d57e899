"""The assignment engine: Kafka's partition assignment strategies, one group at a time.

Pure Python and NumPy; no Spark needed::

    from spark_assign.core import Member, assign

    result = assign(
        members=[Member("c1", topics=["t0", "t1"], owned=[("t0", 0)], generation=3),
                 Member("c2", topics=["t0"], instance_id="static-2", rack="r1")],
        topics={"t0": 3, "t1": 3},
        strategy="cooperative-sticky",
    )
    result.assignment   # {member_id: [(topic, partition), ...]}
    result.revoked      # {member_id: [(topic, partition), ...]}

and places a topic's replicas on brokers as Kafka does (docs/replicas.md)::

    from spark_assign.core import Broker, place_replicas

    placed = place_replicas([Broker(1, rack="r1"), Broker(2, rack="r2")], partitions=4,
                            replication_factor=2, method="striped", seed=7)
    placed.replicas     # [[leader, follower], ...] per partition
"""

from .consumer.api import assign, assign_group
from .consumer.batch.api import BatchResult, GroupBatch, assign_batch
from .consumer.checks import balance_violations, check_assignment, is_balanced, moves, validity_errors
from .consumer.model import Group, GroupInput, Member, check_topics
from .consumer.partition_list import TopicPartitionList
from .producer.partitioners import (RoundRobinPartitioner, StickyBatches, StickyPartitioner, round_robin_partitions,
                       sticky_batches, sticky_partitions)
from .consumer.registry import DEFAULT_STRATEGY, Strategy, get_strategy, register_strategy, strategy_names
from .replicas.model import RACK_AWARE_MODES, Broker, ReplicaPlacement
from .replicas.sticky import ReplicaReassignment, moves_lower_bound
from .replicas.api import ReplicaMethod, get_replica_method, place_replicas, register_replica_method, replica_method_names
from .consumer.result import STATUS_NAMES, AssignmentResult, MemberAssignment

__all__ = [
    "Member",
    "GroupInput",
    "check_topics",
    "Group",
    "assign",
    "assign_group",
    "assign_batch",
    "GroupBatch",
    "BatchResult",
    "AssignmentResult",
    "MemberAssignment",
    "TopicPartitionList",
    "STATUS_NAMES",
    "Strategy",
    "DEFAULT_STRATEGY",
    "get_strategy",
    "register_strategy",
    "strategy_names",
    "validity_errors",
    "balance_violations",
    "is_balanced",
    "moves",
    "check_assignment",
    "Broker",
    "place_replicas",
    "ReplicaPlacement",
    "RACK_AWARE_MODES",
    "ReplicaMethod",
    "get_replica_method",
    "register_replica_method",
    "replica_method_names",
    "ReplicaReassignment",
    "moves_lower_bound",
    "round_robin_partitions",
    "RoundRobinPartitioner",
    "sticky_batches",
    "sticky_partitions",
    "StickyBatches",
    "StickyPartitioner",
]

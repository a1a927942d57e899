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

import importlib
from typing import TYPE_CHECKING, Any, List

from .consumer.api import assign, assign_group
from .consumer.batch.api import BatchResult, GroupBatch, assign_batch
from .consumer.checks import balance_violations, check_assignment, is_balanced, moves, validity_errors
from .consumer.model import Group, GroupInput, Member, check_topics
from .consumer.partition_list import TopicPartitionList
from .consumer.registry import DEFAULT_STRATEGY, Strategy, get_strategy, register_strategy, strategy_names
from .consumer.result import STATUS_NAMES, AssignmentResult, MemberAssignment

if TYPE_CHECKING:
    from .producer.partitioners import (RoundRobinPartitioner, StickyBatches, StickyPartitioner,
                                        round_robin_partitions, sticky_batches, sticky_partitions)
    from .replicas.api import (ReplicaMethod, get_replica_method, place_replicas, register_replica_method,
                               replica_method_names)
    from .replicas.model import RACK_AWARE_MODES, Broker, ReplicaPlacement
    from .replicas.sticky import ReplicaReassignment, moves_lower_bound

#: The replica and producer engines' names, imported on first use (PEP 562): a Spark task
#: assigning consumer groups imports the consumer engine only. Name -> its module.
LAZY_NAMES = {
    **dict.fromkeys(["RoundRobinPartitioner", "StickyBatches", "StickyPartitioner", "round_robin_partitions",
                     "sticky_batches", "sticky_partitions"], ".producer.partitioners"),
    **dict.fromkeys(["ReplicaMethod", "get_replica_method", "place_replicas", "register_replica_method",
                     "replica_method_names"], ".replicas.api"),
    **dict.fromkeys(["RACK_AWARE_MODES", "Broker", "ReplicaPlacement"], ".replicas.model"),
    **dict.fromkeys(["ReplicaReassignment", "moves_lower_bound"], ".replicas.sticky"),
}


def __getattr__(name: str) -> Any:
    """A replica or producer name (:data:`LAZY_NAMES`), imported when first used, then cached here."""
    if name not in LAZY_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(LAZY_NAMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(LAZY_NAMES))


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

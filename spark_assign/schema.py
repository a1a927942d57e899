"""Column names and types shared by the DataFrame method, SQL, the state table and reports.

Kept free of Spark and Arrow imports: the Spark layer turns these into
``StructType`` and Arrow schemas.
"""

from __future__ import annotations

from typing import List, Tuple

# A partition's status (new, kept, moved, revoked, assigned) and a replica's (new, kept, moved):
# defined by the engine, which computes them.
from .core.consumer.result import STATUS_NAMES as STATUSES
from .core.replicas.fleet import REPLICA_STATUSES

__all__ = ["SUBSCRIPTION_COLUMNS", "EVENT_COLUMNS", "EVENTS", "WEIGHT_COLUMNS", "RESULT_COLUMNS", "STATE_COLUMNS", "STATUSES",
           "REPLICA_STATE_COLUMNS", "REPLICA_STATUSES", "KAFKA_GROUP_COLUMNS", "KAFKA_ASSIGNMENT_COLUMNS",
           "KAFKA_OFFSET_COLUMNS", "KAFKA_PROBLEM_COLUMNS", "AUDIT_COLUMNS"]

#: Subscription rows, the input of ``DataFrame.assign_partitions`` (docs/dataframe.md, "Input"):
#: (name, type, required).
SUBSCRIPTION_COLUMNS: List[Tuple[str, str, bool]] = [
    ("group_id", "string", False),
    ("member_id", "string", True),
    ("topic", "string", True),
    ("group_instance_id", "string", False),
    ("rack", "string", False),
    ("owned_partitions", "array<int>", False),
    ("generation", "int", False),
]

#: Membership events, the *events* form of a streaming rebalance (docs/streaming.md, "Events"):
#: (name, type, required). A ``join`` or ``update`` is one row per topic the member subscribes
#: to; a ``leave`` is one row without a topic. ``sequence`` orders one member's events within a
#: micro-batch. Without ``group_id`` every row is of the group ``default``.
EVENT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("group_id", "string", False),
    ("member_id", "string", True),
    ("event", "string", True),
    ("topic", "string", False),
    ("group_instance_id", "string", False),
    ("rack", "string", False),
    ("sequence", "int", False),
]
#: The events of :data:`EVENT_COLUMNS`: a member joins (with its topics), changes its topics, leaves.
EVENTS = ("join", "update", "leave")

#: Per-partition weights, the ``weights=`` of the DataFrame method and the state table
#: (docs/load-aware.md): (name, type, required). Without ``group_id`` a topic's weights apply
#: to every group subscribing to it. Any number type is accepted where ``double`` is written.
WEIGHT_COLUMNS: List[Tuple[str, str, bool]] = [
    ("group_id", "string", False),
    ("topic", "string", True),
    ("partition", "int", True),
    ("weight", "double", True),
]

#: Result rows of assign_partitions: one per partition of every subscribed topic.
RESULT_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("generation", "int"),
    ("member_id", "string"),            # null while a cooperative transfer is pending
    ("topic", "string"),
    ("partition", "int"),
    ("previous_member_id", "string"),
    ("status", "string"),               # one of STATUSES
]

#: Rows of the Delta state table: the result columns plus bookkeeping.
STATE_COLUMNS: List[Tuple[str, str]] = RESULT_COLUMNS + [
    ("strategy", "string"),
    ("group_instance_id", "string"),
    ("committed_at", "timestamp"),      # UTC
    ("input_fingerprint", "string"),    # of the group's inputs, for incremental rebalances
    ("weight", "double"),               # the partition's weight in this generation (null: none given)
    ("members", "int"),                 # the group's members in this generation, those owning nothing too
]

#: Rows of a Delta replica table (``ReplicaTable``): one per replica per cluster per generation,
#: the rows of ``DataFrame.assign_replicas`` plus bookkeeping.
REPLICA_STATE_COLUMNS: List[Tuple[str, str]] = [
    ("cluster_id", "string"),
    ("generation", "int"),              # the cluster's generation: 1, 2, 3, ...
    ("topic", "string"),
    ("partition", "int"),
    ("replica_index", "int"),           # 0: the preferred leader
    ("broker_id", "int"),
    ("rack", "string"),                 # the broker's rack, if any
    ("is_preferred_leader", "boolean"),
    ("previous_broker_id", "int"),      # the broker at this replica_index in the previous generation
    ("status", "string"),               # new, kept or moved (REPLICA_STATUSES)
    ("method", "string"),               # the placement method that computed the row
    ("committed_at", "timestamp"),      # UTC
    ("input_fingerprint", "string"),    # of the cluster's inputs, for incremental rebalances
    ("stage", "int"),                   # a staged plan: this generation's stage, 1, 2, ... (null: not staged)
    ("stages_left", "int"),             # a staged plan: the stages still planned after this one (0: done)
]



#: The frames of ``spark_assign.kafka.consumer_groups`` (docs/kafka-records.md), read from Kafka's
#: ``__consumer_offsets`` records. Its ``subscriptions`` frame has the columns of
#: :data:`SUBSCRIPTION_COLUMNS`. Groups: one row per live group.
KAFKA_GROUP_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("protocol", "string"),             # classic | consumer (KIP-848)
    ("protocol_type", "string"),        # consumer, connect, ... (a classic group's embedded protocol)
    ("strategy", "string"),             # the assignor the leader ran, or the server assignor
    ("generation", "int"),              # a classic group's generation, a consumer group's epoch
    ("leader", "string"),               # a classic group's leader
    ("members", "int"),
]
#: What each member was last given: one row per member and partition.
KAFKA_ASSIGNMENT_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("generation", "int"),              # the group's generation (classic), the member's epoch (consumer)
    ("member_id", "string"),
    ("topic", "string"),
    ("partition", "int"),
]
#: Committed offsets: one row per group, topic and partition.
KAFKA_OFFSET_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("topic", "string"),
    ("partition", "int"),
    ("committed_offset", "bigint"),
    ("leader_epoch", "int"),            # null when the commit carries none
    ("metadata", "string"),
    ("commit_timestamp", "bigint"),     # milliseconds since the epoch
]
#: Records that could not be read, where they are, and why.
KAFKA_PROBLEM_COLUMNS: List[Tuple[str, str]] = [
    ("partition", "int"),               # of __consumer_offsets
    ("offset", "bigint"),
    ("key", "binary"),
    ("group_id", "string"),             # null when the key itself cannot be read
    ("record_type", "int"),
    ("problem", "string"),
]

#: Rows of ``spark_assign.kafka.audit``: one per classic group and finding
#: (``spark_assign.core.consumer.audit.FINDINGS``).
AUDIT_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("strategy", "string"),
    ("generation", "int"),
    ("finding", "string"),
    ("partitions", "int"),              # how many partitions (unbalanced: the spread of the members' counts)
    ("example", "string"),              # the first of them, e.g. "orders-3 -> c1 (strategy: c2)"
]

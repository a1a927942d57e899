"""Kafka's own formats, read: the text its admin tools print (no Spark needed).

* :mod:`.reassignment`: ``kafka-reassign-partitions``' JSON, alone or in the tool's output;
* :mod:`.topics`: ``kafka-topics --describe``;
* :mod:`.groups`: ``kafka-consumer-groups --describe``: ``--members`` and the subscription rows it
  implies, ``--offsets`` and the lags as weights;
* :mod:`.placement`: a cluster's current replica placement from any of them;
* :mod:`.log_dirs`: ``kafka-log-dirs --describe``: each replica's size on disk;
* :mod:`.records`: the ``__consumer_offsets`` records (group metadata, offset commits), and
  :func:`consumer_groups`, the Spark transformation that reads a fleet of them (imported when first
  used: importing this package does not load PySpark).
"""

import importlib
from typing import TYPE_CHECKING, Any, List

from .groups import GroupMember, PartitionLag, lag_weights, read_group_members, read_group_offsets, \
    subscription_rows
from .log_dirs import LogDirs, partition_sizes, read_log_dirs
from .placement import CurrentPlacement, read_current_placement
from .reassignment import ReassignmentOutput, format_reassignment, parse_reassignment, read_reassignment_output
from .topics import PartitionDescription, read_topic_ids, read_topics_describe

if TYPE_CHECKING:
    from ..spark.kafka.audit import audit
    from ..spark.kafka.records import ConsumerGroups, consumer_groups

#: The Spark-side names -> the module that defines them.
SPARK_NAMES = {"consumer_groups": "spark_assign.spark.kafka.records",
               "ConsumerGroups": "spark_assign.spark.kafka.records",
               "audit": "spark_assign.spark.kafka.audit"}

__all__ = ["GroupMember", "read_group_members", "subscription_rows", "PartitionLag", "read_group_offsets",
           "lag_weights", "CurrentPlacement", "read_current_placement", "ReassignmentOutput", "format_reassignment",
           "parse_reassignment", "read_reassignment_output", "PartitionDescription", "LogDirs", "read_log_dirs",
           "partition_sizes", "read_topics_describe", "read_topic_ids", "consumer_groups", "ConsumerGroups", "audit"]


def __getattr__(name: str) -> Any:
    """A Spark-side name, imported from its module when first used."""
    if name not in SPARK_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(SPARK_NAMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(SPARK_NAMES))

"""Kafka's own formats, read: the text its admin tools print (no Spark needed).

* :mod:`.reassignment`: ``kafka-reassign-partitions``' JSON, alone or in the tool's output;
* :mod:`.topics`: ``kafka-topics --describe``;
* :mod:`.groups`: ``kafka-consumer-groups --describe``: ``--members`` and the subscription rows it
  implies, ``--offsets`` and the lags as weights;
* :mod:`.placement`: a cluster's current replica placement from any of them.
"""

from .groups import GroupMember, PartitionLag, lag_weights, read_group_members, read_group_offsets, \
    subscription_rows
from .placement import CurrentPlacement, read_current_placement
from .reassignment import ReassignmentOutput, format_reassignment, parse_reassignment, read_reassignment_output
from .topics import PartitionDescription, read_topics_describe

__all__ = ["GroupMember", "read_group_members", "subscription_rows", "PartitionLag", "read_group_offsets",
           "lag_weights", "CurrentPlacement", "read_current_placement", "ReassignmentOutput", "format_reassignment",
           "parse_reassignment", "read_reassignment_output", "PartitionDescription", "read_topics_describe"]

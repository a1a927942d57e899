"""``read_topic_ids``: each topic's id from ``kafka-topics --describe``, for KIP-848 groups whose
records name their topics by id only."""

from __future__ import annotations

import pytest

from spark_assign.errors import ToolOutputError
from spark_assign.kafka import read_topic_ids

DESCRIBE = ("Topic: orders\tTopicId: 7n3cZp0JQxKJqk3sM9b0xA\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
            "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
            "Topic: 注文\tTopicId: AAAAAAAAAAAAAAAAAAAAAQ\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
            "\tTopic: 注文\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n"
            "Topic: legacy\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n"
            "\tTopic: legacy\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n")


def test_each_topic_id_names_its_topic():
    assert read_topic_ids(DESCRIBE, "topics.txt") == {"7n3cZp0JQxKJqk3sM9b0xA": "orders",
                                                      "AAAAAAAAAAAAAAAAAAAAAQ": "注文"}


def test_a_cut_short_output_is_refused():
    with pytest.raises(ToolOutputError, match="lists 0 of its 1 partitions"):
        read_topic_ids(DESCRIBE.rsplit("\n", 2)[0] + "\n", "topics.txt")

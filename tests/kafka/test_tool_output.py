"""Kafka's admin tools' output read back (spark_assign.kafka), without Spark.

The texts are laid out as the tools print them, from their format strings
(``ReassignPartitionsCommand.generateAssignment``: ``"Current partition replica
assignment%n%s%n%n"`` then ``"Proposed partition reassignment configuration%n%s%n"``;
``currentPartitionReplicaAssignmentToString`` for ``--execute``; ``TopicCommand``'s
``TopicDescription`` and ``PartitionDescription.printDescription``), with the JSON of
``formatAsReassignmentJson`` (format_reassignment, which the replica CLI tests hold to it),
and the variants of older releases that Kafka's docs print. Bad text: one error naming the
source and the line.
"""

from __future__ import annotations

import pytest

from spark_assign.errors import AssumptionWarning, ToolOutputError
from spark_assign.kafka import format_reassignment, read_current_placement, read_reassignment_output, \
    read_topics_describe

# Sorted by topic and partition, as formatAsReassignmentJson prints them.
BEFORE = [("audit", 0, [3, 1]), ("orders-ñ", 0, [1, 2, 3]), ("orders-ñ", 1, [2, 3, 1])]
AFTER = [("audit", 0, [2, 4]), ("orders-ñ", 0, [4, 1, 2]), ("orders-ñ", 1, [1, 2, 3])]


def generate_output(current=BEFORE, proposed=AFTER):
    return (f"Current partition replica assignment\n{format_reassignment(current)}\n\n"
            f"Proposed partition reassignment configuration\n{format_reassignment(proposed)}\n")


def execute_output(current=BEFORE, throttle=False):
    text = (f"Current partition replica assignment\n\n{format_reassignment(current)}\n\n"
            "Save this to use as the --reassignment-json-file option during rollback\n")
    if throttle:
        text += "Warning: You must run --verify periodically, until the reassignment completes, to ensure the " \
                "throttle is removed.\n"
    return text + "Successfully started partition reassignments for audit-0,orders-ñ-0,orders-ñ-1\n"


#: As the ZooKeeper-era docs print it: a blank line after each title, the JSON over several lines.
OLD_GENERATE = """Current partition replica assignment

{"version":1,
"partitions":[{"topic":"foo1","partition":2,"replicas":[1,2]},
              {"topic":"foo1","partition":0,"replicas":[3,4]},
              {"topic":"foo1","partition":1,"replicas":[2,3]}]
}

Proposed partition reassignment configuration

{"version":1,
"partitions":[{"topic":"foo1","partition":2,"replicas":[5,6]},
              {"topic":"foo1","partition":0,"replicas":[5,6]},
              {"topic":"foo1","partition":1,"replicas":[5,6]}]
}
"""

#: Kafka 3.7+ (KRaft, KIP-966's ELR fields), a reassignment in progress on partition 1.
DESCRIBE = (
    "Topic: orders-ñ\tTopicId: 7n3cZp0JQxKJqk3sM9b0xA\tPartitionCount: 2\tReplicationFactor: 3\t"
    "Configs: min.insync.replicas=2,cleanup.policy=compact\n"
    "\tTopic: orders-ñ\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: N/A\tLastKnownElr: N/A\n"
    "\tTopic: orders-ñ\tPartition: 1\tLeader: 2\tReplicas: 2,3,1,4\tIsr: 2,3,1\tAdding Replicas: 4\t"
    "Removing Replicas: 1\tElr: \tLastKnownElr: \n"
    "Topic: audit\tTopicId: AAAAAAAAAAAAAAAAAAAAAQ\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: \n"
    "\tTopic: audit\tPartition: 0\tLeader: none\tReplicas: 3,1\tIsr: \tElr: N/A\tLastKnownElr: N/A\n")
#: ZooKeeper-era releases: no space after the colons of the topic line, no ids, no ELR.
OLD_DESCRIBE = ("Topic:audit\tPartitionCount:2\tReplicationFactor:2\tConfigs:\n"
                "\tTopic: audit\tPartition: 0\tLeader: 3\tReplicas: 3,1\tIsr: 3,1\n"
                "\tTopic: audit\tPartition: 1\tLeader: 1\tReplicas: 1,2\tIsr: 1\n")


def test_generate_output_gives_the_current_and_the_proposed_assignment():
    out = read_reassignment_output(generate_output(), "generate.txt")
    assert out.current == BEFORE and out.proposed == AFTER
    with pytest.warns(AssumptionWarning, match=r"generate.txt \(kafka-reassign-partitions --generate output\)"):
        placement = read_current_placement(generate_output(), "generate.txt")
    assert placement.partitions == BEFORE and placement.read_as == "kafka-reassign-partitions --generate output"
    assert len(placement.notes) == 1 and "proposal" in placement.notes[0]


@pytest.mark.parametrize("throttle", [False, True])
def test_execute_output_gives_the_assignment_before_it(throttle):
    with pytest.warns(AssumptionWarning, match="the assignment before the --execute"):
        placement = read_current_placement(execute_output(throttle=throttle), "execute.txt")
    assert placement.partitions == BEFORE and placement.read_as == "kafka-reassign-partitions --execute output"


def test_the_old_layout_with_json_over_several_lines_is_read():
    out = read_reassignment_output(OLD_GENERATE, "old.txt")
    assert out.current == [("foo1", 2, [1, 2]), ("foo1", 0, [3, 4]), ("foo1", 1, [2, 3])]
    assert [r for _, _, r in out.proposed] == [[5, 6]] * 3


def test_a_reassignment_json_alone_is_read_as_before():
    placement = read_current_placement(format_reassignment(BEFORE), "current.json")
    assert placement.partitions == BEFORE and placement.notes == []


def test_topics_describe_gives_each_partitions_replicas_without_those_being_added():
    parts = read_topics_describe(DESCRIBE, "topics.txt")
    assert [(p.topic, p.partition, p.leader) for p in parts] == [("orders-ñ", 0, 1), ("orders-ñ", 1, 2), ("audit", 0, None)]
    assert parts[1].adding == [4] and parts[1].removing == [1] and parts[1].current_replicas == [2, 3, 1]
    with pytest.warns(AssumptionWarning, match="1 partitions are being reassigned"):
        placement = read_current_placement(DESCRIBE, "topics.txt")
    assert placement.partitions == [("orders-ñ", 0, [1, 2, 3]), ("orders-ñ", 1, [2, 3, 1]), ("audit", 0, [3, 1])]
    assert placement.notes and "1 partitions are being reassigned" in placement.notes[0]
    assert read_current_placement(OLD_DESCRIBE, "old.txt").partitions == [("audit", 0, [3, 1]), ("audit", 1, [1, 2])]


CONSUMER_GROUPS = ("\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG\n"
                   "orders-app      orders          0          10              12              2\n")


@pytest.mark.parametrize("text, line, message", [
    pytest.param(generate_output()[:150], 2, "cut short or missing", id="generate-truncated-in-the-json"),
    pytest.param("Current partition replica assignment\n", 2, "cut short or missing", id="generate-title-only"),
    pytest.param(DESCRIBE.rsplit("\tTopic: audit\tPartition", 1)[0], 4, "lists 0 of its 1 partitions",
                 id="describe-truncated"),
    pytest.param(DESCRIBE.split("\n", 1)[1], 1, "before its 'Topic: ... PartitionCount", id="describe-without-header"),
    pytest.param(CONSUMER_GROUPS, 1, "expected a reassignment JSON", id="another-tools-output"),
    pytest.param("Error while executing topic command : Topic 'x' does not exist as expected\n", 1,
                 "not understood", id="the-tools-error-message"),
    pytest.param(DESCRIBE.replace("Replicas: 1,2,3", "Replicas: 1;2;3"), 2, "not a list of broker ids",
                 id="describe-replicas-not-ids"),
    pytest.param(DESCRIBE + "Topic: x\tsomething new\n", 6, "no 'Key: value' field", id="describe-unknown-line"),
])
def test_bad_tool_output_names_the_source_and_the_line(text, line, message):
    with pytest.raises(ToolOutputError, match=message) as raised:
        read_current_placement(text, "kafka.txt")
    assert raised.value.source == "kafka.txt" and raised.value.line == line
    assert str(raised.value).startswith(f"kafka.txt, line {line}: ")


def test_a_reassignment_json_of_another_version_is_refused():
    with pytest.raises(ToolOutputError, match="version 2 is not supported"):
        read_current_placement('{"version":2,"partitions":[]}', "v2.json")

"""The text ``kafka-topics.sh --describe`` prints, read back: each partition's replicas.

Layout (``org.apache.kafka.tools.TopicCommand``): per topic, one line of tab-separated
``Key: value`` fields, ``Topic``, ``TopicId`` (omitted for the zero id), ``PartitionCount``,
``ReplicationFactor``, ``Configs``; then one line per partition, starting with a tab:
``Topic``, ``Partition``, ``Leader`` (a broker id or ``none``), ``Replicas`` and ``Isr``
(broker ids joined by commas, the preferred leader first), ``Adding Replicas`` and
``Removing Replicas`` while a reassignment runs, then ``Elr`` and ``LastKnownElr`` (KIP-966;
``N/A`` where the broker has none). Releases before 2.x wrote ``Key:value`` without the space
and no ids or ELR fields; both are read, and fields this module does not know are ignored.

The replicas a partition *has* are ``Replicas`` without ``Adding Replicas`` (Kafka lists the
replicas being added while a reassignment copies data to them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..errors import ToolOutputError

__all__ = ["PartitionDescription", "read_topics_describe", "read_topic_ids"]


@dataclass(frozen=True)
class PartitionDescription:
    """One partition line of ``kafka-topics --describe``."""

    topic: str
    partition: int
    leader: Optional[int]           # None: ``none`` (no leader)
    replicas: List[int]             # as listed, the preferred leader first
    isr: List[int]
    adding: List[int]               # ``Adding Replicas`` (a reassignment in progress), else empty
    removing: List[int]

    @property
    def current_replicas(self) -> List[int]:
        """The replicas the partition has: ``replicas`` without those still being added."""
        return [b for b in self.replicas if b not in self.adding]


def read_topics_describe(text: str, source: str) -> List[PartitionDescription]:
    """The partitions of ``kafka-topics --describe`` output ``text`` (read from ``source``,
    named in errors), in the order printed; every topic's partition count checked against its
    header (a cut-short output is an error naming the topic).

    Example::

        parts = read_topics_describe(open("topics.txt").read(), "topics.txt")
        [(p.topic, p.partition, p.current_replicas) for p in parts]
    """
    expected: Dict[str, Tuple[int, int]] = {}          # topic -> (PartitionCount, header line)
    found: Dict[str, int] = {}
    out: List[PartitionDescription] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = _fields(line, source, number)
        if "Partition" in fields:
            part = _partition(fields, source, number)
            if part.topic not in expected:
                raise ToolOutputError(f"partition line of topic {part.topic!r} before its 'Topic: ... "
                                      "PartitionCount: ...' line: truncated or reordered output?",
                                      source=source, line=number)
            found[part.topic] = found.get(part.topic, 0) + 1
            out.append(part)
        elif "PartitionCount" in fields:
            expected[fields["Topic"]] = (_int(fields, "PartitionCount", source, number), number)
            found.setdefault(fields["Topic"], 0)
        else:
            raise ToolOutputError(f"not understood: {line.strip()[:80]!r} (a kafka-topics --describe line has "
                                  "PartitionCount or Partition)", source=source, line=number)
    if not out:
        raise ToolOutputError("no partition line: not the output of kafka-topics --describe", source=source)
    for topic, (count, number) in expected.items():
        if found[topic] != count:
            raise ToolOutputError(f"topic {topic!r} lists {found[topic]} of its {count} partitions: truncated "
                                  "output, or --describe with a filter (--under-replicated-partitions, ...)?",
                                  source=source, line=number)
    return out


def read_topic_ids(text: str, source: str) -> Dict[str, str]:
    """Each topic's id -> its name, from ``kafka-topics --describe`` output (its ``TopicId:``
    fields; the same checks as :func:`read_topics_describe`). KIP-848 groups of Kafka 4.1+ name
    their topics by id only: ``consumer_groups(records, topic_ids=read_topic_ids(...))``.

    Example::

        ids = read_topic_ids(open("topics.txt").read(), "topics.txt")     # {'7n3cZp0JQxKJqk3sM9b0xA': 'orders'}
    """
    read_topics_describe(text, source)
    ids: Dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            fields = _fields(line, source, number)
            if "PartitionCount" in fields and fields.get("TopicId"):
                ids[fields["TopicId"]] = fields["Topic"]
    return ids


def _fields(line: str, source: str, number: int) -> Dict[str, str]:
    """The ``Key: value`` fields of a tab-separated line; its first must be ``Topic``."""
    fields: Dict[str, str] = {}
    for cell in line.strip().split("\t"):
        key, colon, value = cell.partition(":")
        if not colon:
            raise ToolOutputError(f"not understood: {cell.strip()[:80]!r} is no 'Key: value' field (a "
                                  "kafka-topics --describe line is such fields, tab-separated)",
                                  source=source, line=number)
        fields.setdefault(key.strip(), value.strip())
    if next(iter(fields)) != "Topic":
        raise ToolOutputError(f"not understood: {line.strip()[:80]!r} (kafka-topics --describe lines start with "
                              "'Topic:')", source=source, line=number)
    return fields


def _partition(fields: Dict[str, str], source: str, number: int) -> PartitionDescription:
    if "Replicas" not in fields:
        raise ToolOutputError("a partition line without 'Replicas:'", source=source, line=number)
    leader = fields.get("Leader", "none")
    return PartitionDescription(
        topic=fields["Topic"], partition=_int(fields, "Partition", source, number),
        leader=None if leader in ("none", "-1") else _int(fields, "Leader", source, number),
        replicas=_ids(fields, "Replicas", source, number), isr=_ids(fields, "Isr", source, number),
        adding=_ids(fields, "Adding Replicas", source, number),
        removing=_ids(fields, "Removing Replicas", source, number))


def _int(fields: Dict[str, str], key: str, source: str, number: int) -> int:
    value = fields[key]
    if not value.isdigit():
        raise ToolOutputError(f"{key}: {value!r} is not a non-negative integer", source=source, line=number)
    return int(value)


def _ids(fields: Dict[str, str], key: str, source: str, number: int) -> List[int]:
    value = fields.get(key, "")
    ids = [v.strip() for v in value.split(",") if v.strip()]
    if not all(v.isdigit() for v in ids):
        raise ToolOutputError(f"{key}: {value!r} is not a list of broker ids", source=source, line=number)
    return [int(v) for v in ids]

"""``kafka-log-dirs --describe``: every replica's size on disk, per broker and log directory.

Kafka's tool (``org.apache.kafka.tools.LogDirsCommand``) prints two lines
(``Querying brokers for log directories information``, ``Received log
directory information from brokers 1,2,3``), then one line of JSON::

    {"brokers":[{"broker":1,"logDirs":[{"partitions":[{"partition":"orders-0","size":1024,
      "offsetLag":0,"isFuture":false}],"error":null,"logDir":"/var/lib/kafka/data"}]}],"version":1}

Keys come in Java ``HashMap`` order, so nothing here depends on their order. A
partition is named as Kafka's ``TopicPartition.toString()``: the topic, ``-``,
the partition number; topics may hold ``-`` themselves, so the number is what
follows the last one. ``isFuture`` marks the copy an intra-broker move is
writing (``kafka-reassign-partitions`` with a ``log_dirs`` entry); ``error``
names the exception class of a log directory the broker could not read
(usually with no partitions listed).

:func:`read_log_dirs` reads the whole output or the JSON alone;
:func:`partition_sizes` turns it into the size of each partition: the largest
of its current (not future) replicas, which is the leader's or a follower's
that is ahead of a lagging one, the bytes a new replica must copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ..errors import ToolOutputError

__all__ = ["ReplicaLogDir", "LogDirError", "LogDirs", "read_log_dirs", "partition_sizes"]


@dataclass(frozen=True)
class ReplicaLogDir:
    """One replica on one broker's log directory, as ``kafka-log-dirs`` reports it."""

    broker: int
    log_dir: str
    topic: str
    partition: int
    size: int
    offset_lag: int
    is_future: bool


@dataclass(frozen=True)
class LogDirError:
    """A log directory the broker reported with an error (the exception's class name)."""

    broker: int
    log_dir: str
    error: str


@dataclass(frozen=True)
class LogDirs:
    """What one ``kafka-log-dirs --describe`` printed: the replicas, and the directories in error."""

    replicas: List[ReplicaLogDir]
    errors: List[LogDirError]


def read_log_dirs(text: str, source: str) -> LogDirs:
    """The replicas of ``kafka-log-dirs --describe``'s output (the whole output, or its JSON).

    Example::

        dirs = read_log_dirs(open("log-dirs.txt").read(), "log-dirs.txt")
        dirs.replicas[0].topic, dirs.replicas[0].size

    Parameters
    ----------
    text:
        The tool's output.
    source:
        Where it came from, for the messages (a file name, ``stdin``).

    Raises
    ------
    ToolOutputError
        Naming ``source`` and the line, when the text holds no such JSON or it is malformed.
    """
    start = text.find("{")
    if start < 0:
        raise ToolOutputError("no JSON found: expected the output of kafka-log-dirs --describe", source=source)
    line = text.count("\n", 0, start) + 1
    try:
        data, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise ToolOutputError(f"the JSON does not parse: {e.msg}", source=source,
                              line=text.count("\n", 0, e.pos) + 1) from None
    if not isinstance(data, dict) or not isinstance(data.get("brokers"), list):
        raise ToolOutputError("expected an object with a 'brokers' list (kafka-log-dirs --describe)",
                              source=source, line=line)
    if data.get("version") != 1:
        raise ToolOutputError(f"unknown version {data.get('version')!r} (this reads version 1)", source=source,
                              line=line)
    replicas: List[ReplicaLogDir] = []
    errors: List[LogDirError] = []
    for b, entry in enumerate(data["brokers"]):
        broker = _field(entry, "broker", int, source, line, f"brokers[{b}]")
        for d, log_dir in enumerate(_field(entry, "logDirs", list, source, line, f"broker {broker}")):
            where = f"broker {broker} logDirs[{d}]"
            path = _field(log_dir, "logDir", str, source, line, where)
            error = log_dir.get("error") if isinstance(log_dir, dict) else None
            if error is not None:
                errors.append(LogDirError(broker, path, str(error)))
            for p, part in enumerate(_field(log_dir, "partitions", list, source, line, f"{where} ({path})")):
                replicas.append(_replica(part, broker, path, source, line, f"{where} partitions[{p}]"))
    return LogDirs(replicas, errors)


def _field(entry: Any, key: str, kind: type, source: str, line: int, where: str) -> Any:
    value = entry.get(key) if isinstance(entry, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ToolOutputError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}", source=source, line=line)
    return value


def _replica(part: Any, broker: int, log_dir: str, source: str, line: int, where: str) -> ReplicaLogDir:
    name = _field(part, "partition", str, source, line, where)
    topic, dash, number = name.rpartition("-")
    if not dash or not topic or not number.isdigit():
        raise ToolOutputError(f"{where}: partition {name!r} is not TOPIC-NUMBER", source=source, line=line)
    return ReplicaLogDir(broker, log_dir, topic, int(number), _field(part, "size", int, source, line, where),
                         _field(part, "offsetLag", int, source, line, where),
                         _field(part, "isFuture", bool, source, line, where))


def partition_sizes(log_dirs: LogDirs, topics: Optional[List[str]] = None) -> Dict[Tuple[str, int], int]:
    """Each partition's size in bytes: the largest of its current replicas (future copies of an
    intra-broker move left out), for ``topics`` (None: all).

    Example::

        partition_sizes(read_log_dirs(text, "log-dirs.txt"))[("orders", 0)]
    """
    wanted = None if topics is None else set(topics)
    sizes: Dict[Tuple[str, int], int] = {}
    for r in log_dirs.replicas:
        if r.is_future or (wanted is not None and r.topic not in wanted):
            continue
        key = (r.topic, r.partition)
        sizes[key] = max(sizes.get(key, 0), r.size)
    return sizes

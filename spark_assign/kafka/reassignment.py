"""The partition reassignment JSON of ``kafka-reassign-partitions``, read and written, alone
or inside the text the tool prints.

Kafka's tool (``org.apache.kafka.tools.reassign.ReassignPartitionsCommand``)
prints the *current* assignment of the partitions it is about to move (``Save
this to use as the --reassignment-json-file option during rollback``) and
takes the *target* with ``--execute --reassignment-json-file``, both in one
format, version 1::

    {"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,3],
                                "log_dirs":["any","any","any"]}]}

``replicas`` lists broker ids in order, the preferred leader first;
``log_dirs`` (optional on input) gives each replica's log directory, ``any``
for the broker's choice. What ``--execute`` refuses, refused here too, with
the entry named: no ``partitions`` list or an empty one, a partition listed
twice, an empty replica list, a broker listed twice in one partition,
``log_dirs`` of another length than ``replicas``, a version other than 1.

:func:`format_reassignment` writes what Kafka's ``formatAsReassignmentJson``
writes: partitions sorted by topic then partition, ``log_dirs`` all ``any``,
compact JSON.

The tool's own output holds the JSON under a title line (from
``ReassignPartitionsCommand``): ``--generate`` prints ``Current partition
replica assignment``, the current JSON, a blank line, ``Proposed partition
reassignment configuration`` and the proposed JSON; ``--execute`` prints the
current title, a blank line, the current JSON, a blank line and ``Save this to
use as the --reassignment-json-file option during rollback``, then what it
started. Releases before 2.5 (Scala) printed the same titles, some with a
blank line before the JSON, which the ZooKeeper-era docs show indented over
several lines. :func:`read_reassignment_output` reads all of these.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..errors import ToolOutputError

__all__ = ["ANY_LOG_DIR", "parse_reassignment", "format_reassignment", "Replicas", "ReassignmentOutput",
           "read_reassignment_output", "CURRENT_TITLE", "PROPOSED_TITLE"]

#: The title lines ``kafka-reassign-partitions`` prints above its current and proposed JSON.
CURRENT_TITLE = "Current partition replica assignment"
PROPOSED_TITLE = "Proposed partition reassignment configuration"
#: Kafka's ``log_dirs`` entry for "wherever the broker puts it".
ANY_LOG_DIR = "any"
#: One partition's replicas: (topic, partition, broker ids with the preferred leader first).
Replicas = Tuple[str, int, List[int]]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_reassignment(text: str, source: str) -> List[Replicas]:
    """The partitions of a reassignment JSON ``text`` (read from ``source``, named in errors),
    in the order given; :class:`~spark_assign.errors.ToolOutputError` for anything ``--execute``
    would refuse.

    Example::

        parse_reassignment('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}', "f.json")
        # [("t", 0, [1, 2])]
    """
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ToolOutputError(f"not valid JSON ({e})", source=source) from None
    return _partitions_of(data, source)


@dataclass(frozen=True)
class ReassignmentOutput:
    """What ``kafka-reassign-partitions`` printed: the current assignment of the partitions it
    was about, and the proposed one (``--generate`` only; None after ``--execute``)."""

    current: List[Replicas]
    proposed: Optional[List[Replicas]]


def read_reassignment_output(text: str, source: str) -> ReassignmentOutput:
    """The JSON blocks of ``kafka-reassign-partitions``' output (``--generate`` or ``--execute``,
    any release; see the module), checked as :func:`parse_reassignment` checks a file.

    Example::

        out = read_reassignment_output(open("generate-output.txt").read(), "generate-output.txt")
        out.current, out.proposed          # [(topic, partition, replicas), ...] each
    """
    current, proposed = (_block_after(text, title, source) for title in (CURRENT_TITLE, PROPOSED_TITLE))
    if current is None:
        raise ToolOutputError(f"no {CURRENT_TITLE!r} line: not the output of kafka-reassign-partitions "
                              "--generate or --execute", source=source, line=1)
    return ReassignmentOutput(current, proposed)


def _block_after(text: str, title: str, source: str) -> Optional[List[Replicas]]:
    """The reassignment JSON printed under the line ``title``, or None without such a line."""
    at = text.find(title)
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    rest = text[at + len(title):]
    start = len(rest) - len(rest.lstrip())
    where = f"{source} (under {title!r})"
    try:
        data, _ = json.JSONDecoder().raw_decode(rest, start)
    except ValueError:
        lines = rest[start:].splitlines()
        shown = lines[0][:80] if lines else "the end of the text"
        raise ToolOutputError(f"the JSON under {title!r} is cut short or missing (found {shown!r}): truncated "
                              "output?", source=source, line=line + rest.count("\n", 0, start)) from None
    return _partitions_of(data, where)


def _partitions_of(data: Any, source: str) -> List[Replicas]:
    """The checked partitions of a decoded reassignment JSON (see :func:`parse_reassignment`)."""
    if not isinstance(data, dict):
        raise ToolOutputError('expected a JSON object with "version" and "partitions"', source=source)
    version = data.get("version", 1)
    if version != 1:
        raise ToolOutputError(f"version {version!r} is not supported (Kafka's reassignment JSON is version 1)",
                              source=source)
    entries = data.get("partitions")
    if not isinstance(entries, list) or not entries:
        raise ToolOutputError('"partitions" must be a non-empty list of {"topic", "partition", "replicas"} objects',
                              source=source)
    out: List[Replicas] = []
    seen: Dict[Tuple[str, int], int] = {}
    for n, entry in enumerate(entries):
        topic, partition, replicas = _entry(entry, n, source)
        if (topic, partition) in seen:
            raise ToolOutputError(f"partition {topic}-{partition} is listed twice (entries "
                                  f"{seen[(topic, partition)]} and {n})", source=source)
        seen[(topic, partition)] = n
        out.append((topic, partition, replicas))
    return out


def _entry(entry: Any, n: int, source: str) -> Replicas:
    """One checked entry of ``partitions`` (the ``n``-th, counted from 0)."""
    def bad(problem: str) -> ToolOutputError:
        return ToolOutputError(f"partitions[{n}]{problem}", source=source)

    if not isinstance(entry, dict):
        raise bad(' must be an object with "topic", "partition" and "replicas"')
    topic, partition, replicas = entry.get("topic"), entry.get("partition"), entry.get("replicas")
    if not isinstance(topic, str) or not topic:
        raise bad(f': "topic" must be a non-empty string, got {topic!r}')
    if isinstance(partition, bool) or not isinstance(partition, int) or not 0 <= partition < 2 ** 31:
        raise bad(f' ({topic}): "partition" must be a non-negative integer, got {partition!r}')
    name = f" ({topic}-{partition})"
    if not isinstance(replicas, list) or not replicas:
        raise bad(f'{name}: "replicas" must be a non-empty list of broker ids, got {replicas!r}')
    wrong = [b for b in replicas if not _is_int(b) or not 0 <= b < 2 ** 31]
    if wrong:
        raise bad(f'{name}: "replicas" must hold broker ids (non-negative integers), got {wrong[0]!r}')
    twice = sorted({b for b in replicas if replicas.count(b) > 1})
    if twice:
        raise bad(f'{name}: broker {twice[0]} is listed twice in "replicas"')
    dirs = entry.get("log_dirs")
    if dirs is not None and (not isinstance(dirs, list) or len(dirs) != len(replicas)):
        raise bad(f'{name}: "log_dirs" must list one directory per replica ({len(replicas)}), got {dirs!r}')
    return topic, partition, list(replicas)


def format_reassignment(partitions: Iterable[Replicas]) -> str:
    """The reassignment JSON of ``partitions``, as Kafka writes it: sorted by topic and
    partition, every ``log_dirs`` entry ``any``, compact.

    Example::

        format_reassignment([("t", 0, [1, 2])])
        # '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}'
    """
    ordered: Sequence[Replicas] = sorted(partitions, key=lambda p: (p[0], p[1]))
    body = [{"topic": t, "partition": int(p), "replicas": [int(b) for b in r], "log_dirs": [ANY_LOG_DIR] * len(r)}
            for t, p, r in ordered]
    return json.dumps({"version": 1, "partitions": body}, separators=(",", ":"), ensure_ascii=False)

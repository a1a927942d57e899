"""The partition reassignment JSON of ``kafka-reassign-partitions``, read and written.

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
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from .runtime import CliError

__all__ = ["ANY_LOG_DIR", "parse_reassignment", "format_reassignment", "Replicas"]

#: Kafka's ``log_dirs`` entry for "wherever the broker puts it".
ANY_LOG_DIR = "any"
#: One partition's replicas: (topic, partition, broker ids with the preferred leader first).
Replicas = Tuple[str, int, List[int]]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_reassignment(text: str, source: str) -> List[Replicas]:
    """The partitions of a reassignment JSON ``text`` (read from ``source``, named in errors),
    in the order given; :class:`~.runtime.CliError` for anything ``--execute`` would refuse.

    Example::

        parse_reassignment('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}', "f.json")
        # [("t", 0, [1, 2])]
    """
    try:
        data = json.loads(text)
    except ValueError as e:
        raise CliError(f"{source}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise CliError(f"{source}: expected a JSON object with \"version\" and \"partitions\"")
    version = data.get("version", 1)
    if version != 1:
        raise CliError(f"{source}: version {version!r} is not supported (Kafka's reassignment JSON is version 1)")
    entries = data.get("partitions")
    if not isinstance(entries, list) or not entries:
        raise CliError(f"{source}: \"partitions\" must be a non-empty list of "
                       "{\"topic\", \"partition\", \"replicas\"} objects")
    out: List[Replicas] = []
    seen: Dict[Tuple[str, int], int] = {}
    for n, entry in enumerate(entries):
        topic, partition, replicas = _entry(entry, n, source)
        if (topic, partition) in seen:
            raise CliError(f"{source}: partition {topic}-{partition} is listed twice (entries {seen[(topic, partition)]} "
                           f"and {n})")
        seen[(topic, partition)] = n
        out.append((topic, partition, replicas))
    return out


def _entry(entry: Any, n: int, source: str) -> Replicas:
    """One checked entry of ``partitions`` (the ``n``-th, counted from 0)."""
    where = f"{source}: partitions[{n}]"
    if not isinstance(entry, dict):
        raise CliError(f"{where} must be an object with \"topic\", \"partition\" and \"replicas\"")
    topic, partition, replicas = entry.get("topic"), entry.get("partition"), entry.get("replicas")
    if not isinstance(topic, str) or not topic:
        raise CliError(f"{where}: \"topic\" must be a non-empty string, got {topic!r}")
    if isinstance(partition, bool) or not isinstance(partition, int) or not 0 <= partition < 2 ** 31:
        raise CliError(f"{where} ({topic}): \"partition\" must be a non-negative integer, got {partition!r}")
    name = f"{where} ({topic}-{partition})"
    if not isinstance(replicas, list) or not replicas:
        raise CliError(f"{name}: \"replicas\" must be a non-empty list of broker ids, got {replicas!r}")
    bad = [b for b in replicas if not _is_int(b) or not 0 <= b < 2 ** 31]
    if bad:
        raise CliError(f"{name}: \"replicas\" must hold broker ids (non-negative integers), got {bad[0]!r}")
    twice = sorted({b for b in replicas if replicas.count(b) > 1})
    if twice:
        raise CliError(f"{name}: broker {twice[0]} is listed twice in \"replicas\"")
    dirs = entry.get("log_dirs")
    if dirs is not None and (not isinstance(dirs, list) or len(dirs) != len(replicas)):
        raise CliError(f"{name}: \"log_dirs\" must list one directory per replica ({len(replicas)}), got {dirs!r}")
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

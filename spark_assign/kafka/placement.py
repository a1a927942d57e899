"""A cluster's current replica placement from whatever Kafka's tools gave the user.

:func:`read_current_placement` takes, and tells apart by their first lines:

* a reassignment JSON (``{"version":1,"partitions":[...]}``), as saved for a rollback;
* the whole output of ``kafka-reassign-partitions --generate`` or ``--execute``: its
  ``Current partition replica assignment`` (the proposal of ``--generate`` is Kafka's
  topic-by-topic answer, not the placement);
* the output of ``kafka-topics --describe``: each partition's replicas, without those a running
  reassignment is still adding.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import List

from ..errors import AssumptionWarning, ToolOutputError
from .reassignment import CURRENT_TITLE, Replicas, parse_reassignment, read_reassignment_output
from .topics import read_topics_describe

__all__ = ["CurrentPlacement", "read_current_placement"]


@dataclass(frozen=True)
class CurrentPlacement:
    """The placement read, what it was read from, and one line per assumption made."""

    partitions: List[Replicas]
    read_as: str
    notes: List[str] = field(default_factory=list)


def read_current_placement(text: str, source: str) -> CurrentPlacement:
    """The current replicas of every partition in ``text`` (see the module), in the order given;
    each assumption made is a note of the result and an
    :class:`~spark_assign.errors.AssumptionWarning` naming ``source``.

    Example::

        placement = read_current_placement(open("generate-output.txt").read(), "generate-output.txt")
        placement.read_as      # "kafka-reassign-partitions --generate output"
        placement.partitions   # [("orders", 0, [1, 2, 3]), ...]

    Raises :class:`~spark_assign.errors.ToolOutputError` naming the line not understood.
    """
    placement = _read(text, source)
    for note in placement.notes:
        warnings.warn(f"{source} ({placement.read_as}): {note}", AssumptionWarning, stacklevel=2)
    return placement


def _read(text: str, source: str) -> CurrentPlacement:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        return CurrentPlacement(parse_reassignment(text, source), "reassignment JSON")
    if CURRENT_TITLE in text:
        output = read_reassignment_output(text, source)
        if output.proposed is None:
            return CurrentPlacement(output.current, "kafka-reassign-partitions --execute output",
                                    ["read the assignment before the --execute (what it printed for a rollback)"])
        return CurrentPlacement(output.current, "kafka-reassign-partitions --generate output",
                                ["read its current assignment; its proposal (Kafka's placement, topic by topic) "
                                 "is not used"])
    if first.startswith("Topic:") or first.startswith("Topic\t"):
        parts = read_topics_describe(text, source)
        moving = [p for p in parts if p.adding or p.removing]
        notes = [f"{len(moving)} partitions are being reassigned: read the replicas they have, without those "
                 "still being added"] if moving else []
        return CurrentPlacement([(p.topic, p.partition, p.current_replicas) for p in parts],
                                "kafka-topics --describe output", notes)
    raise ToolOutputError(f"not understood: {first[:80]!r}: expected a reassignment JSON, or the output of "
                          "kafka-reassign-partitions (--generate, --execute) or of kafka-topics --describe",
                          source=source, line=1)

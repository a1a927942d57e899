"""The text ``kafka-consumer-groups.sh --describe`` prints, read back: with ``--members``, each
group's members and what they own, and the subscription rows ``assign_partitions`` takes; with
``--offsets`` (the default), each partition's committed offset and lag, as weights.

Layout (``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand``, ``printMembers``): per
group, a blank line, a header and one line per member, in columns padded with spaces to the
widest value (so a value starts where its header does). The header is ``GROUP``,
``CONSUMER-ID``, ``GROUP-INSTANCE-ID`` (only when a member of the group has one), ``HOST``,
``CLIENT-ID``, ``#PARTITIONS``, and with ``--verbose``:

* releases with KIP-848's columns: ``CURRENT-EPOCH``, ``CURRENT-ASSIGNMENT``, ``TARGET-EPOCH``,
  ``TARGET-ASSIGNMENT`` (and ``UPGRADED`` while a group migrates to KIP-848), an assignment
  written ``topic:0,1;other:2`` (topics sorted, partitions ascending);
* earlier releases: ``ASSIGNMENT``, written ``topic(0,1), other(2)``.

Java pads by UTF-16 units (a character outside the Basic Multilingual Plane, an emoji, counts
two), and so does this reader when it cuts a line at the header's columns.

``-`` stands for a missing value. The text does not list subscriptions; see
:func:`subscription_rows` for what is assumed.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..errors import AssumptionWarning, InvalidInputError, ToolOutputError

__all__ = ["GroupMember", "read_group_members", "subscription_rows", "ASSUMPTIONS", "PartitionLag",
           "read_group_offsets", "lag_weights", "GroupState", "read_group_states", "group_strategies"]

MISSING = "-"
TopicPartitions = List[Tuple[str, int]]
#: How :func:`subscription_rows` fills in the subscriptions the text lacks.
ASSUMPTIONS = ("group", "assigned")
_REQUIRED = ("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS")
_OFFSET_COLUMNS = ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
_OLD_ASSIGNMENT = re.compile(r"([^\s(),]+)\(([\d,]*)\)")


@dataclass(frozen=True)
class GroupMember:
    """One member line of ``kafka-consumer-groups --describe --members``."""

    group_id: str
    member_id: str
    group_instance_id: Optional[str]
    host: str
    client_id: str
    partition_count: int
    assignment: Optional[TopicPartitions]          # None: not printed (no --verbose)
    target_assignment: Optional[TopicPartitions]   # KIP-848's column (--verbose), else None


def read_group_members(text: str, source: str) -> List[GroupMember]:
    """The members of every group in ``text`` (``--describe --members``, with or without
    ``--verbose``, one group or ``--all-groups``), in the order printed.

    Example::

        members = read_group_members(open("groups.txt").read(), "groups.txt")
        [(m.group_id, m.member_id, m.assignment) for m in members]
    """
    return [_member(cells, source, number) for number, cells in _rows(text, source, _MEMBERS)]


@dataclass(frozen=True)
class _Layout:
    """One ``--describe`` layout: its header's required columns, and how errors name it."""

    required: Tuple[str, ...]
    rows: str            # what the lines under the header are
    option: str          # the flag that prints it
    header: str          # the header's start, as errors show it
    hint: str            # what another header probably was


_MEMBERS = _Layout(_REQUIRED, "members", "--members", "GROUP  CONSUMER-ID ...",
                   "--describe --offsets or --state output? (give --members)")
_OFFSETS = _Layout(_OFFSET_COLUMNS, "partitions", "--offsets", "GROUP  TOPIC  PARTITION ...",
                   "--describe --members or --state output? (give --offsets)")


def _rows(text: str, source: str, layout: _Layout) -> Iterator[Tuple[int, Dict[str, str]]]:
    """Each line under a ``GROUP ...`` header (one per group), cut into its cells: (line number,
    cells). Blank lines and the tool's own notes (``Consumer group 'g' has no active members.``,
    ``Error: ...``) are skipped; a line before any header, or no header, is an error."""
    starts: Optional[List[Tuple[str, int]]] = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith(("Consumer group ", "Error: ")):
            continue
        if line.startswith("GROUP "):
            starts = _columns(line, source, number, layout)
        elif starts is None:
            raise ToolOutputError(f"not understood: {line.strip()[:80]!r} (the {layout.rows} of kafka-consumer-groups "
                                  f"--describe {layout.option} follow a '{layout.header}' header)",
                                  source=source, line=number)
        else:
            yield number, _cells(line, starts)
    if starts is None:
        raise ToolOutputError(f"no '{layout.header}' header: not the output of kafka-consumer-groups --describe "
                              f"{layout.option}", source=source, line=1)


def _columns(header: str, source: str, number: int, layout: _Layout) -> List[Tuple[str, int]]:
    """The header's column names and where each starts; every one ``layout`` requires present."""
    found = [(m.group(0), m.start()) for m in re.finditer(r"\S+", header)]
    names = [name for name, _ in found]
    missing = [name for name in layout.required if name not in names]
    if missing:
        raise ToolOutputError(f"a {layout.rows} header without {', '.join(missing)}: {layout.hint}", source=source,
                              line=number)
    return found


def _cells(line: str, starts: List[Tuple[str, int]]) -> Dict[str, str]:
    """A member line cut at the header's column starts (each value is padded to its column, in
    UTF-16 units as Java counts them; the header is ASCII, so its offsets are such units too)."""
    units = line.encode("utf-16-le")
    cells = {}
    for k, (name, start) in enumerate(starts):
        end = 2 * starts[k + 1][1] if k + 1 < len(starts) else len(units)
        cells[name] = units[2 * start:end].decode("utf-16-le", errors="replace").strip()
    return cells


def _member(cells: Dict[str, str], source: str, number: int) -> GroupMember:
    if not cells["GROUP"] or not cells["CONSUMER-ID"]:
        raise ToolOutputError("a member line without its group or consumer id: cut short, or its columns do not "
                              "line up with the header", source=source, line=number)
    count = cells["#PARTITIONS"]
    if not count.isdigit():
        raise ToolOutputError(f"#PARTITIONS: {count!r} is not a count: the columns do not line up with the header",
                              source=source, line=number)
    instance = cells.get("GROUP-INSTANCE-ID", MISSING)
    assignment = cells.get("CURRENT-ASSIGNMENT", cells.get("ASSIGNMENT"))
    target = cells.get("TARGET-ASSIGNMENT")
    return GroupMember(
        group_id=cells["GROUP"], member_id=cells["CONSUMER-ID"],
        group_instance_id=None if instance in ("", MISSING) else instance,
        host=cells["HOST"], client_id=cells["CLIENT-ID"], partition_count=int(count),
        assignment=None if assignment is None else _assignment(assignment, source, number),
        target_assignment=None if target is None else _assignment(target, source, number))


def _assignment(text: str, source: str, number: int) -> TopicPartitions:
    """``topic:0,1;other:2`` (KIP-848's layout) or ``topic(0,1), other(2)`` (earlier); ``-``: none."""
    if text in ("", MISSING):
        return []
    out: TopicPartitions = []
    if "(" in text:
        matched = _OLD_ASSIGNMENT.findall(text)
        if ", ".join(f"{t}({p})" for t, p in matched) != text:
            raise ToolOutputError(f"ASSIGNMENT: {text[:80]!r} is not 'topic(0,1), other(2)'", source=source,
                                  line=number)
        pairs = matched
    else:
        pairs = [tuple(part.rsplit(":", 1)) for part in text.split(";")]
        if any(len(p) != 2 for p in pairs):
            raise ToolOutputError(f"ASSIGNMENT: {text[:80]!r} is not 'topic:0,1;other:2'", source=source,
                                  line=number)
    for topic, partitions in pairs:
        ids = [p for p in partitions.split(",") if p]
        if not ids or not all(p.isdigit() for p in ids):
            raise ToolOutputError(f"ASSIGNMENT: {topic!r} has no partition list in {text[:80]!r}", source=source,
                                  line=number)
        out += [(topic, int(p)) for p in ids]
    return out


def subscription_rows(members: Sequence[GroupMember], assume: str = "group",
                      source: str = "the members") -> List[tuple]:
    """``assign_partitions``' input rows ``(group_id, member_id, topic, group_instance_id, rack,
    owned_partitions, generation)`` for ``members`` read with ``--verbose`` (their assignment is
    each member's ``owned_partitions``).

    The text does not say what a member subscribes to; ``assume`` says what to take, and an
    :class:`~spark_assign.errors.AssumptionWarning` repeats it in one line:

    * ``"group"`` (default): every member subscribes to every topic its group holds (the usual
      case, where a group's members run one program); an idle member too;
    * ``"assigned"``: a member subscribes to the topics it holds; an idle member to none, and it
      is left out.

    Example::

        rows = subscription_rows(read_group_members(text, "groups.txt"))
        spark.createDataFrame(rows, "group_id string, member_id string, topic string, "
                              "group_instance_id string, rack string, owned_partitions array<int>, generation int")
    """
    if assume not in ASSUMPTIONS:
        raise InvalidInputError(f"assume must be one of {', '.join(ASSUMPTIONS)}; got {assume!r}", column="assume",
                                rows=[assume])
    unverbose = [m for m in members if m.assignment is None]
    if unverbose:
        raise ToolOutputError("the members' assignments are not in the text: run kafka-consumer-groups --describe "
                              "--members with --verbose", source=source)
    held: Dict[str, List[str]] = {}
    for m in members:
        for topic, _ in m.assignment or []:
            if topic not in held.setdefault(m.group_id, []):
                held[m.group_id].append(topic)
    rows = []
    for m in members:
        owned: Dict[str, List[int]] = {}
        for topic, partition in m.assignment or []:
            owned.setdefault(topic, []).append(partition)
        topics = sorted(held.get(m.group_id, [])) if assume == "group" else sorted(owned)
        rows += [(m.group_id, m.member_id, t, m.group_instance_id, None, sorted(owned.get(t, [])), None)
                 for t in topics]
    idle = sum(1 for m in members if not m.assignment)
    said = ("every member subscribes to every topic its group holds" if assume == "group"
            else "a member subscribes to the topics it holds")
    warnings.warn(f"{source}: kafka-consumer-groups does not print subscriptions; assumed {said}"
                  + (f" ({idle} idle members {'get them too' if assume == 'group' else 'left out'})" if idle else ""),
                  AssumptionWarning, stacklevel=2)
    return rows


# ----------------------------------------------------------------------------- --offsets

@dataclass(frozen=True)
class PartitionLag:
    """One line of ``kafka-consumer-groups --describe --offsets``: a partition the group commits to."""

    group_id: str
    topic: str
    partition: int
    current_offset: Optional[int]      # None: ``-`` (nothing committed)
    log_end_offset: Optional[int]
    lag: Optional[int]                 # None: ``-`` (unknown without a committed offset)
    member_id: Optional[str]           # None: ``-`` (no member holds it)


def read_group_offsets(text: str, source: str) -> List[PartitionLag]:
    """The partitions of every group in ``text`` (``--describe``, or ``--describe --offsets``,
    with or without ``--verbose``: its ``LEADER-EPOCH`` column is skipped), in the order printed;
    a member line without a partition (``-``) is skipped.

    Layout (``printOffsets``): per group, a blank line, the header ``GROUP TOPIC PARTITION
    [LEADER-EPOCH] CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID`` and one line per
    partition, padded as the members' lines are.

    Example::

        lags = read_group_offsets(open("offsets.txt").read(), "offsets.txt")
        [(p.group_id, p.topic, p.partition, p.lag) for p in lags]
    """
    out: List[PartitionLag] = []
    for number, cells in _rows(text, source, _OFFSETS):
        if cells["PARTITION"] == MISSING:             # a member holding nothing
            continue
        values = {name: _offset(cells, name, source, number)
                  for name in ("PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")}
        if values["PARTITION"] is None or not cells["GROUP"] or not cells["TOPIC"]:
            raise ToolOutputError("a partition line without its group, topic or partition: cut short, or "
                                  "its columns do not line up with the header", source=source, line=number)
        member = cells.get("CONSUMER-ID", MISSING)
        out.append(PartitionLag(cells["GROUP"], cells["TOPIC"], values["PARTITION"], values["CURRENT-OFFSET"],
                                values["LOG-END-OFFSET"], values["LAG"], None if member in ("", MISSING) else member))
    return out


def _offset(cells: Dict[str, str], name: str, source: str, number: int) -> Optional[int]:
    value = cells[name]
    if value == MISSING:
        return None
    if not value.lstrip("-").isdigit():
        raise ToolOutputError(f"{name}: {value!r} is not a number: the columns do not line up with the header",
                              source=source, line=number)
    return int(value)


def lag_weights(lags: Sequence[PartitionLag], source: str = "the offsets") -> List[tuple]:
    """Weight rows ``(group_id, topic, partition, weight)`` with each partition's lag as its
    weight (``weights=`` of the load-aware strategies: the backlog each member would take on).

    A partition whose lag is unknown (nothing committed: ``-``) gets no row, so it weighs its
    group's mean (docs/load-aware.md); an :class:`~spark_assign.errors.AssumptionWarning` says
    how many. A negative lag (an offset committed past the end, after a truncation) counts 0.

    Example::

        rows = lag_weights(read_group_offsets(text, "offsets.txt"))
        spark.createDataFrame(rows, "group_id string, topic string, partition int, weight double")
    """
    rows = [(p.group_id, p.topic, p.partition, float(max(p.lag, 0))) for p in lags if p.lag is not None]
    unknown = len(lags) - len(rows)
    if unknown:
        warnings.warn(f"{source}: {unknown} partitions have no committed offset, so no lag: each weighs its "
                      "group's mean", AssumptionWarning, stacklevel=2)
    return rows


# ----------------------------------------------------------------------------- --state

@dataclass(frozen=True)
class GroupState:
    """One group of ``kafka-consumer-groups --describe --state``."""

    group_id: str
    coordinator: str                   # host:port (id)
    strategy: Optional[str]            # the assignor the group runs; None while it has none (an empty group)
    state: str                         # Stable, Empty, PreparingRebalance, ...
    members: int


# ``printStates`` pads GROUP to the coordinator's width (not the group's) and prints the strategy
# as is, empty for an empty group: a value line is read from the right, not at the header's offsets.
_STATE_LINE = re.compile(r"^(?P<group>.*?)\s+(?P<coordinator>\S*:-?\d+\s+\(-?\d+\))\s+(?P<strategy>\S*)\s+"
                         r"(?P<state>[A-Za-z]+)\s+(?P<members>\d+)\s*$")
_STATE_HEADER = ("GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")


def read_group_states(text: str, source: str) -> List[GroupState]:
    """The groups of ``kafka-consumer-groups --describe --state`` (one group or ``--all-groups``),
    in the order printed: each group's assignment strategy, state and member count.

    Layout (``printStates``): per group, a blank line, the header ``GROUP COORDINATOR (ID)
    ASSIGNMENT-STRATEGY STATE #MEMBERS`` and the group's line. A group id may hold spaces; the
    strategy is blank for a group without members.

    Example::

        states = read_group_states(open("state.txt").read(), "state.txt")
        group_strategies(states)      # {'orders': 'cooperative-sticky', ...}
    """
    out: List[GroupState] = []
    header = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith(("Consumer group ", "Error: ", "Warning: ")):
            continue
        if line.startswith("GROUP "):
            missing = [name for name in _STATE_HEADER if name not in line.split()]
            if missing:
                raise ToolOutputError(f"a header without {', '.join(missing)}: --describe --members or --offsets "
                                      "output? (give --state)", source=source, line=number)
            header = True
            continue
        matched = _STATE_LINE.match(line)
        if not header or matched is None:
            raise ToolOutputError(f"not understood: {line.strip()[:80]!r} (a group line of kafka-consumer-groups "
                                  "--describe --state: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS)",
                                  source=source, line=number)
        out.append(GroupState(matched["group"], matched["coordinator"], matched["strategy"] or None,
                              matched["state"], int(matched["members"])))
    if not header:
        raise ToolOutputError("no 'GROUP  COORDINATOR (ID) ...' header: not the output of kafka-consumer-groups "
                              "--describe --state", source=source, line=1)
    return out


def group_strategies(states: Sequence[GroupState]) -> Dict[str, str]:
    """Each group's strategy by this package's name (:func:`spark_assign.core.strategy_names`):
    Kafka's client assignors keep their names, a KIP-848 group's ``uniform`` is ``uniform``; a
    group without one (empty) is left out. ``range`` is read as the client ``RangeAssignor``
    (the text does not say whether the group is KIP-848's, whose server ``range`` is
    ``server-range`` here)."""
    return {s.group_id: s.strategy for s in states if s.strategy is not None}

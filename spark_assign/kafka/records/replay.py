"""Replaying one ``__consumer_offsets`` partition, as Kafka's group coordinator loads it.

Kafka keeps every group's records in one partition of ``__consumer_offsets`` (the partition of the
group id's hash) and rebuilds its state by reading that partition in offset order: a record
replaces the previous one with its key, a record without a value (a tombstone) deletes it. This
module does the same to one partition's records, then turns what is left into rows:

1. **latest**: the last record of each key, in offset order (Arrow's hash aggregation; the two
   offset-commit key types are one key, as Kafka decodes them);
2. **tombstones**: keys whose last record has no value are gone;
3. **offset commits** (types 0, 1): decoded a column at a time (:mod:`.offsets`);
4. **group records** (types 2-8): decoded one by one, gathered per group, built into the group,
   subscription and assignment rows (:mod:`.groups`);
5. **problems**: a key or value this module cannot read, or a group it cannot build whole, is a
   problem row; the group it belongs to is left out of the group frames (never half there).

Share-group records (types 9-15) are another kind of group and are passed over.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Set, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import RecordFormatError
from ...schema import KAFKA_ASSIGNMENT_COLUMNS, KAFKA_GROUP_COLUMNS, KAFKA_PROBLEM_COLUMNS, SUBSCRIPTION_COLUMNS
from ...types import arrow_schema
from .arrays import flat, int_reader
from .decode import decode_key, decode_value
from .groups import ConsumerGroupRecords, GroupRows, classic_group, consumer_group
from .offsets import decode_offset_commits
from .schemas import GROUP_METADATA, OFFSET_COMMIT_TYPES, SHARE_GROUP_TYPES

__all__ = ["Frames", "replay_partition", "GROUPS_SCHEMA", "SUBSCRIPTIONS_SCHEMA", "ASSIGNMENT_SCHEMA",
           "PROBLEMS_SCHEMA"]

GROUPS_SCHEMA = arrow_schema(KAFKA_GROUP_COLUMNS)
SUBSCRIPTIONS_SCHEMA = arrow_schema([(n, t) for n, t, _ in SUBSCRIPTION_COLUMNS])
ASSIGNMENT_SCHEMA = arrow_schema(KAFKA_ASSIGNMENT_COLUMNS)
PROBLEMS_SCHEMA = arrow_schema(KAFKA_PROBLEM_COLUMNS)


class Frames(NamedTuple):
    """One partition's rows, frame by frame (Arrow tables in the schemas of ``spark_assign.schema``)."""

    groups: pa.Table
    subscriptions: pa.Table
    assignment: pa.Table
    offsets: pa.Table
    problems: pa.Table


class _Problems:
    """Problem rows as they are found, each at its record."""

    def __init__(self, partition: int, keys: pa.Array, offsets: np.ndarray) -> None:
        self.partition, self.keys, self.offsets = partition, keys, offsets
        self.rows: List[Tuple[Any, ...]] = []

    def add(self, row: int, group: Optional[str], record_type: Optional[int], problem: str) -> None:
        self.rows.append((self.partition, int(self.offsets[row]), self.keys[row].as_py(), group, record_type, problem))

    def table(self) -> pa.Table:
        return _table(self.rows, PROBLEMS_SCHEMA)


def _table(rows: List[Tuple[Any, ...]], schema: pa.Schema) -> pa.Table:
    columns: List[Any] = list(zip(*rows)) if rows else [[] for _ in schema]
    return pa.table([pa.array(list(c), type=f.type) for c, f in zip(columns, schema)], schema=schema)


def _latest(keys: pa.Array) -> np.ndarray:
    """Row numbers of the last record of each non-null key, ascending. Keys are compared as Kafka
    compares them, decoded: the two offset-commit key types (0 and 1) have one layout, so a commit
    under either replaces one under the other."""
    rows = pa.array(np.arange(len(keys), dtype=np.int64))
    commit_v0 = pc.fill_null(pc.starts_with(keys.cast(pa.binary()), pattern=b"\x00\x00"), False)
    same = pc.if_else(commit_v0, pc.binary_replace_slice(keys, start=0, stop=2, replacement=b"\x00\x01"), keys)
    last = pa.table({"k": same, "i": rows}).filter(keys.is_valid()).group_by("k", use_threads=False) \
        .aggregate([("i", "max")]).column("i_max")
    return np.sort(last.to_numpy())


def _record_types(keys: pa.Array, rows: np.ndarray) -> np.ndarray:
    """The ``int16`` each key starts with; -1 for a key shorter than two bytes."""
    data, start, end = flat(keys.take(pa.array(rows, type=pa.int64())))
    return np.where(end - start >= 2, int_reader(data)(start, 2), -1)


class _GroupRecords:
    """A partition's group records, gathered per group as they are decoded."""

    def __init__(self) -> None:
        self.classic: Dict[str, Tuple[int, Dict[str, Any]]] = {}
        self.consumer: Dict[str, Dict[str, Any]] = {}
        self.where: Dict[str, Tuple[int, int]] = {}                 # group -> (row, type) of a record
        self.broken: Set[str] = set()

    def add(self, row: int, record_type: int, group: str, fields: Dict[str, Any], value: Dict[str, Any]) -> None:
        self.where.setdefault(group, (row, record_type))
        if record_type == GROUP_METADATA:
            self.classic[group] = (row, value)
            return
        parts = self.consumer.setdefault(group, {"topics": {}, "members": {}, "current": {}, "regexes": {},
                                                  "epoch": None})
        if record_type == 3:
            parts["epoch"] = value["Epoch"]
            self.where[group] = (row, record_type)
        elif record_type == 4:
            parts["topics"] = {t["TopicId"]: t["TopicName"] for t in value["Topics"]}
        elif record_type == 5:
            parts["members"][fields["MemberId"]] = value
        elif record_type == 8:
            parts["current"][fields["MemberId"]] = value
        elif record_type == 16:
            parts["regexes"][fields["RegularExpression"]] = value["Topics"]
        # 6 and 7, the target assignment, say what the group is moving to, not what members hold.


def _group_rows(records: _GroupRecords, problems: _Problems, topic_ids: Mapping[str, str]) -> List[GroupRows]:
    built: List[GroupRows] = []
    for group, (row, value) in records.classic.items():
        if group in records.broken:
            continue
        try:
            built.append(classic_group(group, value))
        except RecordFormatError as e:
            problems.add(row, group, GROUP_METADATA, str(e))
    for group, parts in records.consumer.items():
        if group in records.broken:
            continue
        row, record_type = records.where[group]
        if parts["epoch"] is None:
            problems.add(row, group, record_type, "records of a consumer group without its group metadata record")
            continue
        try:
            built.append(consumer_group(group, ConsumerGroupRecords(
                parts["epoch"], {**topic_ids, **parts["topics"]}, parts["members"], parts["current"], parts["regexes"])))
        except RecordFormatError as e:
            problems.add(row, group, record_type, str(e))
    return built


def replay_partition(partition: int, keys: pa.Array, values: pa.Array, offsets: np.ndarray,
                     topic_ids: Optional[Mapping[str, str]] = None) -> Frames:
    """The rows of one ``__consumer_offsets`` partition's records, given in offset order.

    Parameters
    ----------
    partition:
        The partition's number (for the problem rows).
    keys, values:
        Binary Arrow arrays, one element per record; a null value is a tombstone.
    offsets:
        Each record's offset, ascending.
    topic_ids:
        Topic id (as Kafka prints it) -> name, for KIP-848 groups whose records do not name their
        topics (Kafka 4.1+ writes no partition metadata); a group's own records win.

    Example
    -------
    >>> import numpy as np, pyarrow as pa
    >>> f = replay_partition(0, pa.array([b"\\x00\\x02\\x00\\x01g"], pa.binary()), pa.array([None], pa.binary()),
    ...                      np.array([0]))
    >>> f.groups.num_rows, f.problems.num_rows
    (0, 0)
    """
    problems = _Problems(partition, keys, offsets)
    for row in np.flatnonzero(keys.is_null().to_numpy(zero_copy_only=False)).tolist():
        problems.add(row, None, None, "a record without a key")
    latest = _latest(keys)
    live = latest[values.take(pa.array(latest)).is_valid().to_numpy(zero_copy_only=False)] if len(latest) else latest
    types = _record_types(keys, live)

    is_commit = np.isin(types, OFFSET_COMMIT_TYPES)
    commits, commit_types = live[is_commit], types[is_commit]
    decoded = decode_offset_commits(keys.take(pa.array(commits)), values.take(pa.array(commits)))
    for row, committer, problem in decoded.problems:
        problems.add(int(commits[row]), committer or None, int(commit_types[row]), problem)

    records = _GroupRecords()
    for row, record_type in zip(live.tolist(), types.tolist()):
        if record_type in OFFSET_COMMIT_TYPES or record_type in SHARE_GROUP_TYPES:
            continue
        group: Optional[str] = None
        try:
            key = decode_key(keys[row].as_py())
            group = key.group_id
            _, value = decode_value(record_type, values[row].as_py())
        except RecordFormatError as e:
            problems.add(row, group, record_type if record_type >= 0 else None, str(e))
            if group is not None:
                records.broken.add(group)
            continue
        records.add(row, record_type, group or "", key.fields, value)

    built = _group_rows(records, problems, topic_ids or {})
    return Frames(
        _table([b.group for b in built], GROUPS_SCHEMA),
        _table([r for b in built for r in b.subscriptions], SUBSCRIPTIONS_SCHEMA),
        _table([r for b in built for r in b.assignment], ASSIGNMENT_SCHEMA),
        decoded.table,
        problems.table(),
    )

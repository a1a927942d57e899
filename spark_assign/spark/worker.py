"""What runs in Spark's Python workers: wire rows in, assigned partitions out.

The job hash-partitions the wire rows by group and sorts each partition by
group, so a worker sees every group's rows contiguously, possibly split across
Arrow batches. :func:`assign_batches` walks the batches, carries a group that
continues into the next batch, calls the engine once per complete group and
yields one output batch per input batch. No Python object per partition is
built on the way out: names are Arrow dictionaries, numbers NumPy arrays.

Row kinds on the wire (``kind`` column): subscriptions (0), previous
assignment rows (1) and topic replica racks (2); see :mod:`.wire`.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np
import pyarrow as pa

from ..core import STATUS_NAMES, GroupInput, assign_group
from ..errors import InvalidInputError
from .wire import KIND_PREVIOUS, KIND_RACKS, KIND_SUBSCRIPTION, result_arrow_schema

__all__ = ["assign_batches", "GroupRows"]


class _Columns:
    """One Arrow batch's columns as Python lists and NumPy arrays (converted once)."""

    def __init__(self, batch: pa.RecordBatch) -> None:
        col = batch.column
        names = batch.schema.names
        self.n = batch.num_rows
        self.group = col(names.index("group_id")).to_pylist()
        self.kind = np.asarray(col(names.index("kind")).fill_null(0), dtype=np.int8)
        self.member = col(names.index("member_id")).to_pylist()
        self.topic = col(names.index("topic")).to_pylist()
        self.instance = col(names.index("group_instance_id")).to_pylist()
        self.rack = col(names.index("rack")).to_pylist()
        self.generation = col(names.index("generation")).to_pylist()
        self.num_partitions = col(names.index("num_partitions")).to_pylist()
        self.partition = col(names.index("partition")).to_pylist()
        self.status = col(names.index("status")).to_pylist()
        owned = col(names.index("owned_partitions"))
        self.owned_null = np.asarray(owned.is_null(), dtype=bool)
        self.owned_offsets = np.asarray(owned.offsets, dtype=np.int64)
        self.owned_values = owned.values.to_numpy(zero_copy_only=False)
        self.racks = col(names.index("replica_racks")).to_pylist()
        self.metadata_rows = col(names.index("metadata_rows")).to_pylist()


class GroupRows:
    """The rows of one group, as the engine's columnar input."""

    def __init__(self, c: _Columns, start: int, stop: int, group_column: bool = True) -> None:
        self.group_id = c.group[start]
        if group_column and self.group_id is None and c.kind[start] == KIND_SUBSCRIPTION:
            raise InvalidInputError("null group_id", column="group_id",
                                    rows=[self._row(c, i) for i in range(start, min(stop, start + 5))])
        members: Dict[str, int] = {}
        member_rows: List[int] = []
        topics: Dict[str, int] = {}
        counts: List[int] = []
        sub_m: List[int] = []
        sub_t: List[int] = []
        cl_m: List[int] = []
        cl_t: List[int] = []
        cl_p: List[int] = []
        claimed_from_rows = set()
        previous: List[int] = []
        racks: Dict[str, Sequence] = {}
        attrs: Dict[int, tuple] = {}

        def topic_code(name: str, count: Optional[int]) -> int:
            code = topics.get(name)
            if code is None:
                code = topics[name] = len(counts)
                counts.append(-1 if count is None else count)
            return code

        for i in range(start, stop):
            kind = c.kind[i]
            if kind == KIND_PREVIOUS:
                previous.append(i)
                continue
            if kind == KIND_RACKS:
                racks[c.topic[i]] = c.racks[i]
                continue
            member = c.member[i]
            if not isinstance(member, str) or not member:
                raise InvalidInputError("null or empty member_id", column="member_id",
                                        rows=[self._row(c, i)], group=self.group_id)
            m = members.get(member)
            if m is None:
                m = members[member] = len(member_rows)
                member_rows.append(i)
                attrs[m] = (c.instance[i], c.rack[i], c.generation[i])
            elif attrs[m] != (c.instance[i], c.rack[i], c.generation[i]):
                first = member_rows[m]
                column = ("group_instance_id" if attrs[m][0] != c.instance[i]
                          else "rack" if attrs[m][1] != c.rack[i] else "generation")
                raise InvalidInputError(f"a member's rows disagree on {column}", column=column,
                                        rows=[self._row(c, first), self._row(c, i)], group=self.group_id)
            count = c.num_partitions[i]
            if (c.metadata_rows[i] or 1) > 1:
                raise InvalidInputError(f"topic has {c.metadata_rows[i]} rows in the topic metadata",
                                        column="topic", rows=[c.topic[i]], group=self.group_id)
            if count is not None and count < 0:
                raise InvalidInputError("negative partition count", column="num_partitions",
                                        rows=[(c.topic[i], count)], group=self.group_id)
            topic = c.topic[i]
            if topic is None:
                continue                          # a member that subscribes to nothing
            t = topic_code(topic, count)
            sub_m.append(m)
            sub_t.append(t)
            if not c.owned_null[i]:
                claimed_from_rows.add(m)
                lo, hi = c.owned_offsets[i], c.owned_offsets[i + 1]
                parts = c.owned_values[lo:hi]
                cl_m.extend([m] * len(parts))
                cl_t.extend([t] * len(parts))
                cl_p.extend(parts.tolist())

        ids = list(members)
        self.member_ids = ids
        instances = [c.instance[member_rows[m]] for m in range(len(ids))]
        generations = [c.generation[member_rows[m]] for m in range(len(ids))]
        self.spec = GroupInput(
            member_ids=ids,
            topic_names=list(topics),
            topic_counts=np.asarray(counts, dtype=np.int64),
            sub_member=np.asarray(sub_m, dtype=np.int64),
            sub_topic=np.asarray(sub_t, dtype=np.int64),
            instance_ids=instances,
            racks=[c.rack[member_rows[m]] for m in range(len(ids))],
            partition_racks=racks or None,
        )
        self.latest = self._apply_previous(c, previous, members, instances, claimed_from_rows, topic_code,
                                           generations, cl_m, cl_t, cl_p)
        self.spec.claim_member = np.asarray(cl_m, dtype=np.int64)
        self.spec.claim_topic = np.asarray(cl_t, dtype=np.int64)
        self.spec.claim_partition = np.asarray(cl_p, dtype=np.int64)
        self.spec.generations = generations
        claimed_gens = [g for g in generations if g is not None]
        self.generation = max([self.latest] + claimed_gens) + 1 if (self.latest or claimed_gens) else 1
        self.spec.topic_names = list(topics)
        self.spec.topic_counts = np.asarray(counts, dtype=np.int64)

    def _apply_previous(self, c, previous, members, instances, claimed_from_rows, topic_code,
                        generations, cl_m, cl_t, cl_p) -> int:
        """Members' claims from the latest previous generation, prior owners and pending transfers.

        A member that carries its own ``owned_partitions`` keeps those claims; a
        static member that rejoined under a new member id inherits the claims
        of its ``group_instance_id``. Returns the latest previous generation (0 if none).
        """
        self.renamed: Dict[str, str] = {}       # new member id -> the old one whose claims it inherited
        if not previous:
            return 0
        latest = max((c.generation[i] for i in previous if c.generation[i] is not None), default=0)
        by_instance = {s: m for m, s in enumerate(instances) if s is not None}
        prior_t, prior_p, prior_o, pend_t, pend_p = [], [], [], [], []
        owner_names: Dict[str, int] = {}
        for i in previous:
            if c.generation[i] != latest or c.topic[i] is None or c.partition[i] is None:
                continue
            owner = c.member[i]
            t = topic_code(c.topic[i], None)
            if owner is None:
                if c.status[i] == "revoked":
                    pend_t.append(t)
                    pend_p.append(c.partition[i])
                continue
            m = members.get(owner)
            if m is None and c.instance[i] is not None:
                m = by_instance.get(c.instance[i])
                if m is not None:
                    self.renamed[self.member_ids[m]] = owner
            if m is None:                         # the owner left: remembered for previous_member_id
                prior_t.append(t)
                prior_p.append(c.partition[i])
                prior_o.append(owner_names.setdefault(owner, len(owner_names)))
            elif m not in claimed_from_rows:
                cl_m.append(m)
                cl_t.append(t)
                cl_p.append(c.partition[i])
                generations[m] = latest
        self.spec.prior_topic = np.asarray(prior_t, dtype=np.int64)
        self.spec.prior_partition = np.asarray(prior_p, dtype=np.int64)
        self.spec.prior_owner = np.asarray(prior_o, dtype=np.int64)
        self.spec.prior_owner_names = list(owner_names)
        self.spec.pending_topic = np.asarray(pend_t, dtype=np.int64)
        self.spec.pending_partition = np.asarray(pend_p, dtype=np.int64)
        return latest

    @staticmethod
    def _row(c: _Columns, i: int) -> tuple:
        return (c.member[i], c.topic[i])


class _Output:
    """Accumulates groups' results into one Arrow batch (names as dictionaries)."""

    def __init__(self) -> None:
        self.names: List[str] = []
        self.parts: Dict[str, List[np.ndarray]] = {k: [] for k in
                                                   ("group", "generation", "member", "topic", "partition",
                                                    "previous", "status", "instance")}
        self.groups: List[object] = []
        self.instances: List[Optional[str]] = []

    def add(self, rows: GroupRows, result) -> None:
        n = len(result.owner)
        if n == 0:
            return
        base = len(self.names)
        g = result.group
        self.names.extend(g.topic_names)
        owner_names = g.owner_names()
        topic_codes = base + result.topic
        base_m = len(self.names)
        self.names.extend(owner_names)
        base_p = len(self.names)
        renamed = getattr(rows, "renamed", {})
        self.names.extend([renamed.get(n, n) for n in owner_names])   # a restarted static member's old id
        group_code = len(self.groups)
        self.groups.append(rows.group_id)
        p = self.parts
        p["group"].append(np.full(n, group_code, dtype=np.int32))
        p["generation"].append(np.full(n, rows.generation, dtype=np.int32))
        p["member"].append(np.where(result.owner >= 0, base_m + result.owner, -1))
        p["topic"].append(topic_codes)
        p["partition"].append(result.partition.astype(np.int32))
        p["previous"].append(np.where(result.previous_owner >= 0, base_p + result.previous_owner, -1))
        p["status"].append(result.status.astype(np.int32))
        base_i = len(self.instances)
        self.instances.extend(g.instance_ids)
        p["instance"].append(np.where(result.owner >= 0, base_i + result.owner, -1))

    def batch(self, with_instance: bool = False) -> Optional[pa.RecordBatch]:
        if not self.parts["group"]:
            return None
        cat = {k: np.concatenate(v) for k, v in self.parts.items()}
        names = pa.array(self.names, type=pa.string())

        def strings(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
            mask = codes < 0
            idx = pa.array(np.where(mask, 0, codes).astype(np.int32), mask=mask if mask.any() else None)
            return pa.DictionaryArray.from_arrays(idx, dictionary).cast(pa.string())

        columns = [
            strings(cat["group"], pa.array(self.groups, type=pa.string())),
            pa.array(cat["generation"], type=pa.int32()),
            strings(cat["member"], names),
            strings(cat["topic"], names),
            pa.array(cat["partition"], type=pa.int32()),
            strings(cat["previous"], names),
            strings(cat["status"], pa.array(STATUS_NAMES, type=pa.string())),
        ]
        if with_instance:
            columns.append(strings(cat["instance"], pa.array(self.instances, type=pa.string())))
        return pa.RecordBatch.from_arrays(columns, schema=result_arrow_schema(with_instance))


def assign_batches(batches: Iterator[pa.RecordBatch], strategy: str, group_column: bool = True,
                   with_instance: bool = False) -> Iterator[pa.RecordBatch]:
    """Assign every group in ``batches`` (sorted by group; a group may span batches).

    ``group_column``: the input had a ``group_id`` column, so a null one is an error.
    ``with_instance``: add each owner's ``group_instance_id`` (for the state table).
    """
    pending: List[pa.RecordBatch] = []        # the rows so far of a group that may continue
    for batch in batches:
        if batch.num_rows == 0:
            continue
        c = _Columns(batch)
        starts = _group_starts(c.group)
        out = _Output()
        if pending:
            if c.group[0] != pending[0].column("group_id")[0].as_py():
                _assign_rows(pending, strategy, out, group_column)
                pending = []
            elif len(starts) == 2:                # the whole batch continues the pending group
                pending.append(batch)
                continue
            else:
                _assign_rows(pending + [batch.slice(0, starts[1])], strategy, out, group_column)
                pending = []
                starts = starts[1:]
        for s, e in zip(starts[:-2], starts[1:-1]):
            _assign_one(c, s, e, strategy, out, group_column)
        pending = [batch.slice(starts[-2])]       # the last group may continue in the next batch
        done = out.batch(with_instance)
        if done is not None:
            yield done
    if pending:
        out = _Output()
        _assign_rows(pending, strategy, out, group_column)
        done = out.batch(with_instance)
        if done is not None:
            yield done


def _assign_rows(parts: List[pa.RecordBatch], strategy: str, out: _Output, group_column: bool) -> None:
    """Assign one group whose rows are spread over ``parts``."""
    batch = parts[0] if len(parts) == 1 else pa.Table.from_batches(parts).combine_chunks().to_batches()[0]
    c = _Columns(batch)
    _assign_one(c, 0, c.n, strategy, out, group_column)


def _group_starts(groups: List[object]) -> List[int]:
    """Start row of each group, plus the batch length."""
    starts = [0]
    for i in range(1, len(groups)):
        if groups[i] != groups[i - 1]:
            starts.append(i)
    starts.append(len(groups))
    return starts


def _assign_one(c: _Columns, start: int, stop: int, strategy: str, out: _Output, group_column: bool) -> None:
    rows = GroupRows(c, start, stop, group_column)
    try:
        result = assign_group(rows.spec, strategy)
    except InvalidInputError as e:
        raise e.in_group(rows.group_id) from None
    out.add(rows, result)

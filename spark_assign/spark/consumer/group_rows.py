"""Wire rows to the engine's batch input, without a Python object per row.

:class:`WireBatch` decodes one Arrow batch of whole groups once and indexes
every group in it with one set of NumPy passes: strings become int codes into
per-batch dictionaries (``-1`` for null), ints int64 arrays (``MISSING`` for
null), and each group's members, topics, subscriptions, claims, previous
owners and pending transfers become slices of batch-wide columns with group
offsets: the :class:`~spark_assign.core.GroupBatch` that
:func:`~spark_assign.core.assign_batch` assigns all at once
(:meth:`WireBatch.group_batch`). Python loops run over a batch's dictionaries
(its distinct names) and its replica-rack rows, never over its subscription
or partition rows.

Invariant of a batch (the wire is sorted by ``group_id``): a group's rows are
contiguous. Its rows of different kinds (subscriptions 0, previous generation 1,
replica racks 2, weights 3) may come in any order: every pass selects rows by
kind, so nothing depends on how Spark's sort left them. Within a group, members
are indexed in order of first appearance among the subscription rows; topics
likewise, followed by topics that only the latest previous generation mentions
(in their order of appearance among those rows, with count -1).

The previous generation (kind 1 rows), per group: only the rows of the latest
generation count. A current member claims its rows there, with that
generation, unless its own rows carry ``owned_partitions`` (then it claims
those). A static member that rejoined under a new member id (a row's owner is
no member, but its ``group_instance_id`` is a member's) inherits the old id's
rows, and the old id is what ``previous_member_id`` shows. Rows of owners that
left name the previous owner of their partitions; rows without an owner whose
status is ``revoked`` are transfers still pending (KIP-429). The new generation
is one past the latest of the previous generation and the members' own
generations.

Weights (kind 3 rows, ``topic``, ``partition``, ``weight``), per group: checked
for the whole batch by :func:`~spark_assign.core.consumer.weights.rejected_weight_rows`
(:meth:`WireBatch.rejected_weight_groups`); a group with a rejected row gets its
error from the one validator, :func:`~spark_assign.core.consumer.weights.weights_from_rows`
(:meth:`WireBatch.group_weights`). The rows reach the engine as they are, as
segments of the :class:`~spark_assign.core.GroupBatch`; rows of topics the group
does not subscribe to are ignored. Weights given as a dict are not on the wire but
travel with the job (:class:`SharedWeights`): each group gets the rows of the
topics it subscribes to, the rows the wire would have carried for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core import GroupBatch
from ...core.consumer.keys import run_positions
from ...core.consumer.model import NO_GENERATION
from ...core.consumer.weights import rejected_weight_rows, weights_from_rows
from ...errors import InvalidInputError, SchemaError
from ..arrow import fill_null, from_numpy, scalar, to_numpy
from .wire import KIND_PREVIOUS, KIND_RACKS, KIND_SUBSCRIPTION, KIND_WEIGHTS, wire_column

__all__ = ["WireBatch", "SharedWeights", "MISSING"]

#: Stands for a null in the int64 columns of a :class:`WireBatch`.
MISSING = np.iinfo(np.int64).min

_REVOKED = scalar("revoked", pa.string())


def _codes(array: pa.Array) -> Tuple[np.ndarray, List[str], pa.Array]:
    """A string column as (int64 codes, dictionary, the dictionary as Arrow); null rows get code -1
    (a dictionary holds no null)."""
    if array.null_count == len(array):                 # e.g. no static members: nothing to hash
        return np.full(len(array), -1, dtype=np.int64), [], pa.nulls(0, pa.string())
    encoded = array.dictionary_encode()
    codes = to_numpy(fill_null(encoded.indices, -1), np.int64)
    return codes, encoded.dictionary.to_pylist(), encoded.dictionary.cast(pa.string())


def _ints(array: pa.Array) -> np.ndarray:
    """An int column as int64, nulls as ``MISSING``."""
    return to_numpy(fill_null(array.cast(pa.int64()), MISSING), np.int64)


def _first_appearance(keys: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(distinct keys in order of first appearance, index of each row's key in that order,
    position of each distinct key's first row)``."""
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return distinct[order], rank[inverse.reshape(-1)], first[order]


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Position in ``keys`` (distinct) of each ``wanted`` key, else -1."""
    if len(keys) == 0 or len(wanted) == 0:
        return np.full(len(wanted), -1, dtype=np.int64)
    sorter = np.argsort(keys, kind="stable")
    pos = sorter[np.minimum(np.searchsorted(keys, wanted, sorter=sorter), len(keys) - 1)]
    return np.where(keys[pos] == wanted, pos, -1)


def _segment_max(values: np.ndarray, segment: np.ndarray, count: int, initial: int) -> np.ndarray:
    """The largest of ``values`` per segment (``segment`` sorted, ids in ``[0, count)``), else ``initial``."""
    out = np.full(count, initial, dtype=np.int64)
    if len(values):
        starts = np.flatnonzero(np.concatenate([[True], segment[1:] != segment[:-1]]))
        out[segment[starts]] = np.maximum.reduceat(values, starts)
    return out


def _segments(segment_of: np.ndarray, count: int) -> np.ndarray:
    """Offsets of each group's slice in an array sorted by group (``count + 1`` of them)."""
    return np.searchsorted(segment_of, np.arange(count + 1))


@dataclass(frozen=True)
class SharedWeights:
    """Weight rows every group reads, travelling with the job (:func:`.wire.weights_travel`),
    decoded once per task: topic ``name``'s rows are ``offsets[index[name]]`` to
    ``offsets[index[name] + 1]`` of ``partition``, ``weight`` and ``null``."""

    index: Dict[str, int]
    offsets: np.ndarray
    partition: np.ndarray
    weight: np.ndarray
    null: np.ndarray

    @classmethod
    def of(cls, table: pa.Table) -> "SharedWeights":
        """Decode weight rows ``(topic, partition, weight)`` (:func:`.inputs.weight_table`)."""
        codes, names, _ = _codes(table.column("topic").combine_chunks())
        order = np.argsort(codes, kind="stable")
        weight = table.column("weight").combine_chunks()
        return cls(index={name: i for i, name in enumerate(names)},
                   offsets=np.searchsorted(codes[order], np.arange(len(names) + 1)),
                   partition=_ints(table.column("partition").combine_chunks())[order],
                   weight=to_numpy(fill_null(weight, 0.0), np.float64)[order],
                   null=to_numpy(weight.is_null(), bool)[order])


class WireBatch:
    """One Arrow batch of wire rows holding whole groups, decoded and indexed once (see the
    module docstring).

    Group ``s`` spans rows ``starts[s]:starts[s + 1]``. Its members are the batch's members
    ``member_off[s]:member_off[s + 1]`` (``member_code``, ``member_instance``, ``member_rack``,
    ``member_generation`` per member; ``previous_name``: the id ``previous_member_id`` shows
    for it), and likewise its topics (``topic_off``), subscription pairs (``pair_off``),
    claims (``claim_off``: ``owned_partitions``, then rows of the latest previous
    generation), previous owners that left (``prior_off``) and pending transfers
    (``pending_off``). ``new_generation`` is each group's new generation. Weight rows
    (``weight_off``) hold each row's group-local topic, partition and weight, whether they
    came on the wire or with the job (``weights``).
    """

    def __init__(self, batch: pa.RecordBatch, topic_counts: Optional[Mapping[str, int]] = None,
                 weights: Optional[SharedWeights] = None) -> None:
        def col(name: str) -> pa.Array:
            return wire_column(batch, name)

        self.n = batch.num_rows
        self.kind = to_numpy(fill_null(col("kind"), 0), np.int8)
        self.member, self.member_names, self.member_dictionary = _codes(col("member_id"))
        self.topic, self.topic_names, self.topic_dictionary = _codes(col("topic"))
        self.instance, self.instance_names, self.instance_dictionary = _codes(col("group_instance_id"))
        self.rack, self.rack_names, _ = _codes(col("rack"))
        status = col("status")
        self.revoked = np.zeros(self.n, dtype=bool) if status.null_count == self.n else \
            to_numpy(fill_null(pc.equal(status, _REVOKED), False), bool)
        self.generation = _ints(col("generation"))
        self.partition = _ints(col("partition"))
        if "num_partitions" in batch.schema.names:
            self.num_partitions = _ints(col("num_partitions"))
            self.metadata_rows = _ints(col("metadata_rows"))
        else:
            self.num_partitions, self.metadata_rows = self._metadata_of(topic_counts)
        owned = col("owned_partitions")
        self.owned_null = to_numpy(owned.is_null(), bool)
        self.owned_offsets = to_numpy(owned.offsets, np.int64)
        self.owned_values = _ints(owned.values)
        self.replica_racks = col("replica_racks") if "replica_racks" in batch.schema.names else None
        self._groups(col("group_id"))
        self._members()
        self._check_rows()
        self._topics()
        if weights is None:
            self._wire_weights(col("weight"))
        else:
            self._shared_weights(weights)
        self._subscriptions()
        self._previous()
        self._racks()

    def _metadata_of(self, topic_counts: Optional[Mapping[str, int]]) -> Tuple[np.ndarray, np.ndarray]:
        """``num_partitions`` and ``metadata_rows`` of the subscription rows, as the wire would carry
        them, from the counts that travel with the job (see :func:`.wire.counts_travel`): one
        lookup per distinct topic name. Other rows, and unknown topics, get ``MISSING``."""
        if topic_counts is None:
            raise SchemaError("the wire has no num_partitions column and no topic_counts came with the call")
        by_code = np.array([topic_counts.get(t, MISSING) for t in self.topic_names] + [MISSING], dtype=np.int64)
        counts = np.where(self.kind == KIND_SUBSCRIPTION, by_code[self.topic], MISSING)   # code -1: the last
        return counts, np.where(counts == MISSING, MISSING, 1)

    # ------------------------------------------------------------------ indexing, once per batch

    def _groups(self, ids: pa.Array) -> None:
        """Groups are runs of equal ``group_id`` (the rows are sorted by it); ``group_ids`` names
        them (Arrow, null for a null id), ``seg`` is each row's group."""
        n = self.n
        if n > 1:
            later, earlier = ids.slice(1), ids.slice(0, n - 1)
            same = pc.or_(fill_null(pc.equal(later, earlier), False),
                                  pc.and_(later.is_null(), earlier.is_null()))
            cuts = np.flatnonzero(~to_numpy(same, bool)) + 1
        else:
            cuts = np.zeros(0, dtype=np.int64)
        self.starts = np.concatenate([[0], cuts, [n]]).astype(np.int64) if n else np.zeros(1, dtype=np.int64)
        G = self.G = len(self.starts) - 1
        self.group_ids = ids.take(from_numpy(self.starts[:-1], pa.int64())).cast(pa.string())
        self.group_names: List[Optional[str]] = self.group_ids.to_pylist()
        self.group_null = to_numpy(self.group_ids.is_null(), bool)
        self.seg = np.repeat(np.arange(G, dtype=np.int64), np.diff(self.starts))
        self.is_prev, is_rack, is_weight = self.kind == KIND_PREVIOUS, self.kind == KIND_RACKS, \
            self.kind == KIND_WEIGHTS
        is_sub = ~(self.is_prev | is_rack | is_weight)
        self.sub = np.flatnonzero(is_sub)
        self.weight_rows = np.flatnonzero(is_weight)
        self.rack_rows = np.flatnonzero(is_rack & (self.topic >= 0))
        self.has_subscription = np.bincount(self.seg[self.sub], minlength=G) > 0

    def _members(self) -> None:
        """Members: (group, member) keys in order of first appearance; null members share key 0
        of a group."""
        sub, seg = self.sub, self.seg
        self._member_width = len(self.member_names) + 1
        self._member_keys, m_of_sub, first = _first_appearance(seg[sub] * self._member_width + self.member[sub] + 1)
        rows = self.member_first_row = sub[first]
        self.member_group = seg[rows]
        self.member_off = _segments(self.member_group, self.G)
        self.member_of = np.full(self.n, -1, dtype=np.int64)
        self.member_of[sub] = m_of_sub
        self.member_code = self.member[rows]
        self.member_instance = self.instance[rows]
        self.member_rack = self.rack[rows]
        self.member_generation = self.generation[rows]          # MISSING: none (changed by _previous)

    def _check_rows(self) -> None:
        """Which groups have a bad subscription row (see :meth:`group_error`)."""
        bad = np.logical_or.reduce([mask for _, mask in self._row_problems(self.sub)[0]])
        self.bad_group = np.bincount(self.seg[self.sub[bad]], minlength=self.G) > 0

    def _row_problems(self, rows: np.ndarray) -> Tuple[List[Tuple[str, np.ndarray]], List[Tuple[str, np.ndarray]]]:
        """The problems of subscription ``rows``: one mask per check, in the order a row-by-row
        scan checks a row, and per column whether a row disagrees with its member's first row."""
        member = self.member[rows]
        empty = self.member_names.index("") if "" in self.member_names else -2
        bad_member = (member < 0) | (member == empty)
        first = self.member_first_row[self.member_of[rows]]
        differs = [(column, values[rows] != values[first]) for column, values in
                   (("group_instance_id", self.instance), ("rack", self.rack), ("generation", self.generation))]
        disagree = np.logical_or.reduce([d for _, d in differs]) & ~bad_member
        count = self.num_partitions[rows]
        return ([("member", bad_member), ("disagree", disagree), ("metadata", self.metadata_rows[rows] > 1),
                 ("negative", (count != MISSING) & (count < 0))], differs)

    def _topics(self) -> None:
        """The latest previous generation and its usable rows (``kept``); then topics:
        subscription rows with a topic, then topics only the kept rows have, per group."""
        G, seg, sub = self.G, self.seg, self.sub
        prev = np.flatnonzero(self.is_prev & (self.generation != MISSING))
        latest = _segment_max(self.generation[prev], seg[prev], G, MISSING)
        self.latest = np.where(latest == MISSING, 0, latest)
        self.kept = np.flatnonzero(self.is_prev & (self.generation == self.latest[seg]) & (self.topic >= 0)
                                   & (self.partition != MISSING))
        self.pairs = sub[self.topic[sub] >= 0]
        width = len(self.topic_names) + 1
        trows = self.pairs
        keys, t_of_trow, first = _first_appearance(seg[trows] * width + self.topic[trows])
        kept_topic = _lookup(keys, seg[self.kept] * width + self.topic[self.kept])
        if (kept_topic < 0).any():                       # topics only the previous generation has
            trows = np.concatenate([self.pairs, self.kept])
            trows = trows[np.argsort(seg[trows], kind="stable")]
            keys, t_of_trow, first = _first_appearance(seg[trows] * width + self.topic[trows])
        else:
            trows, t_of_trow = np.concatenate([trows, self.kept]), np.concatenate([t_of_trow, kept_topic])
        topic_first_row = trows[first]
        self.topic_off = _segments(seg[topic_first_row], G)
        self.topic_code = self.topic[topic_first_row]
        counts = self.num_partitions[topic_first_row]
        self.topic_count = np.where((counts == MISSING) | self.is_prev[topic_first_row], -1, counts)
        self.topic_of = np.full(self.n, -1, dtype=np.int64)
        self.topic_of[trows] = t_of_trow
        self._topic_keys, self._topic_width = keys, width
        self.topic_subscribed = ~self.is_prev[topic_first_row]     # else only the previous generation has it

    # ------------------------------------------------------------------ weights, once per batch

    def _wire_weights(self, weight: pa.Array) -> None:
        """The weight rows of the wire: ``weight_off`` per group, and per row its group-local
        topic (``weight_topic``, -1 for a topic the group lacks), partition, weight and whether
        the weight (``weight_null``) or the topic (``weight_nameless``) is null."""
        w, seg = self.weight_rows, self.seg[self.weight_rows]
        self.weight_off = _segments(seg, self.G)
        found = _lookup(self._topic_keys, seg * self._topic_width + self.topic[w])
        self.weight_topic = np.where((found >= 0) & (self.topic[w] >= 0), found - self.topic_off[seg], -1)
        self.weight_partition = self.partition[w]
        self.weight = to_numpy(fill_null(weight.cast(pa.float64()), 0.0), np.float64)[w]
        self.weight_null = to_numpy(weight.is_null(), bool)[w]
        self.weight_nameless = self.topic[w] < 0

    def _shared_weights(self, shared: SharedWeights) -> None:
        """The same arrays as :meth:`_wire_weights`, from the rows that travel with the job: each
        group gets the rows of each topic it subscribes to (what the wire's join gives it), in
        topic order."""
        by_code = np.array([shared.index.get(t, -1) for t in self.topic_names] + [-1], dtype=np.int64)
        k = np.where(self.topic_subscribed, by_code[self.topic_code], -1)      # per group topic
        start = shared.offsets[np.maximum(k, 0)]
        n = np.where(k >= 0, shared.offsets[k + 1] - start, 0)
        at = np.repeat(start, n) + run_positions(n)
        group = np.repeat(np.arange(self.G, dtype=np.int64), np.diff(self.topic_off))
        self.weight_off = _segments(np.repeat(group, n), self.G)
        self.weight_topic = np.repeat(np.arange(len(k), dtype=np.int64) - self.topic_off[group], n)
        self.weight_partition, self.weight, self.weight_null = shared.partition[at], shared.weight[at], shared.null[at]
        self.weight_nameless = np.zeros(len(at), dtype=bool)

    def _subscriptions(self) -> None:
        """Subscription pairs and the claims of ``owned_partitions``, as group-local indexes."""
        seg, pairs = self.seg, self.pairs
        self.pair_off = _segments(seg[pairs], self.G)
        self.pair_member = self.member_of[pairs] - self.member_off[seg[pairs]]
        self.pair_topic = self.topic_of[pairs] - self.topic_off[seg[pairs]]
        owning = pairs[~self.owned_null[pairs]]
        lo, hi = self.owned_offsets[owning], self.owned_offsets[owning + 1]
        lengths = hi - lo
        self._owned_claims = (np.repeat(seg[owning], lengths), np.repeat(self.member_of[owning], lengths),
                              np.repeat(self.topic_of[owning], lengths),
                              self.owned_values[np.repeat(lo, lengths) + run_positions(lengths)])
        self.claimed_from_rows = np.zeros(len(self.member_first_row), dtype=bool)
        self.claimed_from_rows[self.member_of[owning]] = True

    def _previous(self) -> None:
        """Claims, previous owners and pending transfers from the kept rows (module docstring)."""
        rows, G = self.kept, self.G
        group, owner, topic = self.seg[rows], self.member[rows], self.topic_of[rows]
        partition = self.partition[rows]
        found = _lookup(self._member_keys, group * self._member_width + owner + 1)
        member = np.where(owner >= 0, found, -1)                 # the owner's member index, -1: not a member
        self.previous_name = self.member_code.copy()
        renamed = np.flatnonzero((owner >= 0) & (member < 0) & (self.instance[rows] >= 0))
        if len(renamed):                                          # a static member under a new member id
            target = self._static_member(group[renamed], self.instance[rows][renamed])
            hit, target = renamed[target >= 0], target[target >= 0]
            member[hit] = target
            last = np.full(len(self.member_code), -1, dtype=np.int64)
            np.maximum.at(last, target, hit)                      # several old ids: the last row's names it
            renamed_to = np.flatnonzero(last >= 0)
            self.previous_name[renamed_to] = owner[last[renamed_to]]
        pending = (owner < 0) & self.revoked[rows]
        left = (owner >= 0) & (member < 0)
        inherit = member >= 0
        inherit[inherit] = ~self.claimed_from_rows[member[inherit]]
        self.member_generation[member[inherit]] = self.latest[group[inherit]]
        # Claims: each group's owned_partitions, then its inherited rows.
        cg, cm, ct, cp = (np.concatenate([a, b[inherit]]) for a, b in
                          zip(self._owned_claims, (group, member, topic, partition)))
        order = np.argsort(cg, kind="stable")
        cg, cm, ct, cp = cg[order], cm[order], ct[order], cp[order]
        self.claim_off = _segments(cg, G)
        self.claim_member, self.claim_topic, self.claim_partition = \
            cm - self.member_off[cg], ct - self.topic_off[cg], cp
        local_topic = topic - self.topic_off[group]
        self.prior_off = _segments(group[left], G)
        self.prior_topic, self.prior_partition, self.prior_owner = local_topic[left], partition[left], owner[left]
        self.pending_off = _segments(group[pending], G)
        self.pending_topic, self.pending_partition = local_topic[pending], partition[pending]
        given = self.member_generation != MISSING
        self.new_generation = np.maximum(self.latest, _segment_max(
            self.member_generation[given], self.member_group[given], G, MISSING)) + 1

    def _static_member(self, group: np.ndarray, instance: np.ndarray) -> np.ndarray:
        """The member of each ``group`` whose ``group_instance_id`` has code ``instance`` (the last
        one if several), else -1."""
        static = np.flatnonzero(self.member_instance >= 0)
        if len(static) == 0:                      # no static member in the batch
            return np.full(len(group), -1, dtype=np.int64)
        width = len(self.instance_names) + 1
        keys = self.member_group[static] * width + self.member_instance[static]
        order = np.argsort(keys, kind="stable")
        keys, static = keys[order], static[order]
        last = np.append(keys[1:] != keys[:-1], True)
        at = _lookup(keys[last], group * width + instance)
        return np.where(at >= 0, static[last][at], -1)

    def _racks(self) -> None:
        """Replica racks per group and topic, for the groups that have them (rack-aware strategies)."""
        racks: Dict[int, Dict[str, Any]] = {}
        for i in self.rack_rows.tolist():                         # rows exist only with the column
            racks.setdefault(int(self.seg[i]), {})[self.topic_names[self.topic[i]]] = \
                self.replica_racks[i].as_py()                     # type: ignore[index]
        self.partition_racks: Optional[Mapping[int, Mapping[str, Any]]] = racks or None

    # ------------------------------------------------------------------ the engine's input

    def group_batch(self) -> GroupBatch:
        """Every group of the batch as the engine's :class:`~spark_assign.core.GroupBatch` (names are
        codes into this batch's dictionaries)."""
        generation = self.member_generation
        return GroupBatch(
            member_off=self.member_off, member_id=self.member_code, member_names=self.member_names,
            topic_off=self.topic_off, topic_name=self.topic_code, topic_names=self.topic_names,
            topic_count=self.topic_count,
            pair_off=self.pair_off, pair_member=self.pair_member, pair_topic=self.pair_topic,
            claim_off=self.claim_off, claim_member=self.claim_member, claim_topic=self.claim_topic,
            claim_partition=self.claim_partition,
            generation=np.where(generation == MISSING, NO_GENERATION, generation),
            instance_id=self.member_instance, instance_names=self.instance_names,
            rack=self.member_rack, rack_names=self.rack_names, partition_racks=self.partition_racks,
            prior_off=self.prior_off, prior_topic=self.prior_topic, prior_partition=self.prior_partition,
            prior_owner=self.prior_owner,
            pending_off=self.pending_off, pending_topic=self.pending_topic,
            pending_partition=self.pending_partition,
            weight_off=self.weight_off, weight_topic=self.weight_topic,
            weight_partition=self.weight_partition, weight_value=self.weight,
            group_ids=self.group_names,
        )

    # ------------------------------------------------------------------ weights

    def rejected_weight_groups(self) -> np.ndarray:
        """Which groups have a weight row :meth:`group_weights` rejects (a null topic, or what
        :func:`~spark_assign.core.consumer.weights.rejected_weight_rows` finds), with a few array passes."""
        bad = np.zeros(self.G, dtype=bool)
        if len(self.weight_topic) == 0:
            return bad
        seg = np.repeat(np.arange(self.G, dtype=np.int64), np.diff(self.weight_off))
        t, partition = self.weight_topic, self.weight_partition
        topic_row = np.where(t >= 0, self.topic_off[seg] + t, 0)
        count = np.zeros(len(t), dtype=np.int64)
        count[t >= 0] = self.topic_count[topic_row[t >= 0]]
        span = int(max(self.topic_count.max(initial=0), 0)) + 1
        rejected = rejected_weight_rows(count, partition, self.weight, self.weight_null,
                                        topic_row * span + np.clip(partition, 0, span - 1))
        bad[seg[rejected | self.weight_nameless]] = True
        return bad

    def group_weights(self, s: int) -> Dict[str, np.ndarray]:
        """Group ``s``'s weight rows as the engine's ``weights`` option, checked by
        :func:`~spark_assign.core.consumer.weights.weights_from_rows` (raising its error, naming the
        group); a row without a topic is an error too."""
        lo, hi = int(self.weight_off[s]), int(self.weight_off[s + 1])
        group = self.group_names[s]
        nameless = np.flatnonzero(self.weight_nameless[lo:hi])
        if len(nameless):
            i = lo + int(nameless[0])
            raise InvalidInputError("a weights row has a null topic", column="topic",
                                    rows=[(None, None if self.weight_partition[i] == MISSING else
                                           int(self.weight_partition[i]),
                                           None if self.weight_null[i] else float(self.weight[i]))], group=group)
        ts, te = int(self.topic_off[s]), int(self.topic_off[s + 1])
        try:
            return weights_from_rows(self.name(self.topic_code[ts:te], self.topic_names), self.topic_count[ts:te],
                                     self.weight_topic[lo:hi], self.weight_partition[lo:hi], self.weight[lo:hi],
                                     self.weight_null[lo:hi])
        except InvalidInputError as e:
            raise e.in_group(group) from None

    # ------------------------------------------------------------------ rows the engine never sees

    def row_errors(self, group_column: bool) -> np.ndarray:
        """Which groups have rows the engine cannot take (see :meth:`group_error`)."""
        if not group_column:
            return self.bad_group
        return self.bad_group | (self.group_null & self.has_subscription)

    def group_error(self, s: int, group_column: bool) -> InvalidInputError:
        """The error of group ``s`` (one of :meth:`row_errors`): a null ``group_id``, else what a
        row-by-row scan of the group would raise: its first bad row's first problem."""
        start, stop = int(self.starts[s]), int(self.starts[s + 1])
        group = self.group_name(start)
        rows = self.sub[(self.sub >= start) & (self.sub < stop)]
        if group_column and group is None and self.has_subscription[s]:
            return InvalidInputError("null group_id", column="group_id",
                                     rows=[self.row(i) for i in rows[:5].tolist()])
        checks, differs = self._row_problems(rows)
        at = min((int(np.flatnonzero(mask)[0]), k) for k, (_, mask) in enumerate(checks) if mask.any())
        i, check = int(rows[at[0]]), checks[at[1]][0]
        if check == "member":
            return InvalidInputError("null or empty member_id", column="member_id", rows=[self.row(i)], group=group)
        if check == "disagree":
            column = next(c for c, d in differs if d[at[0]])
            first = int(self.member_first_row[self.member_of[i]])
            return InvalidInputError(f"a member's rows disagree on {column}", column=column,
                                     rows=[self.row(first), self.row(i)], group=group)
        if check == "metadata":
            return InvalidInputError(f"topic has {int(self.metadata_rows[i])} rows in the topic metadata",
                                     column="topic", rows=[self.topic_name(i)], group=group)
        return InvalidInputError("negative partition count", column="num_partitions",
                                 rows=[(self.topic_name(i), int(self.num_partitions[i]))], group=group)

    # ------------------------------------------------------------------ names

    def name(self, codes: np.ndarray, names: Sequence[Optional[str]]) -> List[Optional[str]]:
        """Codes back to names (None for -1)."""
        return [names[c] if c >= 0 else None for c in codes.tolist()]

    def group_name(self, row: int) -> Optional[str]:
        return self.group_names[self.seg[row]]

    def topic_name(self, i: int) -> Optional[str]:
        t = self.topic[i]
        return self.topic_names[t] if t >= 0 else None

    def row(self, i: int) -> tuple:
        """``(member_id, topic)`` of row ``i``, as error messages show a row."""
        m = self.member[i]
        return (self.member_names[m] if m >= 0 else None, self.topic_name(i))

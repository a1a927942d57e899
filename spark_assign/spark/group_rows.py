"""Wire rows to the engine's columnar input, without a Python object per row.

:class:`WireBatch` decodes one Arrow batch once and indexes every group in it
with one set of NumPy passes: strings become int codes into per-batch
dictionaries (``-1`` for null), ints int64 arrays (``MISSING`` for null), and
members and topics become per-group indexes, laid out so that each group's
members, topics, subscriptions, claims and previous rows are contiguous
slices. :class:`GroupRows` then builds one group's
:class:`~spark_assign.core.GroupInput` from those slices. Python loops run over
a group's distinct members and topics, never over its subscription or
partition rows: a group of a million partitions costs array passes, and a
fleet of small groups costs a few slices each.

Invariants of a batch (the wire is sorted by ``group_id, kind``): a group's
rows are contiguous, subscriptions (kind 0) before previous-generation rows
(kind 1) before replica racks (kind 2) before weights (kind 3). Within a group, members are indexed
in order of first appearance among the subscription rows; topics likewise,
followed by topics that only the latest previous generation mentions (in
their order of appearance, with count -1).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, cast

import numpy as np
import pyarrow as pa

from ..core import GroupInput
from ..core.keys import run_positions
from ..core.weights import NULL_PARTITION, weights_from_rows
from ..errors import InvalidInputError
from .wire import KIND_PREVIOUS, KIND_RACKS, KIND_WEIGHTS

__all__ = ["WireBatch", "GroupRows", "MISSING"]

#: Stands for a null in the int64 columns of a :class:`WireBatch` (the engine's null partition).
MISSING = NULL_PARTITION


def _codes(array: pa.Array) -> Tuple[np.ndarray, List[Optional[str]]]:
    """A string column as (int64 codes, dictionary); null rows get code -1."""
    if array.null_count == len(array):                 # e.g. no static members: nothing to hash
        return np.full(len(array), -1, dtype=np.int64), []
    encoded = array.dictionary_encode()
    codes = np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, encoded.dictionary.to_pylist()


def _ints(array: pa.Array) -> np.ndarray:
    """An int column as int64, nulls as ``MISSING``."""
    return np.asarray(array.cast(pa.int64()).fill_null(MISSING).to_numpy(zero_copy_only=False), dtype=np.int64)


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


def _segments(segment_of: np.ndarray, count: int) -> np.ndarray:
    """Offsets of each group's slice in an array sorted by group (``count + 1`` of them)."""
    return np.searchsorted(segment_of, np.arange(count + 1))


class WireBatch:
    """One Arrow batch of wire rows, decoded and indexed once (see the module docstring).

    Group ``s`` of the batch spans rows ``starts[s]:starts[s + 1]``; its
    members are global member indexes ``member_off[s]:member_off[s + 1]``, its
    topics ``topic_off[s]:...``, and likewise for its subscription pairs
    (``pair_off``), claims from ``owned_partitions`` (``claim_off``), rows of
    the latest previous generation (``kept_off``), replica racks (``rack_off``) and
    weights (``weight_off``; ``weight_topic`` group-local, -1 for a topic the group lacks).
    """

    def __init__(self, batch: pa.RecordBatch) -> None:
        col = batch.column
        self.n = batch.num_rows
        self.group, self.group_names = _codes(col("group_id"))
        self.kind = np.asarray(col("kind").fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int8)
        self.member, self.member_names = _codes(col("member_id"))
        self.topic, self.topic_names = _codes(col("topic"))
        self.instance, self.instance_names = _codes(col("group_instance_id"))
        self.rack, self.rack_names = _codes(col("rack"))
        self.status, self.status_names = _codes(col("status"))
        self.generation = _ints(col("generation"))
        self.num_partitions = _ints(col("num_partitions"))
        self.partition = _ints(col("partition"))
        self.metadata_rows = _ints(col("metadata_rows"))
        # The optional nested columns may be absent from the wire (see wire.OPTIONAL_NESTED): all null.
        names = batch.schema.names
        owned = col("owned_partitions") if "owned_partitions" in names else pa.nulls(self.n, pa.list_(pa.int32()))
        self.owned_null = np.asarray(owned.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        self.owned_offsets = np.asarray(owned.offsets, dtype=np.int64)
        self.owned_values = _ints(owned.values)
        self.replica_racks = col("replica_racks") if "replica_racks" in names else None
        weight = col("weight") if "weight" in names else pa.nulls(self.n, pa.float64())
        self.weight_null = np.asarray(weight.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        self.weight = np.asarray(weight.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False),
                                 dtype=np.float64)
        self._index()

    # ------------------------------------------------------------------ indexing, once per batch

    def _index(self) -> None:
        n = self.n
        self.starts = np.concatenate([[0], np.flatnonzero(self.group[1:] != self.group[:-1]) + 1, [n]]) \
            if n else np.zeros(1, dtype=np.int64)
        G = len(self.starts) - 1
        seg = np.repeat(np.arange(G, dtype=np.int64), np.diff(self.starts))
        is_prev, is_rack, is_weight = self.kind == KIND_PREVIOUS, self.kind == KIND_RACKS, self.kind == KIND_WEIGHTS
        is_sub = ~(is_prev | is_rack | is_weight)
        sub = np.flatnonzero(is_sub)
        self.first_is_subscription = is_sub[self.starts[:-1]] if n else np.zeros(0, dtype=bool)
        # Members: (group, member) keys in order of first appearance; null members share key 0 of a group.
        width_m = len(self.member_names) + 1
        mkeys, m_of_sub, first = _first_appearance(seg[sub] * width_m + self.member[sub] + 1)
        self.member_first_row = sub[first]
        self.member_off = _segments(seg[self.member_first_row], G)
        member_of = np.full(n, -1, dtype=np.int64)
        member_of[sub] = m_of_sub
        self._check_rows(sub, member_of)
        # The latest previous generation of each group, and its usable rows.
        prev = np.flatnonzero(is_prev & (self.generation != MISSING))
        latest = np.full(G, MISSING, dtype=np.int64)
        np.maximum.at(latest, seg[prev], self.generation[prev])
        self.latest = np.where(latest == MISSING, 0, latest)
        self.prev_count = np.bincount(seg[is_prev], minlength=G)
        kept = np.flatnonzero(is_prev & (self.generation == self.latest[seg]) & (self.topic >= 0)
                              & (self.partition != MISSING))
        # Topics: subscription rows with a topic, then the kept previous rows, per group.
        pairs = sub[self.topic[sub] >= 0]
        trows = np.concatenate([pairs, kept])
        trows = trows[np.argsort(seg[trows], kind="stable")]
        width_t = len(self.topic_names) + 1
        tkeys, t_of_trow, first = _first_appearance(seg[trows] * width_t + self.topic[trows])
        topic_first_row = trows[first]
        self.topic_off = _segments(seg[topic_first_row], G)
        self.topic_code = self.topic[topic_first_row]
        counts = self.num_partitions[topic_first_row]
        self.topic_count = np.where((counts == MISSING) | is_prev[topic_first_row], -1, counts)
        topic_of = np.full(n, -1, dtype=np.int64)
        topic_of[trows] = t_of_trow
        # Subscription pairs and claims, as group-local indexes.
        self.pair_off = _segments(seg[pairs], G)
        self.pair_member = member_of[pairs] - self.member_off[seg[pairs]]
        self.pair_topic = topic_of[pairs] - self.topic_off[seg[pairs]]
        owning = pairs[~self.owned_null[pairs]]
        lo, hi = self.owned_offsets[owning], self.owned_offsets[owning + 1]
        lengths = hi - lo
        within = run_positions(lengths)
        claim_seg = np.repeat(seg[owning], lengths)
        self.claim_off = _segments(claim_seg, G)
        self.claim_member = np.repeat(member_of[owning] - self.member_off[seg[owning]], lengths)
        self.claim_topic = np.repeat(topic_of[owning] - self.topic_off[seg[owning]], lengths)
        self.claim_partition = self.owned_values[np.repeat(lo, lengths) + within]
        self.claimed_from_rows = np.zeros(len(self.member_first_row), dtype=bool)
        self.claimed_from_rows[member_of[owning]] = True
        # Previous rows: topic and current member (group-local; -1 when the owner left or is null).
        self.kept_off = _segments(seg[kept], G)
        self.kept_rows = kept
        self.kept_topic = topic_of[kept] - self.topic_off[seg[kept]]
        owner = self.member[kept]
        m = _lookup(mkeys, seg[kept] * width_m + owner + 1)
        self.kept_member = np.where((owner >= 0) & (m >= 0), m - self.member_off[seg[kept]], -1)
        racks = np.flatnonzero(is_rack & (self.topic >= 0))
        self.rack_rows, self.rack_off = racks, _segments(seg[racks], G)
        weights = np.flatnonzero(is_weight)
        self.weight_rows, self.weight_off = weights, _segments(seg[weights], G)
        t = _lookup(tkeys, seg[weights] * width_t + self.topic[weights])
        self.weight_topic = np.where((t >= 0) & (self.topic[weights] >= 0), t - self.topic_off[seg[weights]], -1)
        self.weight_topic_null = self.topic[weights] < 0
        self.revoked = self.status_names.index("revoked") if "revoked" in self.status_names else -2

    def _check_rows(self, sub: np.ndarray, member_of: np.ndarray) -> None:
        """Row problems of subscription rows, as one mask per check (see :meth:`GroupRows._row_error`)."""
        n = self.n
        empty = self.member_names.index("") if "" in self.member_names else -2
        bad_member = np.zeros(n, dtype=bool)
        bad_member[sub] = (self.member[sub] < 0) | (self.member[sub] == empty)
        first = self.member_first_row[member_of[sub]]
        self.differs = {}
        disagree = np.zeros(n, dtype=bool)
        for column, values in (("group_instance_id", self.instance), ("rack", self.rack),
                               ("generation", self.generation)):
            d = np.zeros(n, dtype=bool)
            d[sub] = values[sub] != values[first]
            self.differs[column] = d
            disagree |= d
        disagree &= ~bad_member
        metadata = np.zeros(n, dtype=bool)
        metadata[sub] = self.metadata_rows[sub] > 1
        negative = np.zeros(n, dtype=bool)
        negative[sub] = (self.num_partitions[sub] != MISSING) & (self.num_partitions[sub] < 0)
        #: In the order a row-by-row scan checks a row.
        self.row_checks = (("member", bad_member), ("disagree", disagree), ("metadata", metadata),
                           ("negative", negative))
        bad = bad_member | disagree | metadata | negative
        self.bad_group = np.logical_or.reduceat(bad, self.starts[:-1]) if n else np.zeros(0, dtype=bool)

    # ------------------------------------------------------------------ names

    def name(self, codes: np.ndarray, names: List[Optional[str]]) -> List[Optional[str]]:
        """Codes back to names (None for -1)."""
        return [names[c] if c >= 0 else None for c in codes.tolist()]

    def group_name(self, row: int) -> Optional[str]:
        code = self.group[row]
        return self.group_names[code] if code >= 0 else None

    def topic_name(self, i: int) -> Optional[str]:
        t = self.topic[i]
        return self.topic_names[t] if t >= 0 else None

    def row(self, i: int) -> tuple:
        """``(member_id, topic)`` of row ``i``, as error messages show a row."""
        m = self.member[i]
        return (self.member_names[m] if m >= 0 else None, self.topic_name(i))


class GroupRows:
    """Group ``s`` of a :class:`WireBatch`, as the engine's input (``spec``) and its new generation."""

    def __init__(self, b: WireBatch, s: int, group_column: bool = True) -> None:
        start, stop = int(b.starts[s]), int(b.starts[s + 1])
        self.group_id = b.group_name(start)
        self.renamed: Dict[str, str] = {}        # new member id -> the old one whose claims it inherited
        if group_column and self.group_id is None and b.first_is_subscription[s]:
            raise InvalidInputError("null group_id", column="group_id",
                                    rows=[b.row(i) for i in range(start, min(stop, start + 5))])
        if b.bad_group[s]:
            raise self._row_error(b, start, stop)
        ms, me = b.member_off[s], b.member_off[s + 1]
        first_rows = b.member_first_row[ms:me]
        self.member_ids = b.name(b.member[first_rows], b.member_names)
        self.instances = b.name(b.instance[first_rows], b.instance_names)
        self.generations: List[Optional[int]] = [None if g == MISSING else g
                                                 for g in b.generation[first_rows].tolist()]
        ts, te = b.topic_off[s], b.topic_off[s + 1]
        self.topic_names = b.name(b.topic_code[ts:te], b.topic_names)
        ps, pe = b.pair_off[s], b.pair_off[s + 1]
        cs, ce = b.claim_off[s], b.claim_off[s + 1]
        self.claims = (b.claim_member[cs:ce], b.claim_topic[cs:ce], b.claim_partition[cs:ce])
        self.claimed_from_rows = b.claimed_from_rows[ms:me]
        rack_rows = b.rack_rows[b.rack_off[s]:b.rack_off[s + 1]]
        # Rack rows have a topic, and exist only when the wire has the replica_racks column.
        racks = {cast(str, b.topic_name(i)): cast(Any, b.replica_racks)[i].as_py() for i in rack_rows.tolist()}
        self.spec = GroupInput(
            member_ids=self.member_ids,
            topic_names=self.topic_names,
            topic_counts=b.topic_count[ts:te],
            sub_member=b.pair_member[ps:pe],
            sub_topic=b.pair_topic[ps:pe],
            instance_ids=self.instances,
            racks=b.name(b.rack[first_rows], b.rack_names),
            partition_racks=racks or None,
        )
        self.weights = self._weights(b, s, ts, te)
        latest = self._previous(b, s) if b.prev_count[s] else 0
        self.spec.claim_member, self.spec.claim_topic, self.spec.claim_partition = self.claims
        self.spec.generations = self.generations
        claimed = [g for g in self.generations if g is not None]
        self.generation = max([latest] + claimed) + 1 if (latest or claimed) else 1

    @staticmethod
    def _row_error(b: WireBatch, start: int, stop: int) -> InvalidInputError:
        """The error a row-by-row scan of the group would raise: its first bad row's first problem."""
        group = b.group_name(start)
        at = min((int(np.flatnonzero(mask[start:stop])[0]), k) for k, (_, mask) in enumerate(b.row_checks)
                 if mask[start:stop].any())
        i, check = start + at[0], b.row_checks[at[1]][0]
        if check == "member":
            return InvalidInputError("null or empty member_id", column="member_id", rows=[b.row(i)], group=group)
        if check == "disagree":
            column = next(c for c, d in b.differs.items() if d[i])
            first = _first_row_of(b, start, i)
            return InvalidInputError(f"a member's rows disagree on {column}", column=column,
                                     rows=[b.row(first), b.row(i)], group=group)
        if check == "metadata":
            return InvalidInputError(f"topic has {int(b.metadata_rows[i])} rows in the topic metadata",
                                     column="topic", rows=[b.topic_name(i)], group=group)
        return InvalidInputError("negative partition count", column="num_partitions",
                                 rows=[(b.topic_name(i), int(b.num_partitions[i]))], group=group)

    def _weights(self, b: WireBatch, s: int, ts: int, te: int) -> Optional[Dict[str, np.ndarray]]:
        """The group's weight rows as the engine's ``weights`` option (None: the group has none),
        checked by :func:`~spark_assign.core.weights.weights_from_rows`. Rows of topics the
        group does not subscribe to are ignored; a row without a topic is an error."""
        lo, hi = int(b.weight_off[s]), int(b.weight_off[s + 1])
        if lo == hi:
            return None
        rows = b.weight_rows[lo:hi]
        if b.weight_topic_null[lo:hi].any():
            i = int(rows[np.flatnonzero(b.weight_topic_null[lo:hi])[0]])
            raise InvalidInputError("a weights row has a null topic", column="topic",
                                    rows=[(None, _or_none(b.partition[i]), None if b.weight_null[i] else
                                           float(b.weight[i]))], group=self.group_id)
        return weights_from_rows(self.topic_names, b.topic_count[ts:te], b.weight_topic[lo:hi],
                                 b.partition[rows], b.weight[rows], b.weight_null[rows])

    def _previous(self, b: WireBatch, s: int) -> int:
        """Claims from the latest previous generation, prior owners and pending transfers.

        A member whose rows carry ``owned_partitions`` keeps those claims; a
        static member that rejoined under a new member id inherits the claims of
        its ``group_instance_id``. Returns the latest previous generation.
        """
        latest = int(b.latest[s])
        ks, ke = b.kept_off[s], b.kept_off[s + 1]
        rows = b.kept_rows[ks:ke]
        topic, partition, owner = b.kept_topic[ks:ke], b.partition[rows], b.member[rows]
        m = b.kept_member[ks:ke]
        renamed = (owner >= 0) & (m < 0) & (b.instance[rows] >= 0)
        if renamed.any():                                # a static member under a new member id
            m = m.copy()
            by_instance = {i: k for k, i in enumerate(self.instances) if i is not None}
            for code in np.unique(b.instance[rows][renamed]).tolist():
                target = by_instance.get(b.instance_names[code])
                if target is not None:
                    hit = renamed & (b.instance[rows] == code)
                    m[hit] = target
                    # Usually one old id per instance; if several, the last row's (row order) names it.
                    self.renamed[cast(str, self.member_ids[target])] = \
                        cast(str, b.member_names[owner[np.flatnonzero(hit)[-1]]])
        pending = (owner < 0) & (b.status[rows] == b.revoked)
        self.spec.pending_topic = topic[pending]
        self.spec.pending_partition = partition[pending]
        left = (owner >= 0) & (m < 0)                    # remembered for previous_member_id
        if left.any():
            owners, owner_of_row, _ = _first_appearance(owner[left])
        else:
            owners, owner_of_row = owner[:0], owner[:0]
        self.spec.prior_topic = topic[left]
        self.spec.prior_partition = partition[left]
        self.spec.prior_owner = owner_of_row
        self.spec.prior_owner_names = cast(List[str], b.name(owners, b.member_names))    # owners are >= 0
        claim = m >= 0
        claim[claim] = ~self.claimed_from_rows[m[claim]]
        if claim.any():
            cm, ct, cp = self.claims
            self.claims = (np.concatenate([cm, m[claim]]), np.concatenate([ct, topic[claim]]),
                           np.concatenate([cp, partition[claim]]))
            for k in np.flatnonzero(np.bincount(m[claim], minlength=len(self.member_ids))).tolist():
                self.generations[k] = latest
        return latest


def _or_none(value: int) -> Optional[int]:
    """An int column's value, None for a null (``MISSING``)."""
    return None if value == MISSING else int(value)


def _first_row_of(b: WireBatch, start: int, i: int) -> int:
    """The first row of row ``i``'s member in its group (starting at ``start``)."""
    same = np.flatnonzero(b.member[start:i + 1] == b.member[i])
    return start + int(same[0])

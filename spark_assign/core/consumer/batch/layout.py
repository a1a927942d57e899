"""A :class:`~.batch.GroupBatch` laid out in dense integers, for every group at once.

This is :func:`~.encode.encode` over many groups with segment operations: one
sort keyed by group puts each group's members in Java order, another its
subscribed topics; every group's partitions become consecutive rows (group,
then topic in Java order, then partition), so a row index is a pid that is
global to the batch. Names stay codes into the batch's dictionaries; each
dictionary is ranked in Java string order once.

It also decides which groups the segment rules may take (``plain``): those the
per-group engine would accept without a question. A group with anything to
complain about (null, empty or repeated names, repeated subscriptions or
static ids, negative partitions, a partition two members claim, generations
outside int32) or anything the rules do not model (replica racks) goes
through the per-group engine, which raises or resolves exactly as it always has.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ...java.util import java_sort_key
from ..keys import run_positions
from ..model import INT32_MIN, MAX_PARTITIONS, NO_GENERATION

__all__ = ["Layout", "java_ranks", "segment_positions", "segment_first"]


def java_ranks(names: Sequence[str]) -> np.ndarray:
    """Rank of each name of a dictionary in Java's ``String.compareTo`` order (names distinct)."""
    n = len(names)
    if "".join(names).isascii():
        order = sorted(range(n), key=names.__getitem__)
    else:
        order = sorted(range(n), key=lambda i: java_sort_key(names[i]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    return rank


def segment_first(segment: np.ndarray, count: int) -> np.ndarray:
    """For elements sorted by ``segment`` (ids in ``[0, count)``), where each segment starts
    (``count + 1`` offsets)."""
    return np.searchsorted(segment, np.arange(count + 1))


def segment_positions(segment: np.ndarray, count: int) -> np.ndarray:
    """For elements sorted by ``segment``, each one's position within its segment."""
    return np.arange(len(segment), dtype=np.int64) - segment_first(segment, count)[segment]


def _ids(offsets: np.ndarray) -> np.ndarray:
    """The group of each element of a group-major column with these offsets."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def _repeating(keys: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The groups where a key repeats (keys global to the batch, ``group`` of each key)."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    return group[order[np.flatnonzero(k[1:] == k[:-1])]]


def _usable(names: Sequence[object]) -> np.ndarray:
    """Which dictionary entries are non-empty strings."""
    if set(map(type, names)) <= {str} and "" not in names:
        return np.ones(len(names), dtype=bool)
    return np.array([isinstance(s, str) and s != "" for s in names], dtype=bool)


def _canonical(codes: object, names: Sequence[object]) -> np.ndarray:
    """``codes`` with each name's first code, when the dictionary repeats a name (codes must
    compare as names do); -1 (null) stays."""
    codes = np.asarray(codes, dtype=np.int64)
    if len(set(names)) == len(names):
        return codes
    first: dict = {}
    canon = np.array([first.setdefault(n, i) for i, n in enumerate(names)] + [-1], dtype=np.int64)
    return canon[codes]


def _ranks(names: Sequence[object]) -> np.ndarray:
    """:func:`java_ranks` of a dictionary whose unusable entries (groups using them go through
    the per-group engine) rank as empty strings."""
    return java_ranks([s if isinstance(s, str) else "" for s in names])


class Layout:
    """Dense form of a batch (see the module docstring). Main attributes:

    * members: ``member_group``, ``slot_row`` (member rows in (group, Java order)), ``slot_of``
      (row -> slot), ``local`` (each slot's index within its group), ``info_key`` (Kafka's
      ``MemberInfo`` order: static members by instance id, then dynamic ones by member id);
    * topics: ``uni_row`` (subscribed topic rows in (group, Java order)), ``uni_group``,
      ``uni_count``, ``uni_start`` (first row of each), ``topic_uni`` (topic row -> uni, -1);
    * rows: ``row_off`` (per group), ``row_group``, ``row_uni``, ``row_partition``;
    * claims: ``claim_slot``, ``claim_pid`` of the claims inside the universe;
    * ``previous_member``, ``previous_departed``, ``pending`` per row;
    * ``plain`` per group: the segment rules may take it; ``complete``: every member
      subscribes to every topic of its universe; ``members``, ``topics`` per group.
    """

    def __init__(self, batch) -> None:
        self.batch = b = batch
        G = self.G = len(b.member_off) - 1
        self.plain = np.ones(G, dtype=bool)
        self._members()
        self._topics()
        self._subscriptions()
        self._claims()
        self._previous()
        if b.partition_racks:
            self.plain[[g for g in b.partition_racks if b.partition_racks[g]]] = False

    # ------------------------------------------------------------------ members

    def _members(self) -> None:
        b = self.batch
        self.member_group = mg = _ids(b.member_off)
        self.members = np.diff(b.member_off)
        names = b.member_names
        self.member_code = code = _canonical(b.member_id, names)
        usable = np.append(_usable(names), False)                  # code -1 (null) reads the False
        self.plain[mg[~usable[code]]] = False
        self.plain[_repeating(mg * (len(names) + 1) + code, mg)] = False
        key = np.append(_ranks(names), 0)[code]
        self.slot_row = np.lexsort((key, mg))
        self.slot_of = np.empty(len(code), dtype=np.int64)
        self.slot_of[self.slot_row] = np.arange(len(code), dtype=np.int64)
        self.slot_group = mg[self.slot_row]
        self.local = segment_positions(self.slot_group, self.G)
        # Kafka's MemberInfo order: static members first, by instance id; then the others by id.
        self.info_key = key
        if b.instance_id is not None and len(b.instance_names):
            inst = _canonical(b.instance_id, b.instance_names)
            entries = b.instance_names
            typed = np.append(np.array([s is None or isinstance(s, str) for s in entries], dtype=bool), True)
            self.plain[mg[~typed[inst]]] = False
            static = np.append(_usable(entries), False)[inst]     # "" reads as no instance id
            if static.any():
                irank = np.append(_ranks(entries), 0)
                self.info_key = np.where(static, irank[inst], len(entries) + key)
                st = np.flatnonzero(static)
                self.plain[_repeating(mg[st] * (len(entries) + 1) + inst[st], mg[st])] = False
        if b.generation is not None:
            gen = np.asarray(b.generation, dtype=np.int64)
            wrong = (gen != NO_GENERATION) & ((gen < INT32_MIN) | (gen > MAX_PARTITIONS))
            self.plain[mg[wrong]] = False

    # ------------------------------------------------------------------ topics and rows

    def _topics(self) -> None:
        b = self.batch
        self.topic_group = tg = _ids(b.topic_off)
        names = b.topic_names
        self.topic_code = code = _canonical(b.topic_name, names)
        self.plain[tg[~np.append(_usable(names), False)[code]]] = False
        self.plain[_repeating(tg * (len(names) + 1) + code, tg)] = False
        self.topic_rank = np.append(_ranks(names), 0)

    def _subscriptions(self) -> None:
        b = self.batch
        pg = _ids(b.pair_off)
        self.pair_group = pg
        self.pair_member = b.member_off[pg] + np.asarray(b.pair_member, dtype=np.int64)
        self.pair_topic = b.topic_off[pg] + np.asarray(b.pair_topic, dtype=np.int64)
        K = len(self.topic_group)
        self.plain[_repeating(self.pair_member * (K + 1) + self.pair_topic, pg)] = False
        subscribed = np.zeros(K, dtype=bool)
        subscribed[self.pair_topic] = True
        rows = np.flatnonzero(subscribed)
        rank = self.topic_rank[self.topic_code[rows]]
        self.uni_row = rows[np.lexsort((rank, self.topic_group[rows]))]
        self.uni_group = self.topic_group[self.uni_row]
        self.topic_uni = np.full(K, -1, dtype=np.int64)
        self.topic_uni[self.uni_row] = np.arange(len(self.uni_row), dtype=np.int64)
        self.uni_count = np.maximum(np.asarray(b.topic_count, dtype=np.int64)[self.uni_row], 0)
        self.uni_start = np.cumsum(self.uni_count) - self.uni_count
        self.topics = np.bincount(self.uni_group, minlength=self.G)
        self.row_off = np.zeros(self.G + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.uni_group, weights=self.uni_count, minlength=self.G).astype(np.int64),
                  out=self.row_off[1:])
        self.R = int(self.row_off[-1])
        self.row_uni = np.repeat(np.arange(len(self.uni_row), dtype=np.int64), self.uni_count)
        self.row_partition = run_positions(self.uni_count)
        self.row_group = self.uni_group[self.row_uni]
        pairs = np.bincount(pg, minlength=self.G)
        self.complete = pairs == self.members * self.topics

    # ------------------------------------------------------------------ claims and previous owners

    def pids(self, group: np.ndarray, topic: np.ndarray, partition: np.ndarray) -> np.ndarray:
        """Row (pid) of each (group, group-local topic row, partition); -1 outside the universe."""
        if len(topic) == 0:
            return np.zeros(0, dtype=np.int64)
        uni = self.topic_uni[self.batch.topic_off[group] + topic]
        count = np.append(self.uni_count, 0)[uni]
        start = np.append(self.uni_start, 0)[uni]
        return np.where((partition >= 0) & (partition < count), start + partition, -1)

    def _claims(self) -> None:
        b = self.batch
        if b.claim_off is None or len(b.claim_partition) == 0:
            self.claim_slot = self.claim_pid = np.zeros(0, dtype=np.int64)
            self.claimed = np.full(self.R, -1, dtype=np.int64)
            return
        cg = _ids(b.claim_off)
        part = np.asarray(b.claim_partition, dtype=np.int64)
        self.plain[cg[part < 0]] = False
        pid = self.pids(cg, np.asarray(b.claim_topic, dtype=np.int64), part)
        inside = pid >= 0
        per_pid = np.bincount(pid[inside], minlength=self.R)
        self.plain[self.row_group[per_pid > 1]] = False       # two claims: Kafka's generation rules decide
        row = b.member_off[cg] + np.asarray(b.claim_member, dtype=np.int64)
        self.claim_slot = self.slot_of[row[inside]]
        self.claim_pid = pid[inside]
        self.claimed = np.full(self.R, -1, dtype=np.int64)      # member slot of the claim standing
        self.claimed[self.claim_pid] = self.claim_slot

    def _previous(self) -> None:
        """Previous owner of every row: the claimer, else the previous generation's owner (a
        member row, or a departed owner's code into ``member_names``); and pending transfers."""
        b = self.batch
        self.previous_member = np.where(self.claimed >= 0, self.slot_row[np.maximum(self.claimed, 0)], -1)
        self.previous_departed = np.full(self.R, -1, dtype=np.int64)
        if b.prior_off is not None and len(b.prior_partition):
            qg = _ids(b.prior_off)
            pid = self.pids(qg, np.asarray(b.prior_topic, dtype=np.int64), np.asarray(b.prior_partition, np.int64))
            part = np.asarray(b.prior_partition, dtype=np.int64)
            self.plain[qg[part < 0]] = False                      # the engine reads those its own way
            owner = _canonical(b.prior_owner, b.member_names)
            keep = (pid >= 0) & (owner >= 0)
            member = self._member_row(qg[keep], owner[keep])
            prior_member = np.full(self.R, -1, dtype=np.int64)
            prior_departed = np.full(self.R, -1, dtype=np.int64)
            at = pid[keep]
            # One pass in row order, as the engine's assignment: the last row of a pid wins.
            code = np.where(member >= 0, member, -2 - owner[keep])
            last = np.full(self.R, -1, dtype=np.int64)
            last[at] = code
            has = last != -1
            prior_member[has & (last >= 0)] = last[has & (last >= 0)]
            prior_departed[has & (last < -1)] = -2 - last[has & (last < -1)]
            unclaimed = self.claimed < 0
            self.previous_member = np.where(unclaimed, prior_member, self.previous_member)
            self.previous_departed = np.where(unclaimed, prior_departed, -1)
        self.pending = None
        if b.pending_off is not None and len(b.pending_partition):
            sg = _ids(b.pending_off)
            pid = self.pids(sg, np.asarray(b.pending_topic, dtype=np.int64),
                            np.asarray(b.pending_partition, dtype=np.int64))
            self.plain[sg[np.asarray(b.pending_partition, dtype=np.int64) < 0]] = False
            self.pending = np.zeros(self.R, dtype=bool)
            self.pending[pid[pid >= 0]] = True

    def _member_row(self, group: np.ndarray, code: np.ndarray) -> np.ndarray:
        """The member row of ``group`` whose id has ``code``, else -1."""
        width = len(self.batch.member_names) + 1
        keys = self.member_group * width + self.member_code
        order = np.argsort(keys, kind="stable")
        wanted = group * width + code
        at = np.minimum(np.searchsorted(keys[order], wanted), max(len(keys) - 1, 0))
        if len(keys) == 0:
            return np.full(len(wanted), -1, dtype=np.int64)
        return np.where(keys[order[at]] == wanted, order[at], -1)


def status_codes(owner: np.ndarray, previous_member: np.ndarray, previous_departed: np.ndarray,
                 pending: Optional[np.ndarray]) -> np.ndarray:
    """The ``status`` column (:data:`~.result.STATUS_NAMES` codes) from owners and previous owners,
    as :meth:`~.result.AssignmentResult.build` computes it."""
    from ..result import ASSIGNED, KEPT, MOVED, NEW, REVOKED

    status = np.full(len(owner), NEW, dtype=np.int8)
    had = (previous_member >= 0) | (previous_departed >= 0)
    status[had] = MOVED
    status[had & (owner == previous_member)] = KEPT
    if pending is not None:
        status[(owner >= 0) & ~had & pending] = ASSIGNED
    status[owner < 0] = REVOKED
    return status

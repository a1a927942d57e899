"""Many groups per engine call: :func:`assign_batch` over a :class:`GroupBatch`.

A Spark worker holds thousands of small groups in one Arrow batch. Assigning
them one by one pays the engine's fixed cost (validation, dictionaries, result
objects) per group; :func:`assign_batch` takes the whole batch as flat columns
with group offsets and, for the groups it can, computes the same rows as
:func:`~.api.assign_group` would, with segment operations keyed by group
(:mod:`.batch_layout` lays the batch out, :mod:`.batch_rules` holds the rules).

Pipeline: ``layout`` (members in Java order, subscribed topics, one row per
partition, claims, previous owners; which groups are plain) -> ``rules`` (the
strategy over all plain groups it covers) -> ``fallback`` (every other group
through :func:`~.api.assign_group`, one at a time) -> ``status``.

Covered: ``range`` and ``server-range`` (any subscriptions), ``roundrobin`` (members
subscribing to every topic with partitions), ``sticky``, ``cooperative-sticky`` and
``uniform`` (homogeneous groups), fresh or with claims, static members included;
``load-aware`` and ``cooperative-load-aware`` for homogeneous groups of up to
:data:`~.batch_load.MAX_ROWS` partitions and :data:`~.batch_load.MAX_MEMBERS` members
(:mod:`.batch_load`, with each group's weights). Through the per-group engine: other
strategies, engine options other than ``prefer_rack_aware`` and the load-aware knobs,
groups with replica racks, a partition claimed by two members (Kafka's generation
rules), and any group the engine would reject (it raises the same error, naming the
group when ``group_ids`` is given).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ....errors import InvalidInputError
from ..api import assign_group, check_options
from .layout import Layout, segment_first, status_codes
from .load import load_owner
from .rules import range_owner, roundrobin_owner, sticky_owner, uniform_owner
from ..model import NO_GENERATION, GroupInput
from ..registry import DEFAULT_STRATEGY, Strategy, get_strategy
from ..weights import load_options, topic_weights, weights_from_rows

__all__ = ["GroupBatch", "BatchResult", "assign_batch"]

#: The engine options the segment rules read (a call with any other goes group by group).
_RULE_OPTIONS = frozenset({"prefer_rack_aware", "max_count_skew", "min_improvement"})

_I64 = np.int64


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=_I64)


@dataclass
class GroupBatch:
    """Many groups in columnar form: :class:`~.model.GroupInput`'s columns laid end to end.

    Group ``g``'s members are rows ``member_off[g]:member_off[g + 1]`` of the member columns,
    its topics rows ``topic_off[g]:...`` of the topic columns, and likewise its subscription
    pairs (``pair_off``), claims (``claim_off``), previous-generation owners (``prior_off``)
    and pending transfers (``pending_off``). Pairs, claims, previous and pending rows refer
    to members and topics by their row *within the group* (0 = the group's first). Strings
    are codes into dictionaries of distinct names (``-1`` = null): member ids, topic names,
    instance ids, racks. ``prior_owner`` codes are member ids (members that left included).

    Example::

        batch = GroupBatch.from_inputs([GroupInput.from_members(members, topics), ...])
        out = assign_batch(batch, "sticky")

    Parameters
    ----------
    member_off, member_id, member_names:
        Members: offsets (G + 1), id codes, the id dictionary.
    topic_off, topic_name, topic_names, topic_count:
        Each group's topics: offsets, name codes, the name dictionary, partition counts
        (-1: no metadata).
    pair_off, pair_member, pair_topic:
        Subscriptions (member row, topic row within the group).
    claim_off, claim_member, claim_topic, claim_partition:
        Owned partitions the members claim (optional).
    generation:
        Each member's claim generation (``NO_GENERATION`` = none; optional).
    instance_id, instance_names, rack, rack_names:
        Static ids and racks, codes into their dictionaries (optional).
    partition_racks:
        ``{group index: {topic: [[replica racks of p0], ...]}}`` (optional; such groups
        go through the per-group engine).
    prior_off, prior_topic, prior_partition, prior_owner:
        The previous generation's owners (optional; feed ``previous`` and ``status``).
    pending_off, pending_topic, pending_partition:
        Partitions a cooperative rebalance revoked and has not handed over (optional).
    weights:
        ``{group index: the weights option of that group}`` (``{topic: weight per
        partition}``, optional), checked as the per-group engine checks them.
    weight_off, weight_topic, weight_partition, weight_value:
        Or the weights as rows (optional; the Spark wire's form): per group (offsets) its
        ``(topic row within the group, partition, weight)`` rows, already accepted by
        :func:`~.weights.weights_from_rows` (:func:`~.weights.rejected_weight_rows` finds
        none); a topic row of -1 (not subscribed) is ignored. A group without rows (or
        absent from ``weights``) weighs 1.0 per partition.
    group_ids:
        Names of the groups, for errors (optional).
    """

    member_off: np.ndarray
    member_id: np.ndarray
    member_names: Sequence[str]
    topic_off: np.ndarray
    topic_name: np.ndarray
    topic_names: Sequence[str]
    topic_count: np.ndarray
    pair_off: np.ndarray
    pair_member: np.ndarray
    pair_topic: np.ndarray
    claim_off: Optional[np.ndarray] = None
    claim_member: np.ndarray = field(default_factory=_empty)
    claim_topic: np.ndarray = field(default_factory=_empty)
    claim_partition: np.ndarray = field(default_factory=_empty)
    generation: Optional[np.ndarray] = None
    instance_id: Optional[np.ndarray] = None
    instance_names: Sequence[Optional[str]] = ()
    rack: Optional[np.ndarray] = None
    rack_names: Sequence[Optional[str]] = ()
    partition_racks: Optional[Mapping[int, Mapping[str, Sequence[Sequence[str]]]]] = None
    prior_off: Optional[np.ndarray] = None
    prior_topic: np.ndarray = field(default_factory=_empty)
    prior_partition: np.ndarray = field(default_factory=_empty)
    prior_owner: np.ndarray = field(default_factory=_empty)
    pending_off: Optional[np.ndarray] = None
    pending_topic: np.ndarray = field(default_factory=_empty)
    pending_partition: np.ndarray = field(default_factory=_empty)
    weights: Optional[Mapping[int, Mapping[str, Any]]] = None
    weight_off: Optional[np.ndarray] = None
    weight_topic: np.ndarray = field(default_factory=_empty)
    weight_partition: np.ndarray = field(default_factory=_empty)
    weight_value: np.ndarray = field(default_factory=lambda: np.zeros(0))
    group_ids: Optional[Sequence[Optional[str]]] = None

    @property
    def num_groups(self) -> int:
        return len(self.member_off) - 1

    def group_input(self, g: int) -> GroupInput:
        """Group ``g`` as the per-group engine's :class:`~.model.GroupInput`."""
        ms, me = int(self.member_off[g]), int(self.member_off[g + 1])
        ts, te = int(self.topic_off[g]), int(self.topic_off[g + 1])
        ps, pe = int(self.pair_off[g]), int(self.pair_off[g + 1])
        spec = GroupInput(
            member_ids=_names(self.member_id[ms:me], self.member_names),
            topic_names=_names(self.topic_name[ts:te], self.topic_names),
            topic_counts=np.asarray(self.topic_count[ts:te], dtype=_I64),
            sub_member=np.asarray(self.pair_member[ps:pe], dtype=_I64),
            sub_topic=np.asarray(self.pair_topic[ps:pe], dtype=_I64),
            partition_racks=(self.partition_racks or {}).get(g),
        )
        if self.claim_off is not None:
            cs, ce = int(self.claim_off[g]), int(self.claim_off[g + 1])
            spec.claim_member = np.asarray(self.claim_member[cs:ce], dtype=_I64)
            spec.claim_topic = np.asarray(self.claim_topic[cs:ce], dtype=_I64)
            spec.claim_partition = np.asarray(self.claim_partition[cs:ce], dtype=_I64)
        if self.generation is not None:
            spec.generations = [None if x == NO_GENERATION else x for x in self.generation[ms:me].tolist()]
        if self.instance_id is not None:
            spec.instance_ids = _names(self.instance_id[ms:me], self.instance_names)
        if self.rack is not None:
            spec.racks = _names(self.rack[ms:me], self.rack_names)
        if self.prior_off is not None:
            qs, qe = int(self.prior_off[g]), int(self.prior_off[g + 1])
            owners = np.asarray(self.prior_owner[qs:qe], dtype=_I64)
            known = owners >= 0
            distinct, local = np.unique(owners[known], return_inverse=True)
            code = np.full(len(owners), -1, dtype=_I64)
            code[known] = local.reshape(-1)
            spec.prior_topic = np.asarray(self.prior_topic[qs:qe], dtype=_I64)
            spec.prior_partition = np.asarray(self.prior_partition[qs:qe], dtype=_I64)
            spec.prior_owner = code
            spec.prior_owner_names = [self.member_names[c] for c in distinct.tolist()]
        if self.pending_off is not None:
            ss, se = int(self.pending_off[g]), int(self.pending_off[g + 1])
            spec.pending_topic = np.asarray(self.pending_topic[ss:se], dtype=_I64)
            spec.pending_partition = np.asarray(self.pending_partition[ss:se], dtype=_I64)
        return spec

    def group_weights(self, g: int) -> Optional[Mapping[str, Any]]:
        """Group ``g``'s ``weights`` option for the per-group engine (None: it has none)."""
        if self.weights is not None and g in self.weights:
            return self.weights[g]
        if self.weight_off is None or self.weight_off[g] == self.weight_off[g + 1]:
            return None
        lo, hi = int(self.weight_off[g]), int(self.weight_off[g + 1])
        ts, te = int(self.topic_off[g]), int(self.topic_off[g + 1])
        return weights_from_rows(_names(self.topic_name[ts:te], self.topic_names), self.topic_count[ts:te],
                                 self.weight_topic[lo:hi], self.weight_partition[lo:hi], self.weight_value[lo:hi])

    @property
    def has_weights(self) -> bool:
        """Some group has weights."""
        return bool(self.weights) or (self.weight_off is not None and bool(self.weight_off[-1] > 0))

    @classmethod
    def from_inputs(cls, specs: Sequence[GroupInput], group_ids: Optional[Sequence[Optional[str]]] = None
                    ) -> "GroupBatch":
        """Lay many :class:`~.model.GroupInput` end to end (names into shared dictionaries).

        Example::

            batch = GroupBatch.from_inputs([GroupInput.from_members(ms, topics) for ms in groups])
        """
        return _concatenate(list(specs), group_ids)


@dataclass
class BatchResult:
    """The rows of every group of a batch, group after group, each group's in (topic, partition)
    order, as :class:`~.result.AssignmentResult` lists them.

    Group ``g``'s rows are ``row_off[g]:row_off[g + 1]``. ``topic`` is a topic row of the batch
    (``batch.topic_name[topic]`` its name code); ``owner`` a member row (-1 while a cooperative
    transfer withholds the partition); ``previous_member`` the member row of the previous owner
    when still in the group, else -1, and ``previous_departed`` the id code (into
    ``member_names``) of a previous owner that left, else -1; ``status`` codes of
    :data:`~.result.STATUS_NAMES`. ``batched`` says which groups the segment rules assigned
    (the others went through :func:`~.api.assign_group`). ``weight``: each row's partition
    weight as the engine reads it (1.0 in a group without weights), when the batch has weights.
    """

    row_off: np.ndarray
    topic: np.ndarray
    partition: np.ndarray
    owner: np.ndarray
    previous_member: np.ndarray
    previous_departed: np.ndarray
    status: np.ndarray
    batched: np.ndarray
    weight: Optional[np.ndarray] = None


def assign_batch(batch: GroupBatch, strategy: str = DEFAULT_STRATEGY, **options: Any) -> BatchResult:
    """Assign every group of ``batch`` as :func:`~.api.assign_group` would, group by group.

    Example::

        batch = GroupBatch.from_inputs([GroupInput.from_members(ms, {"t0": 16}) for ms in groups])
        out = assign_batch(batch, "range")
        out.owner[out.row_off[0]:out.row_off[1]]     # member rows owning group 0's partitions

    Parameters
    ----------
    batch:
        The groups (:class:`GroupBatch`).
    strategy:
        A strategy name (:func:`~spark_assign.core.strategy_names`); those outside
        whose :attr:`~spark_assign.core.Strategy.batchable` is false run group by group.
    options:
        As for :func:`~spark_assign.core.assign`.

    Raises the first error a group's input raises in :func:`~.api.assign_group` (groups in order),
    naming the group when ``batch.group_ids`` is given.
    """
    chosen = get_strategy(strategy)
    if options:
        check_options(options)
    lay = Layout(batch)
    weight, usable = _row_weights(lay) if batch.has_weights else (None, None)
    covered = chosen.batchable and not set(options) - _RULE_OPTIONS
    take = lay.plain if covered else np.zeros(lay.G, dtype=bool)
    owner, taken = _rules(lay, chosen, take if usable is None else take & usable, weight, options)
    previous_member, previous_departed = lay.previous_member.copy(), lay.previous_departed.copy()
    status = status_codes(owner, previous_member, previous_departed, lay.pending)
    out = BatchResult(lay.row_off, lay.uni_row[lay.row_uni], lay.row_partition.copy(), owner,
                      previous_member, previous_departed, status, taken, weight)
    for g in np.flatnonzero(~taken).tolist():
        _fallback(batch, lay, out, g, chosen.name, options)
    return out


def _rules(lay: Layout, strategy: Strategy, take: np.ndarray, weight: Optional[np.ndarray], options: Dict[str, Any]):
    """The segment rule of a batchable strategy, on the groups ``take`` marks."""
    if not take.any():
        return np.full(lay.R, -1, dtype=_I64), take
    if strategy.weighted:
        weight = np.ones(lay.R) if weight is None else weight
        knobs = load_options(weight, options)
        return load_owner(lay, take, weight, knobs.max_count_skew, knobs.min_improvement,
                          cooperative=strategy.cooperative)
    if strategy.name in ("range", "server-range"):
        return range_owner(lay, take)
    if strategy.name == "roundrobin":
        return roundrobin_owner(lay, take)
    if strategy.name == "uniform":
        return uniform_owner(lay, take)
    return sticky_owner(lay, take, cooperative=strategy.cooperative)


def _row_weights(lay: Layout) -> Tuple[np.ndarray, np.ndarray]:
    """Each row's weight, as the per-group engine makes it dense (1.0 in a group without weights),
    and which groups' weights are usable (a group whose weights the engine would reject goes
    through it, which raises in group order)."""
    batch = lay.batch
    weight = np.ones(lay.R, dtype=np.float64)
    usable = np.ones(lay.G, dtype=bool)
    per_group: List[int] = [g for g, given in (batch.weights or {}).items() if given is not None]
    if batch.weight_off is not None and len(batch.weight_partition):
        wg = np.repeat(np.arange(lay.G, dtype=_I64), np.diff(batch.weight_off))
        topic = np.asarray(batch.weight_topic, dtype=_I64)
        part = np.asarray(batch.weight_partition, dtype=_I64)
        pid = np.full(len(topic), -1, dtype=_I64)
        named = topic >= 0
        pid[named] = lay.pids(wg[named], topic[named], part[named])
        given = pid >= 0
        weight[pid[given]] = batch.weight_value[given]
        # A group whose rows leave a partition without weight takes the documented default
        # (the mean given), computed as the per-group engine computes it.
        covered = np.bincount(lay.row_group[pid[given]], minlength=lay.G)
        short = (np.diff(batch.weight_off) > 0) & (covered < np.diff(lay.row_off))
        per_group += [g for g in np.flatnonzero(short).tolist() if not batch.weights or g not in batch.weights]
    first = segment_first(lay.uni_group, lay.G)
    for g in per_group:
        uni = lay.uni_row[first[g]:first[g + 1]]
        names = _names(batch.topic_name[uni], batch.topic_names)
        try:
            dense = topic_weights(names, np.asarray(batch.topic_count, dtype=_I64)[uni], batch.group_weights(g))
        except InvalidInputError:
            usable[g] = False
            continue
        weight[lay.row_off[g]:lay.row_off[g + 1]] = dense
    return weight, usable


def _fallback(batch: GroupBatch, lay: Layout, out: BatchResult, g: int, strategy: str,
              options: Dict[str, Any]) -> None:
    """Group ``g`` through the per-group engine (with its weights, if any); its rows written into ``out``."""
    weights = batch.group_weights(g)
    try:
        result = assign_group(batch.group_input(g), strategy, **options,
                              **({} if weights is None else {"weights": weights}))
    except InvalidInputError as e:
        if batch.group_ids is not None:
            raise e.in_group(batch.group_ids[g]) from None
        raise
    lo, hi = int(lay.row_off[g]), int(lay.row_off[g + 1])
    if len(result.owner) != hi - lo:
        raise AssertionError(f"batch layout and engine disagree on group {g}'s partitions")
    grp = result.group
    ms, ts = int(batch.member_off[g]), int(batch.topic_off[g])
    row_of_member = {name: ms + i for i, name in enumerate(_names(batch.member_id[ms:int(batch.member_off[g + 1])],
                                                                  batch.member_names))}
    row_of_topic = {name: ts + i for i, name in enumerate(_names(batch.topic_name[ts:int(batch.topic_off[g + 1])],
                                                                 batch.topic_names))}
    members = np.array([row_of_member[m] for m in grp.member_ids] + [-1], dtype=_I64)
    topics = np.array([row_of_topic[t] for t in grp.topic_names] + [-1], dtype=_I64)
    out.topic[lo:hi] = topics[result.topic]
    out.partition[lo:hi] = result.partition
    out.owner[lo:hi] = members[result.owner]
    prev = result.previous_owner
    M = grp.num_members
    out.previous_member[lo:hi] = np.where((prev >= 0) & (prev < M), members[np.minimum(prev, M)], -1)
    departed = np.full(hi - lo, -1, dtype=_I64)
    if grp.departed:
        code_of = _code_lookup(batch.member_names)
        codes = np.array([code_of[name] for name in grp.departed], dtype=_I64)
        gone = prev >= M
        departed[gone] = codes[prev[gone] - M]
    out.previous_departed[lo:hi] = departed
    out.status[lo:hi] = result.status


def _names(codes: np.ndarray, names: Sequence[Optional[str]]) -> List[Optional[str]]:
    return [names[c] if c >= 0 else None for c in np.asarray(codes).tolist()]


def _listed(values: Optional[Sequence[Any]], n: int) -> List[Any]:
    return [None] * n if values is None else list(values)


def _code_lookup(names: Sequence[Optional[str]]) -> Dict[Optional[str], int]:
    return {name: i for i, name in enumerate(names)}


def _concatenate(specs: List[GroupInput], group_ids: Optional[Sequence[Optional[str]]]) -> GroupBatch:
    """:meth:`GroupBatch.from_inputs`."""
    dictionaries: Dict[str, Dict[Any, int]] = {k: {} for k in ("member", "topic", "instance", "rack")}

    def code(kind: str, values: Sequence[Any]) -> np.ndarray:
        d = dictionaries[kind]
        return np.array([-1 if v is None else d.setdefault(v, len(d)) for v in values], dtype=_I64)

    def offsets(lengths: List[int]) -> np.ndarray:
        off = np.zeros(len(lengths) + 1, dtype=_I64)
        np.cumsum(lengths, out=off[1:])
        return off

    def cat(arrays: List[np.ndarray]) -> np.ndarray:
        return np.concatenate([np.asarray(a, dtype=_I64) for a in arrays]) if arrays else _empty()

    # A departed previous owner's name must be in the member dictionary too.
    member_id = [code("member", list(s.member_ids)) for s in specs]
    prior_owner = []
    for s in specs:
        if s.prior_owner is None:
            prior_owner.append(_empty())
            continue
        names = code("member", list(s.prior_owner_names))
        owners = np.asarray(s.prior_owner, dtype=_I64)
        prior_owner.append(np.where(owners >= 0, np.append(names, -1)[owners], -1))
    gens = [[NO_GENERATION if x is None else x for x in _listed(s.generations, len(s.member_ids))]
            for s in specs]
    racks = {g: s.partition_racks for g, s in enumerate(specs) if s.partition_racks}
    return GroupBatch(
        member_off=offsets([len(s.member_ids) for s in specs]),
        member_id=cat(member_id),
        member_names=list(dictionaries["member"]),
        topic_off=offsets([len(s.topic_names) for s in specs]),
        topic_name=cat([code("topic", list(s.topic_names)) for s in specs]),
        topic_names=list(dictionaries["topic"]),
        topic_count=cat([s.topic_counts for s in specs]),
        pair_off=offsets([len(s.sub_member) for s in specs]),
        pair_member=cat([s.sub_member for s in specs]),
        pair_topic=cat([s.sub_topic for s in specs]),
        claim_off=offsets([len(s.claim_partition) for s in specs]),
        claim_member=cat([s.claim_member for s in specs]),
        claim_topic=cat([s.claim_topic for s in specs]),
        claim_partition=cat([s.claim_partition for s in specs]),
        generation=np.array([x for g in gens for x in g], dtype=_I64),
        instance_id=cat([code("instance", _listed(s.instance_ids, len(s.member_ids))) for s in specs]),
        instance_names=list(dictionaries["instance"]),
        rack=cat([code("rack", _listed(s.racks, len(s.member_ids))) for s in specs]),
        rack_names=list(dictionaries["rack"]),
        partition_racks=racks or None,
        prior_off=offsets([0 if s.prior_owner is None else len(s.prior_owner) for s in specs]),
        prior_topic=cat([s.prior_topic if s.prior_topic is not None else _empty() for s in specs]),
        prior_partition=cat([s.prior_partition if s.prior_partition is not None else _empty() for s in specs]),
        prior_owner=cat(prior_owner),
        pending_off=offsets([0 if s.pending_topic is None else len(s.pending_topic) for s in specs]),
        pending_topic=cat([s.pending_topic if s.pending_topic is not None else _empty() for s in specs]),
        pending_partition=cat([s.pending_partition if s.pending_partition is not None else _empty()
                               for s in specs]),
        group_ids=group_ids,
    )

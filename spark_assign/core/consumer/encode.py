"""Validate a :class:`~.model.GroupInput` and turn it into the dense :class:`~.model.Group`.

Pipeline of :func:`encode`, each stage a function below:

1. ``members``: ids checked (non-empty, distinct strings), put in Java string order
   (index = rank), with their static ids, racks and claim generations;
2. ``universe``: the topics somebody subscribes to, Java-sorted, with their counts
   and pid offsets;
3. ``subscriptions``: the (member, topic) pairs, or nothing when every member
   subscribes to every topic (the common case, detected without a sort);
4. ``claims``, ``racks``, ``prior``, ``pending``: each skipped when the input has none.

Fixed cost matters here: a fleet calls this once per group, and most groups are small
and plain (no statics, no racks, no claims). So every stage first checks, in one
cheap pass over a per-member list, whether it has anything to do; the general path
runs only for inputs that need it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, cast

import numpy as np

from ...errors import InvalidInputError
from ..java.util import java_sort_key
from .keys import duplicates, encode_subscriptions, shared_topic_row
from .model import INT32_MIN, MAX_PARTITIONS, NO_GENERATION, Group, GroupInput

__all__ = ["encode"]


def encode(spec: GroupInput) -> Group:
    """Validate ``spec`` and turn it into a :class:`~.model.Group`.

    Raises :class:`~spark_assign.errors.InvalidInputError` naming the column and
    sample rows of the first problem found.

    Example::

        g = encode(GroupInput(member_ids=["b", "a"], topic_names=["t"], topic_counts=np.array([2]),
                              sub_member=np.array([0, 1]), sub_topic=np.array([0, 0])))
        g.member_ids == ["a", "b"] and g.subscriptions_complete
    """
    people = _members(spec)
    topics = _universe(spec, people)
    sub_pairs: Optional[Tuple[np.ndarray, np.ndarray]] = None
    if topics.shared is None:
        sub_member = np.asarray(spec.sub_member, dtype=np.int64)
        if people.rank is not None:
            sub_member = people.rank[sub_member]
        sub_pairs = encode_subscriptions(sub_member, topics.to_uni[np.asarray(spec.sub_topic, dtype=np.int64)],
                                         len(people.ids), people.ids, topics.names)
    claim_member, claim_pid, outside, overlap = _encode_claims(spec, people, topics)
    rack_names, member_rack, pr_off, pr_ids = _encode_racks(people.racks, spec.partition_racks, topics)
    prior, departed = _encode_prior(spec, people.ids, topics)
    return Group(
        member_ids=people.ids,
        instance_ids=people.instances,
        member_rack=member_rack,
        generation=people.generations,
        topic_names=topics.names,
        topic_counts=topics.counts,
        topic_known=topics.known,
        topic_offsets=topics.offsets,
        sub_pairs=sub_pairs,
        claim_member=claim_member,
        claim_pid=claim_pid,
        outside_claims=outside,
        rack_names=rack_names,
        part_rack_offsets=pr_off,
        part_rack_ids=pr_ids,
        prior_owner=prior,
        departed=departed,
        pending=_encode_pending(spec, topics),
        claims_overlap=overlap,
    )


# --------------------------------------------------------------------------- members


@dataclass
class _Members:
    """The members in Java order. ``rank[row]`` is the index of input row ``row``
    (None when the input is already in that order)."""

    ids: List[str]
    instances: List[Optional[str]]
    racks: List[Optional[str]]
    generations: np.ndarray
    rank: Optional[np.ndarray]


def _members(spec: GroupInput) -> _Members:
    ids = _check_names(spec.member_ids, "member_id", "member_id")
    n = len(ids)
    if len(set(ids)) != n:
        dup = duplicates(np.asarray(ids, dtype=object))
        raise InvalidInputError("duplicate member_id", column="member_id", rows=sorted({ids[i] for i in dup}))
    instances = _optional_strings(spec.instance_ids, n, "group_instance_id")
    if instances is not None:
        _check_distinct_statics(ids, instances)
    racks = _optional_strings(spec.racks, n, "rack")
    generations = _generations(spec.generations, n, ids)

    # Java string order: index = rank. Most inputs are ASCII (code points = UTF-16 units).
    ordered = sorted(ids) if "".join(ids).isascii() else sorted(ids, key=java_sort_key)
    if ordered == ids:
        rank = None
    else:
        position = {m: i for i, m in enumerate(ordered)}
        rank = np.fromiter(map(position.__getitem__, ids), dtype=np.int64, count=n)
        order = np.empty(n, dtype=np.int64)
        order[rank] = np.arange(n, dtype=np.int64)
        generations = generations[order]
        picks = order.tolist()
        if instances is not None:
            instances = [instances[i] for i in picks]
        if racks is not None:
            racks = [racks[i] for i in picks]
    return _Members(ordered, instances if instances is not None else [None] * n,
                    racks if racks is not None else [None] * n, generations, rank)


def _check_names(values: Sequence[object], column: str, what: str) -> List[str]:
    """``values`` as a list of names: non-empty strings (Kafka's ids are strings)."""
    out = values if isinstance(values, list) else list(values)
    if set(map(type, out)) <= {str} and "" not in out:
        return out  # type: ignore[return-value]
    bad = [v for v in out if not isinstance(v, str) or v == ""]
    if bad:
        wrong_type = [v for v in bad if v is not None and not isinstance(v, str)]
        if wrong_type:
            kinds = ", ".join(sorted({type(v).__name__ for v in wrong_type}))
            raise InvalidInputError(f"{what} must be a string, got {kinds}", column=column, rows=wrong_type)
        raise InvalidInputError(f"null or empty {what}", column=column, rows=bad)
    return out  # type: ignore[return-value]


def _optional_strings(values: Optional[Sequence[Optional[str]]], n: int, column: str) -> Optional[List[Optional[str]]]:
    """Optional names (``""`` read as null); None when every one is null."""
    if values is None:
        return None
    values = values if isinstance(values, list) else list(values)
    if values.count(None) == len(values):
        return None
    out: List[Optional[str]] = []
    bad: List[object] = []
    for v in values:
        if v is None or v == "":
            out.append(None)
        elif isinstance(v, str):
            out.append(v)
        else:
            bad.append(v)
    if bad:
        raise InvalidInputError("value must be a string or null", column=column, rows=bad)
    return None if out.count(None) == len(out) else out


def _check_distinct_statics(ids: List[str], instances: List[Optional[str]]) -> None:
    static = [(i, s) for i, s in enumerate(instances) if s is not None]
    if len({s for _, s in static}) == len(static):
        return
    seen: Dict[str, str] = {}
    rows = []
    for i, s in static:
        if s in seen:
            rows.append((seen[s], ids[i], s))
        seen.setdefault(s, ids[i])
    raise InvalidInputError("two members share a group_instance_id", column="group_instance_id", rows=rows)


def _generations(values: Optional[Sequence[Optional[int]]], n: int, member_ids: List[str]) -> np.ndarray:
    """The members' claim generations as int64, ``NO_GENERATION`` for none. Every negative value
    reads as none, as Kafka's ``Subscription`` reads a negative ``generationId`` (Optional.empty:
    then ``DEFAULT_GENERATION`` in the sticky assignors' comparisons)."""
    if values is None:
        return np.full(n, NO_GENERATION, dtype=np.int64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return np.maximum(values.astype(np.int64), NO_GENERATION)
    kinds = set(map(type, values))
    if kinds <= {type(None)}:
        return np.full(n, NO_GENERATION, dtype=np.int64)
    if kinds == {int}:                                               # every member has one
        ints = cast(Sequence[int], values)
        if type(ints) in (list, tuple) and len(ints) == n and ints.count(ints[0]) == n \
                and INT32_MIN <= ints[0] <= MAX_PARTITIONS:              # one for all: the usual case
            return np.full(n, max(ints[0], NO_GENERATION), dtype=np.int64)
        if INT32_MIN <= min(ints) and max(ints) <= MAX_PARTITIONS:
            return np.maximum(np.array(ints, dtype=np.int64), NO_GENERATION)
    if kinds <= {int, type(None)}:                                   # the common case
        given = [g for g in values if g is not None]
        if min(given) >= INT32_MIN and max(given) <= MAX_PARTITIONS:
            return np.array([NO_GENERATION if g is None or g < 0 else g for g in values], dtype=np.int64)
    out = np.full(n, NO_GENERATION, dtype=np.int64)
    bad = []
    for i, g in enumerate(values):
        if g is None:
            continue
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not INT32_MIN <= g <= MAX_PARTITIONS:
            bad.append((member_ids[i], g))
        else:
            out[i] = max(int(g), NO_GENERATION)
    if bad:
        raise InvalidInputError("generation must be a 32-bit integer or null (Kafka's generationId is an int32)",
                                column="generation", rows=bad)
    return out


# --------------------------------------------------------------------------- topics


@dataclass
class _Universe:
    """The subscribed topics in Java order, and how input topic codes map to them.

    ``shared`` is the input row of topics every member subscribes to, when the
    subscription rows say so plainly (see :func:`.keys.shared_topic_row`), else None.
    """

    names: List[str]
    counts: np.ndarray
    known: np.ndarray
    offsets: np.ndarray
    to_uni: np.ndarray
    names_in: List[str]
    shared: Optional[np.ndarray]


def _universe(spec: GroupInput, people: _Members) -> _Universe:
    names_in = _check_names(spec.topic_names, "topic", "topic")
    if len(set(names_in)) != len(names_in):
        dup = duplicates(np.asarray(names_in, dtype=object))
        raise InvalidInputError("duplicate topic in the topic metadata", column="topic",
                                rows=sorted({names_in[i] for i in dup}))
    counts_in = np.asarray(spec.topic_counts, dtype=np.int64)
    sub_topic = np.asarray(spec.sub_topic, dtype=np.int64)
    shared = shared_topic_row(np.asarray(spec.sub_member, dtype=np.int64), sub_topic, len(people.ids))
    subscribed = (shared if shared is not None else
                  np.bincount(sub_topic, minlength=len(names_in)).nonzero()[0]).tolist()
    if "".join(names_in).isascii() or "".join(names_in[i] for i in subscribed).isascii():
        uni_in = sorted(subscribed, key=names_in.__getitem__)
    else:
        uni_in = sorted(subscribed, key=lambda i: java_sort_key(names_in[i]))
    T = len(uni_in)
    at = np.array(uni_in, dtype=np.int64)
    raw = counts_in[at]
    counts = np.maximum(raw, 0)
    offsets = np.zeros(T + 1, dtype=np.int64)
    np.add.accumulate(counts, out=offsets[1:])
    to_uni = np.full(len(names_in), -1, dtype=np.int64)
    to_uni[at] = np.arange(T, dtype=np.int64)
    return _Universe([names_in[i] for i in uni_in], counts, raw >= 0, offsets, to_uni, names_in, shared)


def _pids(uni_topic: np.ndarray, partition: np.ndarray, topics: _Universe) -> np.ndarray:
    """pid of each (universe topic, partition) pair (partitions >= 0); -1 where outside the
    universe. Topic -1 (not subscribed) reads the sentinel appended to counts and starts."""
    counts = np.concatenate((topics.counts, [0]))
    starts = topics.offsets.copy()
    starts[-1] = 0
    pid = starts[uni_topic] + partition
    outside = partition >= counts[uni_topic]
    if outside.any():
        pid[outside] = -1
    return pid


# --------------------------------------------------------------------------- claims


def _encode_claims(spec: GroupInput, people: _Members, topics: _Universe):
    """Claims as (member index, pid), checked; the claims outside the universe; and whether
    some pid has two claims."""
    cp = np.asarray(spec.claim_partition, dtype=np.int64)
    if len(cp) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), [], False
    cm = np.asarray(spec.claim_member, dtype=np.int64)
    if people.rank is not None:
        cm = people.rank[cm]
    member_ids, names_in = people.ids, topics.names_in
    ct_in = np.asarray(spec.claim_topic, dtype=np.int64)
    if cp.min() < 0:
        bad = np.flatnonzero(cp < 0)
        raise InvalidInputError(
            "negative partition in owned partitions", column="owned_partitions",
            rows=[(member_ids[cm[i]], names_in[ct_in[i]], int(cp[i])) for i in bad],
        )
    pid = _pids(topics.to_uni[ct_in], cp, topics)
    P = int(topics.offsets[-1])
    outside: List[Tuple[int, str, int]] = []
    if pid.min() < 0:
        out_idx = np.flatnonzero(pid < 0)
        outside = sorted({(int(cm[i]), names_in[ct_in[i]], int(cp[i])) for i in out_idx})
        inside = np.flatnonzero(pid >= 0)
        cm, pid, ct_in, cp = cm[inside], pid[inside], ct_in[inside], cp[inside]
    # A member may claim a partition once. Only partitions claimed twice can break that.
    per_pid = np.bincount(pid, minlength=P)
    overlap = bool(len(per_pid) and per_pid.max() > 1)
    if overlap:
        twice = np.flatnonzero(per_pid[pid] > 1)
        dup = twice[duplicates(cm[twice] * (P + 1) + pid[twice])]
        if len(dup):
            raise InvalidInputError(
                "a member lists the same owned partition twice", column="owned_partitions",
                rows=sorted({(member_ids[cm[i]], names_in[ct_in[i]], int(cp[i])) for i in dup}),
            )
    return cm, pid, outside, overlap


# --------------------------------------------------------------------------- racks, previous generation


def _encode_racks(racks: List[Optional[str]], partition_racks: Optional[Mapping[str, Sequence[Sequence[str]]]],
                  topics: _Universe):
    names: Dict[str, int] = {}
    if racks.count(None) == len(racks):
        member_rack = np.full(len(racks), -1, dtype=np.int64)
    else:
        member_rack = np.array([names.setdefault(r, len(names)) if r is not None else -1 for r in racks],
                               dtype=np.int64)
    if not partition_racks:
        return list(names), member_rack, None, None
    if not isinstance(partition_racks, Mapping):
        raise InvalidInputError("partition_racks must map topic -> list of replica racks per partition",
                                column="partition_racks")
    offsets, uni_counts = topics.offsets, topics.counts
    P = int(offsets[-1])
    lens = np.zeros(P, dtype=np.int64)
    per_pid: List[Sequence[str]] = [()] * P
    for t, name in enumerate(topics.names):
        lists = partition_racks.get(name)
        if lists is None:
            continue
        if len(lists) != uni_counts[t]:
            raise InvalidInputError(
                f"topic has {int(uni_counts[t])} partitions but {len(lists)} replica rack lists",
                column="partition_racks", rows=[name],
            )
        for p, rl in enumerate(lists):
            if isinstance(rl, str):
                raise InvalidInputError("replica racks must be a list of rack names per partition",
                                        column="partition_racks", rows=[(name, p, rl)])
            rs = list(dict.fromkeys(r for r in rl if r))   # distinct, replica order
            per_pid[int(offsets[t]) + p] = rs
            lens[int(offsets[t]) + p] = len(rs)
    off = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    ids = np.array([names.setdefault(r, len(names)) for rs in per_pid for r in rs], dtype=np.int64)
    return list(names), member_rack, off, ids


def _encode_prior(spec: GroupInput, member_ids: List[str], topics: _Universe):
    if spec.prior_owner is None:
        return None, []
    pid = _pids(topics.to_uni[np.asarray(spec.prior_topic, dtype=np.int64)],
                np.asarray(spec.prior_partition, dtype=np.int64), topics)
    # Owner names -> member index, or a new index past the members for those who left.
    index = {m: i for i, m in enumerate(member_ids)}
    departed: List[str] = []
    code_to_owner = np.empty(len(spec.prior_owner_names), dtype=np.int64)
    for c, name in enumerate(spec.prior_owner_names):
        i = index.get(name)
        if i is None:
            i = index[name] = len(member_ids) + len(departed)
            departed.append(name)
        code_to_owner[c] = i
    owner_code = np.asarray(spec.prior_owner, dtype=np.int64)
    keep = (pid >= 0) & (owner_code >= 0)
    prior = np.full(int(topics.offsets[-1]), -1, dtype=np.int64)
    prior[pid[keep]] = code_to_owner[owner_code[keep]]
    return prior, departed


def _encode_pending(spec: GroupInput, topics: _Universe) -> Optional[np.ndarray]:
    if spec.pending_topic is None:
        return None
    pid = _pids(topics.to_uni[np.asarray(spec.pending_topic, dtype=np.int64)],
                np.asarray(spec.pending_partition, dtype=np.int64), topics)
    pending = np.zeros(int(topics.offsets[-1]), dtype=bool)
    pending[pid[pid >= 0]] = True
    return pending

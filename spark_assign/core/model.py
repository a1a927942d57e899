"""One group's input, turned into dense integers.

Names live only at the edges. Inside the engine:

* member ``m`` is an index into ``Group.member_ids``, which is sorted by Java's
  ``String.compareTo`` (so comparing indices compares member ids as Kafka does);
* topic ``t`` is an index into ``Group.topic_names``, the topics at least one
  member subscribes to, Java-sorted, known or not (unknown topics have 0
  partitions);
* partition ``pid`` is a global index: ``topic_offsets[t] + p``. The universe of
  pids is every partition of every subscribed topic, in (topic, partition) order.

:class:`GroupInput` is the columnar input (codes plus dictionaries, as the Spark
layer produces them from Arrow); :func:`encode` validates it and builds the
immutable :class:`Group` every strategy reads.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import InvalidInputError
from .javautil import java_sort_key
from .keys import duplicates, encode_subscriptions, shared_topic_row

__all__ = ["Member", "GroupInput", "Group", "encode", "check_topics", "NO_GENERATION"]

#: Kafka's ``DEFAULT_GENERATION``: the generation of a claim that carries none.
NO_GENERATION = -1


@dataclass(frozen=True)
class Member:
    """A group member as Kafka's group leader sees it.

    Example::

        Member("c1", topics=["t0", "t1"], owned=[("t0", 0)], generation=3)
        Member("c2", topics=["t0"], instance_id="static-2", rack="r1")

    Parameters
    ----------
    member_id:
        The member id (Kafka ``member.id``); unique in the group.
    topics:
        Subscribed topics. Topics absent from the metadata are allowed and get
        no partitions, as in Kafka.
    owned:
        ``(topic, partition)`` pairs the member claims to own
        (Kafka's ``Subscription.ownedPartitions``).
    generation:
        The generation of that claim (Kafka's ``Subscription.generationId``);
        ``None`` for none.
    instance_id:
        Static membership id (``group.instance.id``), or ``None``.
    rack:
        The member's rack (``client.rack``), or ``None``.
    """

    member_id: str
    topics: Sequence[str] = ()
    owned: Sequence[Tuple[str, int]] = ()
    generation: Optional[int] = None
    instance_id: Optional[str] = None
    rack: Optional[str] = None

    def __post_init__(self) -> None:
        if isinstance(self.topics, str):
            raise InvalidInputError(
                "topics must be a list of topic names, not a string",
                column="topic", rows=[self.topics],
            )
        if isinstance(self.owned, (str, bytes)) or not isinstance(self.owned, Iterable):
            raise InvalidInputError("owned must be a list of (topic, partition) pairs",
                                    column="owned_partitions", rows=[(self.member_id, self.owned)])
        if not isinstance(self.topics, Iterable):
            raise InvalidInputError(f"topics must be a list of topic names, got {type(self.topics).__name__}",
                                    column="topic", rows=[(self.member_id, self.topics)])
        bad = [tp for tp in self.owned if isinstance(tp, (str, bytes)) or not isinstance(tp, Sequence) or len(tp) != 2]
        if bad:
            raise InvalidInputError("owned partitions must be (topic, partition) pairs",
                                    column="owned_partitions", rows=[(self.member_id, tp) for tp in bad])
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "owned", tuple(tuple(tp) for tp in self.owned))


@dataclass
class GroupInput:
    """One group's input in columnar form (codes into small dictionaries).

    Members are rows ``0..M-1`` of the per-member lists. Subscriptions and
    claims refer to members by row and to topics by index into ``topic_names``.
    ``topic_counts[i]`` is the partition count of ``topic_names[i]``, or -1 when
    the topic has no metadata. ``prior_*`` optionally describe the previous
    generation's owners (including members that left) and ``pending_*`` the
    partitions a cooperative rebalance revoked and has not handed over yet;
    both only feed the ``previous_member_id`` and ``status`` outputs.
    """

    member_ids: Sequence[object]
    topic_names: Sequence[object]
    topic_counts: np.ndarray
    sub_member: np.ndarray
    sub_topic: np.ndarray
    claim_member: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    claim_topic: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    claim_partition: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    generations: Optional[Sequence[Optional[int]]] = None
    instance_ids: Optional[Sequence[Optional[str]]] = None
    racks: Optional[Sequence[Optional[str]]] = None
    partition_racks: Optional[Mapping[str, Sequence[Sequence[str]]]] = None
    prior_topic: Optional[np.ndarray] = None
    prior_partition: Optional[np.ndarray] = None
    prior_owner: Optional[np.ndarray] = None          # codes into prior_owner_names, -1 = none
    prior_owner_names: Sequence[str] = ()
    pending_topic: Optional[np.ndarray] = None
    pending_partition: Optional[np.ndarray] = None

    @classmethod
    def from_members(
        cls,
        members: Sequence[Member],
        topics: Mapping[str, int],
        partition_racks: Optional[Mapping[str, Sequence[Sequence[str]]]] = None,
    ) -> "GroupInput":
        """Build the columnar input from :class:`Member` objects and ``{topic: count}``."""
        topics = check_topics(topics)
        for m in members:
            if not isinstance(m, Member):
                raise InvalidInputError(
                    f"members must be Member objects, got {type(m).__name__}",
                    column="members", rows=[m],
                )
        topic_index: Dict[object, int] = {}
        names: List[object] = []
        counts: List[int] = []
        for name, count in topics.items():
            topic_index[name] = len(names)
            names.append(name)
            counts.append(count)

        def code(topic: object) -> int:
            i = topic_index.get(topic)
            if i is None:
                i = topic_index[topic] = len(names)
                names.append(topic)
                counts.append(-1)
            return i

        # Subscriptions: one dict lookup per pair; names outside the metadata get codes after.
        per_member = [len(m.topics) for m in members]
        sub_t = list(map(topic_index.get, itertools.chain.from_iterable(m.topics for m in members)))
        if None in sub_t:
            flat = itertools.chain.from_iterable(m.topics for m in members)
            sub_t = [code(t) if i is None else i for i, t in zip(sub_t, flat)]
        cl_m, cl_t, cl_p = [], [], []
        for row, m in enumerate(members):
            for tp in m.owned:
                if len(tp) != 2:
                    raise InvalidInputError(
                        "owned partitions must be (topic, partition) pairs",
                        column="owned_partitions", rows=[(m.member_id, tp)],
                    )
                cl_m.append(row)
                cl_t.append(code(tp[0]))
                cl_p.append(_partition_value(m.member_id, tp))
        return cls(
            member_ids=[m.member_id for m in members],
            topic_names=names,
            topic_counts=np.asarray(counts, dtype=np.int64),
            sub_member=np.repeat(np.arange(len(members), dtype=np.int64), per_member),
            sub_topic=np.asarray(sub_t, dtype=np.int64),
            claim_member=np.asarray(cl_m, dtype=np.int64),
            claim_topic=np.asarray(cl_t, dtype=np.int64),
            claim_partition=np.asarray(cl_p, dtype=np.int64),
            generations=[m.generation for m in members],
            instance_ids=[m.instance_id for m in members],
            racks=[m.rack for m in members],
            partition_racks=partition_racks,
        )


#: Kafka's partition ids are 32-bit signed integers (``int32`` in its protocol), so a topic has at most this many.
MAX_PARTITIONS = 2**31 - 1
#: The smallest 32-bit signed integer (Kafka's generation ids are ``int32`` too).
INT32_MIN = -(2**31)


def check_topics(topics: object) -> Dict[str, int]:
    """The one check of a ``topics`` argument ``{topic: partition count}``, shared by every surface
    (:func:`~spark_assign.core.assign`, ``DataFrame.assign_partitions``, ``AssignmentTable``).

    Names must be non-empty strings; counts non-negative integers: ``int`` or any
    :class:`numbers.Integral` (NumPy's integers included), never a ``bool``, at most
    :data:`MAX_PARTITIONS`.
    Returns the mapping as a dict of Python ints.

    Example::

        check_topics({"orders": np.int64(12), "payments": 3}) == {"orders": 12, "payments": 3}

    Parameters
    ----------
    topics:
        The argument. Raises :class:`~spark_assign.errors.InvalidInputError`
        naming column ``topics`` (not a mapping), ``topic`` (bad names) or
        ``num_partitions`` (bad counts; every offending ``(topic, count)`` listed).
    """
    if isinstance(topics, (str, bytes)) or not isinstance(topics, Mapping):
        raise InvalidInputError(
            f"topics must be a mapping of topic name to partition count, got {type(topics).__name__}",
            column="topics",
        )
    wrong_type = [name for name in topics if name is not None and not isinstance(name, str)]
    if wrong_type:
        kinds = ", ".join(sorted({type(name).__name__ for name in wrong_type}))
        raise InvalidInputError(f"topic must be a string, got {kinds}", column="topic", rows=wrong_type)
    empty = [name for name in topics if not name]
    if empty:
        raise InvalidInputError("null or empty topic", column="topic", rows=empty)
    bad = [(name, count) for name, count in topics.items()
           if isinstance(count, (bool, np.bool_)) or not isinstance(count, numbers.Integral) or count < 0]
    if bad:
        wrong = sorted({type(count).__name__ for _, count in bad if not isinstance(count, numbers.Integral)
                        or isinstance(count, (bool, np.bool_))})
        got = f"got {', '.join(wrong)}" if wrong else "got a negative count"
        raise InvalidInputError(f"partition count must be a non-negative integer, {got}",
                                column="num_partitions", rows=bad)
    too_many = [(name, count) for name, count in topics.items() if count > MAX_PARTITIONS]
    if too_many:
        raise InvalidInputError(f"partition count above Kafka's limit of {MAX_PARTITIONS:,} (partition ids are "
                                "32-bit)", column="num_partitions", rows=too_many)
    return {name: int(count) for name, count in topics.items()}


def _partition_value(member_id: object, tp: Sequence[object]) -> int:
    p = tp[1]
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise InvalidInputError(
            f"partition must be an integer, got {type(p).__name__}",
            column="owned_partitions", rows=[(member_id, tuple(tp))],
        )
    if p > MAX_PARTITIONS:
        raise InvalidInputError(
            f"partition above Kafka's limit of {MAX_PARTITIONS:,} (partition ids are 32-bit)",
            column="owned_partitions", rows=[(member_id, tuple(tp))],
        )
    return int(p)


@dataclass(frozen=True)
class Group:
    """A validated group in dense integer form (see the module docstring).

    Invariants: member and topic indices follow Java string order; subscription
    pairs are unique and sorted by (member, topic), so a group has ``M x T`` of
    them exactly when every member subscribes to every topic ("complete": the
    pairs are then not stored, ``sub_pairs`` is None and :attr:`sub_member` /
    :attr:`sub_topic` are built on first use); claims are unique per
    (member, pid), refer only to pids of the universe, and come in no
    particular order (nothing may depend on it); ``outside_claims``
    keeps the claims on partitions outside it (unsubscribed, unknown or shrunk
    topics) because members still lose them.
    """

    member_ids: List[str]
    instance_ids: List[Optional[str]]
    member_rack: np.ndarray            # (M,) rack index into rack_names, -1 = none
    generation: np.ndarray             # (M,) claim generation, NO_GENERATION = none
    topic_names: List[str]
    topic_counts: np.ndarray           # (T,) partitions per topic, 0 if unknown
    topic_known: np.ndarray            # (T,) the topic has metadata
    topic_offsets: np.ndarray          # (T+1,) first pid of each topic
    sub_pairs: Optional[Tuple[np.ndarray, np.ndarray]]  # (S,) member, topic; None = complete
    claim_member: np.ndarray           # (C,) claims, in no particular order
    claim_pid: np.ndarray
    outside_claims: List[Tuple[int, str, int]]
    rack_names: List[str]
    part_rack_offsets: Optional[np.ndarray]   # (P+1,) CSR of replica racks per pid
    part_rack_ids: Optional[np.ndarray]
    prior_owner: Optional[np.ndarray]  # (P,) index into owner_names(), -1 = none
    departed: List[str]
    pending: Optional[np.ndarray]      # (P,) bool

    @property
    def num_members(self) -> int:
        return len(self.member_ids)

    @property
    def num_topics(self) -> int:
        return len(self.topic_names)

    @property
    def num_partitions(self) -> int:
        return int(self.topic_offsets[-1])

    @property
    def subscriptions_complete(self) -> bool:
        """Every member subscribes to every topic (the homogeneous case)."""
        return self.num_subscriptions == self.num_members * self.num_topics

    @property
    def num_subscriptions(self) -> int:
        if self.sub_pairs is None:
            return self.num_members * self.num_topics
        return len(self.sub_pairs[0])

    @property
    def sub_member(self) -> np.ndarray:
        """Member of each subscription pair; pairs sorted by (member, topic). Do not modify."""
        return self._pairs()[0]

    @property
    def sub_topic(self) -> np.ndarray:
        """Topic of each subscription pair (see :attr:`sub_member`). Do not modify."""
        return self._pairs()[1]

    def _pairs(self) -> Tuple[np.ndarray, np.ndarray]:
        if self.sub_pairs is not None:
            return self.sub_pairs
        cached = self.__dict__.get("_complete_pairs")
        if cached is None:
            M, T = self.num_members, self.num_topics
            cached = (np.repeat(np.arange(M, dtype=np.int64), T), np.tile(np.arange(T, dtype=np.int64), M))
            self.__dict__["_complete_pairs"] = cached
        return cached

    def pid_topic(self) -> np.ndarray:
        """Topic index of every pid (computed once; do not modify)."""
        cached = self.__dict__.get("_pid_topic")
        if cached is None:
            cached = np.repeat(np.arange(self.num_topics, dtype=np.int64), self.topic_counts)
            self.__dict__["_pid_topic"] = cached
        return cached

    def pid_partition(self) -> np.ndarray:
        """Partition number of every pid (computed once; do not modify)."""
        cached = self.__dict__.get("_pid_partition")
        if cached is None:
            cached = np.arange(self.num_partitions, dtype=np.int64) - self.topic_offsets[self.pid_topic()]
            self.__dict__["_pid_partition"] = cached
        return cached

    def owner_names(self) -> List[str]:
        """Names for owner indices: members, then members that left."""
        return self.member_ids + self.departed

    def is_subscribed(self, members: np.ndarray, topics: np.ndarray) -> np.ndarray:
        """Whether each ``members[i]`` subscribes to ``topics[i]``."""
        M, T = self.num_members, max(self.num_topics, 1)
        if self.subscriptions_complete:
            return np.ones(np.shape(members), dtype=bool)
        if M * T <= 1 << 25:
            table = self.__dict__.get("_sub_table")
            if table is None:
                table = self.subscription_matrix().ravel()
                self.__dict__["_sub_table"] = table
            return table[members * T + topics]
        keys = self.sub_member * T + self.sub_topic           # sorted: pairs are (member, topic) ordered
        q = members * T + topics
        at = np.minimum(np.searchsorted(keys, q), max(len(keys) - 1, 0))
        return (keys[at] == q) if len(keys) else np.zeros(len(q), dtype=bool)

    def subscribers_by_topic(self) -> Tuple[np.ndarray, np.ndarray]:
        """``(members, bounds)``: subscribers of topic t are ``members[bounds[t]:bounds[t+1]]``,
        by member index (computed once; do not modify)."""
        cached = self.__dict__.get("_subscribers")
        if cached is None and self.subscriptions_complete:
            M, T = self.num_members, self.num_topics
            cached = (np.tile(np.arange(M, dtype=np.int64), T), np.arange(T + 1, dtype=np.int64) * M)
            self.__dict__["_subscribers"] = cached
        if cached is None:
            key = self.sub_topic.astype(np.uint16 if self.num_topics < 1 << 16 else np.int64)
            order = np.argsort(key, kind="stable")         # radix sort for 16-bit keys
            bounds = np.zeros(self.num_topics + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.sub_topic, minlength=self.num_topics), out=bounds[1:])
            cached = (self.sub_member[order], bounds)
            self.__dict__["_subscribers"] = cached
        return cached

    def subscription_matrix(self) -> np.ndarray:
        """(M, T) boolean matrix of subscriptions (for small groups and checks)."""
        if self.subscriptions_complete:
            return np.ones((self.num_members, self.num_topics), dtype=bool)
        mat = np.zeros((self.num_members, self.num_topics), dtype=bool)
        mat[self.sub_member, self.sub_topic] = True
        return mat

    def has_racks(self) -> bool:
        return self.part_rack_offsets is not None and bool((self.member_rack >= 0).any())


# --------------------------------------------------------------------------- encoding


def _check_names(values: Sequence[object], column: str, what: str) -> List[str]:
    """``values`` as a list of names: non-empty strings (Kafka's ids are strings)."""
    bad = [v for v in values if not isinstance(v, str) or v == ""]
    if bad:
        wrong_type = [v for v in bad if v is not None and not isinstance(v, str)]
        if wrong_type:
            kinds = ", ".join(sorted({type(v).__name__ for v in wrong_type}))
            raise InvalidInputError(f"{what} must be a string, got {kinds}", column=column, rows=wrong_type)
        raise InvalidInputError(f"null or empty {what}", column=column, rows=bad)
    return list(values)  # type: ignore[arg-type]


def _optional_strings(values: Optional[Sequence[Optional[str]]], n: int, column: str) -> List[Optional[str]]:
    if values is None:
        return [None] * n
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
    return out


def encode(spec: GroupInput) -> Group:
    """Validate ``spec`` and turn it into a :class:`Group`.

    Raises :class:`~spark_assign.errors.InvalidInputError` naming the column and
    sample rows of the first problem found.
    """
    member_ids = _check_names(spec.member_ids, "member_id", "member_id")
    n = len(member_ids)
    dup = duplicates(np.asarray(member_ids, dtype=object)) if len(set(member_ids)) != n else ()
    if len(dup):
        raise InvalidInputError("duplicate member_id", column="member_id",
                                rows=sorted({member_ids[i] for i in dup}))
    instance_ids = _optional_strings(spec.instance_ids, n, "group_instance_id")
    no_statics = instance_ids.count(None) == n
    static = [] if no_statics else [(i, s) for i, s in enumerate(instance_ids) if s is not None]
    if len({s for _, s in static}) != len(static):
        seen: Dict[str, str] = {}
        rows = []
        for i, s in static:
            if s in seen:
                rows.append((seen[s], member_ids[i], s))
            seen.setdefault(s, member_ids[i])
        raise InvalidInputError("two members share a group_instance_id",
                                column="group_instance_id", rows=rows)
    racks = _optional_strings(spec.racks, n, "rack")
    no_racks = racks.count(None) == n
    gens = _generations(spec.generations, n, member_ids)

    # Members in Java string order: index = rank.
    if "".join(member_ids).isascii():
        order = sorted(range(n), key=member_ids.__getitem__)
    else:
        order = sorted(range(n), key=lambda i: java_sort_key(member_ids[i]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    member_ids = [member_ids[i] for i in order]
    instance_ids = instance_ids if no_statics else [instance_ids[i] for i in order]
    racks = racks if no_racks else [racks[i] for i in order]
    gens = gens[order]

    topic_names_in = _check_names(spec.topic_names, "topic", "topic")
    dup = duplicates(np.asarray(topic_names_in, dtype=object))
    if len(dup):
        raise InvalidInputError("duplicate topic in the topic metadata", column="topic",
                                rows=sorted({topic_names_in[i] for i in dup}))
    counts_in = np.asarray(spec.topic_counts, dtype=np.int64)
    sub_member = np.asarray(spec.sub_member, dtype=np.int64)
    sub_topic = np.asarray(spec.sub_topic, dtype=np.int64)

    shared = shared_topic_row(sub_member, sub_topic, n)

    # Universe topics: subscribed by someone, Java-sorted.
    subscribed = np.flatnonzero(np.bincount(sub_topic if shared is None else shared,
                                            minlength=len(topic_names_in)))
    uni_names = sorted((topic_names_in[i] for i in subscribed), key=java_sort_key)
    name_to_uni = {name: j for j, name in enumerate(uni_names)}
    to_uni = np.array([name_to_uni.get(name, -1) for name in topic_names_in], dtype=np.int64)
    known_in = counts_in >= 0
    uni_known = np.zeros(len(uni_names), dtype=bool)
    uni_counts = np.zeros(len(uni_names), dtype=np.int64)
    uni_known[to_uni[subscribed]] = known_in[subscribed]
    uni_counts[to_uni[subscribed]] = np.maximum(counts_in[subscribed], 0)
    offsets = np.zeros(len(uni_names) + 1, dtype=np.int64)
    np.cumsum(uni_counts, out=offsets[1:])

    # Subscriptions: unique (member, topic), sorted; None when complete (every
    # member subscribes to every universe topic: nothing to store).
    sub_pairs: Optional[Tuple[np.ndarray, np.ndarray]] = None
    if shared is None:
        sub_pairs = encode_subscriptions(rank[sub_member], to_uni[sub_topic], n, member_ids, uni_names)

    claim_member, claim_pid, outside = _encode_claims(
        spec, rank, member_ids, topic_names_in, to_uni, uni_counts, offsets
    )
    rack_names, member_rack, pr_off, pr_ids = _encode_racks(
        racks, spec.partition_racks, uni_names, uni_counts, offsets
    )
    prior, departed = _encode_prior(spec, member_ids, to_uni, uni_counts, offsets)
    pending = _encode_pending(spec, to_uni, uni_counts, offsets)

    return Group(
        member_ids=member_ids,
        instance_ids=instance_ids,
        member_rack=member_rack,
        generation=gens,
        topic_names=uni_names,
        topic_counts=uni_counts,
        topic_known=uni_known,
        topic_offsets=offsets,
        sub_pairs=sub_pairs,
        claim_member=claim_member,
        claim_pid=claim_pid,
        outside_claims=outside,
        rack_names=rack_names,
        part_rack_offsets=pr_off,
        part_rack_ids=pr_ids,
        prior_owner=prior,
        departed=departed,
        pending=pending,
    )


def _generations(values: Optional[Sequence[Optional[int]]], n: int, member_ids: List[str]) -> np.ndarray:
    """The members' claim generations as int64, ``NO_GENERATION`` for none. Every negative value
    reads as none, as Kafka's ``Subscription`` reads a negative ``generationId`` (Optional.empty:
    then ``DEFAULT_GENERATION`` in the sticky assignors' comparisons)."""
    if values is None:
        return np.full(n, NO_GENERATION, dtype=np.int64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return np.maximum(values.astype(np.int64), NO_GENERATION)
    if set(map(type, values)) <= {int, type(None)} and \
            all(INT32_MIN <= g <= MAX_PARTITIONS for g in values if g is not None):   # the common case
        return np.fromiter((NO_GENERATION if g is None or g < 0 else g for g in values), dtype=np.int64, count=n)
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


def _encode_claims(spec, rank, member_ids, topic_names_in, to_uni, uni_counts, offsets):
    cm = rank[np.asarray(spec.claim_member, dtype=np.int64)]
    ct_in = np.asarray(spec.claim_topic, dtype=np.int64)
    cp = np.asarray(spec.claim_partition, dtype=np.int64)
    if len(cp) and cp.min() < 0:
        bad = np.flatnonzero(cp < 0)
        raise InvalidInputError(
            "negative partition in owned partitions", column="owned_partitions",
            rows=[(member_ids[cm[i]], topic_names_in[ct_in[i]], int(cp[i])) for i in bad],
        )
    pid = _pids(to_uni[ct_in], cp, uni_counts, offsets)
    P = int(offsets[-1])
    outside: List[Tuple[int, str, int]] = []
    if len(pid) and pid.min() < 0:
        out_idx = np.flatnonzero(pid < 0)
        outside = sorted({(int(cm[i]), topic_names_in[ct_in[i]], int(cp[i])) for i in out_idx})
        inside = np.flatnonzero(pid >= 0)
        cm, pid, ct_in, cp = cm[inside], pid[inside], ct_in[inside], cp[inside]
    # A member may claim a partition once. Only partitions claimed twice can break that.
    per_pid = np.bincount(pid, minlength=P)
    if len(per_pid) and per_pid.max() > 1:
        twice = np.flatnonzero(per_pid[pid] > 1)
        dup = twice[duplicates(cm[twice] * (P + 1) + pid[twice])]
        if len(dup):
            raise InvalidInputError(
                "a member lists the same owned partition twice", column="owned_partitions",
                rows=sorted({(member_ids[cm[i]], topic_names_in[ct_in[i]], int(cp[i])) for i in dup}),
            )
    return cm, pid, outside


def _pids(uni_topic: np.ndarray, partition: np.ndarray, uni_counts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """pid of each (universe topic, partition) pair; -1 where outside the universe."""
    T = len(uni_counts)
    t = np.where(uni_topic >= 0, uni_topic, T)
    counts = np.append(uni_counts, 0)
    starts = np.append(offsets[:-1], 0)
    return np.where(partition < counts[t], starts[t] + partition, -1)


def _encode_racks(racks, partition_racks, uni_names, uni_counts, offsets):
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
    P = int(offsets[-1])
    lens = np.zeros(P, dtype=np.int64)
    per_pid: List[Sequence[str]] = [()] * P
    for t, name in enumerate(uni_names):
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


def _encode_prior(spec, member_ids, to_uni, uni_counts, offsets):
    if spec.prior_owner is None:
        return None, []
    pid = _pids(to_uni[np.asarray(spec.prior_topic, dtype=np.int64)],
                np.asarray(spec.prior_partition, dtype=np.int64), uni_counts, offsets)
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
    prior = np.full(int(offsets[-1]), -1, dtype=np.int64)
    prior[pid[keep]] = code_to_owner[owner_code[keep]]
    return prior, departed


def _encode_pending(spec, to_uni, uni_counts, offsets):
    if spec.pending_topic is None:
        return None
    pid = _pids(to_uni[np.asarray(spec.pending_topic, dtype=np.int64)],
                np.asarray(spec.pending_partition, dtype=np.int64), uni_counts, offsets)
    pending = np.zeros(int(offsets[-1]), dtype=bool)
    pending[pid[pid >= 0]] = True
    return pending

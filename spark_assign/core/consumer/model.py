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
layer produces them from Arrow); :func:`.encode.encode` validates it and builds the
immutable :class:`Group` every strategy reads.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any, Callable, ClassVar, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError
from ..java.limits import INT32_MIN, MAX_PARTITIONS
from .partition_list import TopicPartitionList

__all__ = ["Member", "GroupInput", "Group", "check_topics", "NO_GENERATION", "MAX_PARTITIONS", "INT32_MIN"]

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
        (Kafka's ``Subscription.ownedPartitions``). A list a result gave
        (:class:`~.partition_list.TopicPartitionList`) is read from its arrays.
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
    #: ``owned`` as the result's list it was given as (it holds the arrays), else None. Not a
    #: field: ``asdict``, ``astuple``, equality and hashing see only the pairs.
    _owned_list: ClassVar[Optional[TopicPartitionList]] = None

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
        owned = tuple(self.owned)
        if type(self.owned) is TopicPartitionList:        # a result's pairs: read-only, built checked
            object.__setattr__(self, "_owned_list", self.owned)
        elif not (set(map(type, owned)) <= {tuple} and set(map(len, owned)) <= {2}):   # else: pair by pair
            bad = [tp for tp in owned if isinstance(tp, (str, bytes)) or not isinstance(tp, Sequence) or len(tp) != 2]
            if bad:
                raise InvalidInputError("owned partitions must be (topic, partition) pairs",
                                        column="owned_partitions", rows=[(self.member_id, tp) for tp in bad])
            owned = tuple(tuple(tp) for tp in owned)     # type: ignore[misc]
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "owned", owned)


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
        """Build the columnar input from :class:`Member` objects and ``{topic: count}``.

        Example::

            spec = GroupInput.from_members([Member("c1", topics=["t0"], owned=[("t0", 1)])], {"t0": 2})
            spec.claim_partition.tolist() == [1]

        Topics outside ``topics`` get codes after the metadata's, with count -1. Cost: one
        dictionary lookup per distinct subscription list (members usually share one) and a
        few passes over the flattened claims, none per claim in Python bytecode.
        """
        topics = check_topics(topics)
        if not set(map(type, members)) <= {Member}:
            for m in members:
                if not isinstance(m, Member):
                    raise InvalidInputError(
                        f"members must be Member objects, got {type(m).__name__}",
                        column="members", rows=[m],
                    )
        names: List[object] = list(topics)
        counts: List[int] = list(topics.values())
        topic_index: Dict[object, int] = dict(zip(names, range(len(names))))

        def codes(listed: Sequence[object]) -> List[int]:
            """Codes of topic names; names outside the metadata get new codes, in order."""
            try:
                out = list(map(topic_index.get, listed))
            except TypeError:                   # a list, a dict...: no name can be one
                bad = [t for t in listed if not isinstance(t, Hashable)]
                kinds = ", ".join(sorted({type(t).__name__ for t in bad}))
                raise InvalidInputError(f"topic must be a string, got {kinds}", column="topic", rows=bad) from None
            if None in out:
                for k, (i, topic) in enumerate(zip(out, listed)):
                    if i is None:
                        i = topic_index.get(topic)
                        if i is None:
                            i = topic_index[topic] = len(names)
                            names.append(topic)
                            counts.append(-1)
                        out[k] = i
            return out  # type: ignore[return-value]

        sub_member, sub_topic = _subscription_columns(members, codes, topic_index)
        claim_member, claim_topic, claim_partition = _claim_columns(members, codes, topic_index)
        return cls(
            member_ids=[m.member_id for m in members],
            topic_names=names,
            topic_counts=np.asarray(counts, dtype=np.int64),
            sub_member=sub_member,
            sub_topic=sub_topic,
            claim_member=claim_member,
            claim_topic=claim_topic,
            claim_partition=claim_partition,
            generations=[m.generation for m in members],
            instance_ids=[m.instance_id for m in members],
            racks=[m.rack for m in members],
            partition_racks=partition_racks,
        )


def _subscription_columns(members: Sequence[Member], codes: Callable[[Sequence[object]], List[int]],
                          topic_index: Mapping[object, int]) -> Tuple[np.ndarray, np.ndarray]:
    """``(sub_member, sub_topic)`` of :meth:`GroupInput.from_members`. Members usually share
    one list of topics, coded once; else every member's topics are looked up in one pass."""
    M = len(members)
    if M == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first = members[0].topics
    if all(m.topics == first for m in members):
        row = np.asarray(codes(first), dtype=np.int64)
        return np.repeat(np.arange(M, dtype=np.int64), len(row)), np.tile(row, M)
    lengths = [len(m.topics) for m in members]
    flat = list(itertools.chain.from_iterable(map(attrgetter("topics"), members)))
    return np.repeat(np.arange(M, dtype=np.int64), lengths), _topic_codes(flat, topic_index, codes)


def _topic_codes(items: Sequence[object], topic_index: Mapping[object, int],
                 codes: Callable[[Sequence[object]], List[int]],
                 pick: Optional[Callable[[Any], object]] = None) -> np.ndarray:
    """Codes of the topic names ``items`` (or ``pick(item)`` of each) when every name is in the
    metadata, else :func:`codes` (new codes in order of first appearance; a name that cannot be
    one raises there). One ``map`` pass of lookups; up to :data:`ONE_CALL_NAMES` names given as
    such, one ``itemgetter`` call instead (1,249 names: 29 against 35 µs; a million: 31 against
    27 ms, and it would hold a tuple of every name)."""
    try:
        if pick is None and 1 < len(items) <= ONE_CALL_NAMES:
            return np.fromiter(itemgetter(*items)(topic_index), dtype=np.int64, count=len(items))
        names = items if pick is None else map(pick, items)
        return np.fromiter(map(topic_index.__getitem__, names), dtype=np.int64, count=len(items))
    except (KeyError, TypeError):
        return np.asarray(codes(items if pick is None else list(map(pick, items))), dtype=np.int64)


#: Up to this many subscribed topic names are coded in one ``itemgetter`` call (see _topic_codes).
ONE_CALL_NAMES = 1 << 16


def _claim_columns(members: Sequence[Member], codes: Callable[[Sequence[object]], List[int]],
                   topic_index: Mapping[object, int]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(claim_member, claim_topic, claim_partition)`` of :meth:`GroupInput.from_members`:
    whole-column passes over the flattened ``owned`` pairs (a :class:`Member` holds pairs)."""
    per_member = [len(m.owned) for m in members]
    total = sum(per_member)
    if not total:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    claim_member = np.repeat(np.arange(len(members), dtype=np.int64), per_member)
    read = _columns_of_lists(members, topic_index) if total >= ARRAY_CLAIMS else None
    if read is not None:
        return claim_member, read[0], read[1]
    flat = list(itertools.chain.from_iterable(map(attrgetter("owned"), members)))
    topic = _topic_codes(flat, topic_index, codes, pick=itemgetter(0))
    partition = _partition_column(members, flat)
    return claim_member, topic, partition


#: From this many claims on, claims given as a result's lists are read from their arrays (below
#: it, the tuples are read faster than each list's arrays are gathered).
ARRAY_CLAIMS = 4096


def _columns_of_lists(members: Sequence[Member], topic_index: Mapping[object, int]
                      ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """``(claim_topic, claim_partition)`` from the arrays of the members' claims when every
    claim list came from a result (:class:`TopicPartitionList`) and every topic they name is
    known to the call (in the metadata or subscribed, i.e. in ``topic_index``: new codes would
    depend on the pairs' order, which the tuple path gives); else None. The same columns as
    the tuple path, without a pass per pair."""
    lists: List[TopicPartitionList] = []
    for m in members:
        if m.owned:
            if m._owned_list is None:
                return None
            lists.append(m._owned_list)
    # Per names list (one per result: its members' lists share it; lists unpickled one by one
    # have equal ones), its codes in topic_index.
    sources: Dict[int, np.ndarray] = {}
    by_value: Dict[Tuple[str, ...], np.ndarray] = {}
    for pl in lists:
        if id(pl.topic_names) not in sources:
            names = tuple(pl.topic_names)
            if names not in by_value:
                by_value[names] = np.asarray([topic_index.get(t, -1) for t in names], dtype=np.int64)
            sources[id(pl.topic_names)] = by_value[names]
    if len(sources) == 1:
        topic = next(iter(sources.values()))[np.concatenate([pl.topic_codes for pl in lists])]
    else:
        topic = np.concatenate([sources[id(pl.topic_names)][pl.topic_codes] for pl in lists])
    if (topic < 0).any():
        return None
    return topic, np.concatenate([pl.partitions for pl in lists])


def _partition_column(members: Sequence[Member], flat: Sequence[Tuple[object, object]]) -> np.ndarray:
    """The partitions of the flattened ``owned`` pairs, checked as :func:`_partition_value` checks
    one. NumPy infers int64 only from integers; of those, only a bool passes for one, and a bool
    is 0 or 1, so only those values are looked at again."""
    parts = list(map(itemgetter(1), flat))
    try:
        partition = np.array(parts)
    except (OverflowError, ValueError, TypeError):
        partition = None
    if partition is not None and partition.dtype == np.int64 and partition.ndim == 1 and (
            len(partition) == 0 or partition.max() <= MAX_PARTITIONS):
        low = np.flatnonzero((partition == 0) | (partition == 1)).tolist()
        if not any(type(parts[i]) is bool for i in low):
            return partition
    # Anything else: pair by pair, raising the first problem.
    return np.array([_partition_value(m.member_id, tp) for m in members for tp in m.owned], dtype=np.int64)


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
    if type(topics) is dict and set(map(type, topics)) <= {str} and "" not in topics \
            and set(map(type, topics.values())) <= {int}:
        counts = topics.values()          # the common case: only the ranges are left to check
        if not counts or (min(counts) >= 0 and max(counts) <= MAX_PARTITIONS):
            return dict(topics)
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
    if p < -(1 << 63):                 # beyond int64 (encode names every other negative one alike)
        raise InvalidInputError("negative partition in owned partitions", column="owned_partitions",
                                rows=[(member_id, tp[0], p)])
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
    claims_overlap: bool = True        # some pid has two claims (False: each claim stands alone)

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
            cached = np.arange(self.num_topics, dtype=np.int64).repeat(self.topic_counts)
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
            order = key.argsort(kind="stable")            # radix sort for 16-bit keys
            bounds = np.zeros(self.num_topics + 1, dtype=np.int64)
            np.add.accumulate(np.bincount(self.sub_topic, minlength=self.num_topics), out=bounds[1:])
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

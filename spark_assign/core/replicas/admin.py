"""Kafka's ``AdminUtils.assignReplicasToBrokers``: topic creation's replica placement before KRaft.

What ``kafka-reassign-partitions --generate`` and ZooKeeper-mode topic creation run
(``org.apache.kafka.admin.AdminUtils``; Scala ``kafka.admin.AdminUtils`` before
Kafka 3.7). Brokers are positions ``0..n-1`` of one list; a partition's replicas
are positions, mapped to ids at the end.

Rack-unaware (no broker has a rack). The list is the broker ids in ascending
order (``AdminZkClient.getBrokerMetadatas`` sorts them). Partition ``p`` gets::

    leader   = (p + startIndex) % n
    follower = (leader + 1 + (shift(p) + j) % (n - 1)) % n        j = 0 .. RF-2

where ``shift(p)`` starts at ``nextReplicaShift`` and grows by one at every
partition id ``q > 0`` with ``q % n == 0`` met from ``startPartitionId`` on
(``replicaIndex``). Followers are therefore distinct and never the leader, and
the formula is closed-form per partition: the whole placement is a few array
operations.

Rack-aware (every broker has a rack). The list is ``getRackAlternatedBrokerList``:
racks in ``String.compareTo`` order, each rack's ids ascending, taken one rack at
a time (rack A's first, rack B's first, ..., rack A's second, ...; a rack that
runs out is skipped). The leader is chosen as above; each follower walks
``k = 0, 1, ...`` (one counter per partition, shared by its followers) over
``replicaIndex(leader, shift(p) * numRacks, k)`` and takes the first broker that
holds no replica of the partition yet and whose rack holds none, unless every
rack already does. The walk visits every non-leader position once in ``n - 1``
steps and RF <= n, so it always ends. We run it for all partitions at once,
dropping partitions as they fill; while some rack holds no replica a
partition's cursor jumps straight to the next position on such a rack (one
array step per follower, however uneven the racks), then steps one position
at a time past brokers already chosen.

``startIndex`` and ``nextReplicaShift`` are ``fixedStartIndex`` when it is set;
otherwise two draws of Kafka's ``Random.nextInt(n)``, in that order (the same
rule in both paths). Kafka's ``Random`` is unseeded; ours is ``new Random(seed)``.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ...errors import InvalidInputError
from ..java.random import JavaRandom, next_int_many, random_states
from ..java.util import java_sort_key
from ..java.limits import INT32_MAX
from .model import Broker, PlacementBlock, PlacementRequest

__all__ = ["place_admin_utils", "place_admin_utils_many", "rack_alternated_broker_list", "admin_brokers", "check_factor",
           "rack_aware_walk", "rack_aware_walk_small"]


def rack_alternated_broker_list(racks: Mapping[int, str]) -> List[int]:
    """Kafka's ``AdminUtils.getRackAlternatedBrokerList``: broker ids interleaved rack by rack.

    Example::

        rack_alternated_broker_list({0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2",
                                     4: "rack2", 5: "rack1"}) == [0, 3, 1, 5, 4, 2]

    Parameters
    ----------
    racks:
        ``{broker id: rack}`` for every broker.
    """
    names = sorted(set(racks.values()), key=java_sort_key)
    rank = {name: i for i, name in enumerate(names)}
    per_rack: Dict[str, int] = {}
    keyed: List[Tuple[int, int, int]] = []
    for broker in sorted(racks):
        rack = racks[broker]
        depth = per_rack.get(rack, 0)            # the broker's place inside its rack
        per_rack[rack] = depth + 1
        keyed.append((depth, rank[rack], broker))
    return [broker for _, _, broker in sorted(keyed)]


def admin_brokers(brokers: Sequence[Broker], rack_aware: Optional[str],
                  column: str = "brokers") -> Tuple[List[int], Optional[List[str]]]:
    """The broker ids ``AdminUtils`` is given (ascending) and their racks, or None for a
    rack-unaware placement, after Kafka's ``RackAwareMode``.

    Fenced brokers are left out: ``describeCluster`` (what ``kafka-reassign-partitions``
    reads) lists only unfenced brokers.

    Example::

        admin_brokers([Broker(2, "a"), Broker(1)], "safe") == ([1, 2], None)

    Parameters
    ----------
    brokers:
        The cluster's brokers.
    rack_aware:
        ``enforced`` (or None): every broker has a rack or none does, else an error;
        ``safe``: racks only when every broker has one; ``disabled``: racks ignored.
    column:
        The column an error names: ``brokers`` (the argument), ``rack`` (a DataFrame's column).
    """
    usable = sorted((b for b in brokers if not b.fenced), key=lambda b: b.id)
    ids = [b.id for b in usable]
    rackless = [b.id for b in usable if b.rack is None]
    if rack_aware == "disabled" or len(rackless) == len(usable):
        return ids, None
    if rackless:
        if rack_aware == "safe":
            return ids, None
        raise InvalidInputError(
            "some brokers have a rack and some do not (Kafka's AdminOperationException): with "
            "rack_aware='enforced', Kafka's default, every broker needs a rack or none may have one; "
            "pass rack_aware='safe' or 'disabled' to place without racks", column=column, rows=rackless)
    return ids, [str(b.rack) for b in usable]


def _shifts(p: np.ndarray, n: int, first_shift: Union[int, np.ndarray], start: int) -> np.ndarray:
    """``nextReplicaShift`` at each partition id ``p >= start``: the first value plus one per
    multiple of ``n`` in ``[max(start, 1), p]``."""
    return first_shift + p // n - (max(start, 1) - 1) // n


def _check_int32(largest: int, what: str) -> None:
    if largest > INT32_MAX:
        raise InvalidInputError(
            f"start_index too large: Kafka computes {what} in 32-bit ints, which could overflow here "
            f"(reaching {largest})", column="start_index", rows=[largest])


def _unaware_positions(first: np.ndarray, shift: np.ndarray, n: int, rf: int) -> np.ndarray:
    out = np.empty((len(first), rf), dtype=np.int64)
    out[:, 0] = first
    for j in range(rf - 1):
        out[:, j + 1] = (first + 1 + (shift + j) % (n - 1)) % n
    return out


def _first_racks(rack_of: np.ndarray, count: int) -> np.ndarray:
    """``out[i, t]``: the position where the ``t``-th distinct rack first appears walking the
    list cyclically from position ``i`` (``out[i, 0] == i``); ``count`` racks per position."""
    n = len(rack_of)
    out = np.empty((n, count), dtype=np.int64)
    ahead: List[Tuple[int, int]] = []             # (rack, position) of the first racks after j
    racks = rack_of.tolist()
    for j in range(2 * n - 1, -1, -1):            # twice round, so every position sees a full circle
        rack = racks[j % n]
        ahead = [(rack, j % n)] + [item for item in ahead if item[0] != rack][:count - 1]
        if j < n:
            out[j] = [position for _, position in ahead]
    return out


#: Up to this many replicas, the rack-aware walk runs as Kafka writes it, one partition at a time:
#: for a small topic that beats the array version's fixed cost (a fleet places many such topics).
SMALL_WALK = 256


def rack_aware_walk_small(first: np.ndarray, shift: np.ndarray, rack_of: np.ndarray, rf: int) -> np.ndarray:
    """:func:`rack_aware_walk` as Kafka's loop: follower counter ``k`` walks
    ``replicaIndex(leader, shift * numRacks, k)`` and takes a position not chosen yet whose rack
    holds no replica unless every rack does (same result; tests compare the two)."""
    n, racks = len(rack_of), rack_of.tolist()
    num_racks = len(set(racks))
    out = np.empty((len(first), rf), dtype=np.int64)
    for row, (leader, s) in enumerate(zip(first.tolist(), shift.tolist())):
        chosen, used, k = [leader], {racks[leader]}, 0
        while len(chosen) < rf:
            at = (leader + 1 + (s * num_racks + k) % (n - 1)) % n
            if at not in chosen and (racks[at] not in used or len(used) == num_racks):
                chosen.append(at)
                used.add(racks[at])
            k += 1
        out[row] = chosen
    return out


def rack_aware_walk(first: np.ndarray, shift: np.ndarray, rack_of: np.ndarray, rf: int) -> np.ndarray:
    """The rack-aware walk for every partition at once; see the module docstring.

    ``rack_of[i]`` is the rack number of list position ``i``. Kafka's counter ``k`` walks the
    positions cyclically from ``leader + 1 + (shift * numRacks) % (n - 1)``, skipping the leader;
    we walk the same circle with a cursor (the leader, already chosen, is refused like any
    chosen broker). Invariant: ``chosen[:, :filled]`` holds distinct positions whose racks are
    distinct until every rack holds a replica, so the racks in use number ``min(filled, numRacks)``.
    While a rack holds none, the walk takes the first position whose rack holds none: one of the
    first ``min(RF, numRacks)`` distinct racks met from the cursor (precomputed), so the cursor
    jumps there. Once every rack holds one, it steps past at most RF chosen positions.
    """
    n, num_racks = len(rack_of), int(rack_of.max()) + 1
    ahead = _first_racks(rack_of, min(rf, num_racks))
    out = np.empty((len(first), rf), dtype=np.int64)
    rows = np.arange(len(first))
    cursor = (first + 1 + (shift * num_racks) % (n - 1)) % n
    chosen = np.full((len(first), rf), -1, dtype=np.int64)
    chosen[:, 0] = first
    chosen_racks = np.full((len(first), rf), -1, dtype=np.int64)
    chosen_racks[:, 0] = rack_of[first]
    filled = np.ones(len(first), dtype=np.int64)
    while len(rows):
        every_rack = np.minimum(filled, num_racks) == num_racks
        options = ahead[cursor]
        unused = ~(rack_of[options][:, :, None] == chosen_racks[:, None, :]).any(axis=2)
        jump = options[np.arange(len(rows)), unused.argmax(axis=1)]
        at = np.where(every_rack, cursor, jump)
        take = ~every_rack | ~(chosen == at[:, None]).any(axis=1)
        hit = np.flatnonzero(take)
        chosen[hit, filled[hit]] = at[hit]
        chosen_racks[hit, filled[hit]] = rack_of[at[hit]]
        filled[hit] += 1
        cursor = (at + 1) % n
        done = filled == rf
        out[rows[done]] = chosen[done]
        keep = ~done
        rows, cursor, filled = rows[keep], cursor[keep], filled[keep]
        chosen, chosen_racks = chosen[keep], chosen_racks[keep]
    return out


def place_admin_utils(request: PlacementRequest) -> Tuple[np.ndarray, Optional[int]]:
    """Place replicas as ``AdminUtils.assignReplicasToBrokers(brokers, partitions, RF,
    fixedStartIndex, startPartitionId)``; returns the broker-id array and the seed drawn from.

    Example::

        from spark_assign.core import Broker, place_replicas
        place_replicas([Broker(i) for i in range(5)], partitions=10, replication_factor=3,
                       method="admin-utils", start_index=0).replicas[5] == [0, 2, 3]

    Parameters
    ----------
    request:
        The checked arguments; ``start_index`` None draws ``startIndex`` and ``nextReplicaShift``
        from ``new Random(request.seed)``.
    """
    walker = AdminWalker(request.brokers, request.rack_aware)
    rf, count, start = request.replication_factor, request.partitions, request.start_partition
    walker.check_factor(rf, None)
    seed: Optional[int] = None
    if request.start_index is None:
        seed = request.seed
        rnd = JavaRandom(seed)
        start_index = rnd.next_int(walker.n)
        first_shift = rnd.next_int(walker.n)
    else:
        start_index = first_shift = request.start_index
    if count == 0:
        return np.empty((0, rf), dtype=np.int32), seed
    p = np.arange(start, start + count, dtype=np.int64)
    return walker.place(p, np.full(count, start_index), np.full(count, first_shift), start, rf,
                        small=count * rf <= SMALL_WALK), seed


class AdminWalker:
    """``AdminUtils``' view of one cluster, computed once for any number of topics: the broker
    list it walks (ids ascending, or rack-alternated) and each position's rack.

    Example::

        AdminWalker([Broker(0), Broker(1), Broker(2)], None).place(np.arange(3), np.zeros(3, int),
                                                                   np.zeros(3, int), 0, 2)
    """

    def __init__(self, brokers: Sequence[Broker], rack_aware: Optional[str], column: str = "brokers") -> None:
        ids, racks = admin_brokers(brokers, rack_aware, column)
        self.n = len(ids)
        self.fenced = sum(b.fenced for b in brokers)
        self.racked = racks is not None
        if racks is None:
            self.order = np.asarray(ids, dtype=np.int64)
            self.rack_of = np.zeros(self.n, dtype=np.int64)
            self.num_racks = 1
        else:
            self.order = np.asarray(rack_alternated_broker_list(dict(zip(ids, racks))), dtype=np.int64)
            codes = {name: i for i, name in enumerate(sorted(set(racks)))}
            rack_by_id = dict(zip(ids, racks))
            self.rack_of = np.array([codes[rack_by_id[b]] for b in self.order.tolist()], dtype=np.int64)
            self.num_racks = len(codes)

    def check_factor(self, rf: int, rows: Optional[list]) -> None:
        """Kafka's refusal of a replication factor above the brokers (``rows``: what to name)."""
        check_factor(rf, self.n, self.fenced, rows)


    def place(self, p: np.ndarray, start_index: np.ndarray, first_shift: np.ndarray, start: int, rf: int,
              small: bool = False) -> np.ndarray:
        """Broker ids ``(rows, rf)`` of partitions ``p`` (ids ``>= start``), each row with its own
        topic's ``startIndex`` and ``nextReplicaShift``; ``small``: walk as Kafka's loop."""
        n = self.n
        _check_int32(int((p + start_index).max()) if len(p) else 0, "partition id + start index")
        shift = _shifts(p, n, first_shift, start)
        largest_shift = int(shift.max()) if len(p) else 0
        # Kafka adds the follower counter to the shift: j < RF - 1 rack-unaware, k < (RF - 1)(n - 1) rack-aware.
        _check_int32(largest_shift + rf - 2 if not self.racked else largest_shift * self.num_racks + (rf - 1) * (n - 1),
                     "the replica shift")
        first = (p + start_index) % n
        if not self.racked:
            positions = _unaware_positions(first, shift, n, rf)
        elif rf == 1:
            positions = first[:, None]
        else:
            positions = (rack_aware_walk_small if small else rack_aware_walk)(first, shift, self.rack_of, rf)
        return self.order[positions].astype(np.int32)


def check_factor(rf: int, usable: int, fenced: int, rows: Optional[list] = None) -> None:
    """``AdminUtils``' refusal of a replication factor above the ``usable`` brokers, ``fenced``
    ones left out (``rows``: what to name; default the factor).

    Example::

        check_factor(4, 3, 1)   # replication factor 4 is larger than the 3 available brokers (1 fenced ...)
    """
    if rf > usable:
        raise InvalidInputError(
            f"replication factor {rf} is larger than the {usable} available brokers"
            + (f" ({fenced} fenced brokers left out)" if fenced else ""),
            column="replication_factor", rows=[rf] if rows is None else rows)


def place_admin_utils_many(brokers: Sequence[Broker], partitions: np.ndarray, factors: np.ndarray,
                           seeds: np.ndarray, start_index: Optional[int], rack_aware: Optional[str],
                           rack_column: str = "brokers") -> List[PlacementBlock]:
    """``AdminUtils`` for many new topics of one cluster at once, each as :func:`place_admin_utils`
    places it alone (topic ``t``: ``partitions[t]`` partitions from 0, ``factors[t]`` replicas,
    ``startIndex`` and ``nextReplicaShift`` drawn from ``new Random(seeds[t])`` unless
    ``start_index`` is given): one vectorized walk per replication factor.

    Example::

        blocks = place_admin_utils_many([Broker(i) for i in range(5)], np.array([10, 2]), np.array([3, 3]),
                                        np.array([42, 7]), None, None)
        blocks[0].broker_ids.shape == (12, 3)

    Parameters
    ----------
    brokers:
        The cluster's brokers (checked: distinct ids).
    partitions, factors, seeds:
        Per topic: its partition count, replication factor (at least 1) and seed.
    start_index, rack_aware:
        As for ``place_replicas``.
    rack_column:
        The column to name when some brokers have a rack and some do not.

    Raises
    ------
    InvalidInputError
        A replication factor above the usable brokers, naming the topics (their numbers).
    """
    walker = AdminWalker(brokers, rack_aware, rack_column)
    over = np.flatnonzero(factors > walker.n)
    if len(over):
        walker.check_factor(int(factors[over[0]]), over.tolist())
    if start_index is None:
        first_index, states = next_int_many(random_states(seeds), walker.n)
        first_shift, _ = next_int_many(states, walker.n)
    else:
        first_index = first_shift = np.full(len(partitions), start_index, dtype=np.int64)
    blocks = []
    for rf in np.unique(factors).tolist():
        topics = np.flatnonzero((factors == rf) & (partitions > 0))
        if not len(topics):
            continue
        counts = partitions[topics].astype(np.int64)
        topic = np.repeat(topics, counts)
        p = np.arange(len(topic)) - np.repeat(np.cumsum(counts) - counts, counts)
        ids = walker.place(p, first_index[topic], first_shift[topic], 0, rf)
        blocks.append(PlacementBlock(topic.astype(np.int32), p.astype(np.int32), ids))
    return blocks

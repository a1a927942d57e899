"""KRaft's ``StripedReplicaPlacer``: how the controller places a new topic's replicas.

``org.apache.kafka.metadata.placement.StripedReplicaPlacer`` (KIP-631; unchanged
in behaviour from Kafka 3.3 to the October 2024 trunk we compare with; later code,
KAFKA-14437, seeds the offsets of partitions added to an existing topic from its
current placement, which we do not model). Its state machine, kept as Kafka has it
because every draw from ``java.util.Random`` depends on the order of the ones
before:

* Racks (``Optional<String>``: no rack is a rack of its own, sorted first) hold
  two sorted broker lists, unfenced and fenced. Each list has an ``offset``
  (drawn at start: ``nextInt(size)``, the fenced list's first, racks in the
  iteration order of Kafka's ``HashMap<Optional<String>, Rack>``), an ``index``
  (brokers returned this epoch) and the last ``epoch`` it saw. Meeting a new
  epoch resets the index and advances the offset by one, so each epoch hands out
  every broker of a list once, starting one further along.
* The rack list has its own offset (drawn after the racks') and the epoch, one
  per partition placed. Each partition's leader comes from the first rack, from
  the offset on, with an unfenced broker left this epoch; its followers come
  from the racks in turn from the offset on, skipping the leader's rack once,
  unfenced brokers first, fenced ones when a rack's unfenced brokers are used up.
  Then epoch and offset advance by one.
* When the epoch reaches the number of unfenced brokers (and there are more than
  one), the rack names are shuffled, then every rack's fenced and unfenced list
  (``Collections.shuffle``, same ``HashMap`` order), and the epoch restarts at 0.

Brokers reach the placer in the controller's order: its ``HashMap<Integer,
BrokerHeartbeatState>``, filled in the order given here. That order matters only
when two rack names share a ``HashMap`` bucket.

Limits: Kafka builds the ``HashMap`` of racks with ``String.hashCode``; racks
that collide in one bucket of a table of 64+ buckets, 9 or more of them, would
iterate as a tree (see :mod:`.javautil`); that takes hundreds of racks.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError
from ..java.random import JavaRandom, java_shuffle, next_int_many, random_states
from ..java.util import hashmap_order, java_sort_key, java_string_hash
from .striped_block import striped_block
from .model import Broker, PlacementBlock, PlacementRequest

__all__ = ["BrokerList", "Rack", "RackList", "place_striped", "place_striped_many", "striped_place",
           "controller_order"]

#: What RackList reads of a broker: (id, rack or None, fenced).
UsableBroker = Tuple[int, Optional[str], bool]


class BrokerList:
    """One rack's unfenced (or fenced) brokers, handed out round-robin, once per epoch."""

    __slots__ = ("brokers", "index", "offset", "epoch")

    def __init__(self) -> None:
        self.brokers: List[int] = []
        self.index = 0
        self.offset = 0
        self.epoch = 0

    def add(self, broker: int) -> "BrokerList":
        """Append ``broker``; returns the list, for chaining."""
        self.brokers.append(broker)
        return self

    def initialize(self, rnd: JavaRandom) -> None:
        """Sort the ids and draw the start offset (no draw for an empty list)."""
        if self.brokers:
            self.brokers.sort()
            self.offset = rnd.next_int(len(self.brokers))

    def shuffle(self, rnd: JavaRandom) -> None:
        """``Collections.shuffle`` the ids (``size - 1`` draws)."""
        java_shuffle(self.brokers, rnd)

    def next(self, epoch: int) -> int:
        """The next broker of ``epoch``, or -1 once every broker was returned in it."""
        size = len(self.brokers)
        if size == 0:
            return -1
        if self.epoch != epoch:
            self.epoch = epoch
            self.index = 0
            self.offset = (self.offset + 1) % size
        if self.index >= size:
            return -1
        broker = self.brokers[(self.index + self.offset) % size]
        self.index += 1
        return broker


class Rack:
    """A rack's two broker lists; unfenced brokers are always offered first."""

    __slots__ = ("fenced", "unfenced")

    def __init__(self) -> None:
        self.fenced = BrokerList()
        self.unfenced = BrokerList()

    def initialize(self, rnd: JavaRandom) -> None:
        """Fenced list first, then unfenced: the order of Kafka's draws."""
        self.fenced.initialize(rnd)
        self.unfenced.initialize(rnd)

    def shuffle(self, rnd: JavaRandom) -> None:
        """Shuffle the fenced list, then the unfenced one."""
        self.fenced.shuffle(rnd)
        self.unfenced.shuffle(rnd)

    def next(self, epoch: int) -> int:
        """The next unfenced broker of ``epoch``, else the next fenced one, else -1."""
        broker = self.unfenced.next(epoch)
        return broker if broker >= 0 else self.fenced.next(epoch)


def _rack_sort_key(name: Optional[str]) -> Tuple[bool, str]:
    """``OptionalStringComparator``: no rack first, then ``String.compareTo``."""
    return (name is not None, java_sort_key(name) if name is not None else "")


class RackList:
    """Kafka's ``StripedReplicaPlacer.RackList``: the racks, their offsets and the epoch.

    Example::

        rack_list = RackList(JavaRandom(1), [(0, None, False), (1, None, False)])
        rack_list.place(2)          # [leader, follower]

    Parameters
    ----------
    rnd:
        The ``java.util.Random`` to draw from (it keeps being drawn from by :meth:`place`).
    brokers:
        ``(id, rack or None, fenced)`` in the order Kafka's ``ClusterDescriber`` yields them.
    """

    def __init__(self, rnd: JavaRandom, brokers: Iterable[UsableBroker]) -> None:
        self.random = rnd
        self.racks: Dict[Optional[str], Rack] = {}
        total = unfenced = 0
        for broker, name, fenced in brokers:
            rack = self.racks.get(name)
            if rack is None:
                rack = self.racks[name] = Rack()
            if fenced:
                rack.fenced.add(broker)
            else:
                rack.unfenced.add(broker)
                unfenced += 1
            total += 1
        # Kafka walks its HashMap of racks; Optional.hashCode() is the name's hashCode, 0 for none.
        inserted = list(self.racks)
        hashes = [java_string_hash(r) if r is not None else 0 for r in inserted]
        self.map_order: List[Optional[str]] = [inserted[i] for i in hashmap_order(hashes)]
        for name in self.map_order:
            self.racks[name].initialize(rnd)
        self.rack_names: List[Optional[str]] = sorted(inserted, key=_rack_sort_key)
        self.num_total_brokers = total
        self.num_unfenced_brokers = unfenced
        self.epoch = 0
        self.offset = rnd.next_int(len(self.rack_names)) if self.rack_names else 0

    def check(self, replication_factor: int) -> None:
        """Kafka's three refusals, in its order: RF not positive, every broker fenced, RF above
        the number of brokers (fenced ones count)."""
        if replication_factor <= 0:
            raise InvalidInputError(f"invalid replication factor {replication_factor}: it must be positive",
                                    column="replication_factor", rows=[replication_factor])
        if self.num_unfenced_brokers == 0:
            raise InvalidInputError(
                (f"all {self.num_total_brokers} brokers are currently fenced" if self.num_total_brokers
                 else "no brokers were given") + ": the striped placer needs an unfenced broker for every leader",
                column="brokers")
        if replication_factor > self.num_total_brokers:
            raise InvalidInputError(
                f"the target replication factor of {replication_factor} cannot be reached because only "
                f"{self.num_total_brokers} broker(s) are registered",
                column="replication_factor", rows=[replication_factor])

    def place(self, replication_factor: int) -> List[int]:
        """The replicas of the next partition, leader first (``RackList.place``).

        Example::

            RackList(JavaRandom(3), [(1, "a", False), (2, "b", False)]).place(2) in ([1, 2], [2, 1])

        Parameters
        ----------
        replication_factor:
            Replicas wanted; checked as Kafka does on every call.
        """
        self.check(replication_factor)
        if self.epoch == self.num_unfenced_brokers and self.num_unfenced_brokers > 1:
            self.shuffle()
            self.epoch = 0
        names, racks, epoch = self.rack_names, self.racks, self.epoch
        count = len(names)
        if self.offset == count:
            self.offset = 0
        first = self.offset                       # the leader's rack: the first with an unfenced broker left
        while True:
            leader = racks[names[first]].unfenced.next(epoch)
            if leader >= 0:
                break
            first = (first + 1) % count
        replicas = [leader]
        at = self.offset
        skip = first                              # -1 once the leader's rack was passed over
        for _ in range(replication_factor - 1):
            broker = -1
            while broker < 0:
                if at == skip:
                    skip = -1
                else:
                    broker = racks[names[at]].next(epoch)
                at = (at + 1) % count
            replicas.append(broker)
        self.epoch += 1
        self.offset += 1
        return replicas

    def shuffle(self) -> None:
        """Shuffle the rack names, then each rack's lists in ``HashMap`` order (one run of draws)."""
        lists: List[List[Any]] = [list(self.rack_names)] + [lst.brokers for name in self.map_order
                                     for lst in (self.racks[name].fenced, self.racks[name].unfenced)]
        swaps = iter(self.random.next_ints(np.concatenate(
            [np.arange(len(items), 1, -1) for items in lists])).tolist())
        for items in lists:
            for i in range(len(items), 1, -1):
                j = next(swaps)
                items[i - 1], items[j] = items[j], items[i - 1]
        self.rack_names = lists[0]

    def place_many(self, partitions: int, replication_factor: int) -> np.ndarray:
        """``partitions`` calls of :meth:`place`: the ``(partitions, replication_factor)`` array.

        Between two reshuffles (one every ``num_unfenced_brokers`` partitions) the placer's walk
        has no draws, so a stretch is computed as arrays where :func:`striped_block` can, and by
        :meth:`place` one partition at a time where it cannot.

        Example::

            RackList(JavaRandom(3), [(1, "a", False), (2, "b", False)]).place_many(4, 2).shape == (4, 2)

        Parameters
        ----------
        partitions, replication_factor:
            Partitions to place and replicas per partition (checked as :meth:`place` checks them).
        """
        self.check(replication_factor)
        out = np.empty((partitions, replication_factor), dtype=np.int32)
        unfenced, done = self.num_unfenced_brokers, 0
        while done < partitions:
            if self.epoch == unfenced and unfenced > 1:
                self.shuffle()
                self.epoch = 0
            take = partitions - done if unfenced <= 1 else min(partitions - done, unfenced - self.epoch)
            block = striped_block(self, take, replication_factor)
            if block is None:
                block = np.array([self.place(replication_factor) for _ in range(take)], dtype=np.int32)
            out[done:done + take] = block
            done += take
        return out


def controller_order(brokers: Sequence[Broker]) -> List[Broker]:
    """``brokers`` in the order the KRaft controller hands them to the placer: its
    ``HashMap<Integer, BrokerHeartbeatState>``, filled in the order given (``Integer.hashCode``
    is the id).

    Example::

        [b.id for b in controller_order([Broker(18), Broker(1), Broker(17)])] == [1, 17, 18]

    Parameters
    ----------
    brokers:
        The brokers, in registration order.
    """
    return [brokers[i] for i in hashmap_order([b.id for b in brokers])]


def place_striped(request: PlacementRequest) -> Tuple[np.ndarray, Optional[int]]:
    """Place replicas as ``new StripedReplicaPlacer(new Random(seed)).place(...)`` does for a new
    topic; returns the broker-id array and the seed.

    Example::

        from spark_assign.core import Broker, place_replicas
        place_replicas([Broker(0), Broker(1), Broker(2)], partitions=3, replication_factor=2,
                       method="striped", seed=5).replicas

    Parameters
    ----------
    request:
        The checked arguments. ``rack_aware`` None uses the racks as given, ``disabled`` drops
        them; ``start_index`` and ``start_partition`` do not change Kafka's choice.
    """
    usable = _usable(request.brokers, request.rack_aware, request.start_index)
    return striped_place(JavaRandom(request.seed), usable, request.partitions, request.replication_factor), request.seed


def _usable(brokers: Sequence[Broker], rack_aware: Optional[str], start_index: Optional[int]) -> List[UsableBroker]:
    """The brokers as the placer reads them, after refusing AdminUtils' options."""
    if rack_aware not in (None, "disabled"):
        raise InvalidInputError(
            f"rack_aware={rack_aware!r} is AdminUtils' RackAwareMode; the striped placer uses the "
            "racks given (brokers with and without one may mix) or none with rack_aware='disabled'",
            column="rack_aware", rows=[rack_aware])
    if start_index is not None:
        raise InvalidInputError("start_index is AdminUtils' fixedStartIndex; the striped placer draws its "
                                "offsets from seed=", column="start_index", rows=[start_index])
    return [(b.id, b.rack if rack_aware is None else None, b.fenced) for b in controller_order(brokers)]


def place_striped_many(brokers: Sequence[Broker], partitions: np.ndarray, factors: np.ndarray, seeds: np.ndarray,
                       rack_aware: Optional[str], start_index: Optional[int] = None) -> List[PlacementBlock]:
    """``StripedReplicaPlacer`` for many new topics of one cluster, each as :func:`place_striped`
    places it alone with ``new Random(seeds[t])``.

    A topic's placement is a function of its first draws (each broker list's offset, then the
    rack list's) until the placer reshuffles, which it does only after as many partitions as
    there are unfenced brokers. The first draws of every topic are made at once
    (:func:`~.javarandom.next_int_many`); topics that draw the same offsets with the same
    replication factor and never reshuffle share one run of the placer (a cluster of 6 brokers
    on 3 racks has at most 24 offset combinations, however many topics). Other topics run alone.

    Example::

        blocks = place_striped_many([Broker(i) for i in range(6)], np.array([3, 3]), np.array([2, 2]),
                                    np.array([1, 2]), None)

    Parameters
    ----------
    brokers:
        The cluster's brokers in registration order (checked: distinct ids).
    partitions, factors, seeds:
        Per topic: its partition count, replication factor and ``java.util.Random`` seed.
    rack_aware, start_index:
        As for ``place_replicas`` (None or ``disabled``; None).

    Raises
    ------
    InvalidInputError
        Kafka's refusals, naming the topics (their numbers) where a replication factor is at fault.
    """
    usable = _usable(brokers, rack_aware, start_index)
    if not len(seeds):
        return []
    template = RackList(JavaRandom(0), usable)
    refused: List[InvalidInputError] = []
    for rf in np.unique(factors).tolist():
        try:
            template.check(rf)
        except InvalidInputError as e:
            if not e.rows:
                raise                                  # every broker fenced: no topic to name
            refused.append(e)
    if refused:
        bad = np.flatnonzero(np.isin(factors, [e.rows[0] for e in refused]))
        raise InvalidInputError(refused[0].problem, column=refused[0].column, rows=bad.tolist())
    bounds = [len(lst.brokers) for name in template.map_order
              for lst in (template.racks[name].fenced, template.racks[name].unfenced) if lst.brokers]
    bounds.append(len(template.rack_names))
    states = random_states(seeds)
    draws = np.empty((len(seeds), len(bounds) + 1), dtype=np.int64)
    for j, bound in enumerate(bounds):
        draws[:, j], states = next_int_many(states, bound)
    draws[:, -1] = factors
    unfenced = template.num_unfenced_brokers
    alone = np.flatnonzero((partitions > unfenced) & (unfenced > 1))
    shared = np.flatnonzero((partitions > 0) & ~((partitions > unfenced) & (unfenced > 1)))
    blocks = []
    if len(shared):
        keys, first, inverse = np.unique(draws[shared], axis=0, return_index=True, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        longest = np.zeros(len(keys), dtype=np.int64)
        np.maximum.at(longest, inverse, partitions[shared])
        for k in range(len(keys)):
            topics = shared[inverse == k]
            rf = int(keys[k, -1])
            rows = striped_place(JavaRandom(int(seeds[shared[first[k]]])), usable, int(longest[k]), rf)
            counts = partitions[topics].astype(np.int64)
            p = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            blocks.append(PlacementBlock(np.repeat(topics, counts).astype(np.int32), p.astype(np.int32), rows[p]))
    for t in alone.tolist():
        count = int(partitions[t])
        rows = striped_place(JavaRandom(int(seeds[t])), usable, count, int(factors[t]))
        blocks.append(PlacementBlock(np.full(count, t, dtype=np.int32), np.arange(count, dtype=np.int32), rows))
    return blocks


def striped_place(rnd: JavaRandom, brokers: Iterable[UsableBroker], partitions: int,
                  replication_factor: int) -> np.ndarray:
    """``new StripedReplicaPlacer(rnd).place(spec, cluster)`` with the cluster's brokers in the
    order given: the ``(partitions, replication_factor)`` array of broker ids.

    Example::

        striped_place(JavaRandom(17), [(0, None, False), (3, None, False), (2, None, False),
                                       (1, None, False)], 5, 3)[0].tolist() == [2, 3, 0]

    Parameters
    ----------
    rnd:
        The generator (Kafka's tests pass a ``MockRandom``; the controller an unseeded ``Random``).
    brokers:
        ``(id, rack or None, fenced)`` in the ``ClusterDescriber``'s order.
    partitions, replication_factor:
        Kafka's ``PlacementSpec.numPartitions`` and ``numReplicas``.
    """
    return RackList(rnd, brokers).place_many(partitions, replication_factor)

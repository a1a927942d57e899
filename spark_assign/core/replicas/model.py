"""Replica placement's inputs and result: :class:`Broker`, :class:`PlacementRequest`, :class:`ReplicaPlacement`.

Dense integers inside, ids at the edges: a placement is a NumPy ``int32`` array
of shape ``(partitions, replication_factor)`` holding broker ids, one row per
partition from ``start_partition`` on, the preferred leader in column 0.
Broker ids, partition ids and counts are Kafka ``int`` values, so every one of
them is checked to fit 32 bits before any array is allocated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from numbers import Integral
from typing import Dict, List, Optional, Sequence, Tuple, cast

import numpy as np

from ...errors import InvalidInputError
from ..java.limits import INT32_MAX, is_int

__all__ = [
    "Broker",
    "PlacementRequest",
    "ReplicaPlacement",
    "PlacementBlock",
    "RACK_AWARE_MODES",
    "check_brokers",
    "check_seed",
]

_LONG = 1 << 63

#: ``kafka.admin.RackAwareMode``: ``enforced`` (every broker has a rack or none does, else an
#: error; the command-line default), ``safe`` (racks used only when every broker has one; auto
#: topic creation), ``disabled`` (racks ignored; ``--disable-rack-aware``).
RACK_AWARE_MODES = ("enforced", "safe", "disabled")


def check_seed(seed: object) -> Optional[int]:
    """``seed`` as an int when it is None or fits Java's ``long`` (``new Random(long seed)``).

    Example::

        check_seed(-1) == -1 and check_seed(None) is None

    Parameters
    ----------
    seed:
        What the caller passed.
    """
    if seed is None:
        return None
    if not is_int(seed):
        raise InvalidInputError(f"seed must be an integer or None, got {type(seed).__name__} {seed!r}",
                                column="seed", rows=[seed])
    number = int(cast(Integral, seed))
    if not -_LONG <= number < _LONG:
        raise InvalidInputError(f"seed must fit a Java long (-2^63 to 2^63 - 1), got {number}",
                                column="seed", rows=[number])
    return number


@dataclass(frozen=True)
class Broker:
    """A broker as Kafka's placement code sees it (``BrokerMetadata``, KRaft's ``UsableBroker``).

    Example::

        Broker(1, rack="us-east-1a"), Broker(2, fenced=True)

    Parameters
    ----------
    id:
        ``node.id``: a non-negative 32-bit integer.
    rack:
        ``broker.rack``, or None for a broker without one.
    fenced:
        KRaft's fencing. ``striped`` never makes a fenced broker leader and gives it a follower
        only when its rack has no unfenced broker left for the partition; ``admin-utils`` leaves
        fenced brokers out, as ``describeCluster`` (what the reassignment tool reads) does.
    """

    id: int
    rack: Optional[str] = None
    fenced: bool = False

    def __post_init__(self) -> None:
        if not is_int(self.id):
            raise InvalidInputError(f"broker id must be an integer, got {type(self.id).__name__} {self.id!r}",
                                    column="brokers", rows=[self.id])
        if not 0 <= int(self.id) <= INT32_MAX:
            raise InvalidInputError(f"broker id must be between 0 and {INT32_MAX}, got {self.id}",
                                    column="brokers", rows=[self.id])
        object.__setattr__(self, "id", int(self.id))
        if self.rack is not None and (not isinstance(self.rack, str) or not self.rack):
            raise InvalidInputError(f"broker {self.id}: rack must be a non-empty string or None (no rack), "
                                    f"got {self.rack!r}", column="brokers", rows=[self.id])
        if not isinstance(self.fenced, (bool, np.bool_)):
            raise InvalidInputError(f"broker {self.id}: fenced must be a bool, got {self.fenced!r}",
                                    column="brokers", rows=[self.id])
        object.__setattr__(self, "fenced", bool(self.fenced))


def check_brokers(brokers: object) -> Tuple[Broker, ...]:
    """``brokers`` as a tuple when it is a sequence of distinct :class:`Broker` objects.

    Example::

        check_brokers([Broker(1), Broker(2)]) == (Broker(1), Broker(2))

    Parameters
    ----------
    brokers:
        What the caller passed.
    """
    if isinstance(brokers, (str, bytes, dict)) or not isinstance(brokers, Sequence):
        raise InvalidInputError(f"brokers must be a list of Broker objects, got {type(brokers).__name__}",
                                column="brokers")
    others = [b for b in brokers if not isinstance(b, Broker)]
    if others:
        raise InvalidInputError("brokers must be Broker objects, e.g. Broker(1, rack='r1')",
                                column="brokers", rows=others)
    seen: Dict[int, int] = {}
    for b in brokers:
        seen[b.id] = seen.get(b.id, 0) + 1
    twice = sorted(i for i, count in seen.items() if count > 1)
    if twice:
        raise InvalidInputError(f"duplicate broker ids: {', '.join(map(str, twice))}", column="brokers", rows=twice)
    return tuple(brokers)


@dataclass(frozen=True)
class PlacementRequest:
    """One placement to compute, arguments checked (what a method receives).

    ``seed`` is concrete: :func:`~spark_assign.core.place_replicas` draws one when the caller
    gave None. ``rack_aware`` is one of :data:`RACK_AWARE_MODES`, or None for the method's own rule.
    ``previous`` is the current placement for methods that reassign (``sticky``): an ``int64``
    array, one row per partition, broker ids with ``-1`` padding short rows; None otherwise.
    """

    brokers: Tuple[Broker, ...]
    partitions: int
    replication_factor: int
    start_index: Optional[int]
    start_partition: int
    seed: int
    rack_aware: Optional[str]
    previous: Optional[np.ndarray] = None


@dataclass(frozen=True, eq=False)
class ReplicaPlacement:
    """Replicas of ``len(partitions)`` partitions, as Kafka's placement method ``method`` would choose.

    Columnar: :attr:`broker_ids` is an ``int32`` array of shape ``(partitions,
    replication_factor)``, row ``i`` the replicas of partition ``partitions[i]``, preferred
    leader first. :attr:`seed` is the ``java.util.Random`` seed the method drew from (None when
    it drew nothing, e.g. ``admin-utils`` with a fixed ``start_index``): pass it back as ``seed=``
    to get the same placement again.
    """

    method: str
    brokers: Tuple[Broker, ...]
    partitions: np.ndarray
    broker_ids: np.ndarray
    seed: Optional[int] = None

    @property
    def replication_factor(self) -> int:
        """Replicas per partition."""
        return int(self.broker_ids.shape[1])

    @cached_property
    def replicas(self) -> List[List[int]]:
        """One list of broker ids per partition, preferred leader first (Kafka's ``List<Integer>``)."""
        return cast(List[List[int]], self.broker_ids.tolist())

    @property
    def leaders(self) -> np.ndarray:
        """The preferred leader of every partition (column 0)."""
        return self.broker_ids[:, 0]

    def _counts(self, ids: np.ndarray) -> Dict[int, int]:
        known = np.array(sorted(b.id for b in self.brokers), dtype=np.int64)
        counts = np.bincount(np.searchsorted(known, ids.ravel()), minlength=len(known))
        return dict(zip(known.tolist(), counts.tolist()))

    def replicas_per_broker(self) -> Dict[int, int]:
        """``{broker id: replicas placed on it}`` for every broker given, in id order (zeros included)."""
        return self._counts(self.broker_ids)

    def leaders_per_broker(self) -> Dict[int, int]:
        """``{broker id: partitions it is the preferred leader of}`` for every broker, in id order."""
        return self._counts(self.leaders)


@dataclass(frozen=True)
class PlacementBlock:
    """Partitions of several topics with the same replication factor, placed at once (a fleet's
    cluster): row ``i`` holds the replicas of partition ``partition[i]`` of topic number
    ``topic[i]``, preferred leader first, in ``broker_ids`` (``(rows, RF)``, ``int32``)."""

    topic: np.ndarray
    partition: np.ndarray
    broker_ids: np.ndarray

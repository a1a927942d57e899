"""Many topics of one cluster placed at once: per-topic seeds and one columnar result.

What the Spark layer calls once per cluster (``DataFrame.assign_replicas``),
and what a user calls to reproduce one cluster's rows without Spark. Each
topic is placed on its own, as Kafka places each topic it creates
(:func:`~.replicas.place_replicas`); what ties a fleet together is the seed:

* **Per-topic seeds.** A topic's ``java.util.Random`` seed is derived from
  the fleet's ``seed``, its cluster id and its name (:func:`topic_seed`: the
  first 8 bytes of a BLAKE2b hash, as a Java ``long``). A placement therefore
  depends on neither the order of the rows nor which Spark task placed it,
  and a task retried by Spark writes the same rows. Kafka's controller draws
  from one ``Random`` for every topic it creates, in creation order; a fleet
  has no such order, which is why the seeds are per topic.
* **Errors name the cluster and the topic**: a topic whose replication factor
  exceeds the usable brokers is reported with its name, not only its numbers.
* **Status per replica** (:data:`REPLICA_STATUSES`): ``new`` on a partition
  that had no replicas before (a new topic or partition, or no ``previous``),
  ``kept`` on a broker that held the partition before, ``moved`` elsewhere.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..errors import InvalidInputError
from .replica_model import Broker
from .replicas import get_replica_method, place_replicas

__all__ = ["REPLICA_STATUSES", "topic_seed", "ClusterPlacement", "place_topics", "replica_status"]

#: ``ClusterPlacement.status`` codes: index -> name.
REPLICA_STATUSES = ("new", "kept", "moved")


def topic_seed(seed: int, cluster_id: Optional[str], topic: str) -> int:
    """The ``java.util.Random`` seed of ``topic`` in a fleet placed with ``seed``.

    Example::

        from spark_assign.core import Broker, place_replicas
        from spark_assign.core.replica_fleet import topic_seed

        s = topic_seed(0, "eu-1", "orders")
        place_replicas([Broker(1), Broker(2), Broker(3)], 6, 2, seed=s)   # the rows assign_replicas gives

    Parameters
    ----------
    seed:
        The fleet's seed (any int).
    cluster_id:
        The cluster's id (None: the DataFrame has no ``cluster_id`` column).
    topic:
        The topic's name.
    """
    key = f"{int(seed)}\x00{'' if cluster_id is None else cluster_id}\x00{topic}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big", signed=True)


@dataclass(frozen=True)
class ClusterPlacement:
    """One row per replica of every topic of a cluster (NumPy columns of equal length).

    ``topic``: the index of the topic in the input; ``partition``, ``replica_index`` (0: the
    preferred leader), ``broker_id`` and ``status`` (codes of :data:`REPLICA_STATUSES`).
    """

    topic: np.ndarray
    partition: np.ndarray
    replica_index: np.ndarray
    broker_id: np.ndarray
    status: np.ndarray


def replica_status(placed: np.ndarray, previous: Optional[np.ndarray]) -> np.ndarray:
    """Each replica's :data:`REPLICA_STATUSES` code: ``placed`` ``(P, RF)`` broker ids against
    ``previous`` ``(P, RF_old)`` (``-1`` pads short rows; None: nothing before).

    Example::

        replica_status(np.array([[1, 2], [3, 1]]), np.array([[1, 3], [-1, -1]]))   # [[1, 2], [0, 0]]
    """
    if previous is None or previous.size == 0:
        return np.zeros(placed.shape, dtype=np.int8)
    kept = (placed[:, :, None] == previous[:, None, :]).any(axis=2)
    had: np.ndarray = np.asarray((previous >= 0).any(axis=1))
    return np.where(had[:, None], np.where(kept, 1, 2), 0).astype(np.int8)


def place_topics(brokers: Sequence[Broker], topics: Sequence[str], partitions: Sequence[int],
                 replication_factors: Sequence[int], cluster_id: Optional[str] = None, method: str = "striped",
                 seed: int = 0, start_index: Optional[int] = None, rack_aware: Optional[str] = None,
                 previous: Optional[Sequence[Optional[np.ndarray]]] = None) -> ClusterPlacement:
    """Place every topic of one cluster, each with its :func:`topic_seed`; the rows, columnar.

    Example::

        from spark_assign.core import Broker
        from spark_assign.core.replica_fleet import place_topics

        rows = place_topics([Broker(1, rack="a"), Broker(2, rack="b")], ["orders", "audit"], [3, 1], [2, 2])
        rows.broker_id.reshape(-1, 2)    # 4 partitions, 2 replicas each, leader first

    Parameters
    ----------
    brokers:
        The cluster's brokers.
    topics, partitions, replication_factors:
        One entry per topic: its name, partition count and replication factor.
    cluster_id:
        The cluster's id, for the seeds and the messages.
    method, start_index, rack_aware:
        As for :func:`~.replicas.place_replicas` (``start_index`` applies to every topic).
    seed:
        The fleet's seed (see :func:`topic_seed`).
    previous:
        Per topic, its current placement: a ``(partitions, RF_old)`` array of broker ids, ``-1``
        padding rows of partitions with fewer (or no) replicas; None for a topic without one.
        ``sticky`` reassigns it (a topic without one is placed from scratch); the other methods
        ignore it except for the status.
    """
    parts = []
    where = "" if cluster_id is None else f" of cluster {cluster_id!r}"
    for i, (name, count, rf) in enumerate(zip(topics, partitions, replication_factors)):
        before = previous[i] if previous is not None else None
        sticky = get_replica_method(method).needs_previous
        try:
            placed = place_replicas(brokers, count, rf, method=method, start_index=start_index,
                                    seed=None if sticky else topic_seed(seed, cluster_id, name),
                                    rack_aware=rack_aware, previous=_rows(before, count) if sticky else None)
        except InvalidInputError as e:
            raise InvalidInputError(f"topic {name!r}{where}: {e.problem}", column=e.column, rows=e.rows,
                                    group=cluster_id) from None
        n, width = placed.broker_ids.shape
        parts.append((np.full(n * width, i, dtype=np.int32),
                      np.repeat(placed.partitions, width).astype(np.int32),
                      np.tile(np.arange(width, dtype=np.int32), n),
                      placed.broker_ids.reshape(-1).astype(np.int32),
                      replica_status(placed.broker_ids, before).reshape(-1)))
    if not parts:
        empty = np.zeros(0, dtype=np.int32)
        return ClusterPlacement(empty, empty, empty, empty, np.zeros(0, dtype=np.int8))
    return ClusterPlacement(*(np.concatenate(column) for column in zip(*parts)))


def _rows(previous: Optional[np.ndarray], partitions: int) -> list:
    """``previous`` (padded with ``-1``) as the replica lists ``place_replicas`` takes, one per
    partition (an empty list: a partition placed from scratch)."""
    if previous is None:
        return [[] for _ in range(partitions)]
    return [[int(b) for b in row if b >= 0] for row in previous.tolist()]

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
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..errors import InvalidInputError
from .replica_model import Broker
from .replicas import place_replicas

__all__ = ["topic_seed", "ClusterPlacement", "place_topics"]


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
    preferred leader) and ``broker_id``.
    """

    topic: np.ndarray
    partition: np.ndarray
    replica_index: np.ndarray
    broker_id: np.ndarray


def place_topics(brokers: Sequence[Broker], topics: Sequence[str], partitions: Sequence[int],
                 replication_factors: Sequence[int], cluster_id: Optional[str] = None, method: str = "striped",
                 seed: int = 0, start_index: Optional[int] = None,
                 rack_aware: Optional[str] = None) -> ClusterPlacement:
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
    """
    parts = []
    where = "" if cluster_id is None else f" of cluster {cluster_id!r}"
    for i, (name, count, rf) in enumerate(zip(topics, partitions, replication_factors)):
        try:
            placed = place_replicas(brokers, count, rf, method=method, start_index=start_index,
                                    seed=topic_seed(seed, cluster_id, name), rack_aware=rack_aware)
        except InvalidInputError as e:
            raise InvalidInputError(f"topic {name!r}{where}: {e.problem}", column=e.column, rows=e.rows,
                                    group=cluster_id) from None
        n, width = placed.broker_ids.shape
        parts.append((np.full(n * width, i, dtype=np.int32),
                      np.repeat(placed.partitions, width).astype(np.int32),
                      np.tile(np.arange(width, dtype=np.int32), n),
                      placed.broker_ids.reshape(-1).astype(np.int32)))
    if not parts:
        empty = np.zeros(0, dtype=np.int32)
        return ClusterPlacement(empty, empty, empty, empty)
    return ClusterPlacement(*(np.concatenate(column) for column in zip(*parts)))

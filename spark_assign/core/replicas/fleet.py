"""Many topics of one cluster placed at once: per-topic seeds and one columnar result.

What the Spark layer calls once per cluster (``DataFrame.assign_replicas``),
and what a user calls to reproduce one cluster's rows without Spark. New
placements (``striped``, ``admin-utils``) place each topic on its own, as
Kafka places each topic it creates (:func:`~.replicas.place_replicas`);
``sticky`` reassigns the cluster's topics together, so that the brokers'
totals are balanced as well as each topic (:mod:`.cluster`). What ties a fleet
together is the seed:

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
from numbers import Integral
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union, cast

import numpy as np

from ...errors import InvalidInputError
from .admin import admin_brokers, check_factor, place_admin_utils, place_admin_utils_many
from ..java.limits import INT32_MAX, check_count
from .model import Broker, PlacementBlock, check_brokers
from .cluster import place_sticky_cluster
from .loads import LoadOptions
from .sticky import check_previous, place_sticky, refuse_start_index
from .striped import place_striped, place_striped_many
from .api import ReplicaMethod, get_replica_method, place_replicas, run_method

__all__ = ["REPLICA_STATUSES", "topic_seed", "ClusterPlacement", "place_topics", "replica_status"]

#: ``ClusterPlacement.status`` codes: index -> name.
REPLICA_STATUSES = ("new", "kept", "moved")


def topic_seed(seed: int, cluster_id: Optional[str], topic: str) -> int:
    """The ``java.util.Random`` seed of ``topic`` in a fleet placed with ``seed``.

    Example::

        from spark_assign.core import Broker, place_replicas
        from spark_assign.core.replicas.fleet import topic_seed

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


def place_topics(brokers: Sequence[Broker], topics: Sequence[str], partitions: Union[Sequence[int], np.ndarray],
                 replication_factors: Union[Sequence[int], np.ndarray], cluster_id: Optional[str] = None, method: str = "striped",
                 seed: int = 0, start_index: Optional[int] = None, rack_aware: Optional[str] = None,
                 previous: Optional[Sequence[Optional[np.ndarray]]] = None,
                 rack_column: str = "brokers", loads: Optional[LoadOptions] = None) -> ClusterPlacement:
    """Place every topic of one cluster, each with its :func:`topic_seed`; the rows, columnar.

    Each topic gets the placement ``place_replicas`` gives it alone with its seed. ``striped``
    and ``admin-utils`` place all the topics of the cluster together: their first draws are
    vectorized, ``admin-utils`` walks every partition of every topic in one array pass per
    replication factor, and ``striped`` runs its placer once per distinct set of first draws
    (:func:`~.replica_striped.place_striped_many`), so a topic costs microseconds. ``sticky``
    reassigns all the topics together, balanced per topic and across the cluster
    (:func:`~.cluster.place_sticky_cluster`); methods registered by users place topic by topic.

    Example::

        from spark_assign.core import Broker
        from spark_assign.core.replicas.fleet import place_topics

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
    rack_column:
        The column an error about brokers with and without a rack names (a DataFrame's ``rack``).
    loads:
        ``sticky`` only: per-partition loads and broker capacities to balance goal by goal
        (:class:`~.loads.LoadOptions`, :mod:`.goals`); another method refuses them.

    Raises
    ------
    InvalidInputError
        Naming the cluster (``group``), the column and the topics at fault (``rows``).
    """
    chosen = get_replica_method(method)
    if loads is not None and chosen.run is not place_sticky:
        raise InvalidInputError(f"loads are balanced by the sticky reassignment; method {chosen.name!r} places "
                                "topics as Kafka does and ignores them", column="loads", rows=[chosen.name])
    names = list(topics)
    where = "" if cluster_id is None else f" of cluster {cluster_id!r}"
    try:
        checked = check_brokers(brokers)
    except InvalidInputError as e:
        raise e.in_group(cluster_id) from None
    counts = _counts(partitions, "num_partitions", names, 0, where, cluster_id)
    factors = _counts(replication_factors, "replication_factor", names, 1, where, cluster_id)
    batched = _BATCHED.get(chosen.run)
    try:
        seeds = None if chosen.needs_previous else \
            np.array([topic_seed(seed, cluster_id, name) for name in names], dtype=np.int64)
        if batched is not None:
            blocks = batched(checked, counts, factors, seeds, start_index, rack_aware, rack_column)
        else:
            if chosen.run is place_sticky:                 # one error for the cluster, naming every topic
                usable, _ = admin_brokers(checked, rack_aware, rack_column)
                over = np.flatnonzero(factors > len(usable))
                if len(over):
                    check_factor(int(factors[over[0]]), len(usable), sum(b.fenced for b in checked), over.tolist())
            if chosen.run is place_sticky:
                refuse_start_index(start_index)
                blocks = place_sticky_cluster(checked, counts, factors, previous, rack_aware, names, loads).blocks
            else:
                blocks = _one_by_one(chosen, checked, counts, factors, seeds, previous, start_index, rack_aware)
    except InvalidInputError as e:
        if e.column in ("replication_factor", "num_partitions") and e.rows and isinstance(e.rows[0], int):
            bad = [names[i] for i in e.rows]
            raise InvalidInputError(f"topic {bad[0]!r}{where}: {e.problem}", column=e.column, rows=bad,
                                    group=cluster_id) from None
        raise InvalidInputError(e.problem if not where else f"cluster {cluster_id!r}: {e.problem}",
                                column=e.column, rows=e.rows, group=cluster_id) from None
    return _rows(blocks, previous)


def _counts(values: Union[Sequence[int], np.ndarray], column: str, names: List[str], minimum: int, where: str,
            cluster_id: Optional[str]) -> np.ndarray:
    """``values`` as ``int64`` when every one is an integer in ``[minimum, INT32_MAX]``; otherwise
    an error naming the first topic at fault and listing them all."""
    array = np.asarray(values)
    if array.dtype.kind in "iu" and array.ndim == 1 and len(array) == len(names):
        bad = np.flatnonzero((array < minimum) | (array > INT32_MAX))
        if not len(bad):
            return array.astype(np.int64)
        at = [int(i) for i in bad]
    else:
        at = []
        for i, value in enumerate(values):
            try:
                check_count(value, column, minimum=minimum)
            except InvalidInputError:
                at.append(i)
    value = values[at[0]]
    bound = f"at least {minimum}" if isinstance(value, Integral) and value < minimum else \
        f"an integer from {minimum} to {INT32_MAX} (Kafka's 32-bit limit)"
    raise InvalidInputError(f"topic {names[at[0]]!r}{where}: {column} must be {bound}, got {value!r}",
                            column=column, rows=[names[i] for i in at], group=cluster_id)


def _one_by_one(chosen: ReplicaMethod, brokers: Tuple[Broker, ...], counts: np.ndarray, factors: np.ndarray,
                seeds: Optional[np.ndarray], previous: Optional[Sequence[Optional[np.ndarray]]],
                start_index: Optional[int], rack_aware: Optional[str]) -> List[PlacementBlock]:
    """Topic by topic, for methods without a batched form (``sticky``, methods registered by users:
    those draw from each topic's seed, ``seeds[t]``)."""
    blocks = []
    for i, (count, rf) in enumerate(zip(counts.tolist(), factors.tolist())):
        before = previous[i] if previous is not None else None
        try:
            if chosen.needs_previous:
                rows = [[int(b) for b in row if b >= 0] for row in before.tolist()] if before is not None \
                    else [[] for _ in range(count)]
                placed = run_method(chosen, brokers, count, rf, start_index, 0, 0, rack_aware,
                                    check_previous(rows, count))
            else:
                placed = place_replicas(brokers, count, rf, method=chosen.name, start_index=start_index,
                                        seed=int(cast(np.ndarray, seeds)[i]), rack_aware=rack_aware)
        except InvalidInputError as e:
            raise InvalidInputError(e.problem, column=e.column, rows=[i] if e.column in (
                "replication_factor", "num_partitions") else e.rows) from None
        blocks.append(PlacementBlock(np.full(count, i, dtype=np.int32), placed.partitions, placed.broker_ids))
    return blocks


def _rows(blocks: List[PlacementBlock], previous: Optional[Sequence[Optional[np.ndarray]]]) -> ClusterPlacement:
    """Blocks as one row per replica, in topic, partition and replica order, with the status."""
    if not blocks:
        empty = np.zeros(0, dtype=np.int32)
        return ClusterPlacement(empty, empty, empty, empty, np.zeros(0, dtype=np.int8))
    widths = [b.broker_ids.shape[1] for b in blocks]
    topic = np.concatenate([np.repeat(b.topic, w) for b, w in zip(blocks, widths)])
    partition = np.concatenate([np.repeat(b.partition, w) for b, w in zip(blocks, widths)])
    index = np.concatenate([np.tile(np.arange(w, dtype=np.int32), len(b.topic)) for b, w in zip(blocks, widths)])
    broker = np.concatenate([b.broker_ids.reshape(-1) for b in blocks]).astype(np.int32)
    order = np.lexsort((index, partition, topic))
    topic, partition, index, broker = topic[order], partition[order], index[order], broker[order]
    status = np.zeros(len(topic), dtype=np.int8)
    if previous is not None:
        starts = np.searchsorted(topic, np.arange(len(previous) + 1))
        for t, before in enumerate(previous):
            if before is not None and starts[t + 1] > starts[t]:
                at = slice(starts[t], starts[t + 1])
                rf = int(index[at].max()) + 1
                status[at] = replica_status(broker[at].reshape(-1, rf), before).reshape(-1)
    return ClusterPlacement(topic, partition, index, broker, status)


def _admin_utils_many(brokers: Tuple[Broker, ...], counts: np.ndarray, factors: np.ndarray, seeds: np.ndarray,
                      start_index: Optional[int], rack_aware: Optional[str], rack_column: str) -> List[PlacementBlock]:
    return place_admin_utils_many(brokers, counts, factors, seeds, start_index, rack_aware, rack_column)


def _striped_many(brokers: Tuple[Broker, ...], counts: np.ndarray, factors: np.ndarray, seeds: np.ndarray,
                  start_index: Optional[int], rack_aware: Optional[str], rack_column: str) -> List[PlacementBlock]:
    return place_striped_many(brokers, counts, factors, seeds, rack_aware, start_index)


#: The methods a fleet places a cluster's topics together with, by the function the registry runs.
_BATCHED: Dict[Callable[..., object], Callable[..., List[PlacementBlock]]] = {
    place_admin_utils: _admin_utils_many, place_striped: _striped_many}

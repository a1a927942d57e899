"""Replica placement by name: :func:`place_replicas` and its registry of methods.

A method is a function ``(PlacementRequest) -> (broker ids, seed drawn from)``
plus the Kafka class it follows. Names: ``admin-utils``
(``org.apache.kafka.admin.AdminUtils``, what ``kafka-reassign-partitions
--generate`` and ZooKeeper-mode topic creation run) and ``striped``
(``org.apache.kafka.metadata.placement.StripedReplicaPlacer``, what a KRaft
controller runs on topic creation), and ``sticky`` (ours: a reassignment of a
``previous=`` placement that moves few replicas; Kafka has no such tool).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError
from ..named import Registry
from .admin import place_admin_utils
from ..java.limits import INT32_MAX, check_count
from .model import RACK_AWARE_MODES, Broker, PlacementRequest, ReplicaPlacement, check_brokers, check_seed
from .sticky import check_previous, place_sticky, reassignment
from .striped import place_striped

__all__ = ["ReplicaMethod", "place_replicas", "run_method", "get_replica_method", "register_replica_method",
           "replica_method_names"]


@dataclass(frozen=True)
class ReplicaMethod:
    """A named replica placement method.

    ``run`` returns the ``(partitions, replication_factor)`` array of broker ids and the
    ``java.util.Random`` seed it drew from (None when it drew nothing). ``needs_previous``:
    the method reassigns the current placement (``previous=`` required), others refuse one.
    """

    name: str
    run: Callable[[PlacementRequest], Tuple[np.ndarray, Optional[int]]]
    kafka_class: str = ""
    needs_previous: bool = False


#: Every replica placement method by name.
REPLICA_METHODS: Registry[ReplicaMethod] = Registry("replica placement method", ReplicaMethod)


def register_replica_method(method: ReplicaMethod) -> None:
    """Add (or replace) a replica placement method in the registry.

    Example::

        register_replica_method(ReplicaMethod("first-brokers", place_first_brokers))
    """
    REPLICA_METHODS.register(method)


def replica_method_names() -> List[str]:
    """The valid replica placement method names, sorted.

    Example::

        replica_method_names()     # ['admin-utils', 'sticky', 'striped']
    """
    return REPLICA_METHODS.names()


def get_replica_method(name: object) -> ReplicaMethod:
    """The method called ``name`` (a :class:`ReplicaMethod` passes through);
    :class:`~spark_assign.errors.UnknownStrategyError` lists the valid names.

    Example::

        get_replica_method("sticky").needs_previous     # True
    """
    return REPLICA_METHODS.get(name)


def place_replicas(
    brokers: Sequence[Broker],
    partitions: int,
    replication_factor: int,
    method: str = "striped",
    start_index: Optional[int] = None,
    start_partition: int = 0,
    seed: Optional[int] = None,
    rack_aware: Optional[str] = None,
    previous: object = None,
) -> ReplicaPlacement:
    """Place the replicas of ``partitions`` new partitions on ``brokers``, as Kafka's ``method`` would.

    Example::

        from spark_assign.core import Broker, place_replicas

        result = place_replicas([Broker(0), Broker(1), Broker(2)], partitions=3, replication_factor=2,
                                method="admin-utils", start_index=0)
        result.replicas            # [[0, 1], [1, 2], [2, 0]]
        result.leaders_per_broker()  # {0: 1, 1: 1, 2: 1}

    Parameters
    ----------
    brokers:
        :class:`Broker` objects with distinct ids. ``striped`` reads them in this order as the
        controller's registration order (it matters only for racks sharing a hash bucket).
    partitions:
        How many partitions to place (0 gives an empty placement).
    replication_factor:
        Replicas per partition, at least 1 and at most the number of (usable) brokers.
    method:
        One of :func:`replica_method_names`: ``striped`` (KRaft, the default) or ``admin-utils``.
    start_index:
        ``admin-utils`` only: Kafka's ``fixedStartIndex``, the position of partition 0's leader
        and the first replica shift. None draws both from ``seed``.
    start_partition:
        The first partition id (Kafka's ``startPartitionId``, e.g. the current partition count
        when adding partitions). ``admin-utils`` shifts followers by it; ``striped`` ignores it.
    seed:
        The ``java.util.Random`` seed (a Java ``long``). None draws a fresh one, as Kafka's
        unseeded ``Random`` does; the result's ``seed`` says which.
    rack_aware:
        ``admin-utils``: Kafka's ``RackAwareMode``, ``"enforced"`` (the default: all brokers have a
        rack or none does, else an error), ``"safe"`` (racks only when all have one) or
        ``"disabled"``. ``striped``: None (racks as given) or ``"disabled"``. ``sticky``: as
        ``admin-utils``.
    previous:
        ``sticky`` only, and required there: the current placement of the ``partitions``
        partitions (from ``start_partition`` on), a :class:`ReplicaPlacement`, a
        ``(partitions, RF_old)`` integer array or a list of replica lists, leader first.
        Brokers in it that are missing from ``brokers`` (or fenced) are moved off: they left, as
        for ``kafka-reassign-partitions --generate``, whose broker list is the brokers to use
        (moving a topic to an entirely new set of brokers is a reassignment like any other).

    Returns
    -------
    ReplicaPlacement
        ``.broker_ids`` (an ``int32`` array, one row per partition, leader first), ``.replicas``
        (lists), ``.partitions`` (ids), ``.seed``, and per-broker counts. With ``previous``, a
        :class:`~spark_assign.core.replicas.sticky.ReplicaReassignment` that also reports, per
        partition, replicas ``kept`` and ``moved`` and ``leader_changed``.
    """
    chosen = get_replica_method(method)
    checked = check_brokers(brokers)
    count = check_count(partitions, "partitions")
    rf = check_count(replication_factor, "replication_factor", minimum=1)
    start = check_count(start_partition, "start_partition")
    if start + count - 1 > INT32_MAX:
        raise InvalidInputError(f"partition ids would pass Kafka's 32-bit limit: start_partition {start} "
                                f"+ {count} partitions", column="partitions", rows=[count])
    fixed = None if start_index is None else check_count(start_index, "start_index")
    if rack_aware is not None and rack_aware not in RACK_AWARE_MODES:
        raise InvalidInputError(f"rack_aware must be one of {', '.join(RACK_AWARE_MODES)} or None, got {rack_aware!r}",
                                column="rack_aware", rows=[rack_aware])
    given = check_seed(seed)
    if chosen.needs_previous and previous is None:
        raise InvalidInputError(f"the {chosen.name} method reassigns an existing placement: pass previous= "
                                "(the current replicas of every partition)", column="previous")
    if previous is not None and not chosen.needs_previous:
        raise InvalidInputError(f"previous= is for the sticky method; {chosen.name} places new partitions "
                                "from scratch", column="previous", rows=[chosen.name])
    before = None if previous is None else check_previous(previous, count, start)
    return run_method(chosen, checked, count, rf, fixed, start, secrets.randbits(48) if given is None else given,
                      rack_aware, before)


def run_method(method: ReplicaMethod, brokers: Tuple[Broker, ...], partitions: int, replication_factor: int,
               start_index: Optional[int], start_partition: int, seed: int, rack_aware: Optional[str],
               previous: Optional[np.ndarray]) -> ReplicaPlacement:
    """Run ``method`` on arguments already checked (what :func:`place_replicas` does after its
    checks; the fleet calls it for each topic of a cluster it checked as a whole).

    Example::

        run_method(get_replica_method("striped"), (Broker(1), Broker(2)), 2, 1, None, 0, 7, None, None)

    Parameters
    ----------
    method:
        The method to run.
    brokers, partitions, replication_factor, start_index, start_partition, rack_aware:
        As :func:`place_replicas` checks them.
    seed:
        A concrete seed (Java ``long``).
    previous:
        :func:`~.replica_sticky.check_previous`'s array (``-1`` padding), or None.
    """
    request = PlacementRequest(brokers, partitions, replication_factor, start_index, start_partition, seed,
                               rack_aware, previous)
    broker_ids, used = method.run(request)
    ids = np.arange(start_partition, start_partition + partitions, dtype=np.int32)
    placed = ReplicaPlacement(method.name, brokers, ids, broker_ids, used)
    return placed if previous is None else reassignment(placed, previous, rack_aware)


for _m in (
    ReplicaMethod("admin-utils", place_admin_utils, kafka_class="org.apache.kafka.admin.AdminUtils"),
    ReplicaMethod("striped", place_striped,
                  kafka_class="org.apache.kafka.metadata.placement.StripedReplicaPlacer"),
    ReplicaMethod("sticky", place_sticky, needs_previous=True),
):
    register_replica_method(_m)

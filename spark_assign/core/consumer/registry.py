"""Strategies by name.

A strategy is a function ``(Context) -> Outcome`` plus a few facts the layers
above need. Names are Kafka's (``partition.assignment.strategy`` values for the
client assignors; ``uniform`` and ``range`` of KIP-848 for the server ones,
the latter registered as ``server-range`` so it does not shadow the client's).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, List

from ...errors import StrategyListWarning, UnknownStrategyError
from ..named import Registry
from .context import Context, Outcome
from .strategies.load_aware import assign_cooperative_load_aware, assign_lag_based, assign_load_aware
from .strategies.range import assign_range
from .strategies.roundrobin import assign_roundrobin
from .strategies.server_range import assign_server_range
from .strategies.sticky import assign_cooperative_sticky, assign_sticky
from .strategies.uniform import assign_uniform

__all__ = ["Strategy", "get_strategy", "strategy_names", "register_strategy", "rebalance_protocol",
           "paused_partitions", "DEFAULT_STRATEGY", "STRATEGIES", "EAGER", "COOPERATIVE", "CONSUMER"]

#: The strategy every entry point uses when none is named: Kafka's recommended client assignor
#: since 3.0 (KIP-726 proposes it as the default), safe for running groups (KIP-429).
DEFAULT_STRATEGY = "cooperative-sticky"

#: How a group running a strategy rebalances (Kafka's ``RebalanceProtocol`` for the classic
#: protocol, and KIP-848's ``group.protocol=consumer``). EAGER: every member revokes every
#: partition when it rejoins, so the whole group stops consuming until the new assignment
#: arrives. COOPERATIVE (KIP-429): members keep what they keep and give up only what moves,
#: which its new owner gets one rebalance later. CONSUMER (KIP-848): the coordinator revokes
#: only what moves and hands it over once revoked, member by member.
EAGER, COOPERATIVE, CONSUMER = "eager", "cooperative", "consumer"


@dataclass(frozen=True)
class Strategy:
    """A named assignment strategy.

    ``sticky``: its output depends on previous ownership. ``cooperative``: it
    withholds partitions that change owner for one generation (KIP-429).
    ``rack_aware``: it reads member and partition racks. ``weighted``: it reads per-partition
    weights (the ``weights`` option, docs/load-aware.md). ``batchable``: the lock-step engine
    (:func:`~spark_assign.core.assign_batch`) computes it for many groups at once; others run
    group by group there. ``keeps_quota``: Kafka's ``AbstractStickyAssignor`` guarantee holds,
    with identical subscriptions every member keeps ``min(claimed, quota)`` partitions
    (:func:`~spark_assign.core.consumer.checks.stickiness_violations` checks it).
    ``rebalance_protocol``: :data:`EAGER`, :data:`COOPERATIVE` or :data:`CONSUMER`, which
    decides what a rebalance pauses (:meth:`paused`).
    """

    name: str
    run: Callable[[Context], Outcome]
    sticky: bool = False
    cooperative: bool = False
    rack_aware: bool = False
    kafka_class: str = ""
    weighted: bool = False
    batchable: bool = False
    keeps_quota: bool = False
    rebalance_protocol: str = EAGER

    def paused(self, kept, moved, revoked):
        """Partitions whose consumption stops during a rebalance that kept, moved and revoked
        (pending) these many (numbers or arrays): under :data:`EAGER` every partition that
        had an owner, since every member gives up everything it owns; otherwise only those
        changing owner (moved ones stopped when their owner left or gave them up).

        Example::

            get_strategy("sticky").paused(kept=90, moved=10, revoked=0)               # 100
            get_strategy("cooperative-sticky").paused(kept=90, moved=0, revoked=10)   # 10
        """
        return paused_partitions(self.rebalance_protocol, kept, moved, revoked)


#: Every strategy by name.
STRATEGIES: Registry[Strategy] = Registry("strategy", Strategy)


def register_strategy(strategy: Strategy) -> None:
    """Add (or replace) a strategy in the registry.

    Example::

        register_strategy(Strategy("first-member", lambda context: ...))
    """
    STRATEGIES.register(strategy)


def strategy_names() -> List[str]:
    """The valid strategy names, sorted.

    Example::

        strategy_names()     # ['cooperative-load-aware', 'cooperative-sticky', ..., 'uniform']
    """
    return STRATEGIES.names()


def get_strategy(name: object) -> Strategy:
    """The strategy called ``name`` (a :class:`Strategy` passes through); :class:`UnknownStrategyError`
    lists the valid names and suggests the closest.

    ``name`` may be written as Kafka's consumers configure it (``partition.assignment.strategy``):
    a class name, full or simple (``org.apache.kafka.clients.consumer.CooperativeStickyAssignor``,
    ``RangeAssignor``: the client's range; the KIP-848 server one by its full name only), or a
    comma-separated list of them, whose first supported entry applies, with a
    :class:`~spark_assign.errors.StrategyListWarning` naming it.

    Example::

        get_strategy("sticky").cooperative     # False
        get_strategy("org.apache.kafka.clients.consumer.CooperativeStickyAssignor").name   # 'cooperative-sticky'
    """
    if isinstance(name, str) and "," in name:
        return _first_supported(name)
    return STRATEGIES.get(name)


def _first_supported(listed: str) -> Strategy:
    """The first entry of a comma-separated list that names a strategy (Kafka trims each entry)."""
    entries = [e.strip() for e in listed.split(",") if e.strip()]
    for position, entry in enumerate(entries):
        found = STRATEGIES.lookup(entry)
        if found is not None:
            skipped = entries[:position]
            passed = f", after {', '.join(map(repr, skipped))} (not supported)" if skipped else ""
            rest = entries[position + 1:]
            later = (f"; {', '.join(map(repr, rest))} unused (a Kafka group falls back to a later entry only "
                     "while one of its members lacks the first)") if rest else ""
            warnings.warn(StrategyListWarning(
                f"strategy list {listed!r}: using {found.name!r}, its first supported entry{passed}{later}"),
                stacklevel=3)
            return found
    first = entries[0] if entries else ""
    raise UnknownStrategyError(listed, STRATEGIES.names(), suggestion=STRATEGIES.closest(first))


def paused_partitions(protocol: str, kept, moved, revoked):
    """The one rule of what a rebalance pauses (see :meth:`Strategy.paused`), for ``protocol``."""
    return kept + moved + revoked if protocol == EAGER else moved + revoked


def rebalance_protocol(name: str) -> str:
    """The rebalance protocol of strategy ``name``. A name the registry does not know counts as
    :data:`EAGER`: the classic protocol's default, and Kafka's only protocol before KIP-429.

    Example::

        rebalance_protocol("range"), rebalance_protocol("cooperative-sticky")    # 'eager', 'cooperative'
    """
    entry = STRATEGIES.lookup(name)
    return EAGER if entry is None else entry.rebalance_protocol


for _s in (
    Strategy("range", assign_range, rack_aware=True, batchable=True,
             kafka_class="org.apache.kafka.clients.consumer.RangeAssignor"),
    Strategy("roundrobin", assign_roundrobin, batchable=True,
             kafka_class="org.apache.kafka.clients.consumer.RoundRobinAssignor"),
    Strategy("sticky", assign_sticky, sticky=True, rack_aware=True, batchable=True, keeps_quota=True,
             kafka_class="org.apache.kafka.clients.consumer.StickyAssignor"),
    Strategy("cooperative-sticky", assign_cooperative_sticky, sticky=True, cooperative=True,
             rack_aware=True, batchable=True, keeps_quota=True, rebalance_protocol=COOPERATIVE,
             kafka_class="org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
    Strategy("uniform", assign_uniform, sticky=True, batchable=True, rebalance_protocol=CONSUMER,
             kafka_class="org.apache.kafka.coordinator.group.assignor.UniformAssignor"),
    Strategy("server-range", assign_server_range, batchable=True, rebalance_protocol=CONSUMER,
             kafka_class="org.apache.kafka.coordinator.group.assignor.RangeAssignor"),
    # Not Kafka's: load-aware sticky assignment and its baseline (docs/load-aware.md).
    Strategy("load-aware", assign_load_aware, sticky=True, weighted=True, batchable=True),
    Strategy("cooperative-load-aware", assign_cooperative_load_aware, sticky=True, cooperative=True, weighted=True,
             batchable=True, rebalance_protocol=COOPERATIVE),
    Strategy("lag-based", assign_lag_based, kafka_class="com.github.grantneale.kafka.LagBasedPartitionAssignor",
             weighted=True),
):
    # Kafka's class name finds a strategy as users paste it from partition.assignment.strategy, and so
    # does its simple name where only one strategy has it (RangeAssignor: the client's, registered first).
    STRATEGIES.register(_s, aliases=(_s.kafka_class, _s.kafka_class.rpartition(".")[2]))

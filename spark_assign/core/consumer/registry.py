"""Strategies by name.

A strategy is a function ``(Context) -> Outcome`` plus a few facts the layers
above need. Names are Kafka's (``partition.assignment.strategy`` values for the
client assignors; ``uniform`` and ``range`` of KIP-848 for the server ones,
the latter registered as ``server-range`` so it does not shadow the client's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List

from ...errors import UnknownStrategyError
from .context import Context, Outcome
from .strategies.load_aware import assign_cooperative_load_aware, assign_lag_based, assign_load_aware
from .strategies.range import assign_range
from .strategies.roundrobin import assign_roundrobin
from .strategies.server_range import assign_server_range
from .strategies.sticky import assign_cooperative_sticky, assign_sticky
from .strategies.uniform import assign_uniform

__all__ = ["Strategy", "get_strategy", "strategy_names", "register_strategy"]


@dataclass(frozen=True)
class Strategy:
    """A named assignment strategy.

    ``sticky``: its output depends on previous ownership. ``cooperative``: it
    withholds partitions that change owner for one generation (KIP-429).
    ``rack_aware``: it reads member and partition racks. ``weighted``: it reads per-partition
    weights (the ``weights`` option, docs/load-aware.md).
    """

    name: str
    run: Callable[[Context], Outcome]
    sticky: bool = False
    cooperative: bool = False
    rack_aware: bool = False
    kafka_class: str = ""
    weighted: bool = False


_REGISTRY: Dict[str, Strategy] = {}


def register_strategy(strategy: Strategy) -> None:
    """Add (or replace) a strategy in the registry."""
    _REGISTRY[strategy.name] = strategy


def strategy_names() -> List[str]:
    """The valid strategy names, sorted."""
    return sorted(_REGISTRY)


def get_strategy(name: object) -> Strategy:
    """The strategy called ``name``; :class:`UnknownStrategyError` lists the valid names."""
    if isinstance(name, Strategy):
        return name
    strategy = _REGISTRY.get(name) if isinstance(name, str) else None
    if strategy is None:
        raise UnknownStrategyError(name, _REGISTRY)
    return strategy


for _s in (
    Strategy("range", assign_range, rack_aware=True,
             kafka_class="org.apache.kafka.clients.consumer.RangeAssignor"),
    Strategy("roundrobin", assign_roundrobin,
             kafka_class="org.apache.kafka.clients.consumer.RoundRobinAssignor"),
    Strategy("sticky", assign_sticky, sticky=True, rack_aware=True,
             kafka_class="org.apache.kafka.clients.consumer.StickyAssignor"),
    Strategy("cooperative-sticky", assign_cooperative_sticky, sticky=True, cooperative=True,
             rack_aware=True, kafka_class="org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
    Strategy("uniform", assign_uniform, sticky=True,
             kafka_class="org.apache.kafka.coordinator.group.assignor.UniformAssignor"),
    Strategy("server-range", assign_server_range,
             kafka_class="org.apache.kafka.coordinator.group.assignor.RangeAssignor"),
    # Not Kafka's: load-aware sticky assignment and its baseline (docs/load-aware.md).
    Strategy("load-aware", assign_load_aware, sticky=True, weighted=True),
    Strategy("cooperative-load-aware", assign_cooperative_load_aware, sticky=True, cooperative=True, weighted=True),
    Strategy("lag-based", assign_lag_based, kafka_class="com.github.grantneale.kafka.LagBasedPartitionAssignor",
             weighted=True),
):
    register_strategy(_s)

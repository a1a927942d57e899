"""The replica report: per-broker and per-rack figures (:mod:`.data`) and its page (:mod:`.html`)."""

from .data import (REPLICA_REQUIRED, broker_load, generation_figures, is_replica_table, latest_replicas,
                   load_replica_rows, rack_load, rack_spread, rebalance_figures)

__all__ = ["REPLICA_REQUIRED", "broker_load", "generation_figures", "is_replica_table", "latest_replicas",
           "load_replica_rows", "rack_load", "rack_spread", "rebalance_figures"]

"""Replica placement on brokers, as Kafka does it, and our fewest-move ``sticky`` reassignment.

* :mod:`.model`: brokers, requests and placements;
* :mod:`.admin` (``AdminUtils``), :mod:`.striped` and :mod:`.striped_block`
  (KRaft's ``StripedReplicaPlacer``): Kafka's placers;
* :mod:`.sticky`, :mod:`.targets`, :mod:`.fill`, :mod:`.leaders`: the reassignment of one topic;
* :mod:`.cluster`, :mod:`.transport`: ``sticky`` over a whole cluster (every broker's total balanced);
* :mod:`.loads`, :mod:`.goals`: loads, capacities and the goal search (Cruise Control's order);
* :mod:`.stages`: a reassignment cut into safe stages;
* :mod:`.fleet`: many clusters' topics in one call (what a Spark task runs);
* :mod:`.api`: :func:`place_replicas` and the registry of methods.
"""

from .api import (ReplicaMethod, get_replica_method, place_replicas, register_replica_method, replica_method_names,
                  run_method)

__all__ = ["ReplicaMethod", "get_replica_method", "place_replicas", "register_replica_method",
           "replica_method_names", "run_method"]

"""Replica placement on brokers, as Kafka does it, and our fewest-move ``sticky`` reassignment.

* :mod:`.model`: brokers, requests and placements;
* :mod:`.admin` (``AdminUtils``), :mod:`.striped` and :mod:`.striped_block`
  (KRaft's ``StripedReplicaPlacer``): Kafka's placers;
* :mod:`.sticky`, :mod:`.targets`, :mod:`.fill`, :mod:`.leaders`: the reassignment;
* :mod:`.fleet`: many clusters' topics in one call (what a Spark task runs);
* :mod:`.api`: :func:`place_replicas` and the registry of methods.
"""

from .api import (ReplicaMethod, get_replica_method, place_replicas, register_replica_method, replica_method_names,
                  run_method)

__all__ = ["ReplicaMethod", "get_replica_method", "place_replicas", "register_replica_method",
           "replica_method_names", "run_method"]

"""Replica placement on Spark: ``DataFrame.assign_replicas`` (:mod:`.dataframe`), its SQL table
functions (:mod:`.sql_functions`) and what a task runs (:mod:`.worker`).
"""

from .dataframe import (BROKER_COLUMNS, PREVIOUS_PLACEMENT_COLUMNS, REPLICA_COLUMNS, REPLICA_DDL, TOPIC_COLUMNS, WIRE_DDL,
                        ReplicaOptions, assign_replicas, attach, check_options, wire_frame)

__all__ = ["BROKER_COLUMNS", "PREVIOUS_PLACEMENT_COLUMNS", "REPLICA_COLUMNS", "REPLICA_DDL", "TOPIC_COLUMNS", "WIRE_DDL",
           "ReplicaOptions", "assign_replicas", "attach", "check_options", "wire_frame"]

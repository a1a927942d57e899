"""The Spark layer: the DataFrame method, SQL functions and the local session helper."""

from .consumer.dataframe import assign_partitions, attach
from .producer.dataframe import producer_summary, simulate_producer
from .replicas.dataframe import assign_replicas
from .session import has_delta_spark, local_session

__all__ = ["assign_partitions", "assign_replicas", "attach", "local_session", "has_delta_spark", "simulate_producer",
           "producer_summary"]

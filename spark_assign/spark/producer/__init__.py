"""The producer on Spark: :func:`simulate_producer` (:mod:`.dataframe`) and the ``kafka_partition``
SQL function (:mod:`.sql_functions`).
"""

from .dataframe import METHODS, producer_batches, producer_summary, simulate_producer

__all__ = ["METHODS", "producer_batches", "producer_summary", "simulate_producer"]

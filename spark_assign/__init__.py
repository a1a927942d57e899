"""spark-assign: Kafka's partition assignment strategies for Spark.

* :mod:`spark_assign.core` — the engine, one group at a time, pure Python + NumPy.
* :mod:`spark_assign.testing` — seeded input generators and invariant checks.
"""

from . import core, errors
from .core import Member, assign, strategy_names
from .errors import (
    ConcurrentRebalanceError,
    InvalidInputError,
    SchemaError,
    SparkAssignError,
    StateTableError,
    UnknownStrategyError,
)

__version__ = "0.1.0"

__all__ = [
    "core",
    "errors",
    "Member",
    "assign",
    "strategy_names",
    "SparkAssignError",
    "InvalidInputError",
    "SchemaError",
    "UnknownStrategyError",
    "StateTableError",
    "ConcurrentRebalanceError",
]

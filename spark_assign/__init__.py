"""spark-assign: Kafka's partition assignment strategies for Spark.

``import spark_assign`` adds :func:`~spark_assign.spark.dataframe.assign_partitions`
to every PySpark DataFrame (classic and Spark Connect).

* :mod:`spark_assign.core` — the engine, one group at a time, pure Python + NumPy.
* :mod:`spark_assign.spark` — the DataFrame method, SQL functions, local sessions.
* :mod:`spark_assign.state` — :class:`AssignmentTable`, generations in Delta.
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
from .spark import assign_partitions, attach, local_session
from .spark.sql import register
from .state import AssignmentTable

attach()

__version__ = "0.1.0"

__all__ = [
    "core",
    "errors",
    "Member",
    "assign",
    "assign_partitions",
    "AssignmentTable",
    "local_session",
    "register",
    "strategy_names",
    "SparkAssignError",
    "InvalidInputError",
    "SchemaError",
    "UnknownStrategyError",
    "StateTableError",
    "ConcurrentRebalanceError",
]

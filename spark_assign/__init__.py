"""spark-assign: Kafka's partition assignment strategies for Spark.

``import spark_assign`` adds :func:`~spark_assign.spark.consumer.dataframe.assign_partitions`
to every PySpark DataFrame (classic and Spark Connect).

* :mod:`spark_assign.core` — the engine, one group at a time, pure Python + NumPy.
* :mod:`spark_assign.spark` — the DataFrame method, SQL functions, local sessions.
* :mod:`spark_assign.state` — :class:`AssignmentTable` and :class:`ReplicaTable`, generations in Delta.
* :mod:`spark_assign.testing` — seeded input generators and invariant checks.

Importing the package does not import PySpark: ``import spark_assign.core``
(which runs this file first) needs only NumPy. The DataFrame method is added
as soon as ``pyspark.sql`` is loaded (at once if it already is; see
:mod:`spark_assign._pyspark_hook`), and the names that need Spark
(``AssignmentTable``, ``ReplicaTable``, ``local_session``, ``register``, ``assign_partitions``,
``attach``) and the Spark-side subpackages are imported on first use
(PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, List

from . import _moved, core, errors
from ._pyspark_hook import when_pyspark_sql_loads
from .core import Member, assign, strategy_names
from .errors import (
    ConcurrentRebalanceError,
    InvalidInputError,
    SchemaError,
    SparkAssignError,
    StateTableError,
    UnknownStrategyError,
)

if TYPE_CHECKING:  # the lazily imported names, for type checkers and IDEs
    from .spark import assign_partitions, attach, local_session
    from .spark.sql import register
    from .state import AssignmentTable, ReplicaTable

__version__ = "0.1.0"

#: Names that need PySpark, imported on first access: name -> the module that defines it.
SPARK_NAMES = {
    "assign_partitions": "spark_assign.spark",
    "attach": "spark_assign.spark",
    "local_session": "spark_assign.spark",
    "register": "spark_assign.spark.sql",
    "AssignmentTable": "spark_assign.state",
    "ReplicaTable": "spark_assign.state",
}
#: Subpackages and modules reachable as attributes (``spark_assign.state.AssignmentTable``) before
#: anything imported them.
SUBMODULES = ("spark", "state", "report", "cli", "testing", "scenario", "compare", "schema")

__all__ = [
    "core",
    "errors",
    "Member",
    "assign",
    "assign_partitions",
    "AssignmentTable",
    "ReplicaTable",
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


def __getattr__(name: str) -> Any:
    """The Spark-side names and subpackages, imported when first used (then cached here)."""
    if name in SPARK_NAMES:
        value = getattr(importlib.import_module(SPARK_NAMES[name]), name)
    elif name in SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(SPARK_NAMES) | set(SUBMODULES))


def _load_the_dataframe_method() -> None:
    # Importing the module attaches the method; it may be mid-import already (it imports pyspark.sql,
    # which can be what triggered this call): then its last line attaches it. Not in a PySpark
    # worker (its process runs ``pyspark.worker``): tasks call no DataFrame method, and a worker's
    # first task would pay for importing the whole Spark layer (tests/spark/test_worker_imports.py).
    if "pyspark.worker" in sys.modules:
        return
    importlib.import_module("spark_assign.spark.consumer.dataframe")
    importlib.import_module("spark_assign.spark.replicas.dataframe")       # DataFrame.assign_replicas


when_pyspark_sql_loads(_load_the_dataframe_method)
_moved.install()

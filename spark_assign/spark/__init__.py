"""The Spark layer: the DataFrame method, SQL functions and the local session helper.

The names below are imported on first use (PEP 562 module ``__getattr__``): a Spark task that
runs one of this layer's workers (``consumer.worker``) imports the modules it runs, not the
DataFrame methods, sessions or other domains (``tests/spark/test_worker_imports.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, List

# PySpark's SQL package first: loading it runs the hook that adds the DataFrame methods
# (spark_assign/__init__.py), which imports this layer's DataFrame modules; it must not run
# while one of this layer's modules is half imported (one that imports pyspark.sql itself).
import pyspark.sql  # noqa: F401

if TYPE_CHECKING:
    from .consumer.dataframe import assign_partitions, attach
    from .producer.dataframe import producer_summary, simulate_producer
    from .replicas.dataframe import assign_replicas
    from .session import has_delta_spark, local_session

#: Each public name -> the module that defines it.
NAMES = {
    "assign_partitions": ".consumer.dataframe",
    "attach": ".consumer.dataframe",
    "producer_summary": ".producer.dataframe",
    "simulate_producer": ".producer.dataframe",
    "assign_replicas": ".replicas.dataframe",
    "has_delta_spark": ".session",
    "local_session": ".session",
}

__all__ = ["assign_partitions", "assign_replicas", "attach", "local_session", "has_delta_spark", "simulate_producer",
           "producer_summary"]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first used (then cached here)."""
    if name not in NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(NAMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(NAMES))

"""The two implementations of :class:`spark_assign.state.backend.StateBackend`:
:mod:`.embedded` (delta-rs commits from the driver) and :mod:`.deltaspark` (delta-spark), with
what they share: :mod:`.files` (a local table's files), :mod:`.damage` (a damaged table, said
plainly) and :mod:`.deltajvm` (Delta's JVM classes called from the driver).
"""

from __future__ import annotations

import os
from typing import Optional

from ...spark.delta import is_path
from ...spark.session import has_delta_spark
from ..backend import StateBackend
from ..layout import TableKind

__all__ = ["backend_for"]


def backend_for(spark, location: str, kind: TableKind, engine: Optional[str] = None) -> StateBackend:
    """The backend serving the state table at ``location`` (a resolved path or catalog name).

    ``engine="delta-spark"``, or None in a session with the Delta connector: delta-spark
    (catalog names are the catalog's tables). ``"embedded"``, or None without it: delta-rs from
    the driver (a catalog name maps to a folder under ``spark.sql.warehouse.dir``).

    Example::

        backend_for(spark, "/data/fleet_state", ASSIGNMENTS).engine     # "embedded" without delta-spark
    """
    if engine == "delta-spark" or (engine is None and has_delta_spark(spark)):
        from .deltaspark import DeltaSparkBackend        # imports delta-spark's Python package

        return DeltaSparkBackend(spark, location, kind)
    from .embedded import EmbeddedBackend

    return EmbeddedBackend(spark, _warehouse_path(spark, location), kind)


def _warehouse_path(spark, location: str) -> str:
    """Without delta-spark a catalog name maps to a directory under the warehouse."""
    if is_path(location):
        return location
    warehouse = spark.conf.get("spark.sql.warehouse.dir", "spark-warehouse")
    warehouse = warehouse[5:] if warehouse.startswith("file:") else warehouse
    return os.path.join(warehouse, location.replace(".", os.sep))

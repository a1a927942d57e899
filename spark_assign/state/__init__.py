"""Generations in Delta: :class:`AssignmentTable`, and reading a previous assignment by name or path."""

from __future__ import annotations

from .table import AssignmentTable, Rebalance

__all__ = ["AssignmentTable", "Rebalance", "read_table"]


def read_table(spark, location: str):
    """A previous assignment given as a catalog table name or a Delta table path.

    A spark-assign state table gives its latest generation; any other table
    with the ``previous`` columns is read whole (the latest generation of each
    group is picked during the assignment).
    """
    from ..spark.session import has_delta_spark

    if "/" not in location and not location.startswith("."):
        if spark.catalog.tableExists(location):
            return spark.table(location)
    table = AssignmentTable(spark, location)
    if table._backend.exists():
        snap = table._backend.snapshot()
        try:
            table._backend.check(snap)
            return table.latest()
        except Exception:  # noqa: BLE001 - not one of ours: read it as a plain Delta table
            pass
        if has_delta_spark(spark):
            return spark.read.format("delta").load(location)
        from deltalake import DeltaTable
        import pyarrow as pa

        dt = DeltaTable(table.path)
        schema = pa.schema(dt.schema().to_arrow())
        from pyspark.sql.pandas.types import from_arrow_schema

        return spark.read.schema(from_arrow_schema(schema)).option("basePath", table.path).parquet(*dt.file_uris())
    from ..errors import InvalidInputError

    raise InvalidInputError(f"no table or Delta path called {location!r}", column="previous")

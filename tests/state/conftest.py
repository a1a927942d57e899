"""State-table tests share the Spark session of tests/spark."""

from ..spark.conftest import spark  # noqa: F401

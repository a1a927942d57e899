"""The cluster tests compare with work done on the shared local session of tests/spark."""

from ..spark.conftest import spark  # noqa: F401

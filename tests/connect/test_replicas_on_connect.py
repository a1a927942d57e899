"""DataFrame.assign_replicas on a Spark Connect session (the tests of tests/spark/test_replicas.py)."""

from ..spark.test_replicas import *  # noqa: F401,F403

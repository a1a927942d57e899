"""The producer simulation on a Spark Connect session (the tests of tests/spark/test_producer.py)."""

from ..spark.test_producer import *  # noqa: F401,F403

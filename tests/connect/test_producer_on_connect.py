"""The producer simulation on a Spark Connect session (the tests of tests/spark/test_producer.py)."""

from ..spark.conftest import arrow_batch_rows  # noqa: F401  (the fixture those tests take)
from ..spark.test_producer import *  # noqa: F401,F403

"""One local SparkSession for the whole test run (classic), and a Spark Connect one on demand.

The session has Delta Lake configured when delta-spark's jars are found (see
``tests/delta.py``), as production sessions usually do, so the state tests
run each backend on it: ``engine="delta-spark"`` and ``engine="embedded"``.
"""

from __future__ import annotations

import os
import sys

import pytest

from ..conftest import SHORT_LIVED_JVM
from ..delta import session_conf

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from spark_assign import local_session

    # A warehouse of its own: catalog tables of two test processes (pytest -n 2) never meet.
    warehouse = str(tmp_path_factory.mktemp("warehouse"))
    # A long-lived JVM: it keeps the JIT compiler the children's short-lived ones go without (tests/conftest.py).
    short_lived = os.environ.pop("SPARK_SUBMIT_OPTS") if os.environ.get("SPARK_SUBMIT_OPTS") == SHORT_LIVED_JVM \
        else None
    try:
        session = local_session(master="local[2]", app_name="spark-assign-tests", with_delta=False,
                                **{"spark.sql.shuffle.partitions": "2", "spark.sql.warehouse.dir": warehouse,
                                   **session_conf()})
    finally:
        if short_lived is not None:
            os.environ["SPARK_SUBMIT_OPTS"] = short_lived
    yield session


@pytest.fixture
def arrow_batch_rows(spark):
    """Sets Spark's Arrow batch size (rows) for one test, e.g. ``arrow_batch_rows(37)`` for several
    batches per task; restored afterwards."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    yield lambda rows: spark.conf.set(key, str(rows))
    spark.conf.set(key, before)

"""One local SparkSession for the whole test run (classic), and a Spark Connect one on demand."""

from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark():
    from spark_assign import local_session

    session = local_session(master="local[2]", app_name="spark-assign-tests",
                            **{"spark.sql.shuffle.partitions": "2"})
    yield session

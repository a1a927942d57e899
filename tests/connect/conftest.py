"""The Spark tests again, on a Spark Connect session: the modules where Connect behaves differently.

Connect has its own DataFrame class (the methods are attached to it), its own UDTF registration,
its own exception types and its own Arrow collection; a test module runs here when what it
checks goes through one of those: the DataFrame methods' jobs and errors, SQL registration and
errors, and the state table's reads and writes. Modules that only vary inputs over the same
calls (public cases, weights, scripts, retention) run on the classic session only.

Classic and Connect sessions cannot share a Python process (pyspark switches
its functions module to Connect columns process-wide), so this folder runs in
its own process: tests/spark/test_connect.py launches it. Run it by hand with
``SPARK_ASSIGN_CONNECT=1 python -m pytest tests/connect``.
"""

from __future__ import annotations

import os
import sys

import pytest

if not os.environ.get("SPARK_ASSIGN_CONNECT"):
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import local_session

    session = local_session(master="local[2]", remote=True, **{"spark.sql.shuffle.partitions": "2"})
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    assert isinstance(session, ConnectSession)
    yield session


@pytest.fixture
def engine():
    """The state tests on Connect run the embedded engine (the Connect server here has no Delta jars)."""
    return "embedded"

"""Runs tests/connect (the DataFrame, SQL and state-table tests on Spark Connect) in a separate process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.connect

ROOT = Path(__file__).resolve().parents[2]


def test_dataframe_method_on_spark_connect():
    env = dict(os.environ, SPARK_ASSIGN_CONNECT="1", PYSPARK_PYTHON=sys.executable)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/connect"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " passed" in summary and "failed" not in summary, summary

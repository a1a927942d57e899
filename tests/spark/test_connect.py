"""The tests of tests/connect (the DataFrame, SQL and state-table tests on Spark Connect), each
reported here under its own name.

Classic and Connect sessions cannot share a Python process, so the Connect
tests run in a child pytest process: listed once when :func:`test_on_spark_connect` is
collected (their names parametrize it, in ``pytest_generate_tests``), run once
by the first test that needs their outcomes, and each outcome (passed,
failed with its report, skipped with its reason) is given back by the test
of the same name.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.connect

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, SPARK_ASSIGN_CONNECT="1", PYSPARK_PYTHON=sys.executable)
CHILD = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests/connect"]


def connect_tests() -> list:
    """The node ids of the Connect tests (a child ``pytest --collect-only``)."""
    listed = subprocess.run(CHILD + ["--collect-only", "-q"], cwd=ROOT, env=ENV, capture_output=True,
                            text=True, timeout=600)
    ids = [line for line in listed.stdout.splitlines() if line.startswith("tests/connect/") and "::" in line]
    return ids or [f"collection failed: {listed.stdout[-2000:]}{listed.stderr[-2000:]}"]


@pytest.fixture(scope="module")
def connect_outcomes(tmp_path_factory) -> dict:
    """Runs every Connect test once, in a child process; their outcomes by node id."""
    results = tmp_path_factory.mktemp("connect") / "results.json"
    run = subprocess.run(CHILD + ["-q", "-p", "tests.connect.results_plugin"], cwd=ROOT,
                         env=dict(ENV, SPARK_ASSIGN_CONNECT_RESULTS=str(results)),
                         capture_output=True, text=True, timeout=3000)
    if not results.exists():
        pytest.fail(f"the Connect tests did not run (exit {run.returncode}):\n"
                    f"{run.stdout[-4000:]}{run.stderr[-3000:]}")
    return json.loads(results.read_text(encoding="utf-8"))


def pytest_generate_tests(metafunc):
    # The child lists the Connect tests when this test is collected, not when the module is imported.
    if "node" in metafunc.fixturenames:
        metafunc.parametrize("node", [pytest.param(n, id=n.removeprefix("tests/connect/")) for n in connect_tests()])


def test_on_spark_connect(node, connect_outcomes):
    outcome = connect_outcomes.get(node)
    if outcome is None:
        pytest.fail(f"{node} did not run on Spark Connect")
    if outcome["outcome"] == "skipped":
        pytest.skip(outcome["detail"])
    if outcome["outcome"] == "failed":
        pytest.fail(outcome["detail"], pytrace=False)

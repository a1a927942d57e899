"""A streaming rebalance killed (SIGKILL) in a child process, then restarted from its checkpoint by
another driver (the test's own session): the table's history equals an uninterrupted run's,
without a duplicate or a lost generation.

The point: right after a batch's Delta commit, before Spark writes the batch's checkpoint (the
rerun must find the batch recorded: the transaction), on both engines. A kill before the commit
leaves the log as it was, which the batch rebalance's own kill tests (test_processes.py) cover at
every point of the write; each child is a JVM, so this file keeps to the point the stream adds.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from spark_assign import AssignmentTable

from .fleets import SUBS
from .test_stream import TOPICS, all_rows, batch_rebalances, membership_batches, skip_without_delta_spark, write_batches

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def run_child(spec_path, fault=None):
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    env.pop("SPARK_ASSIGN_FAULT", None)
    if fault:
        env["SPARK_ASSIGN_FAULT"] = fault
    proc = subprocess.Popen([sys.executable, "-m", "tests.state.stream_child", str(spec_path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=600)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)        # what is left of its group (its JVM)
        except ProcessLookupError:
            pass
    return proc.returncode, out, err


@pytest.mark.parametrize("engine_name, fault", [("embedded", "after-commit"), ("delta-spark", "after-commit")])
def test_a_killed_stream_resumes_without_duplicate_or_loss(spark, tmp_path, engine_name, fault):
    if engine_name == "delta-spark":
        skip_without_delta_spark()
    strategy = "cooperative-sticky"
    batches = membership_batches(seed=17)
    write_batches(str(tmp_path / "membership"), batches)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"input": str(tmp_path / "membership"), "table": str(tmp_path / "table"),
                                "checkpoint": str(tmp_path / "checkpoint"), "engine": engine_name,
                                "strategy": strategy, "topics": TOPICS}))
    code, _, err = run_child(spec, fault)
    assert code == -signal.SIGKILL, err[-3000:]
    killed_at = AssignmentTable(spark, str(tmp_path / "table"), engine=engine_name)
    assert killed_at.state().version == 1                       # the first batch's generation, committed
    # The restart: another driver (this test's session) on the same checkpoint and table.
    resumed = AssignmentTable(spark, str(tmp_path / "table"), engine=engine_name)
    source = spark.readStream.schema(SUBS).option("maxFilesPerTrigger", 1).parquet(str(tmp_path / "membership"))
    query = resumed.rebalance_stream(source, TOPICS, strategy=strategy, checkpoint_location=str(tmp_path / "checkpoint"),
                                     trigger={"availableNow": True})
    query.awaitTermination()
    reference = AssignmentTable(spark, str(tmp_path / "reference"), engine=engine_name)
    batch_rebalances(spark, reference, batches, strategy)
    assert all_rows(resumed) == all_rows(reference)
    assert resumed.state().version == reference.state().version

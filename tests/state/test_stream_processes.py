"""A streaming rebalance killed (SIGKILL) in a child process, then restarted from its checkpoint:
the table's history equals an uninterrupted run's, without a duplicate, a lost or a partial
generation, on both engines.

The points:

* ``after-commit``: right after a batch's Delta commit, before Spark writes the batch's
  checkpoint; the rerun must find the batch recorded (the transaction);
* ``mid-write``: the batch's files are written, its commit is not (``after-write``); the rerun
  runs the batch as if for the first time;
* ``between-batches``: at the start of a batch, after Spark checkpointed the one before.

The suite kills once per chosen (point, engine) pair, then resumes in the test's own session (another
driver on the same checkpoint). The soak run (``--soak``) kills at least five times per point
and engine, a new child after each kill, each dying one step further, and prints its figures.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spark_assign import AssignmentTable

from .fleets import SUBS
from .test_stream import TOPICS, all_rows, batch_rebalances, membership_batches, skip_without_delta_spark, write_batches

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
STRATEGY = "cooperative-sticky"
#: The test's point, the child's SPARK_ASSIGN_FAULT, and whether a child after the first passes
#: the point once before it dies: a kill before the commit leaves the rerun to pass it again, so
#: each child commits what the one before it could not, and dies one step further.
POINTS = {"after-commit": ("after-commit", False), "mid-write": ("after-write", True),
          "between-batches": ("between-batches", False)}
ENGINES = ["embedded", "delta-spark"]
#: The suite's (point, engine) pairs: each point once; after-commit, where each backend records the
#: batch's transaction in its own way, on both. The soak run crosses every point with every engine.
SUITE_PAIRS = [("after-commit", "embedded"), ("after-commit", "delta-spark"), ("mid-write", "embedded"),
               ("between-batches", "delta-spark")]


def run_child(spec_path, fault, skip=0):
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_ASSIGN_FAULT=fault,
               SPARK_ASSIGN_FAULT_SKIP=str(skip))
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


def kill_and_resume(spark, tmp_path, engine_name, point, kills, churns):
    """Kill a child at ``point`` up to ``kills`` times, then resume here; compare with the calls.
    Returns the figures: kills, the versions seen after each kill, the final version."""
    if engine_name == "delta-spark":
        skip_without_delta_spark()
    fault, skips = POINTS[point]
    batches = membership_batches(seed=17, churns=churns)
    write_batches(str(tmp_path / "membership"), batches)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"input": str(tmp_path / "membership"), "table": str(tmp_path / "table"),
                                "checkpoint": str(tmp_path / "checkpoint"), "engine": engine_name,
                                "strategy": STRATEGY, "topics": TOPICS}))
    versions = []
    for k in range(kills):
        code, _, err = run_child(spec, fault, skip=min(k, 1) if skips else 0)
        if code == 0:                                           # nothing left to kill
            break
        assert code == -signal.SIGKILL, err[-3000:]
        versions.append(AssignmentTable(spark, str(tmp_path / "table"), engine=engine_name).state().version)
    # The restart: another driver (this test's session) on the same checkpoint and table.
    resumed = AssignmentTable(spark, str(tmp_path / "table"), engine=engine_name)
    source = spark.readStream.schema(SUBS).option("maxFilesPerTrigger", 1).parquet(str(tmp_path / "membership"))
    query = resumed.rebalance_stream(source, TOPICS, strategy=STRATEGY, checkpoint_location=str(tmp_path / "checkpoint"),
                                     trigger={"availableNow": True})
    query.awaitTermination()
    reference = AssignmentTable(spark, str(tmp_path / "reference"), engine=engine_name)
    batch_rebalances(spark, reference, batches, STRATEGY)
    assert all_rows(resumed) == all_rows(reference)
    assert resumed.state().version == reference.state().version
    return {"kills": len(versions), "versions_after_kills": versions, "final_version": resumed.state().version}


@pytest.mark.parametrize("point,engine_name", SUITE_PAIRS, ids=[f"{p}-{e}" for p, e in SUITE_PAIRS])
def test_a_killed_stream_resumes_without_duplicate_or_loss(spark, tmp_path, engine_name, point):
    figures = kill_and_resume(spark, tmp_path, engine_name, point, kills=1, churns=2)
    assert figures["kills"] == 1
    first = figures["versions_after_kills"][0]
    # after-commit: the first batch's generation; mid-write: the created table, no generation;
    # between-batches: the first batch's generation and its follow-ups.
    assert (first == 1) if point == "after-commit" else (first == 0) if point == "mid-write" else (first >= 1)


@pytest.mark.soak
@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("point", list(POINTS))
def test_five_kills_per_point_resume_without_duplicate_or_loss(spark, tmp_path, engine_name, point):
    started = time.time()
    figures = kill_and_resume(spark, tmp_path, engine_name, point, kills=5, churns=6)
    assert figures["kills"] == 5
    print(json.dumps({"engine": engine_name, "point": point, **figures,
                      "seconds": round(time.time() - started, 1)}))

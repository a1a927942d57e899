"""Rebalancing processes that crash or race, each with its own Spark session.

* crash safety: a rebalance is killed (SIGKILL) before, during and after
  writing its files, before and after its commit; the table then reads at its
  previous version or the new one, never in between, and a re-run completes;
* concurrency: three processes keep rebalancing the same groups; no
  generation of any group is lost or written twice.

Each child is a JVM, so the crossings are chosen, not multiplied: every fault point runs on
every engine, each on one compute path, and the two engines take opposite paths
(:data:`FAULT_PATHS`), so every (fault point, path) pair runs too; two of delta-spark's
crossings run as a streaming query's kills (:data:`IN_THE_STREAM_TESTS`). The racing writers mix both
paths in one race, on the embedded engine, whose compare-and-set is spark-assign's own; the
compare-and-set of both engines is proven in-process, without JVMs, by ``test_commit_races.py``
and ``test_exact_versions.py`` (two delta-spark commits racing).
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable

from .fleets import SUBS, churn, fleet_rows

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
TOPICS = {"t0": 6, "t1": 4, "t2": 8}


def launch(spec_path, fault=None):
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    env.pop("SPARK_ASSIGN_FAULT", None)
    if fault:
        env["SPARK_ASSIGN_FAULT"] = fault
    return subprocess.Popen([sys.executable, "-m", "tests.state.child", str(spec_path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(proc, timeout=1200):
    """Wait for the process, then kill what is left of its group (its JVM)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc.returncode, out, err


def owners(df):
    return {(r.group_id, r.topic, r.partition): (r.generation, r.member_id) for r in df.collect()}


def spec(tmp_path, name, table, rounds, in_driver=True):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"table": table.path, "engine": table.engine, "rounds": rounds,
                                "in_driver": in_driver}))
    return path


def all_rows(table):
    return table.state().rows.collect()


def assert_generations_intact(rows):
    """Per group: generations 1..k, each a full assignment, no partition row twice."""
    seen = Counter((r.group_id, r.generation, r.topic, r.partition) for r in rows)
    assert max(seen.values()) == 1, [k for k, v in seen.items() if v > 1][:5]
    generations = defaultdict(set)
    for r in rows:
        generations[r.group_id].add(r.generation)
    for group, gens in generations.items():
        assert gens == set(range(1, max(gens) + 1)), (group, sorted(gens))


#: Concurrent writer processes, and the rebalances each commits.
WRITERS, ROUNDS = 3, 3

FAULTS = ["before-write", "after-write", "before-commit", "after-commit", "during-write"]


#: The compute path of each fault point on the embedded engine (True: the driver writes the file, for
#: few changed groups; False: Spark tasks do); delta-spark takes the other path of each point.
FAULT_PATHS = {"before-write": True, "after-write": False, "before-commit": True, "after-commit": False,
               "during-write": False}


#: (point, engine) crossings a streaming query's kill runs instead (tests/state/test_stream_processes.py:
#: "mid-write" is "after-write"; its batches are few groups, so the driver path, which is the one these
#: take on delta-spark). The stream's rerun finds the batch by its transaction; the embedded engine's
#: children here check the rerun that finds the generation by its groups' fingerprints.
IN_THE_STREAM_TESTS = {("after-write", "delta-spark"), ("after-commit", "delta-spark")}


def in_driver_for(point, engine):
    """The compute path fault ``point`` runs on with ``engine`` (see :data:`FAULT_PATHS`)."""
    return FAULT_PATHS[point] == (engine == "embedded")


def faults_for(engine):
    """The fault points this file kills ``engine``'s rebalances at."""
    return [point for point in FAULTS if (point, engine) not in IN_THE_STREAM_TESTS]


def test_every_fault_point_and_path_pair_is_covered_by_the_two_engines():
    from .test_stream_processes import POINTS

    pairs = {(point, in_driver_for(point, engine)) for engine in ("embedded", "delta-spark")
             for point in faults_for(engine)}
    streamed = {point for point, _ in IN_THE_STREAM_TESTS}
    assert streamed <= {fault for fault, _ in POINTS.values()}
    pairs |= {(point, True) for point in streamed}             # the stream's driver path, on both engines
    assert pairs == {(point, path) for point in FAULTS for path in (True, False)}


def test_a_killed_rebalance_leaves_the_old_or_the_new_version(spark, tmp_path, engine):
    # Eager sticky: after a completed generation a re-run has nothing to do (cooperative
    # would legitimately run its follow-up).
    rows1 = fleet_rows(40, seed=1)
    rows2 = churn(rows1, seed=2, share=0.5)
    reference = AssignmentTable(spark, str(tmp_path / "reference"), engine=engine)
    reference.rebalance(spark.createDataFrame(rows1, SUBS), TOPICS, "sticky")
    state1 = owners(reference.latest())
    reference.rebalance(spark.createDataFrame(rows2, SUBS), TOPICS, "sticky")
    state2 = owners(reference.latest())

    tables, procs = {}, {}
    for point in faults_for(engine):
        tables[point] = AssignmentTable(spark, str(tmp_path / point), engine=engine)
        tables[point].rebalance(spark.createDataFrame(rows1, SUBS), TOPICS, "sticky")
        child = spec(tmp_path, point, tables[point],
                     [{"rows": rows2, "topics": TOPICS, "strategy": "sticky"}], in_driver_for(point, engine))
        procs[point] = launch(child, fault=None if point == "during-write" else point)

    # "during-write": killed from outside as soon as a data file of version 2 appears.
    target = Path(tables["during-write"].path) / "commit_version=2"
    deadline = time.time() + 900
    while time.time() < deadline and procs["during-write"].poll() is None:
        if target.is_dir() and any(target.iterdir()):
            os.killpg(procs["during-write"].pid, signal.SIGKILL)
            break
        time.sleep(0.05)

    for point in faults_for(engine):
        code, out, err = finish(procs[point])
        table = tables[point]
        version = DeltaTable(table.path).version()
        if point == "after-commit":
            assert version == 2, (point, version, err[-2000:])
        elif point != "during-write":
            assert code == -signal.SIGKILL and version == 1, (point, code, version, err[-2000:])
        assert version in (1, 2)
        assert owners(table.latest()) == (state1 if version == 1 else state2), point
        # A re-run completes the generation, or finds it done.
        step = table.rebalance(spark.createDataFrame(rows2, SUBS), TOPICS, "sticky")
        assert step.version == (2 if version == 1 else None), point
        assert owners(table.latest()) == state2, point
        assert_generations_intact(all_rows(table))


@pytest.mark.parametrize("engine", ["embedded"])
def test_concurrent_rebalances_never_lose_or_duplicate_a_generation(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "shared"), engine=engine)
    base = fleet_rows(40, seed=10)
    table.rebalance(spark.createDataFrame(base, SUBS), TOPICS, "sticky")
    procs = []
    for writer in range(WRITERS):
        rounds, rows = [], base
        for r in range(ROUNDS):
            rows = churn(rows, seed=100 * writer + r, share=0.5)
            rounds.append({"rows": rows, "topics": TOPICS, "strategy": "sticky"})
        # Writers on both compute paths race for the same versions.
        procs.append(launch(spec(tmp_path, f"writer{writer}", table, rounds, in_driver=writer % 2 == 0)))
    versions = []
    for proc in procs:
        code, out, err = finish(proc)
        assert code == 0, err[-3000:]
        for line in out.splitlines():
            if line.startswith("{"):
                versions.append(json.loads(line)["version"])
    committed = [v for v in versions if v is not None]
    assert len(committed) == len(set(committed))                      # no version written twice
    assert DeltaTable(table.path).version() == 1 + len(committed)     # and none lost
    assert_generations_intact(all_rows(table))

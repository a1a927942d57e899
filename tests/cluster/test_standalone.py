"""On a real Spark standalone cluster (a master and two workers in their own JVMs): the
delta-spark engine's generations, ``assign_partitions`` and the SQL bridge give exactly what
they give on ``local[2]``; the embedded engine works where executors share the driver's
filesystem and refuses, writing nothing, where they do not.

The driver runs in a child process (one SparkContext per process); the same work runs here
on the test session's ``local[2]`` with the embedded engine, and the two are compared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..delta import MISSING, ROOT, jars
from . import standalone
from .workload import assign_rows, generations, schedule, sql_results

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def cluster_run(tmp_path_factory):
    """Start the cluster, run the driver on it, stop the cluster; the driver's JSON output."""
    found = jars()
    if not found:
        pytest.skip(MISSING)
    work = tmp_path_factory.mktemp("cluster")
    hidden = work / "driver-only" if standalone.can_hide_folders() else None
    tables = {"delta": work / "delta", "embedded": work / "embedded", "sql": work / "sql",
              "hidden": (hidden or work / "unused") / "state"}
    rounds = schedule()
    spec = {"jars": found, "rounds": rounds, "fleet": rounds[0], "tables": {k: str(v) for k, v in tables.items()}}
    cluster = standalone.start(work / "spark", hidden=hidden)
    try:
        spec["master"] = cluster.master
        done = subprocess.run([sys.executable, "-m", "tests.cluster.driver", json.dumps(spec)], cwd=ROOT,
                              env=dict(os.environ, PYSPARK_PYTHON=sys.executable), capture_output=True,
                              text=True, timeout=1200)
    finally:
        cluster.stop()
    assert done.returncode == 0, done.stderr[-4000:]
    return {"out": json.loads(done.stdout.strip().splitlines()[-1]), "rounds": rounds, "tables": tables,
            "hidden": hidden}


def test_the_driver_ran_on_two_executors(cluster_run):
    assert cluster_run["out"]["executors"] == 2


def test_delta_spark_generations_on_the_cluster_match_local(cluster_run, spark, tmp_path):
    from spark_assign import AssignmentTable

    out = cluster_run["out"]
    assert out["delta_engine"] == "delta-spark"
    local = generations(spark, AssignmentTable(spark, str(tmp_path / "t"), engine="embedded"), cluster_run["rounds"])
    assert out["delta"] == json.loads(json.dumps(local))
    assert [s[0] for s in out["delta"]["steps"]] == [1, 2, 3]


def test_assign_partitions_on_the_cluster_matches_local(cluster_run, spark):
    assert cluster_run["out"]["assigned"] == json.loads(json.dumps(assign_rows(spark, cluster_run["rounds"][0])))


def test_the_sql_bridge_on_the_cluster_matches_local(cluster_run, spark, tmp_path):
    local = sql_results(spark, str(tmp_path / "sql"))
    assert cluster_run["out"]["sql"] == json.loads(json.dumps(local, default=str))


def test_the_embedded_engine_works_where_executors_share_the_folder(cluster_run):
    assert cluster_run["out"]["embedded"] == cluster_run["out"]["delta"]


def test_the_embedded_engine_refuses_a_folder_executors_do_not_see(cluster_run):
    if cluster_run["hidden"] is None:
        pytest.skip("hiding a folder from the workers needs `unshare -m` (root)")
    assert "do not see" in cluster_run["out"]["hidden"], cluster_run["out"]["hidden"]
    assert not cluster_run["tables"]["hidden"].exists()            # nothing written, not even the folder

"""What a Spark task imports to assign: the worker's modules, not pandas, nor the DataFrame layer.

Every Python worker pays its imports on its first task, so a session's first
assignment job paid them once per core (0.26 s each before, 0.12 s now, on this
project's machine: docs/performance.md). The check runs in a new interpreter
that has imported ``pyspark.worker``, as the processes Spark forks have, and
assigns a wire with every kind of row: subscriptions with owned partitions and
static members, previous rows, weights.
"""

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from spark_assign.spark.consumer.worker import assign_batches

from .test_group_rows import SCHEMA, prev, sub, weight

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys
import pyspark.worker                                   # what Spark's forked workers have loaded
import pyarrow as pa
import spark_assign.spark.consumer.worker as worker
table = pa.ipc.open_file(sys.argv[1]).read_all()
out = pa.Table.from_batches(list(worker.assign_batches(iter(table.to_batches(max_chunksize=4)), "cooperative-sticky",
                                                       with_instance=True, with_weight=True)))
print(json.dumps({"rows": out.to_pylist(), "modules": sorted(sys.modules)}))
"""

#: Modules a task must not load: pandas (pyarrow's conversions import it: spark_assign.spark.arrow),
#: and what serves the driver (DataFrame methods, sessions, state tables, the other domains' layers).
NOT_IN_A_TASK = ("pandas", "spark_assign.spark.consumer.dataframe", "spark_assign.spark.session",
                 "spark_assign.spark.replicas", "spark_assign.spark.producer", "spark_assign.state",
                 "spark_assign.core.producer", "spark_assign.report", "spark_assign.cli")


def wire() -> pa.Table:
    rows = [sub("g-é", "m1", "t0", owned=[0, 1], generation=3), sub("g-é", "m1", "t1", owned=[], generation=3),
            sub("g-é", "m2", "t0", instance="static-2"), sub("g-é", "m2", "t1", instance="static-2"),
            prev("g-é", "m1", "t0", 2, 2), prev("g-é", "gone", "t1", 0, 2, status="revoked"),
            weight("g-é", "t0", 0, 5.0), weight("g-é", "t1", 1, 2.5),
            sub("h", "x", "t2"), sub("h", "y", "t2"), prev("h", "x", "t2", 4, 7)]
    return pa.Table.from_pydict({n: [r.get(n) for r in rows] for n in SCHEMA.names}, schema=SCHEMA)


def test_a_task_imports_the_worker_not_pandas_nor_the_driver_layers(tmp_path):
    table = wire()
    path = tmp_path / "wire.arrow"
    with pa.ipc.new_file(path, table.schema) as f:
        f.write_table(table)
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    import json

    child = json.loads(done.stdout.strip().splitlines()[-1])
    loaded = [m for m in child["modules"] if any(m == p or m.startswith(p + ".") for p in NOT_IN_A_TASK)]
    assert loaded == []
    expected = pa.Table.from_batches(list(assign_batches(iter(table.to_batches(max_chunksize=4)), "cooperative-sticky",
                                                         with_instance=True, with_weight=True))).to_pylist()
    assert child["rows"] == expected and len(expected) == 12

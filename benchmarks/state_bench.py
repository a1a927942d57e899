"""State-table benchmark: an incremental rebalance (1% of groups changed) against a full recompute.

    python benchmarks/state_bench.py              # 10,000 groups
    python benchmarks/state_bench.py --groups 2000

One local[2] session, one process. A table is built at generation 1 for the
whole fleet, then copied; on each copy, side by side:

* ``incremental``: ``rebalance`` after 1% of the groups changed (a member
  left, joined or subscribed to another topic): only those are recomputed
  and written;
* ``full``: ``rebalance(..., force=True)`` of the same input: every group is
  recomputed and written, what a pipeline without incremental state does.

Each step runs on a fresh copy of the generation-1 table (median of
``--repeat``). ``--warmup`` rounds of both steps run first, untimed for the
table (their times are kept in the JSON): the first rebalance after the
initial one pays the process's one-off costs (the JVM's first Parquet reads
and code generation for the new query shapes), which would otherwise always
land on the incremental step, the one run first. Writes
benchmarks/results/state.json and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
TOPICS = {"t0": 6, "t1": 4, "t2": 8}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--changed", type=float, default=0.01, help="share of groups changed")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds of both steps first")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign import AssignmentTable, local_session
    from spark_assign.testing import FLEET_SCHEMA, churn_rows, fleet_rows

    spark = local_session(**{"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "4g"})
    rows = fleet_rows(args.groups, seed=1)
    changed_rows = churn_rows(rows, seed=2, share=args.changed)
    first = spark.createDataFrame(rows, FLEET_SCHEMA).cache()
    second = spark.createDataFrame(changed_rows, FLEET_SCHEMA).cache()
    first.count(), second.count()

    work = Path(tempfile.mkdtemp(prefix="spark-assign-state-bench-", dir=os.getcwd()))
    try:
        base = AssignmentTable(spark, str(work / "base"))
        t0 = time.perf_counter()
        initial = base.rebalance(first, TOPICS, "sticky")
        initial_seconds = time.perf_counter() - t0

        def step(name: str, run: int, force: bool):
            copy = work / f"{name}-{run}"
            shutil.copytree(base.path, copy)
            table = AssignmentTable(spark, str(copy))
            t = time.perf_counter()
            result = table.rebalance(second, TOPICS, "sticky", force=force)
            return time.perf_counter() - t, result.summary

        warmup = {"incremental": [], "full": []}
        results = {"incremental": [], "full": []}
        summaries = {}
        for run in range(args.warmup + args.repeat):
            for name, force in (("incremental", False), ("full", True)):   # interleaved: same conditions
                seconds, summary = step(name, run, force)
                (warmup if run < args.warmup else results)[name].append(seconds)
                summaries[name] = summary
    finally:
        shutil.rmtree(work, ignore_errors=True)

    full = statistics.median(results["full"])
    rows_out = [
        {"case": "initial generation (all groups)", "seconds": initial_seconds,
         "groups_recomputed": initial.summary["groups_recomputed"]},
        {"case": f"incremental ({args.changed:.0%} changed)", "seconds": statistics.median(results["incremental"]),
         "groups_recomputed": summaries["incremental"]["groups_recomputed"]},
        {"case": "full recompute (force=True)", "seconds": full,
         "groups_recomputed": summaries["full"]["groups_recomputed"]},
    ]
    for r in rows_out:
        r["vs_full"] = r["seconds"] / full
    report = {"machine": {"python": platform.python_version(), "cores": os.cpu_count(), "spark": spark.version,
                          "master": "local[2]", "groups": args.groups, "repeat": args.repeat,
                          "warmup": args.warmup},
              "runs": results, "warmup_runs": warmup, "rows": rows_out}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "state.json").write_text(json.dumps(report, indent=2))
    print(f"machine: {report['machine']}")
    print(f"{'case':<34} {'groups recomputed':>18} {'seconds':>8} {'vs full':>8}")
    for r in rows_out:
        print(f"{r['case']:<34} {r['groups_recomputed']:>18,} {r['seconds']:>8.1f} {r['vs_full']:>7.0%}")


if __name__ == "__main__":
    main()

"""State-table benchmark: an incremental rebalance (1% of groups changed) against a full recompute,
on both state engines.

    python benchmarks/state_bench.py              # 10,000 groups, two group shapes, both engines
    python benchmarks/state_bench.py --groups 2000 --engines embedded

One local[2] session, one process, both engines side by side: the session
loads delta-spark's jars from ``$SPARK_ASSIGN_DELTA_JARS`` or
``../shared/delta-jars`` (``--engines embedded`` runs without them). For
each engine and group shape, a table is built at generation 1 for the whole
fleet, then copied; on each copy, side by side (engines and steps
interleaved, run after run, so that a shared machine's changing load falls
on all of them alike):

* ``incremental``: ``rebalance`` after 1% of the groups changed (a member
  left, joined or subscribed to another topic): only those are recomputed
  and written;
* ``full``: ``rebalance(..., force=True)`` of the same input: every group is
  recomputed and written, what a pipeline without incremental state does.

Two shapes: ``small`` groups (4 members, 3 topics of 6, 4 and 8 partitions:
18 partitions a group) and ``larger`` ones (8 members, 3 topics of 32: 96 a
group). An incremental run always hashes every group's subscriptions (its
cost follows the member-topic rows), a full one assigns and writes every
partition (its cost follows the partitions), so the ratio depends on the
shape; both are reported.

Each step runs on a fresh copy of the generation-1 table (median of
``--repeat``). ``--warmup`` rounds of both steps run first, untimed for the
table (their times are kept in the JSON): the first rebalance after the
initial one pays the process's one-off costs (the JVM's first Parquet reads
and code generation for the new query shapes), which would otherwise always
land on the incremental step, the one run first. Writes
benchmarks/results/state.json and prints the table: each step's time, as a
share of the full recompute on the same engine (``vs_full``) and, for
delta-spark, as a multiple of the embedded engine's time for the same step
(``vs_embedded``), and the Spark jobs it ran (``spark_jobs``, counted with
Spark's status tracker: the same on every run, unlike the seconds). The
machine line has the 1-minute load average before and after the run: the
machine is shared, and the seconds follow its load.
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
#: name: (members per group, topics {name: partitions})
SHAPES = {
    "small": (4, {"t0": 6, "t1": 4, "t2": 8}),
    "larger": (8, {"t0": 32, "t1": 32, "t2": 32}),
}
ENGINES = ("embedded", "delta-spark")
SHARED_JARS = Path(__file__).resolve().parents[2] / "shared" / "delta-jars"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--changed", type=float, default=0.01, help="share of groups changed")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds of both steps first")
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if SHARED_JARS.is_dir():
        os.environ.setdefault("SPARK_ASSIGN_DELTA_JARS", str(SHARED_JARS))
    from spark_assign import local_session
    from spark_assign.spark.session import has_delta_spark

    load_before = round(os.getloadavg()[0], 1)
    spark = local_session(**{"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "4g"})
    if "delta-spark" in args.engines and not has_delta_spark(spark):
        sys.exit("no delta-spark jars: set SPARK_ASSIGN_DELTA_JARS, or run with --engines embedded")
    rows_out, runs = [], {}
    for shape in args.shapes:
        shape_rows, shape_runs = bench_shape(spark, shape, args.engines, args)
        rows_out += shape_rows
        runs.update({f"{engine} {shape}": timings for engine, timings in shape_runs.items()})
    embedded = {(r["shape"], r["case"]): r["seconds"] for r in rows_out if r["engine"] == "embedded"}
    for r in rows_out:
        if r["engine"] != "embedded" and (r["shape"], r["case"]) in embedded:
            r["vs_embedded"] = r["seconds"] / embedded[(r["shape"], r["case"])]
    report = {"machine": {"python": platform.python_version(), "cores": os.cpu_count(), "spark": spark.version,
                          "master": "local[2]", "groups": args.groups, "repeat": args.repeat,
                          "warmup": args.warmup, "load_average": [load_before, round(os.getloadavg()[0], 1)]},
              "runs": runs, "rows": rows_out}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "state.json").write_text(json.dumps(report, indent=2))
    print(f"machine: {report['machine']}")
    print(f"{'engine':<12} {'case':<34} {'groups recomputed':>18} {'seconds':>8} {'vs full':>8} {'vs embedded':>12} "
          f"{'jobs':>5}")
    for r in rows_out:
        print(f"{r['engine']:<12} {r['case']:<34} {r['groups_recomputed']:>18,} {r['seconds']:>8.2f} "
              f"{r['vs_full']:>7.0%} {r.get('vs_embedded', 1.0):>11.2f}x {r['spark_jobs']:>5}   {r['shape']}")


def bench_shape(spark, shape: str, engines, args):
    """The three rows of one group shape on each engine, and the raw timings (per engine)."""
    from spark_assign import AssignmentTable
    from spark_assign.testing import FLEET_SCHEMA, churn_rows, fleet_rows

    members, topics = SHAPES[shape]
    rows = fleet_rows(args.groups, seed=1, members=members, topics=len(topics))
    changed_rows = churn_rows(rows, seed=2, share=args.changed, topics=len(topics))
    first = spark.createDataFrame(rows, FLEET_SCHEMA).cache()
    second = spark.createDataFrame(changed_rows, FLEET_SCHEMA).cache()
    first.count(), second.count()

    work = Path(tempfile.mkdtemp(prefix="spark-assign-state-bench-", dir=os.getcwd()))
    initial, jobs, summaries = {}, {}, {}
    warmup = {e: {"incremental": [], "full": []} for e in engines}
    results = {e: {"incremental": [], "full": []} for e in engines}
    try:
        bases = {}
        for engine in engines:
            bases[engine] = AssignmentTable(spark, str(work / f"base-{engine}"), engine=engine)
            t0 = time.perf_counter()
            done, count = counting_jobs(spark, f"{engine}-{shape}-initial",
                                        lambda: bases[engine].rebalance(first, topics, "sticky"))
            initial[engine] = (time.perf_counter() - t0, done.summary["groups_recomputed"], count)

        def step(engine: str, name: str, run: int, force: bool):
            copy = work / f"{engine}-{name}-{run}"
            shutil.copytree(bases[engine].path, copy)
            table = AssignmentTable(spark, str(copy), engine=engine)
            t = time.perf_counter()
            result, jobs[engine, name] = counting_jobs(
                spark, f"{engine}-{shape}-{name}-{run}", lambda: table.rebalance(second, topics, "sticky", force=force))
            return time.perf_counter() - t, result.summary

        # Interleaved, engines and steps alike: the same conditions for every ratio on a shared machine.
        for run in range(args.warmup + args.repeat):
            for engine in engines:
                for name, force in (("incremental", False), ("full", True)):
                    seconds, summaries[engine, name] = step(engine, name, run, force)
                    (warmup if run < args.warmup else results)[engine][name].append(seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        first.unpersist(), second.unpersist()

    label = f"{shape}: {members} members, {sum(topics.values())} partitions a group"
    out = []
    for engine in engines:
        full = statistics.median(results[engine]["full"])
        seconds, recomputed, count = initial[engine]
        rows_of = [
            {"case": "initial generation (all groups)", "seconds": seconds, "groups_recomputed": recomputed,
             "spark_jobs": count},
            {"case": f"incremental ({args.changed:.0%} changed)",
             "seconds": statistics.median(results[engine]["incremental"]),
             "groups_recomputed": summaries[engine, "incremental"]["groups_recomputed"],
             "spark_jobs": jobs[engine, "incremental"]},
            {"case": "full recompute (force=True)", "seconds": full,
             "groups_recomputed": summaries[engine, "full"]["groups_recomputed"], "spark_jobs": jobs[engine, "full"]},
        ]
        out += [{"engine": engine, "shape": label, **r, "vs_full": r["seconds"] / full} for r in rows_of]
    return out, {engine: {"timed": results[engine], "warmup": warmup[engine]} for engine in engines}


def counting_jobs(spark, group: str, run):
    """``run()``'s result and the number of Spark jobs it started (in a job group of its own)."""
    context = spark.sparkContext
    context.setJobGroup(f"state-bench-{group}", "benchmarks/state_bench.py")
    try:
        result = run()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
        context.setLocalProperty("spark.job.description", None)
    return result, len(context.statusTracker().getJobIdsForGroup(f"state-bench-{group}"))


if __name__ == "__main__":
    main()

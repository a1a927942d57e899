"""Streaming rebalance: a micro-batch against the same rebalance called in batch, in one run.

    python benchmarks/stream_bench.py              # 10,000 groups, 1% changed per batch, 5 rounds
    python benchmarks/stream_bench.py --quick      # 1,000 groups, 2 rounds (a smoke test)
    python benchmarks/stream_bench.py --shuffle-partitions 2   # the state store's partitions = cores

Two state tables start from the same first generation of a fleet (groups of 4
members on 3 topics, embedded engine, ``cooperative-sticky``). Each round
churns 1% of the groups and writes the changed groups' full membership as one
Parquet file. The stream table takes it through ``rebalance_stream`` (a file
source, ``availableNow``, one checkpoint for all rounds: each round's query
processes the one new file); the batch table through ``rebalance`` on the
same file read as a DataFrame, with the same cooperative follow-ups. A third
table takes the round's membership *events* (join, update, leave: one file,
the events form, whose query keeps the membership in its state; round 0 joins
every member). The three alternate (the order rotates each round). Reported, medians over the
rounds: the batch call's seconds; the micro-batch's own time as Spark
measures it (``triggerExecution`` of the query's progress: reading the file,
the ``foreachBatch`` function, the checkpoint) for both forms; and the whole
snapshot query, start to stop. The three tables must end equal (checked). Writes benchmarks/results/stream.json.
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

import pyarrow as pa
import pyarrow.parquet as pq

RESULTS = Path(__file__).parent / "results"
TOPICS = {"t0": 12, "t1": 6, "t2": 8}
STRATEGY = "cooperative-sticky"
COLUMNS = ["group_id", "member_id", "topic", "group_instance_id"]


def changed_groups(before, after):
    """The rows of ``after``'s groups whose rows differ from ``before``'s."""
    def by_group(rows):
        out = {}
        for r in rows:
            out.setdefault(r[0], []).append(r)
        return {g: sorted(v) for g, v in out.items()}
    old, new = by_group(before), by_group(after)
    return [r for g, rows in new.items() if old.get(g) != rows for r in rows]


def batch_rebalance(spark, table, path, schema):
    step = table.rebalance(spark.read.schema(schema).parquet(path), TOPICS, strategy=STRATEGY)
    while step.summary.get("revoked", 0) > 0:
        step = table.rebalance(spark.read.schema(schema).parquet(path), TOPICS, strategy=STRATEGY)


def run(groups: int, rounds: int, shuffle_partitions: int = 8) -> dict:
    from spark_assign import AssignmentTable, local_session
    from spark_assign.testing import EVENTS_SCHEMA, FLEET_SCHEMA, churn_rows, fleet_rows, membership_events

    # The events form's state store has as many partitions as the session's shuffle partitions
    # when its query first starts (kept in the checkpoint): one task each per micro-batch.
    spark = local_session(**{"spark.sql.shuffle.partitions": str(shuffle_partitions)})
    work = tempfile.mkdtemp(prefix="stream-bench-")
    try:
        rows = fleet_rows(groups, seed=39, members=4, topics=3)
        first = spark.createDataFrame(rows, FLEET_SCHEMA)
        streamed = AssignmentTable(spark, os.path.join(work, "streamed"))
        called = AssignmentTable(spark, os.path.join(work, "called"))
        evented = AssignmentTable(spark, os.path.join(work, "evented"))
        for table in (streamed, called, evented):
            table.rebalance(first, TOPICS, strategy=STRATEGY)
        folder, events_folder = os.path.join(work, "membership"), os.path.join(work, "events")
        os.makedirs(folder)
        os.makedirs(events_folder)
        source = spark.readStream.schema(FLEET_SCHEMA).option("maxFilesPerTrigger", 1).parquet(folder)
        events_source = spark.readStream.schema(EVENTS_SCHEMA).option("maxFilesPerTrigger", 1).parquet(events_folder)
        samples = {"batch": [], "micro_batch": [], "query": [], "events_micro_batch": []}
        for k in range(rounds + 1):                  # round 0 warms the paths up (and joins every member), untimed
            after = churn_rows(rows, seed=100 + k, share=0.01)
            changed = changed_groups(rows, after)
            events = membership_events([] if k == 0 else rows, after if k == 0 else changed)
            rows = after
            path = os.path.join(folder, f"batch-{k:03d}.parquet")
            pq.write_table(pa.table({c: [r[i] for r in changed] for i, c in enumerate(COLUMNS)}), path)
            os.utime(path, (1_700_000_000 + k,) * 2)
            events_path = os.path.join(events_folder, f"batch-{k:03d}.parquet")
            names = ["group_id", "member_id", "event", "topic", "group_instance_id"]
            pq.write_table(pa.table({c: pa.array([r[i] for r in events], pa.string()) for i, c in enumerate(names)}),
                           events_path)
            os.utime(events_path, (1_700_000_000 + k,) * 2)
            timed = {}
            order = [("stream", "batch", "events"), ("batch", "events", "stream"), ("events", "stream", "batch")][k % 3]
            for what in order:
                t0 = time.perf_counter()
                if what == "batch":
                    batch_rebalance(spark, called, path, FLEET_SCHEMA)
                    timed["batch"] = time.perf_counter() - t0
                elif what == "events":
                    query = evented.rebalance_stream(events_source, TOPICS, strategy=STRATEGY,
                                                     checkpoint_location=os.path.join(work, "events-checkpoint"),
                                                     trigger={"availableNow": True})
                    query.awaitTermination()
                    progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
                    timed["events_micro_batch"] = progress[-1]["durationMs"]["triggerExecution"] / 1000
                else:
                    query = streamed.rebalance_stream(source, TOPICS, strategy=STRATEGY,
                                                      checkpoint_location=os.path.join(work, "checkpoint"),
                                                      trigger={"availableNow": True})
                    query.awaitTermination()
                    timed["query"] = time.perf_counter() - t0
                    progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
                    timed["micro_batch"] = progress[-1]["durationMs"]["triggerExecution"] / 1000
            if k > 0:
                for name, seconds in timed.items():
                    samples[name].append(seconds)
            print({n: round(s, 3) for n, s in timed.items()}, file=sys.stderr, flush=True)
        latest = [sorted(tuple(r) for r in t.latest().select("group_id", "topic", "partition", "member_id").collect())
                  for t in (streamed, called, evented)]
        if not latest[0] == latest[1] == latest[2]:
            raise SystemExit("the streamed tables (snapshots, events) and the batch-called table differ")
        med = {n: statistics.median(v) for n, v in samples.items()}
        return {"machine": {"python": platform.python_version(), "cores": os.cpu_count(), "spark": spark.version,
                            "engine": streamed.engine, "load_average": [round(x, 2) for x in os.getloadavg()]},
                "rows": [{"groups": groups, "changed_per_batch": "1%", "rounds": rounds,
                          "shuffle_partitions": shuffle_partitions,
                          "batch_seconds": med["batch"], "micro_batch_seconds": med["micro_batch"],
                          "micro_batch_vs_batch": med["micro_batch"] / med["batch"],
                          "query_seconds": med["query"], "query_vs_batch": med["query"] / med["batch"],
                          "events_micro_batch_seconds": med["events_micro_batch"],
                          "events_micro_batch_vs_batch": med["events_micro_batch"] / med["batch"]}]}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    report = run(1_000, 2, args.shuffle_partitions) if args.quick else run(10_000, 5, args.shuffle_partitions)
    name = "stream-quick" if args.quick else "stream"
    if args.shuffle_partitions != 8:
        name += f"-{args.shuffle_partitions}-partitions"
    out = RESULTS / f"{name}.json"
    RESULTS.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""The audit of a fleet: every classic group of a ``__consumer_offsets`` copy checked in one Spark job.

    python benchmarks/audit_bench.py               # 100,000 groups, 2 rounds
    python benchmarks/audit_bench.py --quick       # 5,000 groups, 1 round (a smoke test)

A seeded fleet (``spark_assign.testing.consumer_offsets_fleet``: groups of 1-6 members on 1-4 of
40 topics, Kafka's four client strategies, two generations each, 0.1% of the leaders planted with
a difference) is written once as Parquet. Two jobs run over it, in turn, each writing every row to
Spark's ``noop`` sink:

* **decode**: ``consumer_groups(records)``, all frames (the audit's input, read);
* **audit**: ``audit(consumer_groups(records), topics)``: the same read, then every classic group
  recomputed by its strategy and compared.

Reported: each job's median seconds, the audit's groups per second and its ratio to the read;
and that the audit found exactly the planted groups. Writes benchmarks/results/audit.json (``--quick``: audit-quick.json).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from kafka_copy import save, write_copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--groups", type=int)
    args = parser.parse_args()
    groups, rounds = (5_000, 1) if args.quick else (100_000, 2)
    groups = args.groups or groups
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign.kafka import audit, consumer_groups
    from spark_assign.spark import local_session
    from spark_assign.testing import consumer_offsets_fleet

    began = time.perf_counter()
    fleet = consumer_offsets_fleet(groups, seed=5, plant=groups // 1000)
    path = os.path.join(tempfile.mkdtemp(prefix="audit-bench-"), "records.parquet")
    count = write_copy(fleet, path)
    print(f"{groups:,} groups, {count:,} records written in {time.perf_counter() - began:.1f} s")
    spark = local_session()
    spark.conf.set("spark.sql.shuffle.partitions", str(2 * (os.cpu_count() or 2)))

    def decode() -> None:
        consumer_groups(spark.read.parquet(path)).all_frames.write.format("noop").mode("overwrite").save()

    def audited() -> None:
        audit(consumer_groups(spark.read.parquet(path)), fleet.topics).write.format("noop").mode("overwrite").save()

    jobs = {"decode": decode, "audit": audited}
    times = {name: [] for name in jobs}
    for r in range(rounds):
        for name in (list(jobs) if r % 2 == 0 else list(jobs)[::-1]):
            began = time.perf_counter()
            jobs[name]()
            times[name].append(time.perf_counter() - began)
            print(f"round {r + 1} {name}: {times[name][-1]:.1f} s")
    found = {r.group_id for r in audit(consumer_groups(spark.read.parquet(path)), fleet.topics)
             .select("group_id").distinct().collect()}
    median = {name: statistics.median(t) for name, t in times.items()}
    save("audit", spark, {
        "groups": groups, "records": count, "planted": len(fleet.planted),
        "found": len(found & set(fleet.planted)), "false_alarms": len(found - set(fleet.planted)),
        "rounds": rounds, "decode_seconds": median["decode"], "audit_seconds": median["audit"],
        "audit_groups_per_second": groups / median["audit"],
        "audit_vs_decode": median["audit"] / median["decode"]}, args.quick)
    spark.stop()


if __name__ == "__main__":
    main()

"""Decoding ``__consumer_offsets``: ``consumer_groups`` against passes that only read the records, in one run.

    python benchmarks/records_bench.py             # about 1,000,000 records, 3 rounds
    python benchmarks/records_bench.py --quick     # about 250,000 records, 2 rounds (a smoke test)

The records are a seeded fleet (``spark_assign.testing.consumer_offsets_fleet``): classic groups
written for two generations each, and offset commits, several per partition, as a busy
``__consumer_offsets`` holds them (most records are commits, most of them superseded). They are
written once as Parquet, then three jobs run over the same file, each writing every row to Spark's
``noop`` sink, in turn (the order rotates each round):

* **read**: the columns read (the JVM alone);
* **arrow pass**: the same shuffle and sort as ``consumer_groups`` (by ``__consumer_offsets``
  partition, then offset), and a ``mapInArrow`` that reads every key and value and writes one row
  per partition (the decoder's plan without the decoding);
* **decode**: ``consumer_groups(records)``: all five frames, in its one pass.

Reported: each job's median seconds and the ratios of decode to the other two. Writes
benchmarks/results/records.json (``--quick``: records-quick.json).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from typing import Iterable, Iterator

import pyarrow as pa

from kafka_copy import save, write_copy


def touch_only(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Reads every key and value byte (their lengths summed) and yields one small row per batch."""
    for batch in batches:
        size = pa.compute.sum(pa.compute.binary_length(batch.column("key"))).as_py() or 0
        size += pa.compute.sum(pa.compute.binary_length(batch.column("value"))).as_py() or 0
        yield pa.record_batch({"bytes": pa.array([size], pa.int64())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    args = parser.parse_args()
    groups, commits, rounds = (1_200, 5, 2) if args.quick else (4_800, 5, 3)
    rounds = args.rounds or rounds
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from spark_assign.kafka import consumer_groups
    from spark_assign.spark import local_session

    work = tempfile.mkdtemp(prefix="records-bench-")
    path = os.path.join(work, "records.parquet")
    began = time.perf_counter()
    from spark_assign.testing import consumer_offsets_fleet

    count = write_copy(consumer_offsets_fleet(groups, seed=11, commits=commits), path)
    print(f"{count:,} records written in {time.perf_counter() - began:.1f} s")
    spark = local_session()
    spark.conf.set("spark.sql.shuffle.partitions", str(os.cpu_count() or 2))

    def read() -> None:
        spark.read.parquet(path).select("key", "value", "partition", "offset").write.format("noop").mode("overwrite").save()

    def arrow_pass() -> None:
        (spark.read.parquet(path).repartition("partition").sortWithinPartitions("partition", "offset")
         .mapInArrow(touch_only, "bytes long").write.format("noop").mode("overwrite").save())

    def decode() -> None:
        consumer_groups(spark.read.parquet(path)).all_frames.write.format("noop").mode("overwrite").save()

    jobs = {"read": read, "arrow pass": arrow_pass, "decode": decode}
    decode()                                            # warm: Python workers, imports
    times = {name: [] for name in jobs}
    for r in range(rounds):
        names = list(jobs)[r % len(jobs):] + list(jobs)[:r % len(jobs)]
        for name in names:
            began = time.perf_counter()
            jobs[name]()
            times[name].append(time.perf_counter() - began)
            print(f"round {r + 1} {name}: {times[name][-1]:.2f} s")
    median = {name: statistics.median(t) for name, t in times.items()}
    frames = consumer_groups(spark.read.parquet(path)).persist()
    save("records", spark, {
        "records": count, "groups": frames.groups.count(), "offsets": frames.offsets.count(),
        "problems": frames.problems.count(), "rounds": rounds, "read_seconds": median["read"],
        "arrow_pass_seconds": median["arrow pass"], "decode_seconds": median["decode"],
        "decode_vs_arrow_pass": median["decode"] / median["arrow pass"],
        "decode_vs_read": median["decode"] / median["read"]}, args.quick)
    spark.stop()


if __name__ == "__main__":
    main()

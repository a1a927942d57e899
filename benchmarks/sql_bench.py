"""SQL benchmark: kafka_partition through Spark, and the assign table functions' throughput.

    python benchmarks/sql_bench.py                # 1M keys, 20,000 groups, a 100,000-row group (minutes)
    python benchmarks/sql_bench.py --quick        # 100k keys, 2,000 groups, a 10,000-row group
    python benchmarks/sql_bench.py --only keys    # kafka_partition only (or: --only tables)

One local[1] session: one task slot, so one task at a time runs the keys
through the JVM and one Python worker (the JVM and the worker are two
processes, which the OS may run on two CPUs; ``--pin`` pins this driver, the
JVM and the Python workers to one CPU, which also makes the JVM's JIT and GC
threads compete with the task). Every query writes to Spark's ``noop`` sink: all rows are
computed, nothing is collected. Each figure is the median (and the fastest) of
``--repeat`` runs after one warm-up run.

kafka_partition: 1M random alphanumeric string keys of 5-40 bytes (cached in
Spark), on 12 partitions:

* ``scan``: the cached keys alone; ``JVM pmod(hash(key), 12)``: Spark's own
  (non-Kafka) hash, no Python;
* ``arrow_udf returning zeros``: the Spark -> Python -> Spark Arrow round trip
  with no work, the floor for any Python UDF;
* ``kafka_partition(key, 12)``, ``kafka_murmur2(key)``, and
  ``kafka_partition(key, n)`` with a per-row count column;
* the same ``kafka_partition`` with 100,000-row Arrow batches instead of the
  default 10,000 (``spark.sql.execution.arrow.maxRecordsPerBatch``);
* baselines, in the same run: a pure-Python loop over the keys in this process
  (``(murmur2_bytes(key) & 0x7fffffff) % 12``, no Spark, on a 100,000-key
  sample), and the same loop as a row-at-a-time Python ``@udf`` through Spark
  (what one would write without spark-assign). Every kafka row's ``vs loop``
  is its keys/s over the pure-Python loop's.

Table functions (strategy cooperative-sticky, fresh assignment):

* 20,000 groups of 5 members x 2 topics x 8 partitions (200,000 input rows);
* one group of 1,000 members x 100 topics x 20 partitions (100,000 input rows);

each through ``DataFrame.assign_partitions``, ``assign_cooperative_sticky``
registered with the Arrow eval type (the default), and the same registered as
Spark's row UDTF (``register(spark, arrow=False)``).

Writes benchmarks/results/sql.json (or sql-quick.json) and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from murmur2_bench import string_keys  # noqa: E402

import spark_assign  # noqa: E402
from spark_assign.core.producer.murmur2 import murmur2_bytes  # noqa: E402

RESULTS = Path(__file__).parent / "results"
NUM_PARTITIONS = 12


def timed(run: Callable[[], None], repeat: int) -> Tuple[float, float]:
    """(median, fastest) wall time of ``repeat`` runs after one warm-up, in seconds."""
    run()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def noop(df) -> Callable[[], None]:
    return lambda: df.write.format("noop").mode("overwrite").save()


def bench_kafka_partition(spark, n: int, repeat: int, workdir: Path) -> List[Dict[str, object]]:
    keys = string_keys(n, 5, 40, seed=1)
    # A parquet file, read by Spark's vectorized reader: the cheapest way for Spark to
    # produce the keys (a cached DataFrame made from Arrow scans several times slower).
    pq.write_table(pa.table({"key": keys}), str(workdir / "keys.parquet"))
    df = spark.read.parquet(str(workdir / "keys.parquet"))
    assert df.count() == n
    df.createOrReplaceTempView("bench_keys")

    from pyspark.sql.functions import arrow_udf

    def zeros(k: pa.Array) -> pa.Array:
        return pa.array(np.zeros(len(k), dtype=np.int32))

    spark.udf.register("bench_zeros", arrow_udf(zeros, "int"))

    from pyspark.sql.functions import udf

    def python_partition(key):  # no type hints: a plain row UDF (hints would make Spark try Arrow)
        return (murmur2_bytes(key.encode("utf-8")) & 0x7FFFFFFF) % NUM_PARTITIONS

    spark.udf.register("bench_python_partition", udf(python_partition, "int"))

    check = spark.sql(f"SELECT key, kafka_partition(key, {NUM_PARTITIONS}) AS p, kafka_murmur2(key) AS h, "
                      "bench_python_partition(key) AS loop FROM bench_keys LIMIT 2000").collect()
    for r in check:
        h = murmur2_bytes(r.key.encode())
        assert r.h == h and r.p == (h & 0x7FFFFFFF) % NUM_PARTITIONS == r.loop, r.key

    sample = keys.slice(0, min(n, 100_000)).to_pylist()
    seconds, best = timed(lambda: [python_partition(k) for k in sample], repeat)
    loop_rate = len(sample) / seconds
    rows = [{"case": "baseline: pure-Python loop, no Spark (murmur2_bytes)", "keys": len(sample),
             "seconds": seconds, "best_seconds": best, "keys_per_s": loop_rate,
             "best_keys_per_s": len(sample) / best, "vs_loop": 1.0}]

    cases = [
        ("scan (cached keys, no function)", "SELECT key FROM bench_keys", None),
        ("JVM pmod(hash(key), 12) (not Kafka's hash)", "SELECT pmod(hash(key), 12) FROM bench_keys", None),
        ("arrow_udf returning zeros (round trip only)", "SELECT bench_zeros(key) FROM bench_keys", None),
        ("kafka_partition(key, 12)", "SELECT kafka_partition(key, 12) FROM bench_keys", None),
        ("kafka_murmur2(key)", "SELECT kafka_murmur2(key) FROM bench_keys", None),
        ("kafka_partition(key, n), n per row", "SELECT kafka_partition(key, 10 + length(key) % 5) FROM bench_keys",
         None),
        ("kafka_partition(key, 12), 100k-row batches", "SELECT kafka_partition(key, 12) FROM bench_keys", "100000"),
        ("baseline: the loop as a row Python @udf", "SELECT bench_python_partition(key) FROM bench_keys", None),
    ]
    for name, query, batch in cases:
        if batch:
            spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", batch)
        try:
            seconds, best = timed(noop(spark.sql(query)), repeat)
        finally:
            spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
        rows.append({"case": name, "keys": n, "seconds": seconds, "best_seconds": best, "keys_per_s": n / seconds,
                     "best_keys_per_s": n / best, "vs_loop": n / seconds / loop_rate})
    return rows


def fleet_rows(groups: int) -> pa.Table:
    members, topics, count = 5, 2, 8
    g = np.repeat(np.arange(groups), members * topics)
    m = np.tile(np.repeat(np.arange(members), topics), groups)
    t = np.tile(np.arange(topics), groups * members)
    return pa.table({
        "group_id": pa.array([f"g{i:06d}" for i in range(groups)]).take(pa.array(g)),
        "member_id": pa.array([f"m{i}" for i in range(members)]).take(pa.array(m)),
        "topic": pa.array([f"t{i}" for i in range(topics)]).take(pa.array(t)),
        "num_partitions": pa.array(np.full(len(g), count, dtype=np.int32)),
    })


def big_group_rows(members: int, topics: int) -> pa.Table:
    m = np.repeat(np.arange(members), topics)
    t = np.tile(np.arange(topics), members)
    return pa.table({
        "group_id": pa.array(["big"] * len(m)),
        "member_id": pa.array([f"c{i:05d}" for i in range(members)]).take(pa.array(m)),
        "topic": pa.array([f"t{i:04d}" for i in range(topics)]).take(pa.array(t)),
        "num_partitions": pa.array(np.full(len(m), 20, dtype=np.int32)),
    })


def bench_table_functions(spark, name: str, table: pa.Table, repeat: int) -> List[Dict[str, object]]:
    df = spark.createDataFrame(table).repartition(1).cache()
    n = df.count()
    df.createOrReplaceTempView("bench_input")
    groups = df.select("group_id").distinct().count()
    topics = {r.topic: r.num_partitions for r in df.select("topic", "num_partitions").distinct().collect()}
    subs = df.drop("num_partitions")
    partitions = groups * sum(topics.values())
    query = "SELECT * FROM assign_cooperative_sticky(TABLE(bench_input))"
    rows = []
    for impl, register_arrow in (("DataFrame.assign_partitions", None), ("SQL, Arrow eval type (default)", True),
                                 ("SQL, row UDTF (arrow=False)", False)):
        if register_arrow is None:
            run = noop(subs.assign_partitions("cooperative-sticky", topics=topics, num_partitions=1))
        else:
            spark_assign.register(spark, arrow=register_arrow)
            run = noop(spark.sql(query))
        seconds, _ = timed(run, repeat)
        rows.append({"case": name, "impl": impl, "groups": groups, "input_rows": n, "partitions": partitions,
                     "seconds": seconds, "groups_per_s": groups / seconds, "input_rows_per_s": n / seconds})
    spark_assign.register(spark)
    df.unpersist()
    return rows


def machine() -> Dict[str, object]:
    import pyspark

    return {"python": platform.python_version(), "pyspark": pyspark.__version__, "numpy": np.__version__,
            "pyarrow": pa.__version__, "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(), "platform": platform.platform()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100k keys, 2,000 groups")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["keys", "tables"], help="run one half only")
    parser.add_argument("--pin", action="store_true", help="pin the driver, the JVM and the Python workers to one CPU")
    args = parser.parse_args()
    n_keys = 100_000 if args.quick else 1_000_000
    n_groups = 2_000 if args.quick else 20_000
    big = (100, 100) if args.quick else (1_000, 100)

    cpu = None
    if args.pin and hasattr(os, "sched_setaffinity"):    # inherited by the JVM and its Python workers
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    spark = spark_assign.local_session(master="local[1]", app_name="spark-assign-sql-bench",
                                       **{"spark.sql.shuffle.partitions": "1"})
    spark_assign.register(spark)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="spark-assign-sql-bench-") as workdir:
        keys = bench_kafka_partition(spark, n_keys, args.repeat, Path(workdir)) if args.only != "tables" else []
    udtf = []
    if args.only != "keys":
        udtf += bench_table_functions(spark, f"{n_groups:,} groups of 5 members x 2 topics",
                                      fleet_rows(n_groups), args.repeat)
        udtf += bench_table_functions(spark, f"1 group of {big[0]:,} members x {big[1]} topics",
                                      big_group_rows(*big), args.repeat)
    report = {"machine": machine(), "master": "local[1]", "pinned_cpu": cpu, "repeat": args.repeat,
              "statistic": "median, and best (fastest run)",
              "load_average_before_after": [list(load_before), list(os.getloadavg())],
              "target_keys_per_s": 1_000_000, "kafka_partition": keys, "table_functions": udtf}
    RESULTS.mkdir(exist_ok=True)
    name = "sql-quick" if args.quick else "sql"
    (RESULTS / (name + (f"-{args.only}" if args.only else "") + ".json")).write_text(json.dumps(report, indent=2))

    print(f"machine: {report['machine']}  pinned cpu: {cpu}")
    print(f"load average before/after: {report['load_average_before_after']}")
    if keys:
        print(f"\n{'kafka functions through Spark, local[1]':<54} {'keys':>10} {'median s':>9} {'keys/s':>12} "
              f"{'best keys/s':>12} {'vs loop':>8}")
        for r in keys:
            print(f"{r['case']:<54} {r['keys']:>10,} {r['seconds']:>9.3f} {r['keys_per_s']:>12,.0f} "
                  f"{r['best_keys_per_s']:>12,.0f} {r['vs_loop']:>7.1f}x")
        main_case = next(r for r in keys if r["case"] == f"kafka_partition(key, {NUM_PARTITIONS})")
        verdict = "met" if main_case["keys_per_s"] >= report["target_keys_per_s"] else "NOT met"
        print(f"kafka_partition: {main_case['keys_per_s']:,.0f} keys/s (median; best "
              f"{main_case['best_keys_per_s']:,.0f}) on one task slot, {main_case['vs_loop']:.1f}x the "
              f"pure-Python loop; target 1,000,000 keys/s {verdict}")
    if udtf:
        print(f"\n{'table functions, local[1]':<38} {'implementation':<32} {'seconds':>9} {'groups/s':>10} "
              f"{'rows/s':>10}")
    for r in udtf:
        print(f"{r['case']:<38} {r['impl']:<32} {r['seconds']:>9.2f} {r['groups_per_s']:>10,.1f} "
              f"{r['input_rows_per_s']:>10,.0f}")


if __name__ == "__main__":
    main()

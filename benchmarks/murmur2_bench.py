"""murmur2 benchmark: vectorized ``kafka_partition`` against a pure-Python loop, one core.

    python benchmarks/murmur2_bench.py            # 1M keys per case (about a minute)
    python benchmarks/murmur2_bench.py --quick    # 100k keys, for a smoke run

Cases: 1M random alphanumeric string keys of 5-40 bytes, and 1M keys of exactly 8
bytes, as a pyarrow StringArray, on 12 partitions. For each:

* ``kafka_partition`` on the whole array in one call;
* the same over 10k-row slices (Spark's default Arrow batch size for pandas UDFs);
* the same from a Python list of ``str`` (includes the list -> Arrow conversion);
* baseline: a pure-Python loop over a 100k sample, ``(murmur2_bytes(k) & 0x7fffffff) % n``
  with this package's scalar reference, and with kafka-python's ``murmur2`` when installed.

Every figure is the median of 5 runs (time.perf_counter). The process is pinned
to one CPU where the OS allows. The vectorized results are checked against the
baseline on the sample. Writes benchmarks/results/murmur2.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np
import pyarrow as pa

from spark_assign.core.producer.murmur2 import kafka_partition, murmur2_bytes

RESULTS = Path(__file__).parent / "results"
NUM_PARTITIONS = 12
REPEAT = 5
BATCH = 10_000
_ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", np.uint8)


def timed(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    """Median wall time of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def string_keys(n: int, min_len: int, max_len: int, seed: int) -> pa.Array:
    """``n`` random alphanumeric keys of ``min_len..max_len`` bytes, built without a Python loop."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_len, max_len + 1, n)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = _ALPHABET[rng.integers(0, len(_ALPHABET), int(offsets[-1]))]
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data.tobytes())])


def python_loop(keys: List[bytes], murmur: Callable[[bytes], int]) -> List[int]:
    return [(murmur(k) & 0x7FFFFFFF) % NUM_PARTITIONS for k in keys]


def kafka_python_murmur2() -> Optional[Callable[[bytes], int]]:
    try:
        from kafka.partitioner.default import murmur2
    except ImportError:
        return None
    return murmur2


def case(name: str, keys: pa.Array, sample_size: int) -> List[Dict[str, object]]:
    n = len(keys)
    rows: List[Dict[str, object]] = []
    sample = [k.encode() for k in keys.slice(0, sample_size).to_pylist()]
    as_list = keys.to_pylist()

    # Correctness on the sample before timing anything.
    expected = python_loop(sample, murmur2_bytes)
    assert kafka_partition(keys.slice(0, sample_size), NUM_PARTITIONS).tolist() == expected

    base = timed(lambda: python_loop(sample, murmur2_bytes))
    base_rate = len(sample) / base
    rows.append({"case": name, "impl": "pure-Python loop (murmur2_bytes)", "keys": len(sample),
                 "seconds": base, "keys_per_s": base_rate, "ratio": 1.0})
    kp = kafka_python_murmur2()
    if kp is not None:
        assert python_loop(sample, kp) == expected
        secs = timed(lambda: python_loop(sample, kp))
        rows.append({"case": name, "impl": "pure-Python loop (kafka-python murmur2)", "keys": len(sample),
                     "seconds": secs, "keys_per_s": len(sample) / secs,
                     "ratio": len(sample) / secs / base_rate})

    def batched() -> None:
        for i in range(0, n, BATCH):
            kafka_partition(keys.slice(i, BATCH), NUM_PARTITIONS)

    for impl, fn in (("kafka_partition, one call", lambda: kafka_partition(keys, NUM_PARTITIONS)),
                     (f"kafka_partition, {BATCH // 1000}k-row batches", batched),
                     ("kafka_partition from list[str]", lambda: kafka_partition(as_list, NUM_PARTITIONS))):
        secs = timed(fn)
        rows.append({"case": name, "impl": impl, "keys": n, "seconds": secs,
                     "keys_per_s": n / secs, "ratio": n / secs / base_rate})
    return rows


def machine() -> Dict[str, object]:
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
    }


def pin_one_core() -> Optional[int]:
    """Pin this process to one CPU (NumPy here is single-threaded anyway); the CPU or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100k keys per case")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    sample = 10_000 if args.quick else 100_000

    cpu = pin_one_core()
    load_before = os.getloadavg()
    rows = case("random strings, 5-40 bytes", string_keys(n, 5, 40, seed=1), sample)
    rows += case("strings of 8 bytes", string_keys(n, 8, 8, seed=2), sample)
    report = {"machine": machine(), "pinned_cpu": cpu, "num_partitions": NUM_PARTITIONS,
              "repeat": REPEAT, "statistic": "median",
              "load_average_before_after": [list(load_before), list(os.getloadavg())],
              "target_keys_per_s": 1_000_000, "rows": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ("murmur2-quick.json" if args.quick else "murmur2.json")).write_text(json.dumps(report, indent=2))

    print(f"machine: {report['machine']}  pinned cpu: {cpu}")
    print(f"load average before/after: {report['load_average_before_after']}")
    print(f"{'case':<28} {'implementation':<42} {'keys':>9} {'seconds':>9} {'keys/s':>12} {'vs loop':>8}")
    for r in rows:
        print(f"{r['case']:<28} {r['impl']:<42} {r['keys']:>9,} {r['seconds']:>9.4f} "
              f"{r['keys_per_s']:>12,.0f} {r['ratio']:>7.1f}x")


if __name__ == "__main__":
    main()

"""CLI benchmark: ``rebalance`` and ``what-if`` without Spark, against the same command through Spark.

    python benchmarks/cli_bench.py              # the docs/cli.md example and a 50,000-row fleet
    python benchmarks/cli_bench.py --quick      # the example only, one run each

What a user sees: each command is a whole ``spark-assign`` process (its imports,
reading the files, the engine, the Delta commit; through Spark also the session's
start), timed from outside. The baseline is the same command with ``--spark``
(the path small inputs took before). For each case the two run alternately,
``--repeat`` times after one warm-up each; medians and their ratio are
reported. Cases: docs/cli.md's example (4 subscription rows: a ``--dry-run``
that grows ``orders`` to 8 partitions, and ``what-if`` with its default
scenarios), and a fleet at the path's bound (2,500 groups of 10 members on 2
topics of 16 partitions: 50,000 rows; the same dry run). Writes
benchmarks/results/cli.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

RESULTS = Path(__file__).parent / "results"
EXAMPLE = ("group_id,member_id,topic,group_instance_id\n"
           "payments,c1,orders,\npayments,c2,orders,payments-2\naudit,a1,orders,\naudit,a1,events,\n")


def fleet_csv(path: Path, groups: int = 2500, members: int = 10) -> int:
    """A fleet's subscriptions: ``groups`` groups of ``members`` members on 2 topics; rows written."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("group_id,member_id,topic,group_instance_id\n")
        for g in range(groups):
            for m in range(members):
                for t in ("orders", "events"):
                    f.write(f"grüppe-{g:05d},grüppe-{g:05d}-consumer-{m},{t},{f'static-{m}' if m < 3 else ''}\n")
    return groups * members * 2


def wall(argv: List[str], cwd: Path) -> float:
    """Seconds one ``spark-assign`` process takes, from outside."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "spark_assign.cli", *argv], cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return seconds


def paired(case: str, argv: List[str], cwd: Path, repeat: int) -> Dict[str, object]:
    """``argv`` without Spark and with ``--spark``, alternately: medians and their ratio."""
    for extra in ([], ["--spark"]):                 # one warm-up each (file cache, JIT of nothing)
        wall(argv + extra, cwd)
    driver, spark = [], []
    for _ in range(repeat):
        driver.append(wall(argv, cwd))
        spark.append(wall(argv + ["--spark"], cwd))
    d, s = statistics.median(driver), statistics.median(spark)
    return {"case": case, "without Spark s": round(d, 3), "through Spark s": round(s, 3), "ratio": round(d / s, 4),
            "runs": repeat}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the example only, one run each")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command after the warm-up")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    repeat = 1 if args.quick else args.repeat
    folder = Path(tempfile.mkdtemp(prefix="spark-assign-cli-bench-"))
    try:
        (folder / "subscriptions.csv").write_text(EXAMPLE, encoding="utf-8")
        (folder / "topics.csv").write_text("topic,num_partitions\norders,6\nevents,2\n", encoding="utf-8")
        common = ["--subscriptions", "subscriptions.csv", "--table", "./state", "--strategy", "cooperative-sticky"]
        wall(["rebalance", *common, "--topics", "topics.csv"], folder)
        rows = [paired("rebalance --dry-run, docs/cli.md example (4 rows)",
                       ["rebalance", *common, "--topics", "orders=8,events=2", "--dry-run"], folder, repeat),
                paired("what-if, default scenarios, docs/cli.md example",
                       ["what-if", *common, "--topics", "topics.csv"], folder, repeat)]
        if not args.quick:
            n = fleet_csv(folder / "fleet.csv")
            fleet = ["--subscriptions", "fleet.csv", "--table", "./fleet", "--strategy", "cooperative-sticky",
                     "--limit", "1"]
            wall(["rebalance", *fleet, "--topics", "orders=16,events=16"], folder)
            rows.append(paired(f"rebalance --dry-run, {n:,} rows ({n // 20:,} groups)",
                               ["rebalance", *fleet, "--topics", "orders=20,events=16", "--dry-run"], folder, repeat))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = {"machine": {"python": platform.python_version(), "cores": os.cpu_count(),
                          "cpu": platform.processor() or platform.machine(), "load_average": os.getloadavg()[:2]},
              "rows": rows}
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "cli.json").write_text(json.dumps(report, indent=2))
    for r in rows:
        print(f"{r['case']:<52} {r['without Spark s']:>7.3f} s  vs {r['through Spark s']:>7.3f} s  "
              f"ratio {r['ratio']:.4f}")


if __name__ == "__main__":
    main()

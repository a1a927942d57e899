"""Load-aware assignment benchmark: a 50-generation simulation with drifting, skewed weights, and speed.

    python benchmarks/load_bench.py            # 200 members, 20 topics x 500 partitions, 50 generations
    python benchmarks/load_bench.py --quick    # 40 members, 5 x 200, 12 generations (smoke run)
    python benchmarks/load_bench.py --spark    # only the Spark fleet (10,000 groups), into the same results
    python benchmarks/load_bench.py --spark-dict   # one dict of weights for the whole fleet, on the wire or not

Simulation (per strategy, each on its own history): weights are Zipf-distributed lag (s=1.5,
capped at 200 units so no single partition outweighs a member's mean load), drifting by a 5% log-normal step per generation; from generation 10 one consumer stalls and the
lag of every partition it owns grows by twice that partition's own weight per generation (its
produce rate; moved away, that extra lag drains by half per generation); at generation 25 a hot partition appears (20
mean weights). Members claim what they got, with the generation they got it.

Per strategy: heaviest load / mean load (median and worst generation), heaviest load / lower
bound max(mean, largest weight) (median generation), partitions moved and
weight moved per generation (mean, generation 0 excluded). Targets (issue 14): load-aware's
imbalance (max/mean - 1, median) at most 1/3 of sticky's; at least 5x fewer moves than
lag-based, with imbalance no worse. Speed: 1M partitions (500 x 2,000, Zipf weights), 2,000
members, fresh, against one ``numpy.lexsort`` of the 1M (topic, partition) rows in the same run.

Spark (``--spark``): a fleet of 10,000 groups (4 members, 3 topics x 6 partitions, each group its
own Zipf lag: 180,000 weight rows made by Spark) through ``DataFrame.assign_partitions`` in one
local[2] session, side by side: ``sticky`` without weights (the baseline), ``sticky`` given the
same weight rows (which it reads and ignores: what carrying the weights costs) and ``load-aware``
with them, fresh and as a rebalance (one member left each group, the lag drifted, previous = the
fresh result); every job writes to Spark's ``noop`` sink, cases interleaved, ``--repeat`` runs
(wall seconds, and CPU seconds of the process tree: driver, JVM and Python workers). A case's
ratio is the median over runs of its time over the baseline run just before it (the ratio of the
medians is reported beside it). Target (issue 14): load-aware within 1.5x of sticky. Its rows
replace ``spark fleet`` in load.json (the simulation's results are kept).

Spark, one dict of weights (``--spark-dict``): the same fleet, every group reading the same
per-partition weights (bytes/s per partition, say), given once as a dict (which travels with the
job: each worker gives each group its topics' rows) and once as the same rows in a DataFrame
without ``group_id`` (which Spark joins onto every group's rows, 180,000 weight rows through the
shuffle: how a dict travelled before). ``load-aware`` fresh and as a rebalance, each against the
``sticky`` run just before it, as above; rows under ``spark fleet, one dict of weights``.

Writes benchmarks/results/load.json (load-quick.json for --quick) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from engine_bench import machine, timed  # noqa: E402

from spark_assign.core import Member, assign, assign_group  # noqa: E402
from spark_assign.testing import large_group  # noqa: E402

RESULTS = Path(__file__).parent / "results"
STRATEGIES = ["load-aware", "lag-based", "sticky", "range"]


def simulate(strategy: str, members: int, topics: int, partitions: int, generations: int,
             seed: int = 7) -> Dict[str, object]:
    rng = np.random.default_rng(seed)
    names = [f"t{i:02d}" for i in range(topics)]
    ids = [f"c{i:03d}" for i in range(members)]
    P = topics * partitions
    base = np.minimum(rng.zipf(1.5, P), 200).astype(float)     # heaviest below a member's mean load
    mean_w = base.mean()
    extra = np.zeros(P)
    stalled = members // 3
    hot = P // 2 + 1
    owned: Dict[str, List] = {m: [] for m in ids}
    ratios, bounds, moved, moved_w = [], [], [], []
    for gen in range(generations):
        base = base * np.exp(rng.normal(0, 0.05, P))
        w = base + extra
        if gen >= 25:
            w[hot] += 20 * mean_w
        weights = {t: w[i * partitions:(i + 1) * partitions] for i, t in enumerate(names)}
        group = [Member(m, names, owned[m], generation=gen if gen else None) for m in ids]
        result = assign(group, dict.fromkeys(names, partitions), strategy, weights=weights)
        loads = np.bincount(result.owner, weights=w, minlength=members)
        ratios.append(float(loads.max() / loads.mean()))
        bounds.append(float(loads.max() / max(loads.mean(), w.max())))
        if gen:
            was = result.status == 2
            moved.append(int(was.sum()))
            moved_w.append(float(w[was].sum() / w.sum()))
        owned = result.assignment
        # Lag dynamics: the stalled consumer's partitions grow; moved-away extra lag drains.
        if gen >= 10:
            mine = result.owner == stalled
            extra[mine] += 2 * base[mine]
            extra[~mine] *= 0.5
    return {"strategy": strategy,
            "max/mean median": statistics.median(ratios), "max/mean worst": max(ratios),
            "max/bound median": statistics.median(bounds),
            "moved per gen": statistics.mean(moved), "weight moved per gen %": 100 * statistics.mean(moved_w)}


def speed(topics: int, partitions: int, members: int, repeat: int) -> List[Dict[str, object]]:
    pt = np.repeat(np.arange(topics), partitions)
    pp = np.tile(np.arange(partitions), topics)
    base = timed(lambda: np.lexsort((pp, pt)), repeat + 2)
    spec = large_group(topics, partitions, members)
    w = np.minimum(np.random.default_rng(1).zipf(1.5, topics * partitions), 1e6).astype(float)
    weights = {t: w[i * partitions:(i + 1) * partitions] for i, t in enumerate(spec.topic_names)}
    rows: List[Dict[str, object]] = [{"case": "lexsort baseline", "seconds": base, "ratio": 1.0}]
    for strategy in ("load-aware", "lag-based"):
        t = timed(lambda: assign_group(spec, strategy, weights=weights), repeat)
        result = assign_group(spec, strategy, weights=weights)
        loads = np.bincount(result.owner, weights=w, minlength=members)
        rows.append({"case": f"{strategy} fresh", "seconds": t, "ratio": t / base,
                     "max/mean": float(loads.max() / loads.mean()),
                     "lower bound": float(max(loads.mean(), w.max()) / loads.mean())})
    return rows


def spark_fleet(groups: int, members: int, topics: int, partitions: int, repeat: int) -> List[Dict[str, object]]:
    """``sticky`` against ``load-aware`` over one fleet through Spark (see the module docstring)."""
    import os

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
    from fleet_bench import subscriptions
    from pyspark.sql import functions as F

    from spark_assign import local_session

    spark = local_session(**{"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "6g"})
    topic_map = {f"topic-{i:03d}": partitions for i in range(topics)}      # the names subscriptions() gives
    parts = spark.createDataFrame([(n, p) for n in topic_map for p in range(partitions)], "topic string, partition int")

    def measure(n_groups: int, n: int) -> Dict[str, float]:
        subs = subscriptions(spark, n_groups, members, topics).cache()
        g = subs.select("group_id").distinct()
        u = F.rand(1) * 0.999 + 0.001                      # Zipf-like lag per group and partition, capped
        weights = g.crossJoin(parts).withColumn("weight", F.least(F.floor(F.pow(u, F.lit(-2.0))), F.lit(200.0)))
        weights = weights.cache()
        drifted = weights.withColumn("weight", F.col("weight") * F.exp(F.randn(2) * 0.05)).cache()
        previous, leaving = rebalance_inputs(subs, topic_map, weights, weights, drifted)
        jobs = {
            "sticky fresh": lambda: subs.assign_partitions("sticky", topics=topic_map),
            "sticky+weights fresh": lambda: subs.assign_partitions("sticky", topics=topic_map, weights=weights),
            "load-aware fresh": lambda: subs.assign_partitions("load-aware", topics=topic_map, weights=weights),
            "sticky rebalance": lambda: leaving.assign_partitions("sticky", topics=topic_map, previous=previous),
            "sticky+weights rebalance": lambda: leaving.assign_partitions("sticky", topics=topic_map,
                                                                          weights=drifted, previous=previous),
            "load-aware rebalance": lambda: leaving.assign_partitions("load-aware", topics=topic_map,
                                                                      weights=drifted, previous=previous),
        }
        expected = n_groups * topics * partitions
        for name, make in jobs.items():         # every case assigns every partition (and warms up)
            rows = make().count()
            if rows != expected:
                raise SystemExit(f"{name}: {rows} rows, expected {expected}: the inputs do not match")
        times = interleaved(jobs, n)
        for df in (subs, weights, drifted, previous):
            df.unpersist()
        return times

    measure(200, 1)                            # warm-up: JIT and Python workers, untimed
    times = measure(groups, repeat)
    size = f"{groups:,} groups x {members} members x {topics}x{partitions}"
    return ratio_rows(times, size, ("sticky+weights", "load-aware"), target=True)


def spark_dict_weights(groups: int, members: int, topics: int, partitions: int,
                       repeat: int) -> List[Dict[str, object]]:
    """``load-aware`` with one dict of weights for the whole fleet, against the same rows given as
    a DataFrame without ``group_id`` (see the module docstring)."""
    import os
    import random

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
    from fleet_bench import subscriptions

    from spark_assign import local_session

    spark = local_session(**{"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "6g"})
    topic_map = {f"topic-{i:03d}": partitions for i in range(topics)}      # the names subscriptions() gives
    rng = random.Random(14)
    rate = {t: [min(float(int(rng.paretovariate(0.5))), 200.0) for _ in range(n)] for t, n in topic_map.items()}
    later = {t: [w * rng.lognormvariate(0, 0.05) for w in ws] for t, ws in rate.items()}

    def frame(weights: Dict[str, List[float]]):
        return spark.createDataFrame([(t, p, w) for t, ws in weights.items() for p, w in enumerate(ws)],
                                     "topic string, partition int, weight double").cache()

    def measure(n_groups: int, n: int) -> Dict[str, List[Tuple[float, float]]]:
        subs = subscriptions(spark, n_groups, members, topics).cache()
        rate_df, later_df = frame(rate), frame(later)
        previous, leaving = rebalance_inputs(subs, topic_map, rate, rate_df, later_df)
        jobs = {
            "sticky fresh": lambda: subs.assign_partitions("sticky", topics=topic_map),
            "load-aware, weights as a dict fresh": lambda: subs.assign_partitions(
                "load-aware", topics=topic_map, weights=rate),
            "load-aware, the same rows as a DataFrame fresh": lambda: subs.assign_partitions(
                "load-aware", topics=topic_map, weights=rate_df),
            "sticky rebalance": lambda: leaving.assign_partitions("sticky", topics=topic_map, previous=previous),
            "load-aware, weights as a dict rebalance": lambda: leaving.assign_partitions(
                "load-aware", topics=topic_map, weights=later, previous=previous),
            "load-aware, the same rows as a DataFrame rebalance": lambda: leaving.assign_partitions(
                "load-aware", topics=topic_map, weights=later_df, previous=previous),
        }
        for kind in ("fresh", "rebalance"):   # both forms give the same rows (and warm up)
            a, b = (sorted(map(tuple, jobs[f"load-aware, {how} {kind}"]().collect()))
                    for how in ("weights as a dict", "the same rows as a DataFrame"))
            if a != b or len(a) != n_groups * topics * partitions:
                raise SystemExit(f"{kind}: a dict and its rows as a DataFrame give different results")
        times = interleaved(jobs, n)
        for df in (subs, rate_df, later_df, previous):
            df.unpersist()
        return times

    measure(200, 1)
    times = measure(groups, repeat)
    size = f"{groups:,} groups x {members} members x {topics}x{partitions}, one dict of weights"
    return ratio_rows(times, size, ("load-aware, weights as a dict", "load-aware, the same rows as a DataFrame"))


def rebalance_inputs(subs, topic_map: Dict[str, int], weights, *cached):
    """The rebalance's inputs: the fresh ``load-aware`` result as the previous generation (cached),
    and the subscriptions after ``consumer-0000`` left each group; ``subs``, ``cached`` and the
    previous generation are materialised first."""
    previous = subs.assign_partitions("load-aware", topics=topic_map, weights=weights).drop("weight").cache()
    for df in (subs, *cached, previous):
        df.count()
    return previous, subs.where("member_id != 'consumer-0000'")


def interleaved(jobs: Dict[str, Callable[[], object]], n: int) -> Dict[str, List[Tuple[float, float]]]:
    """Wall and CPU seconds of ``n`` runs of each job, interleaved: the machine's load hits every
    case alike."""
    from fleet_bench import timed as spark_timed

    times: Dict[str, List[Tuple[float, float]]] = {k: [] for k in jobs}
    for _ in range(n):
        for name, make in jobs.items():
            times[name].append(spark_timed(make))
    return times


def ratio_rows(times: Dict[str, List[Tuple[float, float]]], size: str, cases: Tuple[str, ...],
               target: bool = False) -> List[Dict[str, object]]:
    """Per phase, the ``sticky`` baseline's row and each case's: median wall and CPU seconds, and the
    median over runs of the case's time over the ``sticky`` run just before it (the machine's drift
    hits both alike), with the ratio of the medians beside it."""
    import os

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rows: List[Dict[str, object]] = []
    for kind in ("fresh", "rebalance"):
        base = times[f"sticky {kind}"]
        rows.append({"case": f"sticky {kind}", "size": size, "seconds": statistics.median(x[0] for x in base),
                     "cpu_seconds": statistics.median(x[1] for x in base), "ratio": 1.0})
        for name in (f"{case} {kind}" for case in cases):
            ours = times[name]
            row: Dict[str, object] = {
                "case": name, "size": size, "seconds": statistics.median(x[0] for x in ours),
                "cpu_seconds": statistics.median(x[1] for x in ours),
                "ratio": statistics.median(o[0] / b[0] for o, b in zip(ours, base)),
                "ratio of medians": statistics.median(x[0] for x in ours) / statistics.median(x[0] for x in base),
                "cpu_ratio": statistics.median(o[1] / b[1] for o, b in zip(ours, base)),
                "load average": load}
            if target and name.startswith("load-aware"):
                row["target <= 1.5x"] = "met" if float(row["ratio"]) <= 1.5 else "missed"
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--spark", action="store_true", help="only the Spark fleet of 10,000 groups")
    parser.add_argument("--spark-dict", action="store_true", help="only the Spark fleet with one dict of weights")
    parser.add_argument("--groups", type=int, default=10_000, help="groups of the Spark fleet")
    parser.add_argument("--repeat", type=int, default=9, help="runs per Spark case (median)")
    args = parser.parse_args()
    if args.spark or args.spark_dict:
        path = RESULTS / "load.json"
        report = json.loads(path.read_text()) if path.exists() else {"machine": machine()}
        key, run = (("spark fleet", spark_fleet) if args.spark else
                    ("spark fleet, one dict of weights", spark_dict_weights))
        report[key] = run(args.groups, 4, 3, 6, args.repeat)
        path.write_text(json.dumps(report, indent=2) + "\n")
        for r in report[key]:
            print(r)
        return
    if args.quick:
        sim = dict(members=40, topics=5, partitions=200, generations=12)
        size, repeat = (50, 2000, 200), 1
    else:
        sim = dict(members=200, topics=20, partitions=500, generations=50)
        size, repeat = (500, 2000, 2000), 3
    rows = [simulate(s, **sim) for s in STRATEGIES]
    by = {r["strategy"]: r for r in rows}
    imb = {s: float(by[s]["max/mean median"]) - 1 for s in STRATEGIES}
    verdicts = [
        {"target": "imbalance <= 1/3 of sticky's", "value": f"{imb['load-aware']:.3f} vs {imb['sticky']:.3f}",
         "met": imb["load-aware"] <= imb["sticky"] / 3},
        {"target": ">= 5x fewer moves than lag-based",
         "value": f"{by['load-aware']['moved per gen']:.1f} vs {by['lag-based']['moved per gen']:.1f}",
         "met": 5 * float(by["load-aware"]["moved per gen"]) <= float(by["lag-based"]["moved per gen"])},
        {"target": "imbalance no worse than lag-based", "value": f"{imb['load-aware']:.3f} vs {imb['lag-based']:.3f}",
         "met": imb["load-aware"] <= imb["lag-based"]},
    ]
    report = {"machine": machine(), "quick": args.quick, **{k: v for k, v in sim.items()},
              "rows": rows, "targets": verdicts, "speed": speed(*size, repeat=repeat)}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / ("load-quick.json" if args.quick else "load.json")
    for key in ("spark fleet", "spark fleet, one dict of weights"):      # --spark's rows are kept
        if path.exists() and key in json.loads(path.read_text()):
            report[key] = json.loads(path.read_text())[key]
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"machine: {report['machine']}")
    for key in ("rows", "targets", "speed"):
        table = report[key]
        cols = list(dict.fromkeys(c for r in table for c in r))
        print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
        for r in table:
            cells = [r.get(c, "") for c in cols]
            print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in cells) + " |")


if __name__ == "__main__":
    main()

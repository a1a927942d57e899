"""Cluster balance after a change: ``sticky`` planned per cluster against per topic and Kafka's tools.

    python benchmarks/replica_balance_bench.py            # 30 clusters per case (a few minutes)
    python benchmarks/replica_balance_bench.py --quick    # 4 per change, a smoke run

Random clusters (:func:`spark_assign.testing.random_replica_cluster`: 3 to 50
brokers, 0 to 5 racks, 1 to 200 topics of 1 to 256 partitions, RF 1 to 4) are
placed by ``striped`` topic by topic (what Kafka's controller leaves, each
topic with its own seed), with lognormal loads per partition (``size_bytes``,
``bytes_in``, ``bytes_out``: a few partitions carry most). Then a change
(:data:`~spark_assign.testing.CLUSTER_CHANGES`: a broker joins, a broker
leaves, a rack joins), or none on a skewed cluster: skewed counts (every topic
placed by ``admin-utils`` from a fixed start, so their rounding piles up on the
same brokers) or skewed loads (partitions led by a third of the brokers ten
times heavier). Each plan, on the new brokers:

* ``sticky`` per cluster (:func:`~spark_assign.core.replicas.cluster.place_sticky_cluster`), by counts;
* ``sticky`` with loads (the same, then the goal search over the three loads, :mod:`~spark_assign.core.replicas.goals`);
* ``sticky`` per topic (``place_replicas`` topic by topic, the engine before it);
* ``admin-utils`` and ``striped`` from scratch (``kafka-reassign-partitions
  --generate`` and the controller's placer: Kafka's answer to "rebalance my cluster").

Per plan, summed or worst over the clusters: replicas moved (on a broker new to
their partition), against the bound (``sticky`` per cluster: the integer
program's optimum, the fewest any plan meeting its balance rules needs);
preferred leaders changed; the spreads (max - min per broker, worst cluster) of
replicas and leaders; ``off level``: the replicas above the ceiling of their
broker's cluster level (the most even counts the racks allow; 0 is balanced);
and per load the heaviest broker over the mean (worst cluster; ``bytes_out``
counts on leaders only).

Writes benchmarks/results/replica_balance.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_bench import machine  # noqa: E402

from spark_assign.core import Broker, place_replicas  # noqa: E402
from spark_assign.core.replicas.cluster import place_sticky_cluster  # noqa: E402
from spark_assign.core.replicas.fleet import place_topics, topic_seed  # noqa: E402
from spark_assign.core.replicas.loads import LoadOptions  # noqa: E402
from spark_assign.core.replicas.targets import broker_levels, floor_ceil, rack_layout  # noqa: E402
from spark_assign.testing import CLUSTER_CHANGES, ReplicaCluster, change_cluster, random_replica_cluster  # noqa: E402

RESULTS = Path(__file__).parent / "results"
CASES = CLUSTER_CHANGES + ("none (skewed counts)", "none (skewed loads)")
PLANS = ("sticky, per cluster", "sticky with loads", "sticky, per topic", "admin-utils from scratch",
         "striped from scratch")
LOAD_NAMES = ("size_bytes", "bytes_in", "bytes_out")

Plan = List[np.ndarray]          # per topic, (partitions, RF) broker ids


def before(cluster: ReplicaCluster, case: str) -> Plan:
    """The placement the change starts from."""
    out = []
    for name, count, rf in zip(cluster.names, cluster.partitions.tolist(), cluster.replication_factors.tolist()):
        if case == "none (skewed counts)":
            out.append(place_replicas(cluster.brokers, count, rf, method="admin-utils", start_index=0).broker_ids)
        else:
            out.append(place_replicas(cluster.brokers, count, rf, seed=topic_seed(0, None, name)).broker_ids)
    return out


def loads_of(cluster: ReplicaCluster, prev: Plan, case: str, seed: int) -> Dict[str, List[np.ndarray]]:
    """Per-partition loads, lognormal (a few partitions carry most): ``size_bytes`` (median 500 MB),
    ``bytes_in`` (median 1 MB/s) and ``bytes_out`` (1 to 3 times the bytes in). For the skewed-loads
    case, partitions led by the lower-numbered third of the brokers are ten times heavier."""
    rng = np.random.default_rng(seed)
    counts = cluster.partitions.tolist()
    size = [rng.lognormal(20, 1.5, c) for c in counts]
    bytes_in = [rng.lognormal(14, 1, c) for c in counts]
    bytes_out = [b * rng.uniform(1, 3, len(b)) for b in bytes_in]
    if case == "none (skewed loads)":
        ids = sorted(b.id for b in cluster.brokers)
        heavy = set(ids[:max(1, len(ids) // 3)])
        for t, m in enumerate(prev):
            factor = np.where(np.isin(m[:, 0], list(heavy)), 10.0, 1.0)
            size[t], bytes_in[t], bytes_out[t] = size[t] * factor, bytes_in[t] * factor, bytes_out[t] * factor
    return {"size_bytes": size, "bytes_in": bytes_in, "bytes_out": bytes_out}


def plans(cluster: ReplicaCluster, brokers: List[Broker], prev: Plan, factors: np.ndarray,
          loads: Dict[str, List[np.ndarray]]) -> Dict[str, tuple]:
    """Each plan of :data:`PLANS`: (per-topic placements, seconds, bound or None)."""
    out: Dict[str, tuple] = {}
    counts, names = cluster.partitions, cluster.names
    t0 = time.perf_counter()
    plan = place_sticky_cluster(brokers, counts, factors, prev, None, names)
    out[PLANS[0]] = ([b.broker_ids for b in plan.blocks], time.perf_counter() - t0, plan.bound)
    t0 = time.perf_counter()
    plan = place_sticky_cluster(brokers, counts, factors, prev, None, names, LoadOptions(loads))
    out[PLANS[1]] = ([b.broker_ids for b in plan.blocks], time.perf_counter() - t0, None)
    t0 = time.perf_counter()
    per_topic = [place_replicas(brokers, int(c), int(rf), method="sticky", previous=p).broker_ids
                 for c, rf, p in zip(counts, factors, prev)]
    out[PLANS[2]] = (per_topic, time.perf_counter() - t0, None)
    for label, method in ((PLANS[3], "admin-utils"), (PLANS[4], "striped")):
        t0 = time.perf_counter()
        rows = place_topics(brokers, names, counts, factors, method=method)
        out[label] = (split(rows.broker_id, counts, factors), time.perf_counter() - t0, None)
    return out


def split(cells: np.ndarray, counts: np.ndarray, factors: np.ndarray) -> Plan:
    ends = np.cumsum(counts * factors)
    return [part.reshape(int(c), int(rf)) for part, c, rf in zip(np.split(cells, ends[:-1]), counts, factors)]


def figures(placed: Plan, prev: Optional[Plan], brokers: List[Broker], factors: np.ndarray,
            counts: np.ndarray, loads: Dict[str, List[np.ndarray]]) -> Dict[str, float]:
    """Moves, leaders changed, spreads, replicas off level and, per load, the heaviest broker over
    the mean, for one cluster's placement."""
    ids = np.array(sorted(b.id for b in brokers))
    cells = np.concatenate([m.ravel() for m in placed])
    leaders = np.concatenate([m[:, 0] for m in placed])
    replicas = np.bincount(np.searchsorted(ids, cells), minlength=len(ids))
    led = np.bincount(np.searchsorted(ids, leaders), minlength=len(ids))
    level = np.zeros(len(ids))
    layouts: Dict[int, object] = {}
    for c, rf in zip(counts.tolist(), factors.tolist()):
        layout = layouts.setdefault(rf, rack_layout(brokers, rf, None))
        level += broker_levels(layout, c, rf)          # type: ignore[arg-type]
    _, ceil = floor_ceil(level)
    out: Dict[str, float] = {"replica_spread": int(np.ptp(replicas)), "leader_spread": int(np.ptp(led)),
                             "off_level": int(np.maximum(replicas - ceil, 0).sum())}
    for name in LOAD_NAMES:
        values = np.concatenate([np.repeat(v, m.shape[1] if name != "bytes_out" else 1)
                                 for v, m in zip(loads[name], placed)])
        where = cells if name != "bytes_out" else leaders
        total = np.bincount(np.searchsorted(ids, where), weights=values, minlength=len(ids))
        out[f"{name}_max_over_mean"] = float(total.max() / total.mean()) if total.mean() else 1.0
    if prev is not None:
        out["moved"] = sum(int((~(m[:, :, None] == p[:, None, :]).any(axis=2)).sum()) for m, p in zip(placed, prev))
        out["leaders_changed"] = sum(int((m[:, 0] != p[:, 0]).sum()) for m, p in zip(placed, prev))
    return out


def run(clusters: int, seed: int, progress: Callable[[str], None]) -> List[Dict[str, object]]:
    rows: List[Dict[str, object]] = []
    for case in CASES:
        totals: Dict[str, Dict[str, float]] = {p: {} for p in ("before",) + PLANS}
        for k in range(clusters):
            cluster = random_replica_cluster(seed * 1000 + k)
            brokers = cluster.brokers if case.startswith("none") else change_cluster(cluster.brokers, case, k)
            factors = np.minimum(cluster.replication_factors, len(brokers))
            prev = before(cluster, case)
            loads = loads_of(cluster, prev, case, seed * 1000 + k)
            old = figures(prev, None, cluster.brokers, cluster.replication_factors, cluster.partitions, loads)
            _add(totals["before"], old, 0.0, None)
            for label, (placed, seconds, bound) in plans(cluster, brokers, prev, factors, loads).items():
                _add(totals[label], figures(placed, prev, brokers, factors, cluster.partitions, loads), seconds,
                     bound)
        progress(f"{case}: done")
        for label, t in totals.items():
            row: Dict[str, object] = {"change": case, "plan": label}
            for key in ("moved", "bound", "leaders_changed", "replica_spread", "leader_spread", "off_level",
                        *[f"{name}_max_over_mean" for name in LOAD_NAMES], "seconds"):
                if key in t:
                    row[key] = t[key] if key != "seconds" else round(t[key], 2)
            if "bound" in t and t["bound"]:
                row["moved_vs_bound"] = round(t["moved"] / t["bound"], 3)
            rows.append(row)
    return rows


def _add(total: Dict[str, float], figures: Dict[str, float], seconds: float, bound: Optional[int]) -> None:
    """Sums (moves, leaders, off level, bound, seconds) and worst cases (spreads, loads)."""
    for key, value in figures.items():
        if key.endswith("spread") or key.endswith("over_mean"):
            total[key] = max(total.get(key, 0), value)
        else:
            total[key] = total.get(key, 0) + value
    if seconds:
        total["seconds"] = total.get("seconds", 0.0) + seconds
    if bound is not None:
        total["bound"] = total.get("bound", 0) + bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 clusters per change (a smoke run)")
    parser.add_argument("--clusters", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    clusters = 4 if args.quick else args.clusters
    rows = run(clusters, args.seed, lambda line: print(line, file=sys.stderr))
    result = {"machine": {**machine(), "clusters_per_change": clusters, "seed": args.seed,
                          "brokers": "3 to 50", "racks": "0 to 5", "topics": "1 to 200",
                          "partitions": "1 to 256", "replication_factor": "1 to 4"},
              "rows": rows}
    if not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "replica_balance.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    keys = ["change", "plan", "moved", "bound", "moved_vs_bound", "leaders_changed", "replica_spread",
            "leader_spread", "off_level", *[f"{name}_max_over_mean" for name in LOAD_NAMES], "seconds"]
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(str(row.get(k, "")) for k in keys))


if __name__ == "__main__":
    main()

"""Replica reassignment benchmark: ``sticky`` against Kafka's from-scratch placements, in one process.

    python benchmarks/replica_bench.py            # full sizes (about half a minute)
    python benchmarks/replica_bench.py --quick    # smaller sizes, for a smoke run

Cases (what ``kafka-reassign-partitions --generate`` does is a from-scratch
``AdminUtils.assignReplicasToBrokers`` on the new broker list):

* 1 broker joins a 12-broker cluster (10,000 partitions x RF 3, no racks);
* a rack of 4 brokers leaves (16 brokers on 4 racks -> 12 on 3, 10,000 x RF 3).

The previous placement is ``admin-utils`` on the old cluster (seed 1). For each:
replicas moved (replicas on a broker new to their partition) and preferred
leaders changed by ``sticky``, ``admin-utils`` and ``striped`` from scratch (seed 1),
the lower bound of moves (:func:`spark_assign.core.moves_lower_bound`), the
balance (max - min replicas and leaders per broker), and the time of ``sticky``
against one ``numpy.lexsort`` of as many rows as replicas, measured in the same
run (ratio). Speed rows: 1M partitions x RF 3 on 1,000 brokers placed by
``admin-utils`` (rack-unaware, and on 10 racks) and ``striped`` (10 racks), and
reassigned by ``sticky`` after one broker joins, against a ``numpy.lexsort`` of
1M rows.

Writes benchmarks/results/replicas.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_bench import machine, timed  # noqa: E402

from spark_assign.core import Broker, moves_lower_bound, place_replicas  # noqa: E402
from spark_assign.core.replicas.sticky import check_previous, reassignment  # noqa: E402

RESULTS = Path(__file__).parent / "results"


def lexsort_time(rows: int, repeat: int) -> float:
    """One ``numpy.lexsort`` of ``rows`` (two int64 keys), the baseline."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 1 << 30, rows), rng.integers(0, 1 << 30, rows)
    return timed(lambda: np.lexsort((b, a)), repeat)


def spread(counts: Dict[int, int]) -> int:
    values = list(counts.values())
    return max(values) - min(values)


def change_case(name: str, old: Sequence[Broker], new: Sequence[Broker], partitions: int, rf: int,
                repeat: int) -> List[Dict[str, object]]:
    previous = place_replicas(list(old), partitions, rf, method="admin-utils", seed=1)
    before = check_previous(previous, partitions)
    bound = moves_lower_bound(previous, list(new), rf)
    base = lexsort_time(partitions * rf, repeat + 2)
    rows: List[Dict[str, object]] = []
    for method in ("sticky", "admin-utils", "striped"):
        if method == "sticky":
            result = place_replicas(list(new), partitions, rf, method="sticky", previous=previous)
            seconds = timed(lambda: place_replicas(list(new), partitions, rf, method="sticky", previous=previous),
                            repeat)
        else:
            result = reassignment(place_replicas(list(new), partitions, rf, method=method, seed=1), before, None)
            seconds = timed(lambda: place_replicas(list(new), partitions, rf, method=method, seed=1), repeat)
        rows.append({
            "case": name, "method": method if method == "sticky" else f"{method} from scratch",
            "replicas moved": result.replicas_moved, "lower bound": bound,
            "moved / bound": round(result.replicas_moved / bound, 3) if bound else None,
            "leaders changed": result.leaders_changed,
            "replicas max-min": spread(result.replicas_per_broker()),
            "leaders max-min": spread(result.leaders_per_broker()),
            "seconds": seconds, "vs lexsort": seconds / base,
        })
    return rows


def speed_rows(partitions: int, brokers: int, repeat: int) -> List[Dict[str, object]]:
    base = lexsort_time(partitions, repeat + 2)
    cluster = [Broker(i) for i in range(brokers)]
    t_admin = timed(lambda: place_replicas(cluster, partitions, 3, method="admin-utils", seed=1), repeat)
    racked = [Broker(i, rack=f"rack-{i % 10}") for i in range(brokers)]
    t_admin_racks = timed(lambda: place_replicas(racked, partitions, 3, method="admin-utils", seed=1), repeat)
    t_striped = timed(lambda: place_replicas(racked, partitions, 3, method="striped", seed=1), 1)
    previous = place_replicas(cluster, partitions, 3, method="admin-utils", seed=1)
    joined = cluster + [Broker(brokers)]
    t_sticky = timed(lambda: place_replicas(joined, partitions, 3, method="sticky", previous=previous), repeat)
    moved = place_replicas(joined, partitions, 3, method="sticky", previous=previous)
    size = f"{partitions:,} x RF 3 / {brokers:,} brokers"
    return [
        {"case": "lexsort baseline", "size": f"{partitions:,} rows", "seconds": base, "vs lexsort": 1.0},
        {"case": "admin-utils, no racks", "size": size, "seconds": t_admin, "vs lexsort": t_admin / base},
        {"case": "admin-utils, 10 racks", "size": size, "seconds": t_admin_racks, "vs lexsort": t_admin_racks / base},
        {"case": "striped, 10 racks", "size": size, "seconds": t_striped, "vs lexsort": t_striped / base,
         "note": "stretches between reshuffles as arrays (one run)"},
        {"case": "sticky, 1 broker joins", "size": size, "seconds": t_sticky, "vs lexsort": t_sticky / base,
         "note": f"{moved.replicas_moved:,} moved (bound {moved.lower_bound:,}), "
                 f"{moved.leaders_changed:,} leaders changed"},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    partitions, big, repeat = (2_000, 100_000, 1) if args.quick else (10_000, 1_000_000, 3)
    load_before = os.getloadavg()[0]          # other work on the machine skews seconds, not ratios
    twelve = [Broker(i) for i in range(12)]
    racked = [Broker(i, rack=f"rack-{i % 4}") for i in range(16)]
    rows = change_case("1 broker joins 12", twelve, twelve + [Broker(12)], partitions, 3, repeat)
    rows += change_case("a rack of 4 leaves (16 on 4 racks -> 12 on 3)", racked,
                        [b for b in racked if b.rack != "rack-3"], partitions, 3, repeat)
    speed = speed_rows(big, 1_000, repeat)
    report = {"machine": {**machine(), "load_average": f"{load_before:.0f} to {os.getloadavg()[0]:.0f}"},
              "partitions": partitions, "replication_factor": 3, "rows": rows, "speed": speed}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ("replicas-quick.json" if args.quick else "replicas.json")).write_text(json.dumps(report, indent=2))
    print(f"machine: {report['machine']}")
    print(f"{partitions:,} partitions x RF 3")
    print(f"{'case':<46} {'method':<24} {'moved':>7} {'bound':>7} {'leaders':>8} {'rep max-min':>11} "
          f"{'lead max-min':>12} {'seconds':>8} {'vs lexsort':>10}")
    for r in rows:
        print(f"{r['case']:<46} {r['method']:<24} {r['replicas moved']:>7,} {r['lower bound']:>7,} "
              f"{r['leaders changed']:>8,} {r['replicas max-min']:>11} {r['leaders max-min']:>12} "
              f"{r['seconds']:>8.4f} {r['vs lexsort']:>9.1f}x")
    print()
    print(f"{'case':<26} {'size':<34} {'seconds':>8} {'vs lexsort':>10}  note")
    for r in report["speed"]:
        print(f"{r['case']:<26} {r['size']:<34} {r['seconds']:>8.3f} {r['vs lexsort']:>9.1f}x  {r.get('note', '')}")


if __name__ == "__main__":
    main()

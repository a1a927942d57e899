"""Engine benchmark: one process, side by side, ratios against baselines measured in the same run.

    python benchmarks/engine_bench.py            # full sizes (about a minute)
    python benchmarks/engine_bench.py --quick    # smaller sizes, for a smoke run

Cases (Kafka's AbstractStickyAssignorTest large tests):

* 1M: 500 topics x 2,000 partitions, 2,000 members, identical subscriptions:
  fresh ``sticky``, then a rebalance after one member leaves (the others
  claim what they got); ``range`` and ``roundrobin`` fresh. Baseline:
  ``numpy.lexsort`` of the 1M (topic, partition) pairs.
* the same with the last member subscribed to one topic only (the general builder).
* kafka-python's assignors (pure Python) at a size they finish (range and roundrobin also
  at the 1M size, timed from Member objects and from the columnar input): range must give
  identical output; speed ratios reported.
* peak memory of the 1M sticky fresh + rebalance, in a child process.

Writes benchmarks/results/engine.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import numpy as np

from spark_assign.core import GroupInput, Member, assign, assign_group
from spark_assign.testing import large_group, with_owned

RESULTS = Path(__file__).parent / "results"


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def machine() -> Dict[str, object]:
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
    }


def large_cases(topics: int, partitions: int, members: int, repeat: int) -> List[Dict[str, object]]:
    rows: List[Dict[str, object]] = []
    pt = np.repeat(np.arange(topics), partitions)
    pp = np.tile(np.arange(partitions), topics)
    base = timed(lambda: np.lexsort((pp, pt)), repeat + 2)
    size = f"{topics}x{partitions} / {members} members"
    rows.append({"case": "lexsort baseline", "size": size, "seconds": base, "ratio": 1.0})
    for single in (False, True):
        label = "non-uniform" if single else "uniform"
        spec = large_group(topics, partitions, members, single_topic_last=single)
        fresh = assign_group(spec, "sticky")
        t_fresh = timed(lambda: assign_group(spec, "sticky"), repeat)
        leave = with_owned(spec, fresh, generation=1, leave=[spec.member_ids[0]])
        t_leave = timed(lambda: assign_group(leave, "sticky"), repeat)
        after = assign_group(leave, "sticky")
        counts = after.counts()
        rows.append({"case": f"sticky fresh ({label})", "size": size, "seconds": t_fresh, "ratio": t_fresh / base})
        rows.append({"case": f"sticky member leaves ({label})", "size": size, "seconds": t_leave,
                     "ratio": t_leave / base, "note": f"counts {counts.min()}..{counts.max()}, "
                     f"{int((after.status == 1).sum())} kept"})
    spec = large_group(topics, partitions, members)
    for strategy in ("range", "roundrobin"):
        t = timed(lambda: assign_group(spec, strategy), repeat)
        rows.append({"case": f"{strategy} fresh", "size": size, "seconds": t, "ratio": t / base})
    return rows


# ------------------------------------------------------------ kafka-python

_Member = namedtuple("_Member", "member_id group_instance_id metadata")
_Metadata = namedtuple("_Metadata", "version topics user_data")


class _Cluster:
    """The two ``ClusterMetadata`` methods kafka-python's assignors call."""

    def __init__(self, topics: Dict[str, int]) -> None:
        self._topics = topics

    def topics(self):
        return set(self._topics)

    def partitions_for_topic(self, topic):
        n = self._topics.get(topic)
        return None if n is None else set(range(n))


def kafka_python_cases(num_topics: int, partitions: int, members: int,
                       strategies: Sequence[str] = ("range", "roundrobin", "sticky")) -> List[Dict[str, object]]:
    """Our engine against kafka-python's assignors on the same group, timed from each one's own input
    objects (kafka-python's member metadata; our :class:`Member` list) and, for ours, also from the
    columnar :class:`GroupInput` the Spark layer passes (``columnar_seconds``, ``columnar_speedup``)."""
    try:
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
        from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
    except ImportError:
        return [{"case": "kafka-python", "note": "not installed (pip install '.[bench]')"}]
    topics = {f"t{i:03d}": partitions for i in range(num_topics)}
    ids = [f"c{i:04d}" for i in range(members)]
    ours_members = [Member(m, topics=list(topics)) for m in ids]
    kp_members = [_Member(m, None, _Metadata(0, list(topics), b"")) for m in ids]
    cluster = _Cluster(topics)
    size = f"{num_topics}x{partitions} / {members} members"
    rows: List[Dict[str, object]] = []
    impls = {
        "range": lambda: RangePartitionAssignor.assign(cluster, kp_members),
        "roundrobin": lambda: RoundRobinPartitionAssignor.assign(cluster, kp_members),
        "sticky": lambda: StickyPartitionAssignor().assign(cluster, kp_members),
    }
    spec = GroupInput.from_members(ours_members, topics)
    for strategy, kp in impls.items():
        if strategy not in strategies:
            continue
        t0 = time.perf_counter()
        kp_out = kp()
        t_kp = time.perf_counter() - t0
        ours = assign(ours_members, topics, strategy)
        t_ours = timed(lambda: assign(ours_members, topics, strategy), 3)
        t_columnar = timed(lambda: assign_group(spec, strategy), 3)
        note = ""
        if strategy in ("range", "roundrobin"):
            same = all(
                sorted((t, p) for t, ps in kp_out[m].assignment for p in ps) == sorted(ours.assignment[m])
                for m in ids
            )
            note = "identical output" if same else "OUTPUT DIFFERS"
        rows.append({"case": f"{strategy} vs kafka-python", "size": size, "seconds": t_ours,
                     "baseline_seconds": t_kp, "speedup": t_kp / t_ours, "columnar_seconds": t_columnar,
                     "columnar_speedup": t_kp / t_columnar, "note": note})
    return rows


# ------------------------------------------------------------ memory


def _peak_memory_child(topics: int, partitions: int, members: int) -> None:
    spec = large_group(topics, partitions, members)
    fresh = assign_group(spec, "sticky")
    assign_group(with_owned(spec, fresh, generation=1, leave=[spec.member_ids[0]]), "sticky")
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def peak_memory(topics: int, partitions: int, members: int) -> Dict[str, object]:
    out = subprocess.run([sys.executable, __file__, "--memory-child", str(topics), str(partitions), str(members)],
                         capture_output=True, text=True, check=True)
    mib = int(out.stdout.strip().splitlines()[-1]) / 1024
    return {"case": "peak RSS, sticky fresh + rebalance", "size": f"{topics}x{partitions} / {members} members",
            "mib": round(mib, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--memory-child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        _peak_memory_child(*args.memory_child)
        return
    sizes = (50, 200, 200) if args.quick else (500, 2000, 2000)
    kp_sizes = (5, 100, 50) if args.quick else (10, 500, 500)
    rows = large_cases(*sizes, repeat=1 if args.quick else 3)
    rows += kafka_python_cases(*kp_sizes)
    rows += kafka_python_cases(*sizes, strategies=("range", "roundrobin"))   # kafka-python's sticky cannot
    rows.append(peak_memory(*sizes))
    report = {"machine": machine(), "rows": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ("engine-quick.json" if args.quick else "engine.json")).write_text(json.dumps(report, indent=2))
    print(f"machine: {report['machine']}")
    print(f"{'case':<38} {'size':<28} {'seconds':>9} {'vs baseline':>12}  note")
    for r in rows:
        if "mib" in r:
            print(f"{r['case']:<38} {r['size']:<28} {r['mib']:>7} MiB")
            continue
        if "speedup" in r:
            ratio = f"{r['speedup']:.0f}x faster"
            if "columnar_speedup" in r:
                ratio += f" ({r['columnar_speedup']:.0f}x columnar)"
        elif "ratio" in r:
            ratio = f"{r['ratio']:.2f}x"
        else:
            ratio = ""
        secs = f"{r['seconds']:.3f}" if "seconds" in r else ""
        print(f"{r['case']:<38} {r.get('size', ''):<28} {secs:>9} {ratio:>12}  {r.get('note', '')}")


if __name__ == "__main__":
    main()

"""KIP-848 server-side assignors (`uniform`, `server-range`) against Kafka's JMH numbers.

    python benchmarks/uniform_bench.py                   # full sizes (a few minutes)
    python benchmarks/uniform_bench.py --quick           # 1,000 members, a smoke run
    python benchmarks/uniform_bench.py --profile "uniform heterogeneous full 1000"

Inputs follow Kafka's ``ServerSideAssignorBenchmark`` (jmh-benchmarks, see
/work/notes/uniform_spec.md section 9): 10,000 members ``member0..``, partitions
= members x 10 (100,000), spread over 10, 100 or 1,000 topics ``topic-0..``.
Homogeneous: everyone subscribes to every topic. Heterogeneous: members and
topics cut into 5 consecutive buckets; a bucket's members subscribe to its
topics. FULL: nobody owns anything. INCREMENTAL: assign ``members - 1`` members
(not timed), make that everyone's current assignment, add ``newMember`` (all
topics, or the last bucket's), and time that assignment.

Timed: ``assign_group(GroupInput, strategy)``, median of ``--repeat`` runs, with
``time.perf_counter`` (also the min, and the median CPU time from
``time.process_time``, which a busy machine inflates less). That includes validating and encoding the input, which
Kafka's JMH does not time (its GroupSpec is built in setup), so the column
``pre-encoded ms`` also times the strategy on an already encoded group.
Writes benchmarks/results/uniform.json (or uniform-quick.json) and prints a table.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from spark_assign.core import GroupInput, assign_group, get_strategy
from spark_assign.core.consumer.context import Context
from spark_assign.core.consumer.encode import encode
from spark_assign.core.consumer.result import AssignmentResult
from spark_assign.testing import with_owned

RESULTS = Path(__file__).parent / "results"
BUCKETS = 5
RATIO = 10

#: Kafka's published ms/op for (strategy, subscription, assignment, members, ratio, topics).
#: "after" columns of the PRs that last changed each builder; hardware not stated.
KAFKA_MS: Dict[Tuple[str, str, str, int, int, int], Tuple[float, str]] = {
    ("uniform", "homogeneous", "full", 10000, 10, 10): (2.602, "apache/kafka#19677"),
    ("uniform", "homogeneous", "full", 10000, 10, 100): (2.884, "apache/kafka#19677"),
    ("uniform", "homogeneous", "full", 10000, 10, 1000): (3.158, "apache/kafka#19677"),
    ("uniform", "homogeneous", "incremental", 10000, 10, 10): (1.041, "apache/kafka#19677"),
    ("uniform", "homogeneous", "incremental", 10000, 10, 100): (1.112, "apache/kafka#19677"),
    ("uniform", "homogeneous", "incremental", 10000, 10, 1000): (1.374, "apache/kafka#19677"),
    ("uniform", "heterogeneous", "full", 10000, 10, 10): (8.923, "apache/kafka#17385"),
    ("uniform", "heterogeneous", "full", 10000, 10, 100): (22.947, "apache/kafka#17385"),
    ("uniform", "heterogeneous", "full", 10000, 10, 1000): (340.0, "the issue (approx.; cf. 10000/5/1000 = 202.7 in #17385)"),
    ("server-range", "homogeneous", "full", 10000, 50, 1000): (26.2, "apache/kafka#19677"),
    ("server-range", "heterogeneous", "full", 10000, 50, 1000): (124.0, "apache/kafka#19677"),
    ("server-range", "homogeneous", "incremental", 10000, 50, 1000): (24.4, "apache/kafka#19677"),
    ("server-range", "heterogeneous", "incremental", 10000, 50, 1000): (114.9, "apache/kafka#19677"),
}


def build_group(members: int, topics: int, partitions: int, heterogeneous: bool) -> GroupInput:
    """Kafka's JMH group, columnar: ``member{i}`` subscribed to ``topic-{j}``."""
    if heterogeneous:
        buckets = min(BUCKETS, members)
        per_member, per_topic = -(-members // buckets), -(-topics // buckets)
        m = np.arange(members, dtype=np.int64)
        lo = (m // per_member) * per_topic                       # first topic of each member's bucket
        width = np.maximum(np.minimum(lo + per_topic, topics) - lo, 0)
        sub_member = np.repeat(m, width)
        sub_topic = np.repeat(lo - np.cumsum(width) + width, width) + np.arange(int(width.sum()))
    else:
        sub_member = np.repeat(np.arange(members, dtype=np.int64), topics)
        sub_topic = np.tile(np.arange(topics, dtype=np.int64), members)
    return GroupInput(member_ids=[f"member{i}" for i in range(members)],
                      topic_names=[f"topic-{j}" for j in range(topics)],
                      topic_counts=np.full(topics, partitions, dtype=np.int64),
                      sub_member=sub_member, sub_topic=sub_topic)


def add_member(spec: GroupInput, member_id: str, topics: np.ndarray) -> GroupInput:
    """``spec`` plus one member owning nothing (Kafka's "newMember")."""
    row = len(spec.member_ids)
    generations = list(spec.generations) if spec.generations is not None else [None] * row
    return GroupInput(
        member_ids=list(spec.member_ids) + [member_id], topic_names=spec.topic_names,
        topic_counts=spec.topic_counts,
        sub_member=np.concatenate([spec.sub_member, np.full(len(topics), row, dtype=np.int64)]),
        sub_topic=np.concatenate([spec.sub_topic, topics]),
        claim_member=spec.claim_member, claim_topic=spec.claim_topic, claim_partition=spec.claim_partition,
        generations=generations + [None])


def case_input(strategy: str, heterogeneous: bool, incremental: bool, members: int, ratio: int,
               topics: int) -> GroupInput:
    partitions = members * ratio // topics
    if not incremental:
        return build_group(members, topics, partitions, heterogeneous)
    before = build_group(members - 1, topics, partitions, heterogeneous)
    owned = with_owned(before, assign_group(before, strategy), generation=1)
    like = np.asarray(before.sub_member) == members - 2           # the new member subscribes like the last
    return add_member(owned, "newMember", np.asarray(before.sub_topic)[like])


def timed(fn: Callable[[], object], repeat: int) -> Tuple[float, float, float]:
    """Median and min wall time, and median CPU time, of ``repeat`` runs, in milliseconds.
    On a busy machine CPU time shows what the call costs without waiting for a core."""
    wall, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def pre_encoded(spec: GroupInput, strategy: str) -> Callable[[], object]:
    """The strategy alone, on a group encoded beforehand (what Kafka's JMH times)."""
    group, chosen = encode(spec), get_strategy(strategy)

    def run() -> AssignmentResult:
        ctx = Context(group)
        return AssignmentResult.build(ctx, chosen.name, chosen.run(ctx))
    return run


def cases(quick: bool) -> List[Tuple[str, str, str, int, int, int]]:
    members = 1000 if quick else 10000
    out = []
    for strategy in ("uniform", "server-range"):
        for subscription in ("homogeneous", "heterogeneous"):
            for assignment in ("full", "incremental"):
                for topics in (10, 100, 1000):
                    out.append((strategy, subscription, assignment, members, RATIO, topics))
    if not quick:            # the only published server-range numbers are for ratio 50
        out += [k for k in KAFKA_MS if k[0] == "server-range"]
    return out


def run_case(key: Tuple[str, str, str, int, int, int], repeat: int) -> Dict[str, object]:
    strategy, subscription, assignment, members, ratio, topics = key
    spec = case_input(strategy, subscription == "heterogeneous", assignment == "incremental",
                      members, ratio, topics)
    result = assign_group(spec, strategy)
    ours, best, cpu = timed(lambda: assign_group(spec, strategy), repeat)
    engine, _, _ = timed(pre_encoded(spec, strategy), repeat)
    kafka, source = KAFKA_MS.get(key, (None, ""))
    counts = result.counts()
    return {"strategy": strategy, "subscription": subscription, "assignment": assignment,
            "members": members, "partitions": members * ratio // topics * topics, "topics": topics,
            "ours_ms": round(ours, 2), "ours_min_ms": round(best, 2), "ours_cpu_ms": round(cpu, 2),
            "pre_encoded_ms": round(engine, 2),
            "kafka_ms": kafka, "kafka_source": source,
            "ratio": round(ours / kafka, 1) if kafka else None,
            "moved": int((result.status == 2).sum()), "spread": int(counts.max() - counts.min())}


def profile(name: str, quick: bool) -> None:
    """cProfile one case, named like ``"uniform heterogeneous full 1000"``."""
    for key in cases(quick):
        if " ".join([key[0], key[1], key[2], str(key[5])]) == name:
            spec = case_input(key[0], key[1] == "heterogeneous", key[2] == "incremental", *key[3:])
            cProfile.runctx("assign_group(spec, strategy)", globals(), {"spec": spec, "strategy": key[0]},
                            "/tmp/uniform_bench.prof")
            pstats.Stats("/tmp/uniform_bench.prof").sort_stats("cumulative").print_stats(30)
            return
    raise SystemExit(f"no case {name!r}; cases look like 'uniform heterogeneous full 1000'")


def machine() -> Dict[str, object]:
    return {"python": platform.python_version(), "numpy": np.__version__,
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "platform": platform.platform(), "load_average": [round(x, 2) for x in os.getloadavg()]}


def print_table(rows: List[Dict[str, object]]) -> None:
    head = (f"{'strategy':<13}{'subscription':<14}{'assign':<12}{'topics':>6}{'partitions':>11}"
            f"{'ours ms':>9}{'min ms':>8}{'cpu ms':>8}{'pre-enc ms':>11}{'kafka ms':>10}{'ours/kafka':>11}"
            f"  moved spread")
    print(head)
    print("-" * len(head))
    for r in rows:
        kafka = f"{r['kafka_ms']:.3g}" if r["kafka_ms"] else "-"
        ratio = f"{r['ratio']}x" if r["ratio"] else "-"
        print(f"{r['strategy']:<13}{r['subscription']:<14}{r['assignment']:<12}{r['topics']:>6}"
              f"{r['partitions']:>11,}{r['ours_ms']:>9.1f}{r['ours_min_ms']:>8.1f}{r['ours_cpu_ms']:>8.1f}"
              f"{r['pre_encoded_ms']:>11.1f}"
              f"{kafka:>10}{ratio:>11}  {r['moved']:>5} {r['spread']:>6}")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 members instead of 10,000")
    parser.add_argument("--repeat", type=int, default=5, help="runs per case (median reported)")
    parser.add_argument("--profile", metavar="CASE", help="cProfile one case instead")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.quick)
        return
    rows = [run_case(key, args.repeat) for key in cases(args.quick)]
    report = {"machine": machine(), "repeat": args.repeat, "rows": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ("uniform-quick.json" if args.quick else "uniform.json")).write_text(json.dumps(report, indent=2))
    print(f"machine: {report['machine']}")
    print_table(rows)


if __name__ == "__main__":
    main()

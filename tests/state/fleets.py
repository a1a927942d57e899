"""Fleets and checks shared by the state-table tests (and their subprocesses)."""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Dict, List, Tuple

# The fleet generators live in the package (benchmarks use them too).
from spark_assign.testing import FLEET_SCHEMA as SUBS, churn_rows as churn, fleet_rows  # noqa: F401


def check_generation(rows, subscriptions: List[tuple], topics: Dict[str, int], cooperative: bool) -> List[str]:
    """Validity of one generation's rows against its subscriptions; balance unless a transfer is pending."""
    problems = []
    subs: Dict[str, Dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for g, m, t, _ in subscriptions:
        subs[g][m].add(t)
    owners: Dict[Tuple[str, str, int], str] = {}
    per_group: Dict[str, List] = defaultdict(list)
    for r in rows:
        per_group[r.group_id].append(r)
        key = (r.group_id, r.topic, r.partition)
        if key in owners:
            problems.append(f"{key} appears twice")
        owners[key] = r.member_id
    for g, members in subs.items():
        wanted = {(g, t, p) for ts in members.values() for t in ts for p in range(topics[t])}
        got = {(r.group_id, r.topic, r.partition) for r in per_group.get(g, [])}
        if wanted != got:
            problems.append(f"{g}: partitions {sorted(wanted ^ got)[:3]} missing or extra")
        counts = {m: 0 for m in members}
        pending = False
        for r in per_group.get(g, []):
            if r.member_id is None:
                pending = True
                if not cooperative:
                    problems.append(f"{g}: {r.topic}-{r.partition} unowned")
                continue
            if r.topic not in members.get(r.member_id, ()):
                problems.append(f"{g}: {r.member_id} got {r.topic}-{r.partition} without subscribing")
            counts[r.member_id] += 1
        if pending:
            continue
        for r in per_group.get(g, []):
            lighter = [m for m, ts in members.items() if r.topic in ts and counts[m] + 1 < counts[r.member_id]]
            if lighter:
                problems.append(f"{g}: {r.topic}-{r.partition} could move from {r.member_id} to {lighter[0]}")
                break
    return problems


def table_files(folder) -> List[str]:
    """Every file under a table's folder (log, data, heads), relative to it, sorted: equal before
    and after an operation that must write nothing."""
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, files in os.walk(folder) for f in files)

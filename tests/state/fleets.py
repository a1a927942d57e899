"""Fleets and checks shared by the state-table tests (and their subprocesses)."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Dict, List, Tuple

SUBS = "group_id string, member_id string, topic string, group_instance_id string"


def fleet_rows(groups: int, seed: int, members: int = 4, topics: int = 3, prefix: str = "g") -> List[tuple]:
    """Subscription rows of a fleet: every group subscribes members to random non-empty topic subsets."""
    rng = random.Random(seed)
    names = [f"t{i}" for i in range(topics)]
    rows = []
    for g in range(groups):
        for m in range(members):
            subs = rng.sample(names, rng.randint(1, topics))
            static = f"s{g}-{m}" if m == 0 else None
            rows += [(f"{prefix}{g:05d}", f"{prefix}{g:05d}-m{m}", t, static) for t in subs]
    return rows


def churn(rows: List[tuple], seed: int, share: float, topics: int = 3) -> List[tuple]:
    """Change ``share`` of the groups: a member leaves, one joins, or a subscription changes."""
    rng = random.Random(seed)
    by_group: Dict[str, List[tuple]] = defaultdict(list)
    for r in rows:
        by_group[r[0]].append(r)
    names = [f"t{i}" for i in range(topics)]
    out = []
    for gid, grows in sorted(by_group.items()):
        if rng.random() < share:
            kind = rng.choice(["leave", "join", "subscribe"])
            members = sorted({r[1] for r in grows})
            if kind == "leave" and len(members) > 1:
                gone = rng.choice(members)
                grows = [r for r in grows if r[1] != gone]
            elif kind == "join":
                new = f"{gid}-j{seed}"
                grows = grows + [(gid, new, t, None) for t in rng.sample(names, rng.randint(1, topics))]
            else:
                who = rng.choice(members)
                mine = {r[2] for r in grows if r[1] == who}
                extra = [t for t in names if t not in mine]
                if extra:
                    grows = grows + [(gid, who, extra[0], next(r[3] for r in grows if r[1] == who))]
        out += grows
    return out


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

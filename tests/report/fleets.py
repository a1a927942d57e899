"""State rows for the report tests: hand-built, simulated with the engine, and synthetic at scale."""

from __future__ import annotations

import random
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from spark_assign.core import Member, assign
from spark_assign.schema import STATE_COLUMNS

COLUMNS = [name for name, _ in STATE_COLUMNS]
STICKY, COOP = "sticky", "cooperative-sticky"


def _row(strategy: str, group: str, gen: int, member: Optional[str], topic: str, partition: int,
         previous: Optional[str], status: str, instance: Optional[str] = None) -> dict:
    return dict(group_id=group, generation=gen, member_id=member, topic=topic, partition=partition,
                previous_member_id=previous, status=status, strategy=strategy, group_instance_id=instance,
                committed_at=pd.Timestamp(f"2024-05-0{gen} 12:00", tz="UTC"), input_fingerprint=f"{group}:{gen}")


def small_rows() -> pd.DataFrame:
    """The same two-member group ``g1`` under sticky and cooperative-sticky, plus two more groups.

    * sticky g1: gen 1 a={0,1} b={2,3}; gen 2 c joins and t0-1 moves a -> c.
    * sticky g2: gen 2 only, d owns t1-0 and t1-1 (static member ``static-d``).
    * cooperative g1: gen 2 a revokes t0-1 (pending); gen 3 c gets it (assigned).
    * cooperative g3: gen 3 e keeps t2-0, f revokes t2-1, its only partition.
    """
    r = _row
    rows = [
        r(STICKY, "g1", 1, "a", "t0", 0, None, "new"), r(STICKY, "g1", 1, "a", "t0", 1, None, "new"),
        r(STICKY, "g1", 1, "b", "t0", 2, None, "new"), r(STICKY, "g1", 1, "b", "t0", 3, None, "new"),
        r(STICKY, "g1", 2, "a", "t0", 0, "a", "kept"), r(STICKY, "g1", 2, "c", "t0", 1, "a", "moved"),
        r(STICKY, "g1", 2, "b", "t0", 2, "b", "kept"), r(STICKY, "g1", 2, "b", "t0", 3, "b", "kept"),
        r(STICKY, "g2", 2, "d", "t1", 0, None, "new", "static-d"),
        r(STICKY, "g2", 2, "d", "t1", 1, None, "new", "static-d"),
        r(COOP, "g1", 1, "a", "t0", 0, None, "new"), r(COOP, "g1", 1, "a", "t0", 1, None, "new"),
        r(COOP, "g1", 1, "b", "t0", 2, None, "new"), r(COOP, "g1", 1, "b", "t0", 3, None, "new"),
        r(COOP, "g1", 2, "a", "t0", 0, "a", "kept"), r(COOP, "g1", 2, None, "t0", 1, "a", "revoked"),
        r(COOP, "g1", 2, "b", "t0", 2, "b", "kept"), r(COOP, "g1", 2, "b", "t0", 3, "b", "kept"),
        r(COOP, "g1", 3, "a", "t0", 0, "a", "kept"), r(COOP, "g1", 3, "c", "t0", 1, None, "assigned"),
        r(COOP, "g1", 3, "b", "t0", 2, "b", "kept"), r(COOP, "g1", 3, "b", "t0", 3, "b", "kept"),
        r(COOP, "g3", 3, "e", "t2", 0, "e", "kept"), r(COOP, "g3", 3, None, "t2", 1, "f", "revoked"),
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _result_rows(result, strategy: str, gid: str, gen: int, pending: set, when: pd.Timestamp) -> Tuple[List[dict], set]:
    names, owners, status = result.group.member_ids, result.owner_names(), result.status_names()
    rows, revoked = [], set()
    for i, st in enumerate(status):
        topic = result.group.topic_names[result.topic[i]]
        tp = (topic, int(result.partition[i]))
        owner = names[result.owner[i]] if result.owner[i] >= 0 else None
        prev = owners[result.previous_owner[i]] if result.previous_owner[i] >= 0 else None
        if st == "new" and tp in pending:  # the engine's Member API does not carry pending transfers
            st = "assigned"
        if st == "revoked":
            revoked.add(tp)
        rows.append(dict(group_id=gid, generation=gen, member_id=owner, topic=topic, partition=tp[1],
                         previous_member_id=prev, status=st, strategy=strategy, group_instance_id=None,
                         committed_at=when, input_fingerprint=f"{gid}:{gen}"))
    return rows, revoked


def simulate(n_groups: int = 20, generations: int = 6, strategies: Sequence[str] = (STICKY, COOP),
             seed: int = 0, change: float = 0.35) -> pd.DataFrame:
    """A fleet run through the real engine: members join and leave; the same events for every strategy.

    A group is rebalanced in a generation when its membership changes, or when a
    cooperative rebalance left transfers pending: then, with the same members, it
    is a follow-up and keeps its input fingerprint. Every generation of the
    fleet is one round (``committed_at``) for every strategy.
    """
    base = pd.Timestamp("2024-06-01 08:00", tz="UTC")
    fleet = []
    for g in range(n_groups):
        rng = random.Random(f"{seed}-{g}")
        topics = {f"topic-{g % 7}-{t}": rng.randint(2, 24) for t in range(rng.randint(1, 3))}
        fleet.append((f"group-{g:05d}", topics, rng.randint(1, 6)))
    rows: List[dict] = []
    for strategy in strategies:
        for gid, topics, size in fleet:
            members = [f"{gid}-c{i}" for i in range(size)]
            next_id, owned, pending, fingerprint = size, {}, set(), ""
            for gen in range(1, generations + 1):
                rng = random.Random(f"{seed}-{gid}-{gen}")
                event = gen == 1 or rng.random() < change
                if not event and not pending:
                    continue
                if event and gen > 1:
                    if rng.random() < 0.5 and len(members) > 1:
                        members.remove(rng.choice(members))
                    else:
                        members.append(f"{gid}-c{next_id}")
                        next_id += 1
                result = assign([Member(m, topics=list(topics), owned=owned.get(m, []), generation=gen - 1)
                                 for m in members], topics, strategy)
                new_rows, pending = _result_rows(result, strategy, gid, gen, pending,
                                                 base + pd.Timedelta(minutes=15 * gen))
                if event:
                    fingerprint = f"{gid}:{gen}"
                rows += [dict(r, input_fingerprint=fingerprint) for r in new_rows]
                owned = {m: list(v) for m, v in result.assignment.items()}
    return pd.DataFrame(rows, columns=COLUMNS)


def synthetic_fleet(groups: int = 10_000, generations: int = 4, partitions: int = 3,
                    strategies: Sequence[str] = (STICKY, COOP), seed: int = 1) -> pd.DataFrame:
    """A large fleet, fast: every group in generation 1, then about 30% per generation; random statuses."""
    rng = np.random.default_rng(seed)
    frames = []
    names = np.array([f"group-{g:05d}" for g in range(groups)], dtype=object)
    for strategy in strategies:
        gen_grid = np.repeat(np.arange(1, generations + 1), groups)
        grp_grid = np.tile(np.arange(groups), generations)
        keep = (gen_grid == 1) | (rng.random(len(gen_grid)) < 0.3)
        gen = np.repeat(gen_grid[keep], partitions)
        grp = np.repeat(grp_grid[keep], partitions)
        part = np.tile(np.arange(partitions), int(keep.sum()))
        size = 1 + grp % 3
        status = np.where(gen == 1, "new", rng.choice(["kept", "moved", "revoked", "assigned"], len(gen),
                                                      p=[0.8, 0.1, 0.05, 0.05]))
        member = np.char.add("c", (part % size).astype(str)).astype(object)
        frames.append(pd.DataFrame({
            "group_id": names[grp], "generation": gen, "member_id": np.where(status == "revoked", None, member),
            "topic": "events", "partition": part, "previous_member_id": member, "status": status,
            "strategy": strategy, "group_instance_id": None,
            "committed_at": pd.Timestamp("2024-01-01", tz="UTC") + pd.to_timedelta(gen, unit="h"),
            "input_fingerprint": "x", "weight": None, "members": None}))
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def expected_metrics() -> Dict[Tuple[str, int, int], dict]:
    """metrics(small_rows()), worked out by hand, by (strategy, step, follow-up round).

    Every generation of small_rows() has inputs of its own (fingerprints differ): no follow-ups, and
    the rounds (``committed_at``) are days 1, 2, 3 for both strategies, so steps are the generations.
    """
    return {
        (COOP, 1, 0): dict(groups_rebalanced=1, follow_ups=0, groups_with_moves=0, partitions=4, new=4, kept=0, moved=0, revoked=0,
                        assigned=0, members_mean=2.0, members_max=2, spread_mean=0.0, spread_max=0),
        (COOP, 2, 0): dict(groups_rebalanced=1, follow_ups=0, groups_with_moves=1, partitions=4, new=0, kept=3, moved=0, revoked=1,
                        assigned=0, members_mean=2.0, members_max=2, spread_mean=1.0, spread_max=1),
        (COOP, 3, 0): dict(groups_rebalanced=2, follow_ups=0, groups_with_moves=1, partitions=6, new=0, kept=4, moved=0, revoked=1,
                        assigned=1, members_mean=2.5, members_max=3, spread_mean=1.0, spread_max=1),
        (STICKY, 1, 0): dict(groups_rebalanced=1, follow_ups=0, groups_with_moves=0, partitions=4, new=4, kept=0, moved=0,
                          revoked=0, assigned=0, members_mean=2.0, members_max=2, spread_mean=0.0, spread_max=0),
        (STICKY, 2, 0): dict(groups_rebalanced=2, follow_ups=0, groups_with_moves=1, partitions=6, new=2, kept=3, moved=1,
                          revoked=0, assigned=0, members_mean=2.0, members_max=3, spread_mean=0.5, spread_max=1),
    }


def simulate_load(generations: int = 6, strategies: Sequence[str] = (STICKY, "load-aware"), seed: int = 3,
                  groups: int = 4) -> pd.DataFrame:
    """A fleet with drifting Zipf lag, a member stalling from generation 2 and a hot partition from
    generation 4 (:class:`~spark_assign.scenario.LagModel`), run through the engine; every group
    re-planned every generation (as ``simulate`` does with lag), each row with its weight."""
    from spark_assign.scenario import LagModel, Scenario, generate

    scenario = Scenario(groups=groups, members=4, topics=2, partitions=10, generations=generations, lag="zipf",
                        stall_at=2, hot_partition_at=4, seed=seed)
    model = LagModel(scenario)
    base = pd.Timestamp("2024-07-01 08:00", tz="UTC")
    rows: List[dict] = []
    owned: Dict[str, Dict[str, Dict[str, list]]] = {s: {} for s in strategies}
    owners: Dict[str, Dict[tuple, Optional[str]]] = {s: {} for s in strategies}
    for gen in generate(scenario):
        for strategy in strategies:
            lag = model.weights(gen, strategy, owners[strategy])
            for g, members in gen.groups.items():
                mine = owned[strategy].get(g, {})
                result = assign([Member(m.member_id, topics=list(m.topics), owned=mine.get(m.member_id, []),
                                        generation=gen.number - 1 if gen.number > 1 else None) for m in members],
                                gen.topics, strategy, weights=lag[g])
                new_rows, _ = _result_rows(result, strategy, g, gen.number, set(),
                                           base + pd.Timedelta(minutes=15 * gen.number))
                for r in new_rows:
                    r["weight"] = lag[g][r["topic"]][r["partition"]]
                    r["input_fingerprint"] = f"{g}:{gen.number}"
                    owners[strategy][(g, r["topic"], r["partition"])] = r["member_id"]
                rows += new_rows
                owned[strategy][g] = {m: list(v) for m, v in result.assignment.items()}
    return pd.DataFrame(rows, columns=COLUMNS)

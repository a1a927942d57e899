"""Run one fleet through several strategies, generation after generation, and compare.

::

    from spark_assign.compare import compare_strategies, render_table
    from spark_assign.scenario import Scenario

    rows = compare_strategies(Scenario(groups=3, members=4, generations=4, joins=1, seed=1))
    print(render_table(rows))

:func:`compare_strategies` returns one dict per (generation, strategy) with the
metrics below, summed (or, for balance, summarised) over the fleet's groups;
:func:`render_table` shows them side by side; :func:`to_frame` makes a pandas
DataFrame of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

if TYPE_CHECKING:
    import pandas

from .core.java.limits import check_count
from .core import AssignmentResult, Member, assign, get_strategy
from .core.consumer.checks import balance_violations, moves, validity_errors
from .errors import InvalidInputError
from .scenario import Generation, Scenario, ScenarioMember, generate

__all__ = ["compare_strategies", "render_table", "to_frame", "METRICS"]

TopicPartition = Tuple[str, int]

#: The metrics of a row, in column order, and what they mean.
METRICS = {
    "members": "members in the fleet",
    "partitions": "partitions the groups subscribe to (summed over groups)",
    "moved": "partitions taken from a member that is still there and given to another",
    "pending": "partitions withheld for a follow-up rebalance (cooperative-sticky)",
    "new": "partitions nobody present owned before: new, or of members that left",
    "rebalances": "rebalances the busiest group needed to settle (follow-ups included)",
    "spread_max": "max - min partitions per member in the worst group (report.metrics.balance)",
    "spread_mean": "max - min partitions per member, mean over groups (report.metrics.balance)",
    "unbalanced_groups": "groups where a partition could go to a subscriber with 2+ fewer",
}


@dataclass
class _GroupState:
    """What one group remembers between generations, for one strategy."""

    owned: Mapping[str, List[TopicPartition]] = field(default_factory=dict)   # member id -> partitions
    holder: Dict[str, str] = field(default_factory=dict)                   # instance id -> member id
    generation: int = 0                                                    # rebalances so far


def compare_strategies(
    scenario: Scenario,
    strategies: Sequence[str] = ("cooperative-sticky", "uniform"),
    max_follow_ups: int = 4,
) -> List[Dict[str, object]]:
    """Assign every generation of ``scenario`` with each strategy; one metrics dict per row.

    Each strategy sees the same fleet (same members, topics and churn). Per group:

    * every member claims what the previous generation gave it, with the Kafka
      generation id of that rebalance (generation ids count the group's
      rebalances, as Kafka's do). New members claim nothing.
    * A static member that crashed comes back with a new member id and the same
      ``group_instance_id``; it claims the partitions of its old member id.
      That is what Kafka does: the classic coordinator hands a rejoining static
      member its previous assignment, and the KIP-848 coordinator lets the new
      member id inherit the old one's target assignment. Members that left, and
      dynamic members that crashed, take their claims with them: those
      partitions count as ``new``.
    * A cooperative strategy (KIP-429) withholds the partitions that change
      owner; Kafka then rebalances again at once. We run those follow-up
      rebalances (at most ``max_follow_ups``) within the same generation, so the
      balance shown is the settled one and ``rebalances`` counts them.

    Rows come in generation order, strategies in the given order within a
    generation; the keys are ``generation``, ``strategy``, ``events`` and the
    :data:`METRICS`. The spread is :func:`~spark_assign.report.consumer.metrics.balance`'s,
    the definition of the report and the CLI.

    Example::

        rows = compare_strategies(Scenario(groups=2, members=3, generations=3, joins=1), ["sticky", "uniform"])
        rows[-1]["spread_max"]   # the worst group's max - min partitions per member at generation 3
    """
    if isinstance(strategies, str) or not strategies:
        raise InvalidInputError("strategies must be a non-empty list of strategy names", column="strategies",
                                rows=[strategies])
    check_count(max_follow_ups, "max_follow_ups", maximum=None)
    names = [get_strategy(s).name for s in strategies]
    states: Dict[str, Dict[str, _GroupState]] = {s: {} for s in names}
    rows: List[Dict[str, object]] = []
    for gen in generate(scenario):
        racks = gen.partition_racks()
        for strategy in names:
            per_group = [_rebalance(states[strategy].setdefault(group, _GroupState()), members, gen.topics,
                                    racks, strategy, max_follow_ups)
                         for group, members in gen.groups.items()]
            rows.append(_row(gen, strategy, per_group))
    return rows


def _rebalance(state: _GroupState, members: List[ScenarioMember], topics: Dict[str, int],
               racks: Optional[dict], strategy: str, max_follow_ups: int) -> Dict[str, Any]:
    """One group's rebalance in one generation (plus cooperative follow-ups); updates ``state``."""
    claims: Dict[str, List[TopicPartition]] = {}
    returning = set()
    for m in members:
        previous_id = m.member_id if m.member_id in state.owned else None
        if previous_id is None and m.group_instance_id is not None:
            previous_id = state.holder.get(m.group_instance_id)     # a static member that restarted
        if previous_id is not None:
            claims[m.member_id] = state.owned[previous_id]
            returning.add(m.member_id)
    result = _assign(members, claims, returning, state.generation, topics, strategy, racks)
    metrics: Dict[str, Any] = {"moved": moves(result), "pending": int((result.owner < 0).sum()),
               "new": int((result.previous_owner < 0).sum()), "rebalances": 1}
    while (result.owner < 0).any() and metrics["rebalances"] <= max_follow_ups:
        state.generation += 1
        result = _assign(members, result.assignment, {m.member_id for m in members}, state.generation,
                         topics, strategy, racks)
        metrics["moved"] += moves(result)
        metrics["rebalances"] += 1
    state.generation += 1
    errors = validity_errors(result)
    if errors:
        raise RuntimeError(f"{strategy} produced an invalid assignment: {errors}")
    state.owned = result.assignment
    state.holder = {m.group_instance_id: m.member_id for m in members if m.group_instance_id}
    metrics.update(members=len(members), partitions=len(result.owner), counts=result.counts(),
                   unbalanced=bool(balance_violations(result)))
    return metrics


def _assign(members: List[ScenarioMember], claims: Mapping[str, List[TopicPartition]], returning: set,
            generation: int, topics: Dict[str, int], strategy: str, racks: Optional[dict]) -> AssignmentResult:
    engine_members = [
        Member(m.member_id, topics=m.topics, owned=claims.get(m.member_id, ()),
               generation=generation if m.member_id in returning else None,
               instance_id=m.group_instance_id, rack=m.rack)
        for m in members
    ]
    return assign(engine_members, topics, strategy, partition_racks=racks)


def _spreads(groups: List[Dict[str, Any]]) -> List[int]:
    """The spread of each group with members, by :func:`~spark_assign.report.consumer.metrics.balance` (the one
    definition, as in the report and the CLI): every member counts, one owning nothing at 0."""
    import pandas as pd

    from .report.consumer.metrics import balance

    sizes = [len(g["counts"]) for g in groups]
    if not sum(sizes):
        return []
    owned = pd.DataFrame({"group": np.repeat(np.arange(len(groups)), sizes),
                          "member_id": np.concatenate([np.arange(n) for n in sizes]),
                          "n": np.concatenate([g["counts"] for g in groups]).astype("int64")})
    return [int(v) for v in balance(owned, ["group"], count="n")["spread"]]


def _row(gen: Generation, strategy: str, groups: List[Dict[str, Any]]) -> Dict[str, object]:
    spreads = _spreads(groups)
    counts = gen.event_counts()
    plural = {"join": "joins", "leave": "leaves", "crash": "crashes"}
    events = ", ".join(f"{n} {kind if n == 1 else plural[kind]}" for kind, n in counts.items() if n)
    growth = sum(gen.growth.values())
    if growth:
        events = ", ".join(filter(None, [events, f"+{growth} partitions"]))
    return {
        "generation": gen.number,
        "strategy": strategy,
        "events": events or ("start" if gen.number == 1 else "-"),
        "members": sum(int(g["members"]) for g in groups),
        "partitions": sum(int(g["partitions"]) for g in groups),
        "moved": sum(int(g["moved"]) for g in groups),
        "pending": sum(int(g["pending"]) for g in groups),
        "new": sum(int(g["new"]) for g in groups),
        "rebalances": max(int(g["rebalances"]) for g in groups),
        "spread_max": max(spreads) if spreads else 0,
        "spread_mean": round(float(np.mean(spreads)), 2) if spreads else 0.0,
        "unbalanced_groups": sum(bool(g["unbalanced"]) for g in groups),
    }


#: Short strategy names for table headers.
_SHORT = {"cooperative-sticky": "coop"}


def render_table(
    rows: Sequence[Dict[str, object]],
    metrics: Sequence[str] = ("moved", "pending", "rebalances", "spread_max"),
    markdown: bool = True,
) -> str:
    """The rows of :func:`compare_strategies` side by side: one line per generation,
    one column per (strategy, metric). Markdown (aligned) or plain text.

    Example::

        print(render_table(compare_strategies(Scenario(generations=3, joins=1)), metrics=("moved", "spread_max")))
    """
    for m in metrics:
        if m not in METRICS:
            raise InvalidInputError(f"unknown metric; valid metrics are: {', '.join(METRICS)}",
                                    column="metrics", rows=[m])
    strategies = list(dict.fromkeys(str(r["strategy"]) for r in rows))
    by_key = {(r["generation"], r["strategy"]): r for r in rows}
    header = ["gen", "events", "members", "partitions"]
    header += [f"{_SHORT.get(s, s)} {m}" for s in strategies for m in metrics]
    lines = []
    for gen in dict.fromkeys(r["generation"] for r in rows):
        first = by_key[(gen, strategies[0])]
        cells = [gen, first["events"], first["members"], first["partitions"]]
        cells += [by_key[(gen, s)][m] if (gen, s) in by_key else "" for s in strategies for m in metrics]
        lines.append([str(c) for c in cells])
    widths = [max(len(row[i]) for row in [header] + lines) for i in range(len(header))]

    def fmt(cells: List[str]) -> str:
        padded = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(padded) + " |" if markdown else "  ".join(padded).rstrip()

    rule = ["-" * w if i < 2 else "-" * (w - 1) + ":" for i, w in enumerate(widths)]
    out = [fmt(header), fmt(rule) if markdown else "  ".join(rule)] + [fmt(line) for line in lines]
    return "\n".join(out)


def to_frame(rows: Sequence[Dict[str, object]]) -> "pandas.DataFrame":  # noqa: F821
    """The rows as a pandas DataFrame indexed by (generation, strategy).

    Example::

        to_frame(compare_strategies(Scenario(generations=2))).loc[(2, "uniform"), "moved"]
    """
    import pandas

    return pandas.DataFrame(list(rows)).set_index(["generation", "strategy"])

"""The report's load section (rows with weights, see :mod:`.load`): imbalance, weight moved and one
group's load per member, step by step, per strategy."""

from __future__ import annotations

import zlib
from html import escape
from typing import Dict, List, Sequence, Tuple

import pandas as pd

from ..charts import Colours, figure, legend, line_key, slots_of, swatch_key
from .load import member_loads
from ..svg import Series, Slot, Stack, bar_chart, line_chart

__all__ = ["load_figures", "LOAD_COMPARISONS", "load_totals", "featured_groups", "MAX_MEMBER_LINES"]

#: (column of :func:`load_totals`, label, lower is better?): rows the strategy comparison adds with weights.
LOAD_COMPARISONS: List[Tuple[str, str, bool]] = [
    ("imbalance_mean", "Mean load imbalance (heaviest / mean)", True),
    ("imbalance_max", "Worst load imbalance", True),
    ("vs_bound_mean", "Mean heaviest load / lower bound", True),
    ("weight_moved_share", "Weight moved per step (share)", True),
]
#: Members drawn in a group's load chart at most (the heaviest ones).
MAX_MEMBER_LINES = 12


def load_totals(per_group: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy: the load figures of :data:`LOAD_COMPARISONS` over all generations
    (``per_group``: :attr:`~spark_assign.report.consumer.metrics.Figures.load_per_group`)."""
    weighed = per_group[per_group["total_weight"].notna()]
    by = weighed.groupby("strategy", sort=True)
    out = by.agg(imbalance_mean=("imbalance", "mean"), imbalance_max=("imbalance", "max"),
                 vs_bound_mean=("vs_bound", "mean"), weight_moved=("weight_moved", "sum"),
                 total_weight=("total_weight", "sum"))
    out["weight_moved_share"] = (out["weight_moved"] / out["total_weight"].where(out["total_weight"] > 0)).fillna(0.0)
    return out


def featured_groups(per_group: pd.DataFrame) -> Dict[str, str]:
    """The group whose load per member is drawn, per strategy: the first strategy's group with the
    worst imbalance, and the same group under the others where it exists (a simulation prefixes
    group ids with the strategy: ``sticky/g0``), else their own worst."""
    weighed = per_group[per_group["total_weight"].notna()]
    worst = weighed.sort_values(["imbalance", "group_id"], ascending=[False, True], kind="stable")
    out: Dict[str, str] = {}
    strategies = sorted(weighed["strategy"].unique())
    if not strategies:
        return out
    first = worst[worst["strategy"] == strategies[0]]["group_id"].iloc[0]
    bare = first[len(strategies[0]) + 1:] if first.startswith(strategies[0] + "/") else first
    for s in strategies:
        mine = set(weighed.loc[weighed["strategy"] == s, "group_id"])
        same = next((g for g in (f"{s}/{bare}", bare) if g in mine), None)
        out[s] = same or worst[worst["strategy"] == s]["group_id"].iloc[0]
    return out


def _values(m: pd.DataFrame, strategy: str, column: str, scale: float = 1.0) -> Dict[Slot, float]:
    mine = m[m["strategy"] == strategy]
    return {(int(a), int(b)): float(v) * scale for a, b, v in zip(mine["step"], mine["follow_up"], mine[column])
            if v == v}


def load_figures(lm: pd.DataFrame, rows: pd.DataFrame, everyone: pd.DataFrame, steps: pd.DataFrame,
                 per_group: pd.DataFrame, colours: Colours) -> List[str]:
    """The load charts (``lm``: per-step load figures; ``rows``, ``everyone``, ``steps``: the
    rows, the members and the steps of every generation, for one group's load per member)."""
    slots = slots_of(lm)
    strategies = [s for s in colours if s in set(lm["strategy"])]
    x_label = "Step (f/u: follow-up)" if any(f for _, f in slots) else "Step"

    def lines(parts: Sequence[Tuple[str, str, str]]) -> List[Series]:
        return [Series(key, label, s, colours[s], _values(lm, s, key), style)
                for s in strategies for key, label, style in parts]

    imbalance = line_chart(
        "imbalance-chart", "Load imbalance per step",
        "Heaviest member's load over the group's mean load (1 is perfect): mean over groups and the worst group.",
        slots, lines([("imbalance_mean", "mean imbalance", "solid"), ("imbalance_max", "worst imbalance", "dashed")]),
        y_label="Heaviest / mean load", x_label=x_label)
    bound = line_chart(
        "bound-chart", "Heaviest load against the lower bound",
        "Heaviest member's load over max(mean load, largest weight), which no assignment beats (1 is optimal).",
        slots, lines([("vs_bound_mean", "mean", "solid"), ("vs_bound_max", "worst group", "dashed")]),
        y_label="Heaviest / lower bound", x_label=x_label)
    moved = bar_chart(
        "weight-moved-chart", "Weight moved per step",
        "Share of the rebalanced groups' weight (lag) on partitions that changed owner (moved or revoked).",
        slots, [Stack(s, colours[s], [Series("weight_moved_share", "weight moved (%)", s, colours[s],
                                             _values(lm, s, "weight_moved_share", 100.0))]) for s in strategies],
        y_label="Weight moved (%)", x_label=x_label)
    note = " Where strategies coincide, the line drawn first shows as a wider outline."
    out = [
        figure("imbalance-figure", "Load imbalance", "Heaviest / mean load per group, step by step." + note,
                legend(colours, [line_key("solid", "mean of groups"), line_key("dashed", "worst group")]),
                imbalance),
        figure("bound-figure", "Against the lower bound",
                "Heaviest load / max(mean load, largest weight): how far from the best any assignment could do."
                + note, legend(colours, [line_key("solid", "mean of groups"), line_key("dashed", "worst group")]),
                bound),
        figure("weight-moved-figure", "Weight moved",
                "Lag moved costs a consumer restart: the share of the weight that changed owner at each step.",
                legend(colours, [swatch_key("solid", "weight moved")]), moved),
    ]
    for s, group in featured_groups(per_group).items():
        out.append(_member_chart(rows, everyone, steps, s, group, colours[s]))
    return out


def _member_chart(rows: pd.DataFrame, everyone: pd.DataFrame, steps: pd.DataFrame, strategy: str, group: str,
                   colour: str) -> str:
    """One group's load per member, a line per member (the heaviest :data:`MAX_MEMBER_LINES`), and
    the group's lower bound dashed."""
    loads = member_loads(rows, everyone, strategy, group, steps)
    loads = loads[loads["step"].notna()].astype({"step": "int64", "follow_up": "int64"})
    heaviest = loads.groupby("member_id")["load"].max().sort_values(ascending=False)
    shown = list(heaviest.index[:MAX_MEMBER_LINES])
    slots = sorted({(int(a), int(b)) for a, b in zip(loads["step"], loads["follow_up"])})
    series = [Series(f"member:{m}", m, strategy, colour,
                     {(int(a), int(b)): float(v) for a, b, v in loads.loc[loads["member_id"] == m,
                                                                            ["step", "follow_up", "load"]].values})
              for m in shown]
    safe = "".join(c if c.isascii() and (c.isalnum() or c == "-") else "_" for c in strategy)
    key = zlib.crc32("\0".join((strategy, group)).encode("utf-8"))
    chart_id = f"members-load-{safe}-{key:08x}"
    svg = line_chart(chart_id, f"Load per member of {group} ({strategy})",
                     "Each line is one member's load (the sum of its partitions' weights) at each step.",
                     slots, series, y_label="Load", x_label="Step")
    more = f" The {MAX_MEMBER_LINES} heaviest of {len(heaviest)} members." if len(heaviest) > MAX_MEMBER_LINES else ""
    return figure(f"{chart_id}-figure", f"Load per member: {group}",
                   f"Under {strategy}: each line is a member of {group}; lines far apart are an unbalanced "
                   f"group.{more}", f'<ul class="legend"><li>{escape(strategy)}</li></ul>', svg)

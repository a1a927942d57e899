"""The report's figures: overview charts, the strategy comparison and sparklines.

Each ``*_figure`` function returns an HTML ``<figure>`` holding a heading, a
one-line explanation, a legend and the SVG chart (see :mod:`.svg`).
"""

from __future__ import annotations

from html import escape
from typing import Dict, List, Optional, Sequence, Tuple

import pandas as pd

from .legend import STATUS_MEANINGS
from .svg import Series, Slot, Stack, bar_chart, fmt, line_chart, tint

__all__ = ["overview_figures", "compare_figure", "strategy_totals", "sparkline", "slots_of", "COMPARISONS", "figure",
           "legend", "swatch_key", "line_key", "Colours"]

Colours = Dict[str, str]

_X_LABEL = "Step (f/u: its cooperative follow-up)"


def slots_of(m: pd.DataFrame) -> List[Slot]:
    """The x axis of per-step figures (:func:`~spark_assign.report.consumer.metrics.metrics`): every
    ``(step, follow_up)`` any strategy has, in order.

    Example::

        slots_of(metrics(rows))   # [(1, 0), (2, 0), (2, 1), (3, 0)]
    """
    return sorted({(int(s), int(f)) for s, f in zip(m["step"], m["follow_up"])})


def _values(m: pd.DataFrame, strategy: str, column: str) -> Dict[Slot, float]:
    sub = m[m["strategy"] == strategy]
    return {(int(s), int(f)): float(v) for s, f, v in zip(sub["step"], sub["follow_up"], sub[column])}


def _chip(strategy: str, colour: str) -> str:
    return f'<li><span class="swatch" style="background:{colour}"></span>{escape(strategy)}</li>'


def legend(colours: Colours, keys: Sequence[str] = ()) -> str:
    """A chart's legend: a swatch per strategy, then ``keys`` (from :func:`swatch_key`, :func:`line_key`).

    Example::

        legend({"sticky": "#0072B2"}, [line_key("dashed", "worst group")])   # <ul class="legend">...
    """
    items = [_chip(s, c) for s, c in colours.items()] + list(keys)
    return f'<ul class="legend">{"".join(items)}</ul>'


def swatch_key(style: str, label: str, meaning: str = "") -> str:
    """A legend entry for a bar style (``solid``, ``tint``, ``hatch``), ``meaning`` as its tooltip.

    Example::

        swatch_key("hatch", "revoked", "taken away, pending a transfer")
    """
    grey = "#6b7280"
    background = {
        "solid": grey,
        "tint": tint(grey),
        "hatch": f"repeating-linear-gradient(45deg, {grey} 0 2px, {tint(grey, 0.7)} 2px 4px)",
    }[style]
    title = f' title="{escape(meaning)}"' if meaning else ""
    return f'<li{title}><span class="swatch" style="background:{background}"></span>{escape(label)}</li>'


def line_key(style: str, label: str) -> str:
    """A legend entry for a line style (``solid``, ``dashed``).

    Example::

        line_key("solid", "mean of groups")
    """
    return f'<li><span class="line-key {style}" style="border-color:#6b7280"></span>{escape(label)}</li>'


def figure(fig_id: str, title: str, note: str, keys: str, svg: str) -> str:
    """A chart in its ``<figure>``: title, a note saying what it shows, its legend (``keys``) and the SVG.

    Example::

        figure("moves-figure", "Partitions changing hands", "Per step.", legend(colours), svg)
    """
    return (f'<figure id="{fig_id}"><h3>{escape(title)}</h3><p class="note">{escape(note)}</p>'
            f"{keys}{svg}</figure>")


def overview_figures(m: pd.DataFrame, colours: Colours) -> List[str]:
    """The four per-step charts: moves, balance, members, groups rebalanced (``m``: per-step metrics).

    Example::

        "".join(overview_figures(metrics(rows), strategy_colours(["sticky"])))   # four <figure> elements
    """
    gens = slots_of(m)
    strategies = list(colours)
    x_label = _X_LABEL if any(f for _, f in gens) else "Step"

    def stacks(parts: Sequence[Tuple[str, str, str]]) -> List[Stack]:
        return [Stack(s, colours[s], [Series(key, label, s, colours[s], _values(m, s, key), style)
                                      for key, label, style in parts]) for s in strategies]

    def lines(parts: Sequence[Tuple[str, str, str]]) -> List[Series]:
        return [Series(key, label, s, colours[s], _values(m, s, key), style)
                for s in strategies for key, label, style in parts]

    moves = bar_chart(
        "moves-chart", "Partitions changing hands per step",
        "Stacked bars per strategy: partitions moved, revoked (pending transfer) and assigned (transfer completed).",
        gens, stacks([("moved", "moved", "solid"), ("revoked", "revoked (pending)", "hatch"),
                      ("assigned", "assigned (transfer completed)", "tint")]),
        y_label="Partitions", x_label=x_label)
    balance = line_chart(
        "balance-chart", "Balance spread per group",
        "Max minus min partitions per member within a group: mean over groups and the worst group.",
        gens, lines([("spread_mean", "mean spread", "solid"), ("spread_max", "worst spread", "dashed")]),
        y_label="Partitions (max \u2212 min)", x_label=x_label)
    members = line_chart(
        "members-chart", "Members per group",
        "Members of each rebalanced group: mean and largest group.",
        gens, lines([("members_mean", "mean members", "solid"), ("members_max", "most members", "dashed")]),
        y_label="Members", x_label=x_label)
    m = m.assign(groups_calm=m["groups_rebalanced"] - m["groups_with_moves"])
    groups = bar_chart(
        "groups-chart", "Groups rebalanced per step",
        "Stacked bars per strategy: groups with moved or revoked partitions, and groups without.",
        gens, [Stack(s, colours[s], [
            Series("groups_with_moves", "groups with moves", s, colours[s], _values(m, s, "groups_with_moves")),
            Series("groups_calm", "groups without moves", s, colours[s], _values(m, s, "groups_calm"), "tint"),
        ]) for s in strategies], y_label="Groups", x_label=x_label)
    return _overview(colours, moves, balance, members, groups)


def _overview(colours: Colours, moves: str, balance: str, members: str, groups: str) -> List[str]:
    """The four charts in their figures, each with a note and a legend that say what it shows."""
    steps_note = (" A step is one rebalance of the fleet for a change of its inputs, the same under every "
                  "strategy; f/u (shaded) is a cooperative follow-up completing that step's transfers.")
    return [
        figure("moves-figure", "Partitions changing hands",
                "Per step. Cooperative strategies revoke first; the follow-up assigns what they revoked."
                + steps_note,
                legend(colours, [swatch_key("solid", "moved", STATUS_MEANINGS["moved"]),
                                  swatch_key("hatch", "revoked \u00b7 pending", STATUS_MEANINGS["revoked"]),
                                  swatch_key("tint", "assigned \u00b7 transfer completed",
                                              STATUS_MEANINGS["assigned"])]), moves),
        figure("balance-figure", "Balance spread",
                "Max \u2212 min partitions per member of a group, over the members of that generation "
                "(a restarted static member's old id is not one). 0 or 1 is perfectly balanced. "
                "Where strategies coincide, the line drawn first shows as a wider outline.",
                legend(colours, [line_key("solid", "mean of groups"), line_key("dashed", "worst group")]),
                balance),
        figure("members-figure", "Members per group",
                "Members of the groups rebalanced at each step: owners, members revoking a partition, and "
                "members receiving one in the step\u2019s follow-up.",
                legend(colours, [line_key("solid", "mean"), line_key("dashed", "largest group")]), members),
        figure("groups-figure", "Groups rebalanced",
                "How many groups each step (or follow-up) touched, and how many of them moved partitions.",
                legend(colours, [swatch_key("solid", "with moves"), swatch_key("tint", "without moves")]),
                groups),
    ]


#: (column of :func:`strategy_totals`, label, lower is better?)
COMPARISONS: List[Tuple[str, str, bool]] = [
    ("paused", "Partitions paused (eager: all the group owned)", True),
    ("paused_per_rebalance", "Paused per rebalance", True),
    ("movement", "Partitions moved or revoked", True),
    ("movement_per_rebalance", "Moved or revoked per rebalance", True),
    ("assigned", "Transfers completed (assigned)", False),
    ("spread_mean", "Mean balance spread", True),
    ("spread_max", "Worst balance spread", True),
    ("members_mean", "Mean members per group", False),
    ("rebalances", "Group rebalances (follow-ups apart)", False),
    ("follow_ups", "Follow-up rebalances", False),
]


def strategy_totals(m: pd.DataFrame, gm: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy: totals over all steps, for the comparison.

    ``rebalances`` counts group rebalances for a change of inputs (one per
    group and step), ``follow_ups`` the cooperative follow-ups apart, so
    ``movement_per_rebalance`` (moved + revoked per rebalance) compares
    strategies per step and not per round trip; ``paused`` (and per rebalance)
    counts what consumers stopped reading (see :func:`.consumer.metrics.paused`).

    Example::

        strategy_totals(metrics(rows), group_metrics(rows)).loc["sticky", "movement_per_rebalance"]
    """
    gm = gm.assign(_follow=gm["is_follow_up"].astype("int64"))
    by = gm.groupby("strategy", sort=True)
    out = by.agg(groups=("group_id", "nunique"), steps=("step", "nunique"),
                 generations=("group_id", "size"), follow_ups=("_follow", "sum"), moved=("moved", "sum"),
                 revoked=("revoked", "sum"), assigned=("assigned", "sum"), paused=("paused", "sum"),
                 spread_mean=("spread", "mean"),
                 spread_max=("spread", "max"), members_mean=("members", "mean"))
    out["rebalances"] = out["generations"] - out["follow_ups"]
    out["movement"] = out["moved"] + out["revoked"]
    out["movement_per_rebalance"] = out["movement"] / out["rebalances"].clip(lower=1)
    out["paused_per_rebalance"] = out["paused"] / out["rebalances"].clip(lower=1)
    return out


def compare_figure(totals: pd.DataFrame, colours: Colours,
                   comparisons: Sequence[Tuple[str, str, bool]] = COMPARISONS) -> str:
    """Small multiples of horizontal bars: each figure on its own scale, strategies side by side.

    Example::

        compare_figure(strategy_totals(m, gm), strategy_colours(["sticky", "uniform"]))   # a <figure>
    """
    width, label_w, value_w, bar_h = 640, 200, 70, 16
    k = len(totals)
    block = 22 + k * (bar_h + 4) + 12
    height = block * len(comparisons)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="compare-chart" viewBox="0 0 {width} {height}" '
           'role="img" aria-labelledby="compare-chart-title">',
           '<title id="compare-chart-title">Strategies compared: totals over all steps</title>']
    for b, (column, label, _) in enumerate(comparisons):
        y0 = b * block
        top = max(float(totals[column].max()), 1e-9)
        out.append(f'<text class="compare-label" x="0" y="{y0 + 15}" font-weight="600">{escape(label)}</text>')
        for i, (strategy, value) in enumerate(totals[column].items()):
            y = y0 + 22 + i * (bar_h + 4)
            w = max((width - label_w - value_w) * float(value) / top, 1.5 if value > 0 else 0)
            out.append(f'<text class="compare-value" x="{label_w - 8}" y="{y + 12}" text-anchor="end">'
                       f'{escape(strategy)}</text>')
            out.append(f'<rect class="bar" x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" rx="3" '
                       f'fill="{colours[strategy]}" data-strategy="{escape(strategy)}" data-series="{column}" '
                       f'data-value="{fmt(float(value), 4)}"><title>{escape(strategy)}: {escape(label)} '
                       f'{fmt(float(value))}</title></rect>')
            out.append(f'<text class="compare-value" x="{label_w + w + 6:.1f}" y="{y + 12}">'
                       f'{fmt(float(value))}</text>')
    out.append("</svg>")
    return figure("compare-figure", "Strategies side by side",
                   "Totals over all steps; each row has its own scale. A rebalance is one group's rebalance "
                   "for a change of its inputs; cooperative follow-ups are counted apart.",
                   legend(colours), "\n".join(out))


def sparkline(values: Sequence[Optional[float]], colour: str, label: str) -> str:
    """A tiny bar chart of a group's movement per step (and follow-up), for tables.

    ``None`` marks a slot the group was not rebalanced in (no mark); 0 a
    rebalance without movement (a grey tick).

    Example::

        sparkline([3, None, 0, 1], "#0072B2", "moved or revoked per step")   # an <svg class="spark">
    """
    n = max(1, len(values))
    top = max(max((v for v in values if v is not None), default=0), 1)
    w = 120 / n
    bars = "".join(
        f'<rect x="{i * w + w * 0.1:.2f}" y="{23 - 22 * v / top:.1f}" width="{max(w * 0.8, 0.5):.2f}" '
        f'height="{max(22 * v / top, 1.2):.1f}" fill="{colour if v > 0 else "#b8bec8"}"/>'
        for i, v in enumerate(values) if v is not None)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="spark" viewBox="0 0 120 24" role="img" '
            f'preserveAspectRatio="none" aria-label="{escape(label)}">{bars}</svg>')

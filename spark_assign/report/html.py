"""``render_html``: one self-contained HTML file of a fleet's assignment history.

The page needs no network: the stylesheet, the SVG charts and a few lines of
vanilla JavaScript (sortable tables, a group filter) are inline. The output is
well-formed XML as well as HTML5, so it can be checked with ``xml.etree``.
"""

from __future__ import annotations

import os
import zlib
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from ..core.java.limits import check_count
from ..errors import InvalidInputError
from ..progress import Stages
from .charts import COMPARISONS, compare_figure, overview_figures, slots_of, sparkline, strategy_totals
from .consumer.data import KEY
from .legend import FIGURE_MEANINGS, LOAD_NOTE, STATUS_MEANINGS, step_label
from .consumer.load_charts import LOAD_COMPARISONS, load_figures, load_totals
from .consumer.metrics import Figures
from .svg import fmt
from .theme import CSS, SCRIPT, strategy_colours

__all__ = ["render_html", "DEFAULT_TITLE", "sortable_table", "page", "num_cell"]

DEFAULT_TITLE = "Consumer group assignments"
#: The stages a report's progress bar names (see :mod:`spark_assign.progress`).
REPORT_STAGES = ("figures", "charts", "tables", "write")
_ASSIGNMENT_CHARS = 240


def _time(value: Any) -> str:
    if value is None or pd.isna(value):
        return "\u2013"
    return pd.Timestamp(value).tz_convert("UTC").strftime("%Y-%m-%d %H:%M UTC")


def num_cell(value: Any, digits: int = 2) -> str:
    """A numeric table cell: the value formatted, its exact number in ``data-sort``."""
    return f'<td class="num" data-sort="{float(value)!r}">{fmt(float(value), digits)}</td>'


def _chip(strategy: str, colours: Dict[str, str]) -> str:
    return (f'<span class="chip"><span class="swatch" style="background:{colours[strategy]}"></span>'
            f"{escape(strategy)}</span>")


def _anchor(strategy: str, group_id: str) -> str:
    key = f"{strategy}\0{group_id}"
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in key)
    return f"group-{safe[:60]}-{zlib.crc32(key.encode('utf-8')):08x}"


#: Tooltips of table headings: what each column counts.
_HEADING_TITLES = {
    "New": STATUS_MEANINGS["new"], "Kept": STATUS_MEANINGS["kept"], "Moved": STATUS_MEANINGS["moved"],
    "Moved in": STATUS_MEANINGS["moved"], "Revoked": STATUS_MEANINGS["revoked"],
    "Revoking": STATUS_MEANINGS["revoked"], "Assigned": STATUS_MEANINGS["assigned"],
    "Step": FIGURE_MEANINGS["step"], "Members": FIGURE_MEANINGS["members"],
    "Members (mean)": FIGURE_MEANINGS["members"], "Members (max)": FIGURE_MEANINGS["members"],
    "Spread": FIGURE_MEANINGS["spread"], "Worst spread": FIGURE_MEANINGS["spread"],
    "Spread (mean)": FIGURE_MEANINGS["spread"], "Spread (worst)": FIGURE_MEANINGS["spread"],
    "Rebalances": FIGURE_MEANINGS["rebalances"], "Paused": FIGURE_MEANINGS["paused"],
    "Follow-ups": "cooperative follow-ups: rebalances that only complete the transfers of the one before",
}


def _status_legend() -> str:
    """What each status means, in words, beside the tables and charts that count them."""
    items = "".join(f"<li><b>{escape(name)}</b>: {escape(text)}</li>" for name, text in STATUS_MEANINGS.items())
    return (f'<div class="status-legend note"><p>Each partition row has one status; the counts count rows. '
            "A first step reads \u201cnew N, assigned 0\u201d: every partition got its first owner and no "
            f"transfer was pending.</p><ul>{items}</ul></div>")


def sortable_table(table_id: str, headers: Sequence[str], rows: List[str], numeric: Sequence[bool]) -> str:
    """A table whose headings sort it (the page's script), ``rows`` being ``<tr>`` elements;
    numeric columns are right-aligned, known headings get a tooltip saying what they count."""
    if len(numeric) != len(headers):            # zip would silently drop the last headings
        raise ValueError(f"{table_id}: {len(headers)} headings but {len(numeric)} numeric flags")
    head = "".join(f'<th scope="col" class="{"num" if n else "text"}"'
                   + (f' title="{escape(_HEADING_TITLES[h])}"' if h in _HEADING_TITLES else "")
                   + f">{escape(h)}</th>" for h, n in zip(headers, numeric))
    return (f'<div class="table-wrap"><table class="sortable" id="{table_id}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _header(title: str, fleet: Dict[str, Any], colours: Dict[str, str]) -> str:
    steps = fleet["steps"]
    span = f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}\u2013{steps[-1]}"
    if fleet["follow_up_rounds"]:
        span += f" (+{fmt(fleet['follow_up_rounds'])} follow-up round{'s' if fleet['follow_up_rounds'] > 1 else ''})"
    k = len(fleet["strategies"])
    groups = f"{fmt(fleet['groups'])} consumer groups" + (f" under {k} strategies" if k > 1 else "")
    if fleet["group_ids"] != fleet["groups"]:
        groups += f" ({fmt(fleet['group_ids'])} distinct group ids)"
    when = ""
    if fleet["first_commit"] is not None:
        first, last = _time(fleet["first_commit"]), _time(fleet["last_commit"])
        when = f" \u00b7 committed {first}" + (f" to {last}" if last != first else "")
    kpis = [("Strategies", len(fleet["strategies"])), ("Groups", fleet["groups"]),
            ("Steps", len(steps)), ("Partitions now", fleet["partitions"]),
            ("Members now", fleet["members"]), ("Partitions paused", fleet["paused"]),
            ("Partitions moved", fleet["moved"]),
            ("Revoked (pending)", fleet["revoked"]), ("Transfers completed", fleet["assigned"])]
    cards = "".join(f'<div class="kpi" data-kpi="{escape(label)}"><div class="value">{fmt(v)}</div>'
                    f'<div class="label">{escape(label)}</div></div>' for label, v in kpis)
    chips = "".join(f"<li>{_chip(s, colours)}</li>" for s in colours)
    return (f'<header id="summary"><h1>{escape(title)}</h1>'
            f'<p class="sub">{groups} \u00b7 {span}'
            f' \u00b7 {fmt(fleet["rows"])} state rows{escape(when)}</p>'
            f'<ul class="strategies">{chips}</ul><div class="kpis">{cards}</div></header>')


def _comparison(totals: pd.DataFrame, colours: Dict[str, str], comparisons: List[tuple] = COMPARISONS) -> str:
    strategies = list(totals.index)
    rows = []
    for column, label, lower_better in comparisons:
        values = totals[column].astype(float)
        best = values.min() if lower_better else None
        cells = "".join(
            f'<td class="num{" best" if best is not None and v == best and values.nunique() > 1 else ""}" '
            f'data-sort="{v!r}">{fmt(v)}</td>' for v in values)
        rows.append(f'<tr><th scope="row">{escape(label)}</th>{cells}</tr>')
    head = "".join(f'<th scope="col" class="num">{_chip(s, colours)}</th>' for s in strategies)
    table = (f'<div class="table-wrap"><table id="compare-table"><thead><tr><th scope="col">Figure</th>{head}'
             f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return (f'<section id="compare"><h2>Strategies compared</h2><div class="charts">'
            f'{compare_figure(totals, colours, comparisons)}<div>{table}<p class="note">\u2605 marks the lowest '
            f'pause, movement, spread and load figures. Paused: partitions not consumed during a rebalance; an '
            f'eager strategy pauses every partition a group owned, a cooperative one only those changing owner. '
            f'Totals over every step each strategy ran; a rebalance is one group\u2019s rebalance '
            f'for a change of its inputs, its cooperative follow-ups are counted apart.</p></div></div></section>')


def _groups(summary: pd.DataFrame, gm: pd.DataFrame, colours: Dict[str, str], top: int) -> str:
    shown = summary.head(top)
    slots = slots_of(gm)
    picked = gm.merge(shown[KEY], on=KEY)
    history: Dict[tuple, Dict[tuple, float]] = {}
    for s, g, step, follow_up, moved, revoked in zip(picked["strategy"], picked["group_id"], picked["step"],
                                                     picked["follow_up"], picked["moved"], picked["revoked"]):
        mine = history.setdefault((s, g), {})
        slot = (int(step), int(follow_up))
        mine[slot] = mine.get(slot, 0.0) + float(moved + revoked)
    rows = []
    for r in shown.itertuples(index=False):
        mine = history.get((r.strategy, r.group_id), {})
        spark = sparkline([mine.get(slot) for slot in slots], colours[r.strategy],
                          f"partitions moved or revoked per step in {r.group_id}")
        rows.append(
            f'<tr data-strategy="{escape(r.strategy)}" data-group="{escape(r.group_id)}">'
            f'<td data-sort="{escape(r.strategy)}">{_chip(r.strategy, colours)}</td>'
            f'<td><a href="#{_anchor(r.strategy, r.group_id)}" class="mono group-id" '
            f'title="{escape(r.group_id)}">{escape(r.group_id)}</a></td>'
            + "".join(num_cell(getattr(r, c)) for c in ("rebalances", "members", "partitions", "spread",
                                                      "worst_spread", "paused", "moved", "revoked", "assigned",
                                                      "movement", "follow_ups"))
            + f'<td data-sort="{r.movement}">{spark}</td></tr>')
    headers = ["Strategy", "Group", "Rebalances", "Members", "Partitions", "Spread", "Worst spread",
               "Paused", "Moved", "Revoked", "Assigned", "Movement", "Follow-ups", "History"]
    numeric = [False, False] + [True] * 11 + [False]
    note = (f"The {len(shown)} groups with the most partitions moved or revoked over all steps"
            + (f", of {fmt(len(summary))}." if len(summary) > len(shown) else ".")
            + " Movement = moved + revoked; paused = partitions not consumed during the group\u2019s"
            " rebalances (eager strategies: all it owned). Rebalances are the group\u2019s rebalances for a change of its"
            " inputs; its cooperative follow-ups are counted apart. Members, partitions and spread are those of"
            " the latest generation; history shows movement per step and follow-up. Click a heading to sort.")
    return (f'<section id="groups" class="compact"><h2>Groups with the most movement</h2>'
            f'<p class="note">{escape(note)}</p>'
            f'<div class="toolbar"><input id="group-filter" type="search" placeholder="Filter groups\u2026" '
            f'aria-label="Filter groups"/></div>'
            f'{sortable_table("groups-table", headers, rows, numeric)}</section>')


def _assignments(latest: pd.DataFrame, shown: pd.DataFrame, colours: Dict[str, str], max_members: int) -> str:
    blocks = []
    by_group = dict(tuple(latest.groupby(KEY, sort=False)))
    for n, r in enumerate(shown.itertuples(index=False)):
        members = by_group.get((r.strategy, r.group_id), latest.iloc[:0])
        static = bool(members["group_instance_id"].notna().any())
        rows = []
        for a in members.head(max_members).itertuples(index=False):
            text = a.assignment if len(a.assignment) <= _ASSIGNMENT_CHARS else a.assignment[:_ASSIGNMENT_CHARS] + " \u2026"
            instance = f'<td class="mono">{escape(a.group_instance_id or "")}</td>' if static else ""
            rows.append(f'<tr><td class="mono">{escape(a.member_id)}</td>{instance}'
                        + "".join(num_cell(getattr(a, c)) for c in ("partitions", "kept", "moved", "new",
                                                                  "assigned", "revoking"))
                        + f'<td class="assignment">{escape(text)}</td></tr>')
        more = len(members) - max_members
        extra = f' <span class="note">(first {max_members} of {len(members)} members)</span>' if more > 0 else ""
        gen = int(members["generation"].iloc[0]) if len(members) else r.last_generation
        step = step_label(int(r.last_step), int(r.last_follow_up))
        headers = ["Member"] + ["Instance id"] * static + ["Partitions", "Kept", "Moved in", "New",
                                                             "Assigned", "Revoking", "Assignment"]
        table = sortable_table(f"members-{_anchor(r.strategy, r.group_id)}", headers, rows,
                       [False] * (1 + static) + [True] * 6 + [False])
        opened = ' open="open"' if n < 2 else ""
        blocks.append(f'<details class="group" id="{_anchor(r.strategy, r.group_id)}"{opened}>'
                      f'<summary>{_chip(r.strategy, colours)} <span class="mono">{escape(r.group_id)}</span>'
                      f' \u00b7 generation {gen} (step {escape(step)}) \u00b7 {fmt(len(members))} members{extra}'
                      f'</summary>{table}</details>')
    return (f'<section id="assignments"><h2>Latest assignment of these groups</h2><p class="note">Per member: '
            f'partitions owned in the group\u2019s latest generation, how it got them, and partitions it is '
            f'revoking (pending a cooperative transfer; a restarted static member revokes under its new id).</p>'
            f'{"".join(blocks)}</section>')


#: The per-step table's load columns (with weights): (column of the per-step load figures, heading).
_LOAD_COLUMNS = [("imbalance_mean", "Imbalance (mean)"), ("imbalance_max", "Imbalance (worst)"),
                 ("vs_bound_max", "Heaviest / bound (worst)"), ("weight_moved_pct", "Weight moved (%)")]


def _generations(m: pd.DataFrame, colours: Dict[str, str], lm: Optional[pd.DataFrame] = None) -> str:
    cols = ["groups_rebalanced", "follow_ups", "groups_with_moves", "partitions", "new", "kept", "moved", "revoked",
            "assigned", "paused", "members_mean", "members_max", "spread_mean", "spread_max"]
    headers = ["Strategy", "Step", "Groups", "Follow-ups", "With moves", "Partitions", "New", "Kept", "Moved",
               "Revoked", "Assigned", "Paused", "Members (mean)", "Members (max)", "Spread (mean)", "Spread (worst)"]
    if lm is not None:
        m = m.merge(lm.assign(weight_moved_pct=100 * lm["weight_moved_share"]), how="left",
                    on=["strategy", "step", "follow_up"])
        cols += [c for c, _ in _LOAD_COLUMNS]
        headers += [h for _, h in _LOAD_COLUMNS]
    rows = [f'<tr data-step="{r.step}" data-follow-up="{r.follow_up}"><td data-sort="{escape(r.strategy)}">'
            f'{_chip(r.strategy, colours)}</td><td class="num" data-sort="{r.step + r.follow_up / 100!r}">'
            f'{escape(step_label(r.step, r.follow_up))}</td>'
            + "".join(num_cell(getattr(r, c)) for c in cols) + "</tr>" for r in m.itertuples(index=False)]
    return (f'<section id="generations"><details class="all"><summary>All figures per step and follow-up '
            f'({len(m)} rows)</summary>'
            f'{sortable_table("generations-table", headers, rows, [False] + [True] * (len(headers) - 1))}'
            f"</details></section>")


def _load(figures: Figures, colours: Dict[str, str]) -> str:
    """The load section (rows with weights): imbalance, lower bound, weight moved, load per member."""
    charts = load_figures(figures.load_per_step, figures.rows, figures.everyone, figures.steps,
                          figures.load_per_group, colours)
    return (f'<section id="load"><h2>Load</h2><p class="note">{escape(LOAD_NOTE)}</p><div class="charts">'
            f'{"".join(charts)}</div></section>')


def page(title: str, body: str) -> str:
    """The whole self-contained page around ``body``: stylesheet, footer and script inline."""
    from .. import __version__ as version  # late: the package imports Spark on first import

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return ("<!DOCTYPE html>\n"
            '<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
            '<meta name="generator" content="spark-assign report"/>'
            f"<title>{escape(title)}</title><style>/*<![CDATA[*/{CSS}/*]]>*/</style></head>"
            f"<body><main>{body}<footer>Generated by spark-assign {escape(version)} on {stamp}. "
            "Self-contained: charts are inline SVG, nothing is loaded from the network.</footer></main>"
            f"<script>//<![CDATA[\n{SCRIPT}//]]></script></body></html>\n")


def render_html(rows: Any, title: str = DEFAULT_TITLE, path: Optional[Union[str, "os.PathLike[str]"]] = None,
                top: int = 25, max_members: int = 200, members: Optional[pd.DataFrame] = None) -> str:
    """Render the report of state ``rows`` (pandas DataFrame or pyarrow Table) as one HTML page.

    ``top`` groups (most partitions moved or revoked) get a row in the groups
    table and their latest assignment, at most ``max_members`` members each.
    ``members``, when given, are the groups' subscribed members, so that
    members owning nothing count in members and spread (see
    :func:`~spark_assign.report.consumer.metrics.balance`). Charts and the per-step
    table are laid out on the fleet's steps, cooperative follow-ups beside
    their step (:mod:`~spark_assign.report.consumer.steps`). Writes the page to ``path``
    (UTF-8) when given, and returns it.

    Example::

        render_html(DeltaTable("/data/fleet_state").to_pyarrow_table(), title="Fleet", path="report.html")
    """
    if not isinstance(title, str):
        raise InvalidInputError(f"title must be a string, got {type(title).__name__}", column="title")
    for name, value in (("top", top), ("max_members", max_members)):
        check_count(value, name, minimum=1, maximum=None)
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a string or path, got {type(path).__name__}", column="path")
    with Stages("report", REPORT_STAGES) as stages:          # a bar on a terminal only
        stages.next("figures")
        page = _render(Figures(rows, members), title, top, max_members, stages)
        stages.next("write")
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
    return page


def _render(figures: Figures, title: str, top: int, max_members: int, stages: Stages) -> str:
    """The page of :func:`render_html`, section by section."""
    df = figures.rows
    if df.empty:
        body = (f'<header id="summary"><h1>{escape(title)}</h1><p class="sub">No state rows.</p></header>'
                '<div class="empty" id="no-data" role="status"><h2>No data</h2><p class="note">The state rows '
                "are empty: no consumer group has been rebalanced yet, or the filter matched nothing.</p></div>")
    else:
        gm, m, summary = figures.per_group, figures.per_step, figures.summary
        stages.next("charts")
        colours = strategy_colours(df["strategy"].unique())
        shown = summary.head(top)
        latest = figures.latest(list(zip(shown["strategy"], shown["group_id"])))
        parts = [_header(title, figures.fleet, colours),
                 '<section id="overview"><h2>Step by step</h2><div class="charts">'
                 + "".join(overview_figures(m, colours)) + f"</div>{_status_legend()}</section>"]
        if figures.weighed:
            parts.append(_load(figures, colours))
        if len(colours) > 1:
            totals = strategy_totals(m, gm)
            if figures.weighed:
                totals = totals.join(load_totals(figures.load_per_group))
            parts.append(_comparison(totals, colours, COMPARISONS + (LOAD_COMPARISONS if figures.weighed else [])))
        stages.next("tables")
        parts += [_groups(summary, gm, colours, top), _assignments(latest, shown, colours, max_members),
                  _generations(m, colours, figures.load_per_step if figures.weighed else None)]
        body = "".join(parts)
    return page(title, body)

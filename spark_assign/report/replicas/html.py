"""``render_replica_html``: the HTML report of a replica table, in the style of :func:`~.html.render_html`.

One self-contained page (inline SVG, no network, well-formed XML) with the
replica sections:

* **summary**: clusters, brokers, partitions and replicas now; replicas moved
  and preferred leaders changed over every rebalance, and the moves against
  their lower bound;
* **moves per rebalance** (``#replica-moves``): replicas moved and new per
  rebalance of the table (bars), moves against the lower bound and leader
  changes (lines), and their table;
* **brokers** (``#brokers``): replicas and preferred leaders per broker of each
  cluster now (bars per broker, up to :data:`MAX_BROKER_BARS` a cluster) and
  their table, every broker;
* **racks** (``#racks``): replicas per rack, and how many racks each
  partition's replicas span;
* every cluster's generations (``#replica-generations``).

Marks carry ``data-*`` attributes (cluster, broker, series, step, value) that
tests and scripts read back. The figures are :mod:`.replicas`'.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import pandas as pd

from ...core.java.limits import check_count
from ...errors import InvalidInputError
from ..charts import figure, legend, line_key, swatch_key
from ..html import num_cell, page, sortable_table
from .data import (broker_load, generation_figures, latest_replicas, load_replica_rows, rack_load, rack_spread,
                       rebalance_figures)
from ..svg import Series, Stack, bar_chart, fmt, line_chart

__all__ = ["render_replica_html", "DEFAULT_REPLICA_TITLE", "MAX_BROKER_BARS"]

DEFAULT_REPLICA_TITLE = "Replica placements"
#: Brokers drawn per cluster in the brokers figure (the table lists every broker).
MAX_BROKER_BARS = 60
#: Colours of the series: replicas, preferred leaders, the lower bound (Okabe-Ito).
COLOURS = {"replicas": "#0072B2", "leaders": "#E69F00", "bound": "#009E73", "moved": "#0072B2"}
_X_LABEL = "Rebalance of the table (step)"


def _header(title: str, latest: pd.DataFrame, steps: pd.DataFrame, rows: pd.DataFrame) -> str:
    moved, bound = steps["moved"].sum(), steps["lower_bound"]
    ratio = float(steps.loc[bound.notna(), "moved"].sum()) / float(bound.sum()) if bound.notna().any() and \
        bound.sum() > 0 else float("nan")
    kpis = [("Clusters", latest["cluster_id"].nunique()),
            ("Brokers now", latest[["cluster_id", "broker_id"]].drop_duplicates().shape[0]),
            ("Partitions now", latest[["cluster_id", "topic", "partition"]].drop_duplicates().shape[0]),
            ("Replicas now", len(latest)), ("Rebalances", len(steps)), ("Replicas moved", moved),
            ("Leaders changed", steps["leaders_changed"].sum()), ("Moves / lower bound", ratio)]
    cards = "".join(f'<div class="kpi" data-kpi="{escape(label)}"><div class="value">{fmt(float(v))}</div>'
                    f'<div class="label">{escape(label)}</div></div>' for label, v in kpis)
    return (f'<header id="summary"><h1>{escape(title)}</h1><p class="sub">{fmt(len(steps))} rebalances of '
            f'{fmt(rows["cluster_id"].nunique())} clusters \u00b7 {fmt(len(rows))} replica rows</p>'
            f'<div class="kpis">{cards}</div></header>')


def _moves(steps: pd.DataFrame) -> str:
    slots = [(int(s), 0) for s in steps["step"]]

    def values(column: str) -> Dict[Any, float]:
        return {(int(s), 0): float(v) for s, v in zip(steps["step"], steps[column]) if v == v}

    bars = bar_chart("replica-moves-chart", "Replicas moved per rebalance",
                     "Stacked bars: replicas moved to a broker new to their partition, and replicas of new partitions.",
                     slots, [Stack("replicas", COLOURS["replicas"], [
                         Series("moved", "moved", "replicas", COLOURS["replicas"], values("moved")),
                         Series("new", "new", "replicas", COLOURS["replicas"], values("new"), "tint")])],
                     y_label="Replicas", x_label=_X_LABEL)
    lines = line_chart("replica-bound-chart", "Moves against the lower bound, and leader changes",
                       "Replicas moved, the fewest moves any balanced placement needed, and preferred leaders changed.",
                       slots, [Series("moved", "replicas moved", "moved", COLOURS["moved"], values("moved")),
                               Series("lower_bound", "lower bound", "lower bound", COLOURS["bound"],
                                      values("lower_bound"), "dashed"),
                               Series("leaders_changed", "leaders changed", "leaders", COLOURS["leaders"],
                                      values("leaders_changed"))],
                       y_label="Replicas or partitions", x_label=_X_LABEL, integer=True)
    note = ("A moved replica is a copy of the partition's data to a broker that did not hold it; new replicas "
            "belong to new topics or partitions. A step is one rebalance (commit) of the table.")
    charts = [figure("replica-moves-figure", "Replicas moved", note, legend({}, [
                  swatch_key("solid", "moved"), swatch_key("tint", "new")]), bars),
              figure("replica-bound-figure", "Moves, lower bound, leaders",
                     "The lower bound counts replicas on brokers that left, and what new brokers need to balance.",
                     legend({"replicas moved": COLOURS["moved"], "leaders changed": COLOURS["leaders"]},
                            [line_key("dashed", "lower bound")]), lines)]
    rows = [f'<tr data-step="{int(r.step)}"><td class="num">{int(r.step)}</td>' + num_cell(r.commit_version)
            + "".join(num_cell(getattr(r, c)) for c in ("clusters", "partitions", "new", "kept", "moved",
                                                          "lower_bound", "leaders_changed")) + "</tr>"
            for r in steps.itertuples(index=False)]
    table = sortable_table("rebalances-table", ["Step", "Version", "Clusters", "Partitions", "New", "Kept", "Moved",
                                                "Lower bound", "Leaders changed"], rows, [True] * 9)
    return (f'<section id="replica-moves"><h2>Moves per rebalance</h2><div class="charts">{"".join(charts)}</div>'
            f"{table}</section>")


def _broker_chart(cluster: str, load: pd.DataFrame, chart_id: str) -> str:
    """Horizontal bars: replicas and preferred leaders of each broker of one cluster."""
    shown = load.head(MAX_BROKER_BARS)
    width, label_w, bar_h = 640, 120, 9
    top = max(float(shown["replicas"].max()), 1.0)
    height = 8 + len(shown) * (2 * bar_h + 6)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{chart_id}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-labelledby="{chart_id}-title">',
           f'<title id="{chart_id}-title">Replicas and preferred leaders per broker of {escape(cluster)}</title>']
    for i, r in enumerate(shown.itertuples(index=False)):
        y = 4 + i * (2 * bar_h + 6)
        label = f"{int(r.broker_id)}" + (f" ({r.rack})" if r.rack else "")
        out.append(f'<text class="compare-value" x="{label_w - 8}" y="{y + bar_h + 3}" text-anchor="end">'
                   f'{escape(label)}</text>')
        for k, (series, value) in enumerate((("replicas", r.replicas), ("leaders", r.leaders))):
            w = (width - label_w - 60) * float(value) / top
            out.append(f'<rect class="bar" x="{label_w}" y="{y + k * bar_h}" width="{max(w, 0.8 if value else 0):.1f}" '
                       f'height="{bar_h - 1}" fill="{COLOURS[series]}" data-cluster="{escape(cluster)}" '
                       f'data-broker="{int(r.broker_id)}" data-series="{series}" data-value="{int(value)}">'
                       f'<title>broker {int(r.broker_id)}: {int(value)} {series}</title></rect>')
        out.append(f'<text class="compare-value" x="{label_w + (width - label_w - 60) * r.replicas / top + 6:.1f}" '
                   f'y="{y + bar_h - 1}">{int(r.replicas)} / {int(r.leaders)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _brokers(latest: pd.DataFrame, top: int) -> str:
    load = broker_load(latest)
    clusters = sorted(load["cluster_id"].unique())
    figures = []
    for n, cluster in enumerate(clusters[:top]):
        mine = load[load["cluster_id"] == cluster]
        spread = int(mine["replicas"].max() - mine["replicas"].min())
        more = f"; the first {MAX_BROKER_BARS} of {len(mine)} brokers" if len(mine) > MAX_BROKER_BARS else ""
        plural = "s" if len(mine) != 1 else ""
        note = (f"{len(mine)} broker{plural} holding replicas; replicas per broker differ by {spread} at most{more}. "
                "Label: broker (rack); bars: replicas, then partitions it is the preferred leader of.")
        figures.append(figure(f"brokers-figure-{n}", f"Cluster {cluster}", note,
                              legend({"replicas": COLOURS["replicas"], "preferred leaders": COLOURS["leaders"]}),
                              _broker_chart(str(cluster), mine, f"brokers-chart-{n}")))
    rows = [f'<tr data-cluster="{escape(str(r.cluster_id))}"><td class="mono">{escape(str(r.cluster_id))}</td>'
            f'{num_cell(r.broker_id)}<td>{escape(r.rack or "")}</td>{num_cell(r.replicas)}{num_cell(r.leaders)}</tr>'
            for r in load.itertuples(index=False)]
    table = sortable_table("brokers-table", ["Cluster", "Broker", "Rack", "Replicas", "Preferred leader of"], rows,
                           [False, True, False, True, True])
    shown = "" if len(clusters) <= top else f" Charts for the first {top} of {len(clusters)} clusters."
    return (f'<section id="brokers"><h2>Brokers now</h2><p class="note">Each cluster\u2019s latest generation. '
            f"Brokers that hold no replica are not in the table\u2019s rows and do not show.{shown}</p>"
            f'<div class="charts">{"".join(figures)}</div>{table}</section>')


def _racks(latest: pd.DataFrame) -> str:
    load = rack_load(latest)
    rows = [f'<tr><td class="mono">{escape(str(r.cluster_id))}</td><td>{escape(str(r.rack))}</td>'
            f"{num_cell(r.brokers)}{num_cell(r.replicas)}{num_cell(r.leaders)}</tr>" for r in load.itertuples()]
    spread = rack_spread(latest)
    spans = [f'<tr><td class="mono">{escape(str(r.cluster_id))}</td>{num_cell(r.racks)}'
             f"{num_cell(r.replication_factor)}{num_cell(r.racks_spanned)}{num_cell(r.partitions)}</tr>"
             for r in spread.itertuples()]
    return ('<section id="racks"><h2>Racks</h2><p class="note">Replicas per rack, and how many racks each '
            "partition\u2019s replicas span: a partition on fewer racks than min(replication factor, racks) "
            "loses more than one replica when a rack fails.</p>"
            + sortable_table("racks-table", ["Cluster", "Rack", "Brokers", "Replicas", "Preferred leaders"], rows,
                             [False, False, True, True, True])
            + sortable_table("rack-spread-table", ["Cluster", "Racks", "Replication factor (max)", "Racks spanned",
                                                   "Partitions"], spans, [False, True, True, True, True])
            + "</section>")


def _generations(gm: pd.DataFrame) -> str:
    cols = ["brokers", "racks", "partitions", "new", "kept", "moved", "leaders_changed", "replicas_min",
            "replicas_max", "leaders_min", "leaders_max"]
    rows = [f'<tr><td class="mono">{escape(str(r.cluster_id))}</td>{num_cell(r.generation)}'
            f"<td>{escape(r.methods)}</td>" + "".join(num_cell(getattr(r, c)) for c in cols) + "</tr>"
            for r in gm.itertuples(index=False)]
    headers = ["Cluster", "Generation", "Methods", "Brokers", "Racks", "Partitions", "New", "Kept", "Moved",
               "Leaders changed", "Replicas (min)", "Replicas (max)", "Leaders (min)", "Leaders (max)"]
    table = sortable_table("replica-generations-table", headers, rows, [False, True, False] + [True] * 11)
    return (f'<section id="replica-generations"><details class="all"><summary>Every cluster\u2019s generations '
            f"({len(gm)} rows)</summary>{table}</details></section>")


def render_replica_html(rows: Any, title: str = DEFAULT_REPLICA_TITLE,
                        path: Optional[Union[str, "os.PathLike[str]"]] = None, top: int = 25,
                        commits: Optional[List[Dict[str, Any]]] = None) -> str:
    """Render the report of a replica table's ``rows`` (pandas or pyarrow) as one HTML page.

    ``top`` clusters get a brokers chart (the tables list all); ``commits`` (the table's
    ``versions()``, or its Delta history) give each rebalance's lower bound. Writes the page to
    ``path`` (UTF-8) when given, and returns it.

    Example::

        render_replica_html(DeltaTable("/data/replicas").to_pyarrow_table(), path="replicas.html")
    """
    if not isinstance(title, str):
        raise InvalidInputError(f"title must be a string, got {type(title).__name__}", column="title")
    check_count(top, "top", minimum=1, maximum=None)
    frame = load_replica_rows(rows)
    if frame.empty:
        body = (f'<header id="summary"><h1>{escape(title)}</h1><p class="sub">No replica rows.</p></header>'
                '<div class="empty" id="no-data" role="status"><h2>No data</h2><p class="note">The replica table '
                "is empty: no cluster has been placed yet.</p></div>")
    else:
        latest = latest_replicas(frame)
        steps = rebalance_figures(frame, commits)
        body = "".join([_header(title, latest, steps, frame), _moves(steps), _brokers(latest, top), _racks(latest),
                        _generations(generation_figures(frame))])
    html = page(title, body)
    if path is not None:
        Path(path).write_text(html, encoding="utf-8")
    return html

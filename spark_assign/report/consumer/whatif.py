"""``render_what_if_html``: the what-if scenarios as a self-contained HTML page.

The page of ``spark-assign what-if --report``, in the style of the table
report (:func:`~spark_assign.report.html.page`: inline SVG, no network,
well-formed XML):

* per scenario (``#what-if-chart``), horizontal bars of the partitions that
  would move and those that would pause, side by side: under an eager strategy
  a group pauses every partition it owned, under a cooperative or KIP-848 one
  only those changing owner, which is the difference the chart shows;
* the scenarios' table (``#what-if-table``): groups changed, moved, revoked,
  new, paused, rebalances to settle, and the groups pausing most;
* every changed group of every scenario (``#what-if-groups``), sortable.

Marks carry ``data-scenario``, ``data-series`` and ``data-value`` for tests
and scripts. The figures are :func:`~spark_assign.state.consumer.whatif.what_if`'s.
"""

from __future__ import annotations

import os
from html import escape
from typing import Any, Dict, List, Sequence, Union

import pandas as pd

from ..html import page, sortable_table

__all__ = ["render_what_if_html", "WHAT_IF_COLOURS"]

#: Bar colours (Okabe-Ito): partitions moved, partitions paused.
WHAT_IF_COLOURS = {"moved": "#0072B2", "paused": "#D55E00"}
_NOTE = ("paused: partitions nobody consumes while the group rebalances. Under an eager strategy every member "
         "gives up everything it owned (the whole group stops); under a cooperative strategy (KIP-429) or "
         "KIP-848 only the partitions changing owner stop. A static member's restart rebalances nothing (KIP-345).")


def _chart(summary: Sequence[Dict[str, Any]]) -> str:
    """Horizontal bars: partitions moved and paused per scenario."""
    width, label_w, bar_h = 1100, 200, 11
    top = max([max(s["moved"], s["paused"]) for s in summary] + [1])
    height = 8 + len(summary) * (2 * bar_h + 8)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="what-if-chart" viewBox="0 0 {width} {height}" '
           'role="img" aria-labelledby="what-if-chart-title">',
           '<title id="what-if-chart-title">Partitions moved and paused per scenario</title>']
    for i, s in enumerate(summary):
        y = 4 + i * (2 * bar_h + 8)
        out.append(f'<text class="compare-value" x="{label_w - 8}" y="{y + bar_h + 3}" text-anchor="end">'
                   f'{escape(s["scenario"])}</text>')
        for k, series in enumerate(("moved", "paused")):
            value = int(s[series])
            w = (width - label_w - 130) * value / top
            out.append(f'<rect class="bar" x="{label_w}" y="{y + k * bar_h}" width="{max(w, 0.8 if value else 0):.1f}" '
                       f'height="{bar_h - 1}" fill="{WHAT_IF_COLOURS[series]}" data-scenario="{escape(s["scenario"])}" '
                       f'data-series="{series}" data-value="{value}">'
                       f'<title>{escape(s["scenario"])}: {value} partitions {series}</title></rect>')
            out.append(f'<text class="compare-value" x="{label_w + w + 6:.1f}" y="{y + (k + 1) * bar_h - 2}">'
                       f'{value} {series}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _scenarios(summary: Sequence[Dict[str, Any]], descriptions: Dict[str, str]) -> str:
    rows = [f"<tr><td>{escape(s['scenario'])}</td><td>{escape(descriptions.get(s['scenario'], ''))}</td>"
            + "".join(f'<td class="num">{int(s[k])}</td>' for k in ("groups", "moved", "revoked", "new", "paused",
                                                                     "rebalances"))
            + f"<td>{escape(', '.join(s['most_paused']))}</td></tr>" for s in summary]
    headers = ["scenario", "event", "groups changed", "moved", "revoked", "new", "paused", "rebalances",
               "groups pausing most"]
    return sortable_table("what-if-table", headers, rows, [False, False] + [True] * 6 + [False])


def _groups(figures: pd.DataFrame) -> str:
    columns = ["members", "partitions", "kept", "moved", "revoked", "new", "paused", "rebalances"]
    rows = [f"<tr><td>{escape(str(r['scenario']))}</td><td>{escape(str(r['group_id']))}</td>"
            + "".join(f'<td class="num">{int(r[c])}</td>' for c in columns) + "</tr>"
            for r in figures.to_dict("records")]
    return sortable_table("what-if-groups", ["scenario", "group", *columns], rows, [False, False] + [True] * len(columns))


def render_what_if_html(figures: pd.DataFrame, summary: Sequence[Dict[str, Any]], descriptions: Dict[str, str],
                        title: str, context: str, path: Union[str, "os.PathLike[str]"]) -> str:
    """Write the what-if page to ``path`` and return the path written.

    Example::

        figures = what_if(table, subs, topics, "sticky", scenarios)
        render_what_if_html(figures, summarize(figures, labels), {}, "What if", "against ./state", "what-if.html")

    Parameters
    ----------
    figures:
        :func:`~spark_assign.state.consumer.whatif.what_if`'s rows (one per scenario and changed group).
    summary:
        :func:`~spark_assign.state.consumer.whatif.summarize`'s rows, one per scenario, in order.
    descriptions:
        Per scenario name, the event in words.
    title, context:
        The page's title, and a line under it (the table and strategy the dry runs started from).
    path:
        The file to write.
    """
    body: List[str] = [
        f"<header><h1>{escape(title)}</h1><p class=\"note\">{escape(context)}</p></header>",
        '<section id="what-if"><h2>Moved and paused per scenario</h2>'
        f'<figure>{_chart(summary)}<figcaption class="note">{escape(_NOTE)}</figcaption></figure>',
        _scenarios(summary, descriptions), "</section>",
        '<section id="what-if-group-list"><h2>Every changed group</h2>', _groups(figures), "</section>"]
    text = page(title, "\n".join(body))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return os.fspath(path)

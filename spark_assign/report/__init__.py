"""HTML reports of a fleet's assignment history, generation after generation.

The input is the state table's rows (:data:`spark_assign.schema.STATE_COLUMNS`)
as a pandas DataFrame or a pyarrow Table::

    from spark_assign.report import metrics, render_html

    metrics(rows)                          # per (strategy, generation) figures
    render_html(rows, path="report.html")  # one self-contained HTML file

* :mod:`.metrics` — figures per generation, per group and per member.
* :mod:`.html` — the page; :mod:`.charts` and :mod:`.svg` — its inline SVG charts.
"""

from .data import load_rows
from .html import DEFAULT_TITLE, render_html
from .metrics import (Figures, balance, fleet_summary, format_partitions, group_metrics, group_summary,
                      latest_assignment, metrics)
from .theme import strategy_colours

__all__ = [
    "Figures",
    "balance",
    "metrics",
    "group_metrics",
    "group_summary",
    "latest_assignment",
    "fleet_summary",
    "format_partitions",
    "render_html",
    "load_rows",
    "strategy_colours",
    "DEFAULT_TITLE",
]

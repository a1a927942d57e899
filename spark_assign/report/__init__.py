"""HTML reports of a fleet's assignment history, generation after generation.

The input is the state table's rows (:data:`spark_assign.schema.STATE_COLUMNS`)
as a pandas DataFrame or a pyarrow Table::

    from spark_assign.report import metrics, render_html

    metrics(rows)                          # per (strategy, step, follow_up) figures
    render_html(rows, path="report.html")  # one self-contained HTML file

* :mod:`.metrics` — figures per step, per group and per member.
* :mod:`.steps` — the fleet's steps and cooperative follow-ups, and who the
  members of a generation are.
* :mod:`.legend` — what each status and figure means, in words (the report
  and the CLI print the same ones).
* :mod:`.html` — the page; :mod:`.charts` and :mod:`.svg` — its inline SVG charts.
"""

from .. import _moved
from .consumer.data import load_rows
from .consumer.metrics import (Figures, balance, fleet_summary, format_partitions, group_metrics, group_summary,
                               latest_assignment, metrics)
from .consumer.steps import generation_members, steps
from .html import DEFAULT_TITLE, render_html
from .legend import FIGURE_MEANINGS, STATUS_MEANINGS, legend_lines, step_label
from .theme import strategy_colours

__all__ = [
    "Figures",
    "balance",
    "steps",
    "generation_members",
    "step_label",
    "legend_lines",
    "STATUS_MEANINGS",
    "FIGURE_MEANINGS",
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

# ``metrics`` and ``steps`` are functions here and were modules before the domain folders: the old
# module paths go straight to sys.modules, so importing one never binds the module over the function.
_moved.alias_loaded(__name__)

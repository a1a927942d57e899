"""The what-if page (``what-if --report``): moved and paused per scenario, well-formed, every group listed."""

from __future__ import annotations

import pandas as pd

from spark_assign.report.consumer.whatif import render_what_if_html
from spark_assign.state.consumer.whatif import WHAT_IF_COLUMNS, summarize

from .test_report import parse, table_rows


def figures() -> pd.DataFrame:
    rows = [("restart", "paiements-€", 3, 6, 0, 4, 2, 0, 0, 2, 1),
            ("strategy:sticky", "paiements-€", 3, 6, 0, 6, 0, 0, 0, 6, 1),
            ("strategy:sticky", "заказы", 1, 8, 0, 8, 0, 0, 0, 8, 1)]
    return pd.DataFrame(rows, columns=WHAT_IF_COLUMNS)


def test_the_page_draws_moved_and_paused_per_scenario_and_lists_every_group(tmp_path):
    data = figures()
    labels = ["as given", "restart", "strategy:sticky"]
    path = render_what_if_html(data, summarize(data, labels), {"restart": "one member restarts"}, "What if",
                               "against ./state", tmp_path / "w.html")
    root = parse(open(path, encoding="utf-8").read())
    bars = {(r.get("data-scenario"), r.get("data-series")): int(r.get("data-value"))
            for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("data-scenario")}
    assert bars == {("as given", "moved"): 0, ("as given", "paused"): 0, ("restart", "moved"): 2,
                    ("restart", "paused"): 2, ("strategy:sticky", "moved"): 0, ("strategy:sticky", "paused"): 14}
    scenarios = table_rows(root, "what-if-table")
    assert [r[0] for r in scenarios] == labels and scenarios[1][1] == "one member restarts"
    assert [r[:2] for r in table_rows(root, "what-if-groups")] == [
        ["restart", "paiements-€"], ["strategy:sticky", "paiements-€"], ["strategy:sticky", "заказы"]]

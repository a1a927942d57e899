"""The report's load figures (rows with weights): exact definitions, the load section of the page,
and the page in a real headless browser."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from spark_assign.report import render_html, strategy_colours
from spark_assign.report.consumer.load import group_loads, load_balance, member_loads
from spark_assign.report.consumer.metrics import Figures

from .chromium import browser, find_chromium  # noqa: F401 (browser: a fixture)
from .fleets import COLUMNS, STICKY, simulate, simulate_load, small_rows
from .test_report import by_id, marks, parse, pixel_shares, table_rows

LOAD = "load-aware"
LOAD_CHARTS = ["imbalance-chart", "bound-chart", "weight-moved-chart"]


def weighed_rows() -> pd.DataFrame:
    """sticky g1 of :func:`small_rows` with weights: gen 1 a={9, 1} b={1, 1}; gen 2 c takes t0-1 (weight 1)."""
    rows = small_rows()
    rows = rows[(rows["strategy"] == STICKY) & (rows["group_id"] == "g1")].copy()
    rows["weight"] = [9.0, 1.0, 1.0, 1.0, 9.0, 1.0, 1.0, 1.0]
    return rows


def test_load_balance_exact_figures():
    rows = pd.DataFrame({"group_id": ["g"] * 3, "member_id": ["a", "a", "b"], "weight": [5.0, 1.0, 2.0]})
    members = pd.DataFrame({"group_id": ["g"] * 3, "member_id": ["a", "b", "c"]})
    got = load_balance(rows, ["group_id"], members).loc["g"]
    assert (got.total_weight, got.largest_weight, got.heaviest_load) == (8.0, 5.0, 6.0)
    assert math.isclose(got.mean_load, 8 / 3) and got.lower_bound == 5.0
    assert math.isclose(got.imbalance, 6 / (8 / 3)) and math.isclose(got.vs_bound, 1.2)
    unweighed = rows.assign(weight=None)
    assert load_balance(unweighed, ["group_id"], members).isna().all(axis=None)


def test_group_loads_count_weight_moved_and_members_owning_nothing():
    figures = Figures(weighed_rows())
    loads = figures.load_per_group.set_index("generation")
    assert loads.loc[1, "heaviest_load"] == 10.0 and loads.loc[1, "imbalance"] == 10.0 / 6.0
    assert loads.loc[2, "heaviest_load"] == 9.0 and loads.loc[2, "mean_load"] == 4.0      # a, b, c
    assert loads.loc[2, "weight_moved"] == 1.0 and math.isclose(loads.loc[2, "weight_moved_share"], 1 / 12)
    assert loads.loc[2, "lower_bound"] == 9.0 and loads.loc[2, "vs_bound"] == 1.0
    per_member = member_loads(figures.rows, figures.everyone, STICKY, "g1")
    assert per_member[per_member["generation"] == 2].set_index("member_id")["load"].to_dict() == \
        {"a": 9.0, "b": 2.0, "c": 1.0}
    assert group_loads(small_rows(), figures.everyone)["imbalance"].isna().all()       # no weights


def test_page_has_a_load_section_only_with_weights():
    plain = parse(render_html(small_rows()))
    assert not [e for e in plain.iter() if e.get("id") == "load"]
    rows = simulate_load()
    root = parse(render_html(rows, title="Load"))
    by_id(root, "load")
    for chart in LOAD_CHARTS:
        assert marks(root, chart), chart
    figures = Figures(rows)
    lm = figures.load_per_step.set_index(["strategy", "step", "follow_up"])
    imbalance = marks(root, "imbalance-chart")
    for (s, series, step, f), value in imbalance.items():
        assert math.isclose(value, lm.loc[(s, step, f), series], rel_tol=1e-3), (s, series, step)
    bound = marks(root, "bound-chart")
    assert max(v for (s, k, *_), v in bound.items() if s == LOAD and k == "vs_bound_max") < 1.25
    assert min(v for (s, k, *_), v in bound.items() if s == STICKY and k == "vs_bound_max") > 1.5
    compare = {r[0]: r[1:] for r in table_rows(root, "compare-table")}
    assert float(compare["Mean heaviest load / lower bound"][0]) < float(compare["Mean heaviest load / lower bound"][1])
    per_step = table_rows(root, "generations-table")
    assert len(per_step[0]) == 16 + 4                                   # the load columns too
    members = [e for e in root.iter() if (e.get("id") or "").startswith("members-load-") and e.tag.endswith("svg")]
    assert len(members) == 2                                             # one group per strategy


def test_rows_without_weight_column_still_render():
    rows = simulate(n_groups=3, generations=3).drop(columns=["weight"], errors="ignore")
    assert "id=\"load\"" not in render_html(rows)
    assert set(COLUMNS) >= {"weight"}


needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="no Chromium binary on PATH")


@needs_chromium
def test_load_charts_render_in_headless_chromium(browser, tmp_path):  # noqa: F811
    path = tmp_path / "load.html"
    render_html(simulate_load(), title="Load", path=path)
    browser.open(path.as_uri(), width=1280, height=900)
    assert browser.evaluate("document.body.getAttribute('data-js-error')") is None
    charts = browser.evaluate("Array.from(document.querySelectorAll('#load svg.chart')).map(e => {"
                              "const r = e.getBoundingClientRect(); return [e.id, r.x, r.y + scrollY, r.width, r.height,"
                              " e.querySelectorAll('[data-value]').length]; })")
    assert len(charts) == 5 and {c[0] for c in charts} >= set(LOAD_CHARTS)
    colours = strategy_colours([STICKY, LOAD])
    for chart_id, x, y, width, height, n_marks in charts:
        assert width > 300 and height > 150 and n_marks > 0, chart_id
        shares = pixel_shares(browser.screenshot(clip={"x": x, "y": y, "width": width, "height": height}, scale=0.5),
                              colours)
        assert shares["ink"] > 0.02, f"{chart_id} looks blank: {shares}"
        drawn = [s for s in colours if shares[s] > 0.0008]
        assert drawn == list(colours) if chart_id in LOAD_CHARTS[:2] else drawn, (chart_id, shares)
    assert browser.errors == []

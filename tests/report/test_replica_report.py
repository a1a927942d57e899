"""The replica report: exact figures of a hand-made replica table, a well-formed page, and headless Chromium.

The table: cluster ``c1`` (brokers 1, 2, 3 on racks a, b, c; topic ``t``, 3
partitions x RF 2) is placed, then broker 4 (rack a) joins and takes two
replicas, one of them a preferred leader; cluster ``c2`` has one replica.
Every figure below is counted by hand from those rows.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd
import pyarrow as pa
import pytest

from spark_assign.errors import InvalidInputError, SchemaError
from spark_assign.report.replicas.html import render_replica_html
from spark_assign.report.replicas.data import (broker_load, generation_figures, latest_replicas, rack_load, rack_spread,
                                          rebalance_figures)

from .chromium import browser, find_chromium  # noqa: F401 (browser: a fixture)
from .test_report import by_id, chart_boxes, pixel_shares, table_rows

RACK = {1: "a", 2: "b", 3: "c", 4: "a", 7: None}
#: (cluster, generation, commit_version, partition -> [(broker, previous broker, status), ...])
PLACEMENTS = [
    ("c1", 1, 1, {0: [(1, None, "new"), (2, None, "new")], 1: [(2, None, "new"), (3, None, "new")],
                  2: [(3, None, "new"), (1, None, "new")]}),
    ("c2", 1, 1, {0: [(7, None, "new")]}),
    ("c1", 2, 2, {0: [(1, 1, "kept"), (2, 2, "kept")], 1: [(4, 2, "moved"), (3, 3, "kept")],
                  2: [(3, 3, "kept"), (4, 1, "moved")]}),
]
COMMITS = [{"version": 0, "spark_assign": None}, {"version": 1, "spark_assign": {"lower_bound": 0}},
           {"version": 2, "spark_assign": {"lower_bound": 2}}]


def rows() -> pd.DataFrame:
    out = []
    for cluster, generation, version, partitions in PLACEMENTS:
        for p, replicas in partitions.items():
            for i, (broker, before, status) in enumerate(replicas):
                out.append({"cluster_id": cluster, "generation": generation, "topic": "t" if cluster == "c1" else "u",
                            "partition": p, "replica_index": i, "broker_id": broker, "rack": RACK[broker],
                            "is_preferred_leader": i == 0, "previous_broker_id": before, "status": status,
                            "method": "striped" if generation == 1 else "sticky",
                            "committed_at": pd.Timestamp(f"2024-05-0{version} 12:00", tz="UTC"),
                            "input_fingerprint": f"{cluster}{generation}", "commit_version": version})
    return pd.DataFrame(out)


def test_figures_per_rebalance_broker_rack_and_generation():
    frame = rows()
    steps = rebalance_figures(frame, COMMITS)
    assert steps[["step", "commit_version", "clusters", "partitions", "new", "kept", "moved",
                  "leaders_changed"]].values.tolist() == [[1, 1, 2, 4, 7, 0, 0, 0], [2, 2, 1, 3, 0, 4, 2, 1]]
    assert steps["lower_bound"].tolist() == [0.0, 2.0]
    assert rebalance_figures(frame)["lower_bound"].isna().all()            # no commits: unknown
    latest = latest_replicas(frame)
    assert len(latest) == 7 and set(latest.loc[latest["cluster_id"] == "c1", "generation"]) == {2}
    load = broker_load(latest)
    assert load.values.tolist() == [["c1", 1, "a", 1, 1], ["c1", 2, "b", 1, 0], ["c1", 3, "c", 2, 1],
                                    ["c1", 4, "a", 2, 1], ["c2", 7, None, 1, 1]]
    given = pd.DataFrame({"cluster_id": ["c1"] * 5, "broker_id": [1, 2, 3, 4, 5], "rack": ["a", "b", "c", "a", "b"]})
    assert broker_load(latest[latest["cluster_id"] == "c1"], given).iloc[-1].tolist() == ["c1", 5, "b", 0, 0]
    assert rack_load(latest).values.tolist() == [["c1", "a", 2, 3, 2], ["c1", "b", 1, 1, 0], ["c1", "c", 1, 2, 1],
                                                 ["c2", "(none)", 1, 1, 1]]
    assert rack_spread(latest).values.tolist() == [["c1", 2, 3, 3, 2], ["c2", 0, 1, 0, 1]]
    gm = generation_figures(frame).set_index(["cluster_id", "generation"])
    assert gm.loc[("c1", 2), ["brokers", "racks", "partitions", "new", "kept", "moved", "leaders_changed",
                              "replicas_min", "replicas_max", "leaders_min", "leaders_max"]].tolist() == \
        [4, 3, 3, 0, 4, 2, 1, 1, 2, 0, 1]
    assert gm.loc[("c1", 1), "methods"] == "striped" and gm.loc[("c1", 1), "replicas_max"] == 2


def test_page_is_well_formed_and_holds_the_figures(tmp_path):
    page = render_replica_html(pa.Table.from_pandas(rows()), title="Replicas <fleet>", path=tmp_path / "r.html",
                               commits=COMMITS)
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page
    root = ET.fromstring(page.split("\n", 1)[1])
    kpis = {e.get("data-kpi"): "".join(e.itertext()) for e in root.iter() if e.get("data-kpi")}
    assert kpis["Replicas moved"].startswith("2") and kpis["Leaders changed"].startswith("1")
    assert kpis["Moves / lower bound"].startswith("1") and kpis["Clusters"].startswith("2")
    moves = {(e.get("data-series"), int(e.get("data-step"))): float(e.get("data-value"))
             for e in by_id(root, "replica-moves-chart").iter() if e.get("data-step")}
    assert moves == {("new", 1): 7.0, ("moved", 2): 2.0}
    bound = {(e.get("data-series"), int(e.get("data-step"))): float(e.get("data-value"))
             for e in by_id(root, "replica-bound-chart").iter() if e.get("data-step")}
    assert bound[("lower_bound", 2)] == 2.0 and bound[("leaders_changed", 2)] == 1.0 and bound[("moved", 1)] == 0
    bars = {(e.get("data-cluster"), int(e.get("data-broker")), e.get("data-series")): int(e.get("data-value"))
            for e in root.iter() if e.get("data-broker")}
    assert bars[("c1", 4, "replicas")] == 2 and bars[("c1", 2, "leaders")] == 0 and bars[("c2", 7, "replicas")] == 1
    assert table_rows(root, "rebalances-table")[1] == ["2", "2", "1", "3", "0", "4", "2", "2", "1"]
    assert ["c1", "4", "a", "2", "1"] in table_rows(root, "brokers-table")
    assert "Replicas &lt;fleet&gt;" in page


def test_empty_and_bad_rows():
    empty = render_replica_html(rows().iloc[:0])
    assert 'id="no-data"' in empty
    with pytest.raises(SchemaError, match="broker_id"):
        render_replica_html(rows().drop(columns="broker_id"))
    with pytest.raises(InvalidInputError, match="status") as error:
        render_replica_html(rows().assign(status="revoked"))
    assert error.value.column == "status"
    with pytest.raises(InvalidInputError, match="top"):
        render_replica_html(rows(), top=0)


needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="no Chromium binary on PATH")


@needs_chromium
def test_replica_report_renders_in_headless_chromium(browser, tmp_path):
    path = tmp_path / "replicas.html"
    render_replica_html(rows(), path=path, commits=COMMITS)
    charts = chart_boxes(browser, path)
    assert sorted(c[0] for c in charts) == ["brokers-chart-0", "brokers-chart-1", "replica-bound-chart",
                                            "replica-moves-chart"]
    for chart_id, x, y, width, height, n_marks in charts:
        assert width > 300 and height > 20 and n_marks > 0, chart_id
        png = browser.screenshot(clip={"x": x, "y": y, "width": width, "height": height}, scale=0.5)
        assert pixel_shares(png, {"blue": "#0072B2"})["blue"] > 0.001, chart_id      # bars and lines drawn
    broker_column = "Array.from(document.querySelectorAll('#brokers-table tbody tr')).map(r => r.cells[3].textContent)"
    browser.evaluate("document.querySelectorAll('#brokers-table thead th')[3].click()")   # Replicas, ascending
    assert browser.evaluate(broker_column) == ["1", "1", "1", "2", "2"]
    assert browser.errors == []
    assert all(url.startswith(("file:", "data:", "about:")) for url in browser.requests), browser.requests

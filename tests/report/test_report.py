"""The HTML report: exact metrics, a well-formed self-contained page, and a real headless browser."""

from __future__ import annotations

import os
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List

import pandas as pd
import pyarrow as pa
import pytest

from spark_assign.errors import InvalidInputError, SchemaError
from spark_assign.report import (balance, format_partitions, group_metrics, group_summary, latest_assignment, metrics,
                                 render_html, strategy_colours)

from .chromium import browser, decode_png, find_chromium  # noqa: F401 (browser: a fixture)
from .fleets import COLUMNS, COOP, STICKY, expected_metrics, simulate, small_rows, synthetic_fleet

CHARTS = ["moves-chart", "balance-chart", "members-chart", "groups-chart"]


# ----------------------------------------------------------------- helpers
def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse(page: str) -> ET.Element:
    """Parse the page as XML: proves it is well-formed (every tag closed, attributes quoted)."""
    return ET.fromstring(page.split("\n", 1)[1])  # past <!DOCTYPE html>


def by_id(root: ET.Element, element_id: str) -> ET.Element:
    found = [e for e in root.iter() if e.get("id") == element_id]
    assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
    return found[0]


def marks(root: ET.Element, chart_id: str) -> Dict[tuple, float]:
    """{(strategy, series, step, follow-up round): value} of a chart's bars and points."""
    return {(e.get("data-strategy"), e.get("data-series"), int(e.get("data-step")), int(e.get("data-follow-up"))):
            float(e.get("data-value")) for e in by_id(root, chart_id).iter() if e.get("data-step") is not None}


def table_rows(root: ET.Element, table_id: str) -> List[List[str]]:
    body = next(e for e in by_id(root, table_id) if local(e.tag) == "tbody")
    return [["".join(td.itertext()).strip() for td in tr] for tr in body]


# ----------------------------------------------------------------- metrics
def test_metrics_exact_figures():
    m = metrics(small_rows())
    assert list(zip(m["strategy"], m["step"], m["follow_up"])) == list(expected_metrics())
    for row in m.to_dict("records"):
        expected = expected_metrics()[(row["strategy"], row["step"], row["follow_up"])]
        assert {k: row[k] for k in expected} == expected
    assert m.loc[(m["strategy"] == COOP) & (m["step"] == 3), "committed_at"].item() == \
        pd.Timestamp("2024-05-03 12:00", tz="UTC")


def test_group_metrics_count_revoking_members_and_spread():
    gm = group_metrics(small_rows()).set_index(["strategy", "group_id", "generation"])
    # f revokes its only partition: present with 0 partitions next to e's 1.
    assert gm.loc[(COOP, "g3", 3), ["members", "min_partitions", "max_partitions", "spread"]].tolist() == [2, 0, 1, 1]
    # a revokes t0-1 and keeps t0-0; c, the receiver, owns nothing yet and leaves no row.
    assert gm.loc[(COOP, "g1", 2), ["members", "min_partitions", "max_partitions", "spread"]].tolist() == [2, 1, 2, 1]
    assert gm.loc[(STICKY, "g1", 2), ["partitions", "kept", "moved", "members", "spread"]].tolist() == [4, 3, 1, 3, 1]
    assert len(gm) == 7


def test_spread_has_one_definition_members_owning_nothing_count_when_given():
    # 3 subscribed members, 2 partitions: c owns nothing; spread = 1 - 0 (Kafka's balance, over every member).
    rows = small_rows().iloc[:2].assign(group_id="g2", generation=1, member_id=["a", "b"], status="new",
                                         previous_member_id=None)
    subscribed = pd.DataFrame({"group_id": "g2", "member_id": ["a", "b", "idle"]})
    got = balance(rows, ["group_id"], subscribed).loc["g2"].tolist()
    assert got == [3, 0, 1, 1]                                     # members, min, max, spread
    gm = group_metrics(rows, members=subscribed)
    assert gm[["members", "min_partitions", "max_partitions", "spread"]].values.tolist() == [got]
    assert group_metrics(rows)["spread"].tolist() == [0]         # without members= the idle one is unknown
    recorded = rows.assign(members=3)                              # ... unless the rows record the count (format 3)
    assert balance(recorded, ["group_id"]).loc["g2"].tolist() == got
    assert group_metrics(recorded)[["members", "spread"]].values.tolist() == [[3, 1]]
    assert group_summary(rows, members=subscribed)["spread"].tolist() == [1]
    assert balance(rows.iloc[:0], ["group_id"], subscribed).empty
    with pytest.raises(InvalidInputError) as e:
        balance(rows, ["group_id"], ["idle"])
    assert e.value.column == "members"


def test_group_summary_orders_by_movement_and_keeps_top():
    s = group_summary(small_rows())
    assert list(zip(s["strategy"], s["group_id"], s["movement"])) == [
        (COOP, "g1", 1), (COOP, "g3", 1), (STICKY, "g1", 1), (STICKY, "g2", 0)]
    first = s.iloc[0]
    assert (first["generations"], first["revoked"], first["assigned"], first["members"], first["partitions"]) == \
        (3, 1, 1, 3, 4)
    assert len(group_summary(small_rows(), top=2)) == 2
    with pytest.raises(InvalidInputError):
        group_summary(small_rows(), top=-1)


def test_latest_assignment_per_member():
    a = latest_assignment(small_rows(), groups=[(COOP, "g3"), (STICKY, "g2")])
    got = {(r["group_id"], r["member_id"]): (r["generation"], r["partitions"], r["revoking"], r["assignment"])
           for r in a.to_dict("records")}
    assert got == {("g3", "e"): (3, 1, 0, "t2 0"), ("g3", "f"): (3, 0, 1, ""), ("g2", "d"): (2, 2, 0, "t1 0-1")}
    assert a.loc[a["member_id"] == "d", "group_instance_id"].item() == "static-d"
    with pytest.raises(InvalidInputError, match="pairs"):
        latest_assignment(small_rows(), groups=["g3"])
    assert latest_assignment(small_rows(), groups=[]).empty
    everyone = latest_assignment(small_rows())
    c = everyone[(everyone["strategy"] == COOP) & (everyone["member_id"] == "c")].iloc[0]
    assert (c["generation"], c["assigned"], c["partitions"]) == (3, 1, 1)


def test_format_partitions_compacts_ranges():
    assert format_partitions([("b", 5), ("a", 2), ("a", 0), ("a", 1), ("a", 7), ("b", 6)]) == "a 0-2, 7; b 5-6"
    assert format_partitions([]) == ""


@pytest.mark.parametrize("convert", [
    pa.Table.from_pandas,
    lambda df: df.convert_dtypes(dtype_backend="pyarrow"),
    lambda df: pa.Table.from_pandas(df.convert_dtypes(dtype_backend="pyarrow")),
    lambda df: df.astype({"generation": "int32", "partition": "int16", "strategy": "category"}),
    lambda df: df.assign(committed_at=df["committed_at"].dt.tz_localize(None)),  # naive = UTC
], ids=["arrow-table", "arrow-dtypes", "arrow-table-of-arrow-dtypes", "narrow-ints", "naive-times"])
def test_other_input_types_give_the_same_figures(convert):
    df = small_rows()
    pd.testing.assert_frame_equal(metrics(convert(df)), metrics(df))


def test_optional_columns_may_be_missing():
    df = small_rows().drop(columns=["committed_at", "input_fingerprint", "group_instance_id"])
    assert metrics(df)["moved"].sum() == 1


def test_input_errors_name_the_problem():
    with pytest.raises(SchemaError, match="status"):
        metrics(small_rows().drop(columns=["status"]))
    bad = small_rows()
    bad.loc[3, "status"] = "stolen"
    with pytest.raises(InvalidInputError, match="unknown status") as err:
        metrics(bad)
    assert err.value.column == "status" and err.value.rows[0]["status"] == "stolen"
    nulls = small_rows()
    nulls.loc[0, "group_id"] = None
    with pytest.raises(InvalidInputError, match="null group_id"):
        metrics(nulls)
    with pytest.raises(InvalidInputError, match="pandas DataFrame"):
        metrics([{"group_id": "g"}])
    for kwargs in ({"top": 0}, {"title": 3}, {"max_members": True}, {"path": 12}):
        with pytest.raises(InvalidInputError):
            render_html(small_rows(), **kwargs)


def test_strategy_colours_are_stable_and_distinct():
    colours = strategy_colours(["zeta", STICKY, COOP, "alpha"])
    assert colours[STICKY] == strategy_colours([STICKY])[STICKY]
    assert len(set(colours.values())) == 4


# ----------------------------------------------------------------- HTML
def test_page_is_well_formed_and_holds_the_figures(tmp_path):
    path = tmp_path / "report.html"
    page = render_html(small_rows(), title="Fleet <A&B>", path=path)
    assert path.read_text(encoding="utf-8") == page
    root = parse(page)
    assert "".join(by_id(root, "summary").find(".//{*}h1").itertext()) == "Fleet <A&B>"
    for chart in CHARTS + ["compare-chart"]:
        svg = by_id(root, chart)
        assert local(svg.tag) == "svg" and "chart" in svg.get("class").split()
    moves = marks(root, "moves-chart")
    assert moves[(STICKY, "moved", 2, 0)] == 1
    assert moves[(COOP, "revoked", 2, 0)] == 1 and moves[(COOP, "revoked", 3, 0)] == 1
    assert moves[(COOP, "assigned", 3, 0)] == 1
    assert not any(s == STICKY and k in ("revoked", "assigned") for s, k, *_ in moves)  # zero: no bar
    balance = marks(root, "balance-chart")
    assert balance[(STICKY, "spread_mean", 2, 0)] == 0.5 and balance[(COOP, "spread_max", 3, 0)] == 1
    members = marks(root, "members-chart")
    assert members[(COOP, "members_mean", 3, 0)] == 2.5 and members[(STICKY, "members_max", 2, 0)] == 3
    groups = marks(root, "groups-chart")
    assert groups[(COOP, "groups_with_moves", 3, 0)] == 1 and groups[(COOP, "groups_calm", 3, 0)] == 1

    kpis = {e.get("data-kpi"): "".join(e.itertext()) for e in root.iter() if e.get("data-kpi")}
    assert kpis["Groups"].startswith("4") and kpis["Partitions moved"].startswith("1")
    assert kpis["Steps"].startswith("3")
    assert kpis["Revoked (pending)"].startswith("2") and kpis["Transfers completed"].startswith("1")

    rows = table_rows(root, "groups-table")
    assert [r[:2] for r in rows] == [[COOP, "g1"], [COOP, "g3"], [STICKY, "g1"], [STICKY, "g2"]]
    # ..., spread, worst spread, paused (cooperative: the one revoked), moved, ..., movement, follow-ups
    assert rows[0][2:13] == ["3", "3", "4", "1", "1", "1", "0", "1", "1", "1", "0"]
    compare = {r[0]: r[1:] for r in table_rows(root, "compare-table")}
    assert compare["Partitions moved or revoked"] == ["2", "1"]  # cooperative-sticky first
    # Eager sticky pauses every partition its groups owned when they rebalanced, not only the one it moved.
    paused = compare["Partitions paused (eager: all the group owned)"]
    assert int(paused[0]) == 2 and int(paused[1]) > int(compare["Partitions moved or revoked"][1])
    best = [[td.get("class") for td in tr][1:] for tr in by_id(root, "compare-table").iter() if local(tr.tag) == "tr"]
    labels = [r[0] for r in table_rows(root, "compare-table")]
    movement = best[1 + labels.index("Partitions moved or revoked")]
    assert movement == ["num", "num best"]  # sticky moved fewer partitions: starred
    starred = best[1 + labels.index("Partitions paused (eager: all the group owned)")]
    assert starred == (["num best", "num"] if int(paused[0]) < int(paused[1]) else ["num", "num best"])
    assert compare["Transfers completed (assigned)"] == ["1", "0"]
    per_gen = table_rows(root, "generations-table")
    assert len(per_gen) == 5 and per_gen[2][:11] == [COOP, "3", "2", "0", "1", "6", "0", "4", "0", "1", "1"]


def test_member_tables_show_latest_assignment():
    root = parse(render_html(small_rows()))
    details = [e for e in root.iter() if local(e.tag) == "details" and "group" in e.get("class", "").split()]
    assert len(details) == 4
    g3 = next(d for d in details if "g3" in "".join(d.find("{*}summary").itertext()))
    table = next(e for e in g3.iter() if local(e.tag) == "table")
    assert table_rows(root, table.get("id")) == [["e", "1", "1", "0", "0", "0", "0", "t2 0"],
                                                 ["f", "0", "0", "0", "0", "0", "1", ""]]
    g2 = next(d for d in details if "g2" in "".join(d.find("{*}summary").itertext()))
    assert "static-d" in "".join(g2.itertext())  # instance ids shown when a group has them


def test_page_is_self_contained():
    page = render_html(small_rows())
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg"}
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\((?!#)", page)


def test_single_strategy_single_generation_has_no_comparison():
    df = small_rows()
    one = df[(df["strategy"] == STICKY) & (df["generation"] == 1)]
    root = parse(render_html(one))
    ids = {e.get("id") for e in root.iter()}
    assert set(CHARTS) <= ids and "compare-chart" not in ids and "compare-table" not in ids
    assert marks(root, "balance-chart") == {(STICKY, "spread_mean", 1, 0): 0, (STICKY, "spread_max", 1, 0): 0}
    assert any(local(e.tag) == "text" and e.get("class") == "empty-note" for e in by_id(root, "moves-chart").iter())


@pytest.mark.parametrize("empty", [pd.DataFrame(columns=COLUMNS), small_rows().iloc[:0]])
def test_empty_input_gives_a_no_data_page(empty):
    assert metrics(empty).empty and group_summary(empty).empty and latest_assignment(empty).empty
    root = parse(render_html(empty, title="Nothing yet"))
    assert "No data" in "".join(by_id(root, "no-data").itertext())
    assert not [e for e in root.iter() if local(e.tag) == "svg"]


def test_awkward_names_are_escaped():
    df = small_rows()
    df.loc[df["group_id"] == "g2", "group_id"] = "orders<&>\"'\u00e9"
    df.loc[df["member_id"] == "d", "member_id"] = "d</td><script>x</script>"
    root = parse(render_html(df))
    assert "orders<&>\"'\u00e9" in [r[1] for r in table_rows(root, "groups-table")]
    assert not [e for e in root.iter() if local(e.tag) == "script" and "x" == (e.text or "")]


def test_large_fleet_is_aggregated_and_small():
    fleet = synthetic_fleet(groups=10_000, generations=4)
    page = render_html(fleet, top=20)
    assert len(page.encode()) < 600_000
    root = parse(page)
    assert len(table_rows(root, "groups-table")) == 20
    assert sum(1 for e in root.iter() if local(e.tag) == "details" and "group" in e.get("class", "")) == 20
    m = metrics(fleet)
    assert m.loc[m["step"] == 1, "groups_rebalanced"].tolist() == [10_000, 10_000]
    assert int(m["partitions"].sum()) == len(fleet)


# ----------------------------------------------------------------- browser
CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium binary on PATH (Debian: apt-get install -y chromium)")


def chart_boxes(browser, path: Path) -> List[list]:
    """Open the report at ``path`` (1280 x 900), check that its script ran without an error, and
    return each chart's ``[id, x, y, width, height, marks with a data-value]`` on the page."""
    browser.open(path.as_uri(), width=1280, height=900)
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    assert browser.evaluate("document.body.getAttribute('data-js-error')") is None
    return browser.evaluate("Array.from(document.querySelectorAll('svg.chart')).map(e => {"
                            "const r = e.getBoundingClientRect(); return [e.id, r.x, r.y + scrollY, r.width, r.height,"
                            " e.querySelectorAll('[data-value]').length]; })")


def pixel_shares(png: bytes, colours: Dict[str, str], tolerance: int = 24) -> Dict[str, float]:
    """Share of pixels that are ink (not near white), and near each of ``colours`` (per channel)."""
    width, height, rows = decode_png(png)
    targets = {name: [int(c[i:i + 2], 16) for i in (1, 3, 5)] for name, c in colours.items()}
    counts = dict.fromkeys(["ink", *targets], 0)
    for row in rows:
        for x in range(0, width * 4, 4):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if min(r, g, b) < 235:
                counts["ink"] += 1
                for name, (tr, tg, tb) in targets.items():
                    if abs(r - tr) <= tolerance and abs(g - tg) <= tolerance and abs(b - tb) <= tolerance:
                        counts[name] += 1
    return {name: n / (width * height) for name, n in counts.items()}


@needs_chromium
def test_report_renders_in_headless_chromium(browser, tmp_path):
    path = tmp_path / "fleet.html"
    render_html(simulate(n_groups=16, generations=6), title="Simulated fleet", path=path)
    charts = chart_boxes(browser, path)
    assert sorted(c[0] for c in charts) == sorted(CHARTS + ["compare-chart"])
    colours = strategy_colours([STICKY, COOP])
    for chart_id, x, y, width, height, n_marks in charts:
        assert width > 400 and height > 150 and n_marks > 0, chart_id
        png = browser.screenshot(clip={"x": x, "y": y, "width": width, "height": height}, scale=0.5)
        shares = pixel_shares(png, colours)
        assert shares["ink"] > 0.02, f"{chart_id} looks blank: {shares}"
        for strategy in colours:  # every chart draws both strategies in their colours
            assert shares[strategy] > 0.0008, f"no {strategy} marks in {chart_id}: {shares}"
    assert browser.errors == []
    assert all(url.startswith(("file:", "data:", "about:")) for url in browser.requests), browser.requests
    screenshot = Path(os.environ.get("REPORT_SCREENSHOT", tmp_path / "report.png"))
    screenshot.write_bytes(browser.screenshot(full_page=True))
    assert struct.unpack(">II", screenshot.read_bytes()[16:24])[0] == 1280  # IHDR width


@needs_chromium
def test_tables_sort_and_filter_in_chromium(browser, tmp_path):
    path = tmp_path / "small.html"
    render_html(small_rows(), path=path)
    browser.open(path.as_uri())
    column = "Array.from(document.querySelectorAll('#groups-table tbody tr')).map(r => r.cells[1].textContent)"
    browser.evaluate("document.querySelectorAll('#groups-table thead th')[1].click()")
    assert browser.evaluate(column) == ["g1", "g1", "g2", "g3"]
    browser.evaluate("document.querySelectorAll('#groups-table thead th')[1].click()")
    assert browser.evaluate(column) == ["g3", "g2", "g1", "g1"]
    browser.evaluate("const f = document.getElementById('group-filter'); f.value = 'g3';"
                     " f.dispatchEvent(new Event('input'))")
    browser.evaluate("document.querySelectorAll('#groups-table thead th')[3].click()")  # Members, numeric
    members = "Array.from(document.querySelectorAll('#groups-table tbody tr')).map(r => r.cells[3].textContent)"
    assert browser.evaluate(members) == ["1", "2", "3", "3"]
    visible = "Array.from(document.querySelectorAll('#groups-table tbody tr')).filter(r => !r.hidden).length"
    assert browser.evaluate(visible) == 1
    assert browser.errors == []


@needs_chromium
def test_narrow_screen_and_no_data_page_in_chromium(browser, tmp_path):
    path = tmp_path / "small.html"
    render_html(small_rows(), path=path)
    browser.open(path.as_uri(), width=420, height=800)
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert browser.evaluate("document.getElementById('moves-chart').getBoundingClientRect().width") < 420
    empty = tmp_path / "empty.html"
    render_html(pd.DataFrame(columns=COLUMNS), path=empty)
    browser.open(empty.as_uri())
    assert browser.evaluate("document.getElementById('no-data').offsetHeight") > 50
    assert browser.errors == []



@needs_chromium
def test_the_groups_table_fits_a_1400_pixel_window_with_long_group_ids(browser, tmp_path):
    rows = simulate(n_groups=16, generations=6)
    long_ids = {g: f"consumer-group-of-the-payments-platform-{g}-Zahlungsdienst-支払い-{'x' * 30}"
                for g in rows["group_id"].unique()}
    rows = rows.assign(group_id=rows["group_id"].map(long_ids))
    path = tmp_path / "wide.html"
    render_html(rows, title="Long ids", path=path)
    browser.open(path.as_uri(), width=1400, height=900)
    wrap = "document.getElementById('groups-table').closest('.table-wrap')"
    assert browser.evaluate(f"{wrap}.scrollWidth <= {wrap}.clientWidth"), browser.evaluate(
        f"[{wrap}.scrollWidth, {wrap}.clientWidth]")
    history = browser.evaluate("document.querySelector('#groups-table thead th:last-child').getBoundingClientRect()"
                               ".right")
    assert history <= 1400
    link = "document.querySelector('#groups-table a.group-id')"
    assert browser.evaluate(f"{link}.textContent") in long_ids.values()    # the whole id, wrapped over lines
    assert browser.evaluate(f"{link}.getBoundingClientRect().height") > 40            # several lines
    assert browser.errors == []


@needs_chromium
def test_the_browser_harness_sees_console_errors(browser, tmp_path):
    """Guards the assertions above: a broken page must not pass as error-free."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('boom'); notDefined();</script>"
                    "</body></html>", encoding="utf-8")
    before = len(browser.errors)
    browser.open(page.as_uri())
    new = browser.errors[before:]
    assert any("boom" in e for e in new) and any("notDefined" in e for e in new), new
    del browser.errors[before:]


def test_writing_a_report_shows_its_stages_when_progress_is_asked_for(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARK_ASSIGN_PROGRESS", "1")
    render_html(small_rows(), path=tmp_path / "r.html")
    shown = capsys.readouterr().err
    assert all(stage in shown for stage in ("figures", "charts", "tables", "write")), shown
    assert (tmp_path / "r.html").stat().st_size > 0

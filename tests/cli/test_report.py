"""``spark-assign report``: one self-contained HTML file from a table, checked as XML and in Chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from spark_assign.report import strategy_colours

from ..report.chromium import browser, find_chromium  # noqa: F401 (browser: a fixture)
from ..report.test_report import CHARTS, by_id, local, marks, parse, pixel_shares, table_rows
from .conftest import text_table
from .test_agreement import slots_by_version, step_text

CHROMIUM = find_chromium()
STRATEGIES = ("sticky", "cooperative-sticky")


class _Balance(HTMLParser):
    """Checks that every opened element (but the void ones) is closed, in order."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "col", "source", "wbr", "area", "base"}

    def __init__(self):
        super().__init__()
        self.stack, self.problems = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):  # <path ... />: opened and closed
        pass

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(tag)


@pytest.fixture(scope="module")
def report(spark, simulated, tmp_path_factory):
    from .conftest import run_cli

    out = tmp_path_factory.mktemp("report") / "fleet.html"
    run = run_cli("report", "--table", simulated.table, "--out", out, "--title", "Fleet <CLI> & co", "--top", "3")
    return run, out


def test_report_writes_one_valid_html_file(report):
    run, path = report
    assert run.status == 0, run.err
    assert run.out == f"Report: {path}\n"
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    checker = _Balance()
    checker.feed(page)
    checker.close()
    assert checker.problems == [] and checker.stack == []
    parse(page)  # well-formed as XML too
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import", page)  # self-contained


def test_report_holds_the_tables_figures(report, simulated):
    _, path = report
    rows = simulated.rows
    root = parse(path.read_text(encoding="utf-8"))
    assert "".join(by_id(root, "summary").find(".//{*}h1").itertext()) == "Fleet <CLI> & co"

    # Every commit is a step or a follow-up of one strategy: the simulation's summary says which.
    slots = slots_by_version(text_table(simulated.run.out))
    rows = rows.assign(slot=[slots[int(v)] for v in rows["commit_version"]])

    # moves-chart: partitions moved, revoked and assigned per strategy, step and follow-up, from the raw rows.
    counted = rows[rows["status"].isin(["moved", "revoked", "assigned"])].groupby(["slot", "status"]).size()
    assert marks(root, "moves-chart") == {(s, st, step, f): float(n) for ((s, step, f), st), n in counted.items()}

    # members-chart: members per group (owners, and the members receiving a partition in the step's
    # follow-up: the same members), largest per step.
    step_of = rows.assign(step=[s[:2] for s in rows["slot"]])
    owners = step_of[step_of["member_id"].notna()].groupby(["group_id", "step"])["member_id"].unique()
    members = marks(root, "members-chart")
    for (strategy, step, follow_up), sizes in rows.groupby("slot")[["group_id"]]:
        largest = max(len(owners[(g, (strategy, step))]) for g in sizes["group_id"].unique())
        assert members[(strategy, "members_max", step, follow_up)] == largest

    kpis = {e.get("data-kpi"): "".join(e.itertext()) for e in root.iter() if e.get("data-kpi")}
    latest = rows[rows["generation"] == rows.groupby("group_id")["generation"].transform("max")]
    expected = {"Strategies": 2, "Groups": rows["group_id"].nunique(), "Steps": max(s[1] for s in slots.values()),
                "Partitions now": len(latest), "Partitions moved": (rows["status"] == "moved").sum(),
                "Revoked (pending)": (rows["status"] == "revoked").sum(),
                "Transfers completed": (rows["status"] == "assigned").sum()}
    for name, value in expected.items():
        assert re.match(rf"{int(value)}\D", kpis[name]), (name, kpis[name], value)
    assert int(expected["Revoked (pending)"]) > 0

    # Per step (and follow-up) and strategy: partitions and groups rebalanced.
    per_step = {(r[0], r[1]): r for r in table_rows(root, "generations-table")}
    assert set(per_step) == {(s, step_text(step, f)) for s, step, f in set(slots.values())}
    sizes = rows.groupby("slot").size()
    header = [("".join(th.itertext()).strip()) for th in by_id(root, "generations-table").iter() if local(th.tag) == "th"]
    partitions = header.index("Partitions")
    assert {k: int(r[partitions]) for k, r in per_step.items()} == {(s, step_text(step, f)): n
                                                                     for (s, step, f), n in sizes.items()}

    # Groups: the strategy prefix of a multi-strategy simulation is shown as a column, not in the id.
    groups = table_rows(root, "groups-table")
    assert len(groups) == 3  # --top 3
    assert {(r[0], r[1]) for r in groups} <= {(s, g) for s in STRATEGIES for g in ("g0", "g1")}
    assert {r[0] for r in table_rows(root, "compare-table")} >= {"Partitions moved or revoked"}


# ----------------------------------------------------------------- browser
def test_report_loads_without_errors_and_its_charts_render_in_chromium(browser, report):
    _, path = report
    browser.open(path.as_uri(), width=1280, height=900)
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    assert browser.evaluate("document.body.getAttribute('data-js-error')") is None
    assert browser.evaluate("document.title") == "Fleet <CLI> & co"
    charts = browser.evaluate("Array.from(document.querySelectorAll('svg.chart')).map(e => {"
                              "const r = e.getBoundingClientRect(); return [e.id, r.x, r.y + scrollY, r.width, r.height,"
                              " e.querySelectorAll('[data-value]').length]; })")
    assert sorted(c[0] for c in charts) == sorted(CHARTS + ["compare-chart"])
    colours = strategy_colours(list(STRATEGIES))
    for chart_id, x, y, width, height, n_marks in charts:
        assert width > 400 and height > 150 and n_marks > 0, chart_id
        png = browser.screenshot(clip={"x": x, "y": y, "width": width, "height": height}, scale=0.5)
        shares = pixel_shares(png, colours)
        assert shares["ink"] > 0.02, f"{chart_id} looks blank: {shares}"
        for strategy in colours:
            assert shares[strategy] > 0.0008, f"no {strategy} marks in {chart_id}: {shares}"
    assert browser.evaluate("document.querySelectorAll('#groups-table tbody tr').length") == 3
    assert browser.errors == []
    assert all(url.startswith(("file:", "data:", "about:")) for url in browser.requests), browser.requests


def test_a_reader_that_stops_early_ends_the_command_quietly(simulated, tmp_path):
    """``spark-assign report ... | head -0``: a broken pipe is status 141, without an error line."""
    import io

    from spark_assign.cli import main

    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    err = io.StringIO()
    status = main(["report", "--table", str(simulated.table), "--out", str(tmp_path / "r.html")],
                  stdout=Closed(), stderr=err)
    assert (status, err.getvalue()) == (141, "")
    assert (tmp_path / "r.html").exists()

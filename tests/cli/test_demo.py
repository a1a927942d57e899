"""``spark-assign demo``: the README's command, on a fleet made tiny with its size flags."""

from __future__ import annotations

import re
import shlex

from spark_assign.cli.commands import DEMO_SCENARIO, DEMO_STRATEGIES
from spark_assign.report import STATUS_MEANINGS

from .conftest import state_rows, text_table

TINY = ["--groups", "2", "--members", "2", "--topics", "1", "--partitions", "4", "--generations", "2"]


def test_demo_writes_table_summary_and_report_under_the_current_directory(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = cli("demo", *TINY)
    assert run.status == 0, run.err
    folder = tmp_path / "spark-assign-demo"
    report = folder / "report.html"
    assert run.out.rstrip().endswith(f"Report: {report}")
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "<title>spark-assign demo: sticky vs cooperative-sticky</title>" in report.read_text(encoding="utf-8")

    summary = text_table(run.out)
    assert [(r["gen"], r["strategy"]) for r in summary if r["events"] != "follow-up"] == [
        ("1", "sticky"), ("1", "cooperative-sticky"), ("2", "sticky"), ("2", "cooperative-sticky")]
    # Under the summary, what its columns mean: "assigned 0" beside "new" explains itself.
    words = " ".join(run.out.split())
    assert f"assigned = {STATUS_MEANINGS['assigned']}" in words and "gen: the simulation step" in words
    rows = state_rows(folder / "table")
    assert set(rows["strategy"]) == set(DEMO_STRATEGIES)
    assert set(rows["group_id"]) == {f"{s}/g{i}" for s in DEMO_STRATEGIES for i in (0, 1)}
    assert sorted(int(r["version"]) for r in summary) == list(range(1, len(summary) + 1))

    # Progress on stderr, including the check that re-running the last generation commits nothing.
    assert re.search(r"^\[gen 2/2\] cooperative-sticky: 2/2 groups recomputed", run.err, re.M)
    assert re.search(r"^\[again\]\s+sticky\s+re-run of generation 2: 2 groups unchanged, nothing committed",
                     run.err, re.M)

    # The commands the demo suggests work as printed.
    suggested = [line.strip() for line in run.out.splitlines() if line.startswith("  spark-assign ")]
    assert len(suggested) == 3
    for line in suggested:
        follow = cli(*shlex.split(line)[1:])
        assert follow.status == 0 and follow.out.strip(), (line, follow.err)


def test_demo_reruns_replace_its_table(cli, tmp_path):
    path = tmp_path / "demo"
    (path / "table").mkdir(parents=True)
    (path / "table" / "notes.txt").write_text("mine", encoding="utf-8")
    refused = cli("demo", "--path", path, "--groups", "1", "--generations", "1")
    assert refused.status == 2 and "is a folder that is not a Delta table" in refused.err

    (path / "table" / "notes.txt").unlink()
    for members in ("2", "3"):
        run = cli("demo", "--path", path, "--groups", "1", "--members", members, "--generations", "1", "--quiet",
                  "--strategy", "range")
        assert run.status == 0, run.err
    rows = state_rows(path / "table")
    assert set(rows["generation"]) == {1} and rows["member_id"].nunique() == 3  # the second run only
    assert set(rows["strategy"]) == {"range"} and set(rows["group_id"]) == {"g0"}


def test_demo_defaults_are_a_small_fleet_with_every_kind_of_churn(cli):
    run = cli("demo", "--help")
    assert run.status == 0 and "--groups N" in run.out and f"(default: {DEMO_SCENARIO['groups']})" in run.out
    s = DEMO_SCENARIO
    assert s["groups"] * s["members"] <= 100 and s["generations"] <= 5
    assert min(s["joins"], s["leaves"], s["crashes"], s["partition_growth"]) > 0 and 0 < s["static_share"] < 1

"""``spark-assign simulate``: a scenario file and flags, several strategies, one Delta commit per rebalance."""

from __future__ import annotations

import json
import re

from deltalake import DeltaTable

from spark_assign.progress import PROGRESS_ENV

from .conftest import state_rows, text_table, written_metadata


def test_simulate_from_a_yaml_file_commits_every_generation_of_both_strategies(simulated):
    run, rows = simulated.run, simulated.rows
    assert run.status == 0
    assert f"Table:  {simulated.table}" in run.out
    assert re.search(r"^Report: .*sim\.html$", run.out, re.M)
    assert (simulated.table.parent / "sim.html").stat().st_size > 10_000

    # Progress: one line per rebalance, on stderr.
    assert "simulating 2 groups x 2 members, 2 topics (9 partitions), 3 generations" in run.err
    for gen in (1, 2, 3):
        for strategy in ("sticky", "cooperative-sticky"):
            assert re.search(rf"^\[gen {gen}/3\] {strategy}: 2/2 groups recomputed", run.err, re.M), run.err

    # The table: both strategies, their groups prefixed, every partition in every generation.
    assert set(rows["strategy"]) == {"sticky", "cooperative-sticky"}
    assert set(rows["group_id"]) == {f"{s}/g{i}" for s in ("sticky", "cooperative-sticky") for i in (0, 1)}
    per_generation = rows.groupby(["group_id", "generation"]).size()
    assert set(per_generation) == {9}
    sticky = rows[rows["strategy"] == "sticky"]
    assert sorted(sticky["generation"].unique()) == [1, 2, 3]
    assert set(sticky["status"]) <= {"new", "kept", "moved"}
    coop = rows[rows["strategy"] == "cooperative-sticky"]
    assert coop["generation"].max() >= 3
    latest = coop[coop["generation"] == coop.groupby("group_id")["generation"].transform("max")]
    assert latest["member_id"].notna().all()  # the follow-ups completed every transfer
    revoked = coop[coop["status"] == "revoked"]
    assert revoked["member_id"].isna().all()
    assert len(revoked) > 0  # joins take partitions from running members: transfers
    nxt = revoked.assign(generation=revoked["generation"] + 1)[["group_id", "generation", "topic", "partition"]]
    follow = nxt.merge(coop, on=["group_id", "generation", "topic", "partition"])
    assert len(follow) == len(revoked) and set(follow["status"]) == {"assigned"}  # next generation: assigned
    assert re.search(r"^\[gen 2/3\] follow-up cooperative-sticky: .* [1-9]\d* assigned", run.err, re.M)

    # The summary: one line per rebalance, with the counts of the commits' metadata.
    summary = text_table(run.out)
    assert [(r["gen"], r["strategy"]) for r in summary if r["events"] != "follow-up"] == [
        (str(g), s) for g in (1, 2, 3) for s in ("sticky", "cooperative-sticky")]
    assert summary[0]["events"] == "start" and summary[2]["events"] == "4 joins, 2 leaves, 2 crashes"
    committed = {}
    for h in DeltaTable(str(simulated.table)).history():
        if written_metadata(h):
            committed[h["version"]] = written_metadata(h)
    assert sorted(int(r["version"]) for r in summary) == sorted(committed)
    for r in summary:
        meta = committed[int(r["version"])]
        assert (int(r["moved"]), int(r["revoked"]), int(r["assigned"]), int(r["new"]), int(r["kept"])) == (
            meta["partitions_moved"], meta["revoked"], meta["assigned"], meta["new"], meta["kept"])
        assert meta["strategy"] == r["strategy"]


def test_flags_override_the_scenario_file_and_one_strategy_keeps_plain_group_ids(cli, tmp_path):
    scenario = tmp_path / "fleet.json"
    scenario.write_text(json.dumps({"groups": 3, "members": 2, "topics": 1, "partitions": 4,
                                    "generations": 5, "partition-growth": 1, "racks": 2,
                                    "strategies": ["sticky", "range"]}), encoding="utf-8")
    table = tmp_path / "state"
    run = cli("simulate", "--scenario", scenario, "--table", table, "--generations", "2", "--strategy", "range",
              "--quiet")
    assert run.status == 0, run.err
    assert run.err == ""  # --quiet: no progress lines
    rows = state_rows(table)
    assert set(rows["strategy"]) == {"range"} and set(rows["group_id"]) == {"g0", "g1", "g2"}
    assert sorted(rows["generation"].unique()) == [1, 2]
    assert rows.groupby("generation").size().to_dict() == {1: 3 * 4, 2: 3 * 5}  # one partition added

    again = cli("simulate", "--table", table, "--groups", "1", "--generations", "1")
    assert again.status == 2 and "pass --overwrite" in again.err
    replaced = cli("simulate", "--table", table, "--groups", "1", "--members", "2", "--generations", "1",
                   "--overwrite", "--strategy", "roundrobin")
    assert replaced.status == 0, replaced.err
    rows = state_rows(table)
    assert set(rows["group_id"]) == {"g0"} and set(rows["strategy"]) == {"roundrobin"}
    assert len(DeltaTable(str(table)).history()) == 2  # created, one rebalance: the old table is gone


def test_spread_counts_a_member_owning_nothing_in_every_output_alike(cli, tmp_path):
    # 3 members, 2 partitions: one member owns nothing, so the spread is 1 - 0 = 1, in the command's summary,
    # in the report it writes and in the rebalance command (one definition: report.metrics.balance).
    from ..report.test_report import parse, table_rows

    report = tmp_path / "r.html"
    run = cli("simulate", "--groups", "1", "--members", "3", "--topics", "t=2", "--generations", "1",
              "--strategy", "sticky", "--table", tmp_path / "sim", "--report", report)
    assert run.status == 0, run.err
    assert [r["spread max"] for r in text_table(run.out)] == ["1"]
    (group,) = table_rows(parse(report.read_text(encoding="utf-8")), "groups-table")
    assert (group[3], group[5]) == ("3", "1")  # members, spread

    import pandas as pd

    pd.DataFrame({"member_id": ["c1", "c2", "c3"], "topic": ["t"] * 3}).to_parquet(tmp_path / "subs.parquet")
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.parquet", "--topics", "t=2", "--strategy", "sticky",
              "--table", tmp_path / "real")
    assert run.status == 0, run.err
    (recomputed,) = text_table(run.out, title="Recomputed groups")
    assert (recomputed["members"], recomputed["spread"]) == ("3", "1")
    # ... and history says the same of that generation: the table records its member count (format 3).
    run = cli("history", "--table", tmp_path / "real", "--group", "default")
    assert run.status == 0, run.err
    (generation,) = text_table(run.out, title="Group default")
    assert (generation["members"], generation["spread"]) == ("3", "1")


def test_a_bar_counts_the_generations_when_asked(cli, tmp_path, monkeypatch):
    # Forced with $SPARK_ASSIGN_PROGRESS=1 (the CLI's stderr is not a terminal here): one bar over the
    # generations, naming the strategy being rebalanced; the status lines print whole above it.
    monkeypatch.setenv(PROGRESS_ENV, "1")
    run = cli("simulate", "--groups", "1", "--members", "2", "--topics", "t=2", "--generations", "2",
              "--strategy", "sticky,range", "--table", tmp_path / "sim")
    assert run.status == 0, run.err
    assert re.search(r"simulate: +50%.*\| 1/2 \[", run.err), run.err
    assert "generation 2: range" in run.err
    # tqdm clears the bar's line, the status line follows, whole, on a line of its own.
    assert re.search(r"\[gen 1/2\] range: 1/1 groups recomputed, [^\n]*-> version 2 \([^)\n]*\)\n", run.err)

    monkeypatch.delenv(PROGRESS_ENV)
    quiet = cli("simulate", "--groups", "1", "--generations", "1", "--table", tmp_path / "quiet", "--quiet")
    assert quiet.status == 0 and quiet.err == ""          # --quiet: no lines, no bar

"""``spark-assign history``: a table's commits, and one group's generations and what moved."""

from __future__ import annotations

from deltalake import DeltaTable

from spark_assign.report import STATUS_MEANINGS

from .conftest import text_table, written_metadata
from .test_agreement import slots_by_version, step_text


def test_history_lists_every_commit_with_its_counts(cli, simulated):
    run = cli("history", "--table", simulated.table)
    assert run.status == 0, run.err
    commits = text_table(run.out, title="Commits of")
    history = DeltaTable(str(simulated.table)).history()
    assert [int(c["version"]) for c in commits] == sorted(h["version"] for h in history)
    assert commits[0]["operation"] == "create table"
    by_version = {h["version"]: written_metadata(h) for h in history if h["version"] > 0}
    for c in commits[1:]:
        meta = by_version[int(c["version"])]
        assert c["operation"] == "rebalance" and c["strategy"] == meta["strategy"]
        assert [int(c[k]) for k in ("recomputed", "unchanged", "moved", "revoked", "assigned", "new", "kept")] == [
            meta[k] for k in ("groups_recomputed", "groups_unchanged", "partitions_moved", "revoked", "assigned",
                              "new", "kept")]


def test_history_of_a_group_shows_its_generations_and_every_change(cli, simulated):
    group = "cooperative-sticky/g0"
    rows = simulated.rows[simulated.rows["group_id"] == group]
    run = cli("history", "--table", simulated.table, "--group", group, "--limit", "0")
    assert run.status == 0, run.err
    generations = text_table(run.out, title=f"Group {group}:")
    assert [int(g["generation"]) for g in generations] == sorted(rows["generation"].unique())
    for g in generations:
        these = rows[rows["generation"] == int(g["generation"])]
        assert int(g["partitions"]) == len(these)
        for status in ("kept", "moved", "revoked", "assigned", "new"):
            assert int(g[status]) == int((these["status"] == status).sum()), (g, status)
        assert g["strategy"] == "cooperative-sticky"
        # Cooperative: only what changes owner stops (eager would pause every partition it owned).
        assert int(g["paused"]) == int(g["moved"]) + int(g["revoked"])
    # The step of each generation is the simulation's: a follow-up is shown as one, beside its step.
    slots = slots_by_version(text_table(simulated.run.out))
    version = rows.groupby("generation")["commit_version"].first()
    assert [g["step"] for g in generations] == [step_text(*slots[int(version[int(g["generation"])])][1:])
                                                for g in generations]
    assert any(g["step"].endswith("follow-up") for g in generations)
    # What the columns mean is printed under them.
    words = " ".join(run.out.split())
    assert f"assigned = {STATUS_MEANINGS['assigned']}" in words and "step: one rebalance of the fleet" in words
    changes = text_table(run.out, title="What moved")
    expected = rows[rows["status"].isin(["moved", "revoked", "assigned"])]
    assert len(changes) == len(expected) > 0
    got = {(int(c["generation"]), c["topic"], int(c["partition"]), c["status"], c["to"]) for c in changes}
    assert got == {(r.generation, r.topic, r.partition, r.status, r.member_id or "(pending)")
                   for r in expected.itertuples()}

    limited = cli("history", "--table", simulated.table, "--group", group, "--limit", "1")
    assert f"first 1 of {len(expected)} (--limit 0 for all)" in limited.out
    assert len(text_table(limited.out, title="What moved")) == 1


def test_history_of_an_unknown_group_is_an_input_error(cli, simulated):
    run = cli("history", "--table", simulated.table, "--group", "nope")
    assert run.status == 2 and run.out == ""
    assert run.err_lines == [f"spark-assign: error: no group 'nope' in {simulated.table}"]


def test_a_bare_folder_name_in_the_working_directory_is_the_delta_table_there(cli, simulated, monkeypatch):
    # ``fleet`` has no separator: it is a path only because the folder exists. The CLI and the table
    # must agree on that (spark_assign.spark.delta.is_path), else the name goes to the catalog.
    monkeypatch.chdir(simulated.table.parent)
    name = simulated.table.name
    run = cli("history", "--table", name)
    assert run.status == 0, run.err
    assert len(text_table(run.out, title="Commits of")) == len(DeltaTable(str(simulated.table)).history())


def test_the_cli_has_one_path_rule_the_one_of_spark_delta():
    from spark_assign.cli import runtime
    from spark_assign.spark import delta

    assert runtime.is_path is delta.is_path

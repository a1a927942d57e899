"""``spark-assign rebalance``: real inputs (CSV, Parquet, Delta, inline topics) against a state table."""

from __future__ import annotations

import pandas as pd
from deltalake import DeltaTable, write_deltalake

from .conftest import state_rows, text_table


def figures(out: str) -> dict:
    return {r["rebalance"]: r["value"] for r in text_table(out)}


def test_rebalance_commits_one_generation_per_change_from_csv_parquet_and_delta(cli, tmp_path):
    (tmp_path / "subs.csv").write_text(
        "group_id,member_id,topic,group_instance_id\n"
        "payments,c1,orders,\npayments,c2,orders,static-2\naudit,a1,events,\naudit,a1,orders,\n", encoding="utf-8")
    (tmp_path / "topics.csv").write_text("topic,num_partitions\norders,6\nevents,2\n", encoding="utf-8")
    table = tmp_path / "state"
    args = ["--table", table, "--strategy", "cooperative-sticky"]

    first = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", tmp_path / "topics.csv", *args)
    assert first.status == 0, first.err
    f = figures(first.out)
    assert f["table"] == str(table) and f["committed version"] == "1" and f["groups recomputed"] == "2 of 2"
    assert f["partitions new"] == "14" and f["partitions revoked (pending)"] == "0"
    groups = {r["group"]: r for r in text_table(first.out, title="Recomputed groups")}
    assert set(groups) == {"payments", "audit"} and groups["audit"]["partitions"] == "8"
    rows = state_rows(table)
    assert len(rows) == 14 and set(rows["status"]) == {"new"} and set(rows["generation"]) == {1}
    assert rows.groupby("group_id")["partition"].count().to_dict() == {"audit": 8, "payments": 6}
    assert set(rows.loc[rows["member_id"] == "c2", "group_instance_id"]) == {"static-2"}

    same = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=6,events=2", *args)
    assert same.status == 0 and same.out.startswith("Nothing changed: 2 groups have the same inputs")
    assert DeltaTable(str(table)).version() == 1

    # c3 joins payments (Parquet input): cooperative, so partitions are revoked first ...
    joined = pd.DataFrame({"group_id": ["payments"] * 3 + ["audit", "audit"],
                           "member_id": ["c1", "c2", "c3", "a1", "a1"],
                           "topic": ["orders", "orders", "orders", "events", "orders"],
                           "group_instance_id": [None, "static-2", None, None, None]})
    joined.to_parquet(tmp_path / "joined.parquet")
    second = cli("rebalance", "--subscriptions", tmp_path / "joined.parquet", "--topics", "orders=6,events=2", *args)
    assert second.status == 0, second.err
    f = figures(second.out)
    assert f["committed version"] == "2" and f["groups recomputed"] == "1 of 2"
    assert f["partitions revoked (pending)"] == "2" and f["transfers completed"] == "0"
    assert [r["group"] for r in text_table(second.out, title="Recomputed groups")] == ["payments"]
    rows = state_rows(table)
    revoked = rows[(rows["generation"] == 2) & (rows["status"] == "revoked")]
    assert len(revoked) == 2 and revoked["member_id"].isna().all()

    # ... and assigned to c3 by the next run (the same members, as a Delta folder).
    write_deltalake(str(tmp_path / "joined-delta"), joined)
    third = cli("rebalance", "--subscriptions", tmp_path / "joined-delta", "--topics", tmp_path / "topics.csv", *args)
    assert third.status == 0, third.err
    f = figures(third.out)
    assert f["committed version"] == "3" and f["transfers completed"] == "2"
    assert f["spread, worst group"] == "0"
    rows = state_rows(table)
    latest = rows[(rows["group_id"] == "payments") & (rows["generation"] == 3)]
    assert latest.groupby("member_id").size().to_dict() == {"c1": 2, "c2": 2, "c3": 2}
    assert set(latest.loc[latest["status"] == "assigned", "member_id"]) == {"c3"}


def test_a_missing_topic_is_one_warning_line(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic\ng,c1,orders\ng,c1,ordres\n", encoding="utf-8")
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=2",
              "--table", tmp_path / "state", "--strategy", "range")
    assert run.status == 0, run.err
    warned = [line for line in run.err.splitlines() if line.startswith("spark-assign: warning: ")]
    assert len(warned) == 1 and "1 of 1 groups subscribe to topics missing" in warned[0] and "'ordres'" in warned[0]
    assert figures(run.out)["groups recomputed"] == "1 of 1"
    assert figures(run.out)["groups with missing topics"] == "1"


def test_rebalance_refuses_a_group_column_named_group_and_writes_nothing(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group,member_id,topic\npayments,c1,orders\naudit,a1,orders\n",
                                       encoding="utf-8")
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=4",
              "--table", tmp_path / "state", "--strategy", "sticky")
    assert run.status != 0
    assert "has a column 'group' where 'group_id' is expected" in run.err and "Traceback" not in run.err
    assert not (tmp_path / "state").exists()


def test_rebalance_takes_kafkas_strategy_list_and_says_which_entry_applies(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic\npayments,c1,orders\n", encoding="utf-8")
    listed = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor,org.apache.kafka.clients.consumer.RangeAssignor"
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=4",
              "--table", tmp_path / "state", "--strategy", listed)
    assert run.status == 0, run.err
    assert "using 'cooperative-sticky', its first supported entry" in run.err
    assert set(state_rows(tmp_path / "state")["strategy"]) == {"cooperative-sticky"}


def test_rebalance_dry_run_shows_the_generation_and_writes_nothing(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic\npayments,c1,orders\npayments,c2,orders\n",
                                       encoding="utf-8")
    args = ["--subscriptions", tmp_path / "subs.csv", "--topics", "orders=4", "--table", tmp_path / "state",
            "--strategy", "sticky"]
    preview = cli("rebalance", *args, "--dry-run")
    assert preview.status == 0, preview.err
    f = figures(preview.out)
    assert f["committed version"] == "none: a dry run, nothing written" and f["partitions new"] == "4"
    assert not (tmp_path / "state").exists()
    real = cli("rebalance", *args)
    assert figures(real.out)["committed version"] == "1"
    again = cli("rebalance", *args, "--dry-run")
    assert again.out.startswith("Nothing changed: 1 groups have the same inputs")

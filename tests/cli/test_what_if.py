"""``spark-assign what-if``: scenarios as dry runs against a state table, printed, nothing written."""

from __future__ import annotations

from .conftest import run_cli, text_table
from ..state.fleets import table_files

SUBS = ("group_id,member_id,topic,group_instance_id,rack\n"
        "payments,c1,orders,,az-1\npayments,c2,orders,payments-2,az-2\npayments,c3,orders,,az-1\n"
        "audit,a1,orders,,az-2\naudit,a1,events,,az-2\naudit,a2,events,,az-1\n")



def test_what_if_prints_each_scenario_and_writes_nothing(cli, tmp_path):
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    inputs = ["--subscriptions", tmp_path / "subs.csv", "--topics", "orders=6,events=2", "--table", tmp_path / "state"]
    assert cli("rebalance", *inputs, "--strategy", "sticky").status == 0
    before = table_files(tmp_path / "state")
    run = cli("what-if", *inputs, "--strategy", "sticky", "--scenario", "restart", "--scenario", "rack-down:az-1",
              "--scenario", "add-partitions:orders=2")
    assert run.status == 0, run.err
    assert table_files(tmp_path / "state") == before
    rows = {r["scenario"]: r for r in text_table(run.out)}
    assert list(rows) == ["as given", "restart", "rack-down:az-1", "add-partitions:orders=2"]
    assert rows["as given"]["groups changed"] == "0"
    # payments' c1 and audit's a1 (dynamic, first by id) rejoin as new members: eager sticky pauses both groups.
    assert rows["restart"]["groups changed"] == "2" and rows["restart"]["paused"] == "14"
    assert rows["add-partitions:orders=2"]["new"] == "4"          # 2 new partitions in each group reading orders
    assert rows["rack-down:az-1"]["groups pausing most"] == "audit, payments"


def test_a_bad_scenario_fails_before_spark(tmp_path):
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    run = run_cli("what-if", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=6", "--table",
              tmp_path / "state", "--strategy", "sticky", "--scenario", "reboot")
    assert run.status == 2 and "--scenario: unknown scenario 'reboot'" in run.err

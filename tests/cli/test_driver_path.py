"""``rebalance`` without Spark for small inputs on a local table, through Spark otherwise; one line says which.

The tests without the ``spark`` fixture prove that the command never starts
Spark (the autouse fixture fails any that does).
"""

from __future__ import annotations

import pandas as pd

from spark_assign.cli.driver_path import read_arrow_file

from ..state.fleets import table_files
from .conftest import run_cli, state_rows, text_table

SUBS = ("group_id,member_id,topic,group_instance_id,owned_partitions,generation\n"
        "paiements-€,c1,orders,,,\npaiements-€,c2,orders,static-2,,\n"
        "заказы,a1,events,,0;1,3\nзаказы,a1,orders,,,3\n")


def figures(out: str) -> dict:
    return {r["rebalance"]: r["value"] for r in text_table(out)}


def test_a_small_rebalance_runs_without_spark_and_says_so(tmp_path):
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    args = ["--topics", "orders=6,events=2", "--table", tmp_path / "state", "--strategy", "cooperative-sticky"]
    first = run_cli("rebalance", "--subscriptions", tmp_path / "subs.csv", *args)
    assert first.status == 0, first.err
    f = figures(first.out)
    assert f["committed version"] == "1" and f["partitions new"] == "12" and f["partitions kept"] == "2"
    assert f["path"] == "in this process, without Spark (4 subscription rows)"
    rows = state_rows(tmp_path / "state")
    assert len(rows) == 14 and set(rows["group_id"]) == {"paiements-€", "заказы"}

    again = run_cli("rebalance", "--subscriptions", tmp_path / "subs.csv", *args)
    assert again.out.startswith("Nothing changed: 2 groups") and "path: in this process" in again.out

    preview = run_cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=8,events=2",
                      "--table", tmp_path / "state", "--strategy", "cooperative-sticky", "--dry-run")
    before = table_files(tmp_path / "state")
    assert preview.status == 0 and figures(preview.out)["committed version"] == "none: a dry run, nothing written"
    assert table_files(tmp_path / "state") == before


def test_a_misnamed_column_is_refused_without_spark_and_nothing_is_written(tmp_path):
    (tmp_path / "subs.csv").write_text("group,member_id,topic\ng,m,orders\n", encoding="utf-8")
    run = run_cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=2",
                  "--table", tmp_path / "state", "--strategy", "range")
    assert run.status == 2
    assert "a column 'group' where 'group_id' is expected" in run.err
    assert not (tmp_path / "state").exists()


def test_both_paths_commit_the_same_rows(cli, tmp_path):
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    (tmp_path / "topics.csv").write_text("topic,num_partitions\norders,6\nevents,2\n", encoding="utf-8")
    for table, extra in (("driver", []), ("spark", ["--spark"])):
        run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", tmp_path / "topics.csv",
                  "--table", tmp_path / table, "--strategy", "sticky", *extra)
        assert run.status == 0, run.err
        assert figures(run.out)["path"].startswith("Spark (--spark given)" if extra else "in this process")
    compared = ["group_id", "generation", "member_id", "topic", "partition", "status", "input_fingerprint"]
    driver, spark = (state_rows(tmp_path / t)[compared].sort_values(compared[:5]).reset_index(drop=True)
                     for t in ("driver", "spark"))
    pd.testing.assert_frame_equal(driver, spark)


def test_what_pyarrow_cannot_type_as_spark_does_goes_through_spark(cli, tmp_path):
    (tmp_path / "subs.csv").write_text("group_id,member_id,topic,generation\ng,m,orders,three\n", encoding="utf-8")
    assert read_arrow_file(str(tmp_path / "subs.csv")) == "not read without Spark (ValueError)"
    run = cli("rebalance", "--subscriptions", tmp_path / "subs.csv", "--topics", "orders=2",
              "--table", tmp_path / "state", "--strategy", "range")
    assert run.status != 0 and "generation must be a 32-bit integer" in run.err
    assert not (tmp_path / "state").exists()


def test_weights_and_catalog_tables_go_through_spark(tmp_path):
    from argparse import Namespace

    from spark_assign.cli.driver_path import choose_path

    base = dict(spark=False, weights=None, max_count_skew=None, min_improvement=None, topics="t=2",
                subscriptions=str(tmp_path / "subs.csv"), table=str(tmp_path / "state"))
    (tmp_path / "subs.csv").write_text("member_id,topic\nm,t\n", encoding="utf-8")
    assert choose_path(Namespace(**base)).inputs is not None
    weighted = choose_path(Namespace(**{**base, "weights": "w.csv"}))
    assert weighted.inputs is None and weighted.line == "path: Spark (weights are read and balanced through Spark)"
    catalog = choose_path(Namespace(**{**base, "table": "ops.assignments"}))
    assert catalog.line == "path: Spark (--table: a catalog table is read through Spark)"
    (tmp_path / "subs.json").write_text('{"member_id": "2024-01-01", "topic": "t"}\n', encoding="utf-8")
    json_file = choose_path(Namespace(**{**base, "subscriptions": str(tmp_path / "subs.json")}))
    assert json_file.line == "path: Spark (--subscriptions: JSON is typed by Spark's reader)"
    (tmp_path / "empty.csv").write_text("member_id,topic,generation\nm,t,\n", encoding="utf-8")   # every cell empty
    assert choose_path(Namespace(**{**base, "subscriptions": str(tmp_path / "empty.csv")})).inputs is not None
    (tmp_path / "big.csv").write_text("member_id,topic,owned_partitions\nm,t,99999999999\n", encoding="utf-8")
    overflow = choose_path(Namespace(**{**base, "subscriptions": str(tmp_path / "big.csv")}))
    assert overflow.inputs is None and overflow.reason.startswith("--subscriptions: not read without Spark")


def test_what_if_gives_the_same_figures_on_both_paths(cli, tmp_path):
    (tmp_path / "subs.csv").write_text(
        "group_id,member_id,topic,group_instance_id,rack\n"
        "paiements-€,c1,orders,,az-1\npaiements-€,c2,orders,static-2,az-2\npaiements-€,c3,events,,az-1\n"
        "заказы,a1,events,,az-2\nзаказы,a1,orders,,az-2\n", encoding="utf-8")
    table = ["--topics", "orders=6,events=3", "--table", tmp_path / "state", "--strategy", "sticky"]
    assert cli("rebalance", "--subscriptions", tmp_path / "subs.csv", *table).status == 0
    scenarios = [f"--scenario={s}" for s in ("restart", "leave", "add-partitions:orders=2", "rack-down:az-2",
                                             "strategy:cooperative-sticky")]
    runs = [cli("what-if", "--subscriptions", tmp_path / "subs.csv", *table, *scenarios, *extra)
            for extra in ([], ["--spark"])]
    assert all(r.status == 0 for r in runs), [r.err for r in runs]
    driver, spark = (text_table(r.out.split("\n", 1)[1]) for r in runs)
    assert driver == spark and len(driver) == 6
    assert runs[0].out.rstrip().endswith("path: in this process, without Spark (5 subscription rows)")
    assert runs[1].out.rstrip().endswith("path: Spark (--spark given)")


def test_what_if_writes_its_report_without_spark(tmp_path):
    (tmp_path / "subs.csv").write_text(SUBS, encoding="utf-8")
    table = ["--topics", "orders=6,events=2", "--table", tmp_path / "state", "--strategy", "cooperative-sticky"]
    assert run_cli("rebalance", "--subscriptions", tmp_path / "subs.csv", *table).status == 0
    run = run_cli("what-if", "--subscriptions", tmp_path / "subs.csv", *table, "--report", tmp_path / "w.html")
    assert run.status == 0, run.err
    page = (tmp_path / "w.html").read_text(encoding="utf-8")
    assert run.out.rstrip().endswith(f"Report: {tmp_path / 'w.html'}")
    assert 'data-scenario="strategy:uniform"' in page and 'id="what-if-groups"' in page


def test_without_strategy_each_group_keeps_its_own_on_both_paths(cli, tmp_path):
    (tmp_path / "eager.csv").write_text("group_id,member_id,topic\nbatch,b1,orders\nbatch,b2,orders\n",
                                        encoding="utf-8")
    (tmp_path / "coop.csv").write_text("group_id,member_id,topic\nstream,s1,orders\nstream,s2,orders\n",
                                       encoding="utf-8")
    (tmp_path / "all.csv").write_text("group_id,member_id,topic\nbatch,b1,orders\nbatch,b2,orders\n"
                                      "stream,s1,orders\nstream,s2,orders\n", encoding="utf-8")
    table = ["--topics", "orders=6", "--table", tmp_path / "state"]
    for subs, strategy in (("eager.csv", "sticky"), ("coop.csv", "cooperative-sticky")):
        assert run_cli("rebalance", "--subscriptions", tmp_path / subs, *table, "--strategy", strategy).status == 0
    runs = [cli("what-if", "--subscriptions", tmp_path / "all.csv", *table, "--scenario=leave", *extra)
            for extra in ([], ["--spark"])]
    assert all(r.status == 0 for r in runs), [r.err for r in runs]
    assert "dry runs under each group's own strategy" in runs[0].out
    driver, spark = (text_table(r.out.split("\n", 1)[1]) for r in runs)
    assert driver == spark
    leave = next(r for r in driver if r["scenario"] == "leave")
    # batch (eager) pauses all 6 it owned; stream (cooperative) only the 3 that move.
    assert leave["paused"] == "9" and leave["moved"] == "6"

    (tmp_path / "new.csv").write_text("group_id,member_id,topic\nnewcomer,n1,orders\n", encoding="utf-8")
    unknown = run_cli("what-if", "--subscriptions", tmp_path / "new.csv", *table)
    assert unknown.status != 0 and "'newcomer'" in unknown.err and "no generation" in unknown.err


def test_kafkas_own_text_is_a_rebalance_input_without_spark(tmp_path):
    """The issue's first try: kafka-consumer-groups --describe --members --verbose and
    kafka-topics --describe, saved as .txt, given as they are. Subscriptions are assumed (one
    warning line says how, and gives the idle member the group's topic); what each member holds
    is its claim, which sticky keeps where balance allows."""
    from ..kafka.test_group_members import members_output

    held = [("c-1", "static-ü", "/10.0.0.1", "app", [("orders", 0), ("orders", 1)], []),
            ("c-2", "", "/10.0.0.2", "app", [("orders", 2), ("orders", 3)], []),
            ("c-3", "", "/10.0.0.3", "app", [("orders", 4), ("orders", 5)], []),
            ("c-4-idle", "", "/10.0.0.4", "app", [], [])]
    (tmp_path / "groups.txt").write_text(members_output("orders-app", held, layout="old"), encoding="utf-8")
    (tmp_path / "topics.txt").write_text(
        "Topic: orders\tTopicId: 7n3cZp0JQxKJqk3sM9b0xA\tPartitionCount: 6\tReplicationFactor: 1\tConfigs: \n"
        + "".join(f"\tTopic: orders\tPartition: {p}\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: N/A\tLastKnownElr: N/A\n"
                  for p in range(6)), encoding="utf-8")
    run = run_cli("rebalance", "--subscriptions", tmp_path / "groups.txt", "--topics", tmp_path / "topics.txt",
                  "--table", tmp_path / "state", "--strategy", "sticky")
    assert run.status == 0, run.err
    assert "spark-assign: warning:" in run.err and "every member subscribes to every topic its group holds" in run.err
    assert figures(run.out)["path"].startswith("in this process, without Spark")
    rows = state_rows(tmp_path / "state")
    owners = dict(zip(rows["partition"], rows["member_id"]))
    claims = {0: "c-1", 1: "c-1", 2: "c-2", 3: "c-2", 4: "c-3", 5: "c-3"}
    # Sticky keeps the claims but one: the idle member, subscribed by the assumption, takes one.
    assert sum(owners[p] == m for p, m in claims.items()) == 5 and list(owners.values()).count("c-4-idle") == 1
    assert set(rows["members"]) == {4} and set(rows.loc[rows["member_id"] == "c-1", "group_instance_id"]) == {"static-ü"}


def test_each_group_runs_its_own_strategy_from_kafkas_state_text(tmp_path):
    """``--strategies``: kafka-consumer-groups --describe --state names each group's assignor;
    those groups run theirs (one commit per strategy), a group it does not name runs --strategy."""
    from ..kafka.test_group_members import members_output
    from ..kafka.test_group_states import states_output

    held = [("c-1", "", "/10.0.0.1", "app", [("orders", 0), ("orders", 1), ("orders", 2)], []),
            ("c-2", "", "/10.0.0.2", "app", [("orders", 3), ("orders", 4), ("orders", 5)], [])]
    text = "".join(members_output(g, [(f"{g}-{m[0]}",) + m[1:] for m in held], layout="old")
                   for g in ("ranged", "rounded", "unnamed"))
    (tmp_path / "groups.txt").write_text(text, encoding="utf-8")
    (tmp_path / "state.txt").write_text(states_output([("ranged", "range", "Stable", 2),
                                                       ("rounded", "roundrobin", "Stable", 2)]), encoding="utf-8")
    run = run_cli("rebalance", "--subscriptions", tmp_path / "groups.txt", "--topics", "orders=6",
                  "--table", tmp_path / "state", "--strategy", "sticky", "--strategies", tmp_path / "state.txt")
    assert run.status == 0, run.err
    assert "strategy range: 1 groups named in" in run.out and "strategy sticky: the groups --strategies does not name" \
        in run.out
    rows = state_rows(tmp_path / "state")
    assert dict(zip(rows["group_id"], rows["strategy"])) == {"ranged": "range", "rounded": "roundrobin",
                                                              "unnamed": "sticky"}
    (tmp_path / "custom.txt").write_text(states_output([("ranged", "my-assignor", "Stable", 2)]), encoding="utf-8")
    bad = run_cli("rebalance", "--subscriptions", tmp_path / "groups.txt", "--topics", "orders=6",
                  "--table", tmp_path / "other", "--strategy", "sticky", "--strategies", tmp_path / "custom.txt")
    assert bad.status != 0 and "'ranged' runs 'my-assignor'" in bad.err and not (tmp_path / "other").exists()

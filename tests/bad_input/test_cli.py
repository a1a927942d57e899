"""Bad input to ``spark-assign``: bad flags, bad files, bad rows.

Each case asserts exit status 2 with one line ``spark-assign: error: ...`` on
stderr and nothing on stdout (no traceback), that the line names the flag,
setting or column, and that nothing was written (the ``--table`` folder
stays absent). Cases marked ``spark`` reach Spark (the shared session, in
process, as tests/cli does); the others fail before Spark starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..cli.conftest import Run, run_cli
from .conftest import STACK_MARKS

TOPICS_CSV = "topic,num_partitions\norders,6\n"
#: Kafka's tools' text (spark_assign.kafka): --offsets where --members is expected, --members
#: without --verbose, and kafka-topics --describe cut short.
OFFSETS_TEXT = ("\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
                "CONSUMER-ID     HOST            CLIENT-ID\norders-app      orders          0          10    "
                "          12              2               c-1             /10.0.0.1       app\n")
MEMBERS_TEXT = ("\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n"
                "orders-app      c-1             /10.0.0.1       app             3               \n")
DESCRIBE_CUT = ("Topic: orders\tPartitionCount: 2\tReplicationFactor: 1\tConfigs: \n"
                "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n")
SUBS_CSV = "group_id,member_id,topic\npayments,c1,orders\n"


def rebalance(subs=SUBS_CSV, topics="orders=3", strategy="range", *extra):
    """argv of a rebalance; ``subs``/``topics`` ending in ``\\n`` are written to CSV files first."""
    return ["rebalance", "--subscriptions", subs, "--topics", topics, "--table", "{tmp}/t", "--strategy", strategy,
            *extra]


def simulate(*extra):
    return ["simulate", "--table", "{tmp}/t", *extra]


def replicas(*extra, brokers="1,2,3"):
    """argv of ``replicas place`` with inline topics and brokers, then ``extra``."""
    return ["replicas", "place", "--topics", "orders=6", "--brokers", brokers, "--replication-factor", "2", *extra]


def current(partitions):
    """A ``--current`` file holding the reassignment JSON ``{"version": 1, "partitions": ...}``."""
    import json

    return ("file", "current.json", json.dumps({"version": 1, "partitions": partitions}))


def scenario(text, name="s.yaml"):
    return ["simulate", "--scenario", ("file", name, text), "--table", "{tmp}/t"]


BEFORE_SPARK = [
    pytest.param(rebalance(topics="orders=99999999999"), "--topics", id="inline-topics-count-above-kafka-limit"),
    pytest.param(rebalance(topics="orders=1,orders=2"), "'orders' appears twice", id="inline-topics-topic-twice"),
    pytest.param(rebalance(topics="orders=six"), "partition count of topic 'orders' must be a whole number, got 'six'",
                 id="inline-topics-count-not-a-number"),
    pytest.param(rebalance(topics="orders=3,events"), "'events' in 'orders=3,events' is not topic=count",
                 id="inline-topics-entry-without-count"),
    pytest.param(rebalance(topics="orders=-3"), "got a negative count; column 'num_partitions'; offending rows: "
                 "('orders', -3)", id="inline-topics-negative"),
    pytest.param(rebalance(strategy="fastest"), "fastest", id="strategy-unknown"),
    pytest.param(rebalance(subs="{tmp}/missing.csv"), "--subscriptions", id="subscriptions-missing-file"),
    pytest.param(rebalance(subs="{tmp}/members.txt/"), "--subscriptions", id="subscriptions-missing-folder"),
    pytest.param(rebalance(topics="{tmp}/topics.parquet"), "--topics", id="topics-missing-file"),
    pytest.param(rebalance(subs=("file", "groups.txt", OFFSETS_TEXT)), "line 2: a members header without",
                 id="subscriptions-kafka-offsets-text-for-members"),
    pytest.param(rebalance(subs=("file", "groups.txt", MEMBERS_TEXT)), "with --verbose",
                 id="subscriptions-kafka-members-text-without-verbose"),
    pytest.param(rebalance(topics=("file", "topics.txt", DESCRIBE_CUT)), "lists 1 of its 2 partitions",
                 id="topics-kafka-describe-text-cut-short"),
    pytest.param(replicas("--current", ("file", "generate.txt", "Current partition replica assignment\n"
                                        '{"version":1,"partitions":[{"topic":"orders","par')),
                 "line 2: the JSON under 'Current partition replica assignment' is cut short",
                 id="replicas-current-kafka-generate-output-cut-short"),
    pytest.param(rebalance(subs=("file", "subs.xlsx", "x")), "--subscriptions", id="subscriptions-unknown-file-type"),
    pytest.param(["rebalance", "--subscriptions", ("file", "s.csv", SUBS_CSV), "--topics", "a=1", "--table",
                  ("file", "t", "x"), "--strategy", "range"], "--table", id="table-is-a-file"),
    pytest.param(["rebalance", "--subscriptions", ("file", "s.csv", SUBS_CSV), "--topics", "a=1", "--table",
                  ("folder", "t"), "--strategy", "range"], "--table", id="table-folder-of-other-files"),
    pytest.param(rebalance()[:-2], "--strategy", id="rebalance-without-strategy"),
    pytest.param(rebalance(SUBS_CSV, "orders=3", "range", "--limit", "-1"), "--limit", id="rebalance-limit-negative"),
    pytest.param(rebalance(SUBS_CSV, "orders=3", "range", "--bogus"), "--bogus", id="unknown-flag"),
    pytest.param(simulate("--topics", "orders=99999999999"), "topics", id="simulate-topics-count-above-kafka-limit"),
    pytest.param(simulate("--topics", "orders=-3"), "--topics", id="simulate-topics-negative"),
    pytest.param(simulate("--groups", "-1"), "--groups", id="simulate-groups-negative"),
    pytest.param(simulate("--members", "many"), "--members", id="simulate-members-not-a-number"),
    pytest.param(simulate("--static-share", "1.5"), "--static-share", id="simulate-static-share-above-1"),
    pytest.param(simulate("--subscription", "random"), "--subscription", id="simulate-subscription-unknown"),
    pytest.param(simulate("--strategy", "sticky,fastest"), "fastest", id="simulate-strategy-unknown"),
    pytest.param(simulate("--strategy", ","), "--strategy", id="simulate-strategy-empty-list"),
    pytest.param(["simulate", "--table", ("file", "t", "x")], "--table", id="simulate-table-is-a-file"),
    pytest.param(scenario("topics: {orders: -3}\n"), "orders", id="scenario-topic-count-negative"),
    pytest.param(scenario("topics: {orders: 99999999999}\n"), "orders", id="scenario-topic-count-above-kafka-limit"),
    pytest.param(scenario("topics: {orders: 1.5}\n"), "orders", id="scenario-topic-count-float"),
    pytest.param(scenario("topics: [orders]\n"), "topics", id="scenario-topics-list"),
    pytest.param(scenario("partitions: -2\n"), "partitions", id="scenario-partitions-negative"),
    pytest.param(scenario("static_share: 2\n"), "static_share", id="scenario-static-share-above-1"),
    pytest.param(scenario("strategies: 5\n"), "strategies", id="scenario-strategies-int"),
    pytest.param(scenario("follow_ups: -1\n"), "follow_ups", id="scenario-follow-ups-negative"),
    pytest.param(scenario("title: 5\n"), "title", id="scenario-title-int"),
    pytest.param(scenario("membres: 3\n"), "membres", id="scenario-unknown-setting"),
    pytest.param(scenario('{"groups": 2,', "s.json"), "--scenario", id="scenario-unreadable-json"),
    pytest.param(scenario("groups: [\n"), "--scenario", id="scenario-unreadable-yaml"),
    pytest.param(scenario("\xff\xfe", "s.yaml"), "--scenario", id="scenario-not-utf8"),
    pytest.param(["simulate", "--scenario", "{tmp}/none.yaml", "--table", "{tmp}/t"], "--scenario",
                 id="scenario-missing-file"),
    pytest.param(["diff", "--table", "{tmp}/t", "--from", "x", "--to", "2"], "--from", id="diff-from-not-a-number"),
    pytest.param(["history", "--table", "{tmp}/t"], "no such table", id="history-of-missing-table"),
    pytest.param(["report", "--table", "{tmp}/t", "--out", "{tmp}/r.html", "--top", "0"], "--top",
                 id="report-top-zero"),
    pytest.param(["replicas", "place", "--topics", "orders=6"], "--brokers", id="replicas-without-brokers"),
    pytest.param(["replicas"], "<action>", id="replicas-without-action"),
    pytest.param(replicas("--method", "fastest"), "fastest", id="replicas-method-unknown"),
    pytest.param(replicas("--method", "sticky"), "--method", id="replicas-method-sticky-places-nothing-new"),
    pytest.param(replicas("--reassign", "stikcy"), "stikcy", id="replicas-reassign-unknown"),
    pytest.param(replicas("--rack-aware", "always"), "--rack-aware", id="replicas-rack-aware-unknown"),
    pytest.param(replicas("--replication-factor", "0"), "--replication-factor", id="replicas-rf-zero"),
    pytest.param(replicas(brokers="1,2,1"), "broker 1 appears twice", id="replicas-inline-broker-twice"),
    pytest.param(replicas(brokers="1:a,2:"), "empty rack", id="replicas-inline-broker-empty-rack"),
    pytest.param(replicas(brokers="1,99999999999"), "--brokers", id="replicas-inline-broker-above-kafka-limit"),
    pytest.param(["replicas", "place", "--brokers", "1,2"], "--topics", id="replicas-without-topics-or-current"),
    pytest.param(replicas("--current", "{tmp}/none.json"), "--current", id="replicas-current-missing-file"),
    pytest.param(replicas("--current", ("file", "c.json", '{"version": 1, "partitions": [')), "--current",
                 id="replicas-current-not-json"),
    pytest.param(replicas("--current", current([])), "--current", id="replicas-current-empty-list"),
    pytest.param(replicas("--current", ("file", "c.json", '{"version": 2, "partitions": []}')), "version 2",
                 id="replicas-current-version-2"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 0, "replicas": [1, 2]},
                                                {"topic": "orders", "partition": 0, "replicas": [2, 3]}])),
                 "orders-0 is listed twice", id="replicas-current-partition-twice"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 0, "replicas": [1, 1]}])),
                 "broker 1 is listed twice", id="replicas-current-broker-twice-in-a-partition"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 0, "replicas": []}])),
                 "replicas", id="replicas-current-empty-replicas"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": -1, "replicas": [1]}])),
                 "partition", id="replicas-current-negative-partition"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 0, "replicas": [1, 2],
                                                 "log_dirs": ["any"]}])), "log_dirs",
                 id="replicas-current-log-dirs-length"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 0, "replicas": [1]}]),
                          "--table", "{tmp}/t"), "--current and --table", id="replicas-current-with-table"),
    pytest.param(["replicas", "place", "--topics", ("file", "topics.csv", "cluster_id,topic,num_partitions\n"
                                                    "eu,orders,6\n"), "--brokers", "1,2,3", "--table", "{tmp}/t",
                  "--json", "{tmp}/moves.json"], "--cluster", id="replicas-json-of-a-fleet-without-cluster"),
    pytest.param(replicas("--json", "{tmp}/nowhere/moves.json"), "--json", id="replicas-json-folder-missing"),
    pytest.param(["replicas", "history", "--table", "{tmp}/t"], "no such table", id="replicas-history-missing-table"),
]

WITH_SPARK = [
    pytest.param(rebalance(topics=("file", "topics.csv", "topic,num_partitions\norders,twelve\n")), "num_partitions",
                 id="csv-num-partitions-not-a-number"),
    pytest.param(rebalance(topics=("file", "topics.csv", "topic,num_partitions\norders,99999999999\n")),
                 "num_partitions", id="csv-num-partitions-above-int"),
    pytest.param(rebalance(topics=("file", "topics.csv", "topic,num_partitions\norders,-3\n")), "num_partitions",
                 id="csv-num-partitions-negative"),
    pytest.param(rebalance(topics=("file", "topics.csv", "topic,num_partitions\norders,3\norders,4\n")), "topic",
                 id="csv-topic-listed-twice"),
    pytest.param(rebalance(topics=("file", "topics.csv", "topic\norders\n")), "num_partitions",
                 id="csv-topics-without-counts"),
    pytest.param(rebalance(subs=("file", "s.csv", "group_id,member_id,topic\n")), "--subscriptions",
                 id="csv-header-only-subscriptions"),
    pytest.param(rebalance(subs=("file", "s.csv", "group,member\npayments,c1\n")), "member_id",
                 id="csv-wrong-columns"),
    pytest.param(rebalance(subs=("file", "s.csv", "group_id,member_id,topic\npayments,,orders\n")), "member_id",
                 id="csv-member-id-empty"),
    pytest.param(rebalance(subs=("file", "s.csv", SUBS_CSV + "payments,c1,orders\n")), "topic",
                 id="csv-duplicate-rows"),
    pytest.param(rebalance(subs=("file", "s.csv", "group_id,member_id,topic,group_instance_id\n"
                                                  "g,a,orders,s\ng,b,orders,s\n")), "group_instance_id",
                 id="csv-static-id-used-by-two-members"),
    pytest.param(rebalance(subs=("file", "s.csv", "group_id,member_id,topic,generation\ng,a,orders,first\n")),
                 "generation", id="csv-generation-not-a-number"),
    pytest.param(rebalance(subs=("file", "s.json", '{"group_id": "g", "member_id": 123, "topic": "orders"}\n')),
                 "member_id", id="json-member-id-number"),
    pytest.param(replicas("--table", "{tmp}/t", brokers=("file", "b.csv", "broker_id,rack\n1,a\n2,b\n1,c\n")),
                 "broker_id", id="replicas-csv-broker-twice"),
    pytest.param(replicas("--table", "{tmp}/t", brokers=("file", "b.csv", "broker_id,fenced\n1,false\n2,maybe\n")),
                 "fenced", id="replicas-csv-fenced-not-a-boolean"),
    pytest.param(replicas("--table", "{tmp}/t", "--method", "admin-utils",
                          brokers=("file", "b.csv", "broker_id,rack\n1,a\n2,\n3,c\n")),
                 "rack", id="replicas-csv-racks-on-some-brokers-only"),
    pytest.param(replicas("--table", "{tmp}/t", brokers="1"), "replication factor", id="replicas-rf-above-brokers"),
    pytest.param(replicas("--current", current([{"topic": "orders", "partition": 7, "replicas": [1, 2]}])),
                 "partition", id="replicas-current-partition-beyond-the-topic"),
]


def materialize(argv, tmp: Path):
    """argv with ``{tmp}`` filled in and ``("file", name, text)`` / ``("folder", name)`` made."""
    out = []
    for a in argv:
        if isinstance(a, tuple):
            target = tmp / a[1]
            if a[0] == "folder":
                target.mkdir()
                (target / "other.txt").write_text("x")
            else:
                target.write_bytes(a[2].encode("latin-1") if "\xff" in a[2] else a[2].encode("utf-8"))
            a = str(target)
        elif isinstance(a, str) and a.endswith("\n"):
            (tmp / "subs.csv").write_text(a, encoding="utf-8")
            a = str(tmp / "subs.csv")
        out.append(a.format(tmp=tmp))
    return out


def check(run: Run, name: str, tmp: Path, table_before) -> None:
    assert run.status == 2, (run.status, run.err)
    assert run.out == "" and len(run.err_lines) == 1, run.err
    assert run.err.startswith("spark-assign: error: "), run.err
    for mark in STACK_MARKS:
        assert mark not in run.err, run.err
    assert name in run.err, run.err
    table = tmp / "t"
    assert (table.exists() and not table.is_dir()) == table_before or not table.exists(), "something was written"
    assert not (table / "_delta_log").exists()


@pytest.mark.parametrize("argv,name", BEFORE_SPARK)
def test_bad_command_line_or_file(tmp_path, argv, name, monkeypatch):
    from spark_assign.cli.runtime import SparkRuntime

    def no_spark(self):
        raise AssertionError("this mistake should be found before Spark starts")

    monkeypatch.setattr(SparkRuntime, "session", no_spark)
    args = materialize(argv, tmp_path)
    check(run_cli(*args), name, tmp_path, (tmp_path / "t").is_file())


@pytest.mark.spark
@pytest.mark.parametrize("argv,name", WITH_SPARK)
def test_bad_rows_found_by_spark(spark, tmp_path, argv, name):
    args = materialize(argv, tmp_path)
    check(run_cli(*args), name, tmp_path, False)

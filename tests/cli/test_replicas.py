"""``spark-assign replicas``: placements from inline flags and files, Kafka's reassignment JSON, a replica table.

The JSON is read back with the same checks ``kafka-reassign-partitions
--execute`` applies (``parse_reassignment``), and compared with the engine's
placement (``place_replicas``) and with the replica table's own reassignment.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from deltalake import DeltaTable

from spark_assign.kafka.reassignment import format_reassignment, parse_reassignment
from spark_assign.core import Broker, place_replicas
from spark_assign.core.replicas.fleet import topic_seed

from .conftest import text_table

BROKERS = [Broker(1, "a"), Broker(2, "b"), Broker(3, "c")]


def figures(out: str) -> dict:
    return {r["placement"]: r["value"] for r in text_table(out)}


def brokers(out: str) -> dict:
    return {int(r["broker"]): (int(r["replicas"]), int(r["preferred leader of"]))
            for r in text_table(out, title="Brokers")}


def test_a_placement_from_inline_flags_is_the_engines_and_its_json_is_kafkas(cli, tmp_path):
    out = tmp_path / "proposed.json"
    run = cli("replicas", "place", "--topics", "orders=6,audit=3", "--brokers", "1:a,2:b,3:c",
              "--replication-factor", "2", "--json", out)
    assert run.status == 0, run.err
    f = figures(run.out)
    assert f["partitions"] == "9" and f["replicas new"] == "18" and f["replicas moved (data copied)"] == "0"
    proposed = parse_reassignment(out.read_text(encoding="utf-8"), "out")
    expected = {(t, p): r for t, n in (("orders", 6), ("audit", 3))
                for p, r in enumerate(place_replicas(BROKERS, n, 2, seed=topic_seed(0, "default", t)).replicas)}
    assert {(t, p): r for t, p, r in proposed} == expected            # no previous placement: every partition
    assert [(t, p) for t, p, _ in proposed] == sorted(expected)       # Kafka's order: topic, then partition
    assert out.read_text(encoding="utf-8").strip() == format_reassignment(proposed)
    assert json.loads(out.read_text(encoding="utf-8"))["partitions"][0]["log_dirs"] == ["any", "any"]
    assert sum(r for r, _ in brokers(run.out).values()) == 18
    # The command to run it, under the Apache distribution's name and the packaged one.
    assert f"kafka-reassign-partitions.sh --bootstrap-server HOST:9092 --execute --reassignment-json-file {out}" \
        in run.out and "kafka-reassign-partitions without .sh" in run.out


def test_a_reassignment_of_kafkas_current_assignment_lists_only_what_changes(cli, tmp_path):
    current = tmp_path / "current.json"
    before = place_replicas(BROKERS, 6, 2, method="admin-utils", start_index=0)
    current.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": p, "replicas": r} for p, r in enumerate(before.replicas)]}), encoding="utf-8")
    run = cli("replicas", "place", "--current", current, "--brokers", "1:a,2:b,3:c,4:a", "--json", "-")
    assert run.status == 0, run.err
    after = place_replicas(BROKERS + [Broker(4, "a")], 6, 2, method="sticky", previous=before)
    f = figures(run.out)
    assert int(f["replicas moved (data copied)"]) == after.replicas_moved == int(f["fewest moves possible (lower bound)"])
    assert int(f["preferred leaders changed"]) == after.leaders_changed
    moves = parse_reassignment(run.out.strip().splitlines()[-1], "stdout")
    assert {(t, p): r for t, p, r in moves} == {("orders", p): r for p, (r, old) in
                                                enumerate(zip(after.replicas, before.replicas)) if r != old}
    printed = "\n".join(run.out.strip().splitlines()[:-1])                 # the JSON is the last line
    assert brokers(printed)[4] == (after.replicas_per_broker()[4], after.leaders_per_broker()[4])


def test_the_whole_output_of_kafkas_generate_is_a_current_assignment(cli, tmp_path):
    """What a user pastes: kafka-reassign-partitions --generate's output, titles and both JSONs.
    Its current assignment is read (one line on stderr says so), its proposal left alone."""
    before = place_replicas(BROKERS, 6, 2, method="admin-utils", start_index=0)
    kafkas = place_replicas(BROKERS + [Broker(4, "a")], 6, 2, method="admin-utils", start_index=1)
    current = [("orders", p, r) for p, r in enumerate(before.replicas)]
    output = tmp_path / "generate-output.txt"
    output.write_text(f"Current partition replica assignment\n{format_reassignment(current)}\n\n"
                      "Proposed partition reassignment configuration\n"
                      f"{format_reassignment([('orders', p, r) for p, r in enumerate(kafkas.replicas)])}\n",
                      encoding="utf-8")
    run = cli("replicas", "place", "--current", output, "--brokers", "1:a,2:b,3:c,4:a", "--json", "-")
    assert run.status == 0, run.err
    assert "(kafka-reassign-partitions --generate output): read its current assignment" in run.err
    after = place_replicas(BROKERS + [Broker(4, "a")], 6, 2, method="sticky", previous=before)
    moves = parse_reassignment(run.out.strip().splitlines()[-1], "stdout")
    assert {(t, p): r for t, p, r in moves} == {("orders", p): r for p, (r, old) in
                                                enumerate(zip(after.replicas, before.replicas)) if r != old}


def test_a_replica_table_from_csv_files_commits_generations_and_writes_the_moves(cli, tmp_path):
    (tmp_path / "topics.csv").write_text("topic,num_partitions,replication_factor\norders,8,3\naudit,2,2\n",
                                         encoding="utf-8")
    (tmp_path / "brokers.csv").write_text("broker_id,rack,fenced\n1,a,false\n2,b,false\n3,c,false\n4,a,true\n",
                                          encoding="utf-8")
    table = tmp_path / "replicas"
    args = ["--topics", tmp_path / "topics.csv", "--table", table]
    first = cli("replicas", "place", *args, "--brokers", tmp_path / "brokers.csv", "--json", tmp_path / "first.json")
    assert first.status == 0, first.err
    assert figures(first.out)["committed version"] == "1" and brokers(first.out)[4] == (0, 0)    # fenced
    assert len(parse_reassignment((tmp_path / "first.json").read_text(), "first")) == 10

    (tmp_path / "brokers.csv").write_text("broker_id,rack,fenced\n1,a,false\n2,b,false\n3,c,false\n4,a,false\n",
                                          encoding="utf-8")
    second = cli("replicas", "place", *args, "--brokers", tmp_path / "brokers.csv", "--json", tmp_path / "moves.json")
    assert second.status == 0, second.err
    f = figures(second.out)
    assert f["committed version"] == "2" and int(f["replicas moved (data copied)"]) > 0
    rows = DeltaTable(str(table)).to_pandas()
    latest = rows[rows["generation"] == 2]
    moves = parse_reassignment((tmp_path / "moves.json").read_text(), "moves")
    changed = {(t, p) for (t, p), g in latest.groupby(["topic", "partition"])
               if list(g.sort_values("replica_index")["broker_id"]) !=
               list(rows[(rows["generation"] == 1) & (rows["topic"] == t) & (rows["partition"] == p)]
                    .sort_values("replica_index")["broker_id"])}
    assert {(t, p) for t, p, _ in moves} == changed
    assert int(f["replicas moved (data copied)"]) == int((latest["status"] == "moved").sum())

    again = cli("replicas", "place", *args, "--brokers", tmp_path / "brokers.csv")
    assert again.status == 0 and "Nothing changed" in again.out and DeltaTable(str(table)).version() == 2

    history = cli("replicas", "history", "--table", table)
    commits = {r["version"]: r for r in text_table(history.out)}
    assert commits["2"]["moved"] == f["replicas moved (data copied)"] and commits["1"]["new"] == "28"
    cluster = text_table(cli("replicas", "history", "--table", table, "--cluster", "default").out)
    assert [r["generation"] for r in cluster] == ["1", "2"] and cluster[1]["brokers"] == "4"

    report = cli("report", "--table", table, "--out", tmp_path / "replicas.html")
    assert report.status == 0, report.err
    page = ET.fromstring((tmp_path / "replicas.html").read_text(encoding="utf-8").split("\n", 1)[1])
    ids = {e.get("id") for e in page.iter()}
    assert {"replica-moves", "brokers", "racks", "rebalances-table", "brokers-table"} <= ids

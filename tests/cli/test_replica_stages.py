"""``spark-assign replicas place --stages``: a reassignment cut into stage files Kafka's tools take.

Each stage file is read back with the checks ``kafka-reassign-partitions --execute`` applies
(``parse_reassignment``); together they hold exactly the partitions ``--json`` lists, no broker
gains or loses more than ``--max-moves-per-broker`` replicas in one, and ``leaders.json`` names the
partitions whose preferred leader changes.
"""

from __future__ import annotations

import json

import pytest

from spark_assign.core import Broker, place_replicas
from spark_assign.kafka.reassignment import parse_reassignment

from .kafka_files import write_kafka_files

GiB = 1 << 30


def kafka_files(tmp_path, topics: int = 8):
    """A current assignment of ``topics`` topics on brokers 1-3 and a kafka-log-dirs output for it."""
    placement, sizes = {}, {}
    for t in range(topics):
        for p, replicas in enumerate(place_replicas([Broker(b) for b in (1, 2, 3)], 4, 2, seed=t).replicas):
            placement[(f"orders-{t}", p)] = replicas
            sizes[(f"orders-{t}", p)] = GiB * (p + 1)
    current, log_dirs = write_kafka_files(tmp_path, placement, sizes)
    return current, log_dirs, placement


def test_stages_of_a_broker_joining(cli, tmp_path):
    current, log_dirs, before = kafka_files(tmp_path)
    folder = tmp_path / "plan"
    run = cli("replicas", "place", "--current", current, "--brokers", "1,2,3,4", "--json", tmp_path / "all.json",
              "--stages", folder, "--max-moves-per-broker", "2", "--throttle", "100MiB", "--sizes", log_dirs)
    assert run.status == 0, run.err
    everything = {(t, p): r for t, p, r in parse_reassignment((tmp_path / "all.json").read_text("utf-8"), "all")}
    plan = json.loads((folder / "plan.json").read_text("utf-8"))
    staged = {}
    for stage in plan["stages"]:
        moves: dict = {}
        rows = parse_reassignment((folder / stage["file"]).read_text("utf-8"), stage["file"])
        for t, p, replicas in rows:
            staged[(t, p)] = replicas
            for b in set(replicas) ^ set(before[(t, p)]):
                moves[b] = moves.get(b, 0) + 1
        assert max(moves.values(), default=0) <= 2 and stage["busiest_broker_moves"] == max(moves.values(), default=0)
        assert stage["bytes"] == sum(GiB * (p + 1) * len(set(r) - set(before[(t, p)])) for t, p, r in rows)
    assert staged == everything
    assert len(plan["stages"]) >= plan["stage_bound"] == -(-sum(1 for r in everything.values() if 4 in r) // 2)
    assert plan["estimated_seconds"] == pytest.approx(sum(s["seconds"] for s in plan["stages"]))
    elected = json.loads((folder / "leaders.json").read_text("utf-8"))["partitions"]
    assert {(e["topic"], e["partition"]) for e in elected} == \
        {k for k, r in everything.items() if r[0] != before[k][0]}
    assert plan["commands"][0].endswith("--reassignment-json-file stage-01.json --throttle 104857600")
    assert "kafka-leader-election.sh" in plan["commands"][-1] and "data stages (at least" in run.out


@pytest.mark.parametrize("extra, message", [
    (["--throttle", "10MiB"], "--throttle applies to --stages"),
    (["--stages", "{tmp}/s"], "--stages cuts a reassignment into stages: give the current placement"),
    (["--stages", "{tmp}/s", "--current", "{tmp}/current.json", "--throttle", "1GB"], "--throttle counts bytes"),
    (["--stages", "{tmp}/s", "--current", "{tmp}/current.json", "--sizes", "{tmp}/none.txt"], "--sizes: no such file"),
    (["--stages", "{tmp}/s", "--current", "{tmp}/current.json", "--throttle", "fast"], "must be bytes such as"),
])
def test_stage_options_are_checked_before_spark(cli, tmp_path, extra, message):
    kafka_files(tmp_path, topics=1)
    args = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    topics = [] if "--current" in args else ["--topics", "orders=3", "--replication-factor", "2"]
    run = cli("replicas", "place", *topics, "--brokers", "1,2,3", *args)
    assert run.status == 2 and message in run.err, run.err


def test_an_interrupted_plan_resumes_from_the_placement_now(cli, tmp_path):
    current, log_dirs, before = kafka_files(tmp_path)
    folder = tmp_path / "plan"
    run = cli("replicas", "place", "--current", current, "--brokers", "1,2,3,4", "--stages", folder,
              "--max-moves-per-broker", "2", "--sizes", log_dirs)
    assert run.status == 0, run.err
    plan = json.loads((folder / "plan.json").read_text("utf-8"))
    done_stage = plan["stages"][0]["file"]                         # stage 1 ran, and one partition of stage 2
    now = dict(before)
    for t, p, replicas in parse_reassignment((folder / done_stage).read_text("utf-8"), done_stage):
        now[(t, p)] = replicas
    second = parse_reassignment((folder / plan["stages"][1]["file"]).read_text("utf-8"), "2")
    now[second[0][:2]] = second[0][2]
    placement = tmp_path / "now.json"
    placement.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": r} for (t, p), r in sorted(now.items())]}), encoding="utf-8")
    run = cli("replicas", "resume", "--stages", folder, "--current", placement)
    assert run.status == 0, run.err
    assert f"At stage 2 of {len(plan['stages'])}." in run.out
    resumed = json.loads((folder / "resume" / "plan.json").read_text("utf-8"))
    left = {}
    for stage in resumed["stages"]:
        for t, p, r in parse_reassignment((folder / "resume" / stage["file"]).read_text("utf-8"), stage["file"]):
            left[(t, p)] = r
    everything = {}
    for stage in plan["stages"]:
        for t, p, r in parse_reassignment((folder / stage["file"]).read_text("utf-8"), stage["file"]):
            everything[(t, p)] = r
    assert left == {k: r for k, r in everything.items() if now[k] != r}        # what is left, to the same targets
    assert resumed["max_moves_per_broker"] == 2                                # the plan's caps
    finished = tmp_path / "finished.json"
    finished.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": everything.get((t, p), r)} for (t, p), r in sorted(before.items())]}),
        encoding="utf-8")
    run = cli("replicas", "resume", "--stages", folder, "--current", finished)
    assert run.status == 0 and "Every stage is complete." in run.out

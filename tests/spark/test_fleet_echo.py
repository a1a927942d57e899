"""benchmarks/fleet_bench.py's baseline, the echo pass, emits the rows the assignment emits (the same
(group, topic, partition) keys) over the same wire: with topics as a dict (their counts travel with
the job) and as a DataFrame, fresh and with a previous generation; so does the lean echo (the
subscription rows alone, no wire). A baseline that emits less would flatter every ratio measured
against it."""

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

TOPICS = {"orders": 5, "支払い": 3}


def fleet_bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fleet_bench.py"
    spec = importlib.util.spec_from_file_location("fleet_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def keys(df):
    return sorted((r.group_id, r.topic, r.partition) for r in df.select("group_id", "topic", "partition").collect())


@pytest.mark.parametrize("as_frame", [False, True])
def test_the_echo_emits_the_assignments_rows(spark, as_frame):
    bench = fleet_bench()
    subs = spark.createDataFrame([(f"g{g}", f"c{m}", t) for g in range(4) for m in range(3) for t in TOPICS],
                                 "group_id string, member_id string, topic string")
    topics = spark.createDataFrame(list(TOPICS.items()), "topic string, num_partitions int") if as_frame else TOPICS
    fresh = subs.assign_partitions("sticky", topics=topics)
    assert keys(bench.echo_pass(subs, topics)) == keys(fresh)
    assert keys(bench.lean_echo(subs, TOPICS)) == keys(fresh)          # the lean echo: no wire at all
    previous = fresh.localCheckpoint()
    leaving = subs.where("member_id != 'c0'")
    again = leaving.assign_partitions("sticky", topics=topics, previous=previous)
    assert keys(bench.echo_pass(leaving, topics, previous)) == keys(again)
    assert len(keys(again)) == 4 * sum(TOPICS.values())

"""Replica rebalances that crash or race, each process with its own Spark session (as test_processes).

The replica table commits through the same loop as the assignment table; these
runs check that its own compute stage keeps the loop's guarantees: a writer
killed before or after its commit leaves the old version or the new one, a
re-run completes it, and concurrent writers lose no generation.
"""

import json
import signal

import pytest
from deltalake import DeltaTable

from spark_assign import ReplicaTable

from .child import REPLICA_BROKERS, REPLICA_TOPICS
from .test_processes import finish, launch

pytestmark = [pytest.mark.spark, pytest.mark.slow]

TOPICS = [["eu", "orders", 12, 3], ["eu", "audit", 4, 2], ["us", "orders", 6, 2]]
BROKERS = [["eu", b, f"r{b % 3}", False] for b in range(1, 7)] + [["us", b, None, False] for b in range(1, 4)]
JOINED = BROKERS + [["eu", 7, "r1", False], ["us", 4, None, False]]


def spec(tmp_path, name, table, rounds):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"table": table.path, "engine": table.engine, "kind": "replicas", "rounds": rounds}))
    return path


def rows(table):
    return sorted(tuple(r) for r in table.latest().select("cluster_id", "generation", "topic", "partition",
                                                          "replica_index", "broker_id").collect())


def frames(spark, topics, brokers):
    return spark.createDataFrame([tuple(t) for t in topics], REPLICA_TOPICS), \
        spark.createDataFrame([tuple(b) for b in brokers], REPLICA_BROKERS)


# One engine: each fault point runs on both engines for the assignment table (test_processes.py),
# whose loop this kind shares; this checks the replica kind's own stages between those points.
@pytest.mark.parametrize("engine", ["embedded"])
def test_a_killed_replica_rebalance_leaves_the_old_or_the_new_version(spark, tmp_path, engine):
    reference = ReplicaTable(spark, str(tmp_path / "reference"), engine=engine)
    reference.rebalance(*frames(spark, TOPICS, BROKERS))
    before = rows(reference)
    reference.rebalance(*frames(spark, TOPICS, JOINED))
    after = rows(reference)
    points = ["after-write", "after-commit"]       # before the commit and after it
    tables, procs = {}, {}
    for point in points:
        tables[point] = ReplicaTable(spark, str(tmp_path / point), engine=engine)
        tables[point].rebalance(*frames(spark, TOPICS, BROKERS))
        procs[point] = launch(spec(tmp_path, point, tables[point], [{"topics": TOPICS, "brokers": JOINED}]),
                              fault=point)
    for point in points:
        code, out, err = finish(procs[point])
        table = tables[point]
        version = DeltaTable(table.path).version()
        assert code == -signal.SIGKILL, (point, code, err[-2000:])
        assert version == (2 if point == "after-commit" else 1), point
        assert rows(table) == (after if version == 2 else before), point
        step = table.rebalance(*frames(spark, TOPICS, JOINED))
        assert step.version == (2 if version == 1 else None), point
        assert rows(table) == after, point


# One engine, in the soak run (--soak): the generation loop and its compare-and-set are the consumer
# tables' (raced by processes in test_processes.py, by two delta-spark commits in
# test_exact_versions.py, by two streaming queries in test_stream.py); this race checks what is the
# replica kind's own (its key and heads), which the kill above and test_replica_table.py also run.
@pytest.mark.soak
@pytest.mark.parametrize("engine", ["embedded"])
def test_concurrent_replica_rebalances_lose_no_generation(spark, tmp_path, engine):
    table = ReplicaTable(spark, str(tmp_path / "shared"), engine=engine)
    table.rebalance(*frames(spark, TOPICS, BROKERS))
    schedules = [[{"topics": TOPICS, "brokers": JOINED}, {"topics": TOPICS, "brokers": BROKERS}],
                 [{"topics": TOPICS, "brokers": BROKERS[:-1]}, {"topics": TOPICS, "brokers": JOINED}]]
    procs = [launch(spec(tmp_path, f"writer{k}", table, rounds)) for k, rounds in enumerate(schedules)]
    committed = []
    for proc in procs:
        code, out, err = finish(proc)
        assert code == 0, err[-3000:]
        committed += [json.loads(line)["version"] for line in out.splitlines() if line.startswith("{")]
    committed = [v for v in committed if v is not None]
    assert len(committed) == len(set(committed)) and DeltaTable(table.path).version() == 1 + len(committed)
    generations = {}
    for r in table.state().rows.select("cluster_id", "generation", "topic", "partition", "replica_index").collect():
        key = (r.cluster_id, r.generation, r.topic, r.partition, r.replica_index)
        assert key not in generations
        generations[key] = True
    for cluster in ("eu", "us"):
        gens = {k[1] for k in generations if k[0] == cluster}
        assert gens == set(range(1, max(gens) + 1))

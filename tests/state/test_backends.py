"""The two backends against each other: the same rows for the same inputs, and one table format.

* the same schedule of rebalances gives identical assignment rows on both;
* a table written by one backend continues under the other, and back;
* delta-rs reads what delta-spark wrote, history included, and the other way
  round; neither raises the table's protocol past what both read.
"""

import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable
from spark_assign.state import ENGINES

from ..delta import MISSING, jars
from .fleets import SUBS, churn, fleet_rows

pytestmark = [pytest.mark.spark, pytest.mark.skipif(not jars(), reason=MISSING)]

TOPICS = {"t0": 6, "t1": 4, "t2": 8}
#: What an assignment row says; ``committed_at`` (a clock) and ``commit_version`` differ by design.
ASSIGNMENT = ["group_id", "generation", "member_id", "topic", "partition", "previous_member_id", "status",
              "strategy", "group_instance_id", "input_fingerprint"]


def schedule(steps, seed):
    rows = fleet_rows(12, seed=seed)
    out = [rows]
    for k in range(1, steps):
        rows = churn(rows, seed=seed + k, share=0.4)
        out.append(rows)
    return out


def assignment(df):
    return sorted((tuple(r) for r in df.select(*ASSIGNMENT).collect()), key=repr)


@pytest.mark.parametrize("strategy", ["cooperative-sticky"])       # its pending transfers and follow-ups too
def test_the_same_inputs_give_the_same_rows_on_both_backends(spark, tmp_path, strategy):
    tables = {e: AssignmentTable(spark, str(tmp_path / e), engine=e) for e in ENGINES}
    for rows in schedule(4, seed=7) + [schedule(4, seed=7)[-1]]:      # the last again: a cooperative follow-up
        steps = {e: t.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, strategy) for e, t in tables.items()}
        assert len({s.version for s in steps.values()}) == 1
        summaries = [{k: v for k, v in s.summary.items() if k != "attempts"} for s in steps.values()]
        assert summaries[0] == summaries[1]
    embedded, delta_spark = (tables[e] for e in ENGINES)
    assert assignment(embedded.state().rows) == assignment(delta_spark.state().rows)
    assert assignment(embedded.latest()) == assignment(delta_spark.latest())


def test_a_table_continues_under_the_other_backend_and_back(spark, tmp_path):
    path = str(tmp_path / "shared")
    plan = schedule(4, seed=21)
    reference = AssignmentTable(spark, str(tmp_path / "reference"), engine="embedded")
    for k, rows in enumerate(plan):
        engine = ENGINES[k % 2]                                       # embedded, delta-spark, embedded, ...
        step = AssignmentTable(spark, path, engine=engine).rebalance(spark.createDataFrame(rows, SUBS), TOPICS,
                                                                     "sticky")
        expected = reference.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, "sticky")
        assert step.version == expected.version == k + 1, engine
        assert step.summary["groups_recomputed"] == expected.summary["groups_recomputed"], engine
    for engine in ENGINES:
        table = AssignmentTable(spark, path, engine=engine)
        assert assignment(table.latest()) == assignment(reference.latest()), engine
        assert [v["version"] for v in table.versions()] == list(range(len(plan), -1, -1)), engine
        assert {v["spark_assign"]["operation"] for v in table.versions() if v["spark_assign"]} == {"rebalance"}
        # An unchanged input is a no-op whichever backend wrote the heads.
        assert table.rebalance(spark.createDataFrame(plan[-1], SUBS), TOPICS, "sticky").version is None


@pytest.mark.parametrize("writer", ENGINES)
def test_each_engine_reads_the_others_tables_and_history(spark, tmp_path, writer):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=writer)
    for rows in schedule(3, seed=3):
        table.rebalance(spark.createDataFrame(rows, SUBS), TOPICS, "sticky")
    table.prune(keep_generations=1)

    dt = DeltaTable(table.path)                                      # delta-rs, whoever wrote it
    assert dt.version() == 4
    protocol = dt.protocol()
    assert (protocol.min_reader_version, protocol.min_writer_version) == (1, 2)
    assert [h["version"] for h in dt.history()][:2] == [4, 3]
    delta_spark_rows = spark.read.format("delta").load(table.path)   # delta-spark, whoever wrote it
    assert delta_spark_rows.count() == dt.to_pyarrow_table().num_rows
    old = spark.read.format("delta").option("versionAsOf", 1).load(table.path).count()
    assert old == dt.__class__(table.path, version=1).to_pyarrow_table().num_rows
    other = AssignmentTable(spark, table.path, engine=next(e for e in ENGINES if e != writer))
    assert assignment(other.at(version=2)) == assignment(table.at(version=2))
    assert assignment(other.latest()) == assignment(table.latest())

"""The events form of a streaming rebalance (issue 39): ``join``, ``update`` and ``leave`` rows
applied to the membership the query keeps in its checkpoint, on real streaming queries.

* replay: the events between a fleet's snapshots, streamed, give the table that ``rebalance``
  calls with the snapshots give, follow-ups included;
* bad events (an unknown event, an update of a member the group lacks, two events of a member
  at one point of a batch) stop the query with an InvalidInputError naming the rows, commit
  nothing, and the query resumes once the file is fixed; ``sequence`` orders a member's events.
"""

import os
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError
from spark_assign.testing import EVENTS_SCHEMA, membership_events

from .test_stream import TOPICS, all_rows, batch_rebalances, membership_batches

pytestmark = pytest.mark.spark

EVENTS = EVENTS_SCHEMA + ", sequence bigint"
NAMES = ["group_id", "member_id", "event", "topic", "group_instance_id", "sequence"]


def write_events(folder, batches):
    os.makedirs(folder, exist_ok=True)
    schema = pa.schema([(n, pa.int64() if n == "sequence" else pa.string()) for n in NAMES])
    for k, rows in enumerate(batches):
        path = os.path.join(folder, f"batch-{k}.parquet")
        pq.write_table(pa.table({n: [r[i] for r in rows] for i, n in enumerate(NAMES)}, schema=schema), path)
        os.utime(path, (1_700_000_000 + k, 1_700_000_000 + k))


def stream(spark, table, folder, checkpoint, strategy="cooperative-sticky"):
    source = spark.readStream.schema(EVENTS).option("maxFilesPerTrigger", 1).parquet(folder)
    return table.rebalance_stream(source, TOPICS, strategy=strategy, checkpoint_location=checkpoint,
                                  trigger={"availableNow": True})


def test_events_give_the_table_of_the_snapshots_rebalance_calls(spark, tmp_path):
    snapshots = membership_batches(seed=23)
    batches, fleet = [], []
    for snapshot in snapshots:
        batches.append([e + (None,) for e in membership_events(fleet, snapshot)])
        mentioned = {r[0] for r in snapshot}
        fleet = [r for r in fleet if r[0] not in mentioned] + list(snapshot)
    assert {e[2] for batch in batches for e in batch} == {"join", "update", "leave"}
    write_events(str(tmp_path / "events"), batches)
    streamed = AssignmentTable(spark, str(tmp_path / "streamed"))
    query = stream(spark, streamed, str(tmp_path / "events"), str(tmp_path / "checkpoint"))
    query.awaitTermination()
    called = AssignmentTable(spark, str(tmp_path / "called"))
    batch_rebalances(spark, called, snapshots, "cooperative-sticky")
    assert all_rows(streamed) == all_rows(called)
    assert streamed.state().version == called.state().version


def test_bad_events_stop_the_query_commit_nothing_and_it_resumes_once_fixed(spark, tmp_path):
    join = [("g", m, "join", t, None, None) for m in ("a", "b") for t in ("t0", "t1")]
    bad = [("g", "c", "joined", "t0", None, None),                       # no such event
           ("g", "x", "update", "t0", None, None),                       # x is not in g
           ("g", "a", "leave", None, None, None), ("g", "a", "join", "t2", None, None)]   # unordered
    write_events(str(tmp_path / "events"), [join, bad])
    table = AssignmentTable(spark, str(tmp_path / "table"))
    query = stream(spark, table, str(tmp_path / "events"), str(tmp_path / "checkpoint"), strategy="sticky")
    with pytest.raises(Exception) as failed:
        query.awaitTermination()
    message = str(failed.value)
    assert "InvalidInputError" in message and "joined" in message and "column 'event'" in message
    assert table.state().version == 1                                    # the good batch only
    # Fixed: c joins; a leaves then joins again with other topics; b joins twice at once (one event).
    fixed = [("g", "c", "join", "t0", "static-ç", 1), ("g", "a", "leave", None, None, 1),
             ("g", "a", "join", "t2", None, 2), ("g", "b", "update", "t2", None, 1)]
    write_events(str(tmp_path / "events"), [join, fixed])
    stream(spark, table, str(tmp_path / "events"), str(tmp_path / "checkpoint"), strategy="sticky").awaitTermination()
    latest = {(r.member_id, r.topic) for r in table.latest().collect()}
    assert {m for m, _ in latest} == {"a", "b", "c"}
    assert {t for m, t in latest if m in ("a", "b")} == {"t2"} and {t for m, t in latest if m == "c"} == {"t0"}
    assert {r.group_instance_id for r in table.latest().where("member_id = 'c'").collect()} == {"static-ç"}


def test_events_alone_are_refused_by_a_foreach_batch_function(spark, tmp_path):
    table = AssignmentTable(spark, str(tmp_path / "table"))
    run = table.foreach_batch(TOPICS, app_id="q")
    events = spark.createDataFrame([("g", "a", "join", "t0", None, None)], EVENTS)
    with pytest.raises(InvalidInputError, match="membership_from_events"):
        run(events, 0)
    assert not os.path.exists(tmp_path / "table")

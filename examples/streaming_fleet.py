"""A fleet's churn as a stream: membership files in, a rebalance per micro-batch, what moved out.

    python examples/streaming_fleet.py

A simulated fleet of six consumer groups writes its membership as files, one
per change: the first holds every group, each later one the groups that
changed (a member left, one joined, or one subscribed to another topic). A
streaming query (``AssignmentTable.rebalance_stream``) commits one generation
per changed group and batch, with ``cooperative-sticky``'s follow-ups; a
second query downstream (``read_stream(changes_only=True)``) prints what each
commit moved. Both queries run to the end of the files (``availableNow``);
with a ``processingTime`` trigger they would keep following new files.
The downstream reader is Delta's streaming source, hence delta-spark's; without
it in the session the example reads the same rows from the table instead.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from spark_assign import AssignmentTable, local_session
from spark_assign.spark import has_delta_spark
from spark_assign.testing import FLEET_SCHEMA, churn_rows, fleet_rows

TOPICS = {"orders": 12, "payments": 6, "refunds": 3}
COLUMNS = ["group_id", "member_id", "topic", "group_instance_id"]


def write_churn(folder: str, changes: int = 2, seed: int = 39) -> None:
    """The fleet's memberships as files, in order: everything, then each change's groups."""
    os.makedirs(folder)
    rows = fleet_rows(6, seed=seed, topics=3, prefix="shop-")
    rows = [(g, m, list(TOPICS)[int(t[1:])], i) for g, m, t, i in rows]        # t0.. as real topic names
    files = [rows]
    for k in range(1, changes + 1):
        before = {g: sorted(r for r in rows if r[0] == g) for g in {r[0] for r in rows}}
        named = [(g, m, f"t{list(TOPICS).index(t)}", i) for g, m, t, i in rows]
        rows = [(g, m, list(TOPICS)[int(t[1:])], i) for g, m, t, i in churn_rows(named, seed + k, share=0.4)]
        changed = {g for g in {r[0] for r in rows} if sorted(r for r in rows if r[0] == g) != before.get(g)}
        files.append([r for r in rows if r[0] in changed])
    for k, batch in enumerate(files):
        path = os.path.join(folder, f"membership-{k:03d}.parquet")
        pq.write_table(pa.table({c: [r[i] for r in batch] for i, c in enumerate(COLUMNS)}), path)
        os.utime(path, (1_700_000_000 + k,) * 2)                                 # the file source's order


def print_moves(changes, batch_id: int) -> None:
    """The downstream job: what each commit did, per status, and a few of its moves."""
    rows = changes.select("commit_version", "group_id", "topic", "partition", "member_id", "previous_member_id",
                          "status").collect()
    for version in sorted({r.commit_version for r in rows}):
        mine = [r for r in rows if r.commit_version == version]
        counts = Counter(r.status for r in mine)
        print(f"commit {version}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
        for r in [r for r in mine if r.status in ("moved", "revoked")][:2]:
            print(f"    {r.group_id} {r.topic}-{r.partition}: {r.previous_member_id} -> {r.member_id or '(pending)'}")


def main(workdir: str = "") -> None:
    spark = local_session()
    work = os.path.abspath(workdir or tempfile.mkdtemp(prefix="streaming-fleet-"))
    write_churn(os.path.join(work, "membership"))
    table = AssignmentTable(spark, os.path.join(work, "assignments"))

    membership = (spark.readStream.schema(FLEET_SCHEMA).option("maxFilesPerTrigger", 1)
                  .parquet(os.path.join(work, "membership")))
    query = table.rebalance_stream(membership, TOPICS, strategy="cooperative-sticky", trigger={"availableNow": True},
                                   checkpoint_location=os.path.join(work, "_checkpoints", "rebalance"))
    query.awaitTermination()
    print(f"Rebalanced {len(os.listdir(os.path.join(work, 'membership')))} micro-batches into version "
          f"{table.state().version} of {table.path}")

    if has_delta_spark(spark):
        moves = (table.read_stream(changes_only=True).writeStream.foreachBatch(print_moves)
                 .option("checkpointLocation", os.path.join(work, "_checkpoints", "moves"))
                 .trigger(availableNow=True).start())
        moves.awaitTermination()
    else:   # Delta's streaming source is delta-spark's: read the same rows from the table instead
        print("(no delta-spark in this session: the changes read from the table, not as a stream)")
        print_moves(table.state().rows.where("status != 'kept'"), 0)
    pending = table.latest().where("member_id IS NULL").count()
    print(f"Pending transfers when the stream went quiet: {pending}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")

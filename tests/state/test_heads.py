"""Heads: merged by the driver a bounded batch at a time, and equal to what the table's rows say."""

import glob
import os

import pyarrow.parquet as pq
import pytest

from spark_assign import AssignmentTable
from spark_assign.state import heads as heads_module
from spark_assign.state.heads import heads_name_at
from spark_assign.state.layout import heads_path

from .fleets import SUBS, churn, fleet_rows

pytestmark = pytest.mark.spark

TOPICS = {"t0": 6, "t1": 4, "t2": 8}


def test_heads_stream_through_the_driver_in_batches_and_match_the_rows(spark, tmp_path, engine, monkeypatch):
    """With batches of 7 rows, the next heads are the old ones, less the changed groups, read and
    written 7 rows at a time (row groups of at most 7), then the changed groups' heads: every
    group once, with the generation, version and fingerprint its latest rows carry."""
    monkeypatch.setattr(heads_module, "HEADS_BATCH", 7)
    rows1 = fleet_rows(40, seed=3)
    rows2 = churn(rows1, seed=4, share=0.2)
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    table.rebalance(spark.createDataFrame(rows1, SUBS), TOPICS, "sticky")
    step = table.rebalance(spark.createDataFrame(rows2, SUBS), TOPICS, "sticky")
    assert 0 < step.summary["groups_recomputed"] < 40

    name = heads_name_at(table._backend, table._backend.snapshot())
    files = glob.glob(os.path.join(heads_path(table.path, name), "*.parquet"))
    assert len(files) == 1
    meta = pq.ParquetFile(files[0]).metadata
    assert meta.num_row_groups > 1 and all(meta.row_group(i).num_rows <= 7 for i in range(meta.num_row_groups))

    heads = pq.read_table(files[0]).to_pylist()
    latest = {(r.group_id, r.generation, r.commit_version, r.input_fingerprint) for r in table.latest().collect()}
    assert sorted(h["group_id"] for h in heads) == sorted({g for g, _, _, _ in latest})    # each group once
    assert {(h["group_id"], h["generation"], h["commit_version"], h["input_fingerprint"]) for h in heads} == latest
    assert sum(h["commit_version"] == step.version for h in heads) == step.summary["groups_recomputed"]

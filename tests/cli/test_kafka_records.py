"""``spark-assign groups`` and ``audit`` refuse what is not a copy of ``__consumer_offsets`` before any
job. (Both run on a real copy in tests/cli/test_kafka_walkthrough.py, docs/kafka-records.md.)"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

def test_records_that_are_not_records_are_named_before_any_job(cli, tmp_path):
    pq.write_table(pa.table({"key": ["a"], "value": ["b"]}), tmp_path / "x.parquet")
    run = cli("groups", "--records", tmp_path / "x.parquet")
    assert run.status != 0 and "--records" in run.err and "column 'key' is string, not binary" in run.err

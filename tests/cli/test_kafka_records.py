"""``spark-assign groups`` and ``audit`` on a copy of ``__consumer_offsets`` saved as Parquet."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from spark_assign.testing import consumer_offsets_fleet


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    fleet = consumer_offsets_fleet(12, seed=8, commits=1, plant=4)
    folder = tmp_path_factory.mktemp("offsets")
    keys, values, partitions, offsets = zip(*fleet.records)
    pq.write_table(pa.table({"key": pa.array(keys, pa.binary()), "value": pa.array(values, pa.binary()),
                             "partition": pa.array(partitions, pa.int32()), "offset": pa.array(offsets, pa.int64()),
                             "topic": ["__consumer_offsets"] * len(keys)}), folder / "records.parquet")
    (folder / "topics.csv").write_text("topic,num_partitions\n" + "".join(f"{t},{n}\n" for t, n in fleet.topics.items()))
    return folder, fleet


def test_groups_lists_them_and_writes_the_frames(cli, copy, tmp_path):
    folder, fleet = copy
    run = cli("groups", "--records", folder / "records.parquet", "--out", tmp_path / "frames", "--limit", 3)
    assert run.status == 0, run.err
    assert "12 groups; 0 records not read" in run.out and "... 9 more groups" in run.out
    subs = pq.read_table(tmp_path / "frames" / "subscriptions")
    assert subs.column_names == ["group_id", "member_id", "topic", "group_instance_id", "rack", "owned_partitions",
                                 "generation"]


def test_audit_finds_the_planted_groups_and_fails_when_asked(cli, copy):
    folder, fleet = copy
    run = cli("audit", "--records", folder / "records.parquet", "--topics", folder / "topics.csv", "--fail")
    assert run.status == 1, run.err
    assert f"audited 12 classic consumer groups: {len(fleet.planted)} differ from their strategy" in run.out
    for group in fleet.planted:
        assert group in run.out


def test_records_that_are_not_records_are_named_before_any_job(cli, tmp_path):
    pq.write_table(pa.table({"key": ["a"], "value": ["b"]}), tmp_path / "x.parquet")
    run = cli("groups", "--records", tmp_path / "x.parquet")
    assert run.status != 0 and "--records" in run.err and "column 'key' is string, not binary" in run.err

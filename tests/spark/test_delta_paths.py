"""The one path-or-table-name rule, and how a path is resolved (spark_assign.spark.delta)."""

import os

import pytest

from spark_assign.spark.delta import is_path, resolve_location


@pytest.mark.parametrize("location", ["/data/state", "./state", "~/state", "s3://bucket/state",
                                      "file:///tmp/state", "fleet-state", "x y", "主题"])
def test_paths(location):
    assert is_path(location)


@pytest.mark.parametrize("location", ["fleet_state", "db.fleet_state", "`my-db`.fleet_state", "cat.db.t"])
def test_table_names(location):
    assert not is_path(location)


def test_an_existing_directory_is_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "state").mkdir()
    assert is_path("state")


def test_resolve_location(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_location("rel/state") == str(tmp_path / "rel" / "state")
    assert resolve_location("fleet-state") == str(tmp_path / "fleet-state")
    assert resolve_location("~/state") == os.path.expanduser("~/state")
    assert resolve_location("s3://bucket/state") == "s3://bucket/state"
    assert resolve_location("file:/tmp/state") == "file:/tmp/state"
    assert resolve_location("db.fleet_state") == "db.fleet_state"


def test_previous_naming_a_folder_without_a_delta_table_says_so(tmp_path):
    from spark_assign.errors import InvalidInputError
    from spark_assign.spark.delta import read_delta

    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "part-0.parquet").write_bytes(b"PAR1")
    with pytest.raises(InvalidInputError) as e:
        read_delta(None, str(tmp_path / "exports"))         # refused before any Spark call
    assert "exists but holds no Delta table (the folder has no _delta_log)" in str(e.value)
    assert e.value.column == "previous"
    with pytest.raises(InvalidInputError, match="the folder does not exist"):
        read_delta(None, "file:" + str(tmp_path / "missing"))


def test_previous_naming_a_plain_folder_on_the_dataframe_method(spark, tmp_path):
    import spark_assign  # noqa: F401
    from spark_assign.errors import InvalidInputError

    (tmp_path / "exports").mkdir()
    subs = spark.createDataFrame([("g", "c1", "orders")], "group_id string, member_id string, topic string")
    with pytest.raises(InvalidInputError, match="exists but holds no Delta table"):
        subs.assign_partitions("sticky", topics={"orders": 2}, previous=str(tmp_path / "exports"))

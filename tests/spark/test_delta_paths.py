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

"""``state.damage``: what is wrong with a Delta log, read from its files (no Spark)."""

from __future__ import annotations

import json

from spark_assign.errors import StateTableError
from spark_assign.spark.failures import SparkFailure
from spark_assign.state.backends.damage import damaged_file, damaged_log, log_error, watch


def log(tmp_path, versions, checkpoint=None):
    folder = tmp_path / "t" / "_delta_log"
    folder.mkdir(parents=True)
    for v in versions:
        (folder / f"{v:020d}.json").write_text(json.dumps({"commitInfo": {"v": v}}) + "\n", encoding="utf-8")
    if checkpoint is not None:
        (folder / f"{checkpoint:020d}.checkpoint.parquet").write_bytes(b"PAR1")
    return tmp_path / "t"


def test_a_sound_log_shows_nothing(tmp_path):
    assert damaged_log(str(log(tmp_path, [0, 1, 2]))) is None


def test_a_missing_commit_is_named(tmp_path):
    root = log(tmp_path, [0, 1, 3, 4])
    assert damaged_log(str(root)) == "commit file 00000000000000000002.json is missing (the log goes on at version 3)"
    assert damaged_log(f"file://{root}") is not None                     # a file: URI is a local table too


def test_commits_before_the_latest_checkpoint_may_be_gone(tmp_path):
    # Delta's log cleanup deletes commits a checkpoint covers: not damage.
    assert damaged_log(str(log(tmp_path, [10, 11, 12], checkpoint=10))) is None


def test_an_unreadable_commit_is_named(tmp_path):
    root = log(tmp_path, [0, 1, 2])
    (root / "_delta_log" / f"{1:020d}.json").write_text("{not json\n", encoding="utf-8")
    assert damaged_log(str(root)) == "commit file 00000000000000000001.json is not valid JSON (line 1)"
    (root / "_delta_log" / f"{1:020d}.json").write_text("\n", encoding="utf-8")
    assert damaged_log(str(root)) == "commit file 00000000000000000001.json is empty"
    (root / "_delta_log" / f"{1:020d}.json").write_text("[1]\n", encoding="utf-8")
    assert "line 1 is not a JSON object" in damaged_log(str(root))


def test_no_local_log_shows_nothing(tmp_path):
    assert damaged_log("s3://bucket/state") is None and damaged_log(str(tmp_path / "none")) is None


def test_an_engine_failure_is_one_sentence(tmp_path):
    root = log(tmp_path, [0, 1, 3])
    error = log_error(str(root), RuntimeError("Kernel error: ParsedLogPath { location: ... }\nmore"), "delta-rs")
    assert isinstance(error, StateTableError) and "\n" not in str(error)
    assert str(error).startswith(f"cannot read the state table at {root}: its Delta log is damaged: commit file")
    sound = log_error(str(log(tmp_path / "b", [0])), RuntimeError("first line\nsecond"), "delta-rs", version=7)
    assert str(sound) == f"cannot read the state table at {tmp_path / 'b' / 't'} at version 7: delta-rs could " \
                         "not read its log (first line)"


class _Backend:
    engine = "embedded"

    def __init__(self, root):
        self.root = self.location = root


def test_a_failed_read_of_a_watched_tables_file_is_a_state_table_error(tmp_path):
    root = str(tmp_path / "fleet")
    watch(_Backend(root))
    data = SparkFailure("FAILED_READ_FILE.NO_HINT", {"path": f"file://{root}/commit_version=3/part-0.parquet"})
    error = damaged_file(data)
    assert isinstance(error, StateTableError)
    assert str(error).startswith(f"cannot read the state table at {root}: its data file commit_version=3/part-0.parquet")
    assert damaged_file(SparkFailure("FAILED_READ_FILE.NO_HINT", {"path": f"file://{tmp_path}/other/x.parquet"})) is None
    assert damaged_file(SparkFailure("DIVIDE_BY_ZERO", {"path": data.parameters["path"]})) is None

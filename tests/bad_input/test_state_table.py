"""Bad input to ``AssignmentTable``: arguments, rows, locations that are no state table, damaged tables.

Each case asserts the exception type, that the message names the column or
argument (a damaged table: the table), that nothing was written (a new
location stays absent; an existing table keeps its Delta version and log),
and that neither the message nor stderr holds a stack: the cases run in a
child process that captures its stderr (see stderr.py). Most cases run on
the embedded engine; the ``delta-spark`` ones on delta-spark.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError, SchemaError, StateTableError, UnknownStrategyError

from ..delta import jars
from .conftest import assert_clean
from .stderr import case_params, checks, run_in_child

pytestmark = pytest.mark.spark
SURFACE = "state"

S = "group_id string, member_id string, topic string"
GOOD = [("g", "a", "t")]
DELTA_SPARK = pytest.mark.skipif(not jars(), reason="delta-spark jars not found")


def rebalance(rows=GOOD, topics=None, schema=S, strategy="range", **kw):
    def attempt(spark, path, engine):
        subs = spark.createDataFrame(rows, schema)
        meta = topics if not isinstance(topics, tuple) else spark.createDataFrame(*topics)
        return AssignmentTable(spark, path, engine=engine).rebalance(subs, {"t": 3} if meta is None else meta,
                                                                     strategy, **kw)
    return attempt


def table(*args, **kw):
    return lambda spark, path, engine: AssignmentTable(spark, *args, **{"engine": engine, **kw})


def read(method, *args, **kw):
    return lambda spark, path, engine: getattr(AssignmentTable(spark, path, engine=engine), method)(*args, **kw)


EMB = "embedded"
CASES = [
    pytest.param(rebalance([("g", None, "t")]), InvalidInputError, "member_id", id="member-id-null"),
    pytest.param(rebalance([("g", "", "t")]), InvalidInputError, "member_id", id="member-id-empty"),
    pytest.param(rebalance([("g", "a", "t"), ("g", "a", "t")]), InvalidInputError, "topic", id="duplicate-rows"),
    pytest.param(rebalance([("g", "a", "t", "s"), ("g", "b", "t", "s")], schema=S + ", group_instance_id string"),
                 InvalidInputError, "group_instance_id", id="static-id-used-by-two-members"),
    pytest.param(rebalance(topics={"t": 2**31}), InvalidInputError, "num_partitions", id="topics-count-2^31"),
    pytest.param(rebalance(topics={"t": -3}), InvalidInputError, "num_partitions", id="topics-count-negative"),
    pytest.param(rebalance(topics={"t": 1.5}), InvalidInputError, "num_partitions", id="topics-count-float"),
    pytest.param(rebalance(topics=[("t", 1)]), InvalidInputError, "topics", id="topics-list"),
    pytest.param(rebalance(topics=([("t", -1)], "topic string, num_partitions int")), InvalidInputError,
                 "num_partitions", id="topics-frame-negative-count"),
    pytest.param(rebalance(topics=([("t", 1), ("t", 2)], "topic string, num_partitions int")), InvalidInputError,
                 "topic", id="topics-frame-topic-twice"),
    pytest.param(rebalance(topics=([("t", 2**31)], "topic string, num_partitions bigint")), InvalidInputError,
                 "num_partitions", id="topics-frame-bigint-count-2^31"),
    pytest.param(rebalance([("g", "t")], schema="group_id string, topic string"), SchemaError, "member_id",
                 id="member-id-column-missing"),
    pytest.param(rebalance([("g", 1, "t")], schema="group_id string, member_id int, topic string"), SchemaError,
                 "member_id", id="member-id-int-column"),
    pytest.param(rebalance(strategy="stiky"), UnknownStrategyError, "stiky", id="strategy-unknown"),
    pytest.param(rebalance(num_files=0), InvalidInputError, "num_files", id="num-files-zero"),
    pytest.param(rebalance(num_files="2"), InvalidInputError, "num_files", id="num-files-string"),
    pytest.param(rebalance(max_attempts=0), InvalidInputError, "max_attempts", id="max-attempts-zero"),
    pytest.param(rebalance(max_attempts=2.0), InvalidInputError, "max_attempts", id="max-attempts-float"),
    pytest.param(rebalance(force="yes"), InvalidInputError, "force", id="force-string"),
    pytest.param(table(5), InvalidInputError, "location", id="location-int"),
    pytest.param(table(""), InvalidInputError, "location", id="location-empty"),
    pytest.param(table("x/y", engine="duckdb"), InvalidInputError, "engine", id="engine-unknown"),
    pytest.param(read("latest"), InvalidInputError, "location", id="latest-of-no-table"),
    pytest.param(read("history", 7), InvalidInputError, "group_id", id="history-group-int"),
    pytest.param(read("at"), InvalidInputError, "at", id="at-without-arguments"),
    pytest.param(read("at", generation=-1), InvalidInputError, "generation", id="at-negative-generation"),
    pytest.param(read("prune", 0), InvalidInputError, "keep_generations", id="prune-keep-zero"),
    pytest.param(read("vacuum", -1), InvalidInputError, "retention_hours", id="vacuum-negative-retention"),
]


def version(path: str):
    return DeltaTable(path).version() if os.path.isdir(os.path.join(path, "_delta_log")) else None


#: Every case on the embedded engine; the data and schema cases on delta-spark too (kept few: each costs
#: delta-spark's fixed jobs).
ENGINE_CASES = [pytest.param(EMB, *c.values, id=f"{c.id}-embedded", marks=c.marks) for c in CASES] + [
    pytest.param("delta-spark", *c.values, id=f"{c.id}-delta-spark", marks=[DELTA_SPARK, *c.marks])
    for c in CASES[:13]]


def check_new_location(spark, tmp_path, engine, attempt, error, name):
    path = str(tmp_path / "state")
    out = None
    with pytest.raises(error) as info:
        out = attempt(spark, path, engine)
    assert out is None and not os.path.exists(path)
    assert_clean(info.value, name)


@pytest.mark.parametrize("case", case_params(ENGINE_CASES, "new"))
def test_bad_input_on_a_new_location_creates_nothing(case):
    run_in_child(SURFACE, case)


_EXISTING = {}


def existing_table(spark) -> str:
    """A state table at version 1 (embedded engine), shared by the cases on an existing table."""
    if spark not in _EXISTING:
        path = os.path.join(tempfile.mkdtemp(prefix="existing-"), "state")
        AssignmentTable(spark, path, engine="embedded").rebalance(spark.createDataFrame(GOOD, S), {"t": 3}, "range")
        _EXISTING[spark] = path
    return _EXISTING[spark]


def check_existing(spark, tmp_path, attempt, error, name):
    existing = existing_table(spark)
    before = version(existing)
    out = None
    with pytest.raises(error) as info:
        out = attempt(spark, existing, "embedded")
    assert out is None and version(existing) == before == 1
    assert_clean(info.value, name)


@pytest.mark.parametrize("case", case_params(CASES[:19], "existing"))
def test_bad_input_on_an_existing_table_keeps_its_version(case):
    run_in_child(SURFACE, case)


# ------------------------------------------------------------------ locations that are no state table


def _file(path):
    with open(path, "w") as f:
        f.write("not a table")


def _parquet_folder(path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(path)
    pq.write_table(pa.table({"x": [1]}), os.path.join(path, "part-0.parquet"))


def _foreign_table(path):
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(path, pa.table({"group_id": ["g"], "x": [1]}))


LOCATIONS = [
    pytest.param(_file, "rebalance", "is a file", id="path-is-a-file"),
    pytest.param(_parquet_folder, "rebalance", "holds files but no Delta table", id="folder-of-other-files"),
    pytest.param(_foreign_table, "rebalance", "not a spark-assign state table", id="another-tables-schema"),
    pytest.param(_foreign_table, "latest", "not a spark-assign state table", id="another-tables-schema-read"),
]


def _contents(path):
    return (os.path.getsize(path) if os.path.isfile(path) else sorted(os.listdir(path)), version(path))


def check_location(spark, tmp_path, make, action, named):
    path = str(tmp_path / "state")
    make(path)
    before = _contents(path)
    target = AssignmentTable(spark, path, engine="embedded")
    out = None
    with pytest.raises(StateTableError) as info:
        out = (target.rebalance(spark.createDataFrame(GOOD, S), {"t": 3}, "range") if action == "rebalance"
               else target.latest())
    assert out is None and _contents(path) == before
    assert_clean(info.value, named)


@pytest.mark.parametrize("case", case_params(LOCATIONS, "location"))
def test_a_location_that_is_no_state_table(case):
    run_in_child(SURFACE, case)


# ------------------------------------------------------------------ damaged tables


def drop_middle_commit(path: str) -> None:
    os.remove(os.path.join(path, "_delta_log", "00000000000000000002.json"))


def garble_middle_commit(path: str) -> None:
    """Version 2's commit file becomes text that is no JSON (delta-spark reads it in a Spark task)."""
    with open(os.path.join(path, "_delta_log", "00000000000000000002.json"), "w") as f:
        f.write("{not json\n")


def garble_last_commit(path: str) -> None:
    """The newest commit file becomes text that is no JSON (read when the table is opened)."""
    with open(os.path.join(path, "_delta_log", "00000000000000000003.json"), "w") as f:
        f.write("{not json\n")


def truncate_data_files(path: str) -> None:
    for root, _, files in os.walk(path):
        for name in files:
            if name.endswith(".parquet") and "commit_version=" in root:
                with open(os.path.join(root, name), "r+b") as f:
                    f.truncate(20)


#: How each read is called; a read is lazy: its action (collect) meets the damaged file.
READS = {"latest": lambda t: t.latest(), "history": lambda t: t.history("g"), "at": lambda t: t.at(generation=1)}
ENGINES = [pytest.param("embedded", id="embedded"), pytest.param("delta-spark", id="delta-spark", marks=DELTA_SPARK)]
DAMAGES = [
    pytest.param(drop_middle_commit, "latest", "00000000000000000002.json is missing", id="missing-middle-delta-log-file"),
    pytest.param(garble_middle_commit, "latest", "00000000000000000002.json is not valid JSON",
                 id="corrupt-middle-commit-file"),
    pytest.param(garble_last_commit, "history", "00000000000000000003.json is not valid JSON",
                 id="corrupt-last-commit-file"),
    pytest.param(truncate_data_files, "latest", "commit_version=", id="truncated-parquet-read-by-latest"),
    pytest.param(truncate_data_files, "history", "commit_version=", id="truncated-parquet-read-by-history"),
    pytest.param(truncate_data_files, "at", "commit_version=", id="truncated-parquet-read-by-at"),
]
DAMAGED = [pytest.param(e.values[0], *d.values, id=f"{d.id}-{e.id}", marks=[*e.marks, *d.marks])
           for d in DAMAGES for e in ENGINES]


def check_damaged(spark, tmp_path, engine, damage, read, named):
    """A damaged table fails the read (at once, or at its action) with one plain sentence naming the
    table and the file, and nothing is written."""
    path = str(tmp_path / "state")
    target = AssignmentTable(spark, path, engine=engine)
    for members in (["a"], ["a", "b"], ["b"]):
        target.rebalance(spark.createDataFrame([("g", m, "t") for m in members], S), {"t": 2}, "range")
    damage(path)
    log = sorted(os.listdir(os.path.join(path, "_delta_log")))
    out = None
    with pytest.raises(StateTableError) as info:
        out = READS[read](AssignmentTable(spark, path, engine=engine)).collect()
    assert out is None and sorted(os.listdir(os.path.join(path, "_delta_log"))) == log
    text = assert_clean(info.value, path)
    assert named in text and text.count("\n") == 0, text


@pytest.mark.parametrize("case", case_params(DAMAGED, "damaged"))
def test_a_damaged_table_is_a_state_table_error(case):
    run_in_child(SURFACE, case)


# ------------------------------------------------------------------ no bad input: quiet recoveries


def check_heads_deleted(spark, tmp_path, engine):
    """The heads folder deleted: reads and the next rebalance rebuild what they need from the table
    (one scan), and say nothing on stderr (no PATH_NOT_FOUND stack; stderr is checked by the child)."""
    path = str(tmp_path / "state")
    table = AssignmentTable(spark, path, engine=engine)
    subs = spark.createDataFrame([("g", m, "t") for m in ("a", "b")], S)
    table.rebalance(subs, {"t": 4}, "range")
    before = sorted(map(tuple, table.latest().select("member_id", "topic", "partition").collect()))
    shutil.rmtree(os.path.join(path, "_spark_assign"))
    table = AssignmentTable(spark, path, engine=engine)
    assert sorted(map(tuple, table.latest().select("member_id", "topic", "partition").collect())) == before
    assert table.history("g").count() == 4
    assert table.rebalance(subs, {"t": 4}, "range").version is None          # unchanged: nothing written
    step = table.rebalance(subs, {"t": 6}, "range")
    assert step.version == 2 and step.summary["groups_recomputed"] == 1


@pytest.mark.parametrize("case", case_params(ENGINES, "heads-deleted"))
def test_a_deleted_heads_folder_is_rebuilt_quietly(case):
    run_in_child(SURFACE, case)


CHECKS = {**checks(ENGINE_CASES, "new", check_new_location), **checks(CASES[:19], "existing", check_existing),
          **checks(LOCATIONS, "location", check_location), **checks(DAMAGED, "damaged", check_damaged),
          **checks(ENGINES, "heads-deleted", check_heads_deleted)}

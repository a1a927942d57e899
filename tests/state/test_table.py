"""AssignmentTable on the embedded engine: the generational loop, reads, idempotence, bad input."""

import json
import os

import pytest
from deltalake import DeltaTable

from spark_assign import AssignmentTable
from spark_assign.errors import InvalidInputError, SchemaError, StateTableError, UnknownStrategyError

from .fleets import SUBS

pytestmark = pytest.mark.spark

TOPICS = {"orders": 4, "audit": 2}


def subs(spark, rows):
    return spark.createDataFrame(rows, SUBS)


def owners(df):
    return {(r.group_id, r.topic, r.partition): r.member_id for r in df.collect()}


def test_cooperative_loop_revokes_then_assigns_and_is_idempotent(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    two = [("g1", "c1", "orders", None), ("g1", "c2", "orders", None), ("g2", "a", "audit", None)]
    first = table.rebalance(subs(spark, two), TOPICS, "cooperative-sticky")
    assert first.version == 1 and first.summary["groups_recomputed"] == 2 and first.summary["new"] == 6

    again = table.rebalance(subs(spark, two), TOPICS, "cooperative-sticky")
    assert again.version is None and again.summary == {"groups_recomputed": 0, "groups_unchanged": 2,
                                                        "attempts": 1, "groups_with_missing_topics": 0,
                                                        "warnings": 0}
    assert DeltaTable(table.path).version() == 1                      # nothing written

    three = two + [("g1", "c3", "orders", None)]
    joined = table.rebalance(subs(spark, three), TOPICS, "cooperative-sticky")
    assert joined.version == 2 and joined.summary["groups_recomputed"] == 1
    assert joined.summary["revoked"] == 1 and joined.summary["assigned"] == 0
    follow_up = table.rebalance(subs(spark, three), TOPICS, "cooperative-sticky")   # the pending transfer
    assert follow_up.version == 3 and follow_up.summary["assigned"] == 1 and follow_up.summary["revoked"] == 0
    assert table.rebalance(subs(spark, three), TOPICS, "cooperative-sticky").version is None

    latest = {(r.group_id, r.topic, r.partition): (r.generation, r.member_id, r.status)
              for r in table.latest().collect()}
    assert latest[("g2", "audit", 0)] == (1, "a", "new")              # untouched since generation 1
    assert sorted(v[1] for k, v in latest.items() if k[0] == "g1") == ["c1", "c1", "c2", "c3"]
    assert {v[0] for k, v in latest.items() if k[0] == "g1"} == {3}

    history = table.history("g1").collect()
    assert sorted({r.generation for r in history}) == [1, 2, 3]
    assert [r.status for r in history if r.generation == 2].count("revoked") == 1
    assert owners(table.at(version=1)) == owners(first.rows)
    moved = table.diff(1, 3).collect()
    assert len(moved) == 1 and moved[0].to_member_id == "c3"


def test_changed_strategy_recomputes_every_group(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    rows = [("g1", "c1", "orders", None), ("g1", "c2", "orders", None), ("g2", "a", "audit", None)]
    table.rebalance(subs(spark, rows), TOPICS, "range")
    step = table.rebalance(subs(spark, rows), TOPICS, "sticky")
    assert step.summary["groups_recomputed"] == 2
    assert {r.strategy for r in table.latest().collect()} == {"sticky"}


def test_static_member_restarting_keeps_its_partitions(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    rows = [("g", "a-1", "orders", "static-a"), ("g", "b-1", "orders", None)]
    table.rebalance(subs(spark, rows), TOPICS, "sticky")
    before = {p: m for (_, _, p), m in owners(table.latest()).items()}
    restarted = [("g", "a-2", "orders", "static-a"), ("g", "b-1", "orders", None)]
    table.rebalance(subs(spark, restarted), TOPICS, "sticky")
    after = table.latest().collect()
    assert {r.partition for r in after if r.member_id == "a-2"} == {p for p, m in before.items() if m == "a-1"}
    # The same static member kept them; previous_member_id shows its old member id.
    assert {(r.status, r.previous_member_id) for r in after if r.member_id == "a-2"} == {("kept", "a-1")}
    assert {r.group_instance_id for r in after if r.member_id == "a-2"} == {"static-a"}


def test_the_table_is_a_plain_delta_table(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    table.rebalance(subs(spark, [("g", "a", "orders", None)]), TOPICS, "range")
    dt = DeltaTable(table.path)
    protocol = dt.protocol()
    assert (protocol.min_reader_version, protocol.min_writer_version) == (1, 2)
    assert not protocol.reader_features and not protocol.writer_features
    assert dt.metadata().partition_columns == ["commit_version"]
    assert dt.to_pyarrow_table().num_rows == 4
    summary = table.versions()[0]["spark_assign"]
    assert summary["operation"] == "rebalance" and summary["strategy"] == "range"


def test_bad_input_writes_nothing(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    table.rebalance(subs(spark, [("g", "a", "orders", None)]), TOPICS, "range")
    bad = subs(spark, [("g", "a", "orders", None), ("g", None, "orders", None)])
    with pytest.raises(InvalidInputError, match="null or empty member_id; column 'member_id'; group 'g'"):
        table.rebalance(bad, TOPICS, "range")
    assert DeltaTable(table.path).version() == 1
    with pytest.raises(SchemaError, match="member_id"):
        table.rebalance(spark.createDataFrame([("g", "t")], "group_id string, topic string"), TOPICS)
    with pytest.raises(UnknownStrategyError):
        table.rebalance(subs(spark, [("g", "a", "orders", None)]), TOPICS, "rang")
    assert DeltaTable(table.path).version() == 1


@pytest.mark.parametrize("in_driver", [True, False], ids=["driver", "spark"])
def test_a_first_rebalance_with_bad_input_creates_no_table(spark, tmp_path, engine, monkeypatch, in_driver):
    """Contract section 6: nothing is written, not even an empty table, on either compute path."""
    import spark_assign.state.consumer.table as table_module

    monkeypatch.setattr(table_module, "LOCAL_ROWS", table_module.LOCAL_ROWS if in_driver else 0)
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    bad = subs(spark, [("g", "a", "orders", None), ("g", "a", "orders", None)])
    with pytest.raises(InvalidInputError, match="duplicate"):
        table.rebalance(bad, TOPICS, "sticky")
    assert not os.path.exists(table.path)
    step = table.rebalance(subs(spark, [("g", "a", "orders", None)]), TOPICS, "sticky")
    assert step.version == 1 and DeltaTable(table.path).version() == 1


def test_a_foreign_table_is_refused(spark, tmp_path, engine):
    path = str(tmp_path / "foreign")
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(path, pa.table({"group_id": ["g"], "x": [1]}))
    table = AssignmentTable(spark, path, engine=engine)
    with pytest.raises(StateTableError, match="not a spark-assign state table"):
        table.rebalance(subs(spark, [("g", "a", "orders", None)]), TOPICS, "range")
    with pytest.raises(StateTableError):
        table.latest()


def test_a_folder_of_other_files_or_a_file_is_refused_before_anything_is_written(spark, tmp_path, engine):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "parquet"
    folder.mkdir()
    pq.write_table(pa.table({"x": [1]}), str(folder / "part-0.parquet"))
    with pytest.raises(StateTableError, match="holds files but no Delta table .part-0.parquet."):
        AssignmentTable(spark, str(folder), engine=engine).rebalance(
            subs(spark, [("g", "a", "orders", None)]), TOPICS, "range")
    assert sorted(p.name for p in folder.iterdir()) == ["part-0.parquet"]

    file = tmp_path / "state.txt"
    file.write_text("not a folder")
    with pytest.raises(StateTableError, match="is a file, not a folder"):
        AssignmentTable(spark, str(file), engine=engine).rebalance(
            subs(spark, [("g", "a", "orders", None)]), TOPICS, "range")
    assert file.read_text() == "not a folder"


def test_reads_need_a_table_and_arguments_are_checked(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "none"), engine=engine)
    with pytest.raises(InvalidInputError, match="run rebalance first"):
        table.latest()
    with pytest.raises(InvalidInputError, match="exactly one of generation= and version="):
        table.at()
    with pytest.raises(InvalidInputError, match="engine must be"):
        AssignmentTable(spark, "x/y", engine="duckdb")


def test_dataframe_method_reads_previous_from_the_table(spark, tmp_path, engine):
    path = str(tmp_path / "t")
    table = AssignmentTable(spark, path, engine=engine)
    rows = [("g", "a", "orders", None), ("g", "b", "orders", None)]
    table.rebalance(subs(spark, rows), TOPICS, "sticky")
    for previous in (table, path):
        result = subs(spark, rows + [("g", "c", "orders", None)]).assign_partitions(
            "sticky", topics=TOPICS, previous=previous).collect()
        assert {r.generation for r in result} == {2}
        assert sum(r.status == "kept" for r in result) == 3


def test_another_tools_commit_does_not_make_every_group_change(spark, tmp_path, engine):
    """A version without spark-assign's heads (here a table property set with delta-rs) is read by a scan, which
    keeps each group's fingerprint from its rows: re-running the same rebalance writes nothing."""
    table = AssignmentTable(spark, str(tmp_path / "compacted"), engine=engine)
    rows = [("g1", "a", "orders", None), ("g1", "b", "orders", None), ("g2", "c", "audit", None)]
    table.rebalance(subs(spark, rows), TOPICS, "sticky")
    rows.append(("g2", "d", "audit", None))
    table.rebalance(subs(spark, rows), TOPICS, "sticky")
    before = DeltaTable(table.path).version()
    DeltaTable(table.path).alter.set_table_properties({"delta.logRetentionDuration": "interval 60 days"})
    assert DeltaTable(table.path).version() == before + 1       # a commit that names no heads
    again = table.rebalance(subs(spark, rows), TOPICS, "sticky")
    assert again.version is None and again.summary["groups_recomputed"] == 0


def test_locations_are_local_paths_or_file_uris(tmp_path):
    from spark_assign.state.backends.embedded import EmbeddedBackend
    from spark_assign.state.layout import local_path

    assert local_path("file:/tmp/s") == local_path("file:///tmp/s") == "/tmp/s"
    assert EmbeddedBackend(None, f"file:{tmp_path}/s").root == str(tmp_path / "s")
    with pytest.raises(InvalidInputError, match="local paths only, got 's3a://bucket/state'"):
        EmbeddedBackend(None, "s3a://bucket/state")


@pytest.mark.parametrize("in_driver", [True, False], ids=["driver", "spark"])
def test_a_group_whose_topics_vanish_has_no_partitions_then_continues(spark, tmp_path, engine, monkeypatch, in_driver):
    """Every topic of group g is deleted: latest() shows g with nothing (not its old partitions),
    the same input stays a no-op, and when the topic returns g's generations go on from 1 to 2."""
    import spark_assign.state.consumer.table as table_module

    monkeypatch.setattr(table_module, "LOCAL_ROWS", table_module.LOCAL_ROWS if in_driver else 0)
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    members = subs(spark, [("g", "a", "orders", None), ("g", "b", "orders", None), ("h", "c", "audit", None)])
    first = table.rebalance(members, TOPICS, "cooperative-sticky")
    gone = {"audit": 2}                                       # "orders" was deleted
    emptied = table.rebalance(members, gone, "cooperative-sticky")
    assert emptied.summary["groups_recomputed"] == 1 and emptied.rows.count() == 0
    assert {r.group_id for r in table.latest().collect()} == {"h"}
    assert {r.group_id for r in table.at(version=first.version).collect()} == {"g", "h"}
    assert table.rebalance(members, gone, "cooperative-sticky").version is None
    back = table.rebalance(members, TOPICS, "cooperative-sticky")
    rows = back.rows.collect()
    assert {(r.generation, r.status, r.previous_member_id) for r in rows} == {(2, "new", None)}
    assert len(rows) == 4 and {r.member_id for r in rows} == {"a", "b"}
    assert sorted({r.generation for r in table.history("g").collect()}) == [1, 2]
    assert owners(table.latest().where("group_id = 'g'")) == owners(back.rows)


def test_a_relative_path_is_the_same_directory_for_both_engines(spark, tmp_path, monkeypatch, engine):
    """The JVM keeps the working directory it started in; the table must land in this process's."""
    monkeypatch.chdir(tmp_path)
    table = AssignmentTable(spark, "rel/state", engine=engine)
    assert table.path == str(tmp_path / "rel" / "state")
    rows = [("g1", "c1", "orders", None)]
    assert table.rebalance(subs(spark, rows), TOPICS, "sticky").version == 1
    assert (tmp_path / "rel" / "state" / "_delta_log").is_dir()
    assert AssignmentTable(spark, "rel/state", engine=engine).latest().count() == 4


def test_a_missing_topic_is_warned_and_counted(spark, tmp_path, engine):
    from spark_assign.errors import MissingTopicWarning

    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    rows = [("g1", "a", "orders", None), ("g1", "a", "ordres", None), ("g2", "b", "audit", None)]
    with pytest.warns(MissingTopicWarning, match="1 of 2 groups subscribe to topics missing .*'ordres'"):
        step = table.rebalance(subs(spark, rows), TOPICS, "range")
    assert step.summary["groups_with_missing_topics"] == 1 and step.summary["new"] == 6
    assert step.summary["warnings"] == 1
    with pytest.warns(MissingTopicWarning):                     # the mistake stays: so does the warning
        again = table.rebalance(subs(spark, rows), TOPICS, "range")
    assert again.version is None and again.summary["groups_with_missing_topics"] == 1


def test_a_damaged_data_file_fails_the_reads_action_as_a_state_table_error(spark, tmp_path, engine):
    # Reads are lazy: the action meets the file, and Spark's FAILED_READ_FILE failure (recognised by its
    # condition and path) is raised as one sentence naming the table and the file (docs/state.md).
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    table.rebalance(subs(spark, [("g1", "a", "orders", None)]), TOPICS, "range")
    for folder, _, files in os.walk(table.path):
        for name in files:
            if name.endswith(".parquet") and "commit_version=" in folder:
                with open(os.path.join(folder, name), "r+b") as f:
                    f.truncate(20)
    latest = AssignmentTable(spark, table.path, engine=engine).latest()       # lazy: nothing read yet
    with pytest.raises(StateTableError, match=r"its data file commit_version=1/\S+\.parquet is damaged") as info:
        latest.collect()
    assert str(info.value).startswith(f"cannot read the state table at {table.path}: ")
    assert info.value.spark_error is not None and "Traceback" not in str(info.value)


def test_a_negative_generation_is_warned_and_reads_as_none(spark, tmp_path, engine):
    # As the engine (tests/bad_input/test_engine.py): Kafka reads any negative generation as none.
    from spark_assign.errors import NegativeGenerationWarning

    ddl = "group_id string, member_id string, topic string, owned_partitions array<int>, generation int"
    rows = [("g1", "a", "orders", [0], -1), ("g1", "b", "orders", [0], None), ("g2", "c", "orders", [1], -7)]
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    with pytest.warns(NegativeGenerationWarning, match="1 of 2 groups have claims with a negative generation"):
        step = table.rebalance(spark.createDataFrame(rows, ddl), TOPICS, "sticky")
    assert step.summary["warnings"] == 1
    # g1: two claims of one (unknown) generation: Kafka keeps the partition for neither; g2's own claim stands.
    assert sorted((r.group_id, r.status) for r in step.rows.where("partition IN (0, 1)").collect()) == [
        ("g1", "new"), ("g1", "new"), ("g2", "kept"), ("g2", "new")]


def test_an_empty_input_is_warned_and_writes_nothing(spark, tmp_path, engine):
    from spark_assign.errors import EmptyInputWarning

    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    with pytest.warns(EmptyInputWarning, match="the subscriptions have no rows"):
        step = table.rebalance(subs(spark, []), TOPICS, "sticky")
    assert step.version is None and step.summary["warnings"] == 1 and step.rows.count() == 0
    assert not (tmp_path / "t").exists()                           # no empty table either
    table.rebalance(subs(spark, [("g", "c", "orders", None)]), TOPICS, "sticky")
    with pytest.warns(EmptyInputWarning):
        assert table.rebalance(subs(spark, []), TOPICS, "sticky").version is None
    assert DeltaTable(table.path).version() == 1                   # an existing table is left as it was


def test_a_rebalance_shows_its_stages_when_progress_is_asked_for(spark, tmp_path, engine, monkeypatch, capsys):
    monkeypatch.setenv("SPARK_ASSIGN_PROGRESS", "1")
    AssignmentTable(spark, str(tmp_path / "t"), engine=engine).rebalance(
        subs(spark, [("g", "c", "orders", None)]), TOPICS, "sticky")
    shown = capsys.readouterr().err
    assert all(stage in shown for stage in ("plan", "compute", "write", "commit")), shown


def test_non_ascii_and_astral_ids_round_trip(spark, tmp_path, engine):
    table = AssignmentTable(spark, str(tmp_path / "t"), engine=engine)
    rows = [("gruppe-é", "c1", "主题", None), ("gruppe-é", "ä-😀", "主题", None), ("gruppe-é", "b", "orders", None)]
    step = table.rebalance(subs(spark, rows), {"主题": 3, "orders": 1}, "cooperative-sticky")
    assert step.version == 1 and step.summary["new"] == 4
    got = owners(table.latest())
    assert set(got) == {("gruppe-é", "主题", p) for p in range(3)} | {("gruppe-é", "orders", 0)}
    assert {got[("gruppe-é", "主题", p)] for p in range(3)} == {"c1", "ä-😀"}
    assert table.rebalance(subs(spark, rows), {"主题": 3, "orders": 1}, "cooperative-sticky").version is None

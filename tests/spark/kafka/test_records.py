"""``consumer_groups`` in Spark: the same rows as replaying each partition alone, whatever order and
partitioning the records arrive in; bad records are rows of ``problems`` and a warning, never a
failed job; a DataFrame that is not records is refused by name."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pyarrow as pa
import pytest

from spark_assign.errors import InvalidInputError, RecordProblemWarning, SchemaError
from spark_assign.kafka import consumer_groups
from spark_assign.kafka.records import Frames, replay_partition
from spark_assign.testing import consumer_offsets_fleet

pytestmark = pytest.mark.spark
RECORDS = "key binary, value binary, partition int, offset long"


def _by_partition(records):
    """What each partition's replay gives, every partition together (the reference)."""
    out = {name: [] for name in Frames._fields}
    for part in sorted({r[2] for r in records}):
        rows = sorted((r for r in records if r[2] == part), key=lambda r: r[3])
        frames = replay_partition(part, pa.array([r[0] for r in rows], pa.binary()),
                                  pa.array([r[1] for r in rows], pa.binary()), np.array([r[3] for r in rows]))
        for name, table in zip(Frames._fields, frames):
            out[name] += table.to_pylist()
    return out


def _sorted(rows):
    return sorted(rows, key=lambda r: tuple((v is None, repr(v)) for v in r.values()))


def test_frames_equal_each_partition_replayed_in_any_input_order(spark):
    records = consumer_offsets_fleet(40, seed=2, commits=2, plant=4).records
    records += [(b"\x00\x63??", b"x", 3, 10_000), (b"\x00\x02\x00\x01g", b"\x00\x09", 4, 10_001)]   # two bad ones
    shuffled = random.Random(1).sample(records, len(records))
    state = consumer_groups(spark.createDataFrame(shuffled, RECORDS).repartition(3), partitions=3).persist()
    expected = _by_partition(records)
    for name in Frames._fields:
        got = [r.asDict(recursive=True) for r in getattr(state, name).collect()]
        assert _sorted(got) == _sorted(expected[name]), name
    assert len(expected["groups"]) == 40 and len(expected["problems"]) == 2
    with pytest.warns(RecordProblemWarning, match=r"^2 __consumer_offsets records could not be read.*partition 3 "
                                                  r"offset 10000.*unknown record type 99"):
        assert state.check() == 2


def test_a_clean_copy_warns_nothing(spark):
    state = consumer_groups(spark.createDataFrame(consumer_offsets_fleet(5, seed=3).records, RECORDS))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert state.check() == 0


@pytest.mark.parametrize("schema,message", [
    ("value binary, partition int, offset long", "no column 'key' \\(binary\\)"),
    ("key string, value binary, partition int, offset long", "column 'key' is string, not binary"),
    ("key binary, value binary, offset long", "no column 'partition'"),
    ("key binary, value binary, partition string, offset long", "column 'partition' is string, not an integer"),
])
def test_a_frame_that_is_not_records_is_refused_by_name(spark, schema, message):
    with pytest.raises(SchemaError, match=message):
        consumer_groups(spark.createDataFrame([], schema))


def test_partitions_must_be_a_positive_integer(spark):
    with pytest.raises(InvalidInputError, match="partitions must be a positive integer, got 0"):
        consumer_groups(spark.createDataFrame([], RECORDS), partitions=0)


def test_sql_gives_each_frame_as_the_dataframe_form_does(spark):
    import spark_assign

    spark_assign.register(spark)
    records = consumer_offsets_fleet(15, seed=4, commits=1, plant=2).records + [(b"\x00\x63", b"", 1, 99_999)]
    frame = spark.createDataFrame(random.Random(2).sample(records, len(records)), RECORDS)
    frame.createOrReplaceTempView("offsets_copy")
    state = consumer_groups(frame)
    for name in ("groups", "subscriptions", "problems"):
        sql = spark.sql(f"SELECT * FROM kafka_consumer_groups(TABLE(offsets_copy), frame => '{name}')")
        assert sql.columns == getattr(state, name).columns
        assert _sorted([r.asDict(recursive=True) for r in sql.collect()]) == \
            _sorted([r.asDict(recursive=True) for r in getattr(state, name).collect()])
    with pytest.raises(Exception, match="frame must be one of groups, subscriptions"):
        spark.sql("SELECT * FROM kafka_consumer_groups(TABLE(offsets_copy), frame => 'members')").collect()


def test_topic_ids_given_name_a_newer_consumer_groups_topics(spark):
    """Kafka 4.1+ writes no partition metadata: the ids come from the caller, as a dict or rows."""
    from spark_assign.kafka.records import encode_key, encode_value

    topic_id = "AAAAAAAAAAAAAAAAAAAAAQ"
    current = {"MemberEpoch": 2, "PreviousMemberEpoch": 1, "State": 0,
               "AssignedPartitions": [{"TopicId": topic_id, "Partitions": [0, 1]}], "PartitionsPendingRevocation": []}
    records = [(encode_key(3, GroupId="cg"), encode_value(3, {"Epoch": 2}, 0), 0, 0),
               (encode_key(5, GroupId="cg", MemberId="m"),
                encode_value(5, {"ClientId": "c", "ClientHost": "h", "SubscribedTopicNames": ["orders"]}, 0), 0, 1),
               (encode_key(8, GroupId="cg", MemberId="m"), encode_value(8, current, 0), 0, 2)]
    frame = spark.createDataFrame(records, RECORDS)
    assert consumer_groups(frame).assignment.count() == 0 and consumer_groups(frame).problems.count() == 1
    ids = spark.createDataFrame([(topic_id, "orders")], "topic_id string, topic string")
    for given in ({topic_id: "orders"}, ids):
        rows = consumer_groups(frame, topic_ids=given).assignment.collect()
        assert sorted((r.topic, r.partition) for r in rows) == [("orders", 0), ("orders", 1)]

"""``simulate_producer`` and ``producer_summary``: the DataFrame result equals the engine's on the
same records (across Arrow batches), keyed records get ``kafka_partition``, errors name the argument."""

from __future__ import annotations

import numpy as np
import pytest

from spark_assign.core import round_robin_partitions, sticky_batches
from spark_assign.core.producer.murmur2 import kafka_partition
from spark_assign.errors import InvalidInputError, SchemaError, UnknownStrategyError
from spark_assign.spark.producer.dataframe import producer_summary, simulate_producer

pytestmark = pytest.mark.spark

NUMS = {"orders": 6, "audit": 3, "clicks": 4}


@pytest.fixture(scope="module")
def records(spark):
    rng = np.random.default_rng(5)
    n = 3000
    topics = rng.choice(list(NUMS), n).tolist()
    keys = [None if rng.random() < 0.7 else f"k{int(rng.integers(100))}" for _ in range(n)]
    sizes = rng.integers(10, 400, n).tolist()
    rows = list(zip(range(n), topics, keys, sizes))
    return spark.createDataFrame(rows, "seq long, topic string, key string, size int"), rows


@pytest.fixture
def small_batches(arrow_batch_rows):
    # Several Arrow batches per task, so per-topic state must carry over between them.
    arrow_batch_rows(97)


def by_seq(df):
    return sorted(df.collect(), key=lambda r: r.seq)


def test_round_robin_equals_the_engine(records, small_batches):
    df, rows = records
    out = by_seq(simulate_producer(df, NUMS, "round-robin", order_by="seq", key_column="key",
                                   available={"orders": [5, 0, 3]}, start={"audit": 7}))
    expected = round_robin_partitions([r[1] for r in rows], NUMS, available={"orders": [5, 0, 3]},
                                      start={"audit": 7, "orders": 0, "clicks": 0})
    assert [r.partition for r in out] == expected.tolist()       # keys ignored, as Kafka's RoundRobinPartitioner
    assert "batch" not in out[0].asDict()


@pytest.mark.parametrize("mode", ["built-in", "uniform-sticky"])
def test_sticky_equals_the_engine_and_keyed_records_get_kafka_partition(records, small_batches, mode):
    df, rows = records
    out = by_seq(simulate_producer(df, NUMS, "sticky", order_by="seq", key_column="key", record_bytes_column="size",
                                   batch_bytes=1500, mode=mode, seed=3, available={"clicks": [True, False, True, True]}))
    keyed = np.array([r[2] is not None for r in rows])
    topics = np.array([r[1] for r in rows], dtype=object)
    sizes = np.array([r[3] for r in rows])
    engine = sticky_batches(topics[~keyed], NUMS, batch_bytes=1500, record_bytes=sizes[~keyed], mode=mode, seed=3,
                            available={"clicks": [True, False, True, True]})
    got_part = np.array([r.partition for r in out])
    assert got_part[~keyed].tolist() == engine.partition.tolist()
    assert [r.batch for r in out if r.key is None] == engine.batch.tolist()
    keys = [r[2] for r in rows if r[2] is not None]
    assert got_part[keyed].tolist() == kafka_partition(keys, np.array([NUMS[t] for t in topics[keyed]])).tolist()
    assert all(r.batch is None for r in out if r.key is not None)


def test_ignore_keys_makes_keyed_records_sticky(records):
    df, rows = records
    out = by_seq(simulate_producer(df, NUMS, order_by="seq", key_column="key", batch_records=50, ignore_keys=True))
    engine = sticky_batches([r[1] for r in rows], NUMS, batch_records=50)
    assert [r.partition for r in out] == engine.partition.tolist()
    assert [r.batch for r in out] == engine.batch.tolist()


def test_summary(records):
    df, rows = records
    out = simulate_producer(df, {**NUMS, "orders": 7}, "round-robin", order_by="seq")
    summary = {r.topic: r for r in producer_summary(out, {**NUMS, "orders": 7}).collect()}
    n = sum(1 for r in rows if r[1] == "audit")
    assert summary["audit"].records == n and summary["audit"].partitions_used == 3
    assert summary["audit"].max_records - summary["audit"].min_records <= 1
    assert summary["audit"].max_min_ratio == pytest.approx(summary["audit"].max_records / summary["audit"].min_records)
    lonely = producer_summary(out.filter("partition != 0"), {"audit": 3}).collect()
    audit = [r for r in lonely if r.topic == "audit"][0]
    assert audit.min_records == 0 and audit.max_min_ratio is None


@pytest.mark.parametrize("kwargs,error,name", [
    (dict(method="random"), UnknownStrategyError, "random"),
    (dict(num_partitions={"orders": 0}), InvalidInputError, "num_partitions"),
    (dict(batch_records=None), InvalidInputError, "batch_bytes"),
    (dict(batch_bytes=100), InvalidInputError, "batch_records"),
    (dict(batch_records=0), InvalidInputError, "batch_records"),
    (dict(batch_records=None, batch_bytes=100), InvalidInputError, "record_bytes_column"),
    (dict(topic_column="nope"), SchemaError, "nope"),
    (dict(key_column="size"), SchemaError, "key_column"),
    (dict(record_bytes_column="key", batch_records=None, batch_bytes=10), SchemaError, "record_bytes_column"),
    (dict(order_by=["seq", "missing"]), SchemaError, "missing"),
    (dict(partitions=0), InvalidInputError, "partitions"),
])
def test_argument_errors_before_any_job(records, kwargs, error, name):
    df, _ = records
    args = dict(num_partitions=NUMS, method="sticky", batch_records=10, order_by="seq", **{})
    args.update(kwargs)
    with pytest.raises(error, match=name):
        simulate_producer(df, **args)


def test_unknown_topic_fails_the_job_naming_num_partitions(records):
    df, _ = records
    out = simulate_producer(df, {"orders": 6, "audit": 3}, "round-robin", order_by="seq")
    with pytest.raises(InvalidInputError) as e:
        out.collect()
    assert e.value.column == "num_partitions" and e.value.rows == ["clicks"]


def test_output_column_clash(records):
    df, _ = records
    with pytest.raises(SchemaError, match="partition"):
        simulate_producer(df.withColumnRenamed("size", "partition"), NUMS, "round-robin")

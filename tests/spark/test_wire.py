"""The wire's columns (spark_assign.spark.consumer.wire.build_wire): an optional column travels only when
some row can hold a value in it, and leaving one out changes no result."""

import pyarrow as pa
import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)

from spark_assign.spark.inputs import previous_frame, subscription_columns, topics_frame, weights_frame
from spark_assign.spark.consumer.wire import OPTIONAL_COLUMNS, WIRE_COLUMNS, WIRE_SCHEMA, build_wire, weights_travel, wire_batch

pytestmark = pytest.mark.spark

TOPICS = {"orders": 4, "注文": 2}


def wire_columns(subs, previous=None, weights=None, topics=TOPICS):
    spark = subs.sparkSession
    columns, _ = subscription_columns(subs)
    counts = topics if isinstance(topics, dict) else None
    wire = build_wire(subs, columns, topics_frame(spark, topics), previous_frame(spark, previous),
                      with_racks=False, topic_counts=counts, weights=weights_frame(spark, weights))
    return wire.columns


def test_a_fresh_plain_fleet_ships_no_optional_column(spark):
    subs = spark.createDataFrame([("g", "c1", "orders"), ("g", "c2", "注文")],
                                 "group_id string, member_id string, topic string")
    lean = [n for n, _ in WIRE_COLUMNS if n not in OPTIONAL_COLUMNS]
    # Topics as a dict: their counts travel with the job, not on every row.
    assert wire_columns(subs) == [n for n in lean if n not in ("num_partitions", "metadata_rows")]
    topics = spark.createDataFrame(list(TOPICS.items()), "topic string, num_partitions int")
    assert wire_columns(subs, topics=topics) == lean


def test_each_optional_column_travels_with_the_input_that_fills_it(spark):
    subs = spark.createDataFrame([("g", "c1", "orders", "static-1", "rack-a")],
                                 "group_id string, member_id string, topic string, "
                                 "group_instance_id string, rack string")
    assert set(OPTIONAL_COLUMNS) & set(wire_columns(subs)) == {"group_instance_id", "rack"}
    previous = spark.createDataFrame([("g", "c1", "orders", 0, 3, "kept")],
                                     "group_id string, member_id string, topic string, partition int, "
                                     "generation int, status string")
    assert set(OPTIONAL_COLUMNS) & set(wire_columns(subs.drop("rack"), previous)) == \
        {"group_instance_id", "generation", "partition", "status"}
    weights = spark.createDataFrame([("orders", 0, 2.5)], "topic string, partition int, weight double")
    assert set(OPTIONAL_COLUMNS) & set(wire_columns(subs.select("group_id", "member_id", "topic"),
                                                    weights=weights)) == {"partition", "weight"}


def test_a_dict_of_weights_travels_with_the_job_not_on_the_wire(spark, capsys):
    """A dict's weight rows go with the job (the plan unions no weight rows into the wire and
    joins nothing); a DataFrame's are joined to each group's topics on the wire."""
    subs = spark.createDataFrame([(f"g{g}", "c1", "orders") for g in range(3)],
                                 "group_id string, member_id string, topic string")
    lag = {"orders": [5.0, 1.0, 1.0, None]}
    assert weights_travel(lag).to_pylist()[3] == {"topic": "orders", "partition": 3, "weight": None}
    frame = spark.createDataFrame([("orders", 0, 5.0)], "topic string, partition int, weight double")
    assert weights_travel(frame) is None and weights_travel(None) is None
    subs.assign_partitions("load-aware", topics=TOPICS, weights=lag).explain()
    plan = capsys.readouterr().out
    assert "Union" not in plan and "Join" not in plan, plan
    subs.assign_partitions("load-aware", topics=TOPICS, weights=frame).explain()
    plan = capsys.readouterr().out
    assert "Union" in plan and "Join" in plan, plan


def test_results_are_the_same_with_and_without_the_optional_columns(spark):
    """The same fleet given with its optional columns all null, and without them; topics as a
    dict (counts travel with the job) and as a DataFrame (on the rows)."""
    plain = spark.createDataFrame([(f"g{g}", f"c{m}", t) for g in range(3) for m in range(3) for t in TOPICS],
                                  "group_id string, member_id string, topic string")
    padded = plain.selectExpr("*", "CAST(NULL AS STRING) AS group_instance_id", "CAST(NULL AS STRING) AS rack",
                              "CAST(NULL AS INT) AS generation")
    assert "group_instance_id" in wire_columns(padded)
    frame = spark.createDataFrame(list(TOPICS.items()), "topic string, num_partitions int")
    for strategy in ("range", "cooperative-sticky"):
        rows = [sorted(map(tuple, df.assign_partitions(strategy, topics=topics).collect()))
                for df, topics in ((plain, TOPICS), (padded, TOPICS), (plain, frame))]
        assert rows[0] == rows[1] == rows[2] and len(rows[0]) == 3 * sum(TOPICS.values())


def test_wire_batch_lays_rows_out_in_the_wire_schema():
    """The SQL table functions' rows: given columns cast to their wire type, the rest null."""
    rows = wire_batch({"group_id": pa.array(["g", "グループ"]), "kind": pa.array([0, 0], pa.int64()),
                       "partition": pa.array([3, None], pa.int64())}, 2)
    assert rows.schema == WIRE_SCHEMA
    assert rows.column("kind").to_pylist() == [0, 0] and rows.column("partition").to_pylist() == [3, None]
    assert rows.column("replica_racks").null_count == 2 and rows.column("member_id").null_count == 2

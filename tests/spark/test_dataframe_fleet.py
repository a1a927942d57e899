"""DataFrame.assign_partitions over random fleets gives the per-group engine's rows, row for row.

The fleets (tests/spark/wirefleet.py) mix group sizes and subscriptions, claims in
``owned_partitions`` (now and then one partition claimed twice), static members (some
restarted under a new member id), member and replica racks, previous generations with
members that left, stale rows and pending transfers, and non-ASCII ids. Spark shuffles them
into a few partitions and Arrow batches of a few rows, so groups split across batches and
chunks; the engine sees each group alone.
"""

import random

import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign.spark.consumer.dataframe import assign_frame

from .wirefleet import expected_rows, frames, random_fleet

pytestmark = pytest.mark.spark

RACK_AWARE = {"range", "sticky", "cooperative-sticky"}


@pytest.fixture
def small_batches(arrow_batch_rows):
    arrow_batch_rows(37)


@pytest.mark.parametrize("strategy", ["range", "roundrobin", "sticky", "cooperative-sticky", "uniform",
                                      "server-range"])
def test_spark_rows_equal_the_per_group_engine(spark, small_batches, strategy):
    fleet = random_fleet(random.Random(f"spark-{strategy}"), 120, racks=strategy in RACK_AWARE)
    subs, topics, previous = frames(spark, fleet)
    got = assign_frame(subs.repartition(3), strategy, topics, previous.repartition(2), num_partitions=3,
                       with_instance=True).collect()
    want = expected_rows(fleet, strategy, with_racks=strategy in RACK_AWARE)
    key = lambda r: (r[0], r[3], r[4])    # noqa: E731  (group, topic, partition)
    assert sorted(map(tuple, got), key=key) == sorted(want, key=key)

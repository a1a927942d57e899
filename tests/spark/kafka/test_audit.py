"""The audit on a fleet with planted differences: every planted one is found, with its kind, and
no other group is reported."""

from __future__ import annotations

import pytest

from spark_assign.kafka import audit, consumer_groups
from spark_assign.core.consumer.audit import FINDINGS
from spark_assign.testing import PLANTED_KINDS, consumer_offsets_fleet

pytestmark = pytest.mark.spark

#: The finding each planted kind must show (others may come with it: a partition owned twice is
#: also given to someone the strategy does not give it to).
SHOWS = {"owned twice": "owned twice", "unowned": "unowned", "unsubscribed": "unsubscribed", "moved": "differs"}


def test_every_planted_difference_is_found_and_nothing_else(spark):
    fleet = consumer_offsets_fleet(160, seed=21, commits=1, plant=16)
    assert set(fleet.planted.values()) == set(PLANTED_KINDS)
    state = consumer_groups(spark.createDataFrame(fleet.records, "key binary, value binary, partition int, "
                                                                 "offset long")).persist()
    topics = spark.createDataFrame(sorted(fleet.topics.items()), "topic string, num_partitions long")
    found = {}
    for row in audit(state, topics).collect():
        assert row.finding in FINDINGS and row.partitions >= 1 and row.example
        found.setdefault(row.group_id, set()).add(row.finding)
    assert set(found) == set(fleet.planted), "false alarms or missed groups"
    for group, kind in fleet.planted.items():
        assert SHOWS[kind] in found[group], (group, kind, found[group])

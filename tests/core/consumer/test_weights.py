"""Tabular weights (core/weights.py:weights_from_rows), the one validator of the Spark surfaces' weights,
and the default a partition without a weight gets."""

import math
import random

import numpy as np
import pytest

from spark_assign.core.consumer.weights import NULL_PARTITION, mean_weight, weights_from_rows
from spark_assign.errors import InvalidInputError

NAMES = ["orders", "événements"]
COUNTS = np.array([3, 2])


def rows(*triples):
    t, p, w = zip(*triples)
    return np.array(t), np.array(p), np.array(w, dtype=float)


def test_rows_become_one_array_per_topic_with_the_mean_for_missing_partitions():
    got = weights_from_rows(NAMES, COUNTS, *rows((0, 2, 1.0), (0, 0, 5.0), (1, 1, 3.0)))
    assert list(got) == ["orders", "événements"]
    assert got["orders"].tolist() == [5.0, 3.0, 1.0] and got["événements"].tolist() == [3.0, 3.0]


def test_complete_rows_are_taken_as_given():
    got = weights_from_rows(NAMES, COUNTS, *rows((1, 1, 0.0), (1, 0, 7.5)))
    assert got == {"événements": pytest.approx([7.5, 0.0])} and "orders" not in got


def test_rows_of_topics_the_group_lacks_or_without_partitions_are_ignored():
    got = weights_from_rows(NAMES + ["gone"], np.array([3, 2, -1]), *rows((-1, 9, -4.0), (2, 0, 1.0), (0, 1, 2.0)))
    assert list(got) == ["orders"] and got["orders"].tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("bad, column, shown", [
    ((0, 1, float("nan")), "weight", ("orders", 1, "nan")),
    ((0, 1, float("inf")), "weight", ("orders", 1, float("inf"))),
    ((0, 1, -0.5), "weight", ("orders", 1, -0.5)),
    ((0, 3, 1.0), "partition", ("orders", 3)),
    ((1, -2, 1.0), "partition", ("événements", -2)),
    ((0, NULL_PARTITION, 1.0), "partition", ("orders", None)),
    ((0, 0, 2.0), "partition", ("orders", 0)),           # the second weight of partition 0
])
def test_bad_rows_name_the_column_and_rows(bad, column, shown):
    with pytest.raises(InvalidInputError) as info:
        weights_from_rows(NAMES, COUNTS, *rows((0, 0, 1.0), bad))
    e = info.value
    assert e.column == column
    got = tuple("nan" if isinstance(x, float) and math.isnan(x) else x for x in e.rows[0])
    assert got == shown


def test_a_null_weight_is_named_as_none_and_the_columns_as_asked():
    t, p, w = rows((0, 0, 1.0), (0, 1, 0.0))
    with pytest.raises(InvalidInputError) as info:
        weights_from_rows(NAMES, COUNTS, t, p, w, null=np.array([False, True]), weight_column="partition_weights")
    assert (info.value.column, info.value.rows) == ("partition_weights", [("orders", 1, None)])


def test_the_default_does_not_depend_on_the_order_of_the_rows():
    """Rows of a Spark job come in any order; the mean filling missing partitions must be the same
    float (a tie between loads breaks on it)."""
    rng = random.Random(5)
    triples = [(0, p, rng.random() * 10 ** rng.randint(-3, 6)) for p in range(200)]
    counts = np.array([300])
    first = weights_from_rows(["t"], counts, *rows(*triples))["t"]
    for _ in range(5):
        rng.shuffle(triples)
        assert np.array_equal(weights_from_rows(["t"], counts, *rows(*triples))["t"], first)
    assert mean_weight(np.array([])) == 1.0

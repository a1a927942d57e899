"""Columns under another name: refused before any job, never read as a missing optional column.

A file whose group column is called ``group`` used to become one group ``default``
(rebalance) or a misleading duplicate-row error (the DataFrame method).
"""

from __future__ import annotations

import warnings

import pytest

import spark_assign  # noqa: F401  (adds DataFrame.assign_partitions)
from spark_assign import AssignmentTable
from spark_assign.errors import SchemaError, UnknownColumnWarning

ROWS = [("orders-app", "c1", "orders"), ("orders-app", "c2", "orders"), ("audit", "a1", "orders")]


@pytest.mark.parametrize("column", ["group", "group-id", "consumer_group", "GroupId", "Group_ID"])
def test_dataframe_method_refuses_a_misnamed_group_column(spark, column):
    df = spark.createDataFrame(ROWS, f"`{column}` string, member_id string, topic string")
    with pytest.raises(SchemaError) as e:
        df.assign_partitions("sticky", topics={"orders": 4})
    assert f"has a column '{column}' where 'group_id' is expected" in str(e.value)
    assert f"withColumnRenamed('{column}', 'group_id')" in str(e.value)


def test_a_required_column_with_a_typo_is_named_in_the_error(spark):
    df = spark.createDataFrame(ROWS, "group_id string, membr_id string, topic string")
    with pytest.raises(SchemaError, match=r"lacks the required column 'member_id' \(string\) "
                                          r"\(is 'membr_id' meant to be 'member_id'\?\)"):
        df.assign_partitions("sticky", topics={"orders": 4})


def test_rebalance_refuses_a_misnamed_group_column_and_writes_nothing(spark, tmp_path):
    df = spark.createDataFrame(ROWS, "`group` string, member_id string, topic string")
    with pytest.raises(SchemaError, match="has a column 'group' where 'group_id' is expected"):
        AssignmentTable(spark, str(tmp_path / "state")).rebalance(df, {"orders": 4}, strategy="sticky")
    assert not (tmp_path / "state").exists()


def test_rebalance_names_unread_columns_with_the_closest_expected_one(spark, tmp_path):
    df = spark.createDataFrame([r + ("eu", "x") for r in ROWS],
                               "group_id string, member_id string, topic string, region string, rak string")
    with pytest.warns(UnknownColumnWarning) as caught:
        step = AssignmentTable(spark, str(tmp_path / "state")).rebalance(df, {"orders": 4}, strategy="sticky")
    text = str(caught[0].message)
    assert "'rak' (closest expected: 'rack')" in text and "'region'" in text
    assert step.summary["groups_recomputed"] == 2


def test_expected_columns_alone_give_no_warning(spark, tmp_path):
    df = spark.createDataFrame(ROWS, "group_id string, member_id string, topic string")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownColumnWarning)
        AssignmentTable(spark, str(tmp_path / "state")).rebalance(df, {"orders": 4}, strategy="sticky")

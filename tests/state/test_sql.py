"""Recognising ``CALL spark_assign.*`` statements (no Spark needed)."""

from spark_assign.state.consumer.sql import CALL_PATTERN, without_comments


def test_comments_go_and_quoted_dashes_stay():
    statement = "-- lead\nCALL spark_assign.views(state => '/data/a--b', views => 'fleet') /* tail */"
    text = without_comments(statement)
    assert "'/data/a--b'" in text and "lead" not in text and "tail" not in text
    assert CALL_PATTERN.match(text).group(1) == "views"


def test_other_statements_are_not_calls():
    assert CALL_PATTERN.match(without_comments("SELECT 'CALL spark_assign.views(x)' -- no")) is None

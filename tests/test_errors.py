"""The exception hierarchy: an input error survives the trip from a Spark worker to the driver."""

from spark_assign.errors import WORKER_MARK, InvalidInputError, SparkAssignError


def test_an_input_error_raised_in_a_worker_is_rebuilt_on_the_driver():
    original = InvalidInputError("duplicate rows", column="member_id", rows=[("g", "c1", "t"), 7, "主题"],
                                 group="payments")
    carried = original.for_driver()
    # What the driver gets is text only: the worker's traceback, the message somewhere inside.
    text = f"Traceback (most recent call last):\n  ...\nspark_assign.errors.InvalidInputError: {carried}\n"
    rebuilt = InvalidInputError.from_spark(RuntimeError(text))
    assert isinstance(rebuilt, InvalidInputError) and isinstance(rebuilt, SparkAssignError)
    assert (rebuilt.problem, rebuilt.column, rebuilt.group) == ("duplicate rows", "member_id", "payments")
    assert rebuilt.rows == [("g", "c1", "t"), 7, "主题"]                   # tuples again, as raised
    assert WORKER_MARK not in str(rebuilt) and str(rebuilt).startswith("duplicate rows; column 'member_id'")


def test_other_errors_carry_none():
    assert InvalidInputError.from_spark(RuntimeError("InvalidInputError: looks like one")) is None
    assert InvalidInputError.from_spark(RuntimeError(f"{WORKER_MARK}not json")) is None


def test_a_carried_error_is_marked_once():
    twice = InvalidInputError("bad", column="c").for_driver().for_driver()
    assert str(twice).count(WORKER_MARK) == 1

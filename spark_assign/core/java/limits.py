"""Kafka's numeric limits, one home for every check that needs them, and the integer argument check.

Kafka's partition ids and counts, broker ids and generation ids are Java ``int`` values
(``int32`` in its protocol). Every surface holds them to 32 bits the same way: an argument
through :func:`check_count`, a column in Spark through ``spark_assign.spark.inputs.checked_int``;
both fail naming the argument or column and the value, and nothing is truncated or nulled.
"""

from __future__ import annotations

from numbers import Integral
from typing import Optional, cast

import numpy as np

from ...errors import InvalidInputError

__all__ = ["INT32_MAX", "INT32_MIN", "MAX_PARTITIONS", "check_count", "is_int"]

#: The largest Java ``int``: Kafka's ids and counts stay at or below it (``Integer.MAX_VALUE``).
INT32_MAX = 2**31 - 1
#: The smallest 32-bit signed integer (Kafka's generation ids are ``int32`` too).
INT32_MIN = -(2**31)
#: A topic has at most this many partitions (ids 0 .. INT32_MAX - 1 would do; Kafka checks the count).
MAX_PARTITIONS = INT32_MAX


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer (Python's or NumPy's), never a bool."""
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def check_count(value: object, name: str, minimum: int = 0, maximum: Optional[int] = INT32_MAX) -> int:
    """``value`` as a Python int when it is an integer (NumPy integers too, never a bool) in
    ``[minimum, maximum]``; otherwise :class:`InvalidInputError` naming ``name`` and the value.

    Example::

        check_count(np.int64(3), "replication_factor", minimum=1) == 3

    Parameters
    ----------
    value:
        What the caller passed.
    name:
        The argument's name, for the message.
    minimum, maximum:
        The inclusive range allowed: by default Kafka's 32-bit one from 0; ``maximum=None``
        for a number that is not a Kafka ``int`` (a Delta version, a count of rows to show).
    """
    if not is_int(value):
        raise InvalidInputError(f"{name} must be an integer, got {type(value).__name__} {value!r}",
                                column=name, rows=[value])
    number = int(cast(Integral, value))
    if number < minimum or (maximum is not None and number > maximum):
        bound = f"at least {minimum}" if number < minimum else f"at most {maximum} (Kafka's 32-bit limit)"
        raise InvalidInputError(f"{name} must be {bound}, got {number}", column=name, rows=[number])
    return number

"""Input errors found inside Spark jobs reach the caller as :class:`~spark_assign.errors.InvalidInputError`.

The engine validates each group where the group is: in a Python worker, while
a Spark job runs (the DataFrame method's ``mapInArrow``, the SQL table
functions). A worker's exception reaches the driver only as text, inside the
``PythonException`` that PySpark raises from the action (``collect``,
``write``, ``toArrow``, ...), which ``except InvalidInputError`` cannot catch.

So the worker raises the error with its fields as data
(:meth:`InvalidInputError.for_driver`), and :func:`install` wraps PySpark's
conversion of job failures into Python exceptions, classic (py4j) and Spark
Connect (gRPC): a failure carrying such an error is raised as that
:class:`InvalidInputError` instead, with the group, column and sample rows,
and without the worker's traceback; its ``spark_error`` attribute keeps
PySpark's exception. Every other failure converts exactly as before.

The wrap is process-wide and idempotent; the DataFrame method and
:func:`~spark_assign.spark.sql.register` install it (Connect's client module
is wrapped once it has been imported, that is once a Connect session exists).
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

from ..errors import InvalidInputError

__all__ = ["install", "carried_error"]

#: Where PySpark turns job failures into Python exceptions: module -> function name.
CONVERTERS = {
    "pyspark.errors.exceptions.captured": "convert_exception",       # classic: py4j errors
    "pyspark.sql.connect.client.core": "convert_exception",          # Connect: gRPC errors
}
#: Marks a converter already wrapped.
_WRAPPED = "__spark_assign_wrapped__"


def carried_error(error: BaseException) -> Any:
    """The :class:`InvalidInputError` that ``error`` (a PySpark exception) carries from a
    worker, with ``spark_error`` set to ``error``; ``error`` itself when it carries none."""
    carried = InvalidInputError.from_spark(error)
    if carried is None:
        return error
    carried.spark_error = error           # type: ignore[attr-defined]
    return carried


def _wrap(convert: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(convert)
    def converting(*args: Any, **kwargs: Any) -> Any:
        return carried_error(convert(*args, **kwargs))

    setattr(converting, _WRAPPED, True)
    return converting


def install() -> None:
    """Wrap the converters of the PySpark modules loaded so far (see the module docstring).

    Example::

        install()      # then: except InvalidInputError as e: e.column, e.rows, e.group
    """
    import pyspark.errors.exceptions.captured  # noqa: F401  (classic; importing it needs no JVM)

    for module_name, function in CONVERTERS.items():
        module = sys.modules.get(module_name)
        convert = getattr(module, function, None) if module is not None else None
        if convert is not None and not getattr(convert, _WRAPPED, False):
            setattr(module, function, _wrap(convert))

"""Spark failures reach the caller as spark-assign's errors, or with spark-assign's hint.

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
PySpark's exception.

Other failures are Spark's own: a damaged file of a state table, a SQL
function's argument of the wrong type, a ``CALL`` Spark cannot run. The
layers that know what such a failure means register a *translator*
(:func:`translate_with`): it reads Spark's description of the failure as data
(:class:`SparkFailure`: the error condition, its message parameters, the SQL
fragments of its query context, never the message text) and returns the
exception to raise instead, or None. The first translator that answers wins;
the exception it returns gets ``spark_error`` too. Every other failure
converts exactly as before.

The wrap is process-wide and idempotent; the DataFrame method, the SQL
functions' :func:`~spark_assign.spark.sql.register` and ``AssignmentTable``
install it (Connect's client module is wrapped once it has been imported,
that is once a Connect session exists).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from pyspark.errors import AnalysisException

from ..errors import InvalidInputError

__all__ = ["install", "carried_error", "describe", "SparkFailure", "translate_with", "Translator",
           "HintedAnalysisException", "call_hint", "CALL_HINT"]

#: Where PySpark turns job failures into Python exceptions: module -> (function name, whether its
#: first argument is the JVM's exception, as with py4j; Connect's is the gRPC error's details).
CONVERTERS = {
    "pyspark.errors.exceptions.captured": ("convert_exception", True),       # classic: py4j errors
    "pyspark.sql.connect.client.core": ("convert_exception", False),         # Connect: gRPC errors
}
#: Marks a converter already wrapped.
_WRAPPED = "__spark_assign_wrapped__"
#: How deep into a JVM exception's causes the condition is looked for (a job's failure wraps its task's).
CAUSES_FOLLOWED = 5


@dataclass(frozen=True)
class SparkFailure:
    """Spark's description of a failure, as data: its error condition (``FAILED_READ_FILE.NO_HINT``,
    ``DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION``, ...; None when Spark gives none), the message
    parameters (``{"path": ...}``) and the SQL text fragments of its query context (the call that
    failed, as the user wrote it). The same on classic Spark and Spark Connect.

    Example::

        SparkFailure("FAILED_READ_FILE.NO_HINT", {"path": "file:/data/t/part-0.parquet"})
    """

    condition: Optional[str]
    parameters: Mapping[str, str] = field(default_factory=dict)
    fragments: Tuple[str, ...] = ()
    #: PySpark's exception (classic or Connect), when one was converted.
    error: Optional[BaseException] = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, error: BaseException, jvm_error: Any = None) -> "SparkFailure":
        """The failure ``error`` (a PySpark exception, classic or Connect) describes; ``jvm_error``
        is the JVM's exception behind a classic one, read when PySpark kept no condition (it
        keeps none for the generic ``SparkException`` of a failed job)."""
        condition = _call(error, "getCondition")
        if condition is not None:
            contexts = _call(error, "getQueryContext") or []
            fragments = tuple(f for f in (_call(c, "fragment") for c in contexts) if f)
            return cls(condition, dict(_call(error, "getMessageParameters") or {}), fragments, error)
        if jvm_error is not None:
            return _of_jvm(jvm_error)
        return cls(None)


#: Answers a failure with the exception to raise instead, or None (see :func:`translate_with`).
Translator = Callable[[SparkFailure], Optional[BaseException]]
_TRANSLATORS: List[Translator] = []


def translate_with(translator: Translator) -> Translator:
    """Register ``translator`` (once; usable as a decorator): from now on a Spark failure it
    answers is raised as the exception it returns. It must recognise failures by their
    :class:`SparkFailure` fields, and answer None for any other.

    Example::

        @translate_with
        def damaged_file(failure):
            if (failure.condition or "").startswith("FAILED_READ_FILE"):
                return StateTableError(f"cannot read {failure.parameters.get('path')}")
            return None
    """
    if translator not in _TRANSLATORS:
        _TRANSLATORS.append(translator)
    return translator


def carried_error(error: BaseException, jvm_error: Any = None) -> Any:
    """What to raise for ``error`` (a PySpark exception): the :class:`InvalidInputError` it
    carries from a worker, else a registered translator's exception, each with ``spark_error``
    set to ``error``; ``error`` itself when neither applies."""
    carried: Optional[BaseException] = InvalidInputError.from_spark(error)
    if carried is None and _TRANSLATORS:
        carried = _translated(_failure(error, jvm_error))
    if carried is None:
        return error
    carried.spark_error = error           # type: ignore[attr-defined]
    return carried


class HintedAnalysisException(AnalysisException):
    """Spark's ``AnalysisException`` as Spark raised it, with a line of spark-assign's saying
    what to do instead (``except AnalysisException`` still catches it). ``spark_error`` is
    Spark's exception; the condition, parameters and query context are its.

    Example::

        HintedAnalysisException(error, "spark-assign: run CALL spark_assign.* with run_script")
    """

    def __init__(self, error: BaseException, hint: str) -> None:
        super().__init__(message=str(error), errorClass=_call(error, "getCondition"),
                         messageParameters=_call(error, "getMessageParameters"))
        self.spark_error = error
        self.hint = hint

    def getQueryContext(self) -> Any:     # noqa: N802 - PySpark's name
        return _call(self.spark_error, "getQueryContext") or []

    def getSqlState(self) -> Optional[str]:     # noqa: N802 - PySpark's name
        return _call(self.spark_error, "getSqlState")

    def __str__(self) -> str:
        return f"{self.spark_error}\n{self.hint}"


#: What to say when Spark finds no procedure for a ``CALL``: spark-assign's procedures are run by its
#: SQL runner, not by Spark (its catalogs have none). The failure names no procedure, so the hint says
#: when it applies.
CALL_HINT = ("spark-assign: CALL spark_assign.rebalance(...) and CALL spark_assign.views(...) are not Spark "
             "procedures, and spark.sql cannot run them: run the script with "
             "spark_assign.state.consumer.sql.run_script(spark, script), one statement with "
             "spark_assign.state.consumer.sql.call_statement(spark, statement), or call spark_assign.state.consumer.sql.rebalance "
             "from Python (docs/sql.md)")


@translate_with
def call_hint(failure: SparkFailure) -> Optional[BaseException]:
    """A ``CALL`` that Spark's catalog cannot run (``MISSING_CATALOG_ABILITY.PROCEDURES``): Spark's
    ``AnalysisException`` with :data:`CALL_HINT`. None for any other failure.

    Example::

        spark.sql("CALL spark_assign.views(state => '/data/fleet_state')")
        # AnalysisException: [MISSING_CATALOG_ABILITY.PROCEDURES] ... + the hint on its own line
    """
    if failure.condition != "MISSING_CATALOG_ABILITY.PROCEDURES" or failure.error is None:
        return None
    return HintedAnalysisException(failure.error, CALL_HINT)


def describe(error: BaseException) -> SparkFailure:
    """The :class:`SparkFailure` behind any exception a Spark call raised: a PySpark exception
    (classic or Connect), or py4j's ``Py4JJavaError`` for the JVM exceptions PySpark leaves
    unconverted (Delta's, a failed job's generic one). No condition for any other exception.

    Example::

        try:
            DeltaTable.forPath(spark, path)
        except Exception as e:
            describe(e).condition      # 'DELTA_VERSIONS_NOT_CONTIGUOUS'
    """
    return _failure(error, getattr(error, "java_exception", None))


def _call(obj: Any, method: str) -> Any:
    """``obj.method()``, or None when ``obj`` has no such method."""
    found = getattr(obj, method, None)
    return found() if callable(found) else None


def _failure(error: BaseException, jvm_error: Any) -> SparkFailure:
    """:meth:`SparkFailure.of`; a failure that cannot be read (a JVM gone) reads as no condition,
    so that Spark's own error is raised as it was."""
    try:
        return SparkFailure.of(error, jvm_error)
    except Exception:  # noqa: BLE001 - describing the failure must never hide it
        return SparkFailure(None)


def _translated(failure: SparkFailure) -> Optional[BaseException]:
    """The first registered translator's answer to ``failure`` (None: Spark's error stands)."""
    if failure.condition is None:
        return None
    for translator in _TRANSLATORS:
        answer = translator(failure)
        if answer is not None:
            return answer
    return None


def _of_jvm(error: Any) -> SparkFailure:
    """The first condition among a JVM exception and its causes (``SparkThrowable``'s, read
    through py4j), with its message parameters."""
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    for _ in range(CAUSES_FOLLOWED):
        if error is None or gateway is None:
            break
        if is_instance_of(gateway, error, "org.apache.spark.SparkThrowable"):
            condition = error.getCondition()
            if condition is not None:
                parameters: Dict[str, str] = dict(error.getMessageParameters() or {})
                return SparkFailure(str(condition), parameters)
        error = error.getCause()
    return SparkFailure(None)


def _wrap(convert: Callable[..., Any], jvm_first: bool) -> Callable[..., Any]:
    @functools.wraps(convert)
    def converting(*args: Any, **kwargs: Any) -> Any:
        return carried_error(convert(*args, **kwargs), args[0] if jvm_first and args else None)

    setattr(converting, _WRAPPED, True)
    return converting


def install() -> None:
    """Wrap the converters of the PySpark modules loaded so far (see the module docstring).

    Example::

        install()      # then: except InvalidInputError as e: e.column, e.rows, e.group
    """
    import pyspark.errors.exceptions.captured  # noqa: F401  (classic; importing it needs no JVM)

    for module_name, (function, jvm_first) in CONVERTERS.items():
        module = sys.modules.get(module_name)
        convert = getattr(module, function, None) if module is not None else None
        if convert is not None and not getattr(convert, _WRAPPED, False):
            setattr(module, function, _wrap(convert, jvm_first))

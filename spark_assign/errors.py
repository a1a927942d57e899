"""The one exception hierarchy of spark-assign.

Every error the library raises on purpose derives from :class:`SparkAssignError`.
Input problems also derive from :class:`ValueError` or :class:`TypeError`, so
code that already catches those keeps working.

Input errors carry structured context (``column``, ``rows``, ``group``) as well
as a message that names them, because a message is what a Spark user sees when
the error crosses a Python worker boundary.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional, Sequence

__all__ = [
    "SparkAssignError",
    "InvalidInputError",
    "SchemaError",
    "ReadOnlyError",
    "UnknownStrategyError",
    "StateTableError",
    "ToolOutputError",
    "RecordFormatError",
    "NeedsSparkError",
    "ConcurrentRebalanceError",
    "CommitConflict",
    "SparkAssignWarning",
    "MissingTopicWarning",
    "AssumptionWarning",
    "RecordProblemWarning",
    "UnknownColumnWarning",
    "StrategyListWarning",
    "EmptyInputWarning",
    "NegativeGenerationWarning",
]

#: How many offending rows an error message shows.
SAMPLE_ROWS = 5
#: Starts the line that carries an :class:`InvalidInputError` out of a Spark worker: JSON follows
#: (see :meth:`InvalidInputError.for_driver` and :meth:`InvalidInputError.from_spark`).
WORKER_MARK = "spark-assign-input-error:"


def _format_rows(rows: Sequence[Any]) -> str:
    shown = ", ".join(repr(r) for r in list(rows)[:SAMPLE_ROWS])
    more = len(rows) - SAMPLE_ROWS
    return shown + (f", ... ({more} more)" if more > 0 else "")


class SparkAssignError(Exception):
    """Base class of every error raised by spark-assign."""


class InvalidInputError(SparkAssignError, ValueError):
    """Malformed input data: the message names the problem, the column and sample rows.

    Parameters
    ----------
    problem:
        What is wrong, e.g. ``"null or empty member_id"``.
    column:
        The offending column or argument name, if there is one.
    rows:
        A sample of the offending rows or values (the message shows up to 5).
    group:
        The consumer group the rows belong to, when known.
    """

    def __init__(
        self,
        problem: str,
        *,
        column: Optional[str] = None,
        rows: Optional[Iterable[Any]] = None,
        group: Optional[str] = None,
    ) -> None:
        self.problem = problem
        self.column = column
        self.rows = list(rows) if rows is not None else []
        self.group = group
        parts = [problem]
        if column is not None:
            parts.append(f"column '{column}'")
        if group is not None:
            parts.append(f"group '{group}'")
        message = "; ".join(parts)
        if self.rows:
            message += f"; offending rows: {_format_rows(self.rows)}"
        super().__init__(message)

    def in_group(self, group: Optional[str]) -> "InvalidInputError":
        """Return a copy of this error that names ``group``."""
        return type(self)(self.problem, column=self.column, rows=self.rows, group=group)

    def for_driver(self) -> "InvalidInputError":
        """A copy to raise in a Spark worker: its message ends with a :data:`WORKER_MARK` line
        holding the fields as JSON, which :meth:`from_spark` reads back on the driver (a
        worker's exception reaches the driver only as text)."""
        fields = {"problem": self.problem, "column": self.column, "rows": self.rows, "group": self.group}
        carried = type(self)(self.problem, column=self.column, rows=self.rows, group=self.group)
        carried.args = (f"{carried}\n{WORKER_MARK}{json.dumps(fields, default=repr)}",)
        return carried

    @classmethod
    def from_spark(cls, error: BaseException) -> Optional["InvalidInputError"]:
        """The error a worker raised with :meth:`for_driver`, rebuilt from the Spark exception
        that carried it (classic or Spark Connect); None when ``error`` carries none."""
        for line in str(error).splitlines():
            at = line.find(WORKER_MARK)
            if at >= 0:
                try:
                    fields = json.loads(line[at + len(WORKER_MARK):])
                except ValueError:
                    return None
                rows = [tuple(r) if isinstance(r, list) else r for r in fields["rows"]]   # JSON made them lists
                return cls(fields["problem"], column=fields["column"], rows=rows, group=fields["group"])
        return None


class SchemaError(SparkAssignError, TypeError):
    """A DataFrame or table lacks a required column, or a column has the wrong type."""


class ReadOnlyError(SparkAssignError, TypeError):
    """An attempt to change a read-only value (a result's list of partitions, see
    :class:`~spark_assign.core.consumer.partition_list.TopicPartitionList`)."""


class UnknownStrategyError(SparkAssignError, ValueError):
    """An unknown strategy name (or, with ``kind``, another named choice such as a replica
    placement method); the message lists the valid names."""

    def __init__(self, name: Any, valid: Iterable[str], *, kind: str = "strategy",
                 suggestion: Optional[str] = None) -> None:
        self.name = name
        self.valid = sorted(valid)
        #: The valid name closest to ``name`` (a typo), if one is close.
        self.suggestion = suggestion
        plural = "strategies" if kind == "strategy" else kind + "s"
        hint = f"; did you mean {suggestion!r}?" if suggestion else ""
        super().__init__(
            f"unknown {kind} {name!r}; valid {plural} are: {', '.join(self.valid)}{hint}"
        )


class ToolOutputError(SparkAssignError, ValueError):
    """Text that should be the output of one of Kafka's admin tools, and is not (truncated,
    from another tool, or in a layout this version does not know): the message names the
    source and the line.

    Parameters
    ----------
    problem:
        What is wrong with the text.
    source:
        Where the text came from (a file name, ``stdin``).
    line:
        The 1-based line that was not understood, if there is one.
    """

    def __init__(self, problem: str, *, source: str, line: Optional[int] = None) -> None:
        self.problem, self.source, self.line = problem, source, line
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")


class RecordFormatError(SparkAssignError, ValueError):
    """A Kafka record (a ``__consumer_offsets`` key or value, or the bytes a member embeds in one)
    that does not read as the format it claims: truncated, trailing bytes, an unknown version.

    The decoders raise it; :func:`spark_assign.kafka.consumer_groups` turns it into a row of
    ``problems`` instead of failing the job.
    """


class StateTableError(SparkAssignError):
    """The assignment state table is unusable (foreign schema, unsupported protocol, ...)."""


class ConcurrentRebalanceError(StateTableError):
    """Another writer kept committing to the state table; the bounded retries ran out."""


class CommitConflict(StateTableError):
    """Another writer committed the version this writer was about to write.

    Raised by a state backend's compare-and-set commit; ``AssignmentTable``
    catches it, re-plans against the new version and retries, and raises
    :class:`ConcurrentRebalanceError` when its attempts run out.
    """


class NeedsSparkError(StateTableError):
    """The rebalance without Spark (:mod:`spark_assign.state.consumer.driver`) cannot go on
    without Spark: the table's heads must be rebuilt by a scan, or its format upgraded. Raised
    before anything is written; the CLI then takes the Spark path. ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SparkAssignWarning(UserWarning):
    """Base class of the warnings spark-assign gives (through :mod:`warnings`) for input that
    Kafka accepts but that is likely a mistake."""


class AssumptionWarning(SparkAssignWarning):
    """An input lacked a fact and spark-assign assumed one, or used a part of it only (the
    output of one of Kafka's tools read as a current placement, say): the message says what."""


class RecordProblemWarning(SparkAssignWarning):
    """Some ``__consumer_offsets`` records could not be read: their count and first keys."""


class MissingTopicWarning(SparkAssignWarning):
    """Members subscribe to topics that the metadata lacks or gives 0 partitions (a typo, or a
    topic not created yet): as in Kafka, those subscriptions get no partitions."""


class UnknownColumnWarning(SparkAssignWarning):
    """An input has columns spark-assign does not read: they are ignored. The message names
    each with the closest expected column, since such a column is often a typo."""


class StrategyListWarning(SparkAssignWarning):
    """A strategy given as a list, as Kafka's ``partition.assignment.strategy`` takes one
    (``"CooperativeStickyAssignor, RangeAssignor"``): the first entry spark-assign supports
    applies, and the message names it and the entries passed over. In Kafka the group's members
    together choose among the listed protocols; one configuration's first entry is what a group
    of members configured alike uses."""


class EmptyInputWarning(SparkAssignWarning):
    """The subscriptions have no rows (an empty file, a filter that kept nothing): nothing is
    assigned and nothing is written. Kafka allows a group without members; a whole input
    without rows is usually a mistake upstream."""


class NegativeGenerationWarning(SparkAssignWarning):
    """Members claim partitions with a negative generation other than -1. Kafka's
    ``Subscription`` reads every negative ``generationId`` as "no generation" (-1,
    ``DEFAULT_GENERATION``, what a consumer sends before its first assignment), and so does
    spark-assign; a real client never sends another negative value, so one is usually an
    upstream mistake (a sentinel, an overflow)."""


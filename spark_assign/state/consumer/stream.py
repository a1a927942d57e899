"""Generations as a stream: :class:`~spark_assign.AssignmentTable` inside Structured Streaming.

Each micro-batch carries the full current membership of every group it
mentions (the *snapshot* form: the rows ``rebalance`` takes); groups it does
not mention are left as they are. The *events* form (join, update, leave) is
turned into that upstream, by :func:`~.events.membership_from_events`.
:class:`BatchRebalance` is the ``foreachBatch`` function: it rebalances the
table with the batch's rows.

Exactly once. A micro-batch's rebalance records Delta's application
transaction ``(app_id, batch_id)`` in the same commit as its generations
(``rebalance(transaction=...)``), where ``app_id`` names the query (its id,
kept in the checkpoint across restarts). Spark runs a batch again after a
crash that came before its checkpoint was written; the table then records the
batch already, and the batch commits nothing (no plan job on a local table).
A crash before the commit left nothing in the log, and the batch runs as if
for the first time. Without the transaction the rerun would still commit
nothing (its groups' fingerprints equal the heads), except for what a
generation does not fix by its inputs alone (``force``, load-aware
re-planning under drifting weights): the transaction makes it exact for all.

Cooperative follow-ups. Under ``cooperative-sticky`` a generation that revokes
partitions leaves them unassigned until the next rebalance of the group
(KIP-429's second round). A batch runs those follow-ups itself, right after
its own generation and with the same rows (only the groups with a pending
transfer are recomputed), so a quiet stream never leaves a transfer pending.
They commit without a transaction: a follow-up is idempotent on its own (once
done, nothing is pending), and a batch run again runs them again, finding
them done or finishing them.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.consumer.registry import DEFAULT_STRATEGY, get_strategy
from ...errors import InvalidInputError, StateTableError
from ...spark.delta import is_path
from ...spark.session import has_delta_spark
from .events import PROBLEM_COLUMN, is_events, raise_problems

__all__ = ["BatchRebalance", "FOLLOW_UP_ROUNDS", "QUERY_ID_PROPERTY", "READER_OPTIONS", "query_app_id",
           "generations_stream"]

#: Follow-up rebalances a batch runs at most (cooperative-sticky settles in one).
FOLLOW_UP_ROUNDS = 3
#: Delta streaming-source options a reader of a state table needs: a prune rewrites the files
#: holding pruned rows (a MERGE: ``remove`` and ``add`` actions), which the source refuses
#: without this, and would otherwise read again. A rebalance only appends.
READER_OPTIONS = {"skipChangeCommits": "true"}
#: The SparkContext local property Structured Streaming sets to the query's id (kept in the
#: checkpoint, the same across restarts) while it runs a batch, in the thread that calls
#: the ``foreachBatch`` function.
QUERY_ID_PROPERTY = "sql.streaming.queryId"
#: The subscription columns of a membership derived from events.
MEMBER_COLUMNS = ("group_id", "member_id", "topic", "group_instance_id", "rack")


def query_app_id(batch: DataFrame) -> Optional[str]:
    """The application id of the streaming query running ``batch``: ``spark-assign-stream/<query
    id>``; None outside a query, or where the property cannot be read (Spark Connect)."""
    try:
        query_id = batch.sparkSession.sparkContext.getLocalProperty(QUERY_ID_PROPERTY)
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext (PySparkNotImplementedError)
        return None
    return f"spark-assign-stream/{query_id}" if query_id else None


class BatchRebalance:
    """The ``foreachBatch`` function of :meth:`~spark_assign.AssignmentTable.foreach_batch`:
    one rebalance per micro-batch, exactly once, with its cooperative follow-ups (see the module).

    Example::

        run = BatchRebalance(table, {"orders": 12}, {"strategy": "cooperative-sticky"})
        membership.writeStream.foreachBatch(run).option("checkpointLocation", c).start()

    Parameters
    ----------
    table:
        The :class:`~spark_assign.AssignmentTable` the batches rebalance.
    topics:
        As for ``rebalance``: a dict or a static DataFrame.
    options:
        ``rebalance``'s other keyword arguments (``strategy``, ``weights``, ...).
    app_id:
        The application id the batches are recorded under; default: the running query's
        (:func:`query_app_id`). Give one where the query's cannot be read (Spark Connect), or
        to share one record between two query definitions of the same stream.
    follow_ups:
        Run the cooperative follow-ups in the same batch (default); False leaves them to the
        next batches that mention the groups.
    """

    def __init__(self, table: Any, topics: Any, options: Dict[str, Any], app_id: Optional[str] = None,
                 follow_ups: bool = True) -> None:
        for name in ("dry_run", "transaction"):
            if name in options:
                raise InvalidInputError(f"{name} is not an option of a streaming rebalance (each batch commits, "
                                        "recorded under the query's own transaction)", column=name,
                                        rows=[repr(options[name])])
        if app_id is not None and (not isinstance(app_id, str) or not app_id):
            raise InvalidInputError(f"app_id must be a non-empty string; got {app_id!r}", column="app_id",
                                    rows=[repr(app_id)])
        self.table, self.topics, self.options = table, topics, dict(options)
        self.app_id, self.follow_ups = app_id, follow_ups
        self.cooperative = get_strategy(self.options.get("strategy", DEFAULT_STRATEGY)).cooperative
        #: The last batch's steps (its own, then its follow-ups): what a caller may inspect.
        self.last_steps: list = []

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        app_id = self.app_id or query_app_id(batch)
        if app_id is None:
            raise InvalidInputError("this batch's streaming query id cannot be read (Spark Connect runs the "
                                    "function elsewhere): give foreach_batch an app_id", column="app_id")
        if is_events(batch) and PROBLEM_COLUMN not in batch.columns:
            raise InvalidInputError("a batch of membership events is rebalanced through membership_from_events "
                                    "(rebalance_stream does it): events alone are no membership", column="event")
        cached = batch.persist()          # read by the plan, the compute and any follow-up
        try:
            rows = cached
            if PROBLEM_COLUMN in batch.columns:     # the events form: bad rows fail the batch first
                raise_problems(cached)
                rows = cached.where(F.col(PROBLEM_COLUMN).isNull()).select(*MEMBER_COLUMNS)
            if rows.isEmpty():            # the one job of an empty batch: reading it (then cached)
                self.last_steps = []
                return
            step = self.table.rebalance(rows, self.topics, transaction=(app_id, int(batch_id)), **self.options)
            steps = [step]
            # A batch run again finds its generation recorded: whether it left transfers pending
            # is not known, so it looks once (a plan, committing only what is pending).
            pending = self.cooperative and (step.already_committed or step.summary.get("revoked", 0) > 0)
            rounds = 0
            while self.follow_ups and pending and rounds < FOLLOW_UP_ROUNDS:
                rounds += 1
                step = self.table.rebalance(rows, self.topics, **self.options)
                steps.append(step)
                pending = step.summary.get("revoked", 0) > 0
            self.last_steps = steps
        finally:
            cached.unpersist()


def generations_stream(spark, location: str, options: Dict[str, Any]) -> DataFrame:
    """The state table at ``location`` as a streaming DataFrame: Delta's streaming source, with
    :data:`READER_OPTIONS` under ``options`` (the caller's win). Every committed generation's rows
    arrive once; a prune's commit is skipped (its rows were read when they were written)."""
    if not has_delta_spark(spark):
        raise StateTableError(f"{location}: reading a state table as a stream needs delta-spark in the session "
                              "(Delta's streaming source), whichever engine writes it: local_session(with_delta=True), "
                              "or the delta-spark package on a session of your own")
    reader = spark.readStream.format("delta").options(**{**READER_OPTIONS, **options})
    return reader.load(location) if is_path(location) else reader.table(location)

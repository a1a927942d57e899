"""``AssignmentTable``: a fleet's consumer-group assignments, generation after generation, in Delta.

The generation loop (plan, compute, stage, commit), the reads and the
retention are :class:`~.generations.GenerationTable`'s, shared with the
replica table. What is the assignments' own:

* ``plan``: a group's fingerprint hashes its subscription rows (members,
  topics, static ids, racks, claims, partition counts and replica racks) and
  the strategy (with a load-aware strategy's knobs); a group with a
  cooperative transfer pending, or whose strategy changed, is recomputed too
  (see :func:`.changes.plan`). With weights and a load-aware strategy, the
  groups left alone whose latest generation is too unbalanced under the new
  weights join them (weights are not in the fingerprint; see :mod:`.load`);
* ``compute``: ``assign_partitions`` on the changed groups only, with their
  latest generation as ``previous``: in the driver for up to
  :data:`LOCAL_ROWS` partitions (their inputs collected as Arrow, one job),
  else by Spark tasks (one query), see :mod:`.generation`. A group re-planned
  for its load whose new generation moves nothing gets none;
* ``diff``: partitions whose owner differs between two generations.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, Optional, Tuple, cast

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

from ...core import DEFAULT_STRATEGY
from ...errors import InvalidInputError
from ...progress import Stages
from ..backend import Snapshot
from .compute import rows_in_driver, rows_in_spark
from ..generation_table import REBALANCE_STAGES, Computed, GenerationTable, Rebalance, TableState, data_errors
from ..layout import ASSIGNMENTS
from .load import check_weights, load_replans, settle
from ..plan import Outcome, Plan
from .changes import plan
from .request import Request, Topics, make_request
from .events import is_events, membership_from_events
from .stream import BatchRebalance, generations_stream

__all__ = ["AssignmentTable", "Rebalance", "TableState", "assignment_summary"]

#: Rows per engine task at least: a rebalance of a few groups runs in one task (one Python
#: worker), a large one in up to ``spark.sql.shuffle.partitions``.
ROWS_PER_TASK = 20_000
#: Up to this many rows (as bounded by the plan), a rebalance computes its changed groups in the
#: driver instead: their inputs are collected as Arrow and the engine runs in this process (about
#: 0.2 s per 100,000 rows of small groups), which saves the assignment job's shuffle and Python
#: workers, and (embedded engine) the driver writes the one data file. The usual incremental
#: rebalance, a few groups changed, goes this way.
LOCAL_ROWS = 100_000


def assignment_summary(todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                       figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
    """A rebalance's counts (see :class:`Rebalance`), with Spark or without: ``outcome`` None
    when nothing changed; ``figures``: the load counts of :func:`.load.settle`."""
    load = figures or {}
    if outcome is None:
        return {"groups_recomputed": 0, "groups_unchanged": todo.groups, "attempts": attempt,
                "groups_with_missing_topics": todo.missing_groups, "warnings": warned, **load}
    counts = outcome.counts
    return {"groups_recomputed": len(todo.changed), "groups_unchanged": todo.groups - len(todo.changed),
            "partitions_moved": counts["moved"], "revoked": counts["revoked"],
            "assigned": counts["assigned"], "new": counts["new"], "kept": counts["kept"],
            "attempts": attempt, "groups_with_missing_topics": todo.missing_groups, "warnings": warned, **load}


class AssignmentTable(GenerationTable):
    """The assignment state of a fleet of groups: a Delta table, one row per partition per group per generation.

    Example::

        from spark_assign import AssignmentTable, local_session
        spark = local_session()
        table = AssignmentTable(spark, "/tmp/fleet-assignments")
        step = table.rebalance(subscriptions, topics={"orders": 12}, strategy="cooperative-sticky")
        step.summary     # {'groups_recomputed': ..., 'groups_unchanged': ..., ...}
        table.latest().show()

    Parameters: ``spark``, ``location`` (a folder, URI or catalog name) and ``engine``, as
    for every state table (:class:`~spark_assign.state.generation_table.GenerationTable`).
    """

    kind = ASSIGNMENTS

    def rebalance(self, subscriptions: DataFrame, topics: Topics, strategy: str = DEFAULT_STRATEGY,
                  num_files: Optional[int] = None, max_attempts: int = 5, force: bool = False, weights: Any = None,
                  max_count_skew: Optional[int] = None, min_improvement: Optional[float] = None,
                  dry_run: bool = False, transaction: Optional[Tuple[str, int]] = None) -> Rebalance:
        """Compute and commit the next generation of every group whose inputs changed.

        Example::

            step = table.rebalance(subscriptions, topics, strategy="sticky")
            step.summary["groups_recomputed"], step.version

            what_if = table.rebalance(subscriptions, topics, strategy="cooperative-sticky", dry_run=True)
            what_if.summary["partitions_moved"], what_if.version     # ..., None: nothing written

            lag = spark.table("partition_lag")          # topic, partition, weight (and group_id)
            table.rebalance(subscriptions, topics, strategy="load-aware", weights=lag)

        Parameters
        ----------
        subscriptions:
            One row per member and topic, as for ``DataFrame.assign_partitions``;
            without ``group_id`` the whole DataFrame is the group ``"default"``.
        topics:
            Topic metadata: ``{topic: partitions}`` or a DataFrame ``(topic, num_partitions)``.
        strategy:
            A strategy name. Changing it recomputes every group.
        num_files:
            Data files to write (default: one per million rows, at most
            ``spark.sql.shuffle.partitions``).
        max_attempts:
            Commits tried when other writers keep committing first.
        force:
            Recompute every group, changed or not (each gets a new
            generation): after upgrading spark-assign, or to measure a full
            recompute against an incremental one.
        weights:
            Per-partition weights of this run (lag, bytes/s), as for
            ``DataFrame.assign_partitions``: a DataFrame ``(topic, partition,
            weight[, group_id])`` or a dict. Needed by the load-aware
            strategies; stored in the rows' ``weight`` column whatever the
            strategy. They are not part of a group's fingerprint: under a
            load-aware strategy, a group whose inputs did not change is
            re-planned only when its heaviest member's load exceeds
            ``(1 + min_improvement)`` times its lower bound (see
            :mod:`spark_assign.state.consumer.load`), and committed only if that moves
            a partition. Every row is checked first (one job).
        max_count_skew, min_improvement:
            The load-aware knobs (docs/load-aware.md); changing one recomputes every group.
        dry_run:
            Plan and compute as for a commit, and return the same rows and summary without
            writing anything (no generation, no table created): a what-if that leaves the
            record of what happened alone. ``version`` is None and ``dry_run`` True.
        transaction:
            ``(app_id, version)``: an application transaction recorded in the same Delta commit
            as the generation (Delta's ``txnAppId``/``txnVersion``), so a job retried after a
            crash commits once. When the table already records ``app_id`` at ``version`` or
            later, nothing is planned or written (``already_committed`` True, no Spark job
            on a local table). A rebalance that changes nothing records nothing, and a retry
            then finds the same nothing. What :meth:`foreach_batch` passes, keyed by the
            streaming query and batch.

        Returns
        -------
        Rebalance
            The new rows, the committed version (None when nothing changed) and counts.
        """
        request = make_request(self.spark, subscriptions, topics, strategy, num_files, max_attempts, force,
                               weights, max_count_skew, min_improvement, dry_run, transaction)
        if request.weights is not None:
            with data_errors():
                check_weights(request.weights, request.topic_df)
        with Stages(f"rebalance {self.location}", REBALANCE_STAGES) as stages:
            return self._generations(request, stages)

    def _plan(self, request: Request, heads: DataFrame, snap: Optional[Snapshot]) -> Plan:
        """The groups to recompute (:func:`.changes.plan`), with the groups the plan left alone whose
        load under the new weights exceeds the threshold (:func:`.load.load_replans`) as
        ``replanned``."""
        todo = plan(request.subscriptions, request.topic_df, heads, request.strategy, request.force,
                    request.topic_counts, request.key)
        if not request.replans_for_load or snap is None or todo.everything:
            return todo
        extra = load_replans(self._latest_rows(snap, heads), heads, request.subscriptions,
                             cast(DataFrame, request.weights), todo, request.strategy, request.min_improvement)
        return replace(todo, changed={**todo.changed, **extra}, replanned=list(extra))

    def _compute(self, request: Request, snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Computed:
        """The changed groups' next generation: in the driver for a few groups (their inputs
        collected as Arrow, one job), else by Spark tasks (checkpointed: the engine runs once,
        and a retry reuses the rows of groups the winner did not touch). Groups re-planned for
        their load whose new generation moves nothing are dropped (:func:`.load.settle`)."""
        if reuse is None and todo.rows <= LOCAL_ROWS:
            with data_errors():
                rows = rows_in_driver(self._backend, request, snap, todo, version)
        else:
            tasks = self._parts_for(todo.rows, ROWS_PER_TASK)
            computed = rows_in_spark(self._backend, request, snap, todo, version, tasks, reuse)
            with data_errors():
                # Cuts the lineage too: plans nested attempt after attempt would keep growing.
                rows = computed.localCheckpoint()
        if not todo.replanned:
            return Computed(rows)
        rows, narrowed, counts = settle(rows, todo)
        return Computed(rows, counts, narrowed)

    def _summary(self, todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                 figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        return assignment_summary(todo, attempt, warned, outcome, figures)

    def _commit_info(self, request: Request) -> Dict[str, object]:
        return {"strategy": request.strategy}

    def _heads_strategy(self, request: Request) -> str:
        return request.strategy

    # ------------------------------------------------------------------ streams

    def foreach_batch(self, topics: Topics, app_id: Optional[str] = None, follow_ups: bool = True,
                      **options: Any) -> BatchRebalance:
        """A ``foreachBatch`` function that rebalances this table with each micro-batch, exactly
        once across restarts, cooperative follow-ups included (:mod:`.stream`).

        Each micro-batch holds the full current membership of the groups it mentions (the rows
        ``rebalance`` takes); the groups it does not mention keep their generation.

        Example::

            run = table.foreach_batch({"orders": 12}, strategy="cooperative-sticky")
            (membership.writeStream.foreachBatch(run)
                .option("checkpointLocation", "/ops/_checkpoints/assignments").start())

        Parameters
        ----------
        topics:
            As for :meth:`rebalance`: a dict or a static DataFrame.
        app_id:
            The application id each batch is recorded under (Delta's ``txnAppId``); default:
            the running query's id, which its checkpoint keeps across restarts.
        follow_ups:
            Finish cooperative transfers in the batch that started them (default).
        options:
            :meth:`rebalance`'s keyword arguments (``strategy``, ``weights``, ``num_files``, ...),
            but ``dry_run`` and ``transaction``.
        """
        return BatchRebalance(self, topics, options, app_id=app_id, follow_ups=follow_ups)

    @staticmethod
    def membership_from_events(events: DataFrame) -> DataFrame:
        """A stream of membership events (``join``, ``update``, ``leave``) as the snapshots a
        :meth:`foreach_batch` function takes: per micro-batch, the full membership of each group
        it mentions, kept in the query's state (:mod:`.events`). :meth:`rebalance_stream` applies
        it to a stream with an ``event`` column; a query of your own needs ``outputMode("update")``.

        Example::

            members = AssignmentTable.membership_from_events(events)
            (members.writeStream.outputMode("update").foreachBatch(table.foreach_batch(topics))
                .option("checkpointLocation", c).start())

        Parameters
        ----------
        events:
            A streaming DataFrame of :data:`~spark_assign.schema.EVENT_COLUMNS`: ``group_id,
            member_id, event`` and, for a ``join`` or an ``update``, one row per ``topic``
            (optionally ``group_instance_id``, ``rack``, and ``sequence`` ordering one member's
            events within a batch).
        """
        return membership_from_events(events)

    def rebalance_stream(self, membership: DataFrame, topics: Topics, checkpoint_location: str,
                         trigger: Optional[Dict[str, Any]] = None, query_name: Optional[str] = None,
                         app_id: Optional[str] = None, follow_ups: bool = True, **options: Any) -> StreamingQuery:
        """Start a streaming query that rebalances this table with each micro-batch of
        ``membership``: :meth:`foreach_batch` with a checkpoint, started.

        Example::

            query = table.rebalance_stream(membership, {"orders": 12}, strategy="cooperative-sticky",
                                           checkpoint_location="/ops/_checkpoints/assignments",
                                           trigger={"processingTime": "30 seconds"})

        Parameters
        ----------
        membership:
            A streaming DataFrame: snapshots in ``assign_partitions``' subscriptions schema, or
            membership events (it has an ``event`` column: :data:`~spark_assign.schema.EVENT_COLUMNS`,
            applied to the membership the query keeps in its checkpoint, see
            :meth:`membership_from_events`).
        topics, app_id, follow_ups, options:
            As for :meth:`foreach_batch`.
        checkpoint_location:
            The query's checkpoint (Spark's ``checkpointLocation``): a restart from it resumes
            at the first batch not yet checkpointed, and commits nothing twice.
        trigger:
            Passed to ``DataStreamWriter.trigger`` as keywords, e.g. ``{"processingTime": "30
            seconds"}`` or ``{"availableNow": True}``; default: Spark's.
        query_name:
            The query's name (``queryName``), if any.

        Returns
        -------
        pyspark.sql.streaming.StreamingQuery
        """
        if not isinstance(membership, DataFrame) or not membership.isStreaming:
            raise InvalidInputError("membership must be a streaming DataFrame (spark.readStream...); "
                                    f"got {type(membership).__name__}: use rebalance for a static one",
                                    column="membership")
        if not isinstance(checkpoint_location, str) or not checkpoint_location:
            raise InvalidInputError(f"checkpoint_location must be a non-empty path; got {checkpoint_location!r}",
                                    column="checkpoint_location", rows=[repr(checkpoint_location)])
        if is_events(membership):
            membership = membership_from_events(membership)
        writer = (membership.writeStream.foreachBatch(self.foreach_batch(topics, app_id, follow_ups, **options))
                  .outputMode("update").option("checkpointLocation", checkpoint_location))
        if trigger:
            writer = writer.trigger(**trigger)
        if query_name:
            writer = writer.queryName(query_name)
        return writer.start()

    def read_stream(self, changes_only: bool = False, **options: Any) -> DataFrame:
        """The table as a streaming DataFrame: each committed generation's rows once, in commit
        order, for a downstream job that acts on what moved (Delta's streaming source; needs
        delta-spark in the session, whichever engine writes the table).

        ``prune`` rewrites the files that hold pruned rows; the reader skips that commit
        (``skipChangeCommits``, set by default). ``vacuum`` deletes files no version needs after
        ``retention_hours``: a reader that falls further behind than that fails on a missing file,
        so keep the retention above the longest pause of the readers.

        Example::

            moves = table.read_stream(changes_only=True)        # new, moved, revoked, assigned
            moves.writeStream.foreachBatch(act_on_moves).option("checkpointLocation", c).start()

        Parameters
        ----------
        changes_only:
            Only the rows whose status is not ``kept``: partitions that got a new owner, lost
            one (a pending cooperative transfer) or were handed over.
        options:
            Delta streaming-source options (``startingVersion``, ``maxFilesPerTrigger``, ...).
        """
        rows = generations_stream(self.spark, self.location, options)
        return rows.where(F.col("status") != "kept") if changes_only else rows

    # ------------------------------------------------------------------ reads

    def history(self, group_id: str) -> DataFrame:
        """Every generation of one group, oldest first.

        Example::

            table.history("payments").show()

        Parameters
        ----------
        group_id:
            The group.
        """
        return self._history(group_id, ["topic", "partition"])

    def diff(self, from_generation: int, to_generation: int) -> DataFrame:
        """What moved between two generations, per group: one row per partition whose owner differs.

        Columns: ``group_id, topic, partition, from_generation, from_member_id,
        to_generation, to_member_id``.

        Example::

            table.diff(1, 5).groupBy("group_id").count().show()
        """
        a = self.at(generation=from_generation).select(
            "group_id", "topic", "partition", F.col("generation").alias("from_generation"),
            F.col("member_id").alias("from_member_id"))
        b = self.at(generation=to_generation).select(
            "group_id", "topic", "partition", F.col("generation").alias("to_generation"),
            F.col("member_id").alias("to_member_id"))
        joined = a.join(b, ["group_id", "topic", "partition"], "full_outer")
        return joined.where(~F.col("from_member_id").eqNullSafe(F.col("to_member_id"))).select(
            "group_id", "topic", "partition", "from_generation", "from_member_id", "to_generation", "to_member_id")

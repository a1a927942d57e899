"""``AssignmentTable``: a fleet's consumer-group assignments, generation after generation, in Delta.

The generation loop (plan, compute, stage, commit), the reads and the
retention are :class:`~.generations.GenerationTable`'s, shared with the
replica table. What is the assignments' own:

* ``plan``: a group's fingerprint hashes its subscription rows (members,
  topics, static ids, racks, claims, partition counts and replica racks) and
  the strategy; a group with a cooperative transfer pending, or whose
  strategy changed, is recomputed too (see :func:`.plan.plan`);
* ``compute``: ``assign_partitions`` on the changed groups only, with their
  latest generation as ``previous``: in the driver for up to
  :data:`LOCAL_ROWS` partitions (their inputs collected as Arrow, one job),
  else by Spark tasks (one query), see :mod:`.generation`;
* ``diff``: partitions whose owner differs between two generations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Union

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core.model import check_topics
from ..progress import Stages
from ..spark.inputs import spark_strategy, subscription_columns, topics_frame
from .backend import Snapshot
from .generation import rows_in_driver, rows_in_spark
from .generations import (REBALANCE_STAGES, Computed, GenerationTable, Rebalance, TableState, check_loop_arguments,
                          data_errors)
from .layout import ASSIGNMENTS
from .plan import Outcome, Plan, plan

__all__ = ["AssignmentTable", "Rebalance", "TableState"]

#: Rows per engine task at least: a rebalance of a few groups runs in one task (one Python
#: worker), a large one in up to ``spark.sql.shuffle.partitions``.
ROWS_PER_TASK = 20_000
#: Up to this many rows (as bounded by the plan), a rebalance computes its changed groups in the
#: driver instead: their inputs are collected as Arrow and the engine runs in this process (about
#: 0.2 s per 100,000 rows of small groups), which saves the assignment job's shuffle and Python
#: workers, and (embedded engine) the driver writes the one data file. The usual incremental
#: rebalance, a few groups changed, goes this way.
LOCAL_ROWS = 100_000

Topics = Union[Mapping[str, int], DataFrame]


@dataclass(frozen=True)
class _Request:
    """A rebalance's checked inputs: the subscriptions (with ``group_id``), the topics as given
    and as a DataFrame, the strategy's name, the data files wanted, and the topics as a checked
    dict when given so (the plan and the driver path use it as a constant)."""

    subscriptions: DataFrame
    topics: Topics
    topic_df: DataFrame
    strategy: str
    num_files: Optional[int]
    topic_counts: Optional[Mapping[str, int]]
    max_attempts: int
    force: bool


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
    for every state table (:class:`~spark_assign.state.generations.GenerationTable`).
    """

    kind = ASSIGNMENTS

    def rebalance(self, subscriptions: DataFrame, topics: Topics, strategy: str = "cooperative-sticky",
                  num_files: Optional[int] = None, max_attempts: int = 5, force: bool = False) -> Rebalance:
        """Compute and commit the next generation of every group whose inputs changed.

        Example::

            step = table.rebalance(subscriptions, topics, strategy="sticky")
            step.summary["groups_recomputed"], step.version

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

        Returns
        -------
        Rebalance
            The new rows, the committed version (None when nothing changed) and counts.
        """
        request = self._request(subscriptions, topics, strategy, num_files, max_attempts, force)
        with Stages(f"rebalance {self.location}", REBALANCE_STAGES) as stages:
            return self._generations(request, stages)

    def _request(self, subscriptions: DataFrame, topics: Topics, strategy: str, num_files: Optional[int],
                 max_attempts: int, force: bool) -> "_Request":
        """Check the arguments and the inputs' schemas, before any Spark job."""
        chosen = spark_strategy(strategy)
        check_loop_arguments(num_files, max_attempts, force)
        if "group_id" not in subscriptions.columns:
            subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
        subscription_columns(subscriptions)                         # schema check
        topic_df = topics_frame(self.spark, topics)                 # checks a dict's counts
        return _Request(subscriptions, topics, topic_df, chosen.name, num_files,
                        check_topics(topics) if isinstance(topics, Mapping) else None, max_attempts, force)

    def _plan(self, request: "_Request", heads: DataFrame) -> Plan:
        return plan(request.subscriptions, request.topic_df, heads, request.strategy, request.force,
                    request.topic_counts)

    def _compute(self, request: "_Request", snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Computed:
        """The changed groups' next generation: in the driver for a few groups (their inputs
        collected as Arrow, one job), else by Spark tasks (checkpointed: the engine runs once,
        and a retry reuses the rows of groups the winner did not touch)."""
        if reuse is None and todo.rows <= LOCAL_ROWS:
            with data_errors():
                return Computed(rows_in_driver(self._backend, request.subscriptions, request.topics,
                                               request.strategy, snap, todo, version))
        tasks = self._parts_for(todo.rows, ROWS_PER_TASK)
        computed = rows_in_spark(self._backend, request.subscriptions, request.topic_df, request.strategy,
                                 snap, todo, version, tasks, reuse)
        with data_errors():
            # Cuts the lineage too: plans nested attempt after attempt would keep growing.
            return Computed(computed.localCheckpoint())

    def _summary(self, todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                 figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        if outcome is None:
            return {"groups_recomputed": 0, "groups_unchanged": todo.groups, "attempts": attempt,
                    "groups_with_missing_topics": todo.missing_groups, "warnings": warned}
        counts = outcome.counts
        return {"groups_recomputed": len(todo.changed), "groups_unchanged": todo.groups - len(todo.changed),
                "partitions_moved": counts["moved"], "revoked": counts["revoked"],
                "assigned": counts["assigned"], "new": counts["new"], "kept": counts["kept"],
                "attempts": attempt, "groups_with_missing_topics": todo.missing_groups, "warnings": warned}

    def _commit_info(self, request: "_Request") -> Dict[str, object]:
        return {"strategy": request.strategy}

    def _heads_strategy(self, request: "_Request") -> str:
        return request.strategy

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

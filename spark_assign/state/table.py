"""``AssignmentTable``: a fleet's assignments, generation after generation, in Delta.

A rebalance (see :meth:`AssignmentTable.rebalance`):

1. ``plan``: hash each group's inputs (members, topics, static ids, racks,
   claims, partition counts and replica racks, strategy) and, against the
   table's heads at version N, keep the groups whose fingerprint changed,
   that are new, or that have a cooperative transfer pending: one Spark
   query, which brings the changed groups (ids, fingerprints, heads) to the
   driver (see :mod:`.plan`);
2. ``assign``: run the engine on those groups only, with their latest
   generation as ``previous``: in the driver for up to :data:`LOCAL_ROWS`
   partitions (their inputs collected as Arrow, one job), else with
   ``assign_partitions`` (one query);
3. ``stage``: write the new rows as files of partition ``commit_version=N+1``
   (by the driver, or by one query whose tasks also report the per-group
   outcome and the counts) and the new heads beside the log (by the driver
   for a local table). A table that does not exist yet is created here,
   after the engine accepted the input;
4. ``commit``: compare-and-set version N+1. When another writer got there
   first, re-read, recompute only the groups it changed, and retry (bounded).

Nothing is written when a group's input is bad: the error names the group,
column and rows, and the table stays at N.
"""

from __future__ import annotations

import os
import time
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core.model import check_topics
from ..errors import CommitConflict, ConcurrentRebalanceError, EmptyInputWarning, InvalidInputError, MissingTopicWarning
from ..progress import Stages
from ..spark.delta import is_path, resolve_location
from ..spark.inputs import spark_strategy, subscription_columns, topics_frame
from ..spark.session import has_delta_spark
from .backend import ENGINES, Snapshot, Staged, StateBackend
from .embedded import EmbeddedBackend
from .generation import rows_in_driver, rows_in_spark
from .heads import changed_heads, heads_and_name_at, heads_at, heads_name_at, remove_heads, sweep_heads, write_heads
from .layout import APP_ID, FORMAT_VERSION, PARTITION_COLUMN, check_new_table_folder, heads_name, spark_ddl
from .plan import Outcome, Plan, plan

__all__ = ["AssignmentTable", "Rebalance", "TableState"]

#: Rows per data file a rebalance aims at (a few MB of Parquet).
ROWS_PER_FILE = 1_000_000
#: Rows per engine task at least: a rebalance of a few groups runs in one task (one Python
#: worker), a large one in up to ``spark.sql.shuffle.partitions``.
ROWS_PER_TASK = 20_000
#: Up to this many rows (as bounded by the plan), a rebalance computes its changed groups in the
#: driver instead: their inputs are collected as Arrow and the engine runs in this process (about
#: 0.2 s per 100,000 rows of small groups), which saves the assignment job's shuffle and Python
#: workers, and (embedded engine) the driver writes the one data file. The usual incremental
#: rebalance, a few groups changed, goes this way.
LOCAL_ROWS = 100_000
#: The stages a rebalance's progress bar names (see :mod:`spark_assign.progress`).
REBALANCE_STAGES = ("plan", "compute", "write", "commit")
#: Test hook: ``SPARK_ASSIGN_FAULT=<point>`` kills the rebalancing process at that point of
#: every attempt (the crash-safety tests): before and after staging, before and after the commit.
FAULT_POINTS = ("before-write", "after-write", "before-commit", "after-commit")

Topics = Union[Mapping[str, int], DataFrame]


@dataclass
class Rebalance:
    """What :meth:`AssignmentTable.rebalance` did.

    ``rows``: the new generations' rows (empty when nothing changed);
    ``version``: the Delta version committed, or None; ``summary``: counts
    (``groups_recomputed``, ``groups_unchanged``, ``partitions_moved``,
    ``revoked``, ``assigned``, ``new``, ``kept``, ``attempts``).
    """

    rows: DataFrame
    version: Optional[int]
    summary: Dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TableState:
    """The table at one version: ``latest`` (every group's latest generation) and ``rows``
    (every generation of every group), both read at ``version``."""

    version: int
    latest: DataFrame
    rows: DataFrame


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


def fault(point: str) -> None:
    """Kill this process at ``point`` when ``SPARK_ASSIGN_FAULT`` names it (see :data:`FAULT_POINTS`)."""
    if os.environ.get("SPARK_ASSIGN_FAULT") == point:
        os.kill(os.getpid(), 9)


class AssignmentTable:
    """The assignment state of a fleet of groups: a Delta table, one row per partition per group per generation.

    Example::

        from spark_assign import AssignmentTable, local_session
        spark = local_session()
        table = AssignmentTable(spark, "/tmp/fleet-assignments")
        step = table.rebalance(subscriptions, topics={"orders": 12}, strategy="cooperative-sticky")
        step.summary     # {'groups_recomputed': ..., 'groups_unchanged': ..., ...}
        table.latest().show()

    Parameters
    ----------
    spark:
        The session (classic or Spark Connect).
    location:
        A directory path or URI, or a catalog table name. A relative path is resolved against
        this process's working directory, the same for both engines
        (:func:`~spark_assign.spark.delta.resolve_location`).
    engine:
        ``"embedded"`` (delta-rs; the default without delta-spark),
        ``"delta-spark"`` (the default when the session has Delta Lake), or None.
    """

    def __init__(self, spark, location: str, engine: Optional[str] = None) -> None:
        if not isinstance(location, str) or not location:
            raise InvalidInputError(f"location must be a path or a table name, got {location!r}", column="location")
        if engine is not None and engine not in ENGINES:
            raise InvalidInputError(f"engine must be one of {', '.join(map(repr, ENGINES))} or None, got {engine!r}",
                                    column="engine")
        self.spark = spark
        self.location = resolve_location(location)
        location = self.location
        self._backend: StateBackend
        if engine == "delta-spark" or (engine is None and has_delta_spark(spark)):
            from .deltaspark import DeltaSparkBackend

            self._backend = DeltaSparkBackend(spark, location)
        else:
            self._backend = EmbeddedBackend(spark, self._path_of(spark, location))

    @staticmethod
    def _path_of(spark, location: str) -> str:
        """Without delta-spark a catalog name maps to a directory under the warehouse."""
        if is_path(location):
            return location
        warehouse = spark.conf.get("spark.sql.warehouse.dir", "spark-warehouse")
        warehouse = warehouse[5:] if warehouse.startswith("file:") else warehouse
        return os.path.join(warehouse, location.replace(".", os.sep))

    @property
    def engine(self) -> str:
        """``"embedded"`` or ``"delta-spark"``."""
        return self._backend.engine

    @property
    def path(self) -> str:
        """The table's directory."""
        return self._backend.root

    def __repr__(self) -> str:
        return f"AssignmentTable({self.location!r}, engine={self.engine!r})"

    # ------------------------------------------------------------------ rebalance

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
            return self._rebalance(request, stages)

    def _rebalance(self, request: "_Request", stages: Stages) -> Rebalance:
        """The stages of :meth:`rebalance`, tried again (from the plan) when another writer
        commits first."""
        reuse: Optional[tuple] = None
        for attempt in range(1, request.max_attempts + 1):
            stages.next("plan")
            snap = self._current()              # None: no table yet, created once the rows are good
            heads, heads_dir = heads_and_name_at(self._backend, snap)
            todo = plan(request.subscriptions, request.topic_df, heads, request.strategy, request.force,
                        request.topic_counts)                                # 1. the changed groups
            warned = warn_about_input(todo, self.location) if attempt == 1 else 0
            if not todo.changed:                # nothing to write (an empty input creates no table)
                summary = {"groups_recomputed": 0, "groups_unchanged": todo.groups, "attempts": attempt,
                           "groups_with_missing_topics": todo.missing_groups, "warnings": warned}
                return Rebalance(self.spark.createDataFrame([], spark_ddl()), None, summary)
            stages.next("compute")
            version = (snap.version if snap is not None else 0) + 1
            computed = self._compute(request, snap, todo, version, reuse)   # 2. their next generation
            # Bad input has raised by now: nothing was written, not even a new table.
            if snap is None:
                snap = self._create()
                if snap.version != 0:           # another writer created the table and committed first
                    reuse = (computed, todo) if isinstance(computed, DataFrame) else None
                    continue
            stages.next("write")
            staged, rows = self._stage(request, computed, todo, version)     # 3. files, not yet visible
            summary = _summary(staged.outcome, todo, attempt, warned)
            name = heads_name(version, uuid.uuid4().hex[:12])                # 4. this attempt's own heads
            write_heads(self._backend, snap, heads, heads_dir, name,
                        changed_heads(todo, staged.outcome, version, request.strategy))
            stages.next("commit")
            committed = self._commit(snap, staged, name, request.strategy, summary)   # 5. compare-and-set N+1
            if committed is not None:
                return Rebalance(rows, committed, summary)
            reuse = (rows, todo) if isinstance(computed, DataFrame) else None   # driver path: recomputed
            time.sleep(min(0.1 * 2 ** attempt, 2.0))
        raise ConcurrentRebalanceError(f"{self.location}: other writers committed first {request.max_attempts} "
                                       "times; rebalance not committed")

    def _request(self, subscriptions: DataFrame, topics: Topics, strategy: str, num_files: Optional[int],
                 max_attempts: int, force: bool) -> "_Request":
        """Check the arguments and the inputs' schemas, before any Spark job."""
        chosen = spark_strategy(strategy)
        if not isinstance(force, bool):
            raise InvalidInputError(f"force must be True or False, got {force!r}", column="force")
        for name, value in (("max_attempts", max_attempts), ("num_files", num_files)):
            if (name == "max_attempts" or value is not None) and \
                    (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInputError(f"{name} must be a positive integer, got {value!r}", column=name)
        if "group_id" not in subscriptions.columns:
            subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
        subscription_columns(subscriptions)                         # schema check
        topic_df = topics_frame(self.spark, topics)                 # checks a dict's counts
        return _Request(subscriptions, topics, topic_df, chosen.name, num_files,
                        check_topics(topics) if isinstance(topics, Mapping) else None, max_attempts, force)

    def _compute(self, request: "_Request", snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Union[pa.Table, DataFrame]:
        """The changed groups' next generation: in the driver for a few groups (their inputs
        collected as Arrow, one job), else by Spark tasks (checkpointed: the engine runs once,
        and a retry reuses the rows of groups the winner did not touch)."""
        if reuse is None and todo.rows <= LOCAL_ROWS:
            with _data_errors():
                return rows_in_driver(self._backend, request.subscriptions, request.topics, request.strategy,
                                      snap, todo, version)
        tasks = self._parts_for(todo.rows, ROWS_PER_TASK)
        computed = rows_in_spark(self._backend, request.subscriptions, request.topic_df, request.strategy,
                                 snap, todo, version, tasks, reuse)
        with _data_errors():
            # Cuts the lineage too: plans nested attempt after attempt would keep growing.
            return computed.localCheckpoint()

    def _stage(self, request: "_Request", computed: Union[pa.Table, DataFrame], todo: Plan,
               version: int) -> Tuple[Staged, DataFrame]:
        """Make the rows ready to commit (the embedded engine writes the files now); the staged
        result and the rows as a DataFrame."""
        fault("before-write")
        if isinstance(computed, pa.Table):
            staged = self._backend.stage_arrow(computed, version)
            rows = self.spark.createDataFrame(computed, schema=spark_ddl())
        else:
            rows = computed
            files = request.num_files or self._parts_for(todo.rows, ROWS_PER_FILE)
            staged = self._backend.stage(rows, version, files)
        fault("after-write")
        return staged, rows

    def _commit(self, snap: Snapshot, staged: Staged, heads: str, strategy: str,
                summary: Dict[str, int]) -> Optional[int]:
        """Commit ``staged`` as version ``snap + 1`` naming the heads ``heads``: the version
        committed, or None (and everything this attempt wrote removed) when another writer got
        there first."""
        metadata: Dict[str, object] = {"spark_assign": {"format": FORMAT_VERSION, "operation": "rebalance",
                                                       "strategy": strategy, "heads": heads, **summary}}
        fault("before-commit")
        try:
            committed = self._backend.commit(snap, staged, APP_ID, metadata)
        except CommitConflict:
            self._backend.discard(staged)
            remove_heads(self.path, heads)
            return None
        fault("after-commit")
        return committed

    def _create(self) -> Snapshot:
        """Create the table (unless another writer just did) and return its latest snapshot."""
        self._ensure_table()
        return self._backend.snapshot()

    def _parts_for(self, rows: int, per_part: int) -> int:
        """Parts (data files, engine tasks) for ``rows`` rows: one per ``per_part``, at least one,
        at most ``spark.sql.shuffle.partitions``."""
        limit = int(self.spark.conf.get("spark.sql.shuffle.partitions"))
        return max(1, min(limit, -(-rows // per_part)))

    def _current(self) -> Optional[Snapshot]:
        """The table's latest snapshot (checked), or None when there is no table yet."""
        if not self._backend.exists():
            if is_path(self.location):
                check_new_table_folder(self.location)      # nothing written among another tool's files
            return None
        snap = self._backend.snapshot()
        self._backend.check(snap)
        return snap

    def _ensure_table(self) -> None:
        if not self._backend.exists():
            self._backend.create("spark-assign: Kafka partition assignments, one row per partition "
                                 "per group per generation")

    # ------------------------------------------------------------------ reads

    def _latest_rows(self, snap: Snapshot, heads: DataFrame) -> DataFrame:
        """Rows of each group's latest generation, reading only partitions that still hold one
        (none for a group left without partitions)."""
        heads = heads.where(~F.coalesce(F.col("empty"), F.lit(False)))
        versions = [r[0] for r in heads.select(PARTITION_COLUMN).distinct().collect()]
        rows = self._backend.read(snap, commit_versions=versions)
        return rows.join(heads.select("group_id", "generation"), ["group_id", "generation"], "left_semi")

    def exists(self) -> bool:
        """Whether the table exists (it is created by the first rebalance whose input is good).

        Example::

            AssignmentTable(spark, "/tmp/new-state").exists()    # False before the first rebalance
        """
        return self._backend.exists()

    def state(self, version: Optional[int] = None) -> TableState:
        """The table at its latest version, or at ``version``: the latest generation of every
        group and every row, read at that one version (what SQL views over the table show).

        Example::

            now = table.state()
            now.version, now.latest.count(), now.rows.count()

        Parameters
        ----------
        version:
            A Delta version of the table, or None for the latest.
        """
        if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 0):
            raise InvalidInputError(f"version must be a non-negative integer or None, got {version!r}",
                                    column="version")
        snap = self._snapshot(version)
        return TableState(snap.version, self._latest_rows(snap, heads_at(self._backend, snap)),
                          self._backend.read(snap))

    def latest(self) -> DataFrame:
        """Every group's latest generation: one row per partition.

        Example::

            table.latest().where("group_id = 'payments'").show()
        """
        snap = self._snapshot()
        return self._latest_rows(snap, heads_at(self._backend, snap))

    def history(self, group_id: str) -> DataFrame:
        """Every generation of one group, oldest first.

        Parameters
        ----------
        group_id:
            The group.
        """
        if not isinstance(group_id, str):
            raise InvalidInputError(f"group_id must be a string, got {type(group_id).__name__}", column="group_id")
        snap = self._snapshot()
        return self._backend.read(snap, group_id=group_id).orderBy("generation", "topic", "partition")

    def at(self, generation: Optional[int] = None, version: Optional[int] = None) -> DataFrame:
        """The fleet at a generation, or at a Delta version (time travel).

        ``at(generation=g)``: each group's latest generation not after ``g``;
        ``at(version=v)``: each group's latest generation in table version ``v``.

        Example::

            before = table.at(version=3)
            third = table.at(generation=3)
        """
        if (generation is None) == (version is None):
            raise InvalidInputError("give exactly one of generation= and version=", column="at")
        for name, value in (("generation", generation), ("version", version)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidInputError(f"{name} must be a non-negative integer, got {value!r}", column=name)
        if version is not None:
            snap = self._snapshot(version)
            return self._latest_rows(snap, heads_at(self._backend, snap))
        rows = self._backend.read(self._snapshot()).where(F.col("generation") <= cast(int, generation))
        latest = rows.groupBy("group_id").agg(F.max("generation").alias("generation"))
        return rows.join(latest, ["group_id", "generation"], "left_semi")

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

    # ------------------------------------------------------------------ retention

    def prune(self, keep_generations: int) -> Optional[int]:
        """Delete every group's generations but its last ``keep_generations``, in one Delta commit.

        The latest generation of every group stays (it is the next
        rebalance's ``previous``), so rebalancing is unaffected; ``history``
        and ``at(generation=...)`` no longer see the pruned generations, while
        ``at(version=...)`` of an earlier version still does until
        :meth:`vacuum` removes the files. On the embedded engine a prune
        racing a rebalance loses: nothing is deleted and
        :class:`ConcurrentRebalanceError` says to run it again; delta-spark
        may commit both, the prune last, which is safe (it deletes only
        generations below the heads it read, and names no heads of its own).

        Example::

            table.prune(keep_generations=10)    # the Delta version written, or None
            table.vacuum(retention_hours=168)   # then free the files

        Parameters
        ----------
        keep_generations:
            Generations to keep per group, at least 1.

        Returns
        -------
        int or None
            The version committed, or None when no group had more generations.
        """
        if isinstance(keep_generations, bool) or not isinstance(keep_generations, int) or keep_generations < 1:
            raise InvalidInputError(f"keep_generations must be a positive integer, got {keep_generations!r}",
                                    column="keep_generations")
        snap = self._snapshot()
        heads = heads_at(self._backend, snap)
        cutoffs = heads.select("group_id", (F.col("generation") - F.lit(keep_generations)).alias("cutoff")) \
            .where(F.col("cutoff") >= 1)
        # No heads named: a prune changes none, so its version's heads are the previous version's,
        # whichever commit that turns out to be (delta-spark's MERGE may land after a rebalance).
        metadata: Dict[str, object] = {"spark_assign": {"format": FORMAT_VERSION, "operation": "prune",
                                                       "keep_generations": keep_generations}}
        try:
            return self._backend.delete_before(snap, cutoffs, metadata)
        except CommitConflict as e:
            raise ConcurrentRebalanceError(
                f"{self.location}: another writer committed while pruning; nothing was deleted, "
                f"run prune again") from e

    def vacuum(self, retention_hours: int = 168) -> int:
        """Delete files no version newer than ``retention_hours`` needs (Delta ``VACUUM``).

        Removes the files of pruned generations and of attempts that never
        committed (a crashed or losing writer), and heads older than the
        retention that the current version does not use. Time travel to
        versions older than the retention stops working, as with any Delta
        table. Example::

            table.vacuum()          # keep a week, Delta's default

        Parameters
        ----------
        retention_hours:
            Keep files that versions of the last ``retention_hours`` hours use.
            Less than the table's ``delta.deletedFileRetentionDuration`` (a
            week by default) is refused: files a running rebalance has
            written but not yet committed would go too.

        Returns
        -------
        int
            The number of data files deleted.
        """
        if isinstance(retention_hours, bool) or not isinstance(retention_hours, int) or retention_hours < 0:
            raise InvalidInputError(f"retention_hours must be a non-negative integer, got {retention_hours!r}",
                                    column="retention_hours")
        snap = self._snapshot()
        deleted = self._backend.vacuum(retention_hours)
        sweep_heads(self.path, heads_name_at(self._backend, snap), retention_hours)
        return deleted

    def versions(self) -> List[Dict[str, Any]]:
        """The table's commits, newest first, the same on both engines: ``version``,
        ``timestamp`` (ms, UTC), Delta ``operation`` and ``spark_assign`` (what the commit did:
        ``operation`` ``rebalance`` with its summary and strategy, or ``prune``; None for another
        tool's commit).

        Example::

            [v["spark_assign"]["operation"] for v in table.versions() if v["spark_assign"]]
        """
        return self._backend.history()

    def _snapshot(self, version: Optional[int] = None) -> Snapshot:
        if not self._backend.exists():
            raise InvalidInputError(f"no state table at {self.location}; run rebalance first", column="location")
        snap = self._backend.snapshot(version)
        self._backend.check(snap)
        return snap


def _summary(outcome: Outcome, todo: Plan, attempt: int, warned: int) -> Dict[str, int]:
    counts = outcome.counts
    return {"groups_recomputed": len(todo.changed), "groups_unchanged": todo.groups - len(todo.changed),
            "partitions_moved": counts["moved"], "revoked": counts["revoked"],
            "assigned": counts["assigned"], "new": counts["new"], "kept": counts["kept"],
            "attempts": attempt, "groups_with_missing_topics": todo.missing_groups, "warnings": warned}


def warn_about_input(todo: Plan, location: str) -> int:
    """Warn about likely mistakes that Kafka allows (see :mod:`spark_assign.errors`); the number
    of warnings given: an :class:`~spark_assign.errors.EmptyInputWarning` for subscriptions
    without rows, a :class:`~spark_assign.errors.MissingTopicWarning` for groups subscribing to
    topics the metadata lacks or gives 0 partitions."""
    if todo.groups == 0:
        warnings.warn(EmptyInputWarning(f"the subscriptions have no rows: nothing to assign, {location} "
                                        "is left as it was"), stacklevel=4)
        return 1
    if not todo.missing_groups:
        return 0
    shown = ", ".join(map(repr, todo.missing_topics)) + (" ..." if len(todo.missing_topics) == 5 else "")
    warnings.warn(MissingTopicWarning(
        f"{todo.missing_groups} of {todo.groups} groups subscribe to topics missing from the metadata or with "
        f"0 partitions, which get no partitions: {shown}"), stacklevel=4)
    return 1


class _data_errors:
    """Raise an engine error from a Spark job as the :class:`InvalidInputError` it was."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        carried = InvalidInputError.from_spark(error) if error is not None else None
        if carried is None:
            return False
        if isinstance(error, InvalidInputError):          # raised in this process (the driver path)
            raise carried from None
        raise carried from error

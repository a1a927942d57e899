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
import shutil
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Union

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core import get_strategy
from ..errors import CommitConflict, ConcurrentRebalanceError, InvalidInputError
from ..spark.inputs import local_frame, subscription_columns, topics_frame
from ..spark.session import has_delta_spark
from .backend import Snapshot
from .embedded import EmbeddedBackend
from .generation import rows_in_driver, rows_in_spark
from .layout import (APP_ID_PREFIX, FORMAT_VERSION, HEADS_COLUMNS, HEADS_DIR, PARTITION_COLUMN, heads_ddl,
                     heads_name, heads_path, spark_ddl)
from .plan import Outcome, Plan, changed_heads, new_heads, plan, write_heads_locally

__all__ = ["AssignmentTable", "Rebalance"]

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
#: Prune commits in a row followed back to the heads they keep (more: the heads are rebuilt by a scan).
PRUNES_FOLLOWED = 100

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
        A directory path, or a catalog table name (needs delta-spark).
    engine:
        ``"embedded"`` (delta-rs; the default without delta-spark),
        ``"delta-spark"`` (the default when the session has Delta Lake), or None.
    """

    def __init__(self, spark, location: str, engine: Optional[str] = None) -> None:
        if not isinstance(location, str) or not location:
            raise InvalidInputError(f"location must be a path or a table name, got {location!r}", column="location")
        if engine not in (None, "embedded", "delta-spark"):
            raise InvalidInputError(f"engine must be 'embedded' or 'delta-spark', got {engine!r}", column="engine")
        self.spark = spark
        self.location = location
        use_delta_spark = engine == "delta-spark" or (engine is None and has_delta_spark(spark))
        if use_delta_spark:
            from .deltaspark import DeltaSparkBackend

            self._backend: Any = DeltaSparkBackend(spark, location)
        else:
            self._backend = EmbeddedBackend(spark, self._path_of(spark, location))

    @staticmethod
    def _path_of(spark, location: str) -> str:
        """Without delta-spark a catalog name maps to a directory under the warehouse."""
        if "/" in location or location.startswith("."):
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
        chosen = get_strategy(strategy)
        if not isinstance(force, bool):
            raise InvalidInputError(f"force must be True or False, got {force!r}", column="force")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise InvalidInputError(f"max_attempts must be a positive integer, got {max_attempts!r}",
                                    column="max_attempts")
        if "group_id" not in subscriptions.columns:
            subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
        subscription_columns(subscriptions)                         # schema check, before any job
        topic_df = topics_frame(self.spark, topics)
        if num_files is not None and (isinstance(num_files, bool) or not isinstance(num_files, int) or num_files < 1):
            raise InvalidInputError(f"num_files must be a positive integer, got {num_files!r}", column="num_files")
        reuse: Optional[tuple] = None
        for attempt in range(1, max_attempts + 1):
            snap = self._current()              # None: no table yet, created once the rows are good
            heads = self._heads(snap)
            todo = plan(subscriptions, topic_df, heads, chosen.name, force,       # the changed groups
                        topics if isinstance(topics, Mapping) else None)
            if not todo.changed:
                self._ensure_table()
                summary = {"groups_recomputed": 0, "groups_unchanged": todo.groups, "attempts": attempt}
                return Rebalance(self.spark.createDataFrame([], spark_ddl()), None, summary)
            version = (snap.version if snap is not None else 0) + 1
            if reuse is None and todo.rows <= LOCAL_ROWS:
                # A few groups: computed here from their collected inputs (one job), the file
                # written by the driver (embedded engine).
                computed: Union[pa.Table, DataFrame] = rows_in_driver(
                    self._backend, subscriptions, topics, chosen.name, snap, todo, version)
            else:
                tasks = self._parts_for(todo.rows, ROWS_PER_TASK)
                computed = rows_in_spark(self._backend, subscriptions, topic_df, chosen.name, snap, todo, version,
                                         tasks, reuse)
                with _data_errors():
                    # Runs the engine once and cuts the lineage: a retry reuses these rows, and
                    # plans nested attempt after attempt would keep growing.
                    computed = computed.localCheckpoint()
            # Bad input has raised by now: nothing was written, not even a new table.
            if snap is None:
                self._ensure_table()
                snap = self._backend.snapshot()
                if snap.version != 0:           # another writer created the table and committed first
                    reuse = (computed, todo) if isinstance(computed, DataFrame) else None
                    continue
            if isinstance(computed, pa.Table):
                staged = self._backend.stage_arrow(computed, version)
                rows = self.spark.createDataFrame(computed, schema=spark_ddl())
            else:
                rows = computed
                staged = self._backend.stage(rows, version, num_files or self._parts_for(todo.rows, ROWS_PER_FILE))
            summary = _summary(staged.outcome, todo, attempt)
            name = heads_name(version, uuid.uuid4().hex[:12])   # this attempt's own heads
            self._write_heads(snap, heads, name, changed_heads(todo, staged.outcome, version, chosen.name))
            metadata = {"spark_assign": {"format": FORMAT_VERSION, "operation": "rebalance",
                                         "strategy": chosen.name, "heads": name, **summary}}
            try:
                self._backend.commit(snap, staged, f"{APP_ID_PREFIX}-{snap.table_id}", metadata)
            except CommitConflict:
                self._backend.discard(staged)
                self._remove_heads(name)
                reuse = (rows, todo) if isinstance(computed, DataFrame) else None   # local: recomputed
                time.sleep(min(0.1 * 2 ** attempt, 2.0))
                continue
            return Rebalance(rows, version, summary)
        raise ConcurrentRebalanceError(
            f"{self.location}: other writers committed first {max_attempts} times; rebalance not committed")

    def _write_heads(self, snap: Snapshot, heads: DataFrame, name: str, updated) -> None:
        """Write the heads ``name`` of the next version: by the driver when the table and the
        heads of ``snap`` are local files, else with Spark (one small file either way)."""
        path = heads_path(self.path, name)
        if isinstance(self._backend, EmbeddedBackend):
            old = self._heads_name(snap) if snap.version > 0 else None
            old_path = heads_path(self.path, old) if old else None
            if snap.version == 0 or (old_path is not None and os.path.isdir(old_path)):
                write_heads_locally(old_path, path, updated)
                return
        new_heads(self.spark, heads, updated).coalesce(1).write.mode("overwrite").parquet(path)

    def _parts_for(self, rows: int, per_part: int) -> int:
        """Parts (data files, engine tasks) for ``rows`` rows: one per ``per_part``, at least one,
        at most ``spark.sql.shuffle.partitions``."""
        limit = int(self.spark.conf.get("spark.sql.shuffle.partitions"))
        return max(1, min(limit, -(-rows // per_part)))

    def _current(self) -> Optional[Snapshot]:
        """The table's latest snapshot (checked), or None when there is no table yet."""
        if not self._backend.exists():
            return None
        snap = self._backend.snapshot()
        self._backend.check(snap)
        return snap

    def _ensure_table(self) -> None:
        if not self._backend.exists():
            self._backend.create("spark-assign: Kafka partition assignments, one row per partition "
                                 "per group per generation")

    # ------------------------------------------------------------------ reads

    def _heads(self, snap: Optional[Snapshot]) -> DataFrame:
        """The heads at ``snap``: from its heads file, or (a version written by another tool) by a
        scan; none for a new table (``snap`` None or version 0)."""
        if snap is None or snap.version == 0:
            return local_frame(self.spark, HEADS_COLUMNS, {n: [] for n, _ in HEADS_COLUMNS})
        heads = self._read_heads(snap)
        if heads is not None:
            return heads
        rows = self._backend.read(snap)
        latest = rows.groupBy("group_id").agg(F.max("generation").alias("generation"))
        return (rows.join(latest, ["group_id", "generation"], "left_semi")
                .groupBy("group_id").agg(F.max("generation").alias("generation"),
                                         F.max(PARTITION_COLUMN).alias(PARTITION_COLUMN),
                                         F.first("strategy").alias("strategy"),
                                         # the rows carry their group's fingerprint: an unchanged
                                         # group stays unchanged after another tool's commit
                                         F.first("input_fingerprint").alias("input_fingerprint"),
                                         F.max(F.col("member_id").isNull()).alias("pending"),
                                         F.lit(False).alias("empty")))

    def _heads_name(self, snap: Snapshot) -> Optional[str]:
        """The heads directory of ``snap``: named by the rebalance that made it, or, for a prune
        (which leaves every group's head as it was), by the version before, and so on."""
        for version in range(snap.version, max(snap.version - PRUNES_FOLLOWED, 0), -1):
            meta = self._backend.commit_metadata(version)
            if not isinstance(meta, dict):
                return None                                  # another tool's commit: scan
            name = meta.get("heads")
            if isinstance(name, str) and name:
                return name
            if meta.get("operation") != "prune":
                return None
        return None

    def _read_heads(self, snap: Snapshot) -> Optional[DataFrame]:
        """The heads of ``snap``, or None when its commit names none (or they are gone)."""
        name = self._heads_name(snap)
        if name is None:
            return None
        try:
            # Heads are immutable (one directory per attempt): read them where needed, no cache.
            # A missing directory fails here, when Spark lists it, not in a job.
            heads = self.spark.read.schema(heads_ddl()).parquet(heads_path(self.path, name))
            heads.columns                   # Spark Connect is lazy: make it resolve (list) the path here
            return heads
        except Exception:  # noqa: BLE001 - a missing path: AnalysisException (classic) or its Connect twin
            return None

    def _latest_rows(self, snap: Snapshot, heads: DataFrame) -> DataFrame:
        """Rows of each group's latest generation, reading only partitions that still hold one
        (none for a group left without partitions)."""
        heads = heads.where(~F.coalesce(F.col("empty"), F.lit(False)))
        versions = [r[0] for r in heads.select(PARTITION_COLUMN).distinct().collect()]
        rows = self._backend.read(snap, commit_versions=versions)
        return rows.join(heads.select("group_id", "generation"), ["group_id", "generation"], "left_semi")

    def latest(self) -> DataFrame:
        """Every group's latest generation: one row per partition.

        Example::

            table.latest().where("group_id = 'payments'").show()
        """
        snap = self._snapshot()
        return self._latest_rows(snap, self._heads(snap))

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
            return self._latest_rows(snap, self._heads(snap))
        rows = self._backend.read(self._snapshot()).where(F.col("generation") <= generation)
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
        heads = self._heads(snap)
        cutoffs = heads.select("group_id", (F.col("generation") - F.lit(keep_generations)).alias("cutoff")) \
            .where(F.col("cutoff") >= 1)
        # No heads named: a prune changes none, so its version's heads are the previous version's,
        # whichever commit that turns out to be (delta-spark's MERGE may land after a rebalance).
        metadata = {"spark_assign": {"format": FORMAT_VERSION, "operation": "prune",
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
        current = self._heads_name(snap)
        folder = os.path.join(self.path, HEADS_DIR)
        if os.path.isdir(folder):                         # local tables; elsewhere heads stay (they are small)
            horizon = time.time() - retention_hours * 3600
            for name in os.listdir(folder):
                full = os.path.join(folder, name)
                if name != current and os.path.getmtime(full) < horizon:
                    shutil.rmtree(full, ignore_errors=True)
        return deleted

    def _remove_heads(self, name: str) -> None:
        """Best effort: drop the heads of an attempt that did not commit (vacuum gets any left)."""
        full = heads_path(self.path, name)
        if os.path.isdir(full):
            shutil.rmtree(full, ignore_errors=True)

    def versions(self) -> List[Dict[str, Any]]:
        """The table's Delta history (newest first), with each rebalance's summary."""
        return self._backend.history()

    def _snapshot(self, version: Optional[int] = None) -> Snapshot:
        if not self._backend.exists():
            raise InvalidInputError(f"no state table at {self.location}; run rebalance first", column="location")
        snap = self._backend.snapshot(version)
        self._backend.check(snap)
        return snap


def _summary(outcome: Outcome, todo: Plan, attempt: int) -> Dict[str, int]:
    counts = outcome.counts
    return {"groups_recomputed": len(todo.changed), "groups_unchanged": todo.groups - len(todo.changed),
            "partitions_moved": counts["moved"], "revoked": counts["revoked"],
            "assigned": counts["assigned"], "new": counts["new"], "kept": counts["kept"],
            "attempts": attempt}


class _data_errors:
    """Turn an engine error raised in a Spark job back into :class:`InvalidInputError`."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if error is None or isinstance(error, InvalidInputError):
            return False
        text = str(error)
        marker = "InvalidInputError: "
        if marker in text:
            message = text[text.index(marker) + len(marker):].splitlines()[0]
            raise InvalidInputError(message) from error
        return False

"""``AssignmentTable``: a fleet's assignments, generation after generation, in Delta.

A rebalance (see :meth:`AssignmentTable.rebalance`):

1. ``fingerprint``: hash each group's inputs (members, topics, static ids,
   racks, claims, partition counts and replica racks, strategy) in one Spark
   aggregation;
2. ``select``: against the table's heads at version N, keep the groups whose
   fingerprint changed, that are new, or that have a cooperative transfer
   pending;
3. ``assign``: run ``assign_partitions`` on those groups only, with their
   latest generation as ``previous``;
4. ``stage``: write the new rows as files of partition ``commit_version=N+1``
   and the new heads beside the log;
5. ``commit``: compare-and-set version N+1. When another writer got there
   first, re-read, recompute only the groups it changed, and retry (bounded).

Nothing is committed when a group's input is bad: the error names the group,
column and rows, and the table stays at N.
"""

from __future__ import annotations

import datetime
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Union

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core import get_strategy
from ..errors import ConcurrentRebalanceError, InvalidInputError
from ..spark.dataframe import assign_frame
from ..spark.inputs import subscription_columns, topics_frame
from ..spark.session import has_delta_spark
from .embedded import CommitConflict, EmbeddedBackend, Snapshot
from ..schema import STATUSES
from .layout import (APP_ID_PREFIX, FORMAT_VERSION, HEADS_DIR, PARTITION_COLUMN, TABLE_COLUMNS, heads_ddl,
                     heads_name, heads_path)

__all__ = ["AssignmentTable", "Rebalance"]

#: Rows per data file a rebalance aims at (a few MB of Parquet).
ROWS_PER_FILE = 1_000_000

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
        fingerprints = _fingerprints(subscriptions, topic_df, chosen.name).cache()
        self._ensure_table()
        reuse: Optional[tuple] = None
        cached: List[DataFrame] = [fingerprints]
        try:
            for attempt in range(1, max_attempts + 1):
                snap = self._backend.snapshot()
                self._backend.check(snap)
                heads = self._heads(snap)
                status = _group_status(fingerprints, heads, chosen.name, force).cache()
                cached.append(status)
                counts = status.agg(F.count(F.lit(1)), F.sum(F.col("_changed").cast("long"))).first()
                n_groups, n_changed = int(counts[0]), int(counts[1] or 0)
                changed = status.where("_changed").select("group_id", "input_fingerprint")
                if n_changed == 0:
                    summary = {"groups_recomputed": 0, "groups_unchanged": n_groups, "attempts": attempt}
                    return Rebalance(self.spark.createDataFrame([], _state_ddl()), None, summary)
                version = snap.version + 1
                rows = self._compute(subscriptions, topic_df, chosen.name, snap, heads, changed, version, reuse)
                with _data_errors():
                    # Runs the engine once (bad input stops here) and cuts the lineage: a retry
                    # reuses these rows, and plans nested attempt after attempt would keep growing.
                    rows = rows.localCheckpoint()
                per_group = _per_group(rows).cache()
                summary = _summary(per_group, n_changed, n_groups, attempt)
                staged = self._backend.stage(rows, version, num_files or self._files_for(summary))
                name = heads_name(version, uuid.uuid4().hex[:12])   # this attempt's own heads
                _write_heads(heads_path(self.path, name), version, heads, per_group, changed, chosen.name)
                metadata = {"spark_assign": {"format": FORMAT_VERSION, "operation": "rebalance",
                                             "strategy": chosen.name, "heads": name, **summary}}
                try:
                    self._backend.commit(snap, staged, f"{APP_ID_PREFIX}-{snap.table_id}", version, metadata)
                except CommitConflict:
                    self._backend.discard(staged)
                    self._remove_heads(name)
                    reuse = (rows, heads, changed)
                    time.sleep(min(0.1 * 2 ** attempt, 2.0))
                    continue
                return Rebalance(rows, version, summary)
        finally:
            for df in cached:
                df.unpersist()
        raise ConcurrentRebalanceError(
            f"{self.location}: other writers committed first {max_attempts} times; rebalance not committed")

    def _files_for(self, summary: Dict[str, int]) -> int:
        """Data files for a generation: one per million rows, at most ``spark.sql.shuffle.partitions``."""
        rows = sum(summary[s] for s in ("new", "kept", "moved", "revoked", "assigned"))
        limit = int(self.spark.conf.get("spark.sql.shuffle.partitions"))
        return max(1, min(limit, -(-rows // ROWS_PER_FILE)))

    def _ensure_table(self) -> None:
        if not self._backend.exists():
            self._backend.create("spark-assign: Kafka partition assignments, one row per partition "
                                 "per group per generation")

    def _compute(self, subscriptions, topic_df, strategy, snap, heads, changed, version, reuse) -> DataFrame:
        """The new generation's rows for the ``changed`` groups (reusing a failed attempt's
        rows for groups whose state did not move since)."""
        todo = changed
        kept = None
        if reuse is not None:
            old_rows, old_heads, old_changed = reuse
            same = (old_heads.join(heads, ["group_id", "generation", "input_fingerprint"], "inner")
                    .select("group_id"))
            reusable = changed.join(old_changed.select("group_id"), "group_id", "left_semi") \
                .join(same, "group_id", "left_semi").select("group_id")
            todo = changed.join(reusable, "group_id", "left_anti")
            kept = old_rows.join(reusable, "group_id", "left_semi").withColumn(PARTITION_COLUMN, F.lit(version))
        subs = subscriptions.join(_small(todo.select("group_id")), "group_id", "left_semi")
        previous = self._latest_rows(snap, heads, todo)
        result = assign_frame(subs, strategy, topic_df, previous, with_instance=True)
        rows = (result.join(_small(todo), "group_id")
                .withColumn("strategy", F.lit(strategy))
                .withColumn("committed_at", F.lit(datetime.datetime.now(datetime.timezone.utc)).cast("timestamp"))
                .withColumn(PARTITION_COLUMN, F.lit(version).cast("bigint"))
                .select(*[n for n, _ in TABLE_COLUMNS]))
        return rows if kept is None else rows.unionByName(kept)

    # ------------------------------------------------------------------ reads

    def _heads(self, snap: Snapshot) -> DataFrame:
        """The heads at ``snap``: from its heads file, or (a version written by another tool) by a scan."""
        if snap.version == 0:
            return self.spark.createDataFrame([], heads_ddl())
        heads = self._read_heads(snap)
        if heads is not None:
            return heads
        rows = self._backend.read(snap)
        latest = rows.groupBy("group_id").agg(F.max("generation").alias("generation"))
        return (rows.join(latest, ["group_id", "generation"], "left_semi")
                .groupBy("group_id").agg(F.max("generation").alias("generation"),
                                         F.max(PARTITION_COLUMN).alias(PARTITION_COLUMN),
                                         F.first("strategy").alias("strategy"),
                                         F.lit(None).cast("string").alias("input_fingerprint"),
                                         F.max(F.col("member_id").isNull()).alias("pending")))

    def _heads_name(self, snap: Snapshot) -> Optional[str]:
        """The heads directory named by the commit that made ``snap``, if any."""
        meta = self._backend.commit_metadata(snap)
        name = meta.get("heads") if isinstance(meta, dict) else None
        return name if isinstance(name, str) and name else None

    def _read_heads(self, snap: Snapshot) -> Optional[DataFrame]:
        """The heads of ``snap``, cached, or None when its commit names none (or they are gone)."""
        name = self._heads_name(snap)
        if name is None:
            return None
        try:
            heads = self.spark.read.schema(heads_ddl()).parquet(heads_path(self.path, name)).cache()
            heads.count()
            return heads
        except Exception:  # noqa: BLE001 - a missing path: AnalysisException (classic) or its Connect twin
            return None

    def _latest_rows(self, snap: Snapshot, heads: DataFrame, groups: Optional[DataFrame] = None) -> DataFrame:
        """Rows of each group's latest generation, reading only partitions that still hold one."""
        wanted = heads if groups is None else heads.join(_small(groups.select("group_id")), "group_id", "left_semi")
        versions = [r[0] for r in wanted.select(PARTITION_COLUMN).distinct().collect()]
        rows = self._backend.read(snap, commit_versions=versions)
        return rows.join(wanted.select("group_id", "generation"), ["group_id", "generation"], "left_semi")

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
        :meth:`vacuum` removes the files. A prune racing a rebalance loses:
        nothing is deleted and :class:`ConcurrentRebalanceError` says to run
        it again.

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
        metadata = {"spark_assign": {"format": FORMAT_VERSION, "operation": "prune",
                                     "keep_generations": keep_generations, "heads": self._heads_name(snap)}}
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


def _state_ddl() -> str:
    from .layout import spark_ddl

    return spark_ddl()


def _fingerprints(subscriptions: DataFrame, topics: DataFrame, strategy: str) -> DataFrame:
    """``(group_id, input_fingerprint)``: a hash of everything the group's assignment depends on."""
    per_group_topics = "group_id" in topics.columns
    keys = ["group_id", "topic"] if per_group_topics else ["topic"]
    meta = topics.groupBy(*keys).agg(
        F.min("num_partitions").alias("_n"),
        F.count(F.lit(1)).alias("_rows"),
        (F.to_json(F.first("replica_racks")) if "replica_racks" in topics.columns else F.lit("")).alias("_racks"))
    cols = {c: (F.col(c).cast("string") if c in subscriptions.columns else F.lit(""))
            for c in ("member_id", "topic", "group_instance_id", "rack", "generation")}
    owned = (F.array_join(F.array_sort(F.col("owned_partitions")).cast("array<string>"), ",")
             if "owned_partitions" in subscriptions.columns else F.lit(""))
    row = F.concat_ws("\u001f", *[F.coalesce(c, F.lit("\u2400")) for c in cols.values()],
                      F.coalesce(owned, F.lit("\u2400")), F.coalesce(F.col("_n").cast("string"), F.lit("?")),
                      F.col("_rows").cast("string"), F.coalesce(F.col("_racks"), F.lit("")))
    joined = subscriptions.join(F.broadcast(meta) if not per_group_topics else meta, on=keys, how="left")
    return joined.groupBy("group_id").agg(
        F.sha2(F.concat_ws("\u001e", F.lit(strategy), F.array_join(F.sort_array(F.collect_list(row)), "\u001e")),
               256).alias("input_fingerprint"))


def _group_status(fingerprints: DataFrame, heads: DataFrame, strategy: str, force: bool) -> DataFrame:
    """``(group_id, input_fingerprint, _changed)``: changed when new, with a changed input or
    strategy, waiting for a cooperative transfer, or forced."""
    h = heads.select("group_id", F.col("input_fingerprint").alias("_fp"), F.col("pending").alias("_pending"),
                     F.col("strategy").alias("_strategy"))
    j = fingerprints.join(h, "group_id", "left")
    changed = (F.lit(force) | F.col("_fp").isNull() | (F.col("_fp") != F.col("input_fingerprint")) |
               F.coalesce(F.col("_pending"), F.lit(False)) | (F.col("_strategy") != F.lit(strategy)))
    return j.select("group_id", "input_fingerprint", F.coalesce(changed, F.lit(True)).alias("_changed"))


def _small(df: DataFrame) -> DataFrame:
    """Hint a broadcast: the per-group side of a join (changed groups) is small next to rows."""
    return F.broadcast(df)


def _per_group(rows: DataFrame) -> DataFrame:
    """Per changed group: its new generation, whether a transfer is pending, and status counts."""
    return rows.groupBy("group_id").agg(
        F.max("generation").alias("generation"),
        F.max(F.col("member_id").isNull()).alias("pending"),
        *[F.sum((F.col("status") == s).cast("long")).alias(s) for s in STATUSES])


def _write_heads(path: str, version: int, heads: DataFrame, per_group: DataFrame, changed: DataFrame,
                 strategy: str) -> None:
    """The heads of ``version``: unchanged groups as they were, changed ones at their new generation."""
    # A changed group without partitions keeps its generation; its fingerprint is still recorded.
    old = heads.select("group_id", F.col("generation").alias("_old"), F.col(PARTITION_COLUMN).alias("_old_commit"))
    updated = (changed.join(_small(per_group.select("group_id", "generation", "pending")), "group_id", "left")
               .join(old, "group_id", "left")
               .select("group_id",
                       F.coalesce(F.col("generation"), F.col("_old"), F.lit(0)).cast("int").alias("generation"),
                       F.when(F.col("generation").isNotNull(), F.lit(version))
                        .otherwise(F.coalesce(F.col("_old_commit"), F.lit(version))).cast("bigint")
                        .alias(PARTITION_COLUMN),
                       F.lit(strategy).alias("strategy"), "input_fingerprint",
                       F.coalesce(F.col("pending"), F.lit(False)).alias("pending")))
    unchanged = heads.join(_small(changed.select("group_id")), "group_id", "left_anti")
    merged = unchanged.unionByName(updated)
    merged.coalesce(1).write.mode("overwrite").parquet(path)     # one row per group: one small file


def _summary(per_group: DataFrame, recomputed: int, total: int, attempt: int) -> Dict[str, int]:
    sums = per_group.agg(*[F.sum(s).alias(s) for s in STATUSES]).first()
    counts = {s: int(sums[s] or 0) for s in STATUSES}
    return {"groups_recomputed": recomputed, "groups_unchanged": total - recomputed,
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

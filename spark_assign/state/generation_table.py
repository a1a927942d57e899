"""The generation loop that every state table shares: plan, compute, stage, heads, compare-and-set commit.

:class:`GenerationTable` holds a table of one kind (:class:`~.layout.TableKind`)
through one backend (:class:`~.backend.StateBackend`) and runs, for
:class:`~spark_assign.AssignmentTable` (consumer groups) and
:class:`~spark_assign.ReplicaTable` (replica placements on brokers) alike:

1. ``plan``: hash each unit's inputs (a group, a cluster) and, against the
   table's heads at version N, keep the units whose fingerprint changed or
   that are new (:mod:`.plan`; the kind adds its own reasons, such as a
   pending cooperative transfer);
2. ``compute``: the kind computes those units' next generation, with their
   latest generation as ``previous``;
3. ``stage``: write the new rows as files of partition ``commit_version=N+1``
   and the new heads beside the log. A table that does not exist yet is
   created here, after the compute stage accepted the input; a table of an
   older format first gets the columns it lacks, in a commit of its own (see
   :mod:`.layout`), and the rebalance starts over from that version;
4. ``commit``: compare-and-set version N+1. When another writer got there
   first, re-read, plan again and retry (bounded by ``max_attempts``).

Nothing is written when a unit's input is bad: the error names the unit,
column and rows, and the table stays at N. The reads (latest, history, time
travel) and retention (prune, vacuum) are the same for every kind.

A subclass sets :attr:`GenerationTable.kind` and implements ``_plan``,
``_compute``, ``_summary`` and ``_commit_info`` (see their docstrings).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..core.java.limits import check_count
from ..errors import CommitConflict, ConcurrentRebalanceError, InvalidInputError
from ..progress import Stages
from ..spark import failures
from ..spark.delta import is_path, resolve_location
from .backend import ENGINES, Snapshot, Staged, StateBackend
from .backends.damage import watch
from .backends import backend_for
from .heads import changed_heads, heads_and_name_at, heads_at, heads_name_at, remove_heads, sweep_heads, write_heads
from .layout import APP_ID, ASSIGNMENTS, FORMAT_VERSION, PARTITION_COLUMN, TableKind, check_new_table_folder, heads_name
from .plan import Outcome, Plan, outcome_of, warn_about_input

__all__ = ["GenerationTable", "Rebalance", "TableState", "Computed", "fault", "data_errors", "FAULT_POINTS",
           "REBALANCE_STAGES", "ROWS_PER_FILE", "commit_staged", "check_loop_arguments",
           "upgrade_table"]

#: Rows per data file a rebalance aims at (a few MB of Parquet).
ROWS_PER_FILE = 1_000_000
#: The stages a rebalance's progress bar names (see :mod:`spark_assign.progress`).
REBALANCE_STAGES = ("plan", "compute", "write", "commit")
#: Test hook: ``SPARK_ASSIGN_FAULT=<point>`` kills the rebalancing process at that point of
#: every attempt (the crash-safety tests): before and after staging, before and after the commit.
FAULT_POINTS = ("before-write", "after-write", "before-commit", "after-commit")


@dataclass
class Rebalance:
    """What a rebalance did.

    ``rows``: the new generations' rows (empty when nothing changed);
    ``version``: the Delta version committed, or None; ``summary``: counts
    (for an ``AssignmentTable``: ``groups_recomputed``, ``groups_unchanged``,
    ``partitions_moved``, ``revoked``, ``assigned``, ``new``, ``kept``,
    ``attempts``, and with a load-aware strategy ``groups_replanned_for_load``:
    groups re-planned because their load exceeded the threshold under the new
    weights, of which ``groups_replanned_unmoved`` moved nothing and were not
    committed; for a ``ReplicaTable``, see its ``rebalance``).
    """

    rows: DataFrame
    version: Optional[int]
    summary: Dict[str, int] = field(default_factory=dict)
    #: A preview (``dry_run=True``): the rows and counts a commit would have written; nothing was.
    dry_run: bool = False
    #: The rebalance's ``transaction`` was recorded before (a retried job or micro-batch): nothing
    #: was planned or written, and ``version`` is None.
    already_committed: bool = False


@dataclass(frozen=True)
class TableState:
    """The table at one version: ``latest`` (every unit's latest generation) and ``rows``
    (every generation of every unit), both read at ``version``."""

    version: int
    latest: DataFrame
    rows: DataFrame


@dataclass
class Computed:
    """The compute stage's result: the new rows (Arrow when computed in the driver, else a
    DataFrame), figures for the summary that the rows alone do not give, and the plan narrowed
    to the units that get a new generation, when the kind dropped some whose new rows would
    change nothing (None: the plan as it was)."""

    rows: Union[pa.Table, DataFrame]
    figures: Dict[str, int] = field(default_factory=dict)
    plan: Optional[Plan] = None


_FAULTS_PASSED = [0]


def fault(point: str) -> None:
    """Kill this process at ``point`` when ``SPARK_ASSIGN_FAULT`` names it (see :data:`FAULT_POINTS`),
    once it has passed the point ``SPARK_ASSIGN_FAULT_SKIP`` times (default 0: the first time):
    a test restarting a stream after each kill makes each process die one step further."""
    if os.environ.get("SPARK_ASSIGN_FAULT") == point:
        if _FAULTS_PASSED[0] >= int(os.environ.get("SPARK_ASSIGN_FAULT_SKIP", "0")):
            os.kill(os.getpid(), 9)
        _FAULTS_PASSED[0] += 1


def commit_staged(backend: StateBackend, snap: Snapshot, staged: Staged, heads: str, info: Dict[str, object],
                  summary: Dict[str, int], transaction: Optional[Tuple[str, int]] = None) -> Optional[int]:
    """Commit ``staged`` as version ``snap + 1`` naming the heads ``heads``, with a rebalance's
    metadata (``info``: what computed it; ``summary``: its counts) and the caller's application
    ``transaction`` if any: the version committed, or None (and everything the attempt wrote
    removed) when another writer got there first. Every rebalance commits through here, with
    Spark or without (:mod:`.consumer.driver`)."""
    metadata: Dict[str, object] = {"spark_assign": {"format": FORMAT_VERSION, "operation": "rebalance",
                                                   **info, "heads": heads, **summary}}
    fault("before-commit")
    try:
        committed = backend.commit(snap, staged, APP_ID, metadata, [transaction] if transaction else [])
    except CommitConflict:
        backend.discard(staged)
        remove_heads(backend.root, heads)
        return None
    fault("after-commit")
    return committed


def upgrade_table(backend: StateBackend, snap: Snapshot) -> Snapshot:
    """Add the columns an older format lacks (:meth:`~.layout.TableKind.missing`), in a commit
    of its own that keeps the heads (see :mod:`.layout`); the latest snapshot after it (another
    writer's upgrade may have won: the table is read again either way)."""
    added = [n for n, _ in backend.missing_columns(snap)]
    metadata: Dict[str, object] = {"spark_assign": {"format": FORMAT_VERSION, "operation": "upgrade",
                                                   "added": added}}
    try:
        backend.upgrade(snap, metadata)
    except CommitConflict:
        pass                                # another writer committed (maybe the upgrade): read again
    return backend.snapshot()


def check_loop_arguments(num_files: Optional[int], max_attempts: int, force: bool, dry_run: bool = False) -> None:
    """The arguments every rebalance takes: :class:`InvalidInputError` naming the bad one."""
    for flag, given in (("force", force), ("dry_run", dry_run)):
        if not isinstance(given, bool):
            raise InvalidInputError(f"{flag} must be True or False, got {given!r}", column=flag)
    for name, value in (("max_attempts", max_attempts), ("num_files", num_files)):
        if name == "max_attempts" or value is not None:
            check_count(value, name, minimum=1, maximum=None)


class GenerationTable:
    """A state table of :attr:`kind` in Delta, generation after generation (see the module doc).

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

    #: What the table holds (set by each subclass).
    kind: TableKind = ASSIGNMENTS

    def __init__(self, spark, location: str, engine: Optional[str] = None) -> None:
        if not isinstance(location, str) or not location:
            raise InvalidInputError(f"location must be a path or a table name, got {location!r}", column="location")
        if engine is not None and engine not in ENGINES:
            raise InvalidInputError(f"engine must be one of {', '.join(map(repr, ENGINES))} or None, got {engine!r}",
                                    column="engine")
        failures.install()                      # Spark's failures on this table's files: StateTableError
        self.spark = spark
        self.location = resolve_location(location)
        self._backend: StateBackend = backend_for(spark, self.location, self.kind, engine)

    @property
    def engine(self) -> str:
        """``"embedded"`` or ``"delta-spark"``."""
        return self._backend.engine

    @property
    def path(self) -> str:
        """The table's directory."""
        return self._backend.root

    @property
    def driver_folder(self) -> Optional[str]:
        """The folder the driver can read the whole table from without Spark, or None (see
        :attr:`~spark_assign.state.backend.StateBackend.driver_folder`)."""
        return self._backend.driver_folder

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r}, engine={self.engine!r})"

    # ------------------------------------------------------------------ what a kind implements

    def _plan(self, request: Any, heads: DataFrame, snap: Optional[Snapshot]) -> Plan:
        """The units of ``request`` to recompute against ``heads``, the heads of ``snap`` (None: no
        table yet); see :func:`.plan.changed_units`."""
        raise NotImplementedError

    def _compute(self, request: Any, snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Computed:
        """The changed units' next generation, rows of :attr:`kind` with ``commit_version =
        version``. ``reuse``: ``(rows, plan)`` of an attempt that lost its commit (Spark path), whose
        rows of units the winner did not touch may be reused. Bad input raises here."""
        raise NotImplementedError

    def _summary(self, todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                 figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        """The counts a rebalance returns and commits (``outcome`` None: nothing changed)."""
        raise NotImplementedError

    def _commit_info(self, request: Any) -> Dict[str, object]:
        """What the commit's metadata says about the request (``strategy``, ``method``, ...)."""
        raise NotImplementedError

    def _heads_strategy(self, request: Any) -> str:
        """The ``strategy`` the new heads record."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the loop

    def _generations(self, request: Any, stages: Stages) -> Rebalance:
        """The stages of a rebalance, tried again (from the plan) when another writer commits
        first. ``request`` has at least ``max_attempts``, ``num_files`` and ``dry_run`` (stop after the
        compute stage: plan and rows as a commit would have them, nothing written, no table created)."""
        reuse: Optional[tuple] = None
        attempt, upgraded = 0, False
        while attempt < request.max_attempts:
            attempt += 1
            stages.next("plan")
            snap = self._current()              # None: no table yet, created once the rows are good
            if self._already_committed(request, snap):     # a retried job or micro-batch: nothing to do
                empty = self.spark.createDataFrame([], self.kind.ddl())
                return Rebalance(empty, None, self._summary(Plan(0, {}), attempt, 0), already_committed=True)
            heads, heads_dir = heads_and_name_at(self._backend, snap)
            todo = self._plan(request, heads, snap)                          # 1. the changed units
            warned = self._warn(todo) if attempt == 1 else 0
            computed: Optional[Computed] = None
            if todo.changed:
                stages.next("compute")
                version = (snap.version if snap is not None else 0) + 1
                computed = self._compute(request, snap, todo, version, reuse)   # 2. their next generation
                # Bad input has raised by now: nothing was written, not even a new table.
                todo = computed.plan if computed.plan is not None else todo
            if computed is None or not todo.changed:    # nothing to write (an empty input creates no table)
                empty = self.spark.createDataFrame([], self.kind.ddl())
                figures = computed.figures if computed is not None else None
                return Rebalance(empty, None, self._summary(todo, attempt, warned, figures=figures),
                                 request.dry_run)
            if request.dry_run:                         # a preview: the same rows and counts, nothing written
                rows, outcome = self._preview(computed.rows)
                return Rebalance(rows, None, self._summary(todo, attempt, warned, outcome, computed.figures), True)
            if snap is None or self._backend.missing_columns(snap):
                moved_on = self._create() if snap is None else self._upgrade(snap)
                if moved_on.version != (snap.version if snap is not None else 0):
                    # another writer committed first, or the format was upgraded: start over from there;
                    # one upgrade is not a lost race, so it spends no attempt (max_attempts=1 still upgrades)
                    if snap is not None and not upgraded:
                        upgraded, attempt = True, attempt - 1
                    reuse = (computed.rows, todo) if isinstance(computed.rows, DataFrame) else None
                    continue
                snap = moved_on
            stages.next("write")
            staged, rows = self._stage(computed.rows, todo, version, request.num_files)   # 3. not yet visible
            summary = self._summary(todo, attempt, warned, staged.outcome, computed.figures)
            name = heads_name(version, uuid.uuid4().hex[:12])                # 4. this attempt's own heads
            write_heads(self._backend, snap, heads, heads_dir, name,
                        changed_heads(todo, staged.outcome, version, self._heads_strategy(request), self.kind))
            stages.next("commit")
            committed = self._commit(snap, staged, name, self._commit_info(request), summary,   # 5. compare-and-set
                                     request.transaction)
            if committed is not None:
                return Rebalance(rows, committed, summary)
            reuse = (rows, todo) if isinstance(computed.rows, DataFrame) else None   # driver path: recomputed
            time.sleep(min(0.1 * 2 ** attempt, 2.0))
        raise ConcurrentRebalanceError(f"{self.location}: other writers committed first {request.max_attempts} "
                                       "times; rebalance not committed")

    def _already_committed(self, request: Any, snap: Optional[Snapshot]) -> bool:
        """Whether the table records ``request.transaction``'s application at its version or later."""
        if request.transaction is None or snap is None:
            return False
        app_id, version = request.transaction
        done = self._backend.transaction_version(snap, app_id)
        return done is not None and done >= version

    def _preview(self, computed: Union[pa.Table, DataFrame]) -> "tuple[DataFrame, Outcome]":
        """A dry run's rows as a DataFrame and their outcome, counted as a commit counts them."""
        if isinstance(computed, pa.Table):
            outcome = Outcome.of(self.kind)
            outcome.add_arrow(computed, self.kind)
            return self.spark.createDataFrame(computed, schema=self.kind.ddl()), outcome
        return computed, outcome_of(computed, self.kind)

    def _warn(self, todo: Plan) -> int:
        return warn_about_input(todo, self.location)

    def _stage(self, computed: Union[pa.Table, DataFrame], todo: Plan, version: int,
               num_files: Optional[int]) -> "tuple[Staged, DataFrame]":
        """Make the rows ready to commit (the embedded engine writes the files now); the staged
        result and the rows as a DataFrame."""
        fault("before-write")
        if isinstance(computed, pa.Table):
            staged = self._backend.stage_arrow(computed, version)
            rows = self.spark.createDataFrame(computed, schema=self.kind.ddl())
        else:
            rows = computed
            files = num_files or self._parts_for(todo.rows, ROWS_PER_FILE)
            staged = self._backend.stage(rows, version, files)
        fault("after-write")
        return staged, rows

    def _commit(self, snap: Snapshot, staged: Staged, heads: str, info: Dict[str, object],
                summary: Dict[str, int], transaction: Optional[Tuple[str, int]] = None) -> Optional[int]:
        return commit_staged(self._backend, snap, staged, heads, info, summary, transaction)

    def _create(self) -> Snapshot:
        """Create the table (unless another writer just did) and return its latest snapshot."""
        if not self._backend.exists():
            self._backend.create(self.kind.description)
        return self._backend.snapshot()

    def _upgrade(self, snap: Snapshot) -> Snapshot:
        return upgrade_table(self._backend, snap)

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
        watch(self._backend)
        snap = self._backend.snapshot()
        self._backend.check(snap)
        return snap

    # ------------------------------------------------------------------ reads

    def _latest_rows(self, snap: Snapshot, heads: DataFrame) -> DataFrame:
        """Rows of each unit's latest generation, reading only partitions that still hold one
        (none for a unit left without rows)."""
        heads = heads.where(~F.coalesce(F.col("empty"), F.lit(False)))
        versions = [r[0] for r in heads.select(PARTITION_COLUMN).distinct().collect()]
        rows = self._backend.read(snap, commit_versions=versions)
        key = self.kind.key
        return rows.join(heads.select(key, "generation"), [key, "generation"], "left_semi")

    def exists(self) -> bool:
        """Whether the table exists (it is created by the first rebalance whose input is good).

        Example::

            AssignmentTable(spark, "/tmp/new-state").exists()    # False before the first rebalance
        """
        return self._backend.exists()

    def state(self, version: Optional[int] = None) -> TableState:
        """The table at its latest version, or at ``version``: the latest generation of every
        unit and every row, read at that one version (what SQL views over the table show).

        Example::

            now = table.state()
            now.version, now.latest.count(), now.rows.count()

        Parameters
        ----------
        version:
            A Delta version of the table, or None for the latest.
        """
        if version is not None:
            check_count(version, "version", maximum=None)
        snap = self._snapshot(version)
        return TableState(snap.version, self._latest_rows(snap, heads_at(self._backend, snap)),
                          self._backend.read(snap))

    def latest(self) -> DataFrame:
        """Every unit's latest generation (for an ``AssignmentTable`` one row per partition of
        every group, for a ``ReplicaTable`` one row per replica of every cluster).

        Example::

            table.latest().show()
        """
        snap = self._snapshot()
        return self._latest_rows(snap, heads_at(self._backend, snap))

    def _history(self, value: str, order: List[str]) -> DataFrame:
        """Every generation of the unit ``value``, oldest first, then by ``order``."""
        key = self.kind.key
        if not isinstance(value, str):
            raise InvalidInputError(f"{key} must be a string, got {type(value).__name__}", column=key)
        snap = self._snapshot()
        return self._backend.read(snap, key=value).orderBy("generation", *order)

    def at(self, generation: Optional[int] = None, version: Optional[int] = None) -> DataFrame:
        """The fleet at a generation, or at a Delta version (time travel).

        ``at(generation=g)``: each unit's latest generation not after ``g``;
        ``at(version=v)``: each unit's latest generation in table version ``v``.

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
        key = self.kind.key
        rows = self._backend.read(self._snapshot()).where(F.col("generation") <= cast(int, generation))
        latest = rows.groupBy(key).agg(F.max("generation").alias("generation"))
        return rows.join(latest, [key, "generation"], "left_semi")

    # ------------------------------------------------------------------ retention

    def prune(self, keep_generations: int) -> Optional[int]:
        """Delete every unit's generations but its last ``keep_generations``, in one Delta commit.

        The latest generation of every unit stays (it is the next
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
            Generations to keep per unit, at least 1.

        Returns
        -------
        int or None
            The version committed, or None when no unit had more generations.
        """
        if isinstance(keep_generations, bool) or not isinstance(keep_generations, int) or keep_generations < 1:
            raise InvalidInputError(f"keep_generations must be a positive integer, got {keep_generations!r}",
                                    column="keep_generations")
        snap = self._snapshot()
        heads = heads_at(self._backend, snap)
        cutoffs = heads.select(self.kind.key, (F.col("generation") - F.lit(keep_generations)).alias("cutoff")) \
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
        ``operation`` ``rebalance`` with its summary and strategy or method, or ``prune``; None
        for another tool's commit).

        Example::

            [v["spark_assign"]["operation"] for v in table.versions() if v["spark_assign"]]
        """
        return self._backend.history()

    def _snapshot(self, version: Optional[int] = None) -> Snapshot:
        if not self._backend.exists():
            raise InvalidInputError(f"no state table at {self.location}; run rebalance first", column="location")
        watch(self._backend)                    # a damaged file met by a read's action: StateTableError
        snap = self._backend.snapshot(version)
        self._backend.check(snap)
        return snap


class data_errors:
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

"""The delta-spark engine: the Delta connector in the session reads, writes and commits.

Public delta-spark calls: ``DeltaTable.createIfNotExists`` to create,
``spark.read.format("delta")`` with ``versionAsOf`` to read,
``DeltaTable.merge`` to prune, ``DeltaTable.vacuum``, and
``DeltaTable.history`` for versions and commit metadata.

Commits are compare-and-set (see :mod:`.backend`), two ways:

* **Delta's transaction, driven from the driver** (:mod:`.deltajvm`; tables
  given by path, classic sessions): exactly version N+1 or
  :class:`~spark_assign.errors.CommitConflict`, no Spark job of its own.
  When the table's folder is on this machine's filesystem (as Hadoop
  resolves the path), the driver also takes snapshots with delta-rs, reads
  the few changed groups' previous rows with pyarrow and writes their data
  file (:mod:`.files`), as the embedded engine does: an incremental
  rebalance then runs the same Spark jobs on both engines.
* **The public append** (Spark Connect, catalog tables, a delta-spark
  without the internals used): ``txnAppId``/``txnVersion``/``userMetadata``.
  Every writer uses the same application id and, as transaction version,
  the version it means to write; Delta fails concurrent writers of one
  application id (``ConcurrentTransactionException``) and silently skips a
  write whose transaction version is not above the recorded one, so after
  the write the commit is ours only if a recent commit carries this
  attempt's id in its ``userMetadata``. When a commit without an
  application transaction (a prune, ``VACUUM``'s logging, another tool)
  landed first, the append lands on a later version than N+1: it is kept,
  and reported with its version (its rows say ``commit_version = N+1``).

No session side effects: commit metadata of a MERGE or VACUUM can only come
from the session setting ``spark.databricks.delta.commitInfo.userMetadata``,
so prune and vacuum run in a child session (``spark.newSession()``: same
SparkContext, its own SQL settings), which also gets a file-listing
parallelism sized to the cluster (Delta's default is 10,000 tasks).

Catalog tables and paths are both supported (the path rule is
:func:`spark_assign.spark.delta.is_path`).
"""

from __future__ import annotations

import json
import time
import uuid
from contextlib import contextmanager
from typing import (TYPE_CHECKING, Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union,
                    cast)

import pyarrow as pa
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame

from ...errors import CommitConflict, StateTableError
from ...spark.delta import is_path
from ...spark.failures import describe
from ..backend import Snapshot, Staged, commit_entry
from .damage import damaged_log, log_error
from .deltajvm import DeltaCommitter, committer
from .files import (FileMeta, check_table, commit_info, read_units, remove_files, spark_assign_of, spark_only_features,
                    write_rows)
from ..layout import ASSIGNMENTS, FORMAT_VERSION, PARTITION_COLUMN, TableKind, arrow_schema, in_files, local_dir, local_path
from ..plan import Outcome, outcome_of

if TYPE_CHECKING:
    from deltalake import DeltaTable

__all__ = ["DeltaSparkBackend", "RECENT_COMMITS"]

#: Commits searched for this attempt's id after a write (others may commit right after it).
RECENT_COMMITS = 20
#: Delta's condition for a CREATE on a location another writer has begun to write (see ``create``).
_CREATING_ELSEWHERE = "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"
#: How long ``create`` waits for that writer's commit.
_CREATE_WAIT_SECONDS = 30.0
#: The session setting Delta copies into a commit's ``userMetadata``.
USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata"


def _conflicts() -> tuple:
    """delta-spark's commit-conflict exception types. Importing :mod:`delta.exceptions` also
    installs the conversion of the JVM's exceptions into them, so this runs before any write."""
    from delta import exceptions as e

    return (e.DeltaConcurrentModificationException, e.ConcurrentWriteException, e.MetadataChangedException,
            e.ProtocolChangedException, e.ConcurrentAppendException, e.ConcurrentDeleteReadException,
            e.ConcurrentDeleteDeleteException, e.ConcurrentTransactionException)


def _spark_assign_metadata(user_metadata: Optional[str]) -> Optional[Dict[str, Any]]:
    """The ``spark_assign`` entry of a commit's ``userMetadata`` JSON (None: not ours)."""
    return spark_assign_of({"userMetadata": user_metadata})


@contextmanager
def _restoring_active(spark) -> Iterator[None]:
    """After the block, the active session is again the one before it (cleared if there was
    none), in the JVM thread and in PySpark: Delta leaves the session its command ran in active,
    and ``createDataFrame`` makes its session PySpark's active one, which
    ``SparkSession.getActiveSession()`` then hands to anyone asking (the CLI does)."""
    from pyspark.sql import SparkSession

    sessions = spark.sparkContext._jvm.org.apache.spark.sql.SparkSession
    before, python_before = sessions.getActiveSession(), SparkSession._activeSession
    try:
        yield
    finally:
        SparkSession._activeSession = python_before       # PySpark keeps it here; no public setter
        if before.isDefined():
            sessions.setActiveSession(before.get())
        else:
            sessions.clearActiveSession()


def _local_folder(spark, location: str) -> Optional[str]:
    """``location`` as a folder of this machine when Hadoop resolves it to the local filesystem
    (a ``file:`` URI, or a path while ``fs.defaultFS`` is local), else None (HDFS, object stores)."""
    from py4j.protocol import Py4JError

    folder = local_dir(location)
    if folder is None:
        return None
    try:
        jvm = spark.sparkContext._jvm
        fs = jvm.org.apache.hadoop.fs.Path(location).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        return folder if fs.getScheme() == "file" else None
    except Py4JError:
        return None


class _Latest(NamedTuple):
    """A delta-spark snapshot's handle: the newest commit when it was taken (its version and
    ``userMetadata``), so the metadata of a recent version is found among few commits."""

    version: int
    user_metadata: Optional[str]


#: A delta-spark snapshot's handle: the newest commit (:class:`_Latest`), or delta-rs's ``DeltaTable``
#: for an older version of a local table, read by the driver.
SparkHandle = Union[_Latest, "DeltaTable"]
#: What delta-spark stages: files the driver wrote for a local table, or the DataFrame to write.
SparkFiles = Union[List[FileMeta], DataFrame]


class DeltaSparkBackend:
    """A state table of ``kind`` read and written through delta-spark."""

    engine = "delta-spark"

    def __init__(self, spark, location: str, kind: TableKind = ASSIGNMENTS) -> None:
        self.spark = spark
        self.kind = kind
        self.location = location
        self.by_path = is_path(location)
        self.conflicts = _conflicts()
        #: Delta's transaction driven from the driver (None: the public append commits).
        self.committer: Optional[DeltaCommitter] = committer(spark, location) if self.by_path else None
        #: The table's local folder when the driver reads and writes its files (see the module).
        self.folder = _local_folder(spark, location) if self.committer is not None else None
        self._driver_version: Optional[int] = None      # the last snapshot the driver can read the files of

    def _delta(self, spark=None):
        from delta.tables import DeltaTable

        spark = spark or self.spark
        return DeltaTable.forPath(spark, self.location) if self.by_path else DeltaTable.forName(spark, self.location)

    @property
    def driver_folder(self) -> Optional[str]:
        """None: whole-table reads go through Spark (the table may use features delta-rs lacks)."""
        return None

    @property
    def root(self) -> str:
        """The table's directory (heads live beside its log)."""
        if self.by_path:
            return self.location
        detail = self.spark.sql(f"DESCRIBE DETAIL {self.location}").select("location").first()
        return local_path(detail[0]) if detail[0].startswith("file:") else detail[0]

    def exists(self) -> bool:
        from delta.tables import DeltaTable

        if self.by_path:
            return DeltaTable.isDeltaTable(self.spark, self.location)
        return self.spark.catalog.tableExists(self.location)

    def create(self, description: str) -> None:
        from delta.exceptions import (ConcurrentWriteException, DeltaConcurrentModificationException,
                                      MetadataChangedException, ProtocolChangedException)
        from delta.tables import DeltaTable
        from pyspark.sql.pandas.types import from_arrow_schema

        builder = DeltaTable.createIfNotExists(self.spark)
        builder = builder.location(self.location) if self.by_path else builder.tableName(self.location)
        try:
            (builder.addColumns(from_arrow_schema(self.kind.arrow()))
                    .partitionedBy(PARTITION_COLUMN)
                    .comment(description)
                    .property("spark_assign.format", FORMAT_VERSION)
                    .execute())
        except (ProtocolChangedException, MetadataChangedException, ConcurrentWriteException,
                DeltaConcurrentModificationException):
            # Two writers creating the table at once (two streaming queries, two jobs): Delta
            # refuses the second CREATE's commit (ProtocolChangedException); the table is there.
            if not self.exists():
                raise
        except AnalysisException as e:
            # The same race a moment earlier: the other writer has begun writing the location,
            # not yet committed, and Delta refuses a CREATE on a non-empty location. Its commit
            # lands within moments; wait for it (told by Delta's condition, not the message).
            if e.getCondition() != _CREATING_ELSEWHERE or not self._appears(_CREATE_WAIT_SECONDS):
                raise

    def _appears(self, seconds: float) -> bool:
        """Whether the table exists within ``seconds`` (another writer is creating it)."""
        deadline = time.monotonic() + seconds
        while not self.exists():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        return True

    def _latest(self) -> _Latest:
        row = self._delta().history(1).select("version", "userMetadata").first()
        return _Latest(int(row[0]), row[1])

    def snapshot(self, version: Optional[int] = None) -> Snapshot[SparkHandle]:
        """The latest version, or ``version``: from delta-rs when the driver reads the table's
        files (no Spark job), else from the newest commit in Delta's history (one job)."""
        local = self._local_snapshot(version)
        self._driver_version = None if local is None else local.version
        if local is not None:
            return local
        try:
            latest = self._latest()
        except Exception as e:  # noqa: BLE001 - kept unless the log is damaged (told by its files or Delta's condition)
            raise self._damaged(e) from None
        if version is not None and not 0 <= version <= latest.version:
            raise StateTableError(f"cannot read the state table {self.location} at version {version}: "
                                  f"its versions are 0 to {latest.version}")
        return Snapshot(latest.version if version is None else version, latest)

    def _local_snapshot(self, version: Optional[int]) -> Optional[Snapshot]:
        """A delta-rs snapshot of the local table, or None: not local, or a table whose files the
        driver cannot read as plain Parquet (deletion vectors, column mapping, features delta-rs
        lacks), which Spark reads instead."""
        if self.folder is None:
            return None
        from deltalake import DeltaTable
        from deltalake.exceptions import DeltaError

        try:
            dt = DeltaTable(self.folder)
        except DeltaError:
            return None
        if version is not None:
            if not 0 <= version <= dt.version():
                raise StateTableError(f"cannot read the state table {self.location} at version {version}: "
                                      f"its versions are 0 to {dt.version()}")
            try:
                dt.load_as_version(version)
            except DeltaError:          # e.g. its log entries are cleaned up: Spark may still read it
                return None
        return None if spark_only_features(dt) else Snapshot(dt.version(), dt)

    def _damaged(self, error: Exception) -> Exception:
        """The :class:`StateTableError` for a log Delta could not read: when the log's files show
        the damage (a local table), or Delta names it with one of its conditions (``DELTA_*``);
        else ``error`` itself."""
        condition = describe(error).condition
        try:
            root = self.root
        except Exception:  # noqa: BLE001 - a catalog table whose location cannot be read
            return error
        if damaged_log(root) is not None or (condition or "").startswith("DELTA_"):
            return log_error(root, error, "delta-spark", condition=condition)
        return error

    def check(self, snap: Snapshot[SparkHandle]) -> None:
        if not isinstance(snap.handle, _Latest):
            check_table(snap.handle, self.location, self.kind)
            return
        actual = {f.name: f.dataType.simpleString() for f in self._load(snap.version).schema.fields}
        expected = dict(self.kind.columns)
        bad = sorted(n for n, t in expected.items() if actual.get(n) != t
                     and not (n in self.kind.added_columns and n not in actual))   # an older format lacks those
        if bad:
            raise StateTableError(f"{self.location} is not a spark-assign state table of {self.kind.name}: "
                                  f"columns {bad} are missing or mistyped; expected {self.kind.ddl()}")

    def missing_columns(self, snap: Snapshot[SparkHandle]) -> List[Tuple[str, str]]:
        return self.kind.missing(self._load(snap.version).columns)

    def upgrade(self, snap: Snapshot[SparkHandle], metadata: Dict[str, object]) -> None:
        """``ALTER TABLE ADD COLUMNS`` in a child session carrying ``metadata`` (a commit's
        ``userMetadata`` can only come from a session setting)."""
        missing = self.missing_columns(snap)
        target = f"delta.`{self.location.replace('`', '``')}`" if self.by_path else self.location
        try:
            with self._child_session(json.dumps({**metadata, "attempt": uuid.uuid4().hex})) as child:
                child.sql(f"ALTER TABLE {target} ADD COLUMNS ({', '.join(f'`{n}` {t}' for n, t in missing)})")
        except self.conflicts as e:
            raise CommitConflict(f"upgrade: {type(e).__name__}") from e

    def _load(self, version: int):
        reader = self.spark.read.format("delta").option("versionAsOf", version)
        return reader.load(self.location) if self.by_path else reader.table(self.location)

    # ------------------------------------------------------------------ reads

    def read(self, snap: Snapshot[SparkHandle], commit_versions: Optional[Sequence[int]] = None, key: Optional[str] = None):
        from pyspark.sql import functions as F

        rows = self.kind.complete(self._load(snap.version))
        if commit_versions is not None:
            rows = rows.where(F.col(PARTITION_COLUMN).isin([int(v) for v in commit_versions]))
        if key is not None:
            rows = rows.where(F.col(self.kind.key) == key)
        return rows

    def read_arrow(self, snap: Snapshot[SparkHandle], commit_versions: Sequence[int], keys: Sequence[str],
                   columns: Sequence[str]) -> pa.Table:
        """The units' rows in the ``commit_version`` partitions, read by the driver with pyarrow
        (a delta-rs snapshot: no Spark job), else collected as Arrow (one scan)."""
        from pyspark.sql import functions as F

        if not isinstance(snap.handle, _Latest):
            return read_units(snap.handle, cast(str, self.folder), commit_versions, keys, columns, self.kind)

        rows = self.read(snap, commit_versions).where(F.col(self.kind.key).isin(list(keys)))
        types = dict(self.kind.columns)
        return rows.select(*columns).toArrow().cast(arrow_schema([(c, types[c]) for c in columns]))

    # ------------------------------------------------------------------ writes

    def stage(self, rows, version: int, num_files: int) -> Staged[SparkFiles]:
        """Nothing to write ahead: delta-spark writes and commits in one step. Stages the
        DataFrame to write and its :class:`~.plan.Outcome` (one job over the computed rows)."""
        return Staged(version, in_files(rows, num_files, self.kind), outcome_of(rows, self.kind))

    def stage_arrow(self, rows: pa.Table, version: int) -> Staged[SparkFiles]:
        """Rows computed on the driver (an Arrow table), as one file: written by the driver when
        it reads and writes the table's files (the version after a snapshot it took), else
        staged as a DataFrame; the outcome is counted on the driver."""
        if self.folder is not None and self._driver_version == version - 1:
            written = write_rows(self.folder, version, rows, self.kind)
            return Staged(written.version, written.files, written.outcome)
        outcome = Outcome.of(self.kind)
        outcome.add_arrow(rows, self.kind)
        return Staged(version, in_files(self.spark.createDataFrame(rows, schema=self.kind.ddl()), 1, self.kind), outcome)

    def commit(self, snap: Snapshot[SparkHandle], staged: Staged[SparkFiles], app_id: str, metadata: Dict[str, object],
               transactions: Sequence[Tuple[str, int]] = ()) -> int:
        """Commit the staged rows (driver-written files or a DataFrame) as version ``snap + 1``
        with a transaction ``(app_id, version)`` and ``transactions``: through Delta's
        transaction when the session can drive it, else with the public append (see the
        module), which records one application transaction only: more are refused."""
        if staged.version != snap.version + 1:
            raise ValueError("a commit must follow its snapshot")
        attempt = uuid.uuid4().hex
        user_metadata = json.dumps({**metadata, "attempt": attempt})
        if self.committer is not None:
            files = staged.files if isinstance(staged.files, list) else None
            return self.committer.commit(snap.version, files, None if files is not None else staged.files,
                                         app_id, user_metadata, transactions)
        if transactions:
            raise self._no_transactions()
        # Without the committer there is no local folder (see __init__), so stage_arrow wrote no files:
        # the staged files are a DataFrame.
        writer = (cast(DataFrame, staged.files).write.format("delta").mode("append").option("txnAppId", app_id)
                  .option("txnVersion", staged.version).option("userMetadata", user_metadata))
        try:
            writer.save(self.location) if self.by_path else writer.saveAsTable(self.location)
        except self.conflicts as e:
            raise CommitConflict(f"version {staged.version}: {type(e).__name__}") from e
        # A second write of a transaction version is skipped without an error: the commit is ours
        # iff one carries this attempt's id (others may commit right after it).
        recent = self._delta().history(RECENT_COMMITS).select("version", "userMetadata").collect()
        landed = [int(r["version"]) for r in recent if attempt in (r["userMetadata"] or "")]
        if not landed:
            raise CommitConflict(f"version {staged.version} was written by another rebalance")
        return landed[0]

    def transaction_version(self, snap: Snapshot[SparkHandle], app_id: str) -> Optional[int]:
        """The record of ``app_id``: from delta-rs for a table the driver reads (no Spark job),
        else from Delta's snapshot (Spark jobs: it aggregates the log's state). Refused where a
        commit could not record one (the public append): a rebalance asking is refused before
        it writes anything."""
        if self.committer is None:
            raise self._no_transactions()
        if not isinstance(snap.handle, _Latest):           # delta-rs's DeltaTable of a local table
            return snap.handle.transaction_version(app_id)
        return self.committer.transaction_version(app_id)

    def _no_transactions(self) -> StateTableError:
        return StateTableError(
            f"{self.location}: recording an application transaction beside the rebalance's own needs "
            "delta-spark's transaction API, which this session cannot drive (Spark Connect, or a catalog "
            "table): give the table by path in a classic session, or use the embedded engine")

    def discard(self, staged: Staged[SparkFiles]) -> None:
        """Delete the files the driver wrote for a commit that did not land (best effort)."""
        if isinstance(staged.files, list) and self.folder is not None:
            remove_files(self.folder, staged.files)

    # ------------------------------------------------------------------ retention

    @contextmanager
    def _child_session(self, user_metadata: str) -> Iterator[Any]:
        """A session sharing this one's SparkContext, with its own settings: this commit's
        metadata, vacuum logging on (its commits in the history), and a listing parallelism for this cluster.

        Delta leaves the session its command ran in as the JVM thread's active one, and reads a
        commit's ``userMetadata`` from the active session: left there, the child would stamp this
        commit's metadata on the user's next Delta commit. The active session, the JVM thread's
        and PySpark's, is restored when the block ends (:func:`_restoring_active`)."""
        child = self.spark.newSession()
        child.conf.set(USER_METADATA, user_metadata)
        child.conf.set("spark.databricks.delta.vacuum.logging.enabled", "true")
        parallelism = max(8, 4 * self.spark.sparkContext.defaultParallelism)
        child.conf.set("spark.sql.sources.parallelPartitionDiscovery.parallelism", str(parallelism))
        with _restoring_active(self.spark):
            yield child

    def delete_before(self, snap: Snapshot[SparkHandle], cutoffs, metadata: Dict[str, object]) -> Optional[int]:
        """``MERGE ... WHEN MATCHED THEN DELETE`` of rows with ``generation <= cutoff`` of their
        unit (the cutoffs, one small row per unit, collected first)."""
        source = cutoffs.toArrow()
        if source.num_rows == 0:
            return None
        attempt = uuid.uuid4().hex
        try:
            with self._child_session(json.dumps({**metadata, "attempt": attempt})) as child:
                (self._delta(child).alias("t")
                     .merge(child.createDataFrame(source).alias("s"),
                            f"t.{self.kind.key} = s.{self.kind.key} AND t.generation <= s.cutoff")
                     .whenMatchedDelete().execute())
        except self.conflicts as e:
            raise CommitConflict(f"prune: {type(e).__name__}") from e
        for r in self._delta().history(RECENT_COMMITS).select("version", "userMetadata").collect():
            if attempt in (r["userMetadata"] or ""):
                return int(r["version"])
        return None                                     # nothing matched: Delta commits no MERGE

    def vacuum(self, retention_hours: int) -> int:
        """``VACUUM`` (its retention check stays on); the number of data files it deletes.

        Delta's own count (``numDeletedFiles`` of its ``VACUUM END`` commit) includes the
        partition directories it removes once empty, so the data files are counted from a
        ``DRY RUN`` listing first, then the same ``VACUUM`` runs."""
        target = f"delta.`{self.location.replace('`', '``')}`" if self.by_path else self.location
        with self._child_session(json.dumps({"spark_assign": {"operation": "vacuum"}})) as child:
            listed = child.sql(f"VACUUM {target} RETAIN {int(retention_hours)} HOURS DRY RUN")
            files = listed.where(listed.path.endswith(".parquet")).count()
            self._delta(child).vacuum(float(retention_hours))
        return files

    # ------------------------------------------------------------------ history

    def commit_metadata(self, snap: Snapshot[SparkHandle], version: int) -> Optional[Dict[str, Any]]:
        """The ``spark_assign`` metadata of the commit of ``version``: the snapshot's newest commit
        needs no lookup; others are looked up among the commits since ``version`` (as many as
        were made when ``snap`` was taken), else in the whole history."""
        if not isinstance(snap.handle, _Latest):            # the log entry, read by the driver
            return spark_assign_of(commit_info(cast(str, self.folder), version))
        latest: _Latest = snap.handle
        if version == latest.version:
            return _spark_assign_metadata(latest.user_metadata)
        for limit in (max(latest.version - version + 1, 1), None):
            for r in self._delta().history(limit).select("version", "userMetadata").collect():
                if r["version"] == version:
                    return _spark_assign_metadata(r["userMetadata"])
        return None

    def history(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The table's commits, newest first (see :func:`~.backend.commit_entry`)."""
        rows = self._delta().history(limit).select("version", "timestamp", "operation", "userMetadata").collect()
        return [commit_entry(r["version"], int(r["timestamp"].timestamp() * 1000) if r["timestamp"] else None,
                             r["operation"], _spark_assign_metadata(r["userMetadata"])) for r in rows]

"""The embedded Delta engine: delta-rs commits, Spark reads and writes the data.

Used when the session has no delta-spark. Spark tasks write the parquet files
(pyarrow, one file per task, rows range-partitioned by group); only file
metadata reaches the driver, which commits them all in one delta-rs
transaction. Reads give Spark the snapshot's file list (``file_uris``) with
an explicit schema; nothing is collected.

Commits are compare-and-set: ``max_commit_retries=0`` makes delta-rs write
exactly version N+1 of the snapshot it was given or raise (it creates the log
entry atomically, if absent), and the application transaction recorded with
it lets any writer, delta-spark included, see that N+1 is taken.

On a cluster (any master but ``local``) the executors must see the driver's
folder: Spark tasks write and read the data files there, the driver the log.
Before its first write or read, the engine checks this once (a marker file
the driver writes, then looks for from :data:`PROBE_TASKS` tasks, then
removes) and refuses with :class:`~spark_assign.errors.StateTableError`,
leaving nothing behind, where the executors do not see it: such a cluster
needs delta-spark, which writes through Hadoop's filesystems.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

from ...types import DELTA_PRIMITIVES
from ...errors import CommitConflict, InvalidInputError, StateTableError
from ..backend import Snapshot, Staged, commit_entry
from .damage import log_error
from .files import (FILE_META_DDL, FileMeta, check_table, commit_info, data_files, read_units, remove_files, spark_assign_of,
                    spark_only_features, staged_files, write_rows, write_task)
from ..layout import ASSIGNMENTS, FORMAT_VERSION, PARTITION_COLUMN, TableKind, in_files, local_path

if TYPE_CHECKING:
    from deltalake import DeltaTable

__all__ = ["EmbeddedBackend"]

#: Tasks that look for the driver's marker file: enough to reach every executor of a small cluster.
PROBE_TASKS = 16


def executors_see(spark, path: str) -> bool:
    """Whether ``path`` exists for the Python workers of :data:`PROBE_TASKS` Spark tasks (one job;
    DataFrame API, so Spark Connect too)."""
    def look(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield pa.RecordBatch.from_pydict({"seen": [os.path.exists(path)] * batch.num_rows})

    seen = spark.range(0, PROBE_TASKS, 1, PROBE_TASKS).mapInArrow(look, "seen boolean").toArrow()
    return bool(pc.all(seen.column("seen")).as_py())


class EmbeddedBackend:
    """A state table of ``kind`` at a filesystem path, committed with delta-rs (a :class:`~.backend.StateBackend`)."""

    engine = "embedded"

    def __init__(self, spark, path: str, kind: TableKind = ASSIGNMENTS) -> None:
        self.spark = spark
        self.kind = kind
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]+):", path)
        if scheme and scheme.group(1).lower() != "file" and not os.path.exists(path):
            raise InvalidInputError(
                f"the embedded Delta engine writes local paths only, got {path!r}: use a local path, or a "
                "session with delta-spark (the io.delta classes) for other filesystems", column="location")
        self.root = local_path(path)
        self._shared = False        # True once executors are known to see self.root

    def _check_executors_share_root(self) -> None:
        """Refuse, before anything is written, a cluster whose executors do not see the table's
        folder (a ``local`` master shares the driver's filesystem, and without a session only
        this process writes: no check)."""
        if self._shared or self.spark is None or str(self.spark.conf.get("spark.master", "local")).startswith("local"):
            return
        created = not os.path.exists(self.root)
        os.makedirs(self.root, exist_ok=True)
        marker = os.path.join(self.root, f".spark-assign-probe-{uuid.uuid4().hex}")
        open(marker, "w").close()
        try:
            seen = executors_see(self.spark, marker)
        finally:
            os.remove(marker)
            if created and not seen:
                os.rmdir(self.root)
        if not seen:
            raise StateTableError(
                f"the executors of this cluster do not see {self.root}, where the embedded Delta engine writes "
                "the state table: use a folder every node mounts, or a session with delta-spark")
        self._shared = True

    # ------------------------------------------------------------------ table

    @property
    def driver_folder(self) -> Optional[str]:
        """The table's folder: delta-rs reads it on the driver."""
        return self.root

    def exists(self) -> bool:
        from deltalake import DeltaTable

        return os.path.isdir(self.root) and DeltaTable.is_deltatable(self.root)

    def create(self, description: str) -> None:
        from deltalake import DeltaTable
        from deltalake.exceptions import DeltaError

        self._check_executors_share_root()
        try:
            DeltaTable.create(
                self.root, self.kind.arrow(), partition_by=[PARTITION_COLUMN], name=os.path.basename(self.root),
                description=description, raise_if_key_not_exists=False,
                configuration={"spark_assign.format": FORMAT_VERSION})
        except DeltaError as e:
            if not self.exists():                  # another writer may have created it first
                raise StateTableError(f"cannot create the state table at {self.root}: {e}") from e

    def snapshot(self, version: Optional[int] = None) -> Snapshot["DeltaTable"]:
        from deltalake import DeltaTable
        from deltalake.exceptions import DeltaError

        try:
            dt = DeltaTable(self.root)
            if version is not None:
                dt.load_as_version(version)
        except DeltaError as e:
            raise log_error(self.root, e, "delta-rs", version) from None     # one plain sentence, no Rust dump
        return Snapshot(dt.version(), dt)

    def check(self, snap: Snapshot["DeltaTable"]) -> None:
        """Refuse foreign schemas and protocols that raw parquet reads would get wrong."""
        check_table(snap.handle, self.root, self.kind)
        unsupported = spark_only_features(snap.handle)
        if unsupported:
            raise StateTableError(f"{self.root} uses Delta features the embedded engine cannot read: "
                                  f"{unsupported}; open it with delta-spark")

    def missing_columns(self, snap: Snapshot["DeltaTable"]) -> List[Tuple[str, str]]:
        return self.kind.missing(f.name for f in pa.schema(snap.handle.schema().to_arrow()))

    def upgrade(self, snap: Snapshot["DeltaTable"], metadata: Dict[str, object]) -> None:
        """``ALTER TABLE ADD COLUMNS`` through delta-rs, as exactly version ``snap + 1``."""
        from deltalake import CommitProperties
        from deltalake.exceptions import CommitFailedError
        from deltalake.schema import Field, PrimitiveType

        fields = [Field(name, PrimitiveType(DELTA_PRIMITIVES[kind]), nullable=True)
                  for name, kind in self.missing_columns(snap)]
        props = CommitProperties(max_commit_retries=0, custom_metadata={
            k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()})
        try:
            snap.handle.alter.add_columns(fields, commit_properties=props)
        except CommitFailedError as e:
            raise CommitConflict(str(e)) from e

    # ------------------------------------------------------------------ reads

    def read(self, snap: Snapshot["DeltaTable"], commit_versions: Optional[Sequence[int]] = None,
             key: Optional[str] = None):
        """Rows of snapshot ``snap`` as a Spark DataFrame: all of them, those of some
        ``commit_version`` partitions, or (pruned by file statistics) one unit's."""
        self._check_executors_share_root()
        uris = data_files(snap.handle, self.root, commit_versions, key, self.kind)
        ddl = self.kind.ddl()
        if not uris:
            rows = self.spark.createDataFrame([], ddl)
        else:
            rows = self.spark.read.schema(ddl).option("basePath", self.root).parquet(*uris).select(*self.kind.names)
        return rows if key is None else rows.where(rows[self.kind.key] == key)

    def read_arrow(self, snap: Snapshot["DeltaTable"], commit_versions: Sequence[int], keys: Sequence[str],
                   columns: Sequence[str]) -> pa.Table:
        """``columns`` of the rows of the units ``keys`` in some ``commit_version`` partitions,
        read by the driver with pyarrow (no Spark job): for the few units of a small rebalance."""
        return read_units(snap.handle, self.root, commit_versions, keys, columns, self.kind)

    # ------------------------------------------------------------------ writes

    def stage(self, rows, version: int, num_files: int) -> Staged[List[FileMeta]]:
        """Write ``rows`` as data files of ``commit_version=version`` from Spark tasks (one job);
        the tasks also report what the files hold (:class:`~.plan.Outcome`)."""
        self._check_executors_share_root()
        tag = uuid.uuid4().hex[:8]
        writer = write_task(self.root, version, tag, self.kind)
        metas = in_files(rows, num_files, self.kind).mapInArrow(writer, FILE_META_DDL).collect()
        return staged_files(version, [m.asDict() for m in metas], self.kind)

    def stage_arrow(self, rows: pa.Table, version: int) -> Staged[List[FileMeta]]:
        """Write ``rows`` (computed on the driver) as one data file of ``commit_version=version``,
        from the driver, with the same writer as :meth:`stage`'s tasks."""
        return write_rows(self.root, version, rows, self.kind)

    def commit(self, snap: Snapshot["DeltaTable"], staged: Staged[List[FileMeta]], app_id: str, metadata: Dict[str, object],
               transactions: Sequence[Tuple[str, int]] = ()) -> int:
        """Commit the staged files as exactly ``snap.version + 1``, or raise :class:`CommitConflict`;
        with ``transactions`` as delta-rs's application transactions of the same commit."""
        from deltalake import CommitProperties, Transaction
        from deltalake.exceptions import CommitFailedError
        from deltalake.transaction import AddAction, RemoveAction

        dt = snap.handle
        version = staged.version
        if version != snap.version + 1:
            raise ValueError("a commit must follow its snapshot")
        taken = dt.transaction_version(app_id)
        if taken is not None and taken >= version:
            raise CommitConflict(f"version {version} was already written by another rebalance")
        adds: List[Union[AddAction, RemoveAction]] = [
            AddAction(path=f["path"], size=int(f["size"]), partition_values={PARTITION_COLUMN: str(version)},
                      modification_time=int(f["mtime"]), data_change=True, stats=f["stats"]) for f in staged.files]
        now = int(time.time() * 1000)
        props = CommitProperties(
            max_commit_retries=0,
            custom_metadata={k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()},
            app_transactions=[Transaction(app, v, now) for app, v in [(app_id, version), *transactions]])
        try:
            dt.create_write_transaction(adds, "append", pa.schema(dt.schema().to_arrow()),   # its own order
                                        partition_by=[PARTITION_COLUMN], commit_properties=props)
        except CommitFailedError as e:
            raise CommitConflict(str(e)) from e
        return version

    def transaction_version(self, snap: Snapshot["DeltaTable"], app_id: str) -> Optional[int]:
        """delta-rs's record of ``app_id`` at ``snap`` (read from the snapshot's log: no Spark job)."""
        return snap.handle.transaction_version(app_id)

    def discard(self, staged: Staged[List[FileMeta]]) -> None:
        """Delete files of an attempt that was not committed (best effort)."""
        remove_files(self.root, staged.files)

    def delete_before(self, snap: Snapshot["DeltaTable"], cutoffs, metadata: Dict[str, object]) -> Optional[int]:
        """Delete rows with ``generation <= cutoff`` of their unit, as version ``snap + 1`` exactly.

        ``cutoffs`` is a Spark DataFrame (the kind's key, ``cutoff``): one small row
        per unit to prune, brought to the driver as Arrow for delta-rs's
        MERGE, which rewrites the affected files within their partitions.
        """
        from deltalake import CommitProperties
        from deltalake.exceptions import CommitFailedError

        source = cutoffs.toArrow()
        if source.num_rows == 0:
            return None
        props = CommitProperties(max_commit_retries=0, custom_metadata={
            k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()})
        dt = snap.handle
        try:
            key = self.kind.key
            (dt.merge(source, predicate=f"t.{key} = s.{key} AND t.generation <= s.cutoff",
                      source_alias="s", target_alias="t", commit_properties=props)
               .when_matched_delete().execute())
        except CommitFailedError as e:
            raise CommitConflict(str(e)) from e
        return dt.version()

    def vacuum(self, retention_hours: int) -> int:
        """Delta VACUUM through delta-rs; the number of files deleted.

        delta-rs lists every expired tombstone, deleted by an earlier vacuum or
        not, so the count is of the listed files that existed just before."""
        from deltalake import DeltaTable

        # Delta's safety check stays on: files of a rebalance still being staged
        # are not in the log yet, and a shorter retention could delete them.
        listed = DeltaTable(self.root).vacuum(retention_hours=retention_hours, dry_run=True,
                                              enforce_retention_duration=True)
        present = {os.path.join(self.root, f) for f in listed if os.path.exists(os.path.join(self.root, f))}
        DeltaTable(self.root).vacuum(retention_hours=retention_hours, dry_run=False, enforce_retention_duration=True)
        return sum(1 for f in present if not os.path.exists(f))

    def commit_metadata(self, snap: Snapshot["DeltaTable"], version: int) -> Optional[dict]:
        """The ``spark_assign`` metadata of the commit of ``version``, or None.

        Read from that version's log entry (one small JSON file); None when the
        commit is not ours or its entry was cleaned up after a checkpoint.
        """
        return spark_assign_of(commit_info(self.root, version))

    def history(self, limit: Optional[int] = None) -> List[dict]:
        """The table's commits, newest first (see :func:`~.backend.commit_entry`)."""
        entries = []
        for info in self.snapshot().handle.history(limit):
            entries.append(commit_entry(info.get("version", 0), info.get("timestamp"), info.get("operation"),
                                        spark_assign_of(info)))
        return entries

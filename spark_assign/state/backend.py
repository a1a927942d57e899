"""The state backend contract: what the state tables (:class:`~spark_assign.AssignmentTable`,
:class:`~spark_assign.ReplicaTable`) need from a Delta engine.

Two engines implement it completely (:func:`spark_assign.state.backends.backend_for` picks one):

* :class:`~.backends.embedded.EmbeddedBackend` (``"embedded"``): Spark tasks write the
  Parquet files, delta-rs commits them from the driver;
* :class:`~.backends.deltaspark.DeltaSparkBackend` (``"delta-spark"``): the Delta
  connector in the session reads, writes and commits.

A backend serves one table of one kind (:class:`~.layout.TableKind`: its
columns, key and statuses). The table logic (plan, compute, stage, heads,
commit, see :mod:`.generation_table`) talks to a backend only through :class:`StateBackend`, so a guarantee proven
for one engine by the contract suite (``tests/state``) is the same code path
on the other. The rules every implementation keeps:

* **Compare-and-set.** :meth:`StateBackend.commit` writes exactly version
  ``snap.version + 1`` or raises :class:`~spark_assign.errors.CommitConflict`;
  of two writers that read the same version, at most one lands. Both engines
  record an application transaction (``app_id``, version) with the commit, so
  each sees the other's claim on a version (the id is the same for every
  writer: Delta keeps application transactions per table).
* **Nothing visible before the commit.** :meth:`StateBackend.stage` may write
  files, but only into the version's own partition directory and under new
  names; readers see them only once the commit names them.
  :meth:`StateBackend.discard` deletes them (best effort; ``vacuum`` gets any
  left by a crash).
* **Conflicts by type.** Commit races are recognised by the engine's
  exception types (delta-rs's ``CommitFailedError``, delta-spark's
  ``Concurrent*Exception`` family), never by message text.
* **No session side effects.** A backend changes no session-wide setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Generic, List, Optional, Protocol, Sequence, Tuple, TypeVar, runtime_checkable

import pyarrow as pa
from pyspark.sql import DataFrame

from .layout import TableKind
from .plan import Outcome

__all__ = ["Snapshot", "Staged", "StateBackend", "ENGINES", "commit_entry", "Handle", "Files"]

#: The engine names ``AssignmentTable(engine=...)`` accepts.
ENGINES = ("embedded", "delta-spark")


def commit_entry(version: int, timestamp_ms: Optional[int], operation: Optional[str],
                 spark_assign: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """One commit of a table's history, the same on both engines: its ``version``, ``timestamp``
    (milliseconds since the epoch, UTC), Delta ``operation`` (``WRITE``, ``MERGE``, ...) and
    ``spark_assign``, the metadata spark-assign wrote with it (None for another tool's commit)."""
    return {"version": int(version), "timestamp": timestamp_ms, "operation": operation, "spark_assign": spark_assign}


#: What an engine keeps to read a version again (each engine names its own type).
Handle = TypeVar("Handle")
#: What an engine stages for a commit (each engine names its own type).
Files = TypeVar("Files")


@dataclass(frozen=True)
class Snapshot(Generic[Handle]):
    """One version of a state table.

    ``version``: the Delta version; ``handle``: what the engine needs to read this version
    again, of the engine's own type (embedded: delta-rs's ``DeltaTable``; delta-spark: the
    newest commit when the snapshot was taken, or a ``DeltaTable`` for an older local version).
    Only the engine that made a snapshot looks inside its handle.
    """

    version: int
    handle: Handle


@dataclass
class Staged(Generic[Files]):
    """A generation ready to commit as ``version``.

    ``files``: of the engine's own type, what it wrote ahead of the commit (embedded: the data
    files' metadata) or what it will write in the commit (delta-spark: the DataFrame of rows);
    ``outcome``: what the rows hold per group, and the counts per status, for the heads and the
    summary.
    """

    version: int
    files: Files
    outcome: Outcome


@runtime_checkable
class StateBackend(Protocol[Handle, Files]):
    """A Delta engine for state tables, with its snapshot ``Handle`` and staged ``Files`` types.
    Every method is required; see the module's rules. The table logic holds a
    ``StateBackend[Any, Any]``: it passes snapshots and staged generations back to the engine
    that made them and never looks inside."""

    #: ``"embedded"`` or ``"delta-spark"``.
    engine: str
    #: The session reads and jobs run in.
    spark: Any
    #: What the table holds: its columns, key (``group_id``, ``cluster_id``) and statuses.
    kind: TableKind

    @property
    def root(self) -> str:
        """The table's directory: a local path or a URI (heads live beside its ``_delta_log``)."""
        ...

    @property
    def driver_folder(self) -> Optional[str]:
        """The folder the driver reads the whole table from with delta-rs, without Spark (embedded:
        the table's folder), or None when the table is read through Spark (delta-spark)."""
        ...

    def exists(self) -> bool:
        """Whether a Delta table is there (an empty or missing directory is not one)."""
        ...

    def create(self, description: str) -> None:
        """Create the empty table (version 0) with the state schema, unless another writer just did."""
        ...

    def snapshot(self, version: Optional[int] = None) -> Snapshot[Handle]:
        """The latest version, or ``version``; :class:`~spark_assign.errors.StateTableError` when unreadable."""
        ...

    def check(self, snap: Snapshot[Handle]) -> None:
        """Raise :class:`~spark_assign.errors.StateTableError` unless ``snap`` is a state table this engine can use."""
        ...

    def missing_columns(self, snap: Snapshot[Handle]) -> List[Tuple[str, str]]:
        """The columns (name, type) of the kind's ``added_columns`` the table lacks at ``snap``
        (an older format, see :mod:`.layout`); none for a table of the current format."""
        ...

    def upgrade(self, snap: Snapshot[Handle], metadata: Dict[str, object]) -> None:
        """Add :meth:`missing_columns` (nullable; old rows read them as null) in one commit with
        ``metadata``, or raise :class:`~spark_assign.errors.CommitConflict` when another writer
        committed first (it may have upgraded the table itself)."""
        ...

    def read(self, snap: Snapshot[Handle], commit_versions: Optional[Sequence[int]] = None,
             key: Optional[str] = None) -> DataFrame:
        """Rows of ``snap``, as a DataFrame of the table's columns: all, those in some
        ``commit_version`` partitions, or one unit's (``key``: a group or cluster id). Lazy: no job."""
        ...

    def read_arrow(self, snap: Snapshot[Handle], commit_versions: Sequence[int], keys: Sequence[str],
                   columns: Sequence[str]) -> pa.Table:
        """``columns`` of the units ``keys`` in some ``commit_version`` partitions, on the
        driver: for the few units of a small rebalance."""
        ...

    def stage(self, rows: DataFrame, version: int, num_files: int) -> Staged[Files]:
        """Make ``rows`` (computed by Spark) ready to commit as ``version``, in ``num_files`` files."""
        ...

    def stage_arrow(self, rows: pa.Table, version: int) -> Staged[Files]:
        """:meth:`stage` for rows computed on the driver."""
        ...

    def commit(self, snap: Snapshot[Handle], staged: Staged[Files], app_id: str, metadata: Dict[str, object],
               transactions: Sequence[Tuple[str, int]] = ()) -> int:
        """Commit ``staged`` as exactly ``snap.version + 1`` with ``metadata`` in the commit's
        info, or raise :class:`~spark_assign.errors.CommitConflict` (nothing committed); the
        version committed (later than ``snap.version + 1`` only on delta-spark's public-append
        path, see :mod:`.deltaspark`). ``transactions``: more ``(application id, version)``
        pairs recorded in the same commit (Delta's ``txn`` actions), read back by
        :meth:`transaction_version`; :class:`~spark_assign.errors.StateTableError` where the
        engine cannot record them."""
        ...

    def transaction_version(self, snap: Snapshot[Handle], app_id: str) -> Optional[int]:
        """The version Delta's latest ``txn`` action for ``app_id`` recorded up to ``snap``, or
        None; :class:`~spark_assign.errors.StateTableError` where the engine cannot read them."""
        ...

    def discard(self, staged: Staged[Files]) -> None:
        """Delete what :meth:`stage` wrote for a commit that did not land (best effort)."""
        ...

    def delete_before(self, snap: Snapshot[Handle], cutoffs: DataFrame, metadata: Dict[str, object]) -> Optional[int]:
        """Delete rows with ``generation <= cutoff`` of their unit (``cutoffs``: the kind's key
        and ``cutoff``) in one commit; its version, or None when nothing matched."""
        ...

    def vacuum(self, retention_hours: int) -> int:
        """Delta ``VACUUM`` with the retention check on; the number of files deleted."""
        ...

    def commit_metadata(self, snap: Snapshot[Handle], version: int) -> Optional[Dict[str, Any]]:
        """The ``spark_assign`` metadata of the commit of ``version`` (at most ``snap.version``),
        or None (not ours, or gone)."""
        ...

    def history(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The table's commits, newest first: one :func:`commit_entry` each."""
        ...

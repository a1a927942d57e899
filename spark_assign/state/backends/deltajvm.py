"""delta-spark's own transaction, driven from the driver: a commit at exactly one version.

Why not delta-spark's public writes: none of them commits "version N+1, or
nothing" without replaying the table's log in Spark jobs.

* A plain append is a blind append: when another commit took N+1 first,
  Delta finds no conflict and commits at N+2, so two rebalances that read
  the same version would both land.
* The idempotent-write options (``txnAppId``/``txnVersion``) stop a second
  rebalance for the same version, but ``OptimisticTransaction.txnVersion``
  reads ``Snapshot.transactions``, which aggregates the snapshot's whole
  state: three Spark jobs per commit in delta-spark 4.4 ("Compute snapshot
  for version N"). And after a commit without an application transaction
  (a prune's ``MERGE``, ``VACUUM``'s logging commits, another tool's write)
  the append still lands at N+2, holding rows labelled ``commit_version =
  N+1``.

So, for tables given by path in a classic session, :class:`DeltaCommitter`
runs Delta's transaction itself, through py4j:

1. ``DeltaLog.forTable(session, path).startTransaction(None, None)``: the
   latest snapshot, which must be the version the rebalance read (else
   :class:`~spark_assign.errors.CommitConflict`, nothing written);
2. the data: files the driver wrote (their ``add`` actions parsed from the
   Delta protocol's JSON by ``Action.fromJson``), or a DataFrame written by
   ``OptimisticTransaction.writeFiles`` (Delta's own writer, in Spark tasks);
3. a ``txn`` action (application id, version): the claim the embedded
   engine and the public path look for;
4. ``OptimisticTransaction.commit`` with ``DeltaOperations.Write`` (an
   append, carrying the ``userMetadata``), while a clone of the session with
   ``spark.databricks.delta.maxCommitAttempts = 0`` is the active one: when
   another writer takes the version meanwhile, Delta raises
   ``DELTA_MAX_COMMIT_RETRIES_EXCEEDED`` instead of moving on to the next
   version. The user's session is left as it was.

The rest is Delta's usual commit: protocol and metadata checks, the log
store of the path's filesystem, checksum, checkpoints. No Spark job runs
for driver-written files.

These are delta-spark internals, unchanged from 3.x to 4.4 but not
promised: :func:`committer` checks them once per Spark session by
reflection (nothing is called) and returns None when one is missing or the
session is Spark Connect; the backend then uses the public write.
"""

from __future__ import annotations

import json
import time
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...errors import CommitConflict, StateTableError
from ..layout import PARTITION_COLUMN

__all__ = ["DeltaCommitter", "committer", "NO_RETRIES"]

#: The session setting that bounds Delta's commit attempts; 0: one attempt, no move to a later version.
NO_RETRIES = ("spark.databricks.delta.maxCommitAttempts", "0")
#: The error class of Delta's failure once its commit attempts are spent.
RETRIES_EXCEEDED = "DELTA_MAX_COMMIT_RETRIES_EXCEEDED"
#: Exception classes that mean another writer committed first.
CONFLICT_CLASSES = ("org.apache.spark.sql.delta.DeltaConcurrentModificationException",
                    "java.nio.file.FileAlreadyExistsException")
#: The internals a commit calls: (class, method, number of parameters).
NEEDED = (("org.apache.spark.sql.delta.DeltaLog$", "forTable", 2),
          ("org.apache.spark.sql.delta.DeltaLog", "startTransaction", 2),
          ("org.apache.spark.sql.delta.OptimisticTransaction", "readVersion", 0),
          ("org.apache.spark.sql.delta.OptimisticTransaction", "writeFiles", 1),
          ("org.apache.spark.sql.delta.OptimisticTransaction", "txnVersion", 1),
          ("org.apache.spark.sql.delta.OptimisticTransaction", "commit", 2),
          ("org.apache.spark.sql.delta.actions.Action$", "fromJson", 1),
          ("org.apache.spark.sql.delta.DeltaOperations$Write$", "apply", 9))

#: Per SparkContext: whether it has :data:`NEEDED` (by the tuple checked).
_checked: "weakref.WeakKeyDictionary[Any, Dict[tuple, bool]]" = weakref.WeakKeyDictionary()


def committer(spark, path: str) -> Optional["DeltaCommitter"]:
    """A :class:`DeltaCommitter` for the table at ``path``, or None when this session cannot
    drive Delta's transaction (Spark Connect, or a delta-spark without the internals used)."""
    try:
        context = spark.sparkContext
        jvm = context._jvm
    except Exception:  # noqa: BLE001 - Spark Connect has no SparkContext (PySparkNotImplementedError)
        return None
    known = _checked.setdefault(context, {})
    if NEEDED not in known:
        known[NEEDED] = _has_internals(jvm)
    return DeltaCommitter(spark, path) if known[NEEDED] else None


def _has_internals(jvm) -> bool:
    """Whether every method of :data:`NEEDED` exists (Java reflection: nothing is called)."""
    from py4j.protocol import Py4JError

    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    try:
        for name, method, arity in NEEDED:
            methods = jvm.java.lang.Class.forName(name, True, loader).getMethods()
            if not any(m.getName() == method and m.getParameterCount() == arity for m in methods):
                return False
    except Py4JError:                       # a class is missing (ClassNotFoundException)
        return False
    return True


class DeltaCommitter:
    """Commits to one Delta table at an exact version through delta-spark's transaction API."""

    def __init__(self, spark, path: str) -> None:
        self.path = path
        self._jvm = spark.sparkContext._jvm
        self._session = spark._jsparkSession
        self._clone: Any = None
        self._objects: Dict[str, Any] = {}

    def commit(self, read_version: int, files: Optional[Sequence[Dict[str, Any]]], rows: Any, app_id: str,
               user_metadata: str, transactions: Sequence[Tuple[str, int]] = ()) -> int:
        """Commit version ``read_version + 1``: the driver-written ``files`` (dicts with ``path``
        relative to the table, ``size``, ``mtime`` in ms and ``stats``), or else the DataFrame
        ``rows`` written by Delta now; with the application transaction ``(app_id, version)``, one
        ``txn`` action per pair of ``transactions``, and ``user_metadata``. :class:`~spark_assign.errors.CommitConflict` when the table is no
        longer at ``read_version`` or another writer commits first (nothing committed)."""
        from py4j.protocol import Py4JJavaError

        version = read_version + 1
        active = self._jvm.org.apache.spark.sql.SparkSession
        before = active.getActiveSession()
        active.setActiveSession(self._no_retries())
        try:
            txn = self._object("org.apache.spark.sql.delta.DeltaLog").forTable(self._no_retries(), self.path) \
                .startTransaction(self._none(), self._none())
            if txn.readVersion() != read_version:
                raise CommitConflict(f"version {version}: the table is at version {txn.readVersion()}")
            actions = self._jvm.java.util.ArrayList()
            if files is not None:
                for f in files:
                    actions.add(self._action({"add": _add(f, version)}))
            else:
                for action in self._jvm.scala.jdk.javaapi.CollectionConverters.asJava(txn.writeFiles(rows._jdf)):
                    actions.add(action)
            now = int(time.time() * 1000)
            for app, txn_version in [(app_id, version), *transactions]:
                actions.add(self._action({"txn": {"appId": app, "version": txn_version, "lastUpdated": now}}))
            committed = txn.commit(self._jvm.scala.jdk.javaapi.CollectionConverters.asScala(actions).toSeq(),
                                   self._append(user_metadata))
        except Py4JJavaError as e:
            if self._is_conflict(e.java_exception):
                raise CommitConflict(f"version {version}: another writer committed first") from e
            raise
        finally:
            if before.isDefined():
                active.setActiveSession(before.get())
            else:
                active.clearActiveSession()
        if committed != version:            # cannot happen with one attempt; never report a wrong version
            raise StateTableError(f"{self.path}: Delta committed version {committed}, not {version}")
        return int(committed)

    def transaction_version(self, app_id: str) -> Optional[int]:
        """The version Delta records for ``app_id`` at the table's latest version
        (``OptimisticTransaction.txnVersion``: Spark jobs that aggregate the log), or None."""
        txn = self._object("org.apache.spark.sql.delta.DeltaLog").forTable(self._session, self.path) \
            .startTransaction(self._none(), self._none())
        found = int(txn.txnVersion(app_id))
        return None if found < 0 else found

    # ------------------------------------------------------------------ py4j plumbing

    def _no_retries(self):
        """A clone of the user's session (same settings) that lets Delta try a commit once."""
        if self._clone is None:
            clone = self._session.cloneSession()
            clone.conf().set(*NO_RETRIES)
            self._clone = clone
        return self._clone

    def _object(self, name: str):
        """The Scala object (companion) ``name`` (looked up once)."""
        if name not in self._objects:
            loader = self._jvm.java.lang.Thread.currentThread().getContextClassLoader()
            self._objects[name] = self._jvm.java.lang.Class.forName(name + "$", True, loader) \
                .getField("MODULE$").get(None)
        return self._objects[name]

    def _none(self):
        return self._object("scala.None")

    def _action(self, action: Dict[str, Any]):
        """A Delta action from its JSON in the Delta protocol."""
        return self._object("org.apache.spark.sql.delta.actions.Action").fromJson(json.dumps(action))

    def _append(self, user_metadata: str):
        """``DeltaOperations.Write``: mode append, nothing else set but the user metadata."""
        none = self._none()
        mode = self._jvm.org.apache.spark.sql.SaveMode.Append
        return self._object("org.apache.spark.sql.delta.DeltaOperations$Write").apply(
            mode, none, none, self._jvm.scala.Some(user_metadata), none, none, none, none, none)

    def _is_conflict(self, error) -> bool:
        """Whether a JVM exception (or one of its causes) says another writer committed first:
        by class, or by Delta's error class once its attempts are spent."""
        loader = self._jvm.java.lang.Thread.currentThread().getContextClassLoader()
        classes: List[Any] = []
        for name in CONFLICT_CLASSES:
            try:
                classes.append(self._jvm.java.lang.Class.forName(name, True, loader))
            except Exception:  # noqa: BLE001 - a class this Delta does not have
                continue
        throwable = self._jvm.java.lang.Class.forName("org.apache.spark.SparkThrowable", True, loader)
        while error is not None:
            if any(c.isInstance(error) for c in classes):
                return True
            if throwable.isInstance(error) and error.getErrorClass() == RETRIES_EXCEEDED:
                return True
            error = error.getCause()
        return False


def _add(f: Dict[str, Any], version: int) -> Dict[str, Any]:
    """The Delta protocol's ``add`` action of a file written into partition ``version``."""
    return {"path": f["path"], "partitionValues": {PARTITION_COLUMN: str(version)}, "size": int(f["size"]),
            "modificationTime": int(f["mtime"]), "dataChange": True, "stats": f["stats"]}

"""The delta-spark engine: used when the session has Delta Lake's JVM classes.

Standard delta-spark calls only: ``DeltaTable.createIfNotExists`` to create,
``spark.read.format("delta")`` (with ``versionAsOf``) to read, and
``DataFrameWriter.format("delta").mode("append")`` to write, with
``txnAppId``/``txnVersion`` options. Every spark-assign writer of a table
uses the same application id and, as transaction version, the table version it
means to write (its snapshot + 1). Delta skips a write whose transaction
version is not above the recorded one and fails concurrent writers of the same
application id, so of two rebalances that read the same version only one
lands; the other finds its attempt id missing from the new version's
``userMetadata`` and retries.

Catalog tables (``location`` without a slash) and paths are both supported.
This module cannot run on machines without delta-spark's jars; the embedded
engine (delta-rs) is tested instead, writing the same table format.
"""

from __future__ import annotations

import json
import uuid
from typing import Dict, Optional, Sequence

from ..errors import CommitConflict, StateTableError
from .backend import Snapshot, Staged
from .layout import FORMAT_VERSION, PARTITION_COLUMN, TABLE_COLUMNS, in_files, local_path, spark_ddl
from .plan import Outcome, outcome_of

#: Commits searched for this attempt's id after a write (others may commit right after it).
RECENT_COMMITS = 20

__all__ = ["DeltaSparkBackend"]


class DeltaSparkBackend:
    """A state table read and written through delta-spark."""

    engine = "delta-spark"

    def __init__(self, spark, location: str) -> None:
        self.spark = spark
        self.location = location
        self.is_path = "/" in location or location.startswith(".")

    def _delta(self):
        from delta.tables import DeltaTable

        return DeltaTable.forPath(self.spark, self.location) if self.is_path else \
            DeltaTable.forName(self.spark, self.location)

    @property
    def root(self) -> str:
        """The table's directory (heads live beside its log)."""
        if self.is_path:
            return self.location
        detail = self.spark.sql(f"DESCRIBE DETAIL {self.location}").select("location").first()
        return local_path(detail[0]) if detail[0].startswith("file:") else detail[0]

    def exists(self) -> bool:
        from delta.tables import DeltaTable

        if self.is_path:
            return DeltaTable.isDeltaTable(self.spark, self.location)
        return self.spark.catalog.tableExists(self.location)

    def create(self, description: str) -> None:
        from delta.tables import DeltaTable
        from pyspark.sql.types import _parse_datatype_string

        builder = DeltaTable.createIfNotExists(self.spark)
        builder = builder.location(self.location) if self.is_path else builder.tableName(self.location)
        (builder.addColumns(_parse_datatype_string(spark_ddl()))
                .partitionedBy(PARTITION_COLUMN)
                .comment(description)
                .property("spark_assign.format", FORMAT_VERSION)
                .property("spark_assign.table_id", uuid.uuid4().hex)
                .execute())

    def snapshot(self, version: Optional[int] = None) -> Snapshot:
        table = self._delta()
        latest = table.history(1).select("version").first()[0]
        detail = table.detail().select("properties", "id").first()
        table_id = detail["properties"].get("spark_assign.table_id") or detail["id"]
        return Snapshot(latest if version is None else version, table_id, None)

    def check(self, snap: Snapshot) -> None:
        actual = {f.name: f.dataType.simpleString() for f in self._load(snap.version).schema.fields}
        expected = {n: t for n, t in TABLE_COLUMNS}
        bad = sorted(n for n, t in expected.items() if actual.get(n) != t)
        if bad:
            raise StateTableError(f"{self.location} is not a spark-assign state table: columns {bad} are "
                                  f"missing or mistyped; expected {spark_ddl()}")

    def _load(self, version: int):
        reader = self.spark.read.format("delta").option("versionAsOf", version)
        return reader.load(self.location) if self.is_path else reader.table(self.location)

    def read(self, snap: Snapshot, commit_versions: Optional[Sequence[int]] = None, group_id: Optional[str] = None):
        from pyspark.sql import functions as F

        rows = self._load(snap.version).select(*[n for n, _ in TABLE_COLUMNS])
        if commit_versions is not None:
            rows = rows.where(F.col(PARTITION_COLUMN).isin([int(v) for v in commit_versions]))
        if group_id is not None:
            rows = rows.where(F.col("group_id") == group_id)
        return rows

    def stage(self, rows, version: int, num_files: int) -> Staged:
        """Nothing to write ahead: delta-spark writes and commits in one step. Stages the
        DataFrame to write and its :class:`~.plan.Outcome` (one job over the computed rows)."""
        return Staged(version, in_files(rows, num_files), outcome_of(rows))

    def stage_arrow(self, rows, version: int) -> Staged:
        """Like :meth:`stage`, for rows computed on the driver (an Arrow table): one file, and the
        outcome counted on the driver."""
        outcome = Outcome()
        outcome.add_arrow(rows)
        return Staged(version, in_files(self.spark.createDataFrame(rows, schema=spark_ddl()), 1), outcome)

    def commit(self, snap: Snapshot, staged: Staged, app_id: str, metadata: Dict[str, object]) -> None:
        attempt = uuid.uuid4().hex
        version = staged.version
        meta = json.dumps({**metadata, "attempt": attempt})
        writer = (staged.files.write.format("delta").mode("append")
                  .option("txnAppId", app_id).option("txnVersion", version).option("userMetadata", meta))
        try:
            writer.save(self.location) if self.is_path else writer.saveAsTable(self.location)
        except Exception as e:  # noqa: BLE001 - delta-spark's Concurrent*Exception arrive wrapped
            if "Concurrent" in type(e).__name__ or "Concurrent" in str(e):
                raise CommitConflict(str(e)) from e
            raise
        # txnAppId/txnVersion make a second write of ``version`` a no-op, so the write is ours iff a
        # commit carries this attempt's id; later commits (another tool, auto-compaction) may follow it.
        recent = self._delta().history(RECENT_COMMITS).select("userMetadata").collect()
        if not any(attempt in (r["userMetadata"] or "") for r in recent):
            raise CommitConflict(f"version {version} was written by another rebalance")

    def discard(self, staged: Staged) -> None:
        """Nothing was written outside a commit."""

    def delete_before(self, snap: Snapshot, cutoffs, metadata: Dict[str, object]) -> Optional[int]:
        """``MERGE ... WHEN MATCHED THEN DELETE`` of rows with ``generation <= cutoff`` of their group."""
        if cutoffs.isEmpty():
            return None
        key = "spark.databricks.delta.commitInfo.userMetadata"
        self.spark.conf.set(key, json.dumps(metadata))
        try:
            (self._delta().alias("t")
                 .merge(cutoffs.alias("s"), "t.group_id = s.group_id AND t.generation <= s.cutoff")
                 .whenMatchedDelete().execute())
        except Exception as e:  # noqa: BLE001 - delta-spark's Concurrent*Exception arrive wrapped
            if "Concurrent" in type(e).__name__ or "Concurrent" in str(e):
                raise CommitConflict(str(e)) from e
            raise
        finally:
            self.spark.conf.unset(key)
        return self._delta().history(1).select("version").first()[0]

    def vacuum(self, retention_hours: int) -> int:
        """``VACUUM`` through delta-spark (its retention check stays on); delta-spark does not return a count."""
        self._delta().vacuum(float(retention_hours))
        return 0

    def commit_metadata(self, version: int) -> Optional[dict]:
        """The ``spark_assign`` metadata of the commit of ``version`` (from its ``userMetadata``), or None."""
        from pyspark.sql import functions as F

        row = self._delta().history().where(F.col("version") == version).select("userMetadata").first()
        try:
            return json.loads(row[0]).get("spark_assign") if row is not None and row[0] else None
        except ValueError:
            return None

    def history(self, limit: Optional[int] = None):
        return [r.asDict(recursive=True) for r in self._delta().history(limit).collect()]

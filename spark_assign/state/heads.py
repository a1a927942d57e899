"""The heads of a state table: per unit (group, cluster) its latest generation, read at a version and written for the next.

Heads are one small Parquet file per version, beside the Delta log (see
:mod:`.layout`). Invariants:

* a rebalance attempt writes its own heads directory (random tag) *before*
  its commit and names it in the commit's metadata, so of two writers racing
  for a version the heads a reader finds are the winner's, and heads are
  never rewritten (no cache is needed, nothing to invalidate);
* a prune (or an upgrade of the table's format) names no heads: the heads of
  its version are those of the version before (followed back at most
  :data:`PRUNES_FOLLOWED` commits);
* a version whose commit names no heads (another tool's commit, or heads
  lost) is read by one scan of the table, which any later rebalance repairs
  by writing heads again.

Heads are written by the driver with Arrow when the table is on a local
filesystem (no Spark job), else by Spark.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from typing import Dict, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..spark.inputs import local_frame
from .backend import Snapshot, StateBackend
from .layout import HEADS_DIR, KEEPS_HEADS, PARTITION_COLUMN, TableKind, arrow_schema, heads_ddl, heads_path, local_dir, spark_ddl
from .plan import LITERAL_GROUPS, Outcome, Plan, in_groups, ids_frame

__all__ = ["PRUNES_FOLLOWED", "heads_at", "heads_and_name_at", "heads_in_driver", "heads_name_at", "changed_heads", "write_heads",
           "remove_heads", "sweep_heads"]

#: Prune commits in a row followed back to the heads they keep (more: the heads are rebuilt by a scan).
PRUNES_FOLLOWED = 100
#: Rows of heads the driver reads and writes at a time (and a heads file's row group).
HEADS_BATCH = 65536


def heads_at(backend: StateBackend, snap: Optional[Snapshot]) -> DataFrame:
    """The heads at ``snap``: from its heads file, or (a version written by another tool) by a
    scan; none for a new table (``snap`` None or version 0)."""
    return heads_and_name_at(backend, snap)[0]


def heads_and_name_at(backend: StateBackend, snap: Optional[Snapshot]) -> Tuple[DataFrame, Optional[str]]:
    """:func:`heads_at`, and the name of the heads directory they were read from (None when
    there is none: a new table, or heads computed by a scan)."""
    if snap is None or snap.version == 0:
        columns = backend.kind.heads_columns
        return local_frame(backend.spark, columns, {n: [] for n, _ in columns}), None
    name = heads_name_at(backend, snap)
    heads = _read(backend, name) if name is not None else None
    return (heads, name) if heads is not None else (_scan(backend, snap), None)


def heads_in_driver(backend: StateBackend, snap: Optional[Snapshot]) -> Optional[Tuple[pa.Table, Optional[str]]]:
    """:func:`heads_and_name_at` read by this process with pyarrow (no Spark): the heads as Arrow
    and their directory's name; None when that needs Spark (heads on a remote filesystem, or
    a version whose heads must be rebuilt by a scan)."""
    schema = arrow_schema(backend.kind.heads_columns)
    if snap is None or snap.version == 0:
        return schema.empty_table(), None
    name = heads_name_at(backend, snap)
    local = local_dir(heads_path(backend.root, name)) if name is not None else None
    if name is None or local is None or not os.path.isdir(local):
        return None
    parts = [pq.read_table(path, columns=schema.names).cast(schema) for path in _parquet_files(local)]
    return (pa.concat_tables(parts) if parts else schema.empty_table()), name


def heads_name_at(backend: StateBackend, snap: Snapshot) -> Optional[str]:
    """The heads directory of ``snap``: named by the rebalance that made it, or, for a prune or
    an upgrade (which leave every group's head as it was), by the version before, and so on."""
    for version in range(snap.version, max(snap.version - PRUNES_FOLLOWED, 0), -1):
        meta = backend.commit_metadata(snap, version)
        if not isinstance(meta, dict):
            return None                                  # another tool's commit: scan
        name = meta.get("heads")
        if isinstance(name, str) and name:
            return name
        if meta.get("operation") not in KEEPS_HEADS:
            return None
    return None


def _read(backend: StateBackend, name: str) -> Optional[DataFrame]:
    """The heads directory ``name``, or None when it is gone."""
    path = heads_path(backend.root, name)
    local = local_dir(path)
    if local is not None and not os.path.isdir(local):
        return None                                      # known gone: no Spark error to catch
    try:
        heads = backend.spark.read.schema(heads_ddl(backend.kind)).parquet(path)
        heads.columns                   # Spark Connect is lazy: make it resolve (list) the path here
        return heads
    except Exception:  # noqa: BLE001 - a remote path gone: AnalysisException (classic) or its Connect twin
        return None


def _scan(backend: StateBackend, snap: Snapshot) -> DataFrame:
    """The heads of ``snap`` computed from its rows (one pass over the table)."""
    kind = backend.kind
    rows = backend.read(snap)
    latest = rows.groupBy(kind.key).agg(F.max("generation").alias("generation"))
    pending = kind.pending.spark() if kind.pending else F.lit(False)
    return (rows.join(latest, [kind.key, "generation"], "left_semi")
            .groupBy(kind.key).agg(F.max("generation").alias("generation"),
                                   F.max(PARTITION_COLUMN).alias(PARTITION_COLUMN),
                                   F.first(kind.strategy_column).alias("strategy"),
                                   # the rows carry their unit's fingerprint: an unchanged
                                   # unit stays unchanged after another tool's commit
                                   F.first("input_fingerprint").alias("input_fingerprint"),
                                   pending.alias("pending"),
                                   F.lit(False).alias("empty")))


def changed_heads(p: Plan, outcome: Outcome, version: int, strategy: str, kind: TableKind) -> pa.Table:
    """The changed units' heads at ``version`` (Arrow, built on the driver), in ``kind``'s heads columns.

    A changed group that got no rows (no subscribed topic has partitions any
    more) keeps its generation number and is marked ``empty`` at ``version``:
    ``latest()`` shows nothing for it, and its next generation follows that
    number. Its fingerprint is recorded, so the same input stays a no-op.
    """
    columns = kind.heads_columns
    data: Dict[str, list] = {n: [] for n, _ in columns}
    for g, c in p.changed.items():
        written = outcome.groups.get(g)
        data[kind.key].append(g)
        data["generation"].append(written[0] if written else (c.generation or 0))
        data[PARTITION_COLUMN].append(version)
        data["strategy"].append(strategy)
        data["input_fingerprint"].append(c.fingerprint)
        data["pending"].append(bool(written and written[1]))
        data["empty"].append(written is None)
    return pa.table(data, schema=arrow_schema(columns))


def write_heads(backend: StateBackend, snap: Snapshot, heads: Optional[DataFrame], old: Optional[str], name: str,
                updated: pa.Table) -> None:
    """Write the heads ``name`` of the next version: the heads of ``snap`` (read from the heads
    directory ``old``, or scanned when None) with the groups of ``updated`` replaced. By the
    driver when the table and the old heads are local files, else with Spark (one small file
    either way; ``heads`` may be None only when they are local)."""
    path = heads_path(backend.root, name)
    local = local_dir(path)
    if local is not None:
        old_local = local_dir(heads_path(backend.root, old)) if old else None
        if snap.version == 0 or (old_local is not None and os.path.isdir(old_local)):
            _write_locally(old_local, local, updated, backend.kind)
            return
    if heads is None:
        raise ValueError("heads on a remote filesystem are written by Spark: give them")
    _next_in_spark(backend.spark, heads, updated, backend.kind).coalesce(1).write.mode("overwrite").parquet(path)


def _next_in_spark(spark, heads: DataFrame, updated: pa.Table, kind: TableKind) -> DataFrame:
    """The next heads in Spark: ``heads`` of the units not in ``updated``, then ``updated``."""
    ids = updated.column(kind.key).to_pylist()
    unchanged = heads.where(F.expr(f"NOT {in_groups(ids, kind.key)}")) \
        if 0 < len(ids) <= LITERAL_GROUPS else \
        heads.join(F.broadcast(ids_frame(spark, ids, kind.key)), kind.key, "left_anti")
    return unchanged.unionByName(spark.createDataFrame(updated, schema=spark_ddl(kind.heads_columns)))


def _write_locally(old: Optional[str], new: str, updated: pa.Table, kind: TableKind) -> None:
    """The heads directory ``old`` (None: no heads yet) without the units of ``updated``, then
    ``updated``, as one Parquet file in the new directory ``new``, written by the driver.

    The old heads stream through in batches of :data:`HEADS_BATCH` rows, and are written in row
    groups of that size, so the driver holds one batch of the fleet's heads at a time, whatever
    its size, beside ``updated`` (the plan's changed units)."""
    schema = arrow_schema(kind.heads_columns)
    os.makedirs(new, exist_ok=True)
    temp = os.path.join(new, f".part-{uuid.uuid4().hex}.parquet")        # hidden from readers until renamed
    with pq.ParquetWriter(temp, schema, compression="snappy") as writer:
        if old is not None:
            changed = updated.column(kind.key)
            for path in _parquet_files(old):
                for batch in pq.ParquetFile(path).iter_batches(batch_size=HEADS_BATCH, columns=schema.names):
                    kept = batch.filter(pc.invert(pc.is_in(batch.column(kind.key), value_set=changed)))
                    if kept.num_rows:
                        writer.write_table(pa.Table.from_batches([kept]).cast(schema), row_group_size=HEADS_BATCH)
        writer.write_table(updated, row_group_size=HEADS_BATCH)
    os.replace(temp, os.path.join(new, f"part-00000-{uuid.uuid4().hex}.snappy.parquet"))


def _parquet_files(folder: str) -> List[str]:
    """The data files of a heads directory: ours, or Spark's part files (its ``_SUCCESS`` and
    hidden ``.crc`` files skipped)."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(".parquet") and not n.startswith(("_", ".")))


def remove_heads(root: str, name: str) -> None:
    """Best effort: drop the heads of an attempt that did not commit (vacuum gets any left)."""
    local = local_dir(heads_path(root, name))
    if local is not None and os.path.isdir(local):
        shutil.rmtree(local, ignore_errors=True)


def sweep_heads(root: str, keep: Optional[str], retention_hours: int) -> List[str]:
    """Delete heads directories older than the retention except ``keep`` (the current ones);
    local tables only (elsewhere heads stay: they are small). Returns the names deleted."""
    folder = local_dir(f"{root.rstrip('/')}/{HEADS_DIR}")
    if folder is None or not os.path.isdir(folder):
        return []
    horizon = time.time() - retention_hours * 3600
    gone = []
    for name in os.listdir(folder):
        full = os.path.join(folder, name)
        if name != keep and os.path.getmtime(full) < horizon:
            shutil.rmtree(full, ignore_errors=True)
            gone.append(name)
    return gone

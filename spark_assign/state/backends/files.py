"""A local state table's data files and log entries, as the driver reads and writes them.

Shared by both engines wherever the table's folder is on this machine's
filesystem (the embedded engine always; delta-spark for local paths), for
tables of every kind (:class:`~.layout.TableKind`):

* :func:`data_files` and :func:`read_units`: a snapshot's file list from
  delta-rs, then a few units' rows read with pyarrow: no Spark job;
* :func:`write_task`: the Parquet writer with Delta statistics, run by Spark
  tasks (``mapInArrow``) or by the driver (:func:`write_rows`);
* :func:`commit_info`: one version's commit information, read from its log
  entry (one small JSON file);
* :func:`check_table` and :func:`spark_only_features`: whether a delta-rs
  snapshot is a state table, and whether the driver may read its files as
  plain Parquet (no deletion vectors, no column mapping).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Dict, Iterator, List, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ...errors import StateTableError
from ..backend import Staged
from ..layout import ASSIGNMENTS, PARTITION_COLUMN, TableKind, arrow_schema
from ..plan import Outcome

__all__ = ["FileMeta", "FILE_META_DDL", "write_task", "write_rows", "staged_files", "remove_files",
           "data_files", "read_units", "commit_info", "spark_assign_of", "check_table", "spark_only_features"]

#: What each writing task reports: its file, and (JSON) the file's groups ``{group: [generation, pending]}``
#: and rows per status, so that the driver needs no extra job for the heads and the summary.
FILE_META_DDL = "path string, size long, mtime long, records long, stats string, groups string, statuses string"
#: Delta features that change how a data file must be read (so the driver cannot read it as plain Parquet).
SPARK_ONLY_FEATURES = frozenset({"deletionVectors", "columnMapping", "v2Checkpoint"})


class FileMeta(dict):
    """A written file: path (relative to the table), size, mtime (ms), records, stats (JSON)."""


def write_task(root: str, version: int, tag: str, kind: TableKind = ASSIGNMENTS):
    """The ``mapInArrow`` function that writes one parquet file per Spark task, of a table of
    ``kind`` (min/max statistics of its ``stat_columns``).

    Runs in Python workers (no delta-rs import there: it is not fork-safe).
    """
    stat_columns = kind.stat_columns

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        schema = arrow_schema([c for c in kind.columns if c[0] != PARTITION_COLUMN])
        rel = f"{PARTITION_COLUMN}={version}/part-{tag}-{uuid.uuid4().hex}.c000.snappy.parquet"
        full = os.path.join(root, rel)
        writer: Optional[pq.ParquetWriter] = None
        records = 0
        mins: Dict[str, object] = {}
        maxs: Dict[str, object] = {}
        nulls: Dict[str, int] = {c: 0 for c in stat_columns}
        report = Outcome.of(kind)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            table = pa.Table.from_batches([batch]).select(schema.names).cast(schema)
            if writer is None:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                writer = pq.ParquetWriter(full, schema, compression="snappy")
            writer.write_table(table)
            records += table.num_rows
            for c in stat_columns:
                col = table.column(c)
                nulls[c] += col.null_count
                mm = pc.min_max(col)
                if mm["min"].is_valid:
                    lo, hi = mm["min"].as_py(), mm["max"].as_py()
                    mins[c] = lo if c not in mins else min(mins[c], lo)
                    maxs[c] = hi if c not in maxs else max(maxs[c], hi)
            report.add_arrow(table, kind)
        if writer is None:
            return
        writer.close()
        st = os.stat(full)
        stats = json.dumps({"numRecords": records, "minValues": mins, "maxValues": maxs, "nullCount": nulls})
        yield pa.RecordBatch.from_pydict({"path": [rel], "size": [st.st_size], "mtime": [int(st.st_mtime * 1000)],
                                          "records": [records], "stats": [stats],
                                          "groups": [json.dumps(report.groups)],
                                          "statuses": [json.dumps(report.counts)]})
    return run


def write_rows(root: str, version: int, rows: pa.Table, kind: TableKind = ASSIGNMENTS) -> Staged[List[FileMeta]]:
    """Write ``rows`` of ``kind`` (computed on the driver) as one data file of
    ``commit_version=version``, from the driver, with the same writer as the Spark tasks;
    staged for ``version``."""
    rows = rows.sort_by([(c, "ascending") for c in kind.file_order])
    metas = write_task(root, version, uuid.uuid4().hex[:8], kind)(iter(rows.to_batches()))
    return staged_files(version, [m for batch in metas for m in batch.to_pylist()], kind)


def staged_files(version: int, metas: List[dict], kind: TableKind = ASSIGNMENTS) -> Staged[List[FileMeta]]:
    """The files the writers report, and the :class:`~.plan.Outcome` they hold together."""
    outcome = Outcome.of(kind)
    files = []
    for meta in metas:
        outcome.add_json(meta.pop("groups"), meta.pop("statuses"))
        files.append(FileMeta(meta))
    return Staged(version, files, outcome)


def remove_files(root: str, files: Sequence[FileMeta]) -> None:
    """Delete written files that were not committed (best effort: ``vacuum`` gets what is left)."""
    for f in files:
        try:
            os.remove(_uri(root, f["path"]))
        except OSError:
            pass


def data_files(dt, root: str, commit_versions: Optional[Sequence[int]] = None, key: Optional[str] = None,
               kind: TableKind = ASSIGNMENTS) -> List[str]:
    """The data files of the delta-rs snapshot ``dt`` of a table of ``kind``: all, those of some
    ``commit_version`` partitions, and (by their statistics) those that can hold the unit ``key``."""
    if commit_versions is None and key is None:
        return dt.file_uris()
    actions = pa.table(dt.get_add_actions(flatten=True))
    keep = [True] * actions.num_rows
    if commit_versions is not None:
        wanted = {str(v) for v in commit_versions}
        parts = actions.column(f"partition.{PARTITION_COLUMN}").to_pylist()
        keep = [k and str(v) in wanted for k, v in zip(keep, parts)]
    name = kind.key
    if key is not None and f"min.{name}" in actions.column_names:
        lows = actions.column(f"min.{name}").to_pylist()
        highs = actions.column(f"max.{name}").to_pylist()
        keep = [k and (lo is None or hi is None or lo <= key <= hi)
                for k, lo, hi in zip(keep, lows, highs)]
    return [_uri(root, p) for p, k in zip(actions.column("path").to_pylist(), keep) if k]


def read_units(dt, root: str, commit_versions: Sequence[int], keys: Sequence[str], columns: Sequence[str],
               kind: TableKind = ASSIGNMENTS) -> pa.Table:
    """``columns`` of the rows of the units ``keys`` (groups, clusters) in some ``commit_version``
    partitions of the delta-rs snapshot ``dt`` of a table of ``kind``, read by the driver with
    pyarrow (no Spark job): for the few units of a small rebalance."""
    import pyarrow.dataset as ds

    uris = data_files(dt, root, commit_versions, kind=kind)
    schema = arrow_schema([c for c in kind.columns if c[0] in columns])
    if not uris:
        return schema.empty_table()
    rows = ds.dataset(uris, format="parquet", schema=schema)
    try:
        return rows.to_table(columns=list(columns), filter=ds.field(kind.key).isin(list(keys)))
    except pa.ArrowNotImplementedError:
        # delta-rs's MERGE (a prune) writes string columns as string_view, whose statistics pyarrow
        # cannot compare with the filter's strings: filter the cast column, batch by batch (the
        # files' row groups are then all read, not skipped by their statistics).
        return rows.to_table(columns=list(columns), filter=ds.field(kind.key).cast(pa.string()).isin(list(keys)))


def _uri(root: str, rel: str) -> str:
    return rel if "://" in rel or rel.startswith("/") else os.path.join(root, rel)


def commit_info(root: str, version: int) -> Optional[Dict[str, Any]]:
    """The ``commitInfo`` of ``version``'s log entry, or None (no entry: cleaned up after a
    checkpoint, or not on this filesystem; or no commit information in it)."""
    entry = os.path.join(root, "_delta_log", f"{version:020d}.json")
    try:
        with open(entry, encoding="utf-8") as f:
            for line in f:
                info = json.loads(line).get("commitInfo")
                if isinstance(info, dict):
                    return info
    except (OSError, ValueError):
        return None
    return None


def spark_assign_of(info: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The ``spark_assign`` metadata of a commit's information, however the engine stored it: a
    top-level entry (delta-rs's custom metadata) or inside the ``userMetadata`` JSON
    (delta-spark). None: not a spark-assign commit."""
    if not isinstance(info, dict):
        return None
    for holder in (info, _json(info.get("userMetadata"))):
        meta = _json(holder.get("spark_assign")) if isinstance(holder, dict) else None
        if isinstance(meta, dict):
            return meta
    return None


def _json(value: Any) -> Any:
    """``value`` decoded when it is a JSON string, else as it is (None when it does not parse)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return None


def check_table(dt, root: str, kind: TableKind = ASSIGNMENTS) -> None:
    """Refuse a delta-rs snapshot that is not a state table of ``kind``: foreign schemas or
    partitioning (:class:`~spark_assign.errors.StateTableError`)."""
    expected = {f.name: f.type for f in kind.arrow()}
    actual = {f.name: f.type for f in pa.schema(dt.schema().to_arrow())}
    missing = sorted(set(expected) - set(actual) - set(kind.added_columns))   # an older format lacks those
    wrong = sorted(n for n in expected if n in actual and actual[n] != expected[n]
                   and not (pa.types.is_timestamp(actual[n]) and pa.types.is_timestamp(expected[n])))
    if missing or wrong:
        raise StateTableError(
            f"{root} is not a spark-assign state table of {kind.name}: missing columns {missing}, "
            f"mistyped columns {wrong}; expected {kind.ddl()}")
    if dt.metadata().partition_columns != [PARTITION_COLUMN]:
        raise StateTableError(f"{root} must be partitioned by {PARTITION_COLUMN}, "
                              f"is partitioned by {dt.metadata().partition_columns}")


def spark_only_features(dt) -> List[str]:
    """The Delta features of the delta-rs snapshot ``dt`` that keep the driver from reading its
    data files as plain Parquet (deletion vectors, column mapping, ...): empty when it can."""
    protocol = dt.protocol()
    features = set(protocol.reader_features or []) | set(protocol.writer_features or [])
    if dt.metadata().configuration.get("delta.columnMapping.mode", "none") not in ("none", None):
        features.add("columnMapping")
    return sorted(features & SPARK_ONLY_FEATURES)

"""Reading a state table for the CLI: all its rows (for reports), its commits, simulated group ids.

A state table at a path is read with delta-rs (the ``deltalake`` package)
directly, without Spark: that is how ``report`` renders a path table in a
second. A catalog name needs Spark to find the table's location.
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from ..schema import REPLICA_STATE_COLUMNS, STATE_COLUMNS
from .runtime import CliError, SparkRuntime, is_delta_table, is_path, require_table

__all__ = ["read_state_rows", "read_steps", "display_groups", "commit_rows", "write_report", "STEP_SOURCE_COLUMNS",
           "is_replica_table", "write_replica_report"]

#: The columns of a state table that :func:`~spark_assign.report.consumer.steps.steps` reads.
STEP_SOURCE_COLUMNS = ("strategy", "group_id", "generation", "status", "input_fingerprint", "commit_version",
                       "committed_at")
#: Every column of a state table that the CLI reads: the state columns and the commit version.
_TABLE_COLUMNS = tuple(name for name, _ in STATE_COLUMNS) + ("commit_version",)
_REPLICA_COLUMNS = tuple(name for name, _ in REPLICA_STATE_COLUMNS) + ("commit_version",)
_REQUIRED = ("group_id", "generation", "member_id", "topic", "partition", "status", "strategy")


def _delta_rows(path: str, columns: Sequence[str] = _TABLE_COLUMNS,
                required: Sequence[str] = _REQUIRED) -> pd.DataFrame:
    """The ``columns`` (those present) of every row of the Delta table at ``path``, read by delta-rs."""
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError

    try:
        table = DeltaTable(path)
        present = set(table.schema().to_arrow().names)
        wanted = list(columns)
        missing = [name for name in required if name not in present]
        if missing:
            raise CliError(f"{path} is not a spark-assign state table: it lacks {', '.join(missing)}")
        return table.to_pyarrow_table(columns=[c for c in wanted if c in present]).to_pandas()
    except DeltaError as e:
        raise CliError(f"cannot read the Delta table at {path}: {str(e).splitlines()[0]}") from None


def read_state_rows(runtime: SparkRuntime, location: str, columns: Sequence[str] = _TABLE_COLUMNS) -> pd.DataFrame:
    """Every row of the state table ``location`` (a path, or a catalog name: then Spark starts):
    its state columns and ``commit_version`` (or only ``columns``, those the table has).

    Example::

        read_state_rows(SparkRuntime(), "/data/fleet_state")   # pandas, one row per partition and generation
    """
    if is_path(location):
        return _delta_rows(require_table(location), columns)
    from ..state import AssignmentTable

    table = AssignmentTable(runtime.session(), location)
    folder = table.driver_folder
    if folder is not None:
        if not is_delta_table(folder):
            raise CliError(f"no state table called {location} (looked in {folder})")
        return _delta_rows(folder, columns)
    rows = runtime.session().read.format("delta").load(table.path)
    return rows.select(*[c for c in columns if c in rows.columns]).toPandas()


def _columns_and_path(runtime: SparkRuntime, location: str):
    """The column names of the Delta table ``location`` and the folder delta-rs can read it from
    (None: a delta-spark catalog table, read through Spark)."""
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError

    path: Optional[str] = require_table(location) if is_path(location) else None
    if path is None:
        from ..state import AssignmentTable

        table = AssignmentTable(runtime.session(), location)
        path = table.driver_folder
        if path is None:
            return runtime.session().read.format("delta").load(table.path).columns, None
    try:
        return DeltaTable(path).schema().to_arrow().names, path
    except DeltaError:
        return [], path


def is_replica_table(runtime: SparkRuntime, location: str) -> bool:
    """Whether the Delta table ``location`` is a replica table (``spark-assign replicas --table``).

    Example::

        is_replica_table(SparkRuntime(), "/data/replicas")    # True
    """
    from ..report.replicas.data import is_replica_table as replica_columns

    return replica_columns(_columns_and_path(runtime, location)[0])


def write_replica_report(runtime: SparkRuntime, location: str, out: str, title: Optional[str], top: int) -> str:
    """Render the replica report of the replica table ``location`` (its rows and its commits'
    lower bounds) to ``out``; the path written.

    Example::

        write_replica_report(SparkRuntime(), "/data/replicas", "replicas.html", None, 25)
    """
    import os

    from ..report.replicas.html import DEFAULT_REPLICA_TITLE, render_replica_html

    _, path = _columns_and_path(runtime, location)
    if path is not None:
        from deltalake import DeltaTable

        rows = _delta_rows(path, _REPLICA_COLUMNS, ("cluster_id", "generation", "broker_id", "status"))
        commits = [{"version": e.get("version", 0), "spark_assign": _metadata(e)} for e in DeltaTable(path).history()]
    else:
        from ..state import ReplicaTable

        table = ReplicaTable(runtime.session(), location)
        rows, commits = table.state().rows.toPandas(), table.versions()
    name = os.path.basename(os.path.normpath(location))
    render_replica_html(rows, title=title or f"{DEFAULT_REPLICA_TITLE}: {name}", path=out, top=top, commits=commits)
    return os.path.abspath(out)


def read_steps(runtime: SparkRuntime, location: str) -> pd.DataFrame:
    """The :func:`~spark_assign.report.consumer.steps.steps` of the whole state table ``location``: where each
    generation of each group sits on the fleet's steps (``history --group`` shows them, as the report does).

    Example::

        read_steps(SparkRuntime(), "/data/fleet_state")   # strategy, group_id, generation, step, follow_up, ...
    """
    from ..report import steps

    return steps(read_state_rows(runtime, location, STEP_SOURCE_COLUMNS))


def display_groups(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows whose group ids all read ``<strategy>/<group>`` (a multi-strategy simulation) as ``<group>``.

    The report keys groups by (strategy, group id), so the same fleet under two
    strategies then lines up group by group. Any other table is returned as is.
    """
    return _strip_strategy(rows) if _all_prefixed(rows) else rows


def _all_prefixed(rows: pd.DataFrame) -> bool:
    if rows.empty:
        return False
    prefixes = rows["strategy"].astype(str) + "/"
    return all(g.startswith(p) for g, p in zip(rows["group_id"].astype(str), prefixes))


def _strip_strategy(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each ``<strategy>/`` prefix cut off its group id (rows without it unchanged)."""
    ids, prefixes = rows["group_id"].astype(str), rows["strategy"].astype(str) + "/"
    out = rows.copy()
    out["group_id"] = [g.removeprefix(p) for g, p in zip(ids, prefixes)]
    return out


def _metadata(entry: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    meta = entry.get("spark_assign")
    if meta is None and entry.get("userMetadata"):
        try:
            meta = json.loads(entry["userMetadata"]).get("spark_assign")
        except (ValueError, AttributeError):
            meta = None
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    return meta if isinstance(meta, dict) else None


def _when(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = datetime.datetime.fromtimestamp(value / 1000, tz=datetime.timezone.utc)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return "-" if value is None else str(value)


COMMIT_HEADERS = ["version", "committed (UTC)", "operation", "strategy", "recomputed", "unchanged", "moved",
                  "revoked", "assigned", "new", "kept"]


def commit_rows(history: List[Dict[str, Any]]) -> List[List[Any]]:
    """Delta history entries (any order) as rows under :data:`COMMIT_HEADERS`, oldest first."""
    rows = []
    for entry in sorted(history, key=lambda e: int(e.get("version", 0))):
        meta = _metadata(entry)
        operation = (meta or {}).get("operation") or str(entry.get("operation", "")).lower()
        counts = [None] * 7
        if meta:
            counts = [meta.get(k) for k in ("groups_recomputed", "groups_unchanged", "partitions_moved",
                                            "revoked", "assigned", "new", "kept")]
        rows.append([int(entry.get("version", 0)), _when(entry.get("timestamp")), operation,
                     (meta or {}).get("strategy")] + counts)
    return rows


def write_report(rows: pd.DataFrame, path: str, title: str, top: int = 25,
                 members: Optional[pd.DataFrame] = None) -> str:
    """Render the report of ``rows`` (group ids shown per :func:`display_groups`) to ``path``.

    ``members`` (``strategy``, ``group_id``, ``generation``, ``member_id``): the
    subscribed members when known (a simulation), so members owning nothing
    count in the report's members and spread as they do in the command's output.
    """
    import os

    from ..report import render_html

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"--out: no such folder: {folder}")
    if members is not None and _all_prefixed(rows):
        members = _strip_strategy(members)
    render_html(display_groups(rows), title=title, path=path, top=top, members=members)
    return os.path.abspath(path)

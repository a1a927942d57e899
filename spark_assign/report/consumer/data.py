"""Turn the report's input (state rows) into one clean pandas DataFrame.

The report accepts what a reader of the state table naturally has in hand: a
pandas DataFrame or a pyarrow Table (or record batch) with the
:data:`~spark_assign.schema.STATE_COLUMNS`. Only the columns the report uses
are required; the bookkeeping columns are optional and filled with nulls.
The table's ``commit_version`` column is kept when present (steps count the
table's commits, see :mod:`.steps`).
"""

from __future__ import annotations

from typing import Any, List

import pandas as pd

from ...errors import InvalidInputError, SchemaError
from ...schema import STATE_COLUMNS, STATUSES

__all__ = ["REQUIRED_COLUMNS", "KEY", "COLUMNS", "load_rows"]

#: Columns the report cannot do without.
REQUIRED_COLUMNS = ("group_id", "generation", "member_id", "topic", "partition", "status", "strategy")

#: A consumer group is identified by its strategy and group id.
KEY = ["strategy", "group_id"]

#: The columns of loaded rows: the state columns and the table's ``commit_version`` (null when absent).
COLUMNS = [name for name, _ in STATE_COLUMNS] + ["commit_version"]

_STRING_COLUMNS = ("group_id", "member_id", "topic", "previous_member_id", "status",
                   "strategy", "group_instance_id", "input_fingerprint")
_NOT_NULL = ("group_id", "generation", "topic", "partition", "status", "strategy")


def _to_pandas(rows: Any) -> pd.DataFrame:
    if isinstance(rows, pd.DataFrame):
        return rows
    try:  # pyarrow is a dependency, but keep the check duck-typed and cheap
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is a hard dependency
        pa = None
    if pa is not None and isinstance(rows, (pa.Table, pa.RecordBatch)):
        return rows.to_pandas()
    raise InvalidInputError(
        f"rows must be a pandas DataFrame or a pyarrow Table, got {type(rows).__name__}",
        column="rows",
    )


def _offending(frame: pd.DataFrame, mask: "pd.Series[bool]") -> List[dict]:
    cols = [c for c in ("strategy", "group_id", "generation", "topic", "partition", "status") if c in frame]
    return frame.loc[mask, cols].head(5).to_dict("records")


def _strings(col: "pd.Series") -> "pd.Series":
    """Python strings and ``None``; cheap when the column already is that."""
    if col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) in ("string", "empty"):
        return col.where(col.notna(), None) if col.hasnans else col
    obj = col.astype(object)
    nulls = obj.isna()
    return obj.where(nulls, obj.astype(str)).where(~nulls, None)


def load_rows(rows: Any) -> pd.DataFrame:
    """Validate ``rows`` and return a fresh DataFrame with every state column (and ``commit_version``).

    Example::

        load_rows(DeltaTable("/data/fleet_state").to_pyarrow_table())   # pandas, one row per partition

    * ``generation`` and ``partition`` become ``int64``; string columns hold
      Python strings or ``None``; ``committed_at`` becomes UTC timestamps.
    * Raises :class:`~spark_assign.errors.SchemaError` when a required column is
      missing and :class:`~spark_assign.errors.InvalidInputError` for rows the
      report cannot place (nulls in key columns, unknown statuses, non-integer
      generations).
    """
    frame = _to_pandas(rows)
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise SchemaError(
            f"report rows lack column(s) {', '.join(missing)}; expected the state columns "
            f"{', '.join(name for name, _ in STATE_COLUMNS)}"
        )
    out = frame.reset_index(drop=True)
    out = out[[c for c in COLUMNS if c in out.columns]].copy()
    for name in COLUMNS:
        if name not in out.columns:
            out[name] = None
    out = out[COLUMNS]
    versions = pd.to_numeric(out["commit_version"], errors="coerce")
    out["commit_version"] = versions.astype("Int64") if versions.notna().any() else None
    if out.empty:
        out = out.astype({"generation": "int64", "partition": "int64"})
        out["committed_at"] = _utc(out["committed_at"])
        return out

    for name in _NOT_NULL:
        nulls = out[name].isna()
        if nulls.any():
            raise InvalidInputError(f"null {name}", column=name, rows=_offending(out, nulls))
    for name in ("generation", "partition"):
        values = pd.to_numeric(out[name], errors="coerce")
        bad = values.isna() | (values != values.round())
        if bad.any():
            raise InvalidInputError(f"{name} must be an integer", column=name, rows=_offending(out, bad))
        out[name] = values.astype("int64")
    for name in _STRING_COLUMNS:
        out[name] = _strings(out[name])
    unknown = ~out["status"].isin(STATUSES)
    if unknown.any():
        raise InvalidInputError(
            f"unknown status; expected one of {', '.join(STATUSES)}",
            column="status", rows=_offending(out, unknown),
        )
    out["committed_at"] = _utc(out["committed_at"])
    return out


def _utc(col: "pd.Series") -> "pd.Series":
    """Timestamps as ``datetime64[ns, UTC]`` (naive values are taken as UTC)."""
    stamps = pd.to_datetime(col, utc=True, errors="coerce")
    if not isinstance(stamps.dtype, pd.DatetimeTZDtype) or str(stamps.dtype) != "datetime64[ns, UTC]":
        stamps = stamps.astype("datetime64[ns, UTC]")
    return stamps

"""Reading a Delta table as a plain DataFrame, with or without the Delta connector in the session.

For ``previous=`` given by name or path: a catalog table is read with
``spark.table``; a Delta directory with ``format("delta")`` when the session
has delta-spark, else from the file list delta-rs gives for its latest
version (an explicit schema; partition values come from directory names).
Tables whose protocol needs deletion vectors or column mapping are refused
there: a raw Parquet read of them would be wrong.
"""

from __future__ import annotations

import os
import re
from typing import Any

from pyspark.sql import DataFrame

from ..errors import InvalidInputError
from .session import has_delta_spark

__all__ = ["read_delta", "is_path", "resolve_location"]

#: Delta features a raw Parquet read cannot honour.
UNREADABLE_FEATURES = frozenset({"deletionVectors", "columnMapping"})


#: A catalog table name: dot-separated identifiers, each plain (``fleet_state``) or back-quoted.
_TABLE_NAME = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`))*")


def is_path(location: str) -> bool:
    """Whether ``location`` names a directory (else a catalog table name): it has a ``/`` or the
    OS separator, starts with ``.`` or ``~``, has a URI scheme (``file:``, ``s3://``), is an
    existing directory, or is no table name (``fleet-state``: SQL identifiers hold letters,
    digits and ``_`` unless back-quoted). The one rule for every surface (``AssignmentTable``,
    ``previous=``, the CLI).

    Example::

        is_path("/data/state") and is_path("./state") and is_path("fleet-state")
        not is_path("db.fleet_state") and not is_path("`my-db`.fleet_state")
    """
    return ("/" in location or os.sep in location or location.startswith((".", "~"))
            or re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", location) is not None or os.path.isdir(location)
            or _TABLE_NAME.fullmatch(location) is None)


def resolve_location(location: str) -> str:
    """``location`` as the driver's Python code means it: a plain path has ``~`` expanded and is
    made absolute against this process's working directory; URIs (``file:``, ``s3://``) and
    catalog table names are returned unchanged.

    Both Delta engines must see the same directory: delta-rs resolves a relative path in
    this process, the JVM in its own working directory, which differs after an
    ``os.chdir``, under Spark Connect, or on a cluster.

    Example::

        resolve_location("state") == os.path.join(os.getcwd(), "state")
        resolve_location("s3://bucket/state") == "s3://bucket/state"
    """
    if not is_path(location) or re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", location):
        return location
    return os.path.abspath(os.path.expanduser(location))


def _check_local_table(location: str, argument: str) -> None:
    """For a folder on this machine: :class:`InvalidInputError` saying whether it is missing, or
    exists but holds no Delta table (no ``_delta_log``). Remote locations are left to the reader."""
    local = location[len("file:"):] if location.startswith("file:") else location
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", local):
        return
    if not os.path.exists(local):
        raise InvalidInputError(f"no table or Delta path called {location!r}: the folder does not exist",
                                column=argument)
    if not os.path.isdir(os.path.join(local, "_delta_log")):
        kind = "folder" if os.path.isdir(local) else "file"
        raise InvalidInputError(f"{location!r} exists but holds no Delta table (the {kind} has no _delta_log); "
                                f"give {argument} a Delta table's folder or a catalog table", column=argument)


def read_delta(spark: Any, location: str, argument: str = "previous") -> DataFrame:
    """The latest version of the Delta table ``location`` (a catalog table name or a path), whole.

    Example::

        rows = read_delta(spark, "/data/fleet_state")

    Parameters
    ----------
    spark:
        The session.
    location:
        A catalog table name, or a Delta table's directory.
    argument:
        The argument ``location`` came from, named by the error when there is no such table.
    """
    if not is_path(location):
        if not spark.catalog.tableExists(location):
            raise InvalidInputError(f"no table or Delta path called {location!r}", column=argument)
        return spark.table(location)
    location = resolve_location(location)
    _check_local_table(location, argument)
    if has_delta_spark(spark):
        return spark.read.format("delta").load(location)
    import pyarrow as pa
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    try:
        dt = DeltaTable(location)
    except TableNotFoundError as e:
        raise InvalidInputError(f"no table or Delta path called {location!r}", column=argument) from e
    protocol = dt.protocol()
    features = set(protocol.reader_features or []) | set(protocol.writer_features or [])
    if features & UNREADABLE_FEATURES:
        raise InvalidInputError(f"{location!r} uses Delta features {sorted(features & UNREADABLE_FEATURES)}; "
                                "read it with delta-spark in the session", column=argument)
    from pyspark.sql.pandas.types import from_arrow_schema

    schema = from_arrow_schema(pa.schema(dt.schema().to_arrow()))
    files = dt.file_uris()
    if not files:
        return spark.createDataFrame([], schema)
    return spark.read.schema(schema).option("basePath", location).parquet(*files)

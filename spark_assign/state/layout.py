"""The state table's layout: columns, partitioning, heads, fingerprints.

The table (one row per partition per group per generation) is an ordinary
Delta table:

* columns: :data:`~spark_assign.schema.STATE_COLUMNS` plus ``commit_version``;
* partitioned by ``commit_version``, the Delta version that wrote the rows;
  a rebalance appends exactly one partition (commits are compare-and-set, so
  the version is known before writing), and files within it are
  range-partitioned by ``group_id`` so file statistics prune single-group reads;
* beside the Delta log, ``_spark_assign/heads/<version>-<tag>/`` holds the
  table's *heads* at that version: one row per group with its latest
  generation, the ``commit_version`` holding it, its input fingerprint,
  strategy, whether a cooperative transfer is pending, and whether the group
  was left with no partitions at that version (every topic it subscribes to
  is gone: it has no rows in ``latest()``, and its next generation continues
  the numbering). Each rebalance
  attempt writes its own directory (``tag`` is random) before committing and
  names it in its commit's metadata (``spark_assign.heads``), so of two
  writers racing for a version, the heads read later are the winner's.
  Reading the latest generation reads the heads, then only the partitions
  still holding a latest row, never the superseded history. Delta ignores
  paths starting with ``_``. A prune commit (retention) leaves every latest
  generation in place and names the heads it started from.

A version whose commit names no heads (written by another tool) is read by
scanning the table once.

Formats: ``1`` had no ``weight`` column; ``2`` adds it (the partition's weight
in that generation, for load-aware strategies and load reports). Tables of
format 1 are read as they are (a column they lack reads as null); the first
rebalance on one adds the columns of :data:`ADDED_COLUMNS` in a commit of its
own (operation ``upgrade``, which, like a prune, keeps the heads of the
version before), then commits its generation.
"""

from __future__ import annotations

import os
import re
from typing import List, Optional, Tuple

import pyarrow as pa

from ..schema import STATE_COLUMNS
from ..spark import inputs

__all__ = [
    "TABLE_COLUMNS", "PARTITION_COLUMN", "HEADS_DIR", "HEADS_COLUMNS", "FORMAT_VERSION",
    "APP_ID", "arrow_schema", "spark_ddl", "heads_ddl", "heads_path", "heads_name",
    "FILE_ORDER", "local_path", "local_dir", "in_files", "check_new_table_folder", "ADDED_COLUMNS",
    "missing_columns", "with_added_columns", "KEEPS_HEADS",
]

PARTITION_COLUMN = "commit_version"
#: Table columns in order: the state columns, then the partition column.
TABLE_COLUMNS: List[Tuple[str, str]] = STATE_COLUMNS + [(PARTITION_COLUMN, "bigint")]
HEADS_DIR = "_spark_assign/heads"
HEADS_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"),
    ("generation", "int"),
    (PARTITION_COLUMN, "bigint"),
    ("strategy", "string"),
    ("input_fingerprint", "string"),
    ("pending", "boolean"),
    ("empty", "boolean"),              # the latest generation has no partitions (its topics are gone)
]
#: Written into the table properties and every commit's metadata.
FORMAT_VERSION = "2"
#: Columns added to the table after format 1, with the format that added them: a table may
#: lack them until its first rebalance under this format upgrades it (see the module docstring).
ADDED_COLUMNS = {"weight": "2"}
#: Operations of spark-assign commits that change no group's head: the heads of such a version
#: are those of the version before.
KEEPS_HEADS = ("prune", "upgrade")
#: Every writer of a table commits an application transaction under this id
#: with version = the table version it writes: two writers that read the same
#: version cannot both commit (see backend.py). Delta keeps application
#: transactions per table, so one id serves every table.
APP_ID = "spark-assign"
#: Order of the rows within each data file (files hold ranges of groups).
FILE_ORDER = ("group_id", "generation", "topic", "partition")


def arrow_schema(columns: List[Tuple[str, str]] = TABLE_COLUMNS) -> pa.Schema:
    """Arrow schema of ``columns``; timestamps are UTC microseconds (Delta protocol 1/2, no timestampNtz)."""
    return inputs.arrow_schema(columns)


def spark_ddl(columns: List[Tuple[str, str]] = TABLE_COLUMNS) -> str:
    """Spark DDL of ``columns``."""
    return inputs.spark_ddl(columns)


def heads_ddl() -> str:
    return spark_ddl(HEADS_COLUMNS)


def heads_name(version: int, tag: str) -> str:
    """Name of the heads directory a rebalance attempt for ``version`` writes."""
    return f"{version}-{tag}"


def heads_path(root: str, name: str) -> str:
    """Directory of the heads called ``name`` (see :func:`heads_name`)."""
    return f"{root.rstrip('/')}/{HEADS_DIR}/{name}"


def local_path(location: str) -> str:
    """A ``file:`` URI (any number of slashes) or a plain path, as an absolute local path.

    Example::

        local_path("file:/tmp/state") == local_path("file:///tmp/state") == "/tmp/state"
    """
    from urllib.parse import unquote, urlparse

    if location.startswith("file:"):
        return os.path.abspath(unquote(urlparse(location).path))
    return os.path.abspath(location)


def local_dir(location: str) -> Optional[str]:
    """``location`` as an absolute local path when it is on the local filesystem (a plain path
    or a ``file:`` URI), else None (``s3://...``, ``abfss://...``: written through Spark only).

    Example::

        local_dir("file:///tmp/state") == "/tmp/state" and local_dir("s3://bucket/state") is None
    """
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]+):", location)
    if scheme and scheme.group(1).lower() != "file" and len(scheme.group(1)) > 1:   # C: is a drive
        return None
    return local_path(location)


def check_new_table_folder(location: str) -> None:
    """Refuse to create a state table at ``location`` (no Delta table there yet) when it is a
    file, or a folder that already holds other files (data of another tool, not ours to mix
    with): :class:`~spark_assign.errors.StateTableError`. Only local folders are looked at;
    names in the folder that start with ``.`` or ``_`` (hidden files, our heads) are allowed.

    Example::

        check_new_table_folder("/tmp/new-state")      # missing or empty: fine
    """
    from ..errors import StateTableError

    path = local_dir(location)
    if path is None or not os.path.exists(path):
        return
    if not os.path.isdir(path):
        raise StateTableError(f"{path} is a file, not a folder: a state table needs a folder of its own")
    other = sorted(n for n in os.listdir(path) if not n.startswith((".", "_")))
    if other:
        shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
        raise StateTableError(f"{path} holds files but no Delta table ({shown}): a state table needs an "
                              "empty or new folder of its own")


def in_files(rows, num_files: int):
    """``rows`` laid out for ``num_files`` data files: ranges of groups, each file sorted by
    group, generation, topic and partition (one file: no range shuffle)."""
    spread = rows.coalesce(1) if num_files == 1 else rows.repartitionByRange(num_files, "group_id")
    return spread.sortWithinPartitions(*FILE_ORDER)


def missing_columns(names) -> List[Tuple[str, str]]:
    """The :data:`ADDED_COLUMNS` (name, type) a table with columns ``names`` lacks (an older format).
    A table lacking any other column is not a state table (the backends' ``check``)."""
    have = set(names)
    return [(n, t) for n, t in TABLE_COLUMNS if n in ADDED_COLUMNS and n not in have]


def with_added_columns(rows):
    """``rows`` (a DataFrame of a state table, maybe of an older format) with every table column,
    in order: the :data:`ADDED_COLUMNS` it lacks as typed nulls."""
    from pyspark.sql import functions as F

    absent = missing_columns(rows.columns)
    for name, kind in absent:
        rows = rows.withColumn(name, F.lit(None).cast(kind))
    return rows.select(*[n for n, _ in TABLE_COLUMNS])

"""The state tables' layout: kinds, columns, partitioning, heads, fingerprints.

Two kinds of table (:class:`TableKind`) share one layout and one code path:

* :data:`ASSIGNMENTS` (``AssignmentTable``): one row per partition per
  consumer group per generation, keyed by ``group_id``;
* :data:`REPLICAS` (``ReplicaTable``): one row per replica per cluster per
  generation, keyed by ``cluster_id``.

A table (rows of its kind's *units*, groups or clusters) is an ordinary Delta table:

* columns: the kind's state columns (:data:`~spark_assign.schema.STATE_COLUMNS`,
  :data:`~spark_assign.schema.REPLICA_STATE_COLUMNS`) plus ``commit_version``;
* partitioned by ``commit_version``, the Delta version that wrote the rows;
  a rebalance appends exactly one partition (commits are compare-and-set, so
  the version is known before writing), and files within it are
  range-partitioned by the kind's key so file statistics prune single-unit reads;
* beside the Delta log, ``_spark_assign/heads/<version>-<tag>/`` holds the
  table's *heads* at that version: one row per unit with its latest
  generation, the ``commit_version`` holding it, its input fingerprint,
  strategy (or method), whether a cooperative transfer is pending, and whether the unit
  was left with no rows at that version (every topic it subscribes to, or holds,
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

Formats: an assignment table of format ``1`` has no ``weight`` column; ``2`` adds it (the partition's weight
in that generation, for load-aware strategies and load reports); ``3`` adds
``members`` (the group's subscribed members in that generation, those owning
nothing included, so that every reader counts a group's members and spread
as the rebalance that wrote it did). A replica table of format ``4`` adds
``stage`` and ``stages_left`` (a staged rebalance's progress, see
:mod:`.replicas.staging`); older replica tables lack them. Tables of an older format are read as
they are (a column they lack reads as null); the first rebalance on one adds
the columns of :data:`ADDED_COLUMNS` in a commit of its own (operation
``upgrade``, which, like a prune, keeps the heads of the version before), then
commits its generation.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

import pyarrow as pa

from ..schema import REPLICA_STATE_COLUMNS, REPLICA_STATUSES, STATE_COLUMNS, STATUSES
from .. import types

__all__ = [
    "TableKind", "ASSIGNMENTS", "REPLICAS", "TABLE_COLUMNS", "PARTITION_COLUMN", "HEADS_DIR", "HEADS_COLUMNS",
    "FORMAT_VERSION", "APP_ID", "arrow_schema", "spark_ddl", "heads_ddl", "heads_path", "heads_name",
    "FILE_ORDER", "local_path", "local_dir", "in_files", "check_new_table_folder", "ADDED_COLUMNS", "KEEPS_HEADS",
    "REPLICA_ADDED_COLUMNS", "Pending",
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
FORMAT_VERSION = "4"
#: Columns added to the assignment table after format 1, with the format that added them: a
#: table may lack them until its first rebalance under this format upgrades it (see the module
#: docstring). A replica table's columns are the same in both formats.
ADDED_COLUMNS = {"weight": "2", "members": "3"}
#: Columns added to the replica table after format 3, with the format that added them.
REPLICA_ADDED_COLUMNS = {"stage": "4", "stages_left": "4"}
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


def _heads_columns(key: str) -> List[Tuple[str, str]]:
    return [(key, "string")] + HEADS_COLUMNS[1:]


@dataclass(frozen=True)
class Pending:
    """Which rows leave their unit *pending*: its next rebalance recomputes it whatever its input
    (the heads' ``pending``). A row is pending when ``column`` is null (``when_null``: a
    consumer group's partition in a cooperative transfer has no owner yet) or above 0 (else: a
    replica plan with stages left).

    Example::

        REPLICAS.pending.arrow(rows)          # per row: stages_left > 0
    """

    column: str
    when_null: bool

    def spark(self):
        """The unit's flag, as an aggregate over its rows (a Spark column)."""
        from pyspark.sql import functions as F

        c = F.col(self.column)
        return F.max(c.isNull() if self.when_null else F.coalesce(c > 0, F.lit(False)))

    def arrow(self, rows: pa.Table) -> pa.Array:
        """Per row of ``rows``, whether it is pending (an Arrow boolean array)."""
        import pyarrow.compute as pc

        c = rows.column(self.column)
        return pc.is_null(c) if self.when_null else pc.fill_null(pc.greater(c, 0), False)


@dataclass(frozen=True)
class TableKind:
    """What a state table holds, for the code its two kinds share (backends, heads, plan, loop).

    ``state_columns``: the rows' columns before ``commit_version``; ``key``: the column naming
    the unit that has generations (``group_id``, ``cluster_id``); ``strategy_column``: what
    computed a row; ``pending``: which rows leave their unit pending (None: never);
    ``statuses``: the values of ``status``; ``file_order``: the sort of
    the rows within a data file; ``stat_columns``: columns with min/max statistics in the log.

    Example::

        REPLICAS.key, REPLICAS.columns[-1]     # ('cluster_id', ('commit_version', 'bigint'))
    """

    name: str
    state_columns: Tuple[Tuple[str, str], ...]
    key: str
    strategy_column: str
    pending: Optional[Pending]
    statuses: Tuple[str, ...]
    file_order: Tuple[str, ...]
    stat_columns: Tuple[str, ...]
    description: str
    added_columns: Tuple[str, ...] = ()


    @property
    def columns(self) -> List[Tuple[str, str]]:
        """The table's columns in order: the state columns, then the partition column."""
        return list(self.state_columns) + [(PARTITION_COLUMN, "bigint")]

    @property
    def names(self) -> List[str]:
        """The table's column names in order."""
        return [n for n, _ in self.columns]

    @property
    def heads_columns(self) -> List[Tuple[str, str]]:
        """The heads' columns: :data:`HEADS_COLUMNS` keyed by this kind's key."""
        return _heads_columns(self.key)

    def ddl(self) -> str:
        """Spark DDL of the table's columns."""
        return spark_ddl(self.columns)

    def arrow(self) -> pa.Schema:
        """Arrow schema of the table's columns."""
        return arrow_schema(self.columns)

    def missing(self, names) -> List[Tuple[str, str]]:
        """The ``added_columns`` (name, type) a table of this kind with columns ``names`` lacks
        (an older format, see the module docstring). A table lacking any other column is not a
        state table (the backends' ``check``).

        Example::

            ASSIGNMENTS.missing(["group_id", "generation"])     # [('weight', 'double'), ('members', 'int')]
        """
        have = set(names)
        return [(n, t) for n, t in self.columns if n in self.added_columns and n not in have]

    def complete(self, rows):
        """``rows`` (a DataFrame of a table of this kind, maybe of an older format) with every
        column in order: the ``added_columns`` it lacks as typed nulls.

        Example::

            ASSIGNMENTS.complete(spark.read.format("delta").load(path))    # has a weight column
        """
        from pyspark.sql import functions as F

        for name, kind in self.missing(rows.columns):
            rows = rows.withColumn(name, F.lit(None).cast(kind))
        return rows.select(*self.names)


#: Consumer-group assignments (``AssignmentTable``): one row per partition per group per generation.
ASSIGNMENTS = TableKind(
    "assignments", tuple(STATE_COLUMNS), "group_id", "strategy", Pending("member_id", when_null=True), STATUSES,
    FILE_ORDER,
    ("group_id", "generation", "member_id", "topic", "partition", "status"),
    "spark-assign: Kafka partition assignments, one row per partition per group per generation",
    tuple(ADDED_COLUMNS))
#: Replica placements (``ReplicaTable``): one row per replica per cluster per generation.
REPLICAS = TableKind(
    "replicas", tuple(REPLICA_STATE_COLUMNS), "cluster_id", "method", Pending("stages_left", when_null=False),
    REPLICA_STATUSES, ("cluster_id", "generation", "topic", "partition", "replica_index"),
    ("cluster_id", "generation", "topic", "partition", "broker_id", "status"),
    "spark-assign: Kafka replica placements, one row per replica per cluster per generation",
    tuple(REPLICA_ADDED_COLUMNS))


def arrow_schema(columns: List[Tuple[str, str]] = TABLE_COLUMNS) -> pa.Schema:
    """Arrow schema of ``columns``; timestamps are UTC microseconds (Delta protocol 1/2, no timestampNtz)."""
    return types.arrow_schema(columns)


def spark_ddl(columns: List[Tuple[str, str]] = TABLE_COLUMNS) -> str:
    """Spark DDL of ``columns``."""
    return types.spark_ddl(columns)


def heads_ddl(kind: Optional["TableKind"] = None) -> str:
    """Spark DDL of the heads of ``kind`` (default: assignments, keyed by ``group_id``)."""
    return spark_ddl(kind.heads_columns if kind is not None else HEADS_COLUMNS)


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


def in_files(rows, num_files: int, kind: TableKind = ASSIGNMENTS):
    """``rows`` laid out for ``num_files`` data files: ranges of the kind's units, each file
    sorted by its ``file_order`` (unit, generation, topic, partition, ...; one file: no range shuffle)."""
    spread = rows.coalesce(1) if num_files == 1 else rows.repartitionByRange(num_files, kind.key)
    return spread.sortWithinPartitions(*kind.file_order)

"""A rebalance without Spark: the same generations, for the small questions of the command line.

:meth:`AssignmentTable.rebalance <spark_assign.AssignmentTable.rebalance>`
needs a Spark session (20 s or more to start on a laptop) even when the
engine's work takes milliseconds. :func:`rebalance_in_driver` runs the same
generation loop in this process, with no JVM, for a table on the local
filesystem written by the embedded engine's files (delta-rs):

1. ``plan``: the heads are read with pyarrow (:func:`~..heads.heads_in_driver`)
   and every group's fingerprint is computed bit for bit as Spark computes it
   (:func:`~.changes.plan_in_driver`), so either path sees the other's
   generations as unchanged inputs;
2. ``compute``: the changed groups' wire is built in Arrow and assigned by the
   worker function Spark's tasks run (:func:`~.compute.rows_from_arrow`);
3. ``stage``, ``heads``, ``commit``: the embedded backend's writer, the heads
   writer and the compare-and-set commit every rebalance uses
   (:func:`~..generation_table.commit_staged`), with its retries.

Invariants: the rows, generations, statuses, fingerprints and commit metadata
are those the Spark path writes for the same inputs (a differential test over
random fleets holds them equal, generation after generation); nothing is written
when an input is bad. Limits: topics as a dict, no weights (the load-aware
strategies read theirs through Spark), up to :data:`DRIVER_ROWS` subscription
rows. When the table needs Spark (heads to rebuild by a scan)
:class:`~spark_assign.errors.NeedsSparkError` is raised before anything is
written.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, Mapping, Optional, Sequence, cast

import pyarrow as pa
import pyarrow.compute as pc

from ...columns import check_arrow_columns
from ...core.consumer.model import check_topics
from ...core.consumer.registry import get_strategy
from ...errors import ConcurrentRebalanceError, InvalidInputError, NeedsSparkError
from ...schema import SUBSCRIPTION_COLUMNS
from ...spark.delta import is_path, resolve_location
from ..backend import Snapshot
from ..backends.embedded import EmbeddedBackend
from ..generation_table import check_loop_arguments, commit_staged, fault, upgrade_table
from ..heads import changed_heads, heads_in_driver, write_heads
from ..layout import ASSIGNMENTS, PARTITION_COLUMN, arrow_schema, check_new_table_folder, heads_name
from ..plan import Outcome, warn_about_input
from .changes import plan_in_driver
from .compute import rows_from_arrow
from .table import assignment_summary

__all__ = ["DRIVER_ROWS", "DriverRebalance", "rebalance_in_driver", "driver_table_reason", "latest_in_driver",
           "recorded_strategies"]

#: Subscription rows up to which the command line rebalances without Spark (the engine assigns
#: them in well under a second here; beyond, Spark's tasks pay for themselves).
DRIVER_ROWS = 50_000
#: Why a table whose latest commit names no heads (another tool's) needs Spark.
_SCANNED = "the table's latest commit is another tool's: its heads are rebuilt by a Spark scan"


@dataclass
class DriverRebalance:
    """What :func:`rebalance_in_driver` did: :class:`~..generation_table.Rebalance` with the rows
    as Arrow (the new generations' rows, empty when nothing changed), the version committed (None
    when nothing changed, or a dry run), the counts, and whether it was a dry run."""

    rows: pa.Table
    version: Optional[int]
    summary: Dict[str, int] = field(default_factory=dict)
    dry_run: bool = False


def driver_table_reason(location: str) -> Optional[str]:
    """Why the table at ``location`` needs Spark, or None when :func:`rebalance_in_driver` can
    take it: a local folder, absent or holding a state table whose heads are local files.

    Example::

        driver_table_reason("/tmp/state") is None
        driver_table_reason("ops.assignments")      # 'a catalog table is read through Spark'
    """
    if not is_path(location):
        return "a catalog table is read through Spark"
    backend = _backend(location)
    if backend is None:
        return "the embedded Delta engine writes local folders only"
    if not backend.exists():
        return None
    snap = backend.snapshot()
    backend.check(snap)
    if heads_in_driver(backend, snap) is None:
        return _SCANNED
    return None


def rebalance_in_driver(location: str, subscriptions: pa.Table, topics: Mapping[str, int], strategy: str,
                        force: bool = False, dry_run: bool = False, max_attempts: int = 5) -> DriverRebalance:
    """Compute and commit the next generation of every group whose inputs changed, without Spark.

    The rows and the commit are those :meth:`AssignmentTable.rebalance
    <spark_assign.AssignmentTable.rebalance>` writes for the same inputs (see the module doc).

    Example::

        subs = pa.table({"group_id": ["g", "g"], "member_id": ["a", "b"], "topic": ["orders", "orders"]})
        step = rebalance_in_driver("/tmp/state", subs, {"orders": 6}, "cooperative-sticky")
        step.version, step.summary["new"]          # 1, 6

    Parameters
    ----------
    location:
        The state table's folder (created by the first rebalance whose input is good).
    subscriptions:
        One row per member and topic, as for ``assign_partitions`` (Arrow); without
        ``group_id`` the table is the group ``"default"``.
    topics:
        ``{topic: partitions}``.
    strategy:
        A strategy name (Kafka's class names too); not one that balances weights.
    force, dry_run, max_attempts:
        As for :meth:`AssignmentTable.rebalance <spark_assign.AssignmentTable.rebalance>`.
    """
    chosen = get_strategy(strategy)
    if chosen.weighted:
        raise InvalidInputError(f"strategy {chosen.name!r} balances weights, which the rebalance without Spark "
                                "does not read: use AssignmentTable.rebalance with weights=", column="strategy")
    check_loop_arguments(None, max_attempts, force, dry_run)
    counts = check_topics(topics)
    subs = _subscriptions(subscriptions)
    backend = _backend(location)
    if backend is None:
        raise NeedsSparkError("the embedded Delta engine writes local folders only")
    attempt, upgraded = 0, False
    while attempt < max_attempts:
        attempt += 1
        snap = _current(backend)
        read = heads_in_driver(backend, snap)
        if read is None:
            raise NeedsSparkError(_SCANNED)
        heads, heads_dir = read
        todo = plan_in_driver(subs, counts, heads if heads.num_rows else None, chosen.name, force)
        warned = warn_about_input(todo, backend.root) if attempt == 1 else 0
        if not todo.changed:
            return DriverRebalance(arrow_schema().empty_table(), None,
                                   assignment_summary(todo, attempt, warned), dry_run)
        version = (snap.version if snap is not None else 0) + 1
        rows = rows_from_arrow(backend, subs, counts, chosen.name, snap, todo, version)
        if dry_run:
            outcome = Outcome.of(ASSIGNMENTS)
            outcome.add_arrow(rows)
            return DriverRebalance(rows, None, assignment_summary(todo, attempt, warned, outcome), True)
        if snap is None or backend.missing_columns(snap):
            if snap is None:
                backend.create(ASSIGNMENTS.description)
                moved_on = backend.snapshot()
            else:                                   # an older format: its columns first, in a commit of its own
                moved_on = upgrade_table(backend, snap)
            if moved_on.version != (snap.version if snap is not None else 0):
                if snap is not None and not upgraded:   # one upgrade is not a lost race: no attempt spent
                    upgraded, attempt = True, attempt - 1
                continue                            # another writer committed first, or the upgrade: again
            snap = moved_on
        fault("before-write")
        staged = backend.stage_arrow(rows, version)
        fault("after-write")
        summary = assignment_summary(todo, attempt, warned, staged.outcome)
        name = heads_name(version, uuid.uuid4().hex[:12])
        write_heads(backend, snap, None, heads_dir, name,
                    changed_heads(todo, staged.outcome, version, chosen.name, ASSIGNMENTS))
        if commit_staged(backend, snap, staged, name, {"strategy": chosen.name}, summary) is not None:
            return DriverRebalance(rows, version, summary)
        time.sleep(min(0.1 * 2 ** attempt, 2.0))
    raise ConcurrentRebalanceError(f"{backend.root}: other writers committed first {max_attempts} times; "
                                   "rebalance not committed")


def recorded_strategies(location: str) -> Dict[str, str]:
    """Per group of the table at ``location``, the strategy of its latest generation (from the
    heads, read with pyarrow; empty without a table).

    Example::

        recorded_strategies("/tmp/state")      # {'payments': 'cooperative-sticky', ...}
    """
    backend = _backend(location)
    if backend is None or not backend.exists():
        return {}
    read = heads_in_driver(backend, _current(backend))
    if read is None:
        raise NeedsSparkError(_SCANNED)
    return dict(zip(read[0].column("group_id").to_pylist(), read[0].column("strategy").to_pylist()))


def latest_in_driver(location: str, groups: Sequence[str], columns: Sequence[str]) -> pa.Table:
    """``columns`` of the latest generation's rows of ``groups`` in the table at ``location``,
    read with pyarrow (no rows for a group the table lacks, or no table).

    Example::

        latest_in_driver("/tmp/state", ["payments"], ["group_id", "member_id"]).num_rows
    """
    backend = _backend(location)
    if backend is None or not backend.exists():
        return pa.table({c: pa.array([], ASSIGNMENTS.arrow().field(c).type) for c in columns})
    snap = _current(backend)
    read = heads_in_driver(backend, snap)
    if read is None:
        raise NeedsSparkError(_SCANNED)
    heads = read[0].filter(pc.and_(pc.is_in(read[0].column("group_id"), pa.array(list(groups), pa.string())),
                                   pc.invert(pc.fill_null(read[0].column("empty"), False))))
    wanted = dict(zip(heads.column("group_id").to_pylist(), heads.column("generation").to_pylist()))
    if not wanted:
        return pa.table({c: pa.array([], ASSIGNMENTS.arrow().field(c).type) for c in columns})
    versions = sorted(set(heads.column(PARTITION_COLUMN).to_pylist()))
    rows = backend.read_arrow(cast(Snapshot, snap), versions, list(wanted), sorted({*columns, "group_id", "generation"}))
    latest = pc.take(pa.array(list(wanted.values()), pa.int32()),
                     pc.index_in(rows.column("group_id"), value_set=pa.array(list(wanted), pa.string())))
    return rows.filter(pc.equal(rows.column("generation"), latest)).select(list(columns))


def _backend(location: str) -> Optional[EmbeddedBackend]:
    """The embedded backend of the folder ``location`` without a session, or None for a location
    it cannot write (a remote URI)."""
    try:
        return EmbeddedBackend(None, resolve_location(location), ASSIGNMENTS)
    except InvalidInputError:
        return None


def _current(backend: EmbeddedBackend) -> Optional[Snapshot]:
    """The table's latest snapshot, checked (None: no table yet, and the folder may hold one)."""
    if not backend.exists():
        check_new_table_folder(backend.root)
        return None
    snap = backend.snapshot()
    backend.check(snap)
    return snap


def _subscriptions(table: pa.Table) -> pa.Table:
    """``table`` checked as subscriptions (the DataFrame method's refusals and warning), with
    ``group_id`` (``"default"`` when it has none)."""
    if not isinstance(table, pa.Table):
        raise InvalidInputError(f"subscriptions must be a pyarrow Table, got {type(table).__name__}",
                                column="subscriptions")
    check_arrow_columns(table, "subscriptions", SUBSCRIPTION_COLUMNS, warn_unknown=True)
    if "group_id" not in table.column_names:
        table = table.append_column("group_id", pa.array(["default"] * table.num_rows, pa.string()))
    groups = table.column("group_id")
    if groups.null_count:
        rows = pc.indices_nonzero(pc.is_null(groups)).to_pylist()[:5]
        raise InvalidInputError(f"subscriptions column 'group_id' is null in rows {rows}", column="group_id")
    return table

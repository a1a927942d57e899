"""``ReplicaTable``: a fleet's replica placements on brokers, generation after generation, in Delta.

The replica counterpart of :class:`~spark_assign.AssignmentTable`, on the
same generation loop, backends and guarantees
(:class:`~.generations.GenerationTable`): incremental, one atomic
compare-and-set commit per rebalance with bounded retries, idempotent,
history and time travel, nothing written for bad input. Its unit is a
cluster (``cluster_id``); its rows are those of
``DataFrame.assign_replicas`` plus ``generation``, ``previous_broker_id``,
``method`` and bookkeeping (:data:`~spark_assign.schema.REPLICA_STATE_COLUMNS`).

* ``plan``: a cluster's fingerprint hashes its topic rows (name, partition
  count, replication factor) and broker rows (id, rack, fenced), and the
  placement settings; only clusters whose fingerprint changed, and new ones,
  are recomputed;
* ``compute``: :func:`~.replica_generation.placement` on those clusters, with
  their latest generation as the previous placement: topics that had
  replicas are reassigned (``sticky`` by default, few moves), new topics are
  placed with ``method`` (``striped``, what a KRaft controller does). Up to
  :data:`LOCAL_ROWS` replicas the rows are collected and the driver writes
  them; beyond, Spark tasks write them;
* the summary counts replicas new, kept and moved, preferred leaders changed,
  and the lower bound of the moves (:mod:`.replica_generation`).
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.replicas.api import get_replica_method
from ...core.replicas.loads import DEFAULT_THRESHOLD
from ...errors import InvalidInputError
from ...progress import Stages
from ...spark.inputs import check_columns
from ...spark.replicas.dataframe import PREVIOUS_PLACEMENT_COLUMNS, check_options
from ..backend import Snapshot
from ..generation_table import REBALANCE_STAGES, Computed, GenerationTable, Rebalance, check_loop_arguments, data_errors
from ..heads import heads_at
from ..layout import PARTITION_COLUMN, REPLICAS
from ..plan import (FIELD_SEP, NULL_MARK, Outcome, Plan, changed_units, only_groups, only_heads, warn_about_input,
                   with_fingerprints, with_unit_values, without_unmoved)
from .compute import PREVIOUS_COLUMNS, PlacementSettings, figures, placement
from .loads import TableLoads, load_replans
from .staging import StageOptions, first_stage, unstaged

__all__ = ["ReplicaTable", "replica_lists", "changed_partitions", "LOCAL_ROWS"]

#: Up to this many replicas (as bounded by the plan) the changed clusters' rows are collected
#: (one job) and written by the driver (embedded engine), as for a few consumer groups.
LOCAL_ROWS = 100_000
#: Replicas per placement task at least (a few clusters: one task).
ROWS_PER_TASK = 50_000
KEY = REPLICAS.key
#: The summary's load counts (a rebalance with loads).
_LOAD_FIGURES = ("clusters_replanned_for_load", "clusters_replanned_unmoved")


@dataclass(frozen=True)
class _Request:
    """A rebalance's checked inputs: topics and brokers (both with ``cluster_id``), the
    placement settings, and the loop's arguments."""

    topics: DataFrame
    brokers: DataFrame
    settings: PlacementSettings
    num_files: Optional[int]
    max_attempts: int
    force: bool
    dry_run: bool = False
    #: The shared loop's application transaction: ReplicaTable.rebalance offers none yet.
    transaction: Optional[Tuple[str, int]] = None
    #: A staged rebalance's limits (None: each plan in one generation).
    stages: Optional[StageOptions] = None
    #: The clusters' real placement (``PREVIOUS_COLUMNS``), where the table's may be stale.
    current: Optional[DataFrame] = None
    #: Per-partition loads the reassignment balances (None: counts only).
    loads: Optional[TableLoads] = None


class ReplicaTable(GenerationTable):
    """The replica placements of a fleet of Kafka clusters: a Delta table, one row per replica per
    cluster per generation.

    Example::

        from spark_assign import ReplicaTable, local_session
        spark = local_session()
        table = ReplicaTable(spark, "/tmp/fleet-replicas")
        step = table.rebalance(topics, brokers, replication_factor=3)
        step.summary     # {'clusters_recomputed': ..., 'replicas_moved': ..., 'lower_bound': ..., ...}
        table.latest().show()

    Parameters: ``spark``, ``location`` (a folder, URI or catalog name) and ``engine``, as
    for every state table (:class:`~spark_assign.state.generation_table.GenerationTable`).
    """

    kind = REPLICAS

    def rebalance(self, topics: DataFrame, brokers: DataFrame, replication_factor: Optional[int] = None,
                  method: str = "striped", reassign: Optional[str] = "sticky", seed: int = 0,
                  start_index: Optional[int] = None, rack_aware: Optional[str] = None,
                  num_files: Optional[int] = None, max_attempts: int = 5, force: bool = False,
                  dry_run: bool = False, max_moves_per_broker: Optional[int] = None,
                  max_bytes_per_stage: Optional[int] = None, sizes: Optional[DataFrame] = None,
                  current: Optional[DataFrame] = None, loads: Optional[DataFrame] = None,
                  threshold: float = DEFAULT_THRESHOLD, max_replicas_per_broker: Optional[int] = None) -> Rebalance:
        """Compute and commit the next placement of every cluster whose topics, brokers or settings changed.

        Example::

            step = table.rebalance(topics, brokers, replication_factor=3)
            step.version, step.summary["replicas_moved"], step.summary["lower_bound"]

        Parameters
        ----------
        topics:
            One row per topic: ``topic``, ``num_partitions``, optionally ``replication_factor``
            and ``cluster_id`` (as for ``DataFrame.assign_replicas``); without ``cluster_id``
            the topics and brokers are the cluster ``"default"``.
        brokers:
            One row per broker: ``broker_id``, optionally ``rack``, ``fenced`` and ``cluster_id``.
        replication_factor:
            Replicas per partition of topics without a ``replication_factor`` value.
        method:
            How topics without replicas yet are placed: ``striped`` (KRaft's controller, the
            default) or ``admin-utils``.
        reassign:
            How topics that have replicas are reassigned when their cluster changed:
            ``sticky`` (the default: moves few replicas), or None to place them again with
            ``method`` (as ``kafka-reassign-partitions --generate`` does).
        seed, start_index, rack_aware:
            As for ``DataFrame.assign_replicas`` (``start_index`` applies to ``method`` only).
        num_files:
            Data files to write (default: one per million rows).
        max_attempts:
            Commits tried when other writers keep committing first.
        force:
            Recompute every cluster, changed or not.
        dry_run:
            Return the rows and summary a commit would write, and write nothing (``version`` None).
        max_moves_per_broker:
            Stage the plans (:mod:`.staging`): each changed cluster's generation is the first
            stage of its way to the balanced placement, with at most this many replicas gained or
            lost per broker (Cruise Control's default is 5); a cluster with stages left is
            recomputed by the next rebalance, whose generation is its next stage. None (the
            default): each plan in one generation (and a pending plan is completed).
        max_bytes_per_stage:
            With ``max_moves_per_broker``: at most this many bytes copied per stage (needs ``sizes``).
        sizes:
            With ``max_moves_per_broker``: partition sizes, rows of ``topic``, ``partition``,
            ``size_bytes`` (and ``cluster_id``), as ``kafka-log-dirs --describe`` reports them.
        current:
            The clusters' real placement now, rows of ``topic``, ``partition``,
            ``replica_index``, ``broker_id`` (and ``cluster_id``), for instance after a staged
            plan was interrupted or a stage was executed only in part. A cluster it lists is
            recomputed from it when it differs from the table's latest generation (and planned
            from it when the table has none); a staged plan then starts again at stage 1.
        loads:
            Per-partition loads the ``sticky`` reassignment balances, as for
            ``DataFrame.assign_replicas`` (rows of ``topic``, ``partition``, numeric load columns,
            and ``cluster_id``; brokers' ``capacity_<load>`` columns are capacities). Loads are not
            in the fingerprint: a cluster that did not change is re-planned when its latest
            generation misses a goal under the new loads (:mod:`.loads`), and committed only if
            that moves something.
        threshold, max_replicas_per_broker:
            With ``loads``: as for ``assign_replicas``.

        Returns
        -------
        Rebalance
            The new rows, the committed version (None when nothing changed) and ``summary``:
            ``clusters_recomputed``, ``clusters_unchanged``, ``replicas_new``, ``replicas_kept``,
            ``replicas_moved``, ``leaders_changed``, ``lower_bound``, ``attempts``, ``warnings``;
            a staged rebalance adds ``clusters_with_stages_left``; one with loads adds
            ``clusters_replanned_for_load`` and ``clusters_replanned_unmoved`` (not committed).
        """
        request = self._request(topics, brokers, replication_factor, method, reassign, seed, start_index,
                                rack_aware, num_files, max_attempts, force, dry_run)
        keyed = KEY in topics.columns or KEY in brokers.columns
        request = self._staging(request, keyed, max_moves_per_broker, max_bytes_per_stage, sizes, current)
        if loads is not None:
            request = self._with_loads(request, keyed, loads, threshold, max_replicas_per_broker)
        with Stages(f"rebalance {self.location}", REBALANCE_STAGES) as stages:
            return self._generations(request, stages)

    def _request(self, topics: DataFrame, brokers: DataFrame, replication_factor: Optional[int], method: str,
                 reassign: Optional[str], seed: int, start_index: Optional[int], rack_aware: Optional[str],
                 num_files: Optional[int], max_attempts: int, force: bool, dry_run: bool = False) -> _Request:
        """Check the arguments and the inputs' schemas, before any Spark job."""
        chosen = get_replica_method(method)
        if chosen.needs_previous:
            raise InvalidInputError(f"method places topics that have no replicas yet; {chosen.name!r} needs a "
                                    "previous placement: use reassign=", column="method", rows=[method])
        again = None if reassign is None else get_replica_method(reassign).name
        # The same checks as assign_replicas' (one home for the replica options).
        options = check_options(chosen.name, replication_factor, seed, start_index, rack_aware, has_previous=False,
                                previous_hint="reassign=")
        check_loop_arguments(num_files, max_attempts, force, dry_run)
        for name, frame in (("topics", topics), ("brokers", brokers)):
            if not isinstance(frame, DataFrame):
                raise InvalidInputError(f"{name} must be a DataFrame, got {type(frame).__name__}", column=name)
        if KEY not in topics.columns and KEY not in brokers.columns:
            topics, brokers = (df.withColumn(KEY, F.lit("default")) for df in (topics, brokers))
        settings = PlacementSettings(chosen.name, again, options.replication_factor, options.seed,
                                     options.start_index, options.rack_aware)
        settings.check(topics, brokers)                        # schemas and arguments, no job
        return _Request(topics, brokers, settings, num_files, max_attempts, force, dry_run)

    def _staging(self, request: _Request, keyed: bool, max_moves_per_broker: object, max_bytes_per_stage: object,
                 sizes: object, current: object) -> _Request:
        """``request`` with the checked stage options and current placement; ``keyed``: the
        topics or brokers name their clusters, so ``sizes`` and ``current`` must too."""
        options = StageOptions.of(max_moves_per_broker, max_bytes_per_stage, sizes)
        given = [("sizes", options.sizes)] if options is not None and options.sizes is not None else []
        if current is not None:
            if not isinstance(current, DataFrame):
                raise InvalidInputError(f"current must be a DataFrame, got {type(current).__name__}",
                                        column="current")
            check_columns(current, "current", PREVIOUS_PLACEMENT_COLUMNS)
            given.append(("current", current))
        for name, frame in given:
            if keyed != (KEY in frame.columns):
                raise InvalidInputError(f"{name} {'lacks' if keyed else 'has'} {KEY}, and the topics and brokers "
                                        f"{'have one' if keyed else 'have none'}", column=KEY)
        if current is not None and not keyed:
            current = current.withColumn(KEY, F.lit("default"))
        return dataclasses.replace(request, stages=options,
                                   current=None if current is None else current.select(*PREVIOUS_COLUMNS))

    def _with_loads(self, request: _Request, keyed: bool, loads: object, threshold: object,
                    max_replicas_per_broker: object) -> _Request:
        """``request`` with its checked loads (``keyed``: as for ``sizes``)."""
        if not isinstance(loads, DataFrame):
            raise InvalidInputError(f"loads must be a DataFrame, got {type(loads).__name__}", column="loads")
        if keyed != (KEY in loads.columns):
            raise InvalidInputError(f"loads {'lacks' if keyed else 'has'} {KEY}, and the topics and brokers "
                                    f"{'have one' if keyed else 'have none'}", column=KEY)
        if not keyed:
            loads = loads.withColumn(KEY, F.lit("default"))
        checked = TableLoads.of(loads, request.brokers, request.settings.reassign, threshold, max_replicas_per_broker)
        return dataclasses.replace(request, loads=checked)

    def _plan(self, request: _Request, heads: DataFrame, snap: Optional[Snapshot]) -> Plan:
        """Fingerprints of the clusters' topic and broker rows (see :func:`.plan.changed_units`);
        a cluster with stages left is recomputed, and so is one whose ``current`` placement differs
        from its latest generation."""
        t, b = set(request.topics.columns), set(request.brokers.columns)
        rf = "CAST(replication_factor AS bigint)" if "replication_factor" in t else "CAST(NULL AS bigint)"
        if request.settings.replication_factor is not None:
            rf = f"coalesce({rf}, {request.settings.replication_factor})"
        topic_text = [f"coalesce(CAST(topic AS string), '{NULL_MARK}')",
                      f"coalesce(CAST(num_partitions AS string), '{NULL_MARK}')",
                      f"coalesce(CAST({rf} AS string), '{NULL_MARK}')"]
        broker_text = [f"coalesce(CAST(broker_id AS string), '{NULL_MARK}')",
                       f"coalesce(rack, '{NULL_MARK}')" if "rack" in b else f"'{NULL_MARK}'",
                       "coalesce(CAST(fenced AS string), 'false')" if "fenced" in b else "'false'"]
        topic_rows = request.topics.selectExpr(
            KEY, f"concat_ws('{FIELD_SEP}', 'topic', {', '.join(topic_text)}) AS _text",
            f"greatest(coalesce(CAST(num_partitions AS bigint), 0), 0) * greatest(coalesce({rf}, 1), 1) AS _n",
            "CAST(NULL AS string) AS _missing", "CAST(NULL AS int) AS _odd_generation")
        broker_rows = request.brokers.selectExpr(
            KEY, f"concat_ws('{FIELD_SEP}', 'broker', {', '.join(broker_text)}) AS _text", "CAST(0 AS bigint) AS _n",
            "CAST(NULL AS string) AS _missing", "CAST(NULL AS int) AS _odd_generation")
        salt = request.settings.salt() + (request.loads.salt() if request.loads is not None else "")
        todo = changed_units(topic_rows.unionByName(broker_rows), heads, salt, request.force,
                             also_changed="coalesce(_pending, false)", key=KEY,
                             recompute=self._differs(request.current, heads, snap))
        if request.loads is None or snap is None or todo.everything:
            return todo
        extra = load_replans(self._latest_rows(snap, heads), heads, request.brokers, request.loads, todo)
        return dataclasses.replace(todo, changed={**todo.changed, **extra}, replanned=list(extra))

    def _differs(self, current: Optional[DataFrame], heads: DataFrame,
                 snap: Optional[Snapshot]) -> Optional[DataFrame]:
        """The clusters of ``current`` whose placement is not their latest generation's (lazy)."""
        if current is None:
            return None
        if snap is None:
            return current.select(KEY).distinct()
        latest = self._latest_rows(snap, heads).select(*PREVIOUS_COLUMNS).join(
            current.select(KEY).distinct(), KEY, "left_semi")
        return current.subtract(latest).select(KEY).unionByName(latest.subtract(current).select(KEY)).distinct()

    def _warn(self, todo: Plan) -> int:
        return warn_about_input(todo, self.location, source="topics and brokers")

    def _compute(self, request: _Request, snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Computed:
        """The changed clusters' next placement and what it moved: collected to the driver for up
        to :data:`LOCAL_ROWS` replicas, else checkpointed in Spark (the engine runs once)."""
        ids = list(todo.changed)
        topics, brokers = (df if todo.everything else only_groups(df, todo, ids, KEY)
                           for df in (request.topics, request.brokers))
        previous = self._previous(snap, todo, ids, request.current, brokers)
        small = todo.rows <= LOCAL_ROWS
        tasks = 1 if small else self._parts_for(todo.rows, ROWS_PER_TASK)
        balance = None if request.loads is None else request.loads.input(
            request.loads.frame if todo.everything else only_groups(request.loads.frame, todo, ids, KEY))
        placed = placement(topics, brokers, previous, request.settings, tasks, balance)
        if request.stages is None:
            placed = unstaged(placed)
        else:
            sizes = request.stages.sizes
            options = request.stages if sizes is None or todo.everything else \
                dataclasses.replace(request.stages, sizes=only_groups(sizes, todo, ids, KEY))
            placed = first_stage(placed, previous, options)
        generations = {g: (c.generation or 0) + 1 for g, c in todo.changed.items()}
        now = datetime.datetime.now(datetime.timezone.utc)
        rows = (with_unit_values(with_fingerprints(placed, todo, ids, KEY), generations, "generation", "int", KEY)
                .withColumn("committed_at", F.lit(now).cast("timestamp"))
                .withColumn(PARTITION_COLUMN, F.lit(version).cast("bigint"))
                .select(*self.kind.names))
        with data_errors():
            done: "pa.Table | DataFrame" = rows.toArrow().cast(self.kind.arrow()) if small else rows.localCheckpoint()
        found = figures(done, topics, brokers, previous, request.settings)
        if request.stages is not None:
            found["staged"] = 1
        if not todo.replanned:
            return Computed(done, found)
        kept, narrowed, settled = without_unmoved(done, todo, KEY)
        found.update(clusters_replanned_for_load=len(todo.replanned), clusters_replanned_unmoved=len(settled))
        return Computed(kept, found, narrowed)

    def _previous(self, snap: Optional[Snapshot], todo: Plan, ids: List[str], current: Optional[DataFrame],
                  brokers: DataFrame) -> Optional[DataFrame]:
        """The placement the clusters ``ids`` are in (None when none has one), in the columns a
        staged pass reads (:mod:`.staging`): their ``current`` rows where given (``rack`` of
        the brokers, ``method`` unknown, no stage), else their latest generation, read from the
        partitions holding it."""
        columns = PREVIOUS_COLUMNS + ["rack", "method", "stage", "stages_left"]
        found: List[DataFrame] = []
        if current is not None:
            mine = current if todo.everything else only_groups(current, todo, ids, KEY)
            racks = brokers.select(KEY, "broker_id", "rack") if "rack" in brokers.columns else \
                brokers.select(KEY, "broker_id", F.lit(None).cast("string").alias("rack"))
            found.append(mine.join(racks.dropDuplicates([KEY, "broker_id"]), [KEY, "broker_id"], "left")
                         .select(*PREVIOUS_COLUMNS, F.col("rack").cast("string"),
                                 F.lit(None).cast("string").alias("method"), F.lit(None).cast("int").alias("stage"),
                                 F.lit(None).cast("int").alias("stages_left")))
        heads = todo.latest(ids)
        if heads:
            versions = sorted({cast(int, todo.changed[g].commit_version) for g in heads})
            rows = only_heads(self._backend.read(cast(Snapshot, snap), commit_versions=versions), todo, ids, KEY)
            if current is not None:
                rows = rows.join(current.select(KEY).distinct(), KEY, "left_anti")
            found.append(rows.select(*columns))
        if not found:
            return None
        return found[0] if len(found) == 1 else found[0].unionByName(found[1])

    def _summary(self, todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                 figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        extra = figures or {}
        loads: Dict[str, int] = {n: extra[n] for n in _LOAD_FIGURES if n in extra}
        if outcome is None:
            return {"clusters_recomputed": 0, "clusters_unchanged": todo.groups, "attempts": attempt,
                    "warnings": warned, **loads}
        counts = outcome.counts
        summary = {"clusters_recomputed": len(todo.changed), "clusters_unchanged": todo.groups - len(todo.changed),
                   "replicas_new": counts["new"], "replicas_kept": counts["kept"], "replicas_moved": counts["moved"],
                   "leaders_changed": extra.get("leaders_changed", 0), "lower_bound": extra.get("lower_bound", 0),
                   "attempts": attempt, "warnings": warned, **loads}
        if extra.get("staged"):
            summary["clusters_with_stages_left"] = sum(1 for _, pending in outcome.groups.values() if pending)
        return summary

    def _commit_info(self, request: _Request) -> Dict[str, object]:
        info: Dict[str, object] = {"method": request.settings.method, "reassign": request.settings.reassign}
        if request.stages is not None:
            info.update(max_moves_per_broker=request.stages.max_moves_per_broker,
                        max_bytes_per_stage=request.stages.max_bytes_per_stage)
        return info

    def _heads_strategy(self, request: _Request) -> str:
        return request.settings.method

    # ------------------------------------------------------------------ reads

    def history(self, cluster_id: str) -> DataFrame:
        """Every generation of one cluster, oldest first.

        Example::

            table.history("eu-1").where("status = 'moved'").show()

        Parameters
        ----------
        cluster_id:
            The cluster (``"default"`` when the inputs had no ``cluster_id``).
        """
        return self._history(cluster_id, ["topic", "partition", "replica_index"])

    def diff(self, from_generation: int, to_generation: int) -> DataFrame:
        """Partitions whose replicas differ between two generations (each cluster at its latest
        generation not after each number): one row per partition.

        Columns: ``cluster_id, topic, partition, from_generation, from_replicas, to_generation,
        to_replicas`` (replica lists in order, the preferred leader first; null where the
        partition did not exist).

        Example::

            table.diff(1, 3).show(truncate=False)
        """
        a = replica_lists(self.at(generation=from_generation), "from_")
        b = replica_lists(self.at(generation=to_generation), "to_")
        joined = a.join(b, [KEY, "topic", "partition"], "full_outer")
        return joined.where(~F.col("from_replicas").eqNullSafe(F.col("to_replicas"))).select(
            KEY, "topic", "partition", "from_generation", "from_replicas", "to_generation", "to_replicas")

    def reassignment(self, version: Optional[int] = None) -> DataFrame:
        """What the rebalance that wrote ``version`` (default: the latest) asks brokers to do:
        the partitions that existed before it and whose replica list changed (moved replicas,
        or only a new preferred leader). The input of ``kafka-reassign-partitions --execute``.

        Columns: ``cluster_id, topic, partition, replicas, previous_replicas`` (lists in
        replica order, the preferred leader first).

        Example::

            for r in table.reassignment().collect():
                print(r.topic, r.partition, r.previous_replicas, "->", r.replicas)

        Parameters
        ----------
        version:
            A Delta version of the table written by a rebalance, or None for the latest.
        """
        snap = self._snapshot(version)
        written = self._backend.read(snap, commit_versions=[snap.version])
        if snap.version <= 1:
            return changed_partitions(written, written.where(F.lit(False)))
        before = self._snapshot(snap.version - 1)
        old = self._latest_rows(before, heads_at(self._backend, before))
        return changed_partitions(written, old.join(written.select(KEY).distinct(), KEY, "left_semi"))


def replica_lists(rows: DataFrame, prefix: str = "") -> DataFrame:
    """One row per partition of replica ``rows``: ``cluster_id, topic, partition``,
    ``<prefix>generation`` (0 when ``rows`` have none) and ``<prefix>replicas`` (broker ids by
    ``replica_index``).

    Example::

        replica_lists(table.latest()).show(truncate=False)
    """
    if "generation" not in rows.columns:
        rows = rows.withColumn("generation", F.lit(0))
    slots = F.sort_array(F.collect_list(F.struct("replica_index", "broker_id")))
    return (rows.groupBy(KEY, "topic", "partition")
                .agg(F.max("generation").alias(f"{prefix}generation"), slots.alias("_slots"))
                .select(KEY, "topic", "partition", f"{prefix}generation",
                        F.transform("_slots", lambda s: s["broker_id"]).alias(f"{prefix}replicas")))


def changed_partitions(new: DataFrame, old: DataFrame) -> DataFrame:
    """Partitions in both replica placements (rows of ``cluster_id, topic, partition,
    replica_index, broker_id``, ``generation`` optional) whose replica list differs:
    ``cluster_id, topic, partition, replicas, previous_replicas``, sorted by cluster, topic
    and partition.

    Example::

        changed_partitions(proposed, current).count()      # partitions kafka-reassign-partitions would move
    """
    a, b = replica_lists(new, "new_"), replica_lists(old, "old_")
    joined = a.join(b, [KEY, "topic", "partition"], "inner").where(F.col("new_replicas") != F.col("old_replicas"))
    return joined.select(KEY, "topic", "partition", F.col("new_replicas").alias("replicas"),
                         F.col("old_replicas").alias("previous_replicas")).orderBy(KEY, "topic", "partition")

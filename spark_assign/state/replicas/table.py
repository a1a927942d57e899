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

import datetime
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, cast

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.replicas.api import get_replica_method
from ...errors import InvalidInputError
from ...progress import Stages
from ...spark.replicas.dataframe import check_options
from ..backend import Snapshot
from ..generation_table import REBALANCE_STAGES, Computed, GenerationTable, Rebalance, check_loop_arguments, data_errors
from ..heads import heads_at
from ..layout import PARTITION_COLUMN, REPLICAS
from ..plan import (FIELD_SEP, NULL_MARK, Outcome, Plan, changed_units, only_groups, only_heads, warn_about_input,
                   with_fingerprints, with_unit_values)
from .compute import PREVIOUS_COLUMNS, PlacementSettings, figures, placement

__all__ = ["ReplicaTable", "replica_lists", "changed_partitions", "LOCAL_ROWS"]

#: Up to this many replicas (as bounded by the plan) the changed clusters' rows are collected
#: (one job) and written by the driver (embedded engine), as for a few consumer groups.
LOCAL_ROWS = 100_000
#: Replicas per placement task at least (a few clusters: one task).
ROWS_PER_TASK = 50_000
KEY = REPLICAS.key


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
                  dry_run: bool = False) -> Rebalance:
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

        Returns
        -------
        Rebalance
            The new rows, the committed version (None when nothing changed) and ``summary``:
            ``clusters_recomputed``, ``clusters_unchanged``, ``replicas_new``, ``replicas_kept``,
            ``replicas_moved``, ``leaders_changed``, ``lower_bound``, ``attempts``, ``warnings``.
        """
        request = self._request(topics, brokers, replication_factor, method, reassign, seed, start_index,
                                rack_aware, num_files, max_attempts, force, dry_run)
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

    def _plan(self, request: _Request, heads: DataFrame, snap: Optional[Snapshot]) -> Plan:
        """Fingerprints of the clusters' topic and broker rows (see :func:`.plan.changed_units`)."""
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
        return changed_units(topic_rows.unionByName(broker_rows), heads, request.settings.salt(), request.force,
                             key=KEY)

    def _warn(self, todo: Plan) -> int:
        return warn_about_input(todo, self.location, source="topics and brokers")

    def _compute(self, request: _Request, snap: Optional[Snapshot], todo: Plan, version: int,
                 reuse: Optional[tuple]) -> Computed:
        """The changed clusters' next placement and what it moved: collected to the driver for up
        to :data:`LOCAL_ROWS` replicas, else checkpointed in Spark (the engine runs once)."""
        ids = list(todo.changed)
        topics, brokers = (df if todo.everything else only_groups(df, todo, ids, KEY)
                           for df in (request.topics, request.brokers))
        previous = self._previous(snap, todo, ids)
        small = todo.rows <= LOCAL_ROWS
        tasks = 1 if small else self._parts_for(todo.rows, ROWS_PER_TASK)
        placed = placement(topics, brokers, previous, request.settings, tasks)
        generations = {g: (c.generation or 0) + 1 for g, c in todo.changed.items()}
        now = datetime.datetime.now(datetime.timezone.utc)
        rows = (with_unit_values(with_fingerprints(placed, todo, ids, KEY), generations, "generation", "int", KEY)
                .withColumn("committed_at", F.lit(now).cast("timestamp"))
                .withColumn(PARTITION_COLUMN, F.lit(version).cast("bigint"))
                .select(*self.kind.names))
        with data_errors():
            done: "pa.Table | DataFrame" = rows.toArrow().cast(self.kind.arrow()) if small else rows.localCheckpoint()
        return Computed(done, figures(done, topics, brokers, previous, request.settings))

    def _previous(self, snap: Optional[Snapshot], todo: Plan, ids: List[str]) -> Optional[DataFrame]:
        """The latest generation of the clusters ``ids``, read from the partitions holding it
        (None when none has one)."""
        heads = todo.latest(ids)
        if not heads:
            return None
        versions = sorted({cast(int, todo.changed[g].commit_version) for g in heads})
        rows = self._backend.read(cast(Snapshot, snap), commit_versions=versions)
        return only_heads(rows, todo, ids, KEY).select(*PREVIOUS_COLUMNS)

    def _summary(self, todo: Plan, attempt: int, warned: int, outcome: Optional[Outcome] = None,
                 figures: Optional[Dict[str, int]] = None) -> Dict[str, int]:
        if outcome is None:
            return {"clusters_recomputed": 0, "clusters_unchanged": todo.groups, "attempts": attempt,
                    "warnings": warned}
        counts, extra = outcome.counts, figures or {}
        return {"clusters_recomputed": len(todo.changed), "clusters_unchanged": todo.groups - len(todo.changed),
                "replicas_new": counts["new"], "replicas_kept": counts["kept"], "replicas_moved": counts["moved"],
                "leaders_changed": extra.get("leaders_changed", 0), "lower_bound": extra.get("lower_bound", 0),
                "attempts": attempt, "warnings": warned}

    def _commit_info(self, request: _Request) -> Dict[str, object]:
        return {"method": request.settings.method, "reassign": request.settings.reassign}

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

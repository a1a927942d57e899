"""The next generation's rows of the changed groups: computed by Spark, or in the driver.

:func:`rows_in_spark` runs ``assign_partitions`` over the changed groups'
subscriptions (one query; Spark tasks run the engine). :func:`rows_in_driver`
collects those subscriptions as Arrow (one job), reads the groups' previous
rows as Arrow (embedded: pyarrow, no job; delta-spark: one scan), and runs
the engine here:
for a few small groups, where the assignment job's fixed costs would
dominate. Both give the state table's columns, ``commit_version`` included.

A group left without partitions (its topics are gone, see
:func:`.plan.changed_heads`) has no previous rows; the engine gets one row
that only carries its generation number, so its next generation follows it.
"""

from __future__ import annotations

import datetime
from typing import Any, Dict, List, Mapping, Optional, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...spark.consumer.dataframe import assign_frame, assign_local
from ...schema import SUBSCRIPTION_COLUMNS
from ...spark.consumer.wire import KIND_PREVIOUS, KIND_SUBSCRIPTION, WIRE_SCHEMA, append_rows, result_arrow_schema
from ...spark.consumer.worker import assign_batches
from ...spark.inputs import PREVIOUS_ASSIGNMENT_COLUMNS
from ..backend import Snapshot, StateBackend
from ..layout import PARTITION_COLUMN, TABLE_COLUMNS, arrow_schema, spark_ddl
from ..plan import Plan, only_groups, only_heads, with_fingerprints
from .request import Request

__all__ = ["rows_in_spark", "rows_in_driver", "rows_from_arrow", "state_rows", "previous_arrow", "job_weights"]

#: What a rebalance reads of the latest generation (the engine's ``previous``), and their types.
PREVIOUS_COLUMNS = [name for name, _, _ in PREVIOUS_ASSIGNMENT_COLUMNS]
_PREVIOUS_TYPES = [c for c in TABLE_COLUMNS if c[0] in PREVIOUS_COLUMNS]


def rows_in_spark(backend, request: Request, snap: Optional[Snapshot], todo: Plan, version: int, tasks: int,
                  reuse: Optional[tuple]) -> DataFrame:
    """The new generation's rows for the changed groups of ``todo``, computed by ``tasks`` Spark
    tasks (reusing a failed attempt's rows for groups whose head did not move since)."""
    ids = list(todo.changed)
    kept = None
    if reuse is not None:
        old_rows, old = reuse
        same = [g for g in ids if old.changed.get(g) == todo.changed[g]]
        if same:
            taken = set(same)
            ids = [g for g in ids if g not in taken]
            kept = only_groups(old_rows, todo, same).withColumn(PARTITION_COLUMN, F.lit(version).cast("bigint"))
            if not ids:
                return kept
    everything = todo.everything and kept is None
    subs = request.subscriptions if everything else only_groups(request.subscriptions, todo, ids)
    previous = _previous(backend, snap, todo, ids)
    result = assign_frame(subs, request.strategy, request.topic_df, previous, num_partitions=tasks,
                          with_instance=True, weights=job_weights(request, todo, ids, everything), **request.options)
    if "weight" not in result.columns:
        result = result.withColumn("weight", F.lit(None).cast("double"))
    rows = (with_fingerprints(result, todo, ids)
            .withColumn("strategy", F.lit(request.strategy))
            .withColumn("committed_at", F.lit(datetime.datetime.now(datetime.timezone.utc)).cast("timestamp"))
            .withColumn(PARTITION_COLUMN, F.lit(version).cast("bigint"))
            .select(*[n for n, _ in TABLE_COLUMNS]))
    return rows if kept is None else rows.unionByName(kept)


def rows_in_driver(backend, request: Request, snap: Optional[Snapshot], todo: Plan, version: int) -> pa.Table:
    """:func:`rows_in_spark` in the driver, as Arrow: the changed groups' inputs are collected
    (one job) and assigned here. The caller bounds the rows."""
    ids = list(todo.changed)
    subs = request.subscriptions if todo.everything else only_groups(request.subscriptions, todo, ids)
    previous = previous_arrow(backend, snap, todo, ids)
    result = assign_local(subs, request.strategy, request.topics, previous, with_instance=True,
                          weights=job_weights(request, todo, ids, todo.everything), **request.options)
    return state_rows(result, todo, request.strategy, version)


def rows_from_arrow(backend: StateBackend, subscriptions: pa.Table, topic_counts: Mapping[str, int], strategy: str,
                    snap: Optional[Snapshot], todo: Plan, version: int) -> pa.Table:
    """:func:`rows_in_driver` without Spark: ``subscriptions`` already Arrow (checked, with
    ``group_id``), the topics a checked dict, no weights. The wire is built here as Spark would
    build it (:func:`~spark_assign.spark.consumer.wire.build_wire`: the counts travel with the
    call) and the same worker function assigns it."""
    ids = list(todo.changed)
    groups = subscriptions.column("group_id")
    subs = subscriptions if todo.everything else subscriptions.filter(pc.is_in(groups, pa.array(ids, pa.string())))
    taken = {n for n, _, _ in SUBSCRIPTION_COLUMNS} & set(subs.column_names)
    kinds = pa.array(np.full(subs.num_rows, KIND_SUBSCRIPTION, dtype=np.int8))
    wire = pa.table({f.name: kinds if f.name == "kind" else subs.column(f.name).cast(f.type)
                     for f in WIRE_SCHEMA if f.name == "kind" or f.name in taken})
    previous = previous_arrow(backend, snap, todo, ids)
    if previous is not None:
        wire = append_rows(wire, previous, KIND_PREVIOUS)
    schema = result_arrow_schema(True, False)
    if wire.num_rows == 0:
        return state_rows(schema.empty_table(), todo, strategy, version)
    wire = wire.sort_by([("group_id", "ascending")]).combine_chunks()
    batches = list(assign_batches(iter(wire.to_batches()), strategy, group_column=True, with_instance=True,
                                  options={}, topic_counts=dict(topic_counts)))
    return state_rows(pa.Table.from_batches(batches, schema=schema), todo, strategy, version)


def state_rows(result: pa.Table, todo: Plan, strategy: str, version: int) -> pa.Table:
    """The engine's rows for the changed groups of ``todo`` (with the owner's
    ``group_instance_id`` and the group's ``members``) as the state table's rows of
    ``commit_version`` ``version``: each group's fingerprint, the strategy, the commit time, and
    null weights when none were given."""
    groups = result.column("group_id")
    known = pc.unique(groups)
    fingerprint = pa.array([todo.changed[g].fingerprint for g in known.to_pylist()], type=pa.string())
    n = result.num_rows
    now = datetime.datetime.now(datetime.timezone.utc)
    extra = {"input_fingerprint": pc.take(fingerprint, pc.index_in(groups, value_set=known)),
             "strategy": pa.array([strategy] * n, type=pa.string()),
             "committed_at": pa.array([now] * n, type=pa.timestamp("us", tz="UTC")),
             PARTITION_COLUMN: pa.array(np.full(n, version, dtype=np.int64))}
    if "weight" not in result.column_names:
        extra["weight"] = pa.nulls(n, pa.float64())
    schema = arrow_schema()
    return pa.table([extra[f.name] if f.name in extra else result.column(f.name) for f in schema], schema=schema)


def job_weights(request: Request, todo: Plan, ids: List[str], everything: bool) -> Any:
    """The weights the changed groups ``ids`` read: a dict as given (it travels with the job),
    else the DataFrame without other groups' per-group weights (each group's own weight rows
    travel with it on the wire, see :mod:`spark_assign.spark.consumer.wire`)."""
    if request.weight_dict is not None:
        return request.weight_dict
    w = request.weights
    if w is None or everything or "group_id" not in w.columns:
        return w
    return only_groups(w, todo, ids)


def _previous(backend, snap: Optional[Snapshot], todo: Plan, ids: List[str]) -> Optional[DataFrame]:
    """The latest generation of the groups ``ids``: only the partitions holding one, no job
    (None when none has one, as in a table not created yet: ``snap`` None)."""
    heads = todo.latest(ids)
    marks = todo.emptied(ids)
    versions = sorted({cast(int, todo.changed[g].commit_version) for g in heads})   # a head has its version
    rows = only_heads(backend.read(snap, commit_versions=versions), todo, ids) if versions else None
    if marks:
        marked = backend.spark.createDataFrame(_generation_marks(marks), schema=spark_ddl(_PREVIOUS_TYPES))
        rows = marked if rows is None else rows.select(*PREVIOUS_COLUMNS).unionByName(marked)
    return rows


def previous_arrow(backend: StateBackend, snap: Optional[Snapshot], todo: Plan,
                    ids: List[str]) -> Optional[pa.Table]:
    """:func:`_previous`, as Arrow on the driver."""
    heads = todo.latest(ids)
    parts = [_generation_marks(todo.emptied(ids))]
    if heads:
        versions = sorted({cast(int, todo.changed[g].commit_version) for g in heads})   # a head has its version
        rows = backend.read_arrow(cast(Snapshot, snap), versions, list(heads), PREVIOUS_COLUMNS)
        latest = pc.index_in(rows.column("group_id"), value_set=pa.array(list(heads), type=pa.string()))
        wanted = pc.take(pa.array(list(heads.values()), type=pa.int32()), latest)
        parts.append(rows.filter(pc.equal(rows.column("generation"), wanted)))
    previous = pa.concat_tables(parts)
    return previous if previous.num_rows else None


def _generation_marks(generations: Dict[str, int]) -> pa.Table:
    """A previous row per group that only says its latest generation number (no member, topic
    or partition: nothing is owned), for groups whose latest generation is empty."""
    n = len(generations)
    columns = {"group_id": pa.array(list(generations), type=pa.string()),
               "generation": pa.array(list(generations.values()), type=pa.int32())}
    schema = arrow_schema(_PREVIOUS_TYPES)
    return pa.table([columns.get(f.name, pa.nulls(n, type=f.type)) for f in schema], schema=schema)

"""The replica placement worker: wire batches of whole clusters in, one row per replica out.

What ``DataFrame.assign_replicas``' tasks run (:func:`place_batches`) and what the
``assign_replicas`` SQL table function runs on its rows (:func:`place_wire`).
Columnar throughout: a table's clusters are found from the sorted ``cluster_id``
codes, each cluster's brokers, topics and previous replicas are NumPy slices, and
the engine places all of a cluster's topics in one call
(:func:`~spark_assign.core.replicas.fleet.place_topics`). Python objects are made
per broker and per topic name only (the seeds hash the names), never per replica,
except the previous placement of ``sticky``, which the engine checks topic by topic.
With loads (:class:`~.dataframe.LoadPlan`), each cluster's load rows become one
array per topic and load, and the brokers' capacities a dict per load.

Data errors raise :class:`~spark_assign.errors.InvalidInputError` naming the
cluster (``group``), the column and the rows.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core import Broker
from ...core.replicas.fleet import REPLICA_STATUSES, place_topics
from ...core.replicas.loads import LoadOptions
from ...errors import InvalidInputError
from .dataframe import CAPACITY_PREFIX, KIND_LOAD, KIND_REPLICA, KIND_TOPIC, REPLICA_COLUMNS, LoadPlan

__all__ = ["OUTPUT_NAMES", "place_batches", "place_wire"]

#: The output columns (:data:`~.replicas.REPLICA_COLUMNS`).
OUTPUT_NAMES = [name for name, _ in REPLICA_COLUMNS]


def place_batches(batches: Iterator[pa.RecordBatch], method: str, seed: int, start_index: Optional[int],
                  rack_aware: Optional[str], loads: Optional[LoadPlan] = None) -> Iterator[pa.RecordBatch]:
    """Wire batches (sorted by cluster, kind, topic, partition, replica) in, replica rows out:
    one engine call per complete cluster; a cluster continuing into the next batch is carried
    over."""
    carried: List[pa.RecordBatch] = []
    for batch in batches:
        if batch.num_rows == 0:
            continue
        codes = _cluster_codes(batch.column(0))
        split = int(np.flatnonzero(codes != codes[-1])[-1]) + 1 if (codes != codes[-1]).any() else 0
        if split > 0:                                 # clusters complete in this batch
            yield from place_wire(pa.Table.from_batches(carried + [batch.slice(0, split)]), method, seed,
                                  start_index, rack_aware, loads)
            carried = []
        carried.append(batch.slice(split))
    if carried:
        yield from place_wire(pa.Table.from_batches(carried), method, seed, start_index, rack_aware, loads)


def _cluster_codes(column: pa.Array) -> np.ndarray:
    """A code per row, equal for rows of one cluster (null ids: one cluster)."""
    if column.null_count == len(column):
        return np.zeros(len(column), dtype=np.int64)
    encoded = pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)


def place_wire(table: pa.Table, method: str, seed: int, start_index: Optional[int],
               rack_aware: Optional[str], loads: Optional[LoadPlan] = None) -> Iterator[pa.RecordBatch]:
    """Every cluster of ``table`` (wire rows sorted by cluster, kind, topic, partition, replica),
    one output batch each; errors are raised for the driver (:meth:`InvalidInputError.for_driver`)."""
    if table.num_rows == 0:
        return
    table = table.combine_chunks()
    codes = _cluster_codes(table.column("cluster_id"))
    bounds = np.r_[0, np.flatnonzero(np.diff(codes)) + 1, len(codes)].tolist()
    for a, b in zip(bounds, bounds[1:]):
        try:
            yield _place_cluster(table.slice(a, b - a), method, seed, start_index, rack_aware, loads)
        except InvalidInputError as e:
            raise e.for_driver() from None


def _ints(column: pa.ChunkedArray) -> Tuple[np.ndarray, np.ndarray]:
    """An int column as ``int64`` values (0 where null) and its null mask."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    nulls = np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    values = np.asarray(array.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    return values, nulls


def _place_cluster(rows: pa.Table, method: str, seed: int, start_index: Optional[int],
                   rack_aware: Optional[str], plan: Optional[LoadPlan]) -> pa.RecordBatch:
    """One cluster's wire rows placed: its output rows."""
    cluster_id = rows.column("cluster_id")[0].as_py()
    kind, _ = _ints(rows.column("kind"))
    start, end, last = np.searchsorted(kind, [KIND_TOPIC, KIND_REPLICA, KIND_LOAD]).tolist()
    brokers, ids, racks = _brokers(cluster_id, rows.slice(0, start))
    topics = rows.slice(start, end - start)
    names = topics.column("topic").to_pylist()
    counts, factors = _check_topics(cluster_id, topics, names)
    before = _previous(cluster_id, rows.slice(end, last - end), names, counts) if end < last else None
    loads = None if plan is None else \
        _loads(cluster_id, plan, rows.slice(0, start), rows.slice(last), names, counts)
    placed = place_topics(brokers, names, counts, factors, cluster_id=cluster_id, method=method, seed=seed,
                          start_index=start_index, rack_aware=rack_aware, previous=before, rack_column="rack",
                          loads=loads)
    n = len(placed.broker_id)
    rack_of = racks.take(pa.array(np.searchsorted(ids, placed.broker_id))) if n else pa.array([], pa.string())
    return pa.RecordBatch.from_arrays(
        [pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([cluster_id], pa.string()))
           .cast(pa.string()),
         pa.DictionaryArray.from_arrays(pa.array(placed.topic, type=pa.int32()), pa.array(names, pa.string()))
           .cast(pa.string()),
         pa.array(placed.partition), pa.array(placed.replica_index), pa.array(placed.broker_id), rack_of,
         pa.array(placed.replica_index == 0),
         pa.DictionaryArray.from_arrays(pa.array(placed.status.astype(np.int32)), pa.array(REPLICA_STATUSES))
           .cast(pa.string())],
        names=OUTPUT_NAMES)


def _brokers(cluster_id: Optional[str], rows: pa.Table) -> Tuple[List[Broker], np.ndarray, pa.Array]:
    """The cluster's :class:`Broker` objects, their ids (sorted) and the rack of each; errors
    name the rows."""
    ids, nulls = _ints(rows.column("broker_id"))
    if nulls.any():
        raise InvalidInputError("null broker_id, or one beyond Kafka's 32-bit ids", column="broker_id",
                                rows=[(cluster_id, None)], group=cluster_id)
    if (ids < 0).any():
        raise InvalidInputError("broker_id must be between 0 and 2147483647", column="broker_id",
                                rows=sorted(set(ids[ids < 0].tolist())), group=cluster_id)
    twice = sorted(v for v, k in Counter(ids.tolist()).items() if k > 1)
    if twice:
        raise InvalidInputError("duplicate broker_id", column="broker_id", rows=twice, group=cluster_id)
    racks = rows.column("rack").combine_chunks()
    empty = np.flatnonzero(np.asarray(pc.equal(racks, "").fill_null(False).to_numpy(zero_copy_only=False)))
    if len(empty):
        raise InvalidInputError("an empty rack: write NULL for a broker without a rack", column="rack",
                                rows=ids[empty].tolist(), group=cluster_id)
    fenced = rows.column("fenced").combine_chunks().fill_null(False).to_pylist()
    brokers = [Broker(b, rack=r, fenced=f) for b, r, f in zip(ids.tolist(), racks.to_pylist(), fenced)]
    order = np.argsort(ids, kind="stable")
    return brokers, ids[order], racks.take(pa.array(order))


def _check_topics(cluster_id: Optional[str], topics: pa.Table, names: list) -> Tuple[np.ndarray, np.ndarray]:
    """The counts and replication factors of topic rows a placement can start from: no null
    names, counts or factors, no topic twice."""
    nameless = [i for i, name in enumerate(names) if name is None]
    if nameless:
        raise InvalidInputError("null topic", column="topic", rows=[None], group=cluster_id)
    counts, no_count = _ints(topics.column("num_partitions"))
    factors, no_factor = _ints(topics.column("replication_factor"))
    for column, missing in (("num_partitions", no_count), ("replication_factor", no_factor)):
        if missing.any():
            raise InvalidInputError(f"null {column}, or one beyond Kafka's 32-bit limit", column=column,
                                    rows=[names[i] for i in np.flatnonzero(missing)], group=cluster_id)
    if len(set(names)) < len(names):
        twice = sorted(v for v, k in Counter(names).items() if k > 1)
        raise InvalidInputError("a topic listed twice", column="topic", rows=twice, group=cluster_id)
    return counts, factors


def _previous(cluster_id: Optional[str], rows: pa.Table, names: list,
              counts: np.ndarray) -> Optional[List[Optional[np.ndarray]]]:
    """Per topic, its previous replicas as a ``(partitions, RF_old)`` array padded with ``-1``
    (None: no previous rows). Rows of topics no longer listed are ignored (the topic was
    deleted); a partition at or above the topic's count is refused (Kafka never takes
    partitions away), and so are a replica listed twice and a broker twice in a partition."""
    partition, no_partition = _ints(rows.column("partition"))
    index, no_index = _ints(rows.column("replica_index"))
    broker, no_broker = _ints(rows.column("broker_id"))
    topic_names = rows.column("topic").combine_chunks()
    for column, missing in (("partition", no_partition), ("replica_index", no_index), ("broker_id", no_broker)):
        if missing.any():
            at = np.flatnonzero(missing)[:5]
            raise InvalidInputError(f"previous: null {column}, or one beyond Kafka's 32-bit range", column=column,
                                    rows=list(zip(topic_names.take(pa.array(at)).to_pylist(), partition[at].tolist())),
                                    group=cluster_id)
    topic = np.asarray(pc.index_in(topic_names, value_set=pa.array(names, pa.string()))
                       .fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    keep = np.flatnonzero(topic >= 0)                     # rows of deleted topics: ignored
    topic, partition, index, broker = topic[keep], partition[keep], index[keep], broker[keep]
    if not len(topic):
        return None
    bad = np.flatnonzero((partition < 0) | (partition >= counts[topic]) | (index < 0))
    if len(bad):
        t, p, r = int(topic[bad[0]]), int(partition[bad[0]]), int(index[bad[0]])
        raise InvalidInputError(f"previous: topic {names[t]!r} has {int(counts[t])} partitions; a replica of "
                                f"partition {p} (replica_index {r}) cannot be reassigned", column="partition",
                                rows=[(names[t], p, r)], group=cluster_id)
    broker_bad = np.flatnonzero(broker < 0)
    if len(broker_bad):
        at = broker_bad[:5]
        raise InvalidInputError("previous: broker_id must be between 0 and 2147483647", column="broker_id",
                                rows=[(names[t], p, b) for t, p, b in zip(topic[at].tolist(), partition[at].tolist(),
                                                                          broker[at].tolist())], group=cluster_id)
    order = np.lexsort((index, partition, topic))
    topic, partition, index, broker = topic[order], partition[order], index[order], broker[order]
    same = (topic[1:] == topic[:-1]) & (partition[1:] == partition[:-1])
    twice = np.flatnonzero(same & (index[1:] == index[:-1]))
    if len(twice):
        t, p, r = int(topic[twice[0]]), int(partition[twice[0]]), int(index[twice[0]])
        raise InvalidInputError("previous: a replica listed twice", column="replica_index",
                                rows=[(names[t], p, r)], group=cluster_id)
    by_broker = np.lexsort((broker, partition, topic))
    tb, pb, bb = topic[by_broker], partition[by_broker], broker[by_broker]
    doubled = np.flatnonzero((tb[1:] == tb[:-1]) & (pb[1:] == pb[:-1]) & (bb[1:] == bb[:-1]))
    if len(doubled):
        t, p, b = int(tb[doubled[0]]), int(pb[doubled[0]]), int(bb[doubled[0]])
        raise InvalidInputError("previous: a partition lists the same broker twice", column="broker_id",
                                rows=[(names[t], p, b)], group=cluster_id)
    group_start = np.r_[True, ~same]
    starts = np.flatnonzero(group_start)
    rank = np.arange(len(topic)) - np.repeat(starts, np.diff(np.r_[starts, len(topic)]))
    out: List[Optional[np.ndarray]] = [None] * len(names)
    bounds = np.searchsorted(topic, np.arange(len(names) + 1))
    for t in np.flatnonzero(np.diff(bounds)).tolist():
        span = slice(bounds[t], bounds[t + 1])
        matrix = np.full((int(counts[t]), int(rank[span].max()) + 1), -1, dtype=np.int64)
        matrix[partition[span], rank[span]] = broker[span]
        out[t] = matrix
    return out


def _loads(cluster_id: Optional[str], plan: LoadPlan, broker_rows: pa.Table, rows: pa.Table, names: list,
           counts: np.ndarray) -> LoadOptions:
    """The cluster's :class:`LoadOptions`: its load rows as one array per load and topic (0 for a
    partition without a row; rows of topics no longer listed ignored) and the brokers'
    capacities; a partition out of range, listed twice, or a broker without a capacity where the
    others have one is an error naming the rows."""
    k = len(plan.names)
    topic_names = rows.column("topic").combine_chunks()
    topic = np.asarray(pc.index_in(topic_names, value_set=pa.array(names, pa.string()))
                       .fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    partition, _ = _ints(rows.column("partition"))
    flat = pc.list_flatten(rows.column("loads").combine_chunks())
    values = np.asarray(flat.fill_null(np.nan).to_numpy(zero_copy_only=False), dtype=np.float64).reshape(-1, k)
    keep = np.flatnonzero(topic >= 0)
    topic, partition, values = topic[keep], partition[keep], values[keep]
    bad = np.flatnonzero((partition < 0) | (partition >= counts[topic]))
    if len(bad):
        at = bad[:5]
        raise InvalidInputError("loads: a partition the topic does not have", column="partition",
                                rows=[(names[t], int(p)) for t, p in zip(topic[at].tolist(), partition[at].tolist())],
                                group=cluster_id)
    key = topic * (int(counts.max()) + 1 if len(counts) else 1) + partition
    _, first, times = np.unique(key, return_index=True, return_counts=True)
    if (times > 1).any():
        at = first[times > 1][:5]
        raise InvalidInputError("loads: a partition listed twice", column="partition",
                                rows=[(names[int(topic[i])], int(partition[i])) for i in at], group=cluster_id)
    order = np.argsort(topic, kind="stable")
    bounds = np.searchsorted(topic[order], np.arange(len(names) + 1))
    per_load: Dict[str, List[np.ndarray]] = {name: [np.zeros(int(c)) for c in counts] for name in plan.names}
    for t in np.flatnonzero(np.diff(bounds)).tolist():
        at = order[bounds[t]:bounds[t + 1]]
        for j, name in enumerate(plan.names):
            per_load[name][t][partition[at]] = values[at, j]
    capacities: Dict[str, Dict[int, float]] = {}
    ids, _ = _ints(broker_rows.column("broker_id"))
    caps = pc.list_flatten(broker_rows.column("capacities").combine_chunks())
    cap = np.asarray(caps.fill_null(np.nan).to_numpy(zero_copy_only=False), dtype=np.float64).reshape(-1, k)
    for j, name in enumerate(plan.names):
        if plan.has_capacity[j]:
            missing = np.flatnonzero(np.isnan(cap[:, j]))
            if len(missing):
                raise InvalidInputError(f"null {CAPACITY_PREFIX}{name}: every broker needs a capacity where the "
                                        "column is given", column=f"{CAPACITY_PREFIX}{name}",
                                        rows=ids[missing].tolist(), group=cluster_id)
            capacities[name] = dict(zip(ids.tolist(), cap[:, j].tolist()))
    return LoadOptions(per_load, capacities or None, plan.threshold, plan.max_replicas_per_broker)

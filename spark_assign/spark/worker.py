"""What runs in Spark's Python workers: wire rows in, assigned partitions out.

The job hash-partitions the wire rows by group and sorts each partition by
group, so a worker sees every group's rows contiguously, possibly split across
Arrow batches. :func:`assign_batches` is a pipeline of three stages:

* :func:`whole_groups` regroups the incoming batches into chunks of whole
  groups, at least :data:`CHUNK_ROWS` rows each (the rows of a group that
  continues into the next batch wait for it: each row is decoded once);
* :class:`~.group_rows.WireBatch` decodes a chunk into the engine's
  :class:`~spark_assign.core.GroupBatch`, and :func:`~spark_assign.core.assign_batch`
  assigns all its groups at once (segment operations where the strategy
  allows, else the per-group engine, group by group);
* :func:`output_batch` turns the result into one Arrow batch, every string
  column taken from the chunk's own dictionaries.

No Python object per row or partition is built on the way. Row kinds on the
wire (``kind`` column): subscriptions (0), previous assignment rows (1),
topic replica racks (2) and partition weights (3); see :mod:`.wire`. Engine
options (the load-aware knobs) come with the call, a group's weights with its
rows: a weighted strategy assigns each group through the per-group engine
(inside :func:`~spark_assign.core.assign_batch`), with its weights.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core import STATUS_NAMES, BatchResult, assign_batch, assign_group, get_strategy
from ..core.weights import topic_weights
from ..errors import InvalidInputError
from .group_rows import WireBatch
from .wire import result_arrow_schema

__all__ = ["assign_batches", "whole_groups", "output_batch", "CHUNK_ROWS"]

#: Rows of wire a chunk gathers before it is assigned (unless the input ends first). The engine's
#: cost per call is about a millisecond whatever the chunk's size, and Spark sends batches of
#: ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows (10,000 by default: 500 groups of 10
#: members x 2 topics, or a single large group), so a chunk spans several batches.
CHUNK_ROWS = 100_000

_STATUS = pa.array(STATUS_NAMES, type=pa.string())


def assign_batches(batches: Iterator[pa.RecordBatch], strategy: str, group_column: bool = True,
                   with_instance: bool = False, chunk_rows: int = CHUNK_ROWS,
                   options: Optional[Mapping[str, Any]] = None, with_weight: bool = False
                   ) -> Iterator[pa.RecordBatch]:
    """Assign every group in ``batches`` (sorted by group; a group may span batches).

    Example::

        out = list(assign_batches(iter(wire.to_batches()), "sticky"))

    Parameters
    ----------
    batches:
        Wire rows (:mod:`.wire`), sorted by ``group_id``.
    strategy:
        The strategy's name.
    group_column:
        The input had a ``group_id`` column, so a null one is an error.
    with_instance:
        Add each owner's ``group_instance_id`` (for the state table).
    chunk_rows:
        Rows a chunk gathers (see :data:`CHUNK_ROWS`).
    options:
        Engine options for every group (the load-aware knobs; each group's ``weights``
        come from its weight rows).
    with_weight:
        Add each partition's ``weight`` (1.0 in a group without weight rows).
    """
    for chunk in whole_groups(batches, chunk_rows):
        done = assign_chunk(WireBatch(chunk), strategy, group_column, with_instance, options, with_weight)
        if done is not None:
            yield done


def whole_groups(batches: Iterator[pa.RecordBatch], min_rows: int = CHUNK_ROWS) -> Iterator[pa.RecordBatch]:
    """``batches`` (sorted by ``group_id``) regrouped into batches of whole groups, each at least
    ``min_rows`` rows unless the input ends; empty batches are skipped."""
    held: List[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        held.append(batch)
        rows += batch.num_rows
        if rows < min_rows:
            continue
        cut = _last_group_start(batch)
        if cut == 0:                          # one group, which may continue in the next batch
            continue
        yield _concat(held[:-1] + [batch.slice(0, cut)])
        held = [batch.slice(cut)]
        rows = batch.num_rows - cut
    if held:
        yield _concat(held)


def _last_group_start(batch: pa.RecordBatch) -> int:
    """The first row of the batch's last group (the rows are sorted by ``group_id``)."""
    groups = batch.column("group_id")
    last = groups[batch.num_rows - 1]
    differs = groups.is_valid() if not last.is_valid else pc.not_equal(groups, last).fill_null(True)
    other = np.flatnonzero(np.asarray(differs.to_numpy(zero_copy_only=False), dtype=bool))
    return int(other[-1]) + 1 if len(other) else 0


def _concat(batches: List[pa.RecordBatch]) -> pa.RecordBatch:
    return batches[0] if len(batches) == 1 else pa.concat_batches(batches)


def assign_chunk(c: WireBatch, strategy: str, group_column: bool = True, with_instance: bool = False,
                 options: Optional[Mapping[str, Any]] = None, with_weight: bool = False) -> Optional[pa.RecordBatch]:
    """Assign every group of ``c`` (whole groups); None when they have no partition.

    Errors are raised as the groups come: an earlier group's is raised first, whether the
    engine finds it or the rows' own checks (:meth:`~.group_rows.WireBatch.row_errors`, then
    :meth:`~.group_rows.WireBatch.group_weights`) do; they carry the group's name and reach
    the driver as data (see :mod:`.failures`).
    """
    options = dict(options or {})
    batch = c.group_batch()
    weights, first, error = _checked_weights(c, group_column)
    if get_strategy(strategy).weighted:       # only a weighted strategy reads them
        batch.weights = weights
    if error is not None:
        for s in range(first):                # an earlier group's engine error comes first
            try:
                assign_group(batch.group_input(s), strategy, **options,
                             **({"weights": weights[s]} if batch.weights and s in weights else {}))
            except InvalidInputError as e:
                raise e.in_group(c.group_names[s]).for_driver() from None
        raise error.for_driver()
    try:
        result = assign_batch(batch, strategy, **options)
    except InvalidInputError as e:            # assign_batch names the group
        raise e.for_driver() from None
    return output_batch(c, result, with_instance, weights if with_weight else None)


def _checked_weights(c: WireBatch, group_column: bool
                     ) -> Tuple[Dict[int, Dict[str, np.ndarray]], int, Optional[InvalidInputError]]:
    """Each group's weights (groups with weight rows), checked in group order up to the first
    group with an error: ``(weights, that group, its error)``, or ``(weights, G, None)``. A
    group's bad rows are its error before its weights are read."""
    bad = np.flatnonzero(c.row_errors(group_column))
    stop = int(bad[0]) if len(bad) else c.G
    weights: Dict[int, Dict[str, np.ndarray]] = {}
    for s in c.weighted_groups().tolist():
        if s >= stop:
            break
        try:
            weights[s] = c.group_weights(s)
        except InvalidInputError as e:
            return weights, s, e
    return weights, stop, (c.group_error(stop, group_column) if len(bad) else None)


def output_batch(c: WireBatch, result: BatchResult, with_instance: bool = False,
                 weights: Optional[Mapping[int, Mapping[str, np.ndarray]]] = None) -> Optional[pa.RecordBatch]:
    """The result rows of ``c``'s groups (``RESULT_COLUMNS``, plus the owner's
    ``group_instance_id`` if asked, and each partition's ``weight`` when ``weights`` (per group,
    as :meth:`~.group_rows.WireBatch.group_weights` gives them) are given); None when there are
    none."""
    if len(result.owner) == 0:
        return None
    per_group = np.diff(result.row_off)
    owner = result.owner
    member = np.where(owner >= 0, c.member_code[np.maximum(owner, 0)], -1)
    prev = result.previous_member
    previous = np.where(prev >= 0, c.previous_name[np.maximum(prev, 0)], result.previous_departed)
    columns = [
        _strings(np.repeat(np.arange(c.G), per_group), c.group_ids),
        pa.array(np.repeat(c.new_generation, per_group).astype(np.int32), type=pa.int32()),
        _strings(member, c.member_dictionary),
        _strings(c.topic_code[result.topic], c.topic_dictionary),
        pa.array(result.partition.astype(np.int32), type=pa.int32()),
        _strings(previous, c.member_dictionary),
        _strings(result.status, _STATUS),
    ]
    if with_instance:
        # "" reads as no instance id, as the engine reads it.
        empty = c.instance_names.index("") if "" in c.instance_names else -2
        instance = np.where(c.member_instance == empty, -1, c.member_instance)
        columns.append(_strings(np.where(owner >= 0, instance[np.maximum(owner, 0)], -1), c.instance_dictionary))
    if weights is not None:
        columns.append(pa.array(_row_weights(c, result, weights), type=pa.float64()))
    return pa.RecordBatch.from_arrays(columns, schema=result_arrow_schema(with_instance, weights is not None))


def _row_weights(c: WireBatch, result: BatchResult, weights: Mapping[int, Mapping[str, np.ndarray]]) -> np.ndarray:
    """The weight of each result row's partition: 1.0 in a group without weights, else as
    :func:`~spark_assign.core.weights.dense_weights` gives it to the engine."""
    out = np.ones(len(result.owner), dtype=np.float64)
    for s, given in weights.items():
        lo, hi = int(result.row_off[s]), int(result.row_off[s + 1])
        ts, te = int(c.topic_off[s]), int(c.topic_off[s + 1])
        counts = c.topic_count[ts:te]
        dense = topic_weights(c.name(c.topic_code[ts:te], c.topic_names), counts, given, checked=True)
        first = np.concatenate([[0], np.cumsum(np.maximum(counts, 0))])
        out[lo:hi] = dense[first[result.topic[lo:hi] - ts] + result.partition[lo:hi]]
    return out


def _strings(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
    """Codes into ``dictionary`` as a string column (-1: null)."""
    mask = codes < 0
    index = pa.array(np.where(mask, 0, codes).astype(np.int32), mask=mask if mask.any() else None)
    return dictionary.take(index)

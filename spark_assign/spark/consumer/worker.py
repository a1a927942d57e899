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
rows, which reach :func:`~spark_assign.core.assign_batch` as segments (the
load-aware strategies assign homogeneous groups in lock step there, the rest
group by group, each with its weights).
"""

from __future__ import annotations

from typing import Any, Iterator, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...core import STATUS_NAMES, BatchResult, assign_batch, assign_group
from ...errors import InvalidInputError
from ..arrow import fill_null, from_numpy, from_strings, to_numpy
from .group_rows import SharedWeights, WireBatch
from .wire import result_arrow_schema

__all__ = ["assign_batches", "whole_groups", "output_batch", "CHUNK_ROWS"]

#: Rows of wire a chunk gathers before it is assigned (unless the input ends first). The engine's
#: cost per call is about a millisecond whatever the chunk's size, and Spark sends batches of
#: ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows (10,000 by default: 500 groups of 10
#: members x 2 topics, or a single large group), so a chunk spans several batches.
CHUNK_ROWS = 100_000

_STATUS = from_strings(STATUS_NAMES)


def assign_batches(batches: Iterator[pa.RecordBatch], strategy: str, group_column: bool = True,
                   with_instance: bool = False, chunk_rows: int = CHUNK_ROWS,
                   options: Optional[Mapping[str, Any]] = None, with_weight: bool = False,
                   topic_counts: Optional[Mapping[str, int]] = None,
                   weights: Optional[pa.Table] = None) -> Iterator[pa.RecordBatch]:
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
    topic_counts:
        ``{topic: partitions}`` for every group, when the wire has no ``num_partitions``
        column (topics given as a dict travel with the job: :func:`.wire.counts_travel`).
    weights:
        Weight rows for every group, when they travel with the job rather than on the wire
        (a dict's: :func:`.wire.weights_travel`); each group reads those of its topics.
    """
    shared = None if weights is None else SharedWeights.of(weights)
    for chunk in whole_groups(batches, chunk_rows):
        done = assign_chunk(WireBatch(chunk, topic_counts, shared), strategy, group_column, with_instance, options,
                            with_weight)
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
    differs = groups.is_valid() if not last.is_valid else fill_null(pc.not_equal(groups, last), True)
    other = np.flatnonzero(to_numpy(differs, bool))
    return int(other[-1]) + 1 if len(other) else 0


def _concat(batches: List[pa.RecordBatch]) -> pa.RecordBatch:
    return batches[0] if len(batches) == 1 else pa.concat_batches(batches)


def assign_chunk(c: WireBatch, strategy: str, group_column: bool = True, with_instance: bool = False,
                 options: Optional[Mapping[str, Any]] = None, with_weight: bool = False) -> Optional[pa.RecordBatch]:
    """Assign every group of ``c`` (whole groups); None when they have no partition.

    Errors are raised as the groups come: an earlier group's is raised first, whether the
    engine finds it or the rows' own checks (:meth:`~.group_rows.WireBatch.row_errors`, then
    :meth:`~.group_rows.WireBatch.rejected_weight_groups`) do; they carry the group's name and reach
    the driver as data (see :mod:`.failures`).
    """
    options = dict(options or {})
    batch = c.group_batch()
    first, error = _first_error(c, group_column)
    if error is not None:
        for s in range(first):                # an earlier group's engine error comes first
            weights = batch.group_weights(s)
            try:
                assign_group(batch.group_input(s), strategy, **options,
                             **({} if weights is None else {"weights": weights}))
            except InvalidInputError as e:
                raise e.in_group(c.group_names[s]).for_driver() from None
        raise error.for_driver()
    try:
        result = assign_batch(batch, strategy, **options)
    except InvalidInputError as e:            # assign_batch names the group
        raise e.for_driver() from None
    return output_batch(c, result, with_instance, with_weight)


def _first_error(c: WireBatch, group_column: bool) -> Tuple[int, Optional[InvalidInputError]]:
    """The first group whose rows are bad, or whose weight rows are (a group's bad rows are its
    error before its weights are read), and its error; ``(G, None)`` when there is none."""
    bad = np.flatnonzero(c.row_errors(group_column))
    stop = int(bad[0]) if len(bad) else c.G
    weighed = np.flatnonzero(c.rejected_weight_groups())
    if len(weighed) and weighed[0] < stop:
        s = int(weighed[0])
        try:
            c.group_weights(s)
        except InvalidInputError as e:
            return s, e
        raise AssertionError(f"weight rows of group {s} were rejected but the validator accepts them")
    return stop, (c.group_error(stop, group_column) if len(bad) else None)


def output_batch(c: WireBatch, result: BatchResult, with_instance: bool = False,
                 with_weight: bool = False) -> Optional[pa.RecordBatch]:
    """The result rows of ``c``'s groups (``RESULT_COLUMNS``, plus the owner's
    ``group_instance_id`` and the group's member count if asked, and each partition's ``weight``
    (as the engine read it: ``result.weight``, 1.0 without weights) if asked); None when there
    are none."""
    if len(result.owner) == 0:
        return None
    per_group = np.diff(result.row_off)
    owner = result.owner
    member = np.where(owner >= 0, c.member_code[np.maximum(owner, 0)], -1)
    prev = result.previous_member
    previous = np.where(prev >= 0, c.previous_name[np.maximum(prev, 0)], result.previous_departed)
    columns = [
        _strings(np.repeat(np.arange(c.G), per_group), c.group_ids),
        from_numpy(np.repeat(c.new_generation, per_group), pa.int32()),
        _strings(member, c.member_dictionary),
        _strings(c.topic_code[result.topic], c.topic_dictionary),
        from_numpy(result.partition, pa.int32()),
        _strings(previous, c.member_dictionary),
        _strings(result.status, _STATUS),
    ]
    if with_instance:
        # "" reads as no instance id, as the engine reads it.
        empty = c.instance_names.index("") if "" in c.instance_names else -2
        instance = np.where(c.member_instance == empty, -1, c.member_instance)
        columns.append(_strings(np.where(owner >= 0, instance[np.maximum(owner, 0)], -1), c.instance_dictionary))
        columns.append(from_numpy(np.repeat(np.diff(c.member_off), per_group), pa.int32()))
    if with_weight:
        weight = result.weight if result.weight is not None else np.ones(len(owner))
        columns.append(from_numpy(weight, pa.float64()))
    return pa.RecordBatch.from_arrays(columns, schema=result_arrow_schema(with_instance, with_weight))


def _strings(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
    """Codes into ``dictionary`` as a string column (-1: null)."""
    mask = codes < 0
    index = from_numpy(np.where(mask, 0, codes), pa.int32(), null=mask)
    return dictionary.take(index)

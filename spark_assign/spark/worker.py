"""What runs in Spark's Python workers: wire rows in, assigned partitions out.

The job hash-partitions the wire rows by group and sorts each partition by
group, so a worker sees every group's rows contiguously, possibly split across
Arrow batches. :func:`assign_batches` walks the batches, carries a group that
continues into the next batch, calls the engine once per complete group and
yields one output batch per input batch. No Python object per partition is
built on the way in (:mod:`.group_rows` decodes each batch once into codes
and arrays) or on the way out (names are Arrow dictionaries, numbers NumPy
arrays).

Row kinds on the wire (``kind`` column): subscriptions (0), previous
assignment rows (1), topic replica racks (2) and partition weights (3); see
:mod:`.wire`. Engine options (the load-aware knobs) come with the call; a
group's weights come with its rows.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional

import numpy as np
import pyarrow as pa

from ..core import STATUS_NAMES, assign_group, get_strategy
from ..core.weights import dense_weights
from ..errors import InvalidInputError
from .group_rows import GroupRows, WireBatch
from .wire import result_arrow_schema

__all__ = ["assign_batches", "GroupRows"]


class _Output:
    """Accumulates groups' results into one Arrow batch (names as dictionaries)."""

    def __init__(self) -> None:
        self.names: List[str] = []
        self.parts: Dict[str, List[np.ndarray]] = {k: [] for k in
                                                   ("group", "generation", "member", "topic", "partition",
                                                    "previous", "status", "instance", "weight")}
        self.groups: List[object] = []
        self.instances: List[Optional[str]] = []

    def add(self, rows: GroupRows, result) -> None:
        n = len(result.owner)
        if n == 0:
            return
        base = len(self.names)
        g = result.group
        self.names.extend(g.topic_names)
        owner_names = g.owner_names()
        topic_codes = base + result.topic
        base_m = len(self.names)
        self.names.extend(owner_names)
        base_p = len(self.names)
        renamed = rows.renamed
        self.names.extend([renamed.get(n, n) for n in owner_names])   # a restarted static member's old id
        group_code = len(self.groups)
        self.groups.append(rows.group_id)
        p = self.parts
        p["group"].append(np.full(n, group_code, dtype=np.int32))
        p["generation"].append(np.full(n, rows.generation, dtype=np.int32))
        p["member"].append(np.where(result.owner >= 0, base_m + result.owner, -1))
        p["topic"].append(topic_codes)
        p["partition"].append(result.partition.astype(np.int32))
        p["previous"].append(np.where(result.previous_owner >= 0, base_p + result.previous_owner, -1))
        p["status"].append(result.status.astype(np.int32))
        base_i = len(self.instances)
        self.instances.extend(g.instance_ids)
        p["instance"].append(np.where(result.owner >= 0, base_i + result.owner, -1))
        p["weight"].append(dense_weights(g, rows.weights, checked=True))     # rows are in pid order

    def batch(self, with_instance: bool = False, with_weight: bool = False) -> Optional[pa.RecordBatch]:
        if not self.parts["group"]:
            return None
        cat = {k: np.concatenate(v) for k, v in self.parts.items()}
        names = pa.array(self.names, type=pa.string())

        def strings(codes: np.ndarray, dictionary: pa.Array) -> pa.Array:
            mask = codes < 0
            idx = pa.array(np.where(mask, 0, codes).astype(np.int32), mask=mask if mask.any() else None)
            return pa.DictionaryArray.from_arrays(idx, dictionary).cast(pa.string())

        columns = [
            strings(cat["group"], pa.array(self.groups, type=pa.string())),
            pa.array(cat["generation"], type=pa.int32()),
            strings(cat["member"], names),
            strings(cat["topic"], names),
            pa.array(cat["partition"], type=pa.int32()),
            strings(cat["previous"], names),
            strings(cat["status"], pa.array(STATUS_NAMES, type=pa.string())),
        ]
        if with_instance:
            columns.append(strings(cat["instance"], pa.array(self.instances, type=pa.string())))
        if with_weight:
            columns.append(pa.array(cat["weight"], type=pa.float64()))
        return pa.RecordBatch.from_arrays(columns, schema=result_arrow_schema(with_instance, with_weight))


def assign_batches(batches: Iterator[pa.RecordBatch], strategy: str, group_column: bool = True,
                   with_instance: bool = False, options: Optional[Mapping[str, Any]] = None,
                   with_weight: bool = False) -> Iterator[pa.RecordBatch]:
    """Assign every group in ``batches`` (sorted by group; a group may span batches).

    ``group_column``: the input had a ``group_id`` column, so a null one is an error.
    ``with_instance``: add each owner's ``group_instance_id`` (for the state table).
    ``options``: engine options for every group (the load-aware knobs; each group's
    ``weights`` come from its weight rows). ``with_weight``: add each partition's ``weight``.
    """
    options = dict(options or {})
    pending: List[pa.RecordBatch] = []        # the rows so far of a group that may continue
    for batch in batches:
        if batch.num_rows == 0:
            continue
        c = WireBatch(batch)
        groups = len(c.starts) - 1
        first = 0                                 # the first group of this batch assigned from it
        out = _Output()
        if pending:
            if c.group_name(0) != pending[0].column("group_id")[0].as_py():
                _assign_rows(pending, strategy, out, group_column, options)
                pending = []
            elif groups == 1:                     # the whole batch continues the pending group
                pending.append(batch)
                continue
            else:
                _assign_rows(pending + [batch.slice(0, int(c.starts[1]))], strategy, out, group_column, options)
                pending = []
                first = 1
        for s in range(first, groups - 1):
            _assign_one(c, s, strategy, out, group_column, options)
        pending = [batch.slice(int(c.starts[-2]))]   # the last group may continue in the next batch
        done = out.batch(with_instance, with_weight)
        if done is not None:
            yield done
    if pending:
        out = _Output()
        _assign_rows(pending, strategy, out, group_column, options)
        done = out.batch(with_instance, with_weight)
        if done is not None:
            yield done


def _assign_rows(parts: List[pa.RecordBatch], strategy: str, out: _Output, group_column: bool,
                 options: Dict[str, Any]) -> None:
    """Assign one group whose rows are spread over ``parts``."""
    batch = parts[0] if len(parts) == 1 else pa.Table.from_batches(parts).combine_chunks().to_batches()[0]
    _assign_one(WireBatch(batch), 0, strategy, out, group_column, options)


def _assign_one(c: WireBatch, s: int, strategy: str, out: _Output, group_column: bool,
                options: Dict[str, Any]) -> None:
    """Assign group ``s`` of ``c``."""
    try:
        rows = GroupRows(c, s, group_column)
        # Only a weighted strategy reads the weights (weights_from_rows has checked them).
        weighed = rows.weights is not None and get_strategy(strategy).weighted
        result = assign_group(rows.spec, strategy, **options, **({"weights": rows.weights} if weighed else {}))
    except InvalidInputError as e:       # to the driver as data (see .failures)
        raise e.in_group(c.group_name(int(c.starts[s]))).for_driver() from None
    out.add(rows, result)

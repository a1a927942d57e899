"""Partition weights and the knobs of the load-aware strategies, checked and made dense.

A weight is any non-negative cost of a partition: its consumer lag, its bytes per
second, a CPU estimate. The user gives ``weights={topic: [weight of p0, weight of
p1, ...]}`` (the shape of ``partition_racks``); the engine reads one float64 array
indexed by pid (:func:`dense_weights`), so no Python object per partition survives
the edge.

Defaults (documented in docs/load-aware.md):

* a subscribed topic absent from ``weights`` gets the mean weight of the partitions
  that have one (1.0 when no topic has weights): unknown load counts as average load;
* a partition missing from a topic's rows (:func:`weights_from_rows`, the tabular form the
  DataFrame, SQL and state-table surfaces give) gets that same mean: the mean of the weights
  given for the group;
* ``max_count_skew=1``: partition counts of members with the same subscriptions
  differ by at most one, the count balance of ``sticky``;
* ``min_improvement=0.05``: a sticky rebalance moves partitions only when that lowers
  the heaviest member's load by more than 5%.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, cast

import numpy as np

from ...errors import InvalidInputError
from .model import Group

__all__ = ["LoadOptions", "dense_weights", "topic_weights", "check_load_options", "load_options", "weights_from_rows",
           "rejected_weight_rows", "mean_weight", "DEFAULT_MAX_COUNT_SKEW", "DEFAULT_MIN_IMPROVEMENT", "LOAD_OPTIONS",
           "NULL_PARTITION"]

#: Count balance kept by default: that of ``sticky`` (max - min <= 1 for identical subscriptions).
DEFAULT_MAX_COUNT_SKEW = 1
#: Relative improvement of the heaviest load below which a sticky rebalance moves nothing.
DEFAULT_MIN_IMPROVEMENT = 0.05
#: A null partition in :func:`weights_from_rows`'s ``partition`` (the smallest int64).
NULL_PARTITION = int(np.iinfo(np.int64).min)
#: The engine options this module reads.
LOAD_OPTIONS = frozenset({"weights", "max_count_skew", "min_improvement"})


@dataclass(frozen=True)
class LoadOptions:
    """What the load-aware strategies read: ``weights[pid]`` (float64, finite, >= 0),
    ``max_count_skew`` (int >= 1) and ``min_improvement`` (float in [0, 1))."""

    weights: np.ndarray
    max_count_skew: int = DEFAULT_MAX_COUNT_SKEW
    min_improvement: float = DEFAULT_MIN_IMPROVEMENT

    @property
    def uniform(self) -> bool:
        """All partitions weigh the same: load balance is count balance."""
        w = self.weights
        return len(w) == 0 or bool((w == w[0]).all())


def check_load_options(options: Mapping[str, Any]) -> None:
    """Check the kinds of ``weights``, ``max_count_skew`` and ``min_improvement`` (the values of
    ``weights`` are checked against the group by :func:`dense_weights`).

    Example::

        check_load_options({"weights": {"orders": [10.0, 0.0, 3.5]}, "max_count_skew": 2})
    """
    weights = options.get("weights")
    if weights is not None and type(weights) is not dict and \
            (isinstance(weights, (str, bytes)) or not isinstance(weights, Mapping)):
        raise InvalidInputError(f"weights must map topic names to a list of partition weights, "
                                f"got {type(weights).__name__}", column="weights")
    skew = options.get("max_count_skew", DEFAULT_MAX_COUNT_SKEW)
    gain = options.get("min_improvement", DEFAULT_MIN_IMPROVEMENT)
    if type(skew) is int and type(gain) is float and skew >= 1 and 0 <= gain < 1:    # the usual case, fast
        return
    if isinstance(skew, (bool, np.bool_)) or not isinstance(skew, numbers.Integral) or skew < 1:
        raise InvalidInputError("max_count_skew must be an integer >= 1 (partition counts of members with the "
                                "same subscriptions may differ by this much)", column="max_count_skew", rows=[skew])
    if (isinstance(gain, (bool, np.bool_)) or not isinstance(gain, numbers.Real)
            or not math.isfinite(float(gain)) or not 0 <= float(gain) < 1):
        raise InvalidInputError("min_improvement must be a number in [0, 1) (a relative improvement of the "
                                "heaviest load)", column="min_improvement", rows=[gain])


def load_options(weights: np.ndarray, options: Mapping[str, Any]) -> LoadOptions:
    """The checked :class:`LoadOptions`: dense ``weights`` (see :func:`dense_weights`) and the knobs
    in ``options``."""
    check_load_options(options)
    return LoadOptions(weights,
                       int(options.get("max_count_skew", DEFAULT_MAX_COUNT_SKEW)),
                       float(options.get("min_improvement", DEFAULT_MIN_IMPROVEMENT)))


def dense_weights(group: Group, weights: Optional[Mapping[str, Any]], checked: bool = False) -> np.ndarray:
    """``weights`` as one float64 array indexed by pid.

    Example::

        dense_weights(group, {"t0": [5, 0, 2.5]})   # t0's pids get 5.0, 0.0, 2.5

    Parameters
    ----------
    group:
        The encoded group (its universe of subscribed topics).
    weights:
        ``{topic: sequence of weights, one per partition}`` or None (every weight 1.0).
        Topics nobody subscribes to are ignored (as ``partition_racks``); a subscribed
        topic absent here gets the mean of the given weights (1.0 if none are given).
        Raises :class:`~spark_assign.errors.InvalidInputError` naming ``weights`` and the
        topic (wrong length) or ``(topic, partition, value)`` (null, NaN, inf, negative,
        not a number).
    checked:
        ``weights`` are float64 arrays of the right lengths already checked (as
        :func:`weights_from_rows` returns them): they are copied in without checking again.
    """
    return topic_weights(group.topic_names, group.topic_counts, weights, checked)


def topic_weights(topic_names: Sequence[Optional[str]], topic_counts: np.ndarray,
                  weights: Optional[Mapping[str, Any]], checked: bool = False) -> np.ndarray:
    """:func:`dense_weights` for topics given by name and partition count (a count below 0:
    none), laid end to end in that order: the weight of each of their partitions.

    Example::

        topic_weights(["t0", "t1"], np.array([3, 1]), {"t0": [5.0, 0.0, 2.5]})
        # array([5. , 0. , 2.5, 2.5]): t1 gets the mean of the given weights
    """
    counts = np.maximum(np.asarray(topic_counts, dtype=np.int64), 0)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    P = int(offsets[-1])
    if weights is None:
        return np.ones(P, dtype=np.float64)
    if not checked:
        check_load_options({"weights": weights})
    out = np.full(P, np.nan, dtype=np.float64)
    given = np.zeros(P, dtype=bool)
    for t, name in enumerate(topic_names):
        values = weights.get(cast(str, name))
        if values is None:
            continue
        lo, n = int(offsets[t]), int(counts[t])
        out[lo:lo + n] = values if checked else _topic_weights(cast(str, name), values, n)
        given[lo:lo + n] = True
    # Unknown load counts as average load (documented default).
    if not given.all():
        out[~given] = mean_weight(out[given])
    return out


def mean_weight(weights: np.ndarray) -> float:
    """The weight a partition without one gets: the mean of ``weights`` (1.0 when empty), its sum
    exactly rounded (:func:`math.fsum`), so it does not depend on the order the weights came in
    (rows of a Spark job arrive in any order, and a tie between equal loads must break the same way)."""
    return math.fsum(weights.tolist()) / len(weights) if len(weights) else 1.0


def _topic_weights(topic: str, values: Any, n: int) -> np.ndarray:
    """One topic's weights as float64, checked: length ``n``, finite, non-negative numbers."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
        raise InvalidInputError("weights of a topic must be a list of numbers, one per partition",
                                column="weights", rows=[(topic, type(values).__name__)])
    if len(values) != n:
        raise InvalidInputError(f"topic has {n} partitions but {len(values)} weights",
                                column="weights", rows=[topic])
    raw = np.asarray(values)
    if raw.dtype.kind in "iuf" and raw.ndim == 1:          # the common case: no Python loop
        arr = raw.astype(np.float64, copy=False)
        bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
        if len(bad):
            raise InvalidInputError("weights must be finite and non-negative (NaN, inf or negative found)",
                                    column="weights", rows=[(topic, int(p), float(arr[p])) for p in bad])
        return arr
    rows: List[Tuple[str, object, object]] = [(topic, p, v) for p, v in enumerate(values)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
            or not math.isfinite(float(v)) or v < 0]
    raise InvalidInputError("weights must be finite, non-negative numbers (null, NaN, inf, negative or "
                            "non-numbers found)", column="weights", rows=rows or [(topic, "not a flat list")])


def weights_from_rows(topic_names: Sequence[Optional[str]], topic_counts: np.ndarray, topic: np.ndarray,
                      partition: np.ndarray, weight: np.ndarray, null: Optional[np.ndarray] = None,
                      weight_column: str = "weight", partition_column: str = "partition") -> Dict[str, np.ndarray]:
    """One group's weights given as rows ``(topic, partition, weight)`` (the tabular form of the Spark
    surfaces), checked, as the ``weights`` option: ``{topic: float64 array, one per partition}``.

    The one validator of tabular weights (the DataFrame method, the SQL functions and the state
    table all decode their weight rows into these arrays and call it).

    Example::

        weights_from_rows(["t0"], np.array([3]), np.array([0, 0]), np.array([0, 2]), np.array([5.0, 1.0]))
        # {'t0': array([5., 3., 1.])}: partition 1 gets the mean of the given weights

    Parameters
    ----------
    topic_names, topic_counts:
        The group's topics and their partition counts (-1 or 0: unknown, or no partitions).
    topic:
        Per row, an index into ``topic_names``; -1 for a topic the group does not subscribe to.
        Rows of such topics, and of topics without partitions, are ignored.
    partition:
        Per row, the partition (int64; a null partition is :data:`NULL_PARTITION`).
    weight:
        Per row, the weight (float64).
    null:
        Per row, whether the weight is null (None: none is).
    weight_column, partition_column:
        The column names errors give (the SQL functions give ``partition_weights`` for both).

    Raises :class:`~spark_assign.errors.InvalidInputError` naming ``weight_column`` with
    ``(topic, partition, weight)`` rows for a null, NaN, infinite or negative weight, and
    ``partition_column`` with ``(topic, partition)`` rows for a partition out of range (negative,
    null, or not below the topic's count) or given twice. A partition without a row gets the
    mean of the weights given for the group (see the module docstring).
    """
    counts = np.asarray(topic_counts, dtype=np.int64)
    topic = np.asarray(topic, dtype=np.int64)
    known = topic >= 0
    known[known] = counts[topic[known]] > 0
    t, p, w = topic[known], np.asarray(partition, dtype=np.int64)[known], np.asarray(weight, dtype=np.float64)[known]
    missing = np.zeros(len(t), dtype=bool) if null is None else np.asarray(null, dtype=bool)[known]

    def named(mask: np.ndarray, with_weight: bool) -> List[Tuple[Any, ...]]:
        rows = np.flatnonzero(mask)[:5].tolist()
        if with_weight:
            return [(topic_names[t[i]], int(p[i]), None if missing[i] else float(w[i])) for i in rows]
        return [(topic_names[t[i]], None if p[i] == NULL_PARTITION else int(p[i])) for i in rows]

    bad = missing | ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise InvalidInputError("weights must be finite and non-negative (null, NaN, inf or negative found)",
                                column=weight_column, rows=named(bad, True))
    outside = (p < 0) | (p >= counts[t])
    if outside.any():
        raise InvalidInputError("partition out of range: not a partition of the topic (0 to its count - 1)",
                                column=partition_column, rows=named(outside, False))
    offsets = np.concatenate([[0], np.cumsum(np.maximum(counts, 0))])
    pid = offsets[t] + p
    order = np.argsort(pid, kind="stable")
    twice = np.zeros(len(pid), dtype=bool)
    twice[order[1:]] = pid[order[1:]] == pid[order[:-1]]
    if twice.any():
        raise InvalidInputError("a partition is given more than one weight", column=partition_column,
                                rows=named(twice, False))
    t, p, w = t[order], p[order], w[order]              # by topic, then partition
    starts = np.flatnonzero(np.concatenate([[True], t[1:] != t[:-1]])) if len(t) else np.zeros(0, np.int64)
    ends = np.append(starts[1:], len(t))
    complete = bool((ends - starts == counts[t[starts]]).all())
    fill = 0.0 if complete else mean_weight(w)             # the documented default: the mean given
    out: Dict[str, np.ndarray] = {}
    for lo, hi in zip(starts.tolist(), ends.tolist()):
        k = int(t[lo])
        values = np.full(int(counts[k]), fill)
        values[p[lo:hi]] = w[lo:hi]
        out[cast(str, topic_names[k])] = values
    return out


def rejected_weight_rows(topic_count: np.ndarray, partition: np.ndarray, weight: np.ndarray, null: np.ndarray,
                         pid: np.ndarray) -> np.ndarray:
    """Which weight rows :func:`weights_from_rows` rejects, for the rows of many groups at once
    (a batch checks them all with a few array passes, and asks :func:`weights_from_rows` for the
    error of a group only when one of its rows is rejected).

    Example::

        rejected_weight_rows(np.array([3, 3]), np.array([0, 5]), np.array([1.0, 2.0]),
                             np.array([False, False]), np.array([0, 5]))   # [False, True]

    Parameters
    ----------
    topic_count:
        Per row, the partition count of its topic in its group (0 or below, also for a topic the
        group does not subscribe to: the row is ignored).
    partition, weight, null:
        Per row, as for :func:`weights_from_rows`.
    pid:
        Per row, an int64 naming (group, topic, partition) uniquely (two rows of one partition of
        one group: a duplicate).
    """
    known = np.asarray(topic_count) > 0
    p = np.asarray(partition, dtype=np.int64)
    w = np.asarray(weight, dtype=np.float64)
    bad = known & (np.asarray(null, dtype=bool) | ~np.isfinite(w) | (w < 0) | (p < 0) | (p >= topic_count))
    ids = np.asarray(pid, dtype=np.int64)[known & ~bad]
    if len(ids) > 1:
        order = np.argsort(ids, kind="stable")
        twice = np.flatnonzero(ids[order][1:] == ids[order][:-1])
        rows = np.flatnonzero(known & ~bad)
        bad[rows[order[twice + 1]]] = True
    return bad

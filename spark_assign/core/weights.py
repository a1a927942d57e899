"""Partition weights and the knobs of the load-aware strategies, checked and made dense.

A weight is any non-negative cost of a partition: its consumer lag, its bytes per
second, a CPU estimate. The user gives ``weights={topic: [weight of p0, weight of
p1, ...]}`` (the shape of ``partition_racks``); the engine reads one float64 array
indexed by pid (:func:`dense_weights`), so no Python object per partition survives
the edge.

Defaults (documented in docs/load-aware.md):

* a subscribed topic absent from ``weights`` gets the mean weight of the partitions
  that have one (1.0 when no topic has weights): unknown load counts as average load;
* ``max_count_skew=1``: partition counts of members with the same subscriptions
  differ by at most one, the count balance of ``sticky``;
* ``min_improvement=0.05``: a sticky rebalance moves partitions only when that lowers
  the heaviest member's load by more than 5%.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Tuple

import numpy as np

from ..errors import InvalidInputError
from .model import Group

__all__ = ["LoadOptions", "dense_weights", "check_load_options", "load_options",
           "DEFAULT_MAX_COUNT_SKEW", "DEFAULT_MIN_IMPROVEMENT", "LOAD_OPTIONS"]

#: Count balance kept by default: that of ``sticky`` (max - min <= 1 for identical subscriptions).
DEFAULT_MAX_COUNT_SKEW = 1
#: Relative improvement of the heaviest load below which a sticky rebalance moves nothing.
DEFAULT_MIN_IMPROVEMENT = 0.05
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
    if weights is not None and (isinstance(weights, (str, bytes)) or not isinstance(weights, Mapping)):
        raise InvalidInputError(f"weights must map topic names to a list of partition weights, "
                                f"got {type(weights).__name__}", column="weights")
    skew = options.get("max_count_skew", DEFAULT_MAX_COUNT_SKEW)
    if isinstance(skew, (bool, np.bool_)) or not isinstance(skew, numbers.Integral) or skew < 1:
        raise InvalidInputError("max_count_skew must be an integer >= 1 (partition counts of members with the "
                                "same subscriptions may differ by this much)", column="max_count_skew", rows=[skew])
    gain = options.get("min_improvement", DEFAULT_MIN_IMPROVEMENT)
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


def dense_weights(group: Group, weights: Optional[Mapping[str, Any]]) -> np.ndarray:
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
    """
    P = group.num_partitions
    if weights is None:
        return np.ones(P, dtype=np.float64)
    check_load_options({"weights": weights})
    out = np.full(P, np.nan, dtype=np.float64)
    given = np.zeros(P, dtype=bool)
    for t, name in enumerate(group.topic_names):
        values = weights.get(name)
        if values is None:
            continue
        lo, n = int(group.topic_offsets[t]), int(group.topic_counts[t])
        out[lo:lo + n] = _topic_weights(name, values, n)
        given[lo:lo + n] = True
    # Unknown load counts as average load (documented default).
    out[~given] = out[given].mean() if given.any() else 1.0
    return out


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
        arr = raw.astype(np.float64)
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

"""Load-aware rebalances of a state table: weights change every run, fingerprints do not see them.

A group's input fingerprint (:func:`.changes.plan`) covers its members, topics and
claims, and, for a load-aware strategy, its knobs (:func:`fingerprint_key`); not
its weights, which change every run (lag), or every group would be recomputed
every run. Instead, after the plan, :func:`load_replans` looks at the groups the
plan left alone, under the new weights, and re-plans only those whose
assignment is now too unbalanced:

* **criterion**: the heaviest member's load L0 of the group's latest generation
  under the new weights exceeds ``(1 + min_improvement)`` times the lower bound
  ``LB = max(total / members, largest weight)``, members counting every
  subscribed member (one owning nothing too);
* **why it is exact**: any assignment's heaviest load is at least ``LB``, so the
  engine's best found L* >= LB, and it moves partitions only when
  ``L0 > (1 + min_improvement) L*`` (docs/load-aware.md). A group with
  ``L0 <= (1 + min_improvement) LB`` would move nothing: skipping it changes no
  outcome. (The test compares with a tiny slack towards re-planning, for sums
  rounded in another order; a missing weight counts as the group's mean, as in
  the engine.)

A re-planned group whose new generation moves nothing (the engine found no
gain worth ``min_improvement``) is not committed (:func:`.plan.without_unmoved`): no new
generation, no churn; the summary counts it. :func:`check_weights` checks
every weights row before anything is written, since a group that is not
re-planned never reaches the engine's own check.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.consumer.weights import DEFAULT_MAX_COUNT_SKEW, DEFAULT_MIN_IMPROVEMENT, NULL_PARTITION, weights_from_rows
from ...errors import InvalidInputError
from ..plan import ChangedGroup, Plan, without_units, without_unmoved

__all__ = ["fingerprint_key", "check_weights", "load_replans", "settle", "load_counts", "SLACK"]

#: Relative slack of the criterion towards re-planning: sums of the same weights rounded in
#: another order must not skip a group the engine would rebalance.
SLACK = 1e-9


def fingerprint_key(strategy: str, weighted: bool, options: Dict[str, Any]) -> str:
    """What a group's fingerprint hashes for its strategy: the name, and for a load-aware
    strategy its knobs (defaults filled in), so changing a knob re-plans every group.

    Example::

        fingerprint_key("load-aware", True, {"max_count_skew": 2}) == "load-aware:2:0.05"
    """
    if not weighted:
        return strategy
    skew = options.get("max_count_skew", DEFAULT_MAX_COUNT_SKEW)
    gain = options.get("min_improvement", DEFAULT_MIN_IMPROVEMENT)
    return f"{strategy}:{int(skew)}:{float(gain)!r}"


def check_weights(weights: DataFrame, topics: DataFrame) -> None:
    """Check every weights row (one job; nothing is written on bad input): a null, NaN, infinite
    or negative weight, a null or negative partition, a partition given twice, or one not below
    its topic's partition count (topics the metadata lacks are not counted). The first problem
    found is raised by the one validator, :func:`~spark_assign.core.consumer.weights.weights_from_rows`,
    as the DataFrame method would raise it: :class:`InvalidInputError` naming ``weight`` or
    ``partition``, the group (when the weights have ``group_id``) and the row."""
    keys = (["group_id"] if "group_id" in weights.columns else []) + ["topic", "partition"]
    group = "group_id" if "group_id" in weights.columns else "CAST(NULL AS string)"
    shape = [f"{group} AS group_id", "topic", "partition", "weight", "num_partitions"]
    values = weights.where("weight IS NULL OR isnan(weight) OR weight < 0 OR weight = double('inf') "
                           "OR partition IS NULL OR partition < 0") \
        .selectExpr(*shape[:-1], "CAST(NULL AS int) AS num_partitions", "'value' AS problem")
    twice = weights.groupBy(*keys).agg(F.count(F.lit(1)).alias("n"), F.min("weight").alias("weight")) \
        .where("n > 1 AND partition IS NOT NULL") \
        .selectExpr(*shape[:-1], "CAST(NULL AS int) AS num_partitions", "'twice' AS problem")
    on: List[str] = [k for k in ("group_id", "topic") if k in weights.columns and k in topics.columns]
    counts = topics.groupBy(*[k for k in ("group_id", "topic") if k in topics.columns]).agg(
        F.min("num_partitions").alias("num_partitions"))       # per group when the metadata is
    beyond = weights.join(counts, on, "inner").where("num_partitions > 0 AND partition >= num_partitions") \
        .selectExpr(*(shape if "group_id" in weights.columns or "group_id" not in topics.columns
                      else ["group_id", *shape[1:]]), "'range' AS problem")
    found = values.unionByName(twice).unionByName(beyond).limit(1).collect()
    if not found:
        return
    g, topic, partition, weight, count, problem = found[0]
    p = NULL_PARTITION if partition is None else int(partition)
    rows = 2 if problem == "twice" else 1
    try:
        weights_from_rows([topic], np.array([count if problem == "range" else max(p + 1, 1)]),
                          np.zeros(rows, dtype=np.int64), np.full(rows, p, dtype=np.int64),
                          np.full(rows, 0.0 if weight is None else weight), np.full(rows, weight is None))
    except InvalidInputError as e:
        raise e.in_group(g) from None
    raise AssertionError(f"weights row {found[0]} was found bad but passes the validator")   # pragma: no cover


def load_replans(latest: DataFrame, heads: DataFrame, subscriptions: DataFrame, weights: DataFrame, todo: Plan,
                 strategy: str, min_improvement: float) -> Dict[str, ChangedGroup]:
    """The groups the plan left alone (``todo``) whose latest generation (``latest``: the rows of
    every group's latest generation) is too unbalanced under ``weights`` (the module's criterion),
    as groups to recompute with their head's fingerprint. One query; only those groups reach the
    driver. ``heads``: the table's heads (strategy, pending, generation, commit version)."""
    changed = list(todo.changed)
    keys = ["group_id", "topic", "partition"] if "group_id" in weights.columns else ["topic", "partition"]
    held = without_units(latest.where("member_id IS NOT NULL"), changed).select("group_id", "member_id", *keys[-2:])
    rows = held.join(weights.select(*keys, "weight"), keys, "left") \
        .selectExpr("group_id", "member_id", "weight", "1 AS _partition", "0 AS _subscribed")
    members = without_units(subscriptions.where("member_id IS NOT NULL"), changed) \
        .selectExpr("group_id", "member_id", "CAST(NULL AS double) AS weight", "0 AS _partition", "1 AS _subscribed")
    per_member = rows.unionByName(members).groupBy("group_id", "member_id").agg(*[F.expr(e) for e in [
        "coalesce(sum(weight), 0D) AS given", "count(weight) AS n_given",
        "sum(IF(_partition = 1 AND weight IS NULL, 1, 0)) AS missing", "max(weight) AS largest",
        "max(_subscribed) AS subscribed"]])
    per_group = per_member.groupBy("group_id").agg(*[F.expr(e) for e in [
        "sum(given) AS given", "sum(n_given) AS n_given", "sum(missing) AS missing", "max(largest) AS largest",
        "count(1) AS members", "max(subscribed) AS subscribed",
        "collect_list(named_struct('given', given, 'missing', missing)) AS loads"]])
    gain = 1 + float(min_improvement)
    over = per_group.where("subscribed = 1 AND n_given + missing > 0").selectExpr(
        "group_id", "n_given + missing AS partitions", "IF(n_given > 0, given / n_given, 1D) AS mean",
        "loads", "given", "missing", "largest", "members").selectExpr(
        "group_id", "partitions",
        "array_max(transform(loads, x -> x.given + x.missing * mean)) AS heaviest",
        "greatest((given + missing * mean) / members, coalesce(largest, 0D), IF(missing > 0, mean, 0D)) AS bound") \
        .where(f"heaviest > {gain!r} * bound * {1 - SLACK!r}")
    found = over.join(heads.where(f"strategy = '{strategy}' AND NOT coalesce(pending, false) "
                                  "AND NOT coalesce(empty, false)"), "group_id") \
        .select("group_id", "input_fingerprint", "partitions", "generation", "commit_version").collect()
    return {g: ChangedGroup(fp, int(n), int(gen), int(version), fp) for g, fp, n, gen, version in found
            if g not in todo.changed}


def load_counts(for_load: Sequence[str], settled: Sequence[str]) -> Dict[str, int]:
    """The summary's load counts (none without load re-plans): groups re-planned for their load, and
    of those, groups whose re-plan moved nothing (not committed)."""
    return {"groups_replanned_for_load": len(for_load), "groups_replanned_unmoved": len(settled)} if for_load else {}


def settle(computed: Union[pa.Table, DataFrame], todo: Plan) -> Tuple[Union[pa.Table, DataFrame], Plan, Dict[str, int]]:
    """``computed`` and ``todo`` without the groups re-planned for load (``todo.replanned``) whose
    re-plan moved nothing (:func:`.plan.without_unmoved`): they get no new generation. Returns the
    summary's load counts too (:func:`load_counts`)."""
    rows, narrowed, settled = without_unmoved(computed, todo)
    return rows, narrowed, load_counts(todo.replanned, settled)

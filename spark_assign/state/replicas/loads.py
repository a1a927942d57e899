"""Loads in a replica table's rebalance: which unchanged clusters are worth planning again.

``ReplicaTable.rebalance(..., loads=)`` balances per-partition loads (disk,
traffic) as ``assign_replicas`` does (the ``sticky`` goal search,
:mod:`spark_assign.core.replicas.goals`). Loads change every run, so they are
not in a cluster's fingerprint, or every cluster would be recomputed every
run; their names and the goal settings are (changing them recomputes every
cluster). Instead :func:`load_replans` looks, in one query, at the clusters
the plan left alone, under the new loads, and re-plans those whose latest
generation misses a hard goal or a distribution goal:

* a broker above a capacity (``capacity_<load>`` columns of the brokers), or
  holding more than ``max_replicas_per_broker`` replicas;
* a load whose heaviest broker carries more than ``(1 + threshold)`` times the
  cluster's mean (the load's total over the usable brokers). ``bytes_out``
  counts on leaders only (:data:`~spark_assign.core.replicas.loads.LEADER_LOADS`);
  a partition without a load row counts 0.

The mean is a floor of the goal the engine holds (with racks a broker's level
can be above it), so the criterion re-plans every cluster the engine could
improve, and some it cannot: a re-planned cluster whose new generation moves
nothing is not committed (:func:`~spark_assign.state.plan.without_unmoved`),
so a load that cannot be improved writes nothing. The summary counts both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple, cast

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...core.replicas.loads import DEFAULT_THRESHOLD, LEADER_LOADS
from ...spark.replicas.dataframe import CAPACITY_PREFIX, LoadPlan, load_plan
from ..plan import ChangedGroup, Plan, without_units
from .compute import LoadInput

__all__ = ["TableLoads", "load_replans", "SLACK"]

#: Relative slack of the criterion towards re-planning (sums rounded in another order).
SLACK = 1e-9
KEY = "cluster_id"


@dataclass(frozen=True)
class TableLoads:
    """A rebalance's checked loads: the rows (with ``cluster_id``), their load names, and the goal
    settings of ``assign_replicas`` (``threshold``, ``max_replicas_per_broker``)."""

    frame: DataFrame
    names: Tuple[str, ...]
    threshold: float = DEFAULT_THRESHOLD
    max_replicas_per_broker: Optional[int] = None

    @classmethod
    def of(cls, loads: DataFrame, brokers: DataFrame, reassign: Optional[str], threshold: object,
           max_replicas_per_broker: object) -> "TableLoads":
        """Checked as ``assign_replicas`` checks them (schema errors before any job); ``reassign``
        must be ``sticky``, the method that balances loads."""
        plan = cast(LoadPlan, load_plan(loads, brokers, reassign or "striped", threshold, max_replicas_per_broker))
        return cls(loads, plan.names, plan.threshold, plan.max_replicas_per_broker)

    def salt(self) -> str:
        """The part of the clusters' fingerprints the loads add: their names and goal settings."""
        return f"|loads:{','.join(self.names)}:{self.threshold!r}:{self.max_replicas_per_broker}"

    def input(self, frame: DataFrame) -> LoadInput:
        """``placement()``'s loads, with ``frame`` the rows of the clusters it computes."""
        return LoadInput(frame, self.threshold, self.max_replicas_per_broker)


def load_replans(latest: DataFrame, heads: DataFrame, brokers: DataFrame, loads: TableLoads,
                 todo: Plan) -> Dict[str, ChangedGroup]:
    """The clusters the plan left alone (``todo``) whose latest generation (``latest``: every
    cluster's latest rows) misses a goal under ``loads`` (module docstring), as clusters to
    recompute with their head's fingerprint. One query; only those clusters reach the driver."""
    changed = list(todo.changed)
    keys = [KEY, "topic", "partition"]
    held = without_units(latest, changed, KEY).select(*keys, "replica_index", "broker_id")
    values = loads.frame.select(*keys, *[F.col(n).cast("double").alias(n) for n in loads.names])
    rows = held.join(values, keys, "left")
    carried = [F.coalesce(F.col(n), F.lit(0.0)) if n not in LEADER_LOADS else
               F.when(F.col("replica_index") == 0, F.coalesce(F.col(n), F.lit(0.0))).otherwise(0.0)
               for n in loads.names]
    per_broker = rows.groupBy(KEY, "broker_id").agg(F.count(F.lit(1)).alias("_replicas"),
                                                    *[F.sum(c).alias(n) for c, n in zip(carried, loads.names)])
    usable = brokers.where(~F.coalesce(F.col("fenced"), F.lit(False))) if "fenced" in brokers.columns else brokers
    capacities = [c for c in (f"{CAPACITY_PREFIX}{n}" for n in loads.names) if c in brokers.columns]
    per_broker = per_broker.join(usable.select(KEY, "broker_id", *capacities), [KEY, "broker_id"], "left")
    size = usable.groupBy(KEY).agg(F.count(F.lit(1)).alias("_brokers"))
    gain = (1 + loads.threshold) * (1 - SLACK)
    misses = [F.max(F.col(n)) > F.lit(gain) * F.sum(F.col(n)) / F.first("_brokers") for n in loads.names]
    misses += [F.max(F.col(f"{CAPACITY_PREFIX}{n}").isNotNull() & (F.col(n) > F.col(f"{CAPACITY_PREFIX}{n}")))
               for n in loads.names if f"{CAPACITY_PREFIX}{n}" in capacities]
    if loads.max_replicas_per_broker is not None:
        misses.append(F.max("_replicas") > F.lit(loads.max_replicas_per_broker))
    over = per_broker.join(size, KEY).groupBy(KEY).agg(
        F.sum("_replicas").alias("partitions"), _any(misses).alias("_over")).where("_over")
    found = over.join(heads.where("NOT coalesce(pending, false) AND NOT coalesce(empty, false)"), KEY) \
        .select(KEY, "input_fingerprint", "partitions", "generation", "commit_version").collect()
    return {c: ChangedGroup(fp, int(n), int(gen), int(version), fp) for c, fp, n, gen, version in found
            if c not in todo.changed}


def _any(flags: Sequence) -> "F.Column":
    """True when any of the aggregated ``flags`` holds (null counts as false)."""
    out = F.lit(False)
    for flag in flags:
        out = out | F.coalesce(flag, F.lit(False))
    return out

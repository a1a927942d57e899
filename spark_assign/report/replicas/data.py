"""Figures of a replica table (:class:`~spark_assign.ReplicaTable`): load per broker, rack spread, moves.

The input is the table's rows (:data:`~spark_assign.schema.REPLICA_STATE_COLUMNS`
and ``commit_version``) as a pandas DataFrame or a pyarrow Table; every
figure is a small pandas DataFrame, exact counts (the tests check them):

* :func:`latest_replicas`: each cluster's latest generation;
* :func:`broker_load`: replicas and preferred leaders per broker (brokers
  without any replica count when the brokers are given);
* :func:`rack_load` and :func:`rack_spread`: replicas per rack, and how many
  racks each partition's replicas span;
* :func:`generation_figures`: per cluster and generation, what moved and how
  even the brokers' load is;
* :func:`rebalance_figures`: per rebalance of the table (a commit), the
  fleet's moves, leader changes and the lower bound of the moves (from the
  commits' metadata, when given).

A replica ``moved`` (a broker new to the partition: a copy of its data) is
what costs; a preferred leader change only reorders a partition's replicas.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from ...errors import InvalidInputError, SchemaError
from ...schema import REPLICA_STATE_COLUMNS, REPLICA_STATUSES

__all__ = ["REPLICA_REQUIRED", "load_replica_rows", "latest_replicas", "broker_load", "rack_load", "rack_spread",
           "generation_figures", "rebalance_figures", "is_replica_table"]

#: Columns a replica report cannot do without.
REPLICA_REQUIRED = ("cluster_id", "generation", "topic", "partition", "replica_index", "broker_id", "status")
_COLUMNS = [n for n, _ in REPLICA_STATE_COLUMNS] + ["commit_version"]
_CLUSTER = ["cluster_id"]


def is_replica_table(columns) -> bool:
    """Whether a table with ``columns`` holds replica placements (not consumer-group assignments)."""
    return "broker_id" in columns and "replica_index" in columns


def load_replica_rows(rows: Any) -> pd.DataFrame:
    """``rows`` (pandas or pyarrow) as a pandas DataFrame with every replica column (missing
    optional ones are null); :class:`~spark_assign.errors.SchemaError` for a missing required
    column, :class:`~spark_assign.errors.InvalidInputError` for an unknown status.

    Example::

        load_replica_rows(DeltaTable("/data/replicas").to_pyarrow_table())
    """
    frame = rows.to_pandas() if hasattr(rows, "to_pandas") and not isinstance(rows, pd.DataFrame) else rows
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(f"rows must be a pandas DataFrame or a pyarrow Table, got {type(rows).__name__}",
                                column="rows")
    missing = [c for c in REPLICA_REQUIRED if c not in frame.columns]
    if missing:
        raise SchemaError(f"replica rows lack the columns {', '.join(missing)}")
    frame = frame.assign(**{c: None for c in _COLUMNS if c not in frame.columns})[_COLUMNS]
    bad = ~frame["status"].isin(REPLICA_STATUSES)
    if bad.any():
        raise InvalidInputError(f"status must be one of {', '.join(REPLICA_STATUSES)}", column="status",
                                rows=frame.loc[bad, ["cluster_id", "topic", "partition", "status"]].head(5)
                                .to_dict("records"))
    return frame


def latest_replicas(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of each cluster's latest generation.

    Example::

        latest_replicas(rows).groupby("cluster_id").size()    # replicas per cluster now
    """
    last = rows.groupby("cluster_id")["generation"].transform("max")
    return rows[rows["generation"] == last]


def broker_load(latest: pd.DataFrame, brokers: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """Per broker of each cluster: ``rack``, ``replicas`` and ``leaders`` (partitions it is the
    preferred leader of) in ``latest`` rows. ``brokers`` (``cluster_id``, ``broker_id``, optionally
    ``rack``): every broker to list, with zeros for those holding nothing. Sorted by cluster, broker.

    Example::

        broker_load(latest_replicas(rows))     # cluster_id, broker_id, rack, replicas, leaders
    """
    frame = latest.assign(_leader=(latest["replica_index"] == 0).astype("int64"))
    load = frame.groupby(["cluster_id", "broker_id"], sort=False).agg(
        rack=("rack", "first"), replicas=("topic", "size"), leaders=("_leader", "sum")).reset_index()
    if brokers is not None and len(brokers):
        given = brokers.assign(rack=brokers["rack"] if "rack" in brokers.columns else None)
        given = given[["cluster_id", "broker_id", "rack"]].drop_duplicates(["cluster_id", "broker_id"])
        load = given.merge(load.drop(columns="rack"), on=["cluster_id", "broker_id"], how="outer")
        load[["replicas", "leaders"]] = load[["replicas", "leaders"]].fillna(0)
    load["broker_id"] = load["broker_id"].astype("int64")
    load[["replicas", "leaders"]] = load[["replicas", "leaders"]].astype("int64")
    load["rack"] = load["rack"].where(load["rack"].notna(), None)
    return load.sort_values(["cluster_id", "broker_id"], kind="stable").reset_index(drop=True)[
        ["cluster_id", "broker_id", "rack", "replicas", "leaders"]]


def rack_load(latest: pd.DataFrame) -> pd.DataFrame:
    """Per rack of each cluster (``rack`` null: brokers without one): ``brokers`` holding
    replicas, ``replicas``, ``leaders``.

    Example::

        rack_load(latest_replicas(rows))
    """
    frame = latest.assign(rack=latest["rack"].fillna("(none)"),
                          _leader=(latest["replica_index"] == 0).astype("int64"))
    out = frame.groupby(["cluster_id", "rack"]).agg(brokers=("broker_id", "nunique"), replicas=("topic", "size"),
                                                    leaders=("_leader", "sum")).reset_index()
    return out.astype({"brokers": "int64", "replicas": "int64", "leaders": "int64"})


def rack_spread(latest: pd.DataFrame) -> pd.DataFrame:
    """Per cluster, how many partitions have replicas on 0, 1, 2, ... racks (brokers without a
    rack count for none): ``cluster_id``, ``racks_spanned``, ``partitions``, ``racks`` (the
    cluster's racks) and ``replication_factor`` (the widest partition's).

    Example::

        rack_spread(latest_replicas(rows))   # a partition spanning fewer racks than it could is at risk
    """
    keys = ["cluster_id", "topic", "partition"]
    per_partition = latest.groupby(keys).agg(racks_spanned=("rack", "nunique"), width=("broker_id", "size"))
    per_partition = per_partition.reset_index()
    out = per_partition.groupby(["cluster_id", "racks_spanned"]).size().rename("partitions").reset_index()
    racks = latest.groupby("cluster_id")["rack"].nunique().rename("racks")
    widths = per_partition.groupby("cluster_id")["width"].max().rename("replication_factor")
    out = out.merge(racks, on="cluster_id").merge(widths, on="cluster_id")
    return out.astype({"racks_spanned": "int64", "partitions": "int64", "racks": "int64",
                       "replication_factor": "int64"})


def _leader_changes(rows: pd.DataFrame) -> "pd.Series[bool]":
    before = rows["previous_broker_id"]
    return (rows["replica_index"] == 0) & before.notna() & (before != rows["broker_id"])


def _spread(group: pd.DataFrame) -> pd.Series:
    """Replicas and preferred leaders per broker of one generation: min and max over its brokers."""
    replicas = group.groupby("broker_id").size()
    leaders = group[group["replica_index"] == 0].groupby("broker_id").size().reindex(replicas.index, fill_value=0)
    return pd.Series({"replicas_min": replicas.min(), "replicas_max": replicas.max(),
                      "leaders_min": leaders.min(), "leaders_max": leaders.max()})


def generation_figures(rows: pd.DataFrame) -> pd.DataFrame:
    """Per cluster and generation: ``methods``, ``brokers`` and ``racks`` holding replicas,
    ``partitions``, replicas ``new``/``kept``/``moved``, ``leaders_changed``, the min and max of
    replicas and of preferred leaders per broker (over the brokers holding replicas),
    ``commit_version`` and ``committed_at``. Sorted by cluster and generation.

    Example::

        generation_figures(table.history("eu-1").toPandas())
    """
    frame = rows.assign(_leader_changed=_leader_changes(rows).astype("int64"),
                        **{f"_{s}": (rows["status"] == s).astype("int64") for s in REPLICA_STATUSES})
    keys = ["cluster_id", "generation"]
    by = frame.groupby(keys, sort=True)
    out = by.agg(methods=("method", lambda m: ", ".join(sorted({str(x) for x in m if x is not None}))),
                 brokers=("broker_id", "nunique"), racks=("rack", "nunique"),
                 leaders_changed=("_leader_changed", "sum"), commit_version=("commit_version", "max"),
                 committed_at=("committed_at", "max"),
                 **{s: (f"_{s}", "sum") for s in REPLICA_STATUSES})
    out["partitions"] = frame.drop_duplicates(keys + ["topic", "partition"]).groupby(keys).size()
    spread = pd.DataFrame({k: _spread(g) for k, g in frame.groupby(keys, sort=True)}).T
    spread.index = spread.index.set_names(keys)
    out = out.join(spread.astype("int64")).reset_index()
    return out[keys + ["methods", "brokers", "racks", "partitions", *REPLICA_STATUSES, "leaders_changed",
                       "replicas_min", "replicas_max", "leaders_min", "leaders_max", "commit_version",
                       "committed_at"]]


def _number(value: Any) -> float:
    return np.nan if value is None else float(value)


def rebalance_figures(rows: pd.DataFrame, commits: Optional[List[Dict[str, Any]]] = None) -> pd.DataFrame:
    """Per rebalance of the table (a ``commit_version`` that wrote rows), numbered ``step`` 1, 2,
    ...: ``clusters`` recomputed, ``partitions``, replicas ``new``/``kept``/``moved``,
    ``leaders_changed``, ``committed_at``, and ``lower_bound`` from ``commits`` (``versions()``
    entries, or rows of a Delta history; NaN without them).

    Example::

        rebalance_figures(rows, table.versions())["moved"].sum()
    """
    frame = rows.assign(_leader_changed=_leader_changes(rows).astype("int64"),
                        **{f"_{s}": (rows["status"] == s).astype("int64") for s in REPLICA_STATUSES})
    by = frame.groupby("commit_version", sort=True)
    out = by.agg(clusters=("cluster_id", "nunique"), leaders_changed=("_leader_changed", "sum"),
                 committed_at=("committed_at", "max"), **{s: (f"_{s}", "sum") for s in REPLICA_STATUSES})
    keys = ["commit_version", "cluster_id", "topic", "partition"]
    out["partitions"] = frame.drop_duplicates(keys).groupby("commit_version").size()
    out = out.reset_index()
    bounds = {int(c["version"]): (c.get("spark_assign") or {}).get("lower_bound") for c in commits or []}
    out["lower_bound"] = [_number(bounds.get(int(v))) for v in out["commit_version"]]
    out.insert(0, "step", np.arange(1, len(out) + 1))
    return out[["step", "commit_version", "clusters", "partitions", *REPLICA_STATUSES, "leaders_changed",
                "lower_bound", "committed_at"]]

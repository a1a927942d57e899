"""Load figures of an assignment history: rows carrying weights (lag, bytes/s, ...).

The state table keeps each partition's weight in its generation (``weight``;
null when the rebalance was given none). From those:

* a member's **load** is the sum of the weights of the partitions it owns (a
  pending partition counts for nobody);
* a group's **mean load** is its total weight over its members (members as in
  :func:`~spark_assign.report.consumer.metrics.balance`: owners, members revoking a
  partition, and the subscribed members when given); its **lower bound** is
  ``max(mean load, largest weight)``: no assignment's heaviest member carries
  less (docs/load-aware.md);
* **imbalance** is heaviest load / mean load (1.0 is perfect balance), and
  **vs bound** heaviest load / lower bound (1.0: nothing better exists);
* **weight moved** is the weight of the partitions changing owner (``moved``
  and ``revoked``), also as a share of the group's total weight.

:func:`load_balance` is the one definition (the report, the CLI's summaries and
``spark-assign history`` use it). Groups whose rows have no weights get no
load figures (NaN).
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from .data import KEY

__all__ = ["LOAD_COLUMNS", "load_balance", "group_loads", "step_loads", "member_loads", "has_weights"]

#: Columns of :func:`load_balance`.
LOAD_COLUMNS = ["total_weight", "largest_weight", "heaviest_load", "mean_load", "lower_bound", "imbalance",
                "vs_bound"]
_GEN_KEY = KEY + ["generation"]


def has_weights(rows: pd.DataFrame) -> bool:
    """Whether any row carries a weight."""
    return "weight" in rows.columns and bool(rows["weight"].notna().any())


def load_balance(rows: pd.DataFrame, keys: Sequence[str], members: pd.DataFrame) -> pd.DataFrame:
    """Each group's load figures (:data:`LOAD_COLUMNS`, see the module docstring).

    Example::

        rows = pd.DataFrame({"group_id": ["g"] * 3, "member_id": ["a", "a", "b"], "weight": [5.0, 1.0, 2.0]})
        load_balance(rows, ["group_id"], pd.DataFrame({"group_id": ["g"] * 3, "member_id": ["a", "b", "c"]}))
        # g: total 8, heaviest 6, mean 8/3, bound 5, imbalance 2.25, vs bound 1.2

    Parameters
    ----------
    rows:
        One row per partition: the ``keys`` columns, ``member_id`` (null while pending) and
        ``weight`` (null: no weights for that group).
    keys:
        The columns identifying a group (e.g. ``["strategy", "group_id", "generation"]``).
    members:
        Every member of each group: the ``keys`` columns and ``member_id`` (one owning nothing
        counts, with load 0).
    """
    keys = list(keys)
    w = rows.assign(_w=pd.to_numeric(rows["weight"], errors="coerce"))
    per = w.groupby(keys, sort=True).agg(total_weight=("_w", "sum"), largest_weight=("_w", "max"),
                                         _weighed=("_w", "count"))
    owners = w[w["member_id"].notna()]
    loads = owners.groupby(keys + ["member_id"])["_w"].sum()
    everyone = members[keys + ["member_id"]].dropna().drop_duplicates()
    count = everyone.groupby(keys).size().rename("_members")
    per = per.join(count, how="left").join(loads.groupby(level=keys).max().rename("heaviest_load"), how="left")
    per["_members"] = per["_members"].fillna(0).clip(lower=1)
    per["heaviest_load"] = per["heaviest_load"].fillna(0.0)
    per["mean_load"] = per["total_weight"] / per["_members"]
    per["lower_bound"] = np.maximum(per["mean_load"], per["largest_weight"])
    with np.errstate(divide="ignore", invalid="ignore"):
        per["imbalance"] = np.where(per["mean_load"] > 0, per["heaviest_load"] / per["mean_load"], 1.0)
        per["vs_bound"] = np.where(per["lower_bound"] > 0, per["heaviest_load"] / per["lower_bound"], 1.0)
    per.loc[per["_weighed"] == 0, LOAD_COLUMNS] = np.nan          # no weights: no load figures
    return per[LOAD_COLUMNS]


def group_loads(rows: pd.DataFrame, members: pd.DataFrame) -> pd.DataFrame:
    """Per (strategy, group_id, generation): :func:`load_balance` plus the weight moved (``moved`` and
    ``revoked`` partitions) and its share of the group's weight (``weight_moved``, ``weight_moved_share``).

    Example::

        group_loads(rows, generation_members(rows))[["imbalance", "weight_moved"]]
    """
    out = load_balance(rows, _GEN_KEY, members)
    changing = rows[rows["status"].isin(["moved", "revoked"])]
    moved = pd.to_numeric(changing["weight"], errors="coerce").groupby(
        [changing[k] for k in _GEN_KEY]).sum().rename("weight_moved")
    out = out.join(moved, how="left")
    out["weight_moved"] = np.where(out["total_weight"].notna(), out["weight_moved"].fillna(0.0), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["weight_moved_share"] = np.where(out["total_weight"] > 0, out["weight_moved"] / out["total_weight"],
                                             np.where(out["total_weight"].notna(), 0.0, np.nan))
    return out.reset_index()


def step_loads(per_group: pd.DataFrame) -> pd.DataFrame:
    """Per (strategy, step, follow_up): the groups' imbalance (mean, worst), vs bound (mean,
    worst), weight moved and its share of the weight of the groups rebalanced (``per_group``:
    :func:`group_loads` with the ``step`` and ``follow_up`` columns of the group metrics).

    Example::

        step_loads(per_group).set_index(["strategy", "step", "follow_up"]).loc[("load-aware", 3, 0)]
    """
    weighed = per_group[per_group["total_weight"].notna()]
    by = weighed.groupby(["strategy", "step", "follow_up"], sort=True)
    out = by.agg(imbalance_mean=("imbalance", "mean"), imbalance_max=("imbalance", "max"),
                 vs_bound_mean=("vs_bound", "mean"), vs_bound_max=("vs_bound", "max"),
                 weight_moved=("weight_moved", "sum"), total_weight=("total_weight", "sum")).reset_index()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["weight_moved_share"] = np.where(out["total_weight"] > 0, out["weight_moved"] / out["total_weight"], 0.0)
    return out


def member_loads(rows: pd.DataFrame, members: pd.DataFrame, strategy: str, group_id: str,
                 steps: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One group's load per member per generation: ``generation`` (and ``step``, ``follow_up`` from
    ``steps``), ``member_id``, ``load`` (0 for a member owning nothing).

    Example::

        member_loads(rows, generation_members(rows), "load-aware", "g0").pivot(
            index="generation", columns="member_id", values="load")
    """
    mine = rows[(rows["strategy"] == strategy) & (rows["group_id"] == group_id)]
    who = members[(members["strategy"] == strategy) & (members["group_id"] == group_id)] \
        if "strategy" in members.columns else members[members["group_id"] == group_id]
    owned = mine[mine["member_id"].notna()].assign(load=pd.to_numeric(mine["weight"], errors="coerce"))
    loads = owned.groupby(["generation", "member_id"])["load"].sum()
    grid = who[["generation", "member_id"]].dropna().drop_duplicates() if "generation" in who.columns else \
        pd.DataFrame({"generation": [], "member_id": []})
    idx = pd.MultiIndex.from_frame(pd.concat([loads.index.to_frame(index=False), grid]).drop_duplicates())
    out = loads.reindex(idx).fillna(0.0).rename("load").reset_index().sort_values(["generation", "member_id"])
    if steps is not None:
        place = steps[(steps["strategy"] == strategy) & (steps["group_id"] == group_id)]
        out = out.merge(place[["generation", "step", "follow_up"]], on="generation", how="left")
    return out.reset_index(drop=True)

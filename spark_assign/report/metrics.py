"""Figures of an assignment history: per generation, per group, per member.

All functions take state rows (see :mod:`spark_assign.report.data`) and return
pandas DataFrames, vectorised so that a fleet of 10,000 groups is cheap.

Definitions
-----------
* A **group** is a ``(strategy, group_id)`` pair: a simulation may run the
  same fleet under several strategies.
* Status counts (``new``, ``kept``, ``moved``, ``revoked``, ``assigned``) count
  partition rows. ``revoked`` partitions are pending a cooperative transfer
  (no owner this generation); ``assigned`` ones complete such a transfer.
* The **members** of a group in a generation are its subscribed members when
  they are given (``members=``), plus the owners of its rows and the members
  revoking a partition in it (still in the group, they may own nothing else).
  A member owning nothing leaves no row in the state table: without
  ``members=`` it cannot be counted.
* The **spread** of a group is ``max - min`` partitions owned per member, a
  member owning nothing counting 0 and a pending partition counting for
  nobody (0 for a group without members). It is Kafka's measure of balance:
  with identical subscriptions a group is balanced when its spread is at most
  1 (the first test of ``AbstractStickyAssignor``'s ``isBalanced``), members
  owning nothing included. :func:`balance` is the one definition, used by the
  report and by the command line.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Dict, Iterable, List, Optional, Sequence

import pandas as pd

from ..errors import InvalidInputError
from ..schema import STATUSES
from .data import KEY, load_rows

__all__ = [
    "Figures",
    "balance",
    "metrics",
    "group_metrics",
    "group_summary",
    "latest_assignment",
    "fleet_summary",
    "format_partitions",
]

_GEN_KEY = KEY + ["generation"]
_STATUS = list(STATUSES)

GROUP_METRIC_COLUMNS = _GEN_KEY + ["partitions", *_STATUS, "members", "min_partitions",
                                   "max_partitions", "spread", "committed_at"]
METRIC_COLUMNS = ["strategy", "generation", "groups_rebalanced", "groups_with_moves", "partitions",
                  *_STATUS, "members_mean", "members_max", "spread_mean", "spread_max", "committed_at"]
SUMMARY_COLUMNS = KEY + ["generations", "first_generation", "last_generation", "movement", "moved",
                         "revoked", "assigned", "new", "partitions", "members", "spread", "worst_spread"]
BALANCE_COLUMNS = ["members", "min_partitions", "max_partitions", "spread"]
ASSIGNMENT_COLUMNS = _GEN_KEY + ["member_id", "group_instance_id", "partitions", "kept", "moved",
                                 "new", "assigned", "revoking", "assignment"]


def balance(rows: pd.DataFrame, keys: Sequence[str], members: Optional[pd.DataFrame] = None,
            count: Optional[str] = None) -> pd.DataFrame:
    """Each group's members, the fewest and most partitions a member owns, and the spread.

    The one definition of a group's spread (see the module's definitions):
    ``max - min`` partitions per member over every member of the group, a
    member owning nothing counting 0, a pending partition (null
    ``member_id``) counting for nobody, and 0 for a group without members.

    Example::

        rows = pd.DataFrame({"group_id": ["g", "g"], "member_id": ["a", "b"]})
        subscribed = pd.DataFrame({"group_id": ["g"] * 3, "member_id": ["a", "b", "c"]})
        balance(rows, ["group_id"], subscribed)   # g: members 3, min 0, max 1, spread 1

    Parameters
    ----------
    rows:
        One row per partition with the ``keys`` columns and ``member_id``
        (its owner, null while pending); ``status`` and
        ``previous_member_id``, when present, make members revoking a
        partition count too. Each distinct ``keys`` value is a group.
    keys:
        The columns identifying a group, e.g. ``["group_id"]`` or
        ``["strategy", "group_id", "generation"]``.
    members:
        The groups' subscribed members: a ``member_id`` column and any of the
        ``keys`` columns (a key column it lacks matches every group). None:
        only owners and revoking members are known.
    count:
        A column of ``rows`` holding how many partitions the row stands for
        (rows pre-aggregated per owner); by default each row is one partition.

    Returns a frame indexed by ``keys`` (one row per group of ``rows``) with
    ``members``, ``min_partitions``, ``max_partitions`` and ``spread``.
    """
    if members is not None and (not isinstance(members, pd.DataFrame) or "member_id" not in members.columns):
        raise InvalidInputError("members must be a pandas DataFrame with a member_id column, got "
                                f"{type(members).__name__}", column="members")
    keys = list(keys)
    groups = rows[keys].drop_duplicates()
    owners = rows[rows["member_id"].notna()]
    if count is None:
        owned = owners.groupby(keys + ["member_id"]).size()
    else:
        owned = owners.groupby(keys + ["member_id"])[count].sum()
    owned = owned.astype("int64")
    known = []
    if "status" in rows.columns and "previous_member_id" in rows.columns:
        revoking = rows.loc[(rows["status"] == "revoked") & rows["previous_member_id"].notna(),
                            keys + ["previous_member_id"]]
        known.append(revoking.rename(columns={"previous_member_id": "member_id"}))
    if members is not None:
        on = [k for k in keys if k in members.columns]
        subscribed = members.loc[members["member_id"].notna(), on + ["member_id"]]
        known.append(groups.merge(subscribed, on=on) if on else groups.merge(subscribed, how="cross"))
    if known:
        everyone = pd.MultiIndex.from_frame(pd.concat(known)[keys + ["member_id"]].drop_duplicates())
        idle = everyone.difference(owned.index)
        if len(idle):
            owned = pd.concat([owned, pd.Series(0, index=idle, dtype="int64")])
    per_member = owned.groupby(level=keys).agg(["size", "min", "max"])
    per_member.columns = BALANCE_COLUMNS[:3]
    index = pd.MultiIndex.from_frame(groups) if len(keys) > 1 else pd.Index(groups[keys[0]], name=keys[0])
    out = per_member.reindex(index).fillna(0).astype("int64")
    out["spread"] = out["max_partitions"] - out["min_partitions"]
    return out


def _group_metrics(df: pd.DataFrame, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in GROUP_METRIC_COLUMNS})
    parts = df.groupby(_GEN_KEY, sort=True).size().rename("partitions")
    counts = (df.groupby(_GEN_KEY + ["status"]).size().unstack("status", fill_value=0)
              .reindex(columns=_STATUS, fill_value=0))
    out = pd.concat([parts, counts, balance(df, _GEN_KEY, members)], axis=1)
    out["committed_at"] = df.groupby(_GEN_KEY)["committed_at"].max()
    out = out.reset_index()
    return out[GROUP_METRIC_COLUMNS]


class Figures:
    """Every figure of an assignment history, from one validated copy of its rows, each computed
    once (the HTML report shows them all; the functions below are its parts).

    Example::

        figures = Figures(rows)
        figures.per_generation.equals(metrics(rows)) and figures.fleet["groups"] == len(figures.summary)

    Parameters
    ----------
    rows:
        State rows (see :func:`~spark_assign.report.data.load_rows`).
    members:
        The groups' subscribed members, or None (see :func:`balance`).
    """

    def __init__(self, rows: Any, members: Optional[pd.DataFrame] = None) -> None:
        self.rows = load_rows(rows)
        self.members = members

    @cached_property
    def per_group(self) -> pd.DataFrame:
        """:func:`group_metrics`: one row per (strategy, group_id, generation)."""
        return _group_metrics(self.rows, self.members)

    @cached_property
    def per_generation(self) -> pd.DataFrame:
        """:func:`metrics`: one row per (strategy, generation)."""
        return _metrics_from_groups(self.per_group)

    @cached_property
    def summary(self) -> pd.DataFrame:
        """:func:`group_summary` (every group): one row per group, most movement first."""
        return _summary_from_groups(self.per_group)

    @cached_property
    def fleet(self) -> Dict[str, Any]:
        """:func:`fleet_summary`: the headline figures."""
        return _fleet_summary(self.rows, self.per_group, self.summary)

    def latest(self, groups: Optional[Iterable[tuple]] = None) -> pd.DataFrame:
        """:func:`latest_assignment` of ``groups`` (``(strategy, group_id)`` pairs; None: all)."""
        return _latest_assignment(self.rows, groups)


def group_metrics(rows: Any, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per (strategy, group_id, generation): partitions, status counts, members, spread.

    ``members`` (optional): the groups' subscribed members, see :func:`balance`.
    """
    return Figures(rows, members).per_group


def _metrics_from_groups(gm: pd.DataFrame) -> pd.DataFrame:
    if gm.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in METRIC_COLUMNS})
    gm = gm.assign(_moving=(gm["moved"] + gm["revoked"] > 0).astype("int64"))
    by = gm.groupby(["strategy", "generation"], sort=True)
    out = by.agg(
        groups_rebalanced=("group_id", "size"),
        groups_with_moves=("_moving", "sum"),
        partitions=("partitions", "sum"),
        **{s: (s, "sum") for s in _STATUS},
        members_mean=("members", "mean"),
        members_max=("members", "max"),
        spread_mean=("spread", "mean"),
        spread_max=("spread", "max"),
        committed_at=("committed_at", "max"),
    ).reset_index()
    return out[METRIC_COLUMNS]


def metrics(rows: Any, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per (strategy, generation), sorted by both.

    Columns: ``groups_rebalanced`` (groups with rows in the generation),
    ``groups_with_moves`` (of those, groups with a moved or revoked partition),
    ``partitions`` and the status counts ``new``, ``kept``, ``moved``,
    ``revoked`` (pending transfers), ``assigned`` (completed transfers), then
    members per group (``members_mean``, ``members_max``), the balance spread
    per group (``spread_mean``, worst: ``spread_max``) and the latest
    ``committed_at``. ``members`` (optional): the groups' subscribed members,
    see :func:`balance`.
    """
    return Figures(rows, members).per_generation


def _summary_from_groups(gm: pd.DataFrame) -> pd.DataFrame:
    if gm.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in SUMMARY_COLUMNS})
    by = gm.groupby(KEY, sort=True)
    out = by.agg(
        generations=("generation", "size"),
        first_generation=("generation", "min"),
        last_generation=("generation", "max"),
        moved=("moved", "sum"),
        revoked=("revoked", "sum"),
        assigned=("assigned", "sum"),
        new=("new", "sum"),
        worst_spread=("spread", "max"),
    )
    last = gm.sort_values("generation").groupby(KEY).tail(1).set_index(KEY)
    out = out.join(last[["partitions", "members", "spread"]])
    out["movement"] = out["moved"] + out["revoked"]
    out = out.reset_index().sort_values(["movement", "strategy", "group_id"],
                                        ascending=[False, True, True], kind="stable")
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


def group_summary(rows: Any, top: Optional[int] = None, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per group, most movement (``moved + revoked`` over all generations) first.

    ``partitions``, ``members`` and ``spread`` are those of the group's latest
    generation; ``worst_spread`` is the largest over its history. ``top``
    keeps the first ``top`` rows. ``members`` (optional): the groups'
    subscribed members, see :func:`balance`.
    """
    if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 0):
        raise InvalidInputError(f"top must be a non-negative integer, got {top!r}", column="top")
    out = Figures(rows, members).summary
    return out if top is None else out.head(top).reset_index(drop=True)


def _ranges(numbers: Iterable[int]) -> str:
    spans: List[str] = []
    ordered = sorted(numbers)
    start = prev = None
    for n in ordered + [None]:
        if prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            spans.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    return ", ".join(spans)


def format_partitions(pairs: Iterable[tuple]) -> str:
    """``[("t0", 0), ("t0", 1), ("t0", 2), ("t1", 5)]`` -> ``"t0 0-2; t1 5"``."""
    by_topic: Dict[str, List[int]] = {}
    for topic, partition in pairs:
        by_topic.setdefault(str(topic), []).append(int(partition))
    return "; ".join(f"{t} {_ranges(ps)}" for t, ps in sorted(by_topic.items()))


def latest_assignment(rows: Any, groups: Optional[Iterable[tuple]] = None) -> pd.DataFrame:
    """Each member of each group's latest generation: what it owns and how it got it.

    ``groups`` optionally restricts the answer to ``(strategy, group_id)`` pairs.
    Columns: ``partitions`` owned, how many of them were ``kept`` / ``moved`` to
    it / ``new`` / ``assigned`` (completed transfers), ``revoking`` (partitions it
    gives up, pending), and ``assignment``, its partitions as ``"t0 0-2; t1 5"``.
    """
    return Figures(rows).latest(groups)


def _latest_assignment(df: pd.DataFrame, groups: Optional[Iterable[tuple]] = None) -> pd.DataFrame:
    if groups is not None:
        pairs = [tuple(g) if isinstance(g, (tuple, list)) else (g,) for g in groups]
        bad = [g for g in pairs if len(g) != 2]
        if bad:
            raise InvalidInputError("groups must be (strategy, group_id) pairs", column="groups", rows=bad)
        wanted = pd.DataFrame(pairs, columns=KEY, dtype=object).drop_duplicates()
        df = df.merge(wanted, on=KEY) if len(wanted) else df.iloc[:0]
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in ASSIGNMENT_COLUMNS})
    last = df.groupby(KEY)["generation"].transform("max")
    df = df[df["generation"] == last]
    owner = df["member_id"].where(df["member_id"].notna(), df["previous_member_id"])
    df = df.assign(_member=owner)[owner.notna()]
    keys = _GEN_KEY + ["_member"]
    mine = df["member_id"].notna()
    counts = (df[mine].groupby(keys + ["status"]).size().unstack("status", fill_value=0)
              .reindex(columns=["kept", "moved", "new", "assigned"], fill_value=0))
    revoking = df[~mine].groupby(keys).size().rename("revoking")
    out = pd.concat([counts, revoking], axis=1).fillna(0).astype("int64")
    out["partitions"] = out[["kept", "moved", "new", "assigned"]].sum(axis=1)
    owned = df[mine].sort_values(["topic", "partition"])
    lists = owned.groupby(keys).apply(lambda g: format_partitions(zip(g["topic"], g["partition"])),
                                      include_groups=False)
    out["assignment"] = lists.reindex(out.index).fillna("")
    out["group_instance_id"] = df.groupby(keys)["group_instance_id"].first().reindex(out.index)
    out = out.reset_index().rename(columns={"_member": "member_id"})
    out = out.sort_values(KEY + ["member_id"], kind="stable").reset_index(drop=True)
    return out[ASSIGNMENT_COLUMNS]


def fleet_summary(rows: Any, members: Optional[pd.DataFrame] = None) -> Dict[str, Any]:
    """Headline figures: strategies, groups, generations, partitions and members now, totals.

    ``members`` (optional): the groups' subscribed members, see :func:`balance`.
    """
    return Figures(rows, members).fleet


def _fleet_summary(df: pd.DataFrame, gm: pd.DataFrame, summary: pd.DataFrame) -> Dict[str, Any]:
    times = df["committed_at"].dropna()
    return {
        "rows": int(len(df)),
        "strategies": sorted(df["strategy"].unique().tolist()),
        "groups": int(len(summary)),
        "group_ids": int(df["group_id"].nunique()),
        "generations": sorted(int(g) for g in df["generation"].unique()),
        "partitions": int(summary["partitions"].sum()) if len(summary) else 0,
        "members": int(summary["members"].sum()) if len(summary) else 0,
        "moved": int(gm["moved"].sum()) if len(gm) else 0,
        "revoked": int(gm["revoked"].sum()) if len(gm) else 0,
        "assigned": int(gm["assigned"].sum()) if len(gm) else 0,
        "first_commit": times.min() if len(times) else None,
        "last_commit": times.max() if len(times) else None,
    }

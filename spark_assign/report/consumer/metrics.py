"""Figures of an assignment history: per generation, per group, per member.

All functions take state rows (see :mod:`spark_assign.report.consumer.data`) and return
pandas DataFrames, vectorised so that a fleet of 10,000 groups is cheap.

Definitions
-----------
* A **group** is a ``(strategy, group_id)`` pair: a simulation may run the
  same fleet under several strategies.
* Status counts (``new``, ``kept``, ``moved``, ``revoked``, ``assigned``) count
  partition rows (:data:`~spark_assign.report.legend.STATUS_MEANINGS`).
  ``revoked`` partitions are pending a cooperative transfer (no owner this
  generation); ``assigned`` ones complete such a transfer.
* **Steps** and **follow-ups** (:mod:`.steps`): every generation is shown at
  the step of the fleet it belongs to, a cooperative follow-up beside its
  step, never as a step of its own. Per-step figures (:func:`metrics`) are
  keyed by ``(strategy, step, follow_up)``.
* The **members** of a group in a generation are those its rows show (see
  :mod:`.steps`: owners, members revoking a partition, members shown by the
  same step's follow-ups; a restarted static member's old id is not one),
  plus its subscribed members when they are given (``members=``). A member
  owning nothing in the whole step leaves no row; a state table of format 3
  records each generation's member count in its rows (``members``), which
  counts it, so ``history``, the report and ``rebalance`` agree on the same
  generation. Without either (an older table's generations) it cannot be counted.
* The **spread** of a group is ``max - min`` partitions owned per member, a
  member owning nothing counting 0 and a pending partition counting for
  nobody (0 for a group without members). It is Kafka's measure of balance:
  with identical subscriptions a group is balanced when its spread is at most
  1 (the first test of ``AbstractStickyAssignor``'s ``isBalanced``), members
  owning nothing included. :func:`balance` is the one definition, used by the
  report, by ``spark-assign history``, by the terminal summaries of the CLI
  and by :func:`spark_assign.compare.compare_strategies`.
* **Paused** partitions stop being consumed during a rebalance: under the eager
  protocol (``range``, ``roundrobin``, ``sticky``, ...) every partition with an
  owner before it, since every member gives up everything it owns; under the
  cooperative protocol (KIP-429) and KIP-848's, only those changing owner
  (:meth:`~spark_assign.core.consumer.registry.Strategy.paused` is the rule).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Dict, Iterable, List, Optional, Sequence

import pandas as pd

from ...core.consumer.registry import paused_partitions, rebalance_protocol
from ...core.java.limits import check_count
from ...errors import InvalidInputError
from ...schema import STATUSES
from .data import KEY, load_rows
from .load import group_loads, has_weights, step_loads
from .steps import STEP_COLUMNS, generation_members, previous_members, revoking_members, steps

__all__ = [
    "Figures",
    "balance",
    "paused",
    "steps",
    "metrics",
    "group_metrics",
    "group_summary",
    "latest_assignment",
    "fleet_summary",
    "format_partitions",
]

_GEN_KEY = KEY + ["generation"]
_STATUS = list(STATUSES)

_SLOT = ["strategy", "step", "follow_up"]

GROUP_METRIC_COLUMNS = _GEN_KEY + ["step", "follow_up", "is_follow_up", "partitions", *_STATUS, "paused", "members",
                                   "min_partitions", "max_partitions", "spread", "committed_at"]
METRIC_COLUMNS = _SLOT + ["groups_rebalanced", "follow_ups", "groups_with_moves", "partitions", *_STATUS, "paused",
                          "members_mean", "members_max", "spread_mean", "spread_max", "committed_at"]
SUMMARY_COLUMNS = KEY + ["generations", "rebalances", "follow_ups", "first_generation", "last_generation",
                         "last_step", "last_follow_up", "movement", "paused", "moved", "revoked", "assigned", "new",
                         "partitions", "members", "spread", "worst_spread"]
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
        (its owner, null while pending). Each distinct ``keys`` value is a group.
    keys:
        The columns identifying a group, e.g. ``["group_id"]`` or
        ``["strategy", "group_id", "generation"]``.
    members:
        The groups' members besides the owners: a ``member_id`` column and any
        of the ``keys`` columns (a key column it lacks matches every group),
        e.g. the subscribed members. None: the owners and the members revoking
        a partition (``status`` and ``previous_member_id`` of the rows, a
        restarted static member's old id standing for its new one, see
        :func:`~spark_assign.report.consumer.steps.revoking_members`).
    count:
        A column of ``rows`` holding how many partitions the row stands for
        (rows pre-aggregated per owner); by default each row is one partition.

    Rows that carry ``members`` (a state table's rows, format 3: the group's
    member count in that generation) count the members they do not show as
    owning nothing.

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
    if members is None:
        known = revoking_members(rows, keys, [k for k in keys if k != "generation"] or keys)
    else:
        known = expand_members(groups, members, keys)
    if len(known):
        everyone = pd.MultiIndex.from_frame(known[keys + ["member_id"]].drop_duplicates())
        idle = everyone.difference(owned.index)
        if len(idle):
            owned = pd.concat([owned, pd.Series(0, index=idle, dtype="int64")])
    per_member = owned.groupby(level=keys).agg(["size", "min", "max"])
    per_member.columns = BALANCE_COLUMNS[:3]
    index = pd.MultiIndex.from_frame(groups) if len(keys) > 1 else pd.Index(groups[keys[0]], name=keys[0])
    out = per_member.reindex(index).fillna(0).astype("int64")
    if "members" in rows.columns and rows["members"].notna().any():
        # The state table records each generation's member count (format 3): members beyond
        # those the rows show own nothing, so they count, and the fewest a member owns is 0.
        recorded = pd.to_numeric(rows.groupby(keys)["members"].max(), errors="coerce").reindex(index)
        unseen = (recorded > out["members"]).fillna(False).to_numpy()
        out.loc[unseen, "members"] = recorded[unseen].astype("int64").to_numpy()
        out.loc[unseen, "min_partitions"] = 0
    out["spread"] = out["max_partitions"] - out["min_partitions"]
    return out


def paused(strategies: Iterable[str], kept: Any, moved: Any, revoked: Any) -> pd.Series:
    """Partitions paused per rebalance (see the module's definitions), one entry per group
    generation: ``strategies``, ``kept``, ``moved`` and ``revoked`` are aligned.

    Example::

        paused(["sticky", "cooperative-sticky"], [90, 90], [10, 0], [0, 10]).tolist()   # [100, 10]
    """
    names = pd.Series(list(strategies), dtype=object).to_numpy()
    counts = [pd.Series(x).to_numpy(dtype="int64") for x in (kept, moved, revoked)]
    out = counts[1] + counts[2]
    for name in set(names):
        mine = names == name
        out[mine] = paused_partitions(rebalance_protocol(name), *(c[mine] for c in counts))
    return pd.Series(out, index=kept.index if isinstance(kept, pd.Series) else None, dtype="int64")


def expand_members(groups: pd.DataFrame, members: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``members`` (``member_id`` and any of the ``keys`` columns) on every group of ``groups`` it matches.

    A key column that ``members`` lacks matches every group. Example::

        expand_members(pd.DataFrame({"group_id": ["g"], "generation": [1]}),
                       pd.DataFrame({"group_id": ["g"], "member_id": ["a"]}), ["group_id", "generation"])
        # group_id g, generation 1, member_id a

    Returns ``keys`` + ``member_id``.
    """
    keys = list(keys)
    on = [k for k in keys if k in members.columns]
    listed = members.loc[members["member_id"].notna(), on + ["member_id"]]
    out = groups.merge(listed, on=on) if on else groups.merge(listed, how="cross")
    return out[keys + ["member_id"]]


def _everyone(df: pd.DataFrame, members: Optional[pd.DataFrame], st: pd.DataFrame) -> pd.DataFrame:
    """The members of every generation (:func:`~spark_assign.report.consumer.steps.generation_members`),
    plus the subscribed ``members`` when given."""
    everyone = generation_members(df, st)
    if members is not None:
        everyone = pd.concat([everyone, expand_members(df[_GEN_KEY].drop_duplicates(), members, _GEN_KEY)])
    return everyone


def _group_metrics(df: pd.DataFrame, everyone: pd.DataFrame, st: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in GROUP_METRIC_COLUMNS})
    parts = df.groupby(_GEN_KEY, sort=True).size().rename("partitions")
    counts = (df.groupby(_GEN_KEY + ["status"]).size().unstack("status", fill_value=0)
              .reindex(columns=_STATUS, fill_value=0))
    out = pd.concat([parts, counts, balance(df, _GEN_KEY, everyone)], axis=1)
    out["paused"] = paused(out.index.get_level_values("strategy"), out["kept"], out["moved"], out["revoked"])
    out["committed_at"] = df.groupby(_GEN_KEY)["committed_at"].max()
    out = out.reset_index().merge(st[STEP_COLUMNS], on=_GEN_KEY, how="left")
    return out[GROUP_METRIC_COLUMNS]


def _with_fleet_steps(own: pd.DataFrame, given: Optional[pd.DataFrame]) -> pd.DataFrame:
    """``own`` steps (of the rows), with those of ``given`` (of the fleet) where it has them."""
    if given is None:
        return own
    if not isinstance(given, pd.DataFrame) or not set(STEP_COLUMNS) <= set(given.columns):
        raise InvalidInputError(f"steps must be a pandas DataFrame with the columns {', '.join(STEP_COLUMNS)} "
                                "(see spark_assign.report.consumer.steps)", column="steps")
    fleet = given[STEP_COLUMNS].astype({"generation": "int64"})
    merged = own[_GEN_KEY].merge(fleet, on=_GEN_KEY, how="left")
    known = merged["step"].notna().to_numpy()
    out = own.copy()
    for column in ("step", "follow_up", "is_follow_up"):
        out.loc[known, column] = merged.loc[known, column].to_numpy()
    return out.astype({"step": "int64", "follow_up": "int64", "is_follow_up": "bool"})


class Figures:
    """Every figure of an assignment history, from one validated copy of its rows, each computed
    once (the HTML report shows them all; the functions below are its parts).

    Example::

        figures = Figures(rows)
        figures.per_step.equals(metrics(rows)) and figures.fleet["groups"] == len(figures.summary)

    Parameters
    ----------
    rows:
        State rows (see :func:`~spark_assign.report.consumer.data.load_rows`).
    members:
        The groups' subscribed members, or None (see :func:`balance`).
    steps:
        The :func:`~spark_assign.report.consumer.steps.steps` of the whole table when
        ``rows`` are part of it (one group's history): steps count the
        fleet's rounds. None: the steps of ``rows``.
    """

    def __init__(self, rows: Any, members: Optional[pd.DataFrame] = None,
                 steps: Optional[pd.DataFrame] = None) -> None:
        self.rows = load_rows(rows)
        self.members = members
        self._fleet_steps = steps

    @cached_property
    def steps(self) -> pd.DataFrame:
        """:func:`~spark_assign.report.consumer.steps.steps`: one row per (strategy, group_id, generation)."""
        return _with_fleet_steps(steps(self.rows), self._fleet_steps)

    @cached_property
    def everyone(self) -> pd.DataFrame:
        """The members of every generation: ``strategy, group_id, generation, member_id``."""
        return _everyone(self.rows, self.members, self.steps) if len(self.rows) else \
            pd.DataFrame({c: pd.Series(dtype="object") for c in _GEN_KEY + ["member_id"]})

    @cached_property
    def per_group(self) -> pd.DataFrame:
        """:func:`group_metrics`: one row per (strategy, group_id, generation)."""
        return _group_metrics(self.rows, self.everyone, self.steps)

    @cached_property
    def weighed(self) -> bool:
        """Whether the rows carry weights (then the load figures exist)."""
        return has_weights(self.rows)

    @cached_property
    def load_per_group(self) -> pd.DataFrame:
        """:func:`~spark_assign.report.consumer.load.group_loads` with each generation's step: one row per
        (strategy, group_id, generation)."""
        loads = group_loads(self.rows, self.everyone)
        return loads.merge(self.per_group[_GEN_KEY + ["step", "follow_up", "is_follow_up"]], on=_GEN_KEY, how="left")

    @cached_property
    def load_per_step(self) -> pd.DataFrame:
        """:func:`~spark_assign.report.consumer.load.step_loads`: one row per (strategy, step, follow_up)."""
        return step_loads(self.load_per_group)

    @cached_property
    def per_step(self) -> pd.DataFrame:
        """:func:`metrics`: one row per (strategy, step, follow_up)."""
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


def group_metrics(rows: Any, members: Optional[pd.DataFrame] = None,
                  steps: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per (strategy, group_id, generation): its step, partitions, status counts, members, spread.

    ``step``, ``follow_up`` and ``is_follow_up`` place the generation on the
    fleet's steps (see :mod:`.steps`). ``members`` (optional): the groups'
    subscribed members, see :func:`balance`. ``steps`` (optional): the steps
    of the whole table, when ``rows`` are one group's history.

    Example::

        group_metrics(rows).set_index(["strategy", "group_id", "generation"]).loc[("sticky", "g1", 2), "spread"]
    """
    return Figures(rows, members, steps).per_group


def _metrics_from_groups(gm: pd.DataFrame) -> pd.DataFrame:
    if gm.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in METRIC_COLUMNS})
    gm = gm.assign(_moving=(gm["moved"] + gm["revoked"] > 0).astype("int64"),
                   _follow=gm["is_follow_up"].astype("int64"))
    by = gm.groupby(_SLOT, sort=True)
    out = by.agg(
        groups_rebalanced=("group_id", "size"),
        follow_ups=("_follow", "sum"),
        groups_with_moves=("_moving", "sum"),
        partitions=("partitions", "sum"),
        **{s: (s, "sum") for s in _STATUS},
        paused=("paused", "sum"),
        members_mean=("members", "mean"),
        members_max=("members", "max"),
        spread_mean=("spread", "mean"),
        spread_max=("spread", "max"),
        committed_at=("committed_at", "max"),
    ).reset_index()
    return out[METRIC_COLUMNS]


def metrics(rows: Any, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per (strategy, step, follow_up), sorted by them: the fleet at each step and follow-up round.

    ``step`` and ``follow_up`` are the fleet's clock (:mod:`.steps`): a step
    is a rebalance round for a change of the inputs, ``follow_up`` 0 its own
    round and 1, 2, ... its cooperative follow-up rounds. Columns:
    ``groups_rebalanced`` (groups with a generation in the round),
    ``follow_ups`` (of those, generations that complete transfers rather than
    rebalance), ``groups_with_moves`` (groups with a moved or revoked
    partition), ``partitions`` and the status counts ``new``, ``kept``,
    ``moved``, ``revoked`` (pending transfers), ``assigned`` (completed
    transfers), then members per group (``members_mean``, ``members_max``),
    the balance spread per group (``spread_mean``, worst: ``spread_max``) and
    the latest ``committed_at``. ``members`` (optional): the groups'
    subscribed members, see :func:`balance`.

    Example::

        metrics(rows).set_index(["strategy", "step", "follow_up"]).loc[("cooperative-sticky", 2, 1), "assigned"]
    """
    return Figures(rows, members).per_step


def _summary_from_groups(gm: pd.DataFrame) -> pd.DataFrame:
    if gm.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in SUMMARY_COLUMNS})
    gm = gm.assign(_follow=gm["is_follow_up"].astype("int64"))
    by = gm.groupby(KEY, sort=True)
    out = by.agg(
        generations=("generation", "size"),
        follow_ups=("_follow", "sum"),
        first_generation=("generation", "min"),
        last_generation=("generation", "max"),
        moved=("moved", "sum"),
        revoked=("revoked", "sum"),
        assigned=("assigned", "sum"),
        new=("new", "sum"),
        paused=("paused", "sum"),
        worst_spread=("spread", "max"),
    )
    out["rebalances"] = out["generations"] - out["follow_ups"]
    last = gm.sort_values("generation").groupby(KEY).tail(1).set_index(KEY)
    last = last.rename(columns={"step": "last_step", "follow_up": "last_follow_up"})
    out = out.join(last[["partitions", "members", "spread", "last_step", "last_follow_up"]])
    out["movement"] = out["moved"] + out["revoked"]
    out = out.reset_index().sort_values(["movement", "strategy", "group_id"],
                                        ascending=[False, True, True], kind="stable")
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


def group_summary(rows: Any, top: Optional[int] = None, members: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """One row per group, most movement (``moved + revoked`` over all generations) first.

    ``generations`` counts the group's generations: ``rebalances`` (for a
    change of its inputs) plus ``follow_ups`` (completing cooperative
    transfers). ``partitions``, ``members`` and ``spread`` are those of the
    group's latest generation (at ``last_step``, ``last_follow_up``);
    ``worst_spread`` is the largest over its history. ``top`` keeps the first
    ``top`` rows. ``members`` (optional): the groups' subscribed members, see
    :func:`balance`.

    Example::

        group_summary(rows, top=10)[["strategy", "group_id", "movement", "worst_spread"]]
    """
    if top is not None:
        check_count(top, "top", maximum=None)
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
    gives up, pending: a restarted static member's old id counts as its new id),
    and ``assignment``, its partitions as ``"t0 0-2; t1 5"``.

    Example::

        latest_assignment(rows, groups=[("sticky", "g1")])[["member_id", "partitions", "assignment"]]
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
    previous = previous_members(df, _GEN_KEY, KEY)     # a restarted static member's old id: its new id
    latest = (df["generation"] == last).to_numpy()
    df, previous = df[latest], previous[latest]
    owner = df["member_id"].where(df["member_id"].notna(), previous)
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
    """Headline figures: strategies, groups, steps, partitions and members now, totals.

    ``steps`` lists the fleet's steps, ``follow_up_rounds`` counts the
    follow-up rounds (all strategies), ``generations`` the group generation
    numbers seen. ``members`` (optional): the groups' subscribed members, see
    :func:`balance`.

    Example::

        fleet_summary(rows)["steps"]   # [1, 2, 3]
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
        "steps": sorted(int(s) for s in gm["step"].unique()) if len(gm) else [],
        "follow_up_rounds": int(len(gm.loc[gm["follow_up"] > 0, ["strategy", "step", "follow_up"]]
                                    .drop_duplicates())) if len(gm) else 0,
        "partitions": int(summary["partitions"].sum()) if len(summary) else 0,
        "members": int(summary["members"].sum()) if len(summary) else 0,
        "moved": int(gm["moved"].sum()) if len(gm) else 0,
        "revoked": int(gm["revoked"].sum()) if len(gm) else 0,
        "assigned": int(gm["assigned"].sum()) if len(gm) else 0,
        "paused": int(gm["paused"].sum()) if len(gm) else 0,
        "first_commit": times.min() if len(times) else None,
        "last_commit": times.max() if len(times) else None,
    }

"""Steps, follow-ups and members: how the report lines generations up, and who is in a group.

A group's ``generation`` is its own counter: it grows by one per rebalance of
that group, follow-ups included, and not at all in a round the group sat out.
Comparing "generation 3" of two groups (or of two strategies) compares
different moments. The report and ``spark-assign history`` therefore place
every generation on the fleet's clock of *steps*.

Definitions
-----------
* A **round** is one commit of the state table (one ``commit_version``, one
  call of ``AssignmentTable.rebalance``) of one strategy. Rows without
  ``commit_version`` fall back to ``committed_at``, then to the generation.
* A generation is a **follow-up** when its group's previous generation left
  transfers pending (``revoked`` rows) and its inputs did not change: the
  same ``input_fingerprint`` (rows without fingerprints: it only keeps and
  completes transfers, statuses ``kept`` and ``assigned``). It completes the
  cooperative transfers of the rebalance before it; it is not a rebalance of
  its own.
* A round holding at least one generation that is not a follow-up is a
  **step** (an input changed: one simulation step, one real rebalance of the
  fleet); a round of follow-ups only is a **follow-up round** of the step
  before it. Per strategy, steps are numbered 1, 2, ... in commit order and
  a generation is shown at ``(step, follow_up)``: ``follow_up`` is 0 in the
  step's own round, 1, 2, ... in its follow-up rounds. The same simulation
  step has the same number under every strategy, so the report compares
  strategies at the same step and shows follow-ups beside it, not as steps.
* The **members** of a group in a generation are the members the rows show:
  the owners of its partitions; the members revoking a partition (the
  ``previous_member_id`` of a ``revoked`` row, a member still in the group);
  and the members shown by the other generations of the same step of the
  group (a rebalance and its follow-ups have the same inputs, hence the same
  members: under a cooperative strategy a member that joins owns nothing
  until the follow-up hands it partitions). A static member that restarted
  under a new member id is its new id: when a row names the old id (a
  partition revoked from what the old id owned), the old id is replaced by
  its **successor**, the member of the same group and generation that keeps
  a partition from it (``kept`` with that ``previous_member_id``) or holds its
  ``group_instance_id``. A departed id is never a member. A subscribed member
  that owns, revokes and receives nothing in the whole step leaves no row;
  only callers that know the subscriptions can count it
  (:func:`~spark_assign.report.consumer.metrics.balance`'s ``members``).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np
import pandas as pd

from ...errors import SchemaError
from .data import KEY

__all__ = ["STEP_COLUMNS", "steps", "successors", "previous_members", "revoking_members", "generation_members"]

GEN_KEY = KEY + ["generation"]
#: Columns of :func:`steps`.
STEP_COLUMNS = GEN_KEY + ["step", "follow_up", "is_follow_up"]
_STEP_NEEDS = ("strategy", "group_id", "generation", "status")


def _round_codes(rows: pd.DataFrame) -> "pd.Series[int]":
    """Each row's round, as integer codes in commit order (see the module's definitions)."""
    for name in ("commit_version", "committed_at"):
        if name in rows.columns and len(rows) and bool(rows[name].notna().all()):
            return pd.Series(pd.factorize(rows[name], sort=True)[0], index=rows.index)
    return rows["generation"].astype("int64")


def _generations(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (strategy, group_id, generation): its round, fingerprint and what its statuses say."""
    status = rows["status"]
    prints = rows["input_fingerprint"] if "input_fingerprint" in rows.columns else pd.Series(None, index=rows.index,
                                                                                           dtype=object)
    df = pd.DataFrame({"strategy": rows["strategy"], "group_id": rows["group_id"],
                       "generation": rows["generation"].astype("int64"), "_round": _round_codes(rows),
                       "_print": prints, "_revoked": (status == "revoked").astype("int64"),
                       "_assigned": status == "assigned", "_other": ~status.isin(["kept", "assigned"])})
    gens = df.groupby(GEN_KEY, sort=True).agg(_round=("_round", "min"), _print=("_print", "first"),
                                              _revoked=("_revoked", "sum"), _assigned=("_assigned", "any"),
                                              _other=("_other", "any"))
    return gens.reset_index()


def _follow_ups(gens: pd.DataFrame) -> "pd.Series[bool]":
    """Whether each generation of ``gens`` (sorted by group and generation) is a follow-up."""
    by = gens.groupby(KEY, sort=False)
    before_print = by["_print"].shift(1)
    before_revoked = by["_revoked"].shift(1).fillna(0)
    first = by.cumcount() == 0
    same_inputs = gens["_print"].notna() & (gens["_print"] == before_print)
    unprinted = gens["_print"].isna() & before_print.isna() & gens["_assigned"] & ~gens["_other"]
    return (~first) & (before_revoked > 0) & (same_inputs | unprinted)


def steps(rows: pd.DataFrame) -> pd.DataFrame:
    """The step of every generation in ``rows``, and whether it is a cooperative follow-up.

    ``rows``: state rows (at least ``strategy``, ``group_id``, ``generation``
    and ``status``; ``input_fingerprint``, ``commit_version`` and
    ``committed_at`` when there). Steps count rounds, so pass the rows of the
    whole table: :func:`~spark_assign.report.consumer.metrics.group_metrics` of one
    group takes the fleet's steps as ``steps=``.

    Returns one row per (strategy, group_id, generation): ``step`` and
    ``follow_up`` (where the report shows it, see the module's definitions)
    and ``is_follow_up`` (it completes the transfers of the group's generation
    before it, rather than rebalancing for a change of its own).

    Example::

        steps(rows)   # cooperative g1: generation 2 -> step 2; generation 3 -> step 2, follow-up 1
    """
    missing = [c for c in _STEP_NEEDS if c not in rows.columns]
    if missing:
        raise SchemaError(f"steps need the column(s) {', '.join(missing)} of the state rows")
    if rows.empty:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("generation", "step", "follow_up") else
                                          "bool" if c == "is_follow_up" else "object") for c in STEP_COLUMNS})
    gens = _generations(rows)
    gens["is_follow_up"] = _follow_ups(gens).to_numpy()
    rounds = gens.groupby(["strategy", "_round"], sort=True)["is_follow_up"].all().rename("_only").reset_index()
    rounds["step"] = (~rounds["_only"]).astype("int64").groupby(rounds["strategy"]).cumsum()
    rounds["follow_up"] = rounds["_only"].astype("int64").groupby([rounds["strategy"], rounds["step"]]).cumsum()
    out = gens.merge(rounds[["strategy", "_round", "step", "follow_up"]], on=["strategy", "_round"])
    return out.sort_values(GEN_KEY, kind="stable").reset_index(drop=True)[STEP_COLUMNS]


def successors(rows: pd.DataFrame, keys: Sequence[str], group_keys: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """Old member ids of restarted static members, and the member that now stands for each.

    Per group of ``keys``, an id ``x`` has a successor ``y != x`` when ``y``
    keeps a partition from it (a ``kept`` row of ``y`` with
    ``previous_member_id`` ``x``), or when ``y`` holds the
    ``group_instance_id`` that ``x`` held in any row of the same
    ``group_keys`` (a subset of ``keys``; by default ``keys``).

    Example::

        successors(rows, ["strategy", "group_id", "generation"], ["strategy", "group_id"])
        # g00-m0002 -> g00-m0009: the static member g00-s0002 restarted under a new id

    Returns ``keys`` + ``member_id`` (the old id) + ``successor``, one row per old id.
    """
    keys, group_keys = list(keys), list(keys if group_keys is None else group_keys)
    cols = keys + ["member_id", "successor"]
    if not {"status", "previous_member_id"} <= set(rows.columns):
        return pd.DataFrame({c: pd.Series(dtype="object") for c in cols})
    owned = rows["member_id"].notna()
    previous = rows["previous_member_id"]
    kept = owned & (rows["status"] == "kept") & previous.notna() & (previous != rows["member_id"])
    found = [rows.loc[kept, keys + ["previous_member_id", "member_id"]]
             .set_axis(cols, axis=1)]
    if "group_instance_id" in rows.columns:
        static = rows.loc[owned & rows["group_instance_id"].notna(),
                          list(dict.fromkeys(keys + group_keys)) + ["member_id", "group_instance_id"]]
        held = static[group_keys + ["member_id", "group_instance_id"]].drop_duplicates()
        now = static[keys + ["group_instance_id", "member_id"]].drop_duplicates().rename(
            columns={"member_id": "successor"})
        linked = held.merge(now, on=[k for k in group_keys if k in keys] + ["group_instance_id"])
        linked = linked[linked["member_id"] != linked["successor"]]
        found.append(linked[cols])
    out = pd.concat(found, ignore_index=True).drop_duplicates(keys + ["member_id"])
    return out.reset_index(drop=True)


def _heirs_of(ids: pd.DataFrame, heirs: pd.DataFrame, keys: List[str]) -> "np.ndarray[Any, Any]":
    """The ``member_id`` of ``ids`` (``keys`` + ``member_id``), each old id replaced by its successor."""
    if heirs.empty:
        return ids["member_id"].to_numpy()
    mapped = ids.merge(heirs, on=keys + ["member_id"], how="left")["successor"].to_numpy()
    return np.where(pd.isna(mapped), ids["member_id"].to_numpy(), mapped)


def previous_members(rows: pd.DataFrame, keys: Sequence[str], group_keys: Optional[Sequence[str]] = None
                     ) -> "pd.Series[Any]":
    """Each row's ``previous_member_id`` as the member it is now: an old id of a restarted static
    member becomes its successor (see :func:`successors`), other ids stay (None stays None).

    Example::

        previous_members(rows, ["group_id", "generation"])   # "g00-m0002" -> "g00-m0009" on the revoked row
    """
    keys = list(keys)
    if "previous_member_id" not in rows.columns:
        return pd.Series(None, index=rows.index, dtype=object)
    ids = rows[keys].assign(member_id=rows["previous_member_id"].to_numpy())
    return pd.Series(_heirs_of(ids, successors(rows, keys, group_keys), keys), index=rows.index, dtype=object)


def revoking_members(rows: pd.DataFrame, keys: Sequence[str], group_keys: Optional[Sequence[str]] = None
                     ) -> pd.DataFrame:
    """The members revoking a partition in each group of ``rows`` (by ``keys``): the previous owners
    of ``revoked`` rows, an old id of a restarted static member replaced by its successor.

    Example::

        revoking_members(rows, ["group_id"])   # group_id, member_id: f (revoking its only partition)

    Returns ``keys`` + ``member_id``, without repeats (empty without ``status``/``previous_member_id``).
    """
    keys = list(keys)
    if not {"status", "previous_member_id"} <= set(rows.columns):
        return pd.DataFrame({c: pd.Series(dtype="object") for c in keys + ["member_id"]})
    revoked = rows[(rows["status"] == "revoked") & rows["previous_member_id"].notna()]
    ids = revoked[keys].assign(member_id=revoked["previous_member_id"]).drop_duplicates()
    if ids.empty:
        return ids.reset_index(drop=True)
    now = _heirs_of(ids, successors(rows, keys, group_keys), keys)
    return ids.assign(member_id=now).drop_duplicates().reset_index(drop=True)


def generation_members(rows: pd.DataFrame, step_table: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """The members the rows show in every generation (see the module's definitions).

    ``rows``: state rows; ``step_table``: their :func:`steps` (computed when None).

    Example::

        generation_members(rows)   # strategy, group_id, generation, member_id: one row per member

    Returns ``strategy``, ``group_id``, ``generation``, ``member_id``.
    """
    cols = GEN_KEY + ["member_id"]
    if rows.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in cols})
    st = steps(rows) if step_table is None else step_table
    gens = rows[GEN_KEY].drop_duplicates().merge(st[GEN_KEY + ["is_follow_up"]], on=GEN_KEY, how="left")
    gens = gens.sort_values(GEN_KEY, kind="stable").reset_index(drop=True)
    fresh = ~gens["is_follow_up"].fillna(False).astype(bool)
    gens["_chain"] = fresh.astype("int64").groupby([gens["strategy"], gens["group_id"]]).cumsum()
    df = rows.merge(gens[GEN_KEY + ["_chain"]], on=GEN_KEY)
    chain = KEY + ["_chain"]
    owners = df.loc[df["member_id"].notna(), chain + ["member_id"]]
    revoking = _chain_revoking(df, chain)
    shown = pd.concat([owners, revoking], ignore_index=True).drop_duplicates()
    return gens[GEN_KEY + ["_chain"]].merge(shown, on=chain)[cols].reset_index(drop=True)


def _chain_revoking(df: pd.DataFrame, chain: List[str]) -> pd.DataFrame:
    """:func:`revoking_members` per step of each group, old static ids found over the group's history."""
    return revoking_members(df, chain, KEY)

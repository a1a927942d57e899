"""What-if scenarios against an :class:`~.table.AssignmentTable`: each one a dry run, nothing written.

A platform engineer's small questions ("what if this instance restarts?", "what if we add
4 partitions?", "what if we switch to cooperative?") are answered by changing the inputs
as the event would, and running the table's next rebalance with ``dry_run=True``: the
same plan and engine as a real rebalance, from the table's latest generations, and the
table is left as it is. Every group gets the event at once (groups are independent), so
one dry run answers for the whole fleet.

Per group it reports what moves and what pauses:

* ``paused``: partitions not consumed during the rebalance (:meth:`Strategy.paused
  <spark_assign.core.consumer.registry.Strategy.paused>`): under an eager strategy every
  partition the group owned, under a cooperative or KIP-848 one only those changing owner;
* ``rebalances``: rebalances until the group settles: 1, or 2 when a cooperative
  rebalance revokes partitions (KIP-429: the revoked partitions are assigned by a
  follow-up rebalance once their owner gave them up); 0 for a group the event leaves alone.

The events (:class:`Scenario`): a member restarts (a static member rejoins under its
``group.instance.id`` and keeps its partitions, KIP-345; a dynamic one rejoins as a new
member), a member leaves for good, partitions are added to a topic, the groups switch
strategy, a rack goes away. "A member" is each group's first member by ``member_id``. A group
the event leaves without members is reported too: members 0, every partition it owned paused
(nobody consumes them until a member joins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, cast

import pandas as pd
import pyarrow as pa
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ...core.consumer.registry import get_strategy
from ...core.java.limits import check_count
from ...errors import InvalidInputError
from ...schema import STATUSES
from .request import Topics

__all__ = ["Scenario", "SCENARIO_KINDS", "what_if", "what_if_in_driver", "summarize", "WHAT_IF_COLUMNS", "BASELINE"]

#: The name of the dry run of the inputs as given (no event), reported before the scenarios.
BASELINE = "as given"
#: Suffix of the member id a restarted dynamic member rejoins under.
RESTARTED = "~restarted"
#: Per group and scenario, the columns :func:`what_if` returns.
WHAT_IF_COLUMNS = ["scenario", "group_id", "members", "partitions", *STATUSES, "paused", "rebalances"]

Inputs = Tuple[DataFrame, Topics, str]


@dataclass(frozen=True)
class Scenario:
    """An event applied to a rebalance's inputs ``(subscriptions, topics, strategy)``.

    Example::

        Scenario.parse("add-partitions:orders=4").name      # 'add-partitions:orders=4'
        Scenario.restart(), Scenario.leave(), Scenario.switch("cooperative-sticky"), Scenario.rack_down("az-1")
    """

    name: str
    description: str
    apply: Callable[[DataFrame, Topics, str], Inputs]
    #: The same event on the inputs as pandas (subscriptions) and a dict (topics), for the
    #: what-if without Spark (:func:`what_if_in_driver`).
    frame: Callable[[pd.DataFrame, Dict[str, int], str], Tuple[pd.DataFrame, Dict[str, int], str]]

    @classmethod
    def restart(cls) -> "Scenario":
        """Each group's first member restarts: a dynamic one rejoins as a new member, without
        claims; a static one comes back under its ``group_instance_id``, which in Kafka
        (KIP-345) triggers no rebalance, so its group does not change."""
        return cls("restart", "one member restarts (static: same instance id; dynamic: a new member)", _restart,
                   _restart_frame)

    @classmethod
    def leave(cls) -> "Scenario":
        """Each group's first member leaves for good."""
        return cls("leave", "one member leaves for good",
                   lambda s, t, k: (s.join(_first_members(s), ["group_id", "member_id"], "left_anti"), t, k),
                   lambda s, t, k: (s[~_first_member_rows(s)], t, k))

    @classmethod
    def add_partitions(cls, topic: str, count: int) -> "Scenario":
        """``count`` partitions are added to ``topic``."""
        check_count(count, "count", minimum=1)
        return cls(f"add-partitions:{topic}={count}", f"{count} partitions added to {topic}",
                   lambda s, t, k: (s, _grown(t, topic, count), k),
                   lambda s, t, k: (s, cast(Dict[str, int], _grown(t, topic, count)), k))

    @classmethod
    def switch(cls, strategy: str) -> "Scenario":
        """Every group switches to ``strategy`` (a name, or Kafka's class name)."""
        name = get_strategy(strategy).name
        return cls(f"strategy:{name}", f"the groups switch to {name}", lambda s, t, k: (s, t, name),
                   lambda s, t, k: (s, t, name))

    @classmethod
    def rack_down(cls, rack: str) -> "Scenario":
        """The members in ``rack`` go away (a zone outage)."""
        return cls(f"rack-down:{rack}", f"rack {rack} goes away", lambda s, t, k: (_without_rack(s, rack), t, k),
                   lambda s, t, k: (_without_rack_frame(s, rack), t, k))

    @classmethod
    def parse(cls, text: str) -> "Scenario":
        """A scenario written as on the command line: ``restart``, ``leave``,
        ``add-partitions:TOPIC=N``, ``strategy:NAME``, ``rack-down:RACK``."""
        kind, _, value = str(text).partition(":")
        if kind in ("restart", "leave") and not value:
            return cls.restart() if kind == "restart" else cls.leave()
        if kind == "add-partitions" and "=" in value:
            topic, _, count = value.rpartition("=")
            if topic and count.strip().isdigit():
                return cls.add_partitions(topic.strip(), int(count))
        if kind == "strategy" and value:
            return cls.switch(value)
        if kind == "rack-down" and value:
            return cls.rack_down(value)
        raise InvalidInputError(f"unknown scenario {text!r}; write one of: {', '.join(SCENARIO_KINDS)}",
                                column="scenario")


#: The scenarios as written on the command line.
SCENARIO_KINDS = ["restart", "leave", "add-partitions:TOPIC=N", "strategy:NAME", "rack-down:RACK"]


def what_if(table: Any, subscriptions: DataFrame, topics: Topics, strategy: Optional[str],
            scenarios: Sequence[Scenario], weights: Any = None) -> pd.DataFrame:
    """Per scenario, the groups its event changes and what their next rebalance would do, each
    from a dry run of ``table.rebalance`` (nothing is written).

    Example::

        table = AssignmentTable(spark, "state")
        figures = what_if(table, subscriptions, {"orders": 12}, "sticky",
                          [Scenario.restart(), Scenario.switch("cooperative-sticky")])
        figures.groupby("scenario")[["moved", "paused"]].sum()

    Parameters
    ----------
    table:
        The :class:`~spark_assign.AssignmentTable` whose latest generations the events start from.
    subscriptions, topics, weights:
        The inputs as they are now, as for ``table.rebalance``. The first rows returned (scenario
        :data:`BASELINE`) are their own dry run: groups whose inputs already differ from the
        table's latest generation, whose changes every scenario's figures include too.
    strategy:
        The groups' strategy now; None: each group's own, the strategy of its latest
        generation in the table (a group the table does not know is an error naming it).
    scenarios:
        The events (:class:`Scenario`).

    Returns
    -------
    pandas.DataFrame
        :data:`WHAT_IF_COLUMNS`: one row per scenario and changed group.
    """
    if "group_id" not in subscriptions.columns:
        subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
    if strategy is not None:
        return _what_if_under(table, subscriptions, topics, get_strategy(strategy).name, scenarios, weights)
    recorded = table.latest().select("group_id", F.col("strategy").alias("_recorded")).distinct()
    tagged = subscriptions.join(recorded, "group_id", "left")
    _check_recorded([r[0] for r in tagged.where(F.col("_recorded").isNull()).select("group_id").distinct()
                     .limit(5).collect()])
    names = sorted(r[0] for r in tagged.select("_recorded").distinct().collect())
    return pd.concat([_what_if_under(table, tagged.where(F.col("_recorded") == name).drop("_recorded"), topics, name,
                                     scenarios, weights) for name in names], ignore_index=True)


def _check_recorded(unknown: Sequence[str]) -> None:
    """Refuse groups without a recorded strategy when each group keeps its own."""
    if unknown:
        raise InvalidInputError(
            f"groups the table has no generation of, hence no strategy to keep: {', '.join(map(repr, unknown))}; "
            "give a strategy for every group", column="strategy")


def _what_if_under(table: Any, subscriptions: DataFrame, topics: Topics, current: str,
                   scenarios: Sequence[Scenario], weights: Any) -> pd.DataFrame:
    """:func:`what_if` for groups that all run ``current`` now."""
    frames = [_figures(BASELINE, table, subscriptions, topics, current, weights)]
    for scenario in scenarios:
        subs, tops, name = scenario.apply(subscriptions, topics, current)
        frames.append(_figures(scenario.name, table, subs, tops, name, weights))
        if subs is not subscriptions:                # only an event on the members can empty a group
            frames.append(_emptied(scenario.name, table, subscriptions, subs))
    return pd.concat(frames, ignore_index=True)


def _emptied(label: str, table: Any, before: DataFrame, after: DataFrame) -> pd.DataFrame:
    """Groups the event leaves without members (a one-member group's member leaves): no rebalance
    assigns their partitions, and nobody consumes any of them, so every partition they owned pauses."""
    gone = before.select("group_id").distinct().subtract(after.select("group_id").distinct())
    owned = (table.latest().join(gone, "group_id", "left_semi").where(F.col("member_id").isNotNull())
             .groupBy("group_id").agg(F.count(F.lit(1)).alias("partitions")).toPandas())
    out = pd.DataFrame({"scenario": label, "group_id": owned["group_id"], "members": 0,
                        "partitions": owned["partitions"], **{s: 0 for s in STATUSES},
                        "paused": owned["partitions"], "rebalances": 1})
    return out[WHAT_IF_COLUMNS].astype({c: "int64" for c in WHAT_IF_COLUMNS[2:]})


def _figures(label: str, table: Any, subscriptions: DataFrame, topics: Topics, strategy: str,
             weights: Any) -> pd.DataFrame:
    step = table.rebalance(subscriptions, topics, strategy, weights=weights, dry_run=True)
    counts = step.rows.groupBy("group_id").agg(
        F.count(F.lit(1)).alias("partitions"),
        *[F.sum((F.col("status") == s).cast("long")).alias(s) for s in STATUSES]).toPandas()
    members = (subscriptions.groupBy("group_id").agg(F.countDistinct("member_id").alias("members"))
               .join(step.rows.select("group_id").distinct(), "group_id", "left_semi").toPandas())
    return _per_group(label, counts, members, strategy)


def _per_group(label: str, counts: pd.DataFrame, members: pd.DataFrame, strategy: str) -> pd.DataFrame:
    """The :data:`WHAT_IF_COLUMNS` of a dry run's changed groups: ``counts`` (per group its
    partitions and rows per status) beside ``members`` (per group its distinct members)."""
    out = counts.merge(members, on="group_id", how="left")
    out["members"] = out["members"].fillna(0)
    chosen = get_strategy(strategy)
    out["paused"] = chosen.paused(out["kept"], out["moved"], out["revoked"])
    out["rebalances"] = 1 + (out["revoked"] > 0).astype("int64")
    out.insert(0, "scenario", label)
    for column in ["members", "partitions", *STATUSES, "paused", "rebalances"]:
        out[column] = out[column].astype("int64")
    return out[WHAT_IF_COLUMNS].sort_values(["paused", "group_id"], ascending=[False, True], kind="stable")


def what_if_in_driver(location: str, subscriptions: pa.Table, topics: Mapping[str, int], strategy: Optional[str],
                      scenarios: Sequence[Scenario]) -> pd.DataFrame:
    """:func:`what_if` without Spark: each scenario a dry run of
    :func:`~.driver.rebalance_in_driver` against the table at ``location`` (the same figures for
    the same inputs; the limits of that path: topics as a dict, no weights).

    Example::

        what_if_in_driver("/tmp/state", subs, {"orders": 12}, "sticky", [Scenario.leave()])
    """
    from .driver import latest_in_driver, rebalance_in_driver, recorded_strategies

    if "group_id" not in subscriptions.column_names:
        subscriptions = subscriptions.append_column("group_id", pa.array(["default"] * subscriptions.num_rows,
                                                                         pa.string()))
    schema = subscriptions.schema
    everyone = subscriptions.to_pandas()
    if strategy is not None:
        parts = [(get_strategy(strategy).name, everyone)]
    else:
        recorded = everyone["group_id"].map(recorded_strategies(location))
        _check_recorded(sorted(set(everyone.loc[recorded.isna(), "group_id"]))[:5])
        parts = [(str(name), part) for name, part in everyone.groupby(recorded, sort=True)]

    def figures(label: str, subs: pd.DataFrame, tops: Mapping[str, int], name: str) -> pd.DataFrame:
        arrow = pa.Table.from_pandas(subs, schema=schema, preserve_index=False)
        rows = rebalance_in_driver(location, arrow, tops, name, dry_run=True).rows.to_pandas()
        counts = rows.groupby("group_id").agg(partitions=("status", "size"),
                                              **{s: ("status", lambda v, s=s: int((v == s).sum())) for s in STATUSES})
        members = subs.groupby("group_id")["member_id"].nunique().rename("members")
        return _per_group(label, counts.reset_index(), members.reset_index(), name)

    frames = []
    for current, given in parts:
        frames.append(figures(BASELINE, given, topics, current))
        for scenario in scenarios:
            subs, tops, name = scenario.frame(given, dict(topics), current)
            frames.append(figures(scenario.name, subs, tops, name))
            gone = sorted(set(given["group_id"]) - set(subs["group_id"]))
            if gone:                                 # as _emptied: every partition they owned pauses
                owned = latest_in_driver(location, gone, ["group_id", "member_id"]).to_pandas().dropna()
                counts = owned.groupby("group_id").size().rename("partitions").reset_index()
                frames.append(pd.DataFrame({"scenario": scenario.name, "group_id": counts["group_id"], "members": 0,
                                            "partitions": counts["partitions"], **{s: 0 for s in STATUSES},
                                            "paused": counts["partitions"], "rebalances": 1})
                              [WHAT_IF_COLUMNS].astype({c: "int64" for c in WHAT_IF_COLUMNS[2:]}))
    return pd.concat(frames, ignore_index=True)


def _first_members(subscriptions: DataFrame) -> DataFrame:
    """Each group's first member by ``member_id``: ``(group_id, member_id)``."""
    order = Window.partitionBy("group_id").orderBy("member_id")
    return (subscriptions.select("group_id", "member_id").distinct()
            .withColumn("_n", F.row_number().over(order)).where("_n = 1").drop("_n"))


def _restart(subscriptions: DataFrame, topics: Topics, strategy: str) -> Inputs:
    first = _first_members(subscriptions).withColumn("_restarted", F.lit(True))
    out = subscriptions.join(first, ["group_id", "member_id"], "left")
    restarted = F.col("_restarted").isNotNull()
    if "group_instance_id" in out.columns:
        # KIP-345: a static member that rejoins under its group.instance.id gets its assignment back
        # from the coordinator without a rebalance; only a dynamic member rejoins as a new member.
        restarted = restarted & F.col("group_instance_id").isNull()
    out = out.withColumn("member_id", F.when(restarted, F.concat(F.col("member_id"), F.lit(RESTARTED)))
                         .otherwise(F.col("member_id")))
    for claim in ("owned_partitions", "generation"):      # a new process brings no claims
        if claim in out.columns:
            out = out.withColumn(claim, F.when(restarted, F.lit(None)).otherwise(F.col(claim)))
    return out.drop("_restarted").select(*subscriptions.columns), topics, strategy


def _first_member_rows(subscriptions: pd.DataFrame) -> pd.Series:
    """Rows of each group's first member by ``member_id`` (pandas: :func:`_first_members`)."""
    first = subscriptions.groupby("group_id")["member_id"].transform("min")
    return subscriptions["member_id"] == first


def _restart_frame(subscriptions: pd.DataFrame, topics: Dict[str, int], strategy: str):
    """:func:`_restart` on pandas."""
    restarted = _first_member_rows(subscriptions)
    if "group_instance_id" in subscriptions.columns:                # KIP-345, as in _restart
        restarted &= subscriptions["group_instance_id"].isna()
    out = subscriptions.copy()
    out.loc[restarted, "member_id"] = out.loc[restarted, "member_id"] + RESTARTED
    for claim in ("owned_partitions", "generation"):
        if claim in out.columns:
            out[claim] = out[claim].astype(object).where(~restarted, None)
    return out, topics, strategy


def _check_rack(columns: Sequence[str], rack: str) -> None:
    if "rack" not in columns:
        raise InvalidInputError(f"scenario rack-down:{rack} needs the subscriptions' rack column", column="rack")


def _without_rack(subscriptions: DataFrame, rack: str) -> DataFrame:
    _check_rack(subscriptions.columns, rack)
    return subscriptions.where(F.col("rack").isNull() | (F.col("rack") != rack))


def _without_rack_frame(subscriptions: pd.DataFrame, rack: str) -> pd.DataFrame:
    _check_rack(list(subscriptions.columns), rack)
    return subscriptions[subscriptions["rack"].isna() | (subscriptions["rack"] != rack)]


def _grown(topics: Topics, topic: str, count: int) -> Topics:
    if isinstance(topics, Mapping):
        if topic not in topics:
            raise InvalidInputError(f"scenario add-partitions: no topic {topic!r} in the topics; they are: "
                                    f"{', '.join(sorted(topics))}", column="scenario")
        grown: Dict[str, int] = dict(topics)
        grown[topic] = int(grown[topic]) + count
        return grown
    return topics.withColumn("num_partitions", F.when(F.col("topic") == topic, F.col("num_partitions") + count)
                             .otherwise(F.col("num_partitions")))


def summarize(figures: pd.DataFrame, scenarios: Sequence[str], top: int = 3) -> List[Dict[str, Any]]:
    """Per scenario of ``scenarios`` (in that order, those that change nothing included): groups
    changed, the status and pause totals, the most rebalances a group needs to settle, and the
    ``top`` groups that pause most."""
    out: List[Dict[str, Any]] = []
    for label in scenarios:
        rows = figures[figures["scenario"] == label]
        worst = rows.sort_values(["paused", "group_id"], ascending=[False, True], kind="stable")["group_id"]
        out.append({"scenario": label, "groups": len(rows), "moved": int(rows["moved"].sum()),
                    "revoked": int(rows["revoked"].sum()), "new": int(rows["new"].sum()),
                    "paused": int(rows["paused"].sum()),
                    "rebalances": int(rows["rebalances"].max()) if len(rows) else 0,
                    "most_paused": worst.head(top).tolist()})
    return out

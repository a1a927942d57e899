"""The SQL side of generations in Delta: the thin bridge to :class:`~spark_assign.AssignmentTable`.

It lives in the state layer (above :mod:`spark_assign.spark.sql`, whose script
runner it extends with the ``CALL`` statements below).

Reading and analysing a state table is SQL: :func:`state_views` creates two
temporary views over it. Writing a generation is the one step SQL cannot do
without the Delta connector in the session (the embedded engine commits with
delta-rs from the driver), so :func:`rebalance` is one Python call: it takes
the names of the SQL views that hold the subscriptions and the topics, runs
:meth:`AssignmentTable.rebalance` (incremental, one atomic compare-and-set
commit, idempotent) and refreshes the views.

In a SQL script run with :func:`run_script` the same two steps are statements::

    CALL spark_assign.views(state => '/data/fleet_state', views => 'fleet');
    CALL spark_assign.rebalance(state => '/data/fleet_state', subscriptions => 'subscriptions',
                                topics => 'topics', strategy => 'cooperative-sticky', views => 'fleet');

Views (temporary, a snapshot of the table taken when they are made):

* ``<views>_latest``: every group's latest generation, one row per partition;
* ``<views>_history``: every generation of every group.

Both have the state table's columns (``group_id, generation, member_id, topic,
partition, previous_member_id, status, strategy, group_instance_id,
committed_at, input_fingerprint, commit_version``); before the first
rebalance they are empty.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from ...core import DEFAULT_STRATEGY
from ...errors import InvalidInputError
from ...spark import sql as spark_sql
from ..layout import spark_ddl
from .table import AssignmentTable, Rebalance

__all__ = ["state_views", "rebalance", "call_statement", "run_script", "CALLABLE", "without_comments", "CALL_PATTERN"]

#: ``CALL spark_assign.<name>(...)`` statements that :func:`call_statement` runs.
CALLABLE = ("rebalance", "views")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$|^`[^`]+`$")
_QUERY = re.compile(r"^\s*(SELECT|WITH|FROM|VALUES|TABLE)\b", re.I)
CALL_PATTERN = re.compile(r"^\s*CALL\s+spark_assign\s*\.\s*(\w+)\s*\((.*)\)\s*$", re.I | re.S)
_ARG = re.compile(r"\s*(\w+)\s*=>\s*'((?:[^'\\]|\\.|'')*)'\s*(,|$)", re.S)
#: Quoted text and comments; comments are dropped, quoted text kept (a '--' inside a path is not a comment).
_QUOTED_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|--[^\n]*|/\*.*?\*/", re.S)


def without_comments(statement: str) -> str:
    """``statement`` without SQL comments; quoted text (a ``--`` inside a path) is kept."""
    return _QUOTED_OR_COMMENT.sub(lambda t: "" if t.group(0)[:2] in ("--", "/*") else t.group(0), statement)


def _view_name(views: str) -> str:
    if not isinstance(views, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", views):
        raise InvalidInputError(f"views must be a plain SQL identifier such as 'fleet', got {views!r}",
                                column="views")
    return views


def _frame(spark: Any, source: Any, argument: str):
    """A DataFrame from a table or view name, a query, or a DataFrame."""
    from pyspark.sql import DataFrame

    if isinstance(source, DataFrame):
        return source
    if isinstance(source, str) and _QUERY.match(source):
        return spark.sql(source)
    if isinstance(source, str) and _NAME.match(source.strip()):
        return spark.table(source.strip())
    raise InvalidInputError(f"{argument} must be a table or view name, a query or a DataFrame, got {source!r}",
                            column=argument)


def _empty_rows(spark: Any):
    return spark.createDataFrame([], spark_ddl())


def state_views(spark: Any, state: str, views: str = "assignments") -> List[str]:
    """Create (or replace) the temporary views ``<views>_latest`` and ``<views>_history`` over a state table.

    Example::

        from spark_assign.state.consumer.sql import state_views

        state_views(spark, "/data/fleet_state", views="fleet")
        spark.sql("SELECT group_id, count(*) FROM fleet_latest GROUP BY group_id").show()

    Parameters
    ----------
    spark:
        The session (classic or Spark Connect).
    state:
        The state table: a directory, or a catalog table name (as for ``AssignmentTable``).
    views:
        The views' prefix, a plain identifier.

    Returns
    -------
    list of str
        The names of the two views. They show the table as it is now; call
        again (or :func:`rebalance`, which does) to see later commits.
    """
    prefix = _view_name(views)
    table = AssignmentTable(spark, state)
    if table.exists():
        now = table.state()                           # both views at this one version
        latest, history = now.latest, now.rows
    else:
        latest = history = _empty_rows(spark)
    latest.createOrReplaceTempView(f"{prefix}_latest")
    history.createOrReplaceTempView(f"{prefix}_history")
    return [f"{prefix}_latest", f"{prefix}_history"]


def rebalance(spark: Any, state: str, subscriptions: Any, topics: Any, strategy: str = DEFAULT_STRATEGY,
              views: Optional[str] = "assignments", weights: Any = None) -> Rebalance:
    """Rebalance a state table from SQL views and commit the next generations; refresh the views.

    Example::

        from spark_assign.state.consumer.sql import rebalance

        step = rebalance(spark, "/data/fleet_state", subscriptions="subscriptions", topics="topics",
                         strategy="cooperative-sticky", views="fleet")
        step.version, step.summary["groups_recomputed"]
        spark.sql("SELECT * FROM fleet_latest WHERE status = 'revoked'").show()

    Parameters
    ----------
    spark:
        The session (classic or Spark Connect).
    state:
        The state table: a directory, or a catalog table name (as for ``AssignmentTable``).
    subscriptions:
        A table or view name, a query (``SELECT ...``), or a DataFrame: one row
        per member and subscribed topic, the DataFrame method's columns
        (``group_id, member_id, topic`` and optionally ``group_instance_id``,
        ``rack``); extra columns are ignored.
    topics:
        The same for the topic metadata: ``topic, num_partitions`` and
        optionally ``replica_racks``.
    strategy:
        A strategy name.
    views:
        Prefix of the views :func:`state_views` refreshes after the commit, or None.
    weights:
        The same for per-partition weights (``topic, partition, weight`` and optionally
        ``group_id``), or None: needed by the load-aware strategies (docs/load-aware.md).

    Returns
    -------
    Rebalance
        The new rows, the Delta version committed (None when nothing changed) and counts.
    """
    prefix = _view_name(views) if views is not None else None
    subs = _frame(spark, subscriptions, "subscriptions")
    meta = _frame(spark, topics, "topics")
    lag = _frame(spark, weights, "weights") if weights is not None else None
    step = AssignmentTable(spark, state).rebalance(subs, meta, strategy=strategy, weights=lag)
    if prefix is not None:
        state_views(spark, state, prefix)
    return step


def _summary_frame(spark: Any, step: Any):
    keys = ["groups_recomputed", "groups_unchanged", "partitions_moved", "revoked", "assigned", "new", "kept",
            "attempts"]
    row = tuple([step.version] + [int(step.summary.get(k, 0)) for k in keys])
    return spark.createDataFrame([row], "version bigint, " + ", ".join(f"{k} bigint" for k in keys))


def _arguments(name: str, text: str) -> Dict[str, str]:
    """The ``name => 'value'`` arguments of a CALL (string literals only)."""
    args: Dict[str, str] = {}
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _ARG.match(text, pos)
        if m is None:
            raise InvalidInputError(
                f"CALL spark_assign.{name}: arguments must be name => 'string literal', separated by commas; "
                f"cannot read {text[pos:pos + 40]!r}", column=name)
        value = m.group(2).replace("''", "'").replace("\\'", "'")
        if "${" in value:
            raise InvalidInputError(
                f"CALL spark_assign.{name}: {m.group(1)} is {value!r}; give the script's parameters, as in "
                f"run_script(spark, path, params={{'state': '/data/fleet_state'}})", column=m.group(1))
        args[m.group(1).lower()] = value
        pos = m.end()
    return args


def call_statement(spark: Any, statement: str) -> Union[None, Any]:
    """Run ``statement`` if it is a ``CALL spark_assign.rebalance(...)`` or ``CALL spark_assign.views(...)``.

    Returns a DataFrame (the rebalance's summary: ``version``, ``groups_recomputed``,
    ...; or the views' names), or None when ``statement`` is not such a call.

    Example::

        call_statement(spark, "CALL spark_assign.views(state => '/data/fleet_state', views => 'fleet')")
    """
    m = CALL_PATTERN.match(without_comments(statement))
    if m is None:
        return None
    name = m.group(1).lower()
    args = _arguments(name, m.group(2))
    allowed = {"rebalance": {"state", "subscriptions", "topics", "strategy", "views", "weights"},
               "views": {"state", "views"}}.get(name)
    if allowed is None:
        raise InvalidInputError(f"unknown procedure spark_assign.{name}; available: "
                                f"{', '.join('spark_assign.' + c for c in CALLABLE)}", column=name)
    unknown = sorted(set(args) - allowed)
    required = {"state"} | ({"subscriptions", "topics"} if name == "rebalance" else set())
    missing = sorted(required - set(args))
    if unknown or missing:
        raise InvalidInputError(
            f"CALL spark_assign.{name}: " + "; ".join(
                ([f"unknown arguments {unknown}"] if unknown else []) + ([f"missing arguments {missing}"]
                                                                         if missing else []))
            + f"; it takes {sorted(allowed)}", column=name)
    if name == "views":
        names = state_views(spark, args["state"], args.get("views", "assignments"))
        return spark.createDataFrame([(n,) for n in names], "view string")
    step = rebalance(spark, args["state"], args["subscriptions"], args["topics"],
                     strategy=args.get("strategy", DEFAULT_STRATEGY), views=args.get("views", "assignments"),
                     weights=args.get("weights"))
    return _summary_frame(spark, step)


def run_script(spark: Any, script: Union[str, Path], params: Optional[Mapping[str, str]] = None,
               collect: bool = False) -> List[Any]:
    """:func:`spark_assign.spark.sql.run_script` with this bridge's statements:
    ``CALL spark_assign.rebalance(...)`` and ``CALL spark_assign.views(...)``
    run here and return their summary; every other statement goes to ``spark.sql``.

    Example::

        from pathlib import Path
        from spark_assign.state.consumer.sql import run_script

        frames = run_script(spark, Path("sql/06_delta_generations.sql"), params={"state": "/data/fleet_state"})
        frames[-1].show()

    Parameters
    ----------
    spark:
        The session (classic or Spark Connect).
    script:
        A ``pathlib.Path`` to a SQL file, or the script's text.
    params:
        ``${name}`` replacements, as in :func:`spark_assign.spark.sql.run_script`.
    collect:
        Return each statement's rows, collected before the next statement runs.
    """
    return spark_sql.run_script(spark, script, params=params, collect=collect, procedures=call_statement)

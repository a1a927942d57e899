"""The subcommands: ``demo``, ``simulate``, ``rebalance``, ``what-if``, ``history``, ``diff``, ``report``,
``replicas``, ``groups``, ``audit``.

Each takes the parsed arguments and a :class:`Context` and returns the exit
status. Inputs are checked before Spark starts wherever that is possible (a
missing path, an unknown strategy, a bad scenario file), so mistakes fail fast.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, TextIO, cast

from ..errors import NeedsSparkError
from ..schema import STATUSES
from .driver_path import DriverInputs, Path, choose_path
from ..core.consumer.registry import get_strategy
from .inputs import check_rebalance_inputs, group_strategies, read_rebalance_inputs, rebalance_strategy
from .kafka import cmd_audit, cmd_groups
from .replicas import cmd_replicas
from .runtime import (CliError, Progress, SparkRuntime, is_delta_table, is_path, output_file, require_table,
                      writable_table)
from .simulate import (DEFAULT_STRATEGIES, SCENARIO_KEYS, load_scenario_file, make_plan, parse_strategies,
                       run_plan, summary_table)
from .state import COMMIT_HEADERS, commit_rows, is_replica_table, read_state_rows, write_replica_report, write_report
from .tables import format_seconds, format_table
from .whatif import cmd_what_if

__all__ = ["Context", "COMMANDS", "DEMO_SCENARIO", "DEMO_STRATEGIES"]

#: The demo's fleet: small, with every kind of churn, and a cooperative strategy that has transfers to make.
DEMO_SCENARIO: Dict[str, Any] = {
    "groups": 12, "members": 5, "topics": 3, "partitions": 6, "generations": 4, "joins": 2, "leaves": 1,
    "crashes": 1, "partition_growth": 2, "static_share": 0.5, "racks": 0, "subscription": "uniform", "seed": 7,
}
DEMO_STRATEGIES = ("sticky", "cooperative-sticky")


@dataclass
class Context:
    """What a command runs with: the Spark runtime, the progress printer and the output stream."""

    runtime: SparkRuntime
    progress: Progress
    out: TextIO = field(default_factory=lambda: sys.stdout)

    def print(self, text: str = "") -> None:
        """Write a result line to the output stream."""
        self.out.write(text + "\n")
        self.out.flush()


# ---------------------------------------------------------------------------- simulate & demo

def _scenario_flags(args) -> Dict[str, Any]:
    flags = {k: getattr(args, k, None) for k in SCENARIO_KEYS}
    flags["follow_ups"] = getattr(args, "follow_ups", None)
    flags["title"] = getattr(args, "title", None)
    flags["max_count_skew"] = getattr(args, "max_count_skew", None)
    flags["min_improvement"] = getattr(args, "min_improvement", None)
    return flags


def _fresh_table_path(location: str, overwrite: bool, option: str = "--table") -> str:
    """An absolute path where a new table can go: absent, empty, or (``overwrite``) an old Delta table."""
    path = os.path.abspath(os.path.expanduser(location))
    if os.path.isfile(path):
        raise CliError(f"{option}: {location} is a file, not a folder")
    if os.path.isdir(path):
        if is_delta_table(path):
            if not overwrite:
                raise CliError(f"{option}: {location} already holds a Delta table; pass --overwrite to replace it")
            shutil.rmtree(path)
        elif any(os.scandir(path)):
            raise CliError(f"{option}: {location} is a folder that is not a Delta table; refusing to write into it")
    return path


def _simulate(ctx: Context, plan, table_path: str, report: Optional[str], check_idempotent: bool = False):
    """Run ``plan`` into a new table at ``table_path``; print the summary; write the report if asked."""
    from ..state import AssignmentTable

    ctx.progress.say(f"simulating {plan.describe()}")
    spark = ctx.runtime.session()
    began = time.perf_counter()
    table = AssignmentTable(spark, table_path)
    results = run_plan(spark, table, plan, ctx.progress, check_idempotent=check_idempotent)
    ctx.progress.say(f"simulation done: {len(results)} rebalances in {format_seconds(time.perf_counter() - began)}")
    ctx.print(summary_table(results))
    ctx.print()
    ctx.print(f"Table:  {table_path}")
    if report:
        import pandas as pd

        rows = read_state_rows(ctx.runtime, table_path)
        title = plan.title or f"Simulation: {' vs '.join(plan.strategies)}"
        subscribed = [r.members for r in results if r.members is not None]
        write_report(rows, report, title, members=pd.concat(subscribed) if subscribed else None)
    return results


def cmd_simulate(args, ctx: Context) -> int:
    """``simulate``: a scenario from flags or a file, over its generations, into a new Delta table."""
    strategies = parse_strategies(args.strategy)
    settings = load_scenario_file(args.scenario) if args.scenario else {}
    plan = make_plan(settings, _scenario_flags(args), strategies, default_strategies=DEFAULT_STRATEGIES)
    report = output_file(args.report, "--report") if args.report else None
    table_path = _fresh_table_path(args.table, args.overwrite)
    _simulate(ctx, plan, table_path, report)
    if report:
        ctx.print(f"Report: {report}")
    return 0


def cmd_demo(args, ctx: Context) -> int:
    """``demo``: a small fleet under sticky and cooperative-sticky, a summary and an HTML report."""
    strategies = parse_strategies(args.strategy)
    plan = make_plan({}, _scenario_flags(args), strategies, defaults=DEMO_SCENARIO,
                     default_strategies=DEMO_STRATEGIES)
    if plan.title is None:
        plan.title = f"spark-assign demo: {' vs '.join(plan.strategies)}"
    folder = os.path.abspath(os.path.expanduser(args.path))
    if os.path.isfile(folder):
        raise CliError(f"--path: {args.path} is a file, not a folder")
    os.makedirs(folder, exist_ok=True)
    table_path = _fresh_table_path(os.path.join(folder, "table"), overwrite=True, option="--path")
    report = os.path.join(folder, "report.html")
    began = time.perf_counter()
    _simulate(ctx, plan, table_path, report, check_idempotent=True)
    shown = os.path.relpath(table_path) if not os.path.relpath(table_path).startswith("..") else table_path
    example = plan.group_id(plan.strategies[-1], "g" + "0" * len(str(plan.scenario.groups - 1)))
    ctx.print()
    ctx.print("Explore the table:")
    ctx.print(f"  spark-assign history --table {shown}")
    ctx.print(f"  spark-assign history --table {shown} --group {example}")
    ctx.print(f"  spark-assign diff --table {shown} --from 1 --to {plan.scenario.generations}")
    ctx.progress.say(f"demo done in {format_seconds(time.perf_counter() - began)}")
    ctx.print(f"Report: {report}")
    return 0


# ---------------------------------------------------------------------------- rebalance

def _group_figures(subscriptions, rows):
    """Per recomputed group: generation, members, partitions, status counts, spread (pandas).

    Members and spread are :func:`~spark_assign.report.consumer.metrics.balance`'s, over
    every subscribed member (one owning nothing counts 0).
    """
    from pyspark.sql import functions as F

    from ..report.consumer.metrics import balance

    if "group_id" not in subscriptions.columns:
        subscriptions = subscriptions.withColumn("group_id", F.lit("default"))
    one = F.lit(1)
    groups = rows.select("group_id").distinct()
    # Partitions per owner (a null owner: the group's pending partitions), and the subscribed members.
    owned = rows.groupBy("group_id", "member_id").agg(F.count(one).alias("n")).toPandas()
    members = subscriptions.select("group_id", "member_id").distinct().join(groups, "group_id", "left_semi").toPandas()
    spread = balance(owned, ["group_id"], members, count="n")[["members", "spread"]]
    status = rows.groupBy("group_id").agg(F.max("generation").alias("generation"),
                                          F.count(one).alias("partitions"),
                                          *[F.sum((F.col("status") == s).cast("long")).alias(s) for s in STATUSES])
    return status.toPandas().join(spread, on="group_id", how="left")


def _group_figures_arrow(subscriptions, rows):
    """:func:`_group_figures` for the path without Spark: ``subscriptions`` and ``rows`` as Arrow."""
    import pandas as pd

    from ..report.consumer.metrics import balance

    frame = rows.select(["group_id", "generation", "member_id", "status"]).to_pandas()
    owned = frame.groupby(["group_id", "member_id"], dropna=False).size().rename("n").reset_index()
    subs = subscriptions.select([c for c in ("group_id", "member_id") if c in subscriptions.column_names]).to_pandas()
    subs = subs.assign(group_id=subs.get("group_id", "default")).drop_duplicates()
    members = subs[subs["group_id"].isin(set(frame["group_id"]))]
    spread = balance(owned, ["group_id"], members, count="n")[["members", "spread"]]
    status = pd.crosstab(frame["group_id"], frame["status"]).reindex(columns=list(STATUSES), fill_value=0)
    figures = frame.groupby("group_id").agg(generation=("generation", "max"), partitions=("status", "size"))
    return figures.join(status).reset_index().join(spread, on="group_id", how="left")


def cmd_rebalance(args, ctx: Context) -> int:
    """``rebalance``: one generation of real inputs, committed to the state table; without Spark
    when the inputs are small (:mod:`.driver_path`)."""
    chosen = rebalance_strategy(args)
    check_rebalance_inputs(args)
    own = group_strategies(args)
    location = writable_table(args.table)
    path = choose_path(args)
    if own:
        return _rebalance_each_strategy(args, ctx, chosen, own, location, path)
    if path.inputs is not None:
        try:
            return _rebalance_in_driver(args, ctx, chosen, location, path)
        except NeedsSparkError as e:                # found before anything was written
            path = Path(None, e.reason)
    return _rebalance_in_spark(args, ctx, chosen, location, path)


def _rebalance_each_strategy(args, ctx: Context, default, own: Dict[str, str], location: str, path: Path) -> int:
    """``rebalance --strategies FILE``: each group with its own strategy, one commit per strategy
    (the groups it runs; those the file does not name run ``--strategy``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    spark_inputs = read_rebalance_inputs(ctx.runtime.session(), args) if path.inputs is None else None
    names = sorted(set(own.values()) | {default.name})
    for name in names:
        groups = [g for g, s in own.items() if s == name]
        chosen = default if name == default.name else get_strategy(name)
        ctx.print(f"strategy {name}: " + (f"{len(groups)} groups named in {args.strategies}" if name != default.name
                                          else "the groups --strategies does not name" +
                                          (f", and {len(groups)} it names" if groups else "")))
        others = [g for g, s in own.items() if s != name]
        if path.inputs is not None:
            subs = path.inputs.subscriptions
            ids = subs.column("group_id") if "group_id" in subs.column_names else pa.array(["default"] * subs.num_rows)
            keep = pc.is_in(ids, value_set=pa.array(groups, pa.string())) if name != default.name else \
                pc.invert(pc.is_in(ids, value_set=pa.array(others, pa.string())))
            part = Path(DriverInputs(subs.filter(keep), path.inputs.topics), path.line)
            if part.inputs is not None and part.inputs.subscriptions.num_rows:
                _rebalance_in_driver(args, ctx, chosen, location, part)
            continue
        subscriptions, topics, weights = cast(tuple, spark_inputs)
        from pyspark.sql import functions as F
        column = F.col("group_id") if "group_id" in subscriptions.columns else F.lit("default")
        chosen_rows = column.isin(groups) if name != default.name else ~column.isin(others)
        _rebalance_rows_in_spark(args, ctx, chosen, location, path, subscriptions.where(chosen_rows), topics, weights)
    return 0


def _rebalance_in_driver(args, ctx: Context, chosen, location: str, path: Path) -> int:
    from ..state.consumer.driver import rebalance_in_driver

    inputs = cast(DriverInputs, path.inputs)
    if inputs.subscriptions.num_rows == 0:
        raise CliError(f"--subscriptions: {args.subscriptions} has no rows; give one row per member and topic")
    began = time.perf_counter()
    step = rebalance_in_driver(location, inputs.subscriptions, inputs.topics, chosen.name, dry_run=args.dry_run)
    seconds = time.perf_counter() - began
    figures = _group_figures_arrow(inputs.subscriptions, step.rows) if _has_rows(step) else None
    _print_rebalance(args, ctx, chosen, os.path.abspath(os.path.expanduser(location)), step, figures, seconds, path)
    return 0


def _rebalance_in_spark(args, ctx: Context, chosen, location: str, path: Path) -> int:
    subscriptions, topics, weights = read_rebalance_inputs(ctx.runtime.session(), args)
    if subscriptions.isEmpty():             # a header-only file: not a fleet; write no (empty) table
        raise CliError(f"--subscriptions: {args.subscriptions} has no rows; give one row per member and topic")
    return _rebalance_rows_in_spark(args, ctx, chosen, location, path, subscriptions, topics, weights)


def _rebalance_rows_in_spark(args, ctx: Context, chosen, location: str, path: Path, subscriptions, topics,
                             weights) -> int:
    from ..state import AssignmentTable

    spark = ctx.runtime.session()
    table = AssignmentTable(spark, location)
    began = time.perf_counter()
    step = table.rebalance(subscriptions, topics, strategy=chosen.name, weights=weights,
                           max_count_skew=args.max_count_skew, min_improvement=args.min_improvement,
                           dry_run=args.dry_run)
    seconds = time.perf_counter() - began
    figures = _group_figures(subscriptions, step.rows) if _has_rows(step) else None
    _print_rebalance(args, ctx, chosen, table.path, step, figures, seconds, path)
    return 0


def _has_rows(step) -> bool:
    """Whether a rebalance wrote (or, a dry run, would write) a generation."""
    return step.version is not None or (step.dry_run and sum(step.summary.get(s, 0) for s in STATUSES) > 0)


def _print_rebalance(args, ctx: Context, chosen, table_path: str, step, figures, seconds: float, path: Path) -> None:
    """The result of a rebalance, either path: the counts, then the recomputed groups
    (``figures``: per group, None when nothing changed)."""
    s = step.summary
    strategy = chosen.name
    recomputed, unchanged = s.get("groups_recomputed", 0), s.get("groups_unchanged", 0)
    replanned, unmoved = s.get("groups_replanned_for_load"), s.get("groups_replanned_unmoved", 0)
    if figures is None:
        load = (f"; {replanned} re-planned for their load under the new weights moved nothing"
                if replanned else "")
        ctx.print(f"Nothing changed: {unchanged} groups have the same inputs as their latest generation{load}; "
                  f"no commit ({format_seconds(seconds)}).")
        ctx.print(path.line)
        return
    spreads = figures["spread"].fillna(0)
    committed = "none: a dry run, nothing written" if step.dry_run else step.version
    lines = [("table", table_path), ("strategy", strategy), ("committed version", committed),
             ("groups recomputed", f"{recomputed} of {recomputed + unchanged}"),
             ("groups with missing topics", s.get("groups_with_missing_topics", 0)),
             ("partitions new", s.get("new", 0)), ("partitions kept", s.get("kept", 0)),
             ("partitions moved", s.get("partitions_moved", 0)), ("partitions revoked (pending)", s.get("revoked", 0)),
             ("transfers completed", s.get("assigned", 0)),
             (f"partitions paused ({chosen.rebalance_protocol} protocol)",
              chosen.paused(s.get("kept", 0), s.get("partitions_moved", 0), s.get("revoked", 0))),
             ("spread, worst group", int(spreads.max()) if len(spreads) else 0),
             ("spread, mean", round(float(spreads.mean()), 2) if len(spreads) else 0.0),
             ("commit attempts", s.get("attempts", 1)), ("time", format_seconds(seconds)),
             ("path", path.line.split(": ", 1)[1])]
    if replanned is not None:                # load-aware with weights: unchanged groups checked under them
        lines[4:4] = [("groups re-planned for load", replanned), ("  of which moved nothing (kept)", unmoved)]
    ctx.print(format_table(["rebalance", "value"], [list(x) for x in lines]))
    figures = figures.assign(_movement=figures["moved"] + figures["revoked"])
    figures = figures.sort_values(["_movement", "group_id"], ascending=[False, True], kind="stable")
    shown = figures if args.limit == 0 else figures.head(args.limit)
    headers = ["group", "generation", "members", "partitions", "paused", "kept", "moved", "revoked", "assigned",
               "new", "spread"]
    pause = chosen.paused
    rows = [[r.group_id, int(r.generation), _int(r.members), int(r.partitions),
             int(pause(int(r.kept), int(r.moved), int(r.revoked))), int(r.kept), int(r.moved),
             int(r.revoked), int(r.assigned), int(r.new), _int(r.spread)] for r in shown.itertuples(index=False)]
    ctx.print()
    more = f", {len(shown)} of {len(figures)} shown (most movement first)" if len(shown) < len(figures) else ""
    ctx.print(format_table(headers, rows, title=f"Recomputed groups{more}:"))


def _int(value: Any) -> Optional[int]:
    try:
        return None if value is None or value != value else int(value)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------- history & diff

def _open_table(ctx: Context, location: str):
    from ..state import AssignmentTable

    location = require_table(location)
    return AssignmentTable(ctx.runtime.session(), location)


def cmd_history(args, ctx: Context) -> int:
    """``history``: the table's commits, or one group's generations and what moved in each."""
    table = _open_table(ctx, args.table)
    if args.group is None:
        entries = table.versions()
        rows = commit_rows(entries)
        ctx.print(format_table(COMMIT_HEADERS, rows, title=f"Commits of {table.path} (oldest first):"))
        return 0
    from ..report import group_metrics, legend_lines, step_label
    from .state import read_steps

    frame = table.history(args.group).toPandas()
    if frame.empty:
        raise CliError(f"no group {args.group!r} in {args.table}")
    # Steps count the fleet's rebalance rounds: read from the whole table, as the report does.
    gm = group_metrics(frame, steps=read_steps(ctx.runtime, args.table)).sort_values("generation")
    headers = ["generation", "step", "strategy", "committed (UTC)", "members", "partitions", "paused", "kept",
               "moved", "revoked", "assigned", "new", "spread"]
    rows = [[int(r.generation), step_label(r.step, r.follow_up), r.strategy, _stamp(r.committed_at),
             int(r.members), int(r.partitions), int(r.paused), int(r.kept), int(r.moved), int(r.revoked),
             int(r.assigned), int(r.new), int(r.spread)] for r in gm.itertuples(index=False)]
    ctx.print(format_table(headers, rows, title=f"Group {args.group}: {len(rows)} generations"))
    ctx.print()
    for line in legend_lines(figures=("step", "members")):
        ctx.print(line)
    changes = frame[frame["status"].isin(["moved", "revoked", "assigned"])]
    changes = changes.sort_values(["generation", "topic", "partition"], kind="stable")
    shown = changes if args.limit == 0 else changes.head(args.limit)
    ctx.print()
    title = "What moved (moved: new owner at once; revoked: taken, pending; assigned: transfer completed)"
    if len(shown) < len(changes):
        title += f", first {len(shown)} of {len(changes)} (--limit 0 for all)"
    rows = [[int(r.generation), r.topic, int(r.partition), r.status, r.previous_member_id or "-",
             r.member_id or "(pending)"] for r in shown.itertuples(index=False)]
    ctx.print(format_table(["generation", "topic", "partition", "status", "from", "to"], rows, title=title + ":"))
    return 0


def _stamp(value: Any) -> str:
    import pandas as pd

    if value is None or pd.isna(value):
        return "-"
    return pd.Timestamp(value).strftime("%Y-%m-%d %H:%M:%S")


def cmd_diff(args, ctx: Context) -> int:
    """``diff``: partitions whose owner differs between two generations, for the fleet or one group."""
    from pyspark.sql import functions as F

    table = _open_table(ctx, args.table)
    diff = table.diff(args.from_generation, args.to_generation)
    span = f"generations {args.from_generation} and {args.to_generation}"
    if args.group is not None:
        rows = diff.where(F.col("group_id") == args.group).orderBy("topic", "partition").collect()
        shown = rows if args.limit == 0 else rows[:args.limit]
        title = f"Group {args.group}: {len(rows)} partitions changed owner between {span}"
        if len(shown) < len(rows):
            title += f", first {len(shown)} shown (--limit 0 for all)"
        out = [[r.topic, r.partition, r.from_generation, r.from_member_id or "-", r.to_generation,
                r.to_member_id or "-"] for r in shown]
        ctx.print(format_table(["topic", "partition", "from gen", "from member", "to gen", "to member"], out,
                               title=title + ":"))
        return 0
    per_group = (diff.groupBy("group_id").agg(
        F.count(F.lit(1)).alias("changed"),
        F.sum((F.col("from_member_id").isNotNull() & F.col("to_member_id").isNotNull()).cast("long"))
         .alias("moved"),
        F.sum(F.col("from_member_id").isNull().cast("long")).alias("gained"),
        F.sum(F.col("to_member_id").isNull().cast("long")).alias("lost"))
        .orderBy(F.desc("changed"), "group_id").collect())
    total = sum(r.changed for r in per_group)
    shown = per_group if args.limit == 0 else per_group[:args.limit]
    title = f"{total} partitions changed owner in {len(per_group)} groups between {span}"
    if len(shown) < len(per_group):
        title += f"; the {len(shown)} groups with most changes (--limit 0 for all)"
    out = [[r.group_id, r.changed, r.moved, r.gained, r.lost] for r in shown]
    ctx.print(format_table(["group", "changed", "member to member", "from no owner", "to no owner"], out,
                           title=title + ":"))
    return 0


# ---------------------------------------------------------------------------- report

def cmd_report(args, ctx: Context) -> int:
    """``report``: the self-contained HTML report of a state table (or of a replica table)."""
    out = output_file(args.out, "--out")
    if is_path(args.table):
        require_table(args.table)
    if is_replica_table(ctx.runtime, args.table):
        path = write_replica_report(ctx.runtime, args.table, out, args.title, args.top)
        ctx.print(f"Report: {path}")
        return 0
    rows = read_state_rows(ctx.runtime, args.table)
    name = os.path.basename(os.path.normpath(args.table))
    path = write_report(rows, out, args.title or f"Consumer group assignments: {name}", args.top)
    ctx.print(f"Report: {path}")
    return 0


COMMANDS = {
    "demo": cmd_demo,
    "simulate": cmd_simulate,
    "rebalance": cmd_rebalance,
    "what-if": cmd_what_if,
    "history": cmd_history,
    "diff": cmd_diff,
    "report": cmd_report,
    "replicas": cmd_replicas,
    "groups": cmd_groups,
    "audit": cmd_audit,
}

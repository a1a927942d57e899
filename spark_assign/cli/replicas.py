"""``spark-assign replicas``: place and reassign Kafka replicas on brokers, and their history.

* ``replicas place``: the placement of ``--topics`` on ``--brokers`` (files,
  catalog tables or inline flags). With ``--current`` (the current assignment:
  the JSON ``kafka-reassign-partitions`` prints and takes, that tool's whole
  output, or ``kafka-topics --describe``'s; :mod:`spark_assign.kafka`), a
  reassignment of it; with ``--table``, the next generation of a replica table
  (:class:`~spark_assign.ReplicaTable`: the table's latest generation is the
  current placement, only changed clusters are recomputed, one commit).
  ``--json FILE`` writes what to give ``kafka-reassign-partitions --execute
  --reassignment-json-file``: the partitions whose replicas change, or, for a
  placement without a previous one, every partition (as ``--generate`` proposes).
  ``--stages DIR`` writes the reassignment as safe stages (:mod:`.stages`: at
  most ``--max-moves-per-broker`` moves per broker and ``--max-bytes-per-stage``
  per stage, ``--throttle``, sizes from ``--sizes``, ``kafka-log-dirs``' output).
  ``--balance-sizes`` (those sizes) or ``--loads`` (rows of per-partition loads)
  balance the ``sticky`` reassignment of ``--current`` by load too (Cruise
  Control's goals, :mod:`spark_assign.core.replicas.goals`);
* ``replicas resume``: an interrupted ``--stages`` plan against the placement
  now: each stage's progress and the partitions left, staged again;
* ``replicas history``: a replica table's commits, or one cluster's
  generations: replicas moved, leaders changed, balance and racks.

Mistakes are found before Spark starts where they can be (a missing file, a
malformed ``--current`` file, a method name, ``--json`` without ``--cluster``
on a fleet), the rest before anything is written (:mod:`spark_assign.cli`).
"""

from __future__ import annotations

import os
import time
from typing import Any, Dict, List, Optional, Tuple

from ..core.replicas.api import get_replica_method
from ..core.replicas.stages import DEFAULT_MAX_MOVES_PER_BROKER
from .inputs import check_input, read_input
from ..kafka.placement import read_current_placement
from ..kafka.log_dirs import partition_sizes, read_log_dirs
from ..kafka.reassignment import Replicas, format_reassignment
from .runtime import CliError, require_table, writable_table
from .stages import check_stage_folder, resume_stages, write_stages
from .tables import format_amount, format_seconds, format_table

__all__ = ["cmd_replicas", "DEFAULT_CLUSTER"]

#: The cluster of inputs without a ``cluster_id`` column (as ``ReplicaTable`` names it).
DEFAULT_CLUSTER = "default"


def cmd_replicas(args, ctx) -> int:
    """``replicas place`` or ``replicas history``."""
    if args.replicas_command == "history":
        return _history(args, ctx)
    if args.replicas_command == "resume":
        return _resume(args, ctx)
    return _place(args, ctx)


def _resume(args, ctx) -> int:
    """``replicas resume``: a staged plan's progress against the placement now, and what is left."""
    current = read_current_placement(_text(args.current, "--current"), f"--current {args.current}").partitions
    resume_stages(ctx, args.stages, current, args.current, _sizes(args), args.max_moves_per_broker,
                  args.max_bytes_per_stage, args.throttle)
    return 0


def _text(name: str, option: str) -> str:
    """A UTF-8 text file an option names; a missing or binary file is a one-line error."""
    path = os.path.expanduser(name)
    if not os.path.isfile(path):
        raise CliError(f"{option}: no such file: {name}")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise CliError(f"{option}: {name} is not UTF-8 text") from None


# ---------------------------------------------------------------------------- place

def _checked_place_args(args) -> Tuple[Optional[List[Replicas]], Optional[str]]:
    """Everything checkable before Spark starts; the current placement (from ``--current``) and
    the table's location (absolute for a path)."""
    get_replica_method(args.method)
    if args.reassign != "none":
        get_replica_method(args.reassign)
    if get_replica_method(args.method).needs_previous:
        raise CliError(f"--method: {args.method!r} reassigns a placement; give --reassign {args.method} "
                       "with --current or --table instead")
    if args.topics is None and args.current is None:
        raise CliError("--topics is required without --current (the topics then come from the current placement)")
    if args.current is not None and args.table is not None:
        raise CliError("--current and --table: a table holds the current placement itself; give one of them")
    for value, option in ((args.topics, "--topics"), (args.brokers, "--brokers")):
        if value is not None:
            check_input(value, option)
    current = None
    if args.current is not None:                                        # warns what it assumed
        current = read_current_placement(_text(args.current, "--current"), f"--current {args.current}").partitions
    location = writable_table(args.table) if args.table is not None else None
    _check_load_args(args)
    _check_stage_args(args)
    if args.json is not None and args.json != "-":
        folder = os.path.dirname(os.path.abspath(os.path.expanduser(args.json)))
        if not os.path.isdir(folder):
            raise CliError(f"--json: no such folder: {folder}")
    return current, location


def _inputs(spark, args, current: Optional[List[Replicas]]):
    """The topics, brokers and previous placement as DataFrames, each with ``cluster_id`` when the
    topics or brokers have it (else the cluster :data:`DEFAULT_CLUSTER`)."""
    from pyspark.sql import functions as F

    previous = None
    if current is not None:
        previous = spark.createDataFrame(
            [(DEFAULT_CLUSTER, t, p, i, b) for t, p, replicas in current for i, b in enumerate(replicas)],
            "cluster_id string, topic string, partition int, replica_index int, broker_id int")
    if args.topics is not None:
        topics = read_input(spark, args.topics, "--topics")
        if isinstance(topics, dict):
            topics = spark.createDataFrame(list(topics.items()), "topic string, num_partitions int")
    else:
        topics = _topics_of(spark, current or [], args.replication_factor)
    brokers = read_input(spark, args.brokers, "--brokers")
    if "cluster_id" not in topics.columns and "cluster_id" not in brokers.columns:
        topics, brokers = (df.withColumn("cluster_id", F.lit(DEFAULT_CLUSTER)) for df in (topics, brokers))
    elif previous is not None:
        raise CliError("--current is one cluster's assignment: give --topics and --brokers without cluster_id")
    return topics, brokers, previous


def _topics_of(spark, current: List[Replicas], replication_factor: Optional[int]):
    """The topics of a current placement: partitions up to the highest listed, and the widest
    replica list as the replication factor (unless ``--replication-factor`` sets it)."""
    counts: Dict[str, Tuple[int, int]] = {}
    for t, p, replicas in current:
        n, rf = counts.get(t, (0, 0))
        counts[t] = (max(n, p + 1), max(rf, len(replicas)))
    rows = [(t, n, replication_factor or rf) for t, (n, rf) in counts.items()]
    return spark.createDataFrame(rows, "topic string, num_partitions int, replication_factor int")


def _settings(args):
    from ..state.replicas.compute import PlacementSettings

    return PlacementSettings(get_replica_method(args.method).name,
                             None if args.reassign == "none" else get_replica_method(args.reassign).name,
                             args.replication_factor, args.seed, args.start_index, args.rack_aware)


def _place(args, ctx) -> int:
    """``replicas place``: one placement, printed; committed to ``--table`` when given."""
    current, location = _checked_place_args(args)
    one_cluster = args.json is not None or args.stages is not None       # a file holds one cluster's moves
    if one_cluster and args.table is not None and args.cluster is None:
        _require_one_cluster(args)
    spark = ctx.runtime.session()
    topics, brokers, previous = _inputs(spark, args, current)
    loads = _loads(spark, args, topics)
    if one_cluster and args.cluster is None and topics.where(
            f"cluster_id != '{DEFAULT_CLUSTER}'").limit(1).count():       # before anything is written
        raise CliError(f"{'--json' if args.json is not None else '--stages'} writes one cluster's reassignment: "
                       "name it with --cluster")
    settings = _settings(args)
    began = time.perf_counter()
    if location is not None:
        rows, summary, moves = _place_in_table(spark, location, topics, brokers, settings, args)
    else:
        rows, summary, moves = _place_once(spark, topics, brokers, previous, settings, args.cluster, loads)
    summary["time"] = format_seconds(time.perf_counter() - began)
    _print_placement(ctx, rows, brokers, summary, args.limit, loads)
    if args.json is not None:
        _write_json(ctx, args.json, [m[:3] for m in moves])
    if args.stages is not None:
        _write_stages(ctx, args, moves)
    return 0


def _check_load_args(args) -> None:
    """Before Spark: loads balance a ``sticky`` reassignment of ``--current``."""
    given = [o for o, v in (("--loads", args.loads), ("--balance-sizes", args.balance_sizes or None),
                            ("--threshold", args.threshold),
                            ("--max-replicas-per-broker", args.max_replicas_per_broker)) if v is not None]
    if not given:
        return
    if args.loads is None and not args.balance_sizes:
        raise CliError(f"{given[0]} applies to loads: give --loads or --balance-sizes")
    if args.loads is not None and args.balance_sizes:
        raise CliError("--loads and --balance-sizes: give one (a size_bytes column in --loads balances disk too)")
    if args.balance_sizes and args.sizes is None:
        raise CliError("--balance-sizes balances the sizes of --sizes: give --sizes (kafka-log-dirs --describe)")
    if args.table is not None:
        raise CliError(f"{given[0]} with --table: a replica table does not balance loads yet; give --current")
    if args.current is None:
        raise CliError(f"{given[0]} balances a reassignment: give the current placement (--current)")
    if args.reassign == "none" or get_replica_method(args.reassign).name != "sticky":
        raise CliError(f"{given[0]}: loads are balanced by the sticky reassignment, not --reassign {args.reassign}")
    if args.loads is not None:
        check_input(args.loads, "--loads")


def _loads(spark, args, topics):
    """The loads to balance (:class:`~spark_assign.state.replicas.compute.LoadInput`), or None."""
    from pyspark.sql import functions as F

    from ..core.replicas.loads import DEFAULT_THRESHOLD
    from ..spark.inputs import checked_double
    from ..state.replicas.compute import LoadInput

    if args.loads is None and not args.balance_sizes:
        return None
    if args.balance_sizes:
        frame = spark.createDataFrame([(t, p, float(b)) for (t, p), b in sorted(args.partition_sizes.items())],
                                      "topic string, partition int, size_bytes double")
    else:
        frame = read_input(spark, args.loads, "--loads")
        if isinstance(frame, dict):
            raise CliError("--loads: give rows (a file or table of topic, partition and load columns)")
        frame = frame.select(*[checked_double(f.name, f.name, key="topic").alias(f.name)   # a CSV's text
                               if f.dataType.typeName() == "string" and f.name not in ("cluster_id", "topic")
                               else F.col(f.name) for f in frame.schema.fields])
    if "cluster_id" not in frame.columns and "cluster_id" in topics.columns:
        frame = frame.withColumn("cluster_id", F.lit(DEFAULT_CLUSTER))
    return LoadInput(frame, DEFAULT_THRESHOLD if args.threshold is None else args.threshold,
                     args.max_replicas_per_broker)


def _check_stage_args(args) -> None:
    """Before Spark: the stage options are consistent, and ``--sizes`` reads."""
    staged = [o for o, v in (("--max-moves-per-broker", args.max_moves_per_broker),
                             ("--max-bytes-per-stage", args.max_bytes_per_stage), ("--throttle", args.throttle),
                             ("--sizes", None if args.balance_sizes else args.sizes)) if v is not None]
    if args.stages is None:
        if staged:
            raise CliError(f"{staged[0]} applies to --stages: give --stages DIR")
    else:
        check_stage_folder(args.stages)
        if args.current is None and args.table is None:
            raise CliError("--stages cuts a reassignment into stages: give the current placement "
                           "(--current or --table)")
        if args.sizes is None and (args.max_bytes_per_stage is not None or args.throttle is not None):
            raise CliError(f"{'--max-bytes-per-stage' if args.max_bytes_per_stage else '--throttle'} counts "
                           "bytes: give --sizes (the output of kafka-log-dirs --describe)")
    args.partition_sizes = _sizes(args)           # for the stages, or the load of --balance-sizes


def _sizes(args) -> Optional[Dict[Tuple[str, int], int]]:
    """The partition sizes of ``--sizes`` (``kafka-log-dirs --describe``' output), or None."""
    if args.sizes is None:
        return None
    return partition_sizes(read_log_dirs(_text(args.sizes, "--sizes"), f"--sizes {args.sizes}"))


def _write_stages(ctx, args, moves) -> None:
    if any(m[3] is None for m in moves):
        raise CliError("--stages: the cluster had no placement before this generation; nothing to stage")
    write_stages(ctx, args.stages, moves, args.partition_sizes,
                 args.max_moves_per_broker or DEFAULT_MAX_MOVES_PER_BROKER, args.max_bytes_per_stage, args.throttle)


def _require_one_cluster(args) -> None:
    """Before Spark: ``--json`` of a fleet needs ``--cluster`` (a file holds one cluster's moves)."""
    for value in (args.topics, args.brokers):
        if value is not None and os.path.exists(os.path.expanduser(value)) and _has_cluster_column(value):
            raise CliError(f"{'--json' if args.json is not None else '--stages'} writes one cluster's "
                           "reassignment: name it with --cluster")


def _has_cluster_column(value: str) -> bool:
    """Whether a CSV input's header names ``cluster_id`` (other formats: found by Spark later)."""
    path = os.path.expanduser(value)
    if not path.lower().endswith(".csv") or not os.path.isfile(path):
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        return "cluster_id" in [c.strip() for c in f.readline().split(",")]


def _place_once(spark, topics, brokers, previous, settings, cluster: Optional[str], loads=None):
    """A placement without a table: its rows (pandas), summary and the reassignment of ``cluster``
    (or of the only cluster); ``loads`` balanced by the reassignment."""
    from ..state.generation_table import data_errors
    from ..state.replicas.compute import figures, placement
    from ..state.replicas.table import changed_partitions, replica_lists

    settings.check(topics, brokers)
    with data_errors():
        arrow = placement(topics, brokers, previous, settings, tasks=1, loads=loads).toArrow()
    rows = arrow.to_pandas()
    summary: Dict[str, Any] = {"clusters": int(rows["cluster_id"].nunique()) if len(rows) else 0}
    summary.update(_status_counts(rows))
    summary.update(figures(arrow, topics, brokers, previous, settings))
    placed = spark.createDataFrame(arrow.select(["cluster_id", "topic", "partition", "replica_index", "broker_id"]))
    lists = changed_partitions(placed, previous) if previous is not None else replica_lists(placed)
    moves = [(r.topic, r.partition, list(r.replicas), list(r.previous_replicas) if previous is not None else None)
             for r in lists.collect() if r.cluster_id == (cluster or DEFAULT_CLUSTER)]
    return rows, summary, moves


def _place_in_table(spark, location, topics, brokers, settings, args):
    """The next generation of the replica table at ``location``: its rows (pandas), summary and
    the reassignment of ``--cluster`` (or of the only cluster)."""
    from pyspark.sql import functions as F

    from ..state.replicas.table import ReplicaTable, replica_lists

    table = ReplicaTable(spark, location)
    step = table.rebalance(topics, brokers, settings.replication_factor, settings.method, settings.reassign,
                           settings.seed, settings.start_index, settings.rack_aware)
    s = step.summary
    summary: Dict[str, Any] = {"table": table.path, "committed version": step.version,
                               "clusters recomputed": f"{s['clusters_recomputed']} of "
                                                      f"{s['clusters_recomputed'] + s['clusters_unchanged']}"}
    if step.version is None:
        return None, summary, []
    rows = step.rows.toPandas()
    summary.update(_status_counts(rows))
    summary.update({"leaders_changed": s["leaders_changed"], "lower_bound": s["lower_bound"]})
    cluster = args.cluster or DEFAULT_CLUSTER
    mine = step.rows.where(F.col("cluster_id") == cluster)
    fresh = mine.where(F.col("status") != "new").isEmpty()
    if fresh:
        return rows, summary, [(r.topic, r.partition, list(r.replicas), None) for r in replica_lists(mine).collect()]
    lists = table.reassignment(step.version).where(F.col("cluster_id") == cluster)
    return rows, summary, [(r.topic, r.partition, list(r.replicas), list(r.previous_replicas))
                           for r in lists.collect()]


def _status_counts(rows) -> Dict[str, int]:
    counts = rows["status"].value_counts() if len(rows) else {}
    return {"partitions": int(rows[["cluster_id", "topic", "partition"]].drop_duplicates().shape[0]) if len(rows) else 0,
            "replicas_new": int(counts.get("new", 0)), "replicas_kept": int(counts.get("kept", 0)),
            "replicas_moved": int(counts.get("moved", 0))}


_LABELS = {"clusters": "clusters", "partitions": "partitions", "replicas_new": "replicas new",
           "replicas_kept": "replicas kept", "replicas_moved": "replicas moved (data copied)",
           "leaders_changed": "preferred leaders changed", "lower_bound": "fewest moves possible (lower bound)"}


def _print_placement(ctx, rows, brokers, summary: Dict[str, Any], limit: int, loads=None) -> None:
    """The summary, then replicas and preferred leaders per broker (every broker given), and each
    load a broker carries when ``loads`` were balanced."""
    labels = dict(_LABELS, lower_bound="fewest moves for even counts (loads move more)") if loads else _LABELS
    lines = [[labels.get(k, k), v] for k, v in summary.items()]
    ctx.print(format_table(["placement", "value"], lines))
    if rows is None:
        ctx.print()
        ctx.print("Nothing changed: every cluster has the same topics, brokers and settings as its latest "
                  "generation; no commit.")
        return
    from ..report.replicas.data import broker_load

    per_broker = broker_load(rows, brokers.select("cluster_id", "broker_id", *(
        ["rack"] if "rack" in brokers.columns else [])).toPandas())
    shown = per_broker if limit == 0 else per_broker.head(limit)
    names, carried = _carried(rows, loads, shown)
    table = [[r.cluster_id, int(r.broker_id), r.rack or "-", int(r.replicas), int(r.leaders), *extra]
             for r, extra in zip(shown.itertuples(index=False), carried)]
    more = f", {len(shown)} of {len(per_broker)} shown (--limit 0 for all)" if len(shown) < len(per_broker) else ""
    ctx.print()
    ctx.print(format_table(["cluster", "broker", "rack", "replicas", "preferred leader of", *names], table,
                           title=f"Brokers{more}:"))


def _carried(rows, loads, shown) -> Tuple[List[str], List[List[str]]]:
    """Each load's total on each broker of ``shown`` (``bytes_out``: the leader's), formatted: the
    columns' names and one row of values per broker (none without loads)."""
    if loads is None:
        return [], [[] for _ in range(len(shown))]
    from ..core.replicas.loads import LEADER_LOADS
    from ..spark.replicas.dataframe import load_names

    names = load_names(loads.frame)
    frame = loads.frame.select("cluster_id", "topic", "partition", *names).toPandas()
    held = rows.merge(frame, on=["cluster_id", "topic", "partition"], how="left").fillna({n: 0.0 for n in names})
    for name in names:
        if name in LEADER_LOADS:
            held[name] = held[name].where(held["replica_index"] == 0, 0.0)
    totals = held.groupby(["cluster_id", "broker_id"])[names].sum()
    out = []
    for r in shown.itertuples(index=False):
        key = (r.cluster_id, int(r.broker_id))
        out.append([format_amount(float(totals.at[key, n])) if key in totals.index else "0" for n in names])
    return names, out


def _write_json(ctx, target: str, moves: List[Replicas]) -> None:
    """The reassignment JSON to ``target`` (``-``: the output); nothing when no partition moves
    (``kafka-reassign-partitions --execute`` refuses an empty list)."""
    if not moves:
        ctx.print()
        ctx.print("No partition changes replicas: no reassignment JSON written.")
        return
    text = format_reassignment(moves)
    if target == "-":
        ctx.print(text)
        return
    path = os.path.abspath(os.path.expanduser(target))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    ctx.print()
    ctx.print(f"Reassignment of {len(moves)} partitions: {path}")
    # Apache Kafka's distribution names the tool with .sh (bin/), packaged builds (Confluent) without.
    ctx.print(f"  kafka-reassign-partitions.sh --bootstrap-server HOST:9092 --execute --reassignment-json-file {path}")
    ctx.print("  (kafka-reassign-partitions without .sh where Kafka is installed as a package, such as Confluent's)")


# ---------------------------------------------------------------------------- history

def _history(args, ctx) -> int:
    """``replicas history``: the commits of a replica table, or one cluster's generations."""
    from ..report.replicas.data import generation_figures
    from ..state.replicas.table import ReplicaTable

    location = require_table(args.table)                # before Spark starts
    table = ReplicaTable(ctx.runtime.session(), location)
    if args.cluster is None:
        rows = [_commit_row(v) for v in sorted(table.versions(), key=lambda v: v["version"])]
        headers = ["version", "operation", "method", "reassign", "recomputed", "unchanged", "new", "kept", "moved",
                   "leaders changed", "lower bound"]
        ctx.print(format_table(headers, rows, title=f"Commits of {table.path} (oldest first):"))
        return 0
    frame: Any = table.history(args.cluster).toPandas()
    if frame.empty:
        raise CliError(f"no cluster {args.cluster!r} in {args.table}")
    figures = generation_figures(frame)
    headers = ["generation", "methods", "brokers", "racks", "partitions", "new", "kept", "moved", "leaders changed",
               "replicas min-max", "leaders min-max"]
    rows = [[int(r.generation), r.methods, int(r.brokers), int(r.racks), int(r.partitions), int(r.new), int(r.kept),
             int(r.moved), int(r.leaders_changed), f"{int(r.replicas_min)}-{int(r.replicas_max)}",
             f"{int(r.leaders_min)}-{int(r.leaders_max)}"] for r in figures.itertuples(index=False)]
    ctx.print(format_table(headers, rows, title=f"Cluster {args.cluster}: {len(rows)} generations"))
    return 0


def _commit_row(entry: Dict[str, Any]) -> List[Any]:
    meta = entry.get("spark_assign") or {}
    operation = meta.get("operation") or str(entry.get("operation", "")).lower()
    counts = [meta.get(k) for k in ("clusters_recomputed", "clusters_unchanged", "replicas_new", "replicas_kept",
                                    "replicas_moved", "leaders_changed", "lower_bound")]
    return [int(entry["version"]), operation, meta.get("method"), meta.get("reassign")] + counts

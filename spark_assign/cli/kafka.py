"""The subcommands over Kafka's ``__consumer_offsets`` records: ``groups`` and ``audit``.

Both read a copy of the topic (what Spark's Kafka source reads, saved as Parquet, Delta or JSON;
a catalog table) through :func:`spark_assign.kafka.consumer_groups`, in one Spark job per frame
they print:

* ``groups``: every group's protocol, strategy, generation and members, and the records that could
  not be read; ``--out DIR`` writes the frames as Parquet (``DIR/subscriptions`` is
  ``rebalance --subscriptions``' input as it is);
* ``audit``: the classic groups whose leader's assignment differs from their strategy's
  (:func:`spark_assign.kafka.audit`), a line per group and finding, then the count per finding.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from typing import Any, List

from ..errors import RecordProblemWarning
from .inputs import check_input, read_input
from .runtime import CliError
from .tables import format_table

__all__ = ["cmd_groups", "cmd_audit", "FRAMES"]

#: The frames ``groups --out`` writes, each to its own folder.
FRAMES = ("groups", "subscriptions", "assignment", "offsets", "problems")


def _state(ctx: Any, args: Any) -> Any:
    from ..kafka import consumer_groups
    from ..errors import SchemaError

    spark = ctx.runtime.session()
    records = read_input(spark, args.records, "--records")
    ids = None
    if getattr(args, "topic_ids", None):
        from ..kafka import read_topic_ids
        check_input(args.topic_ids, "--topic-ids")
        with open(os.path.abspath(os.path.expanduser(args.topic_ids)), encoding="utf-8") as f:
            ids = read_topic_ids(f.read(), args.topic_ids)
    try:
        state = consumer_groups(records, topic_ids=ids).persist()
    except SchemaError as e:
        raise CliError(f"--records: {args.records}: {e}") from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RecordProblemWarning)
        problems = state.check()
    for w in caught:
        ctx.print(f"warning: {w.message}")
    return state, problems


def cmd_groups(args: Any, ctx: Any) -> int:
    """``groups``: the groups in a copy of ``__consumer_offsets``."""
    out = None
    if args.out:
        out = os.path.abspath(os.path.expanduser(args.out))
        if os.path.exists(out) and os.listdir(out):
            raise CliError(f"--out: {args.out} exists and is not empty; give a new folder")
    state, problems = _state(ctx, args)
    groups = state.groups.orderBy("group_id")
    shown = groups.limit(args.limit).collect() if args.limit else groups.collect()
    total = groups.count()
    ctx.print(format_table(["group", "protocol", "type", "strategy", "generation", "members"],
                           [[r.group_id, r.protocol, r.protocol_type, r.strategy or "-", r.generation, r.members]
                            for r in shown]))
    if len(shown) < total:
        ctx.print(f"... {total - len(shown)} more groups (--limit 0: all)")
    ctx.print(f"{total} groups; {problems} records not read")
    if out is not None:
        for name in FRAMES:
            getattr(state, name).write.parquet(os.path.join(out, name))
        ctx.print(f"wrote {', '.join(FRAMES)} to {out}")
    return 0


def cmd_audit(args: Any, ctx: Any) -> int:
    """``audit``: the classic groups whose leader's assignment differs from their strategy's."""
    from ..kafka import audit
    from ..core.consumer.audit import FINDINGS

    spark = ctx.runtime.session()
    topics = read_input(spark, args.topics, "--topics")
    state, _ = _state(ctx, args)
    findings = audit(state, topics).orderBy("group_id", "finding").persist()
    rows = findings.collect() if not args.limit else findings.limit(args.limit).collect()
    per_finding = Counter({r.finding: r.n for r in findings.groupBy("finding").count()
                           .withColumnRenamed("count", "n").collect()})
    groups = findings.select("group_id").distinct().count()
    audited = state.groups.where("protocol = 'classic' AND protocol_type = 'consumer'").count()
    table: List[List[Any]] = [[r.group_id, r.strategy or "-", r.generation, r.finding, r.partitions, r.example]
                              for r in rows]
    if table:
        ctx.print(format_table(["group", "strategy", "generation", "finding", "partitions", "example"], table))
    shown = sum(per_finding.values())
    if len(rows) < shown:
        ctx.print(f"... {shown - len(rows)} more findings (--limit 0: all)")
    summary = ", ".join(f"{kind} {per_finding[kind]}" for kind in FINDINGS if kind in per_finding) or "none"
    ctx.print(f"audited {audited} classic consumer groups: {groups} differ from their strategy ({summary})")
    return 1 if groups and args.fail else 0

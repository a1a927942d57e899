"""``spark-assign what-if``: named scenarios against a state table, each a dry run, nothing written.

See :mod:`spark_assign.state.consumer.whatif` for the scenarios and what the figures mean.
"""

from __future__ import annotations

import os
import textwrap
import time
from typing import List, Optional

from ..core import get_strategy
from ..errors import InvalidInputError, NeedsSparkError
from .driver_path import Path, choose_path
from .inputs import check_rebalance_inputs, read_rebalance_inputs, rebalance_strategy
from .runtime import CliError, output_file, require_table
from .tables import format_seconds, format_table

__all__ = ["cmd_what_if", "default_scenarios"]


def default_scenarios(strategy: Optional[str]) -> List[str]:
    """Without ``--scenario``: a member restarts, a member leaves, and the switches a group of
    ``strategy`` would consider: to ``cooperative-sticky`` (KIP-429) and to KIP-848's ``uniform``
    (both when each group keeps its own strategy: ``strategy`` None)."""
    name = get_strategy(strategy).name if strategy is not None else None
    return ["restart", "leave"] + [f"strategy:{s}" for s in ("cooperative-sticky", "uniform") if s != name]


def cmd_what_if(args, ctx) -> int:
    """``what-if``: per scenario, the groups it changes, what moves and what pauses."""
    from ..state import AssignmentTable
    from ..state.consumer.whatif import BASELINE, Scenario, summarize, what_if, what_if_in_driver

    strategy = rebalance_strategy(args).name if args.strategy is not None else None
    try:
        scenarios = [Scenario.parse(text) for text in (args.scenario or default_scenarios(strategy))]
    except InvalidInputError as e:
        raise CliError(f"--scenario: {e.problem}") from None
    check_rebalance_inputs(args)
    location = require_table(args.table)
    report = output_file(args.report, "--report") if args.report else None
    path = choose_path(args)
    began = time.perf_counter()
    figures = None
    if path.inputs is not None:
        try:
            figures = what_if_in_driver(location, path.inputs.subscriptions, path.inputs.topics, strategy, scenarios)
        except NeedsSparkError as e:                 # found before anything ran
            path = Path(None, e.reason)
    if figures is None:
        spark = ctx.runtime.session()
        subscriptions, topics, weights = read_rebalance_inputs(spark, args)
        table = AssignmentTable(spark, location)
        figures = what_if(table, subscriptions, topics, strategy, scenarios, weights=weights)
    labels = [BASELINE] + [s.name for s in scenarios]
    summary = summarize(figures, labels, top=args.top)
    rows = [[s["scenario"], s["groups"], s["moved"], s["revoked"], s["new"], s["paused"], s["rebalances"],
             ", ".join(s["most_paused"])] for s in summary]
    under = strategy or "each group's own strategy"
    context = f"against {os.path.abspath(os.path.expanduser(location))} (dry runs under {under}; nothing written"
    ctx.print(f"What if, {context}, {format_seconds(time.perf_counter() - began)}):")
    ctx.print(format_table(["scenario", "groups changed", "moved", "revoked", "new", "paused", "rebalances",
                            "groups pausing most"], rows))
    ctx.print()
    ctx.print(textwrap.fill(
        f"'{BASELINE}': the inputs without an event; its changes are in every scenario's figures too. "
        "paused: partitions not consumed during the rebalance (eager: all the group owned; cooperative and "
        "KIP-848: those changing owner). rebalances: until the group settles (2 when a cooperative rebalance "
        "revokes: the follow-up assigns them). A static member's restart rebalances nothing (KIP-345).", 100))
    ctx.print(path.line)
    if report:
        from ..report.consumer.whatif import render_what_if_html

        events = {BASELINE: "the inputs as given, no event", **{s.name: s.description for s in scenarios}}
        render_what_if_html(figures, summary, events, f"What if: {os.path.basename(location.rstrip('/'))}",
                            f"What if, {context}).", report)
        ctx.print(f"Report: {report}")
    return 0

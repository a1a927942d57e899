"""The ``spark-assign`` argument parser: subcommands, their flags, and one-line usage errors."""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, NoReturn, Optional, Union

from ..scenario import LAG_MODES, SUBSCRIPTION_MODES
from .commands import DEMO_SCENARIO, DEMO_STRATEGIES
from .simulate import DEFAULT_STRATEGIES

__all__ = ["build_parser", "UsageError", "parse_conf"]

DESCRIPTION = """\
Kafka partition assignment for fleets of consumer groups, on Spark, with every
generation kept in a Delta table. Start with `spark-assign demo`."""

EPILOG = """\
Run `spark-assign <command> --help` for a command's flags; the guide is docs/cli.md.
Exit status: 0 success, 2 bad command line or input, 1 unexpected failure."""


class UsageError(Exception):
    """A command-line mistake found by argparse (shown as one line, exit status 2)."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def _positive(text: str) -> int:
    value = _count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


#: Byte units ``--throttle`` and ``--max-bytes-per-stage`` accept (binary and decimal).
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def _bytes(text: str) -> int:
    """A byte count: an integer with an optional unit (``50MiB``, ``200GB``, ``1048576``)."""
    stripped = text.strip()
    digits = stripped.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ").strip()
    unit = stripped[len(digits):].strip().lower() if digits else ""
    try:
        value = float(digits) * _UNITS[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"must be bytes such as 1048576, 50MiB or 200GB, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte, got {text!r}")
    return int(value)


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a non-negative number, got {text!r}")
    return value


def _topics(text: str) -> Union[int, Dict[str, int]]:
    """``--topics``: a number of topics, or ``orders=12,payments=6``."""
    if "=" not in text:
        return _positive(text)
    out: Dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, count = part.partition("=")
        name = name.strip()
        if not name or not count.strip().isdigit():
            raise argparse.ArgumentTypeError(f"expected a number or NAME=PARTITIONS,..., got {text!r}")
        out[name] = int(count)
    return out


def _conf(text: str) -> str:
    if "=" not in text or not text.split("=", 1)[0].strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text


def parse_conf(values: Optional[List[str]]) -> Dict[str, str]:
    """``--conf KEY=VALUE`` values as a dict."""
    return dict((k.strip(), v) for k, v in (item.split("=", 1) for item in values or []))


def _common() -> _Parser:
    common = _Parser(add_help=False)
    group = common.add_argument_group("output and Spark")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="show Spark's console output and, on errors, the Python traceback")
    group.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    group.add_argument("--master", default="local[2]", metavar="URL",
                       help="Spark master of the session started here (default: %(default)s); "
                            "an active session is reused")
    group.add_argument("--conf", action="append", type=_conf, metavar="KEY=VALUE",
                       help="a Spark setting for the session started here (repeatable)")
    return common


def _scenario_flags(parser: argparse.ArgumentParser, defaults: Optional[Dict[str, Any]] = None) -> None:
    """The Scenario flags. Defaults are None (= not given) so that a scenario file can fill them."""
    d = defaults or {}

    def shown(name: str, fallback: str) -> str:
        return f" (default: {d[name]})" if name in d else fallback

    g = parser.add_argument_group("scenario (see docs/cli.md)")
    g.add_argument("--groups", type=_positive, metavar="N", help="consumer groups" + shown("groups", " (default: 1)"))
    g.add_argument("--members", type=_count, metavar="N", help="members per group at first" + shown("members", " (default: 6)"))
    g.add_argument("--topics", type=_topics, metavar="N|NAME=P,...",
                   help="a number of topics t0, t1, ..., or named topics with partition counts"
                        + shown("topics", " (default: 2)"))
    g.add_argument("--partitions", type=_count, metavar="N", help="partitions per topic when --topics is a number"
                   + shown("partitions", " (default: 6)"))
    g.add_argument("--generations", type=_positive, metavar="N", help="generations, the first being the initial fleet"
                   + shown("generations", " (default: 5)"))
    g.add_argument("--joins", type=_count, metavar="N", help="members joining each group before each later generation"
                   + shown("joins", " (default: 0)"))
    g.add_argument("--leaves", type=_count, metavar="N", help="members leaving each group before each later generation"
                   + shown("leaves", " (default: 0)"))
    g.add_argument("--crashes", type=_count, metavar="N", help="members crashing per group and generation; a static member "
                   "restarts with a new member id" + shown("crashes", " (default: 0)"))
    g.add_argument("--partition-growth", type=_count, dest="partition_growth", metavar="N",
                   help="partitions added to random topics before each later generation"
                   + shown("partition_growth", " (default: 0)"))
    g.add_argument("--static-share", type=_share, dest="static_share", metavar="SHARE",
                   help="share of members with a group.instance.id (0 to 1)" + shown("static_share", " (default: 0)"))
    g.add_argument("--racks", type=_count, metavar="N", help="racks of members and partition replicas (0: none)"
                   + shown("racks", " (default: 0)"))
    g.add_argument("--subscription", choices=SUBSCRIPTION_MODES,
                   help="uniform: every member subscribes to every topic; mixed: random subsets"
                   + shown("subscription", " (default: uniform)"))
    g.add_argument("--seed", type=_count, metavar="N", help="random seed; the same seed gives the same fleet"
                   + shown("seed", " (default: 0)"))
    w = parser.add_argument_group("load: per-partition lag for the load-aware strategies (see docs/cli.md)")
    w.add_argument("--lag", choices=LAG_MODES, help="none: no weights; zipf: Zipf-distributed lag per partition, "
                   "drifting over generations" + shown("lag", " (default: none)"))
    w.add_argument("--lag-skew", type=_number, dest="lag_skew", metavar="S", help="Zipf exponent, > 1 (default: 1.5)")
    w.add_argument("--lag-drift", type=_number, dest="lag_drift", metavar="SIGMA",
                   help="log-normal drift of the lag per generation (default: 0.05)")
    w.add_argument("--hot-partition-at", type=_count, dest="hot_partition_at", metavar="GEN",
                   help="from this generation one partition per group is hot (default: 0, never)")
    w.add_argument("--hot-factor", type=_number, dest="hot_factor", metavar="X",
                   help="the hot partition's extra lag, in mean partition lags (default: 20)")
    w.add_argument("--stall-at", type=_count, dest="stall_at", metavar="GEN",
                   help="from this generation one member per group stalls: its partitions' lag grows "
                        "(default: 0, never)")
    w.add_argument("--stall-growth", type=_number, dest="stall_growth", metavar="X",
                   help="extra lag per generation on a stalled member's partition, in its own lag (default: 2)")


def _strategy_flags(parser: argparse.ArgumentParser, default: tuple) -> None:
    g = parser.add_argument_group("strategies")
    g.add_argument("--strategy", action="append", metavar="NAME[,NAME...]",
                   help="strategy to simulate, repeatable or comma-separated "
                        f"(default: {', '.join(default)}); with several, group ids become <strategy>/<group>")
    g.add_argument("--follow-ups", type=_count, dest="follow_ups", metavar="N",
                   help="follow-up rebalances run at once while cooperative transfers are pending (default: 1)")
    g.add_argument("--title", help="the report's title")
    _knob_flags(g)


def _assume_flag(g) -> None:
    from ..kafka.groups import ASSUMPTIONS

    g.add_argument("--assume-subscriptions", choices=ASSUMPTIONS, default="group", dest="assume_subscriptions",
                   help="with --subscriptions given as kafka-consumer-groups --describe --members --verbose "
                        "text (.txt), which lists no subscriptions: every member subscribes to every topic its "
                        "group holds (group, the default), or to the topics it holds (assigned)")


def _knob_flags(g) -> None:
    """The load-aware knobs (docs/load-aware.md)."""
    g.add_argument("--max-count-skew", type=_positive, dest="max_count_skew", metavar="N",
                   help="load-aware: partition counts of members with the same subscriptions differ by at most N "
                        "(default: 1)")
    g.add_argument("--min-improvement", type=_number, dest="min_improvement", metavar="R",
                   help="load-aware: move partitions only to lower the heaviest load by more than this share "
                        "(default: 0.05)")


def _replicas(sub, common: argparse.ArgumentParser) -> None:
    """``replicas place``, ``replicas resume`` and ``replicas history``."""
    from ..core.replicas.model import RACK_AWARE_MODES

    replicas = sub.add_parser("replicas", help="place and reassign Kafka replicas on brokers",
                              description="Place topics' replicas on brokers as Kafka does, reassign them with few\n"
                                          "moves, and keep every placement in a Delta table (docs/replicas.md).",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = replicas.add_subparsers(dest="replicas_command", metavar="<action>", title="actions", required=True)
    place = actions.add_parser(
        "place", help="a placement or reassignment; optionally committed to a replica table", parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Place --topics on --brokers. With --current (the current assignment: Kafka's reassignment\n"
                    "JSON, kafka-reassign-partitions' or kafka-topics --describe's output) or --table (a replica table: its latest generation), reassign the current\n"
                    "placement. --json writes the reassignment for kafka-reassign-partitions --execute.")
    place.add_argument("--topics", metavar="PATH|TABLE|NAME=P,...",
                       help="rows (topic, num_partitions[, replication_factor, cluster_id]), or inline: "
                            "orders=12,payments=6; default with --current: its topics")
    place.add_argument("--brokers", required=True, metavar="PATH|TABLE|ID[:RACK],...",
                       help="rows (broker_id[, rack, fenced, cluster_id]), or inline: 1:az-a,2:az-b,3:az-a")
    place.add_argument("--replication-factor", type=_positive, dest="replication_factor", metavar="N",
                       help="replicas per partition of topics without a replication_factor value")
    place.add_argument("--method", default="striped", metavar="NAME",
                       help="placement of new topics: striped (KRaft, default) or admin-utils")
    place.add_argument("--reassign", default="sticky", metavar="NAME|none",
                       help="reassignment of topics that have replicas: sticky (default, few moves), or none "
                            "to place them again with --method")
    place.add_argument("--seed", type=_count, default=0, metavar="N", help="random seed (default: 0)")
    place.add_argument("--start-index", type=_count, dest="start_index", metavar="N",
                       help="admin-utils: Kafka's fixed start index")
    place.add_argument("--rack-aware", choices=RACK_AWARE_MODES, dest="rack_aware",
                       help="Kafka's rack-aware mode (default: enforced)")
    place.add_argument("--current", metavar="FILE",
                       help="the current assignment: the JSON kafka-reassign-partitions prints and takes, the whole "
                            "output of its --generate or --execute, or the output of kafka-topics --describe")
    place.add_argument("--table", metavar="PATH|TABLE", help="a replica table to commit the placement to")
    place.add_argument("--cluster", metavar="ID", help="with --table and --json: the cluster to write")
    place.add_argument("--json", metavar="FILE|-",
                       help="write the reassignment JSON (partitions whose replicas change) there; - for stdout")
    place.add_argument("--stages", metavar="DIR",
                       help="write the reassignment as safe stages there: stage-NN.json for kafka-reassign-partitions, "
                            "leaders.json for kafka-leader-election, plan.json (needs --current or --table)")
    _stage_options(place, "with --stages: ")
    _load_options(place)
    place.add_argument("--limit", type=_count, default=50, metavar="N",
                       help="brokers to list (default: %(default)s; 0: all)")
    resume = actions.add_parser(
        "resume", help="an interrupted staged reassignment: its progress, and the stages left", parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read a --stages folder beside the placement now (--current: kafka-topics --describe or any\n"
                    "form place --current takes): each stage's partitions done, the stage the plan is at, and the\n"
                    "partitions left staged again from where they are into DIR/resume (caps and throttle: the\n"
                    "plan's unless given). No Spark.")
    resume.add_argument("--stages", required=True, metavar="DIR", help="the folder replicas place --stages wrote")
    resume.add_argument("--current", required=True, metavar="FILE", help="the placement now")
    _stage_options(resume, "")
    his = actions.add_parser("history", help="a replica table's commits, or one cluster's generations",
                             parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
                             description="Without --cluster: one line per commit of the replica table.\n"
                                         "With --cluster: the cluster's generations, moves and balance.")
    his.add_argument("--table", required=True, metavar="PATH|TABLE", help="the replica table")
    his.add_argument("--cluster", metavar="ID", help="one cluster (default without cluster ids: 'default')")


def _load_options(parser: argparse.ArgumentParser) -> None:
    """The loads ``replicas place`` balances with the ``sticky`` reassignment (Cruise Control's goals)."""
    parser.add_argument("--loads", metavar="PATH|TABLE",
                        help="per-partition loads to balance: rows (topic, partition and numeric columns such as "
                             "size_bytes, bytes_in, bytes_out; the brokers' capacity_<load> columns bound them); "
                             "needs --current and --reassign sticky")
    parser.add_argument("--balance-sizes", action="store_true", dest="balance_sizes",
                        help="balance disk: the partition sizes of --sizes (kafka-log-dirs --describe) as the load "
                             "size_bytes")
    parser.add_argument("--threshold", type=_share, metavar="T",
                        help="with loads: each broker's load within T of its level (default: 0.1, Cruise Control's)")
    parser.add_argument("--max-replicas-per-broker", type=_positive, dest="max_replicas_per_broker", metavar="N",
                        help="with loads: no broker above N replicas (a hard goal)")


def _stage_options(parser: argparse.ArgumentParser, prefix: str) -> None:
    """The caps, throttle and sizes of a staged reassignment (``place --stages``, ``resume``); without
    a value, ``--max-moves-per-broker`` is left to the caller (5, Cruise Control's, or the plan's)."""
    parser.add_argument("--max-moves-per-broker", type=_positive, dest="max_moves_per_broker", metavar="N",
                        help=f"{prefix}replicas any broker gains or loses per stage (default: 5, Cruise Control's)")
    parser.add_argument("--max-bytes-per-stage", type=_bytes, dest="max_bytes_per_stage", metavar="BYTES",
                        help=f"{prefix}bytes copied per stage at most (e.g. 200GiB; needs --sizes)")
    parser.add_argument("--throttle", type=_bytes, metavar="BYTES",
                        help=f"{prefix}the replication throttle per broker, bytes/s (e.g. 50MiB), passed to each stage "
                             "and used for the estimated duration (needs --sizes)")
    parser.add_argument("--sizes", metavar="FILE",
                        help=f"{prefix}partition sizes, the output of kafka-log-dirs --describe")


def build_parser() -> argparse.ArgumentParser:
    """The ``spark-assign`` parser with all its subcommands."""
    from .. import __version__

    parser = _Parser(prog="spark-assign", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, max_help_position=20))
    parser.add_argument("--version", action="version", version=f"spark-assign {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>", title="commands")
    common = _common()

    def add(name: str, help_text: str, description: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=description, parents=[common],
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    demo = add("demo", "a small simulated fleet: summary and HTML report",
               "Simulate a small fleet of consumer groups with churn under sticky and cooperative-sticky,\n"
               "commit every generation to a Delta table in --path, print a summary and write\n"
               "--path/report.html. Reruns replace the demo's table.")
    demo.add_argument("--path", default="spark-assign-demo", metavar="DIR",
                      help="folder for the table (DIR/table) and the report (DIR/report.html); "
                           "default: ./%(default)s")
    _scenario_flags(demo, DEMO_SCENARIO)
    _strategy_flags(demo, DEMO_STRATEGIES)

    sim = add("simulate", "a scenario over generations, committed to a Delta table",
              "Run a scenario (from flags, or --scenario FILE with flags overriding it) for one or more\n"
              "strategies; each generation of each strategy is one commit to --table.")
    sim.add_argument("--scenario", metavar="FILE", help="scenario settings in a .json or .yaml file")
    sim.add_argument("--table", required=True, metavar="PATH", help="folder of the new Delta state table")
    sim.add_argument("--overwrite", action="store_true", help="replace an existing Delta table at --table")
    sim.add_argument("--report", metavar="FILE.html", help="also write the HTML report there")
    _scenario_flags(sim)
    _strategy_flags(sim, DEFAULT_STRATEGIES)

    reb = add("rebalance", "one generation of real inputs into the state table",
              "Compute the next generation of every group whose inputs changed and commit it.\n"
              "Inputs: a Delta folder, a .parquet/.csv/.json file or folder, or a catalog table name;\n"
              "--topics also takes NAME=PARTITIONS,... inline; a .txt file is the text of Kafka's tools:\n"
              "kafka-consumer-groups --describe --members --verbose (--subscriptions),\n"
              "kafka-topics --describe (--topics).")
    reb.add_argument("--subscriptions", required=True, metavar="PATH|TABLE",
                     help="rows (group_id, member_id, topic[, group_instance_id, rack, owned_partitions, generation])")
    reb.add_argument("--topics", required=True, metavar="PATH|TABLE|NAME=P,...",
                     help="rows (topic, num_partitions), or inline: orders=12,payments=6")
    reb.add_argument("--table", required=True, metavar="PATH|TABLE", help="the state table (created if absent)")
    reb.add_argument("--strategy", required=True, metavar="NAME",
                     help="the strategy; changing it recomputes every group")
    reb.add_argument("--strategies", metavar="FILE.txt",
                     help="each group's own strategy: the text of kafka-consumer-groups --describe --state "
                          "(--all-groups); the groups it names run theirs (one commit per strategy), the others "
                          "--strategy")
    reb.add_argument("--weights", metavar="PATH|TABLE",
                     help="rows (topic, partition, weight[, group_id]): per-partition load (lag, bytes/s) of this "
                          "run; needed by load-aware, cooperative-load-aware and lag-based")
    _assume_flag(reb)
    _knob_flags(reb)
    reb.add_argument("--limit", type=_count, default=20, metavar="N",
                     help="recomputed groups to list (default: %(default)s; 0: all)")
    reb.add_argument("--dry-run", action="store_true", dest="dry_run",
                     help="compute and show the next generation without writing it (a what-if; the table, "
                          "if any, is left as it is)")
    reb.add_argument("--spark", action="store_true",
                     help="go through Spark even for a small input (by default up to 50,000 subscription rows "
                          "on a local table are rebalanced in this process, without starting Spark)")

    wif = add("what-if", "named scenarios against a state table, as dry runs: what moves, what pauses",
              "For each scenario, change the inputs as the event would and run the table's next rebalance\n"
              "as a dry run (nothing is written): per scenario the groups it changes, partitions moved,\n"
              "revoked and paused, and the rebalances until they settle. Every group gets the event.\n"
              "Scenarios: restart (each group's first member restarts), leave (it leaves for good),\n"
              "add-partitions:TOPIC=N, strategy:NAME, rack-down:RACK.")
    wif.add_argument("--subscriptions", required=True, metavar="PATH|TABLE",
                     help="the groups' members now, as for rebalance")
    wif.add_argument("--topics", required=True, metavar="PATH|TABLE|NAME=P,...", help="topic metadata, as for rebalance")
    wif.add_argument("--table", required=True, metavar="PATH|TABLE", help="the state table the events start from")
    wif.add_argument("--strategy", metavar="NAME",
                     help="the groups' strategy now, for all of them (default: each group's own, the strategy of "
                          "its latest generation in --table)")
    wif.add_argument("--weights", metavar="PATH|TABLE", help="per-partition weights, as for rebalance")
    _assume_flag(wif)
    wif.add_argument("--scenario", action="append", metavar="SPEC",
                     help="repeatable; default: restart, leave, and switches to cooperative-sticky and uniform")
    wif.add_argument("--top", type=_count, default=3, metavar="N",
                     help="groups named per scenario, those pausing most (default: %(default)s)")
    wif.add_argument("--report", metavar="FILE",
                     help="also write the scenarios as a self-contained HTML page (moved and paused per scenario)")
    wif.add_argument("--spark", action="store_true",
                     help="go through Spark even for a small input (see rebalance --spark)")

    his = add("history", "a table's commits, or one group's generations and what moved",
              "Without --group: one line per commit (rebalance) of the table.\n"
              "With --group: the group's generations and every partition that moved, was revoked or assigned.")
    his.add_argument("--table", required=True, metavar="PATH|TABLE", help="the state table")
    his.add_argument("--group", metavar="GROUP_ID", help="one group")
    his.add_argument("--limit", type=_count, default=50, metavar="N",
                     help="partition changes to list (default: %(default)s; 0: all)")

    dif = add("diff", "what moved between two generations",
              "Partitions whose owner differs between generation --from and --to (each group at its latest\n"
              "generation not after that number): per group for the fleet, per partition for --group.")
    dif.add_argument("--table", required=True, metavar="PATH|TABLE", help="the state table")
    dif.add_argument("--from", dest="from_generation", type=_count, required=True, metavar="N",
                     help="the earlier generation")
    dif.add_argument("--to", dest="to_generation", type=_count, required=True, metavar="M",
                     help="the later generation")
    dif.add_argument("--group", metavar="GROUP_ID", help="one group")
    dif.add_argument("--limit", type=_count, default=50, metavar="N", help="lines to list (default: %(default)s; 0: all)")

    _replicas(sub, common)

    grp = add("groups", "the consumer groups in a copy of __consumer_offsets",
              "Read Kafka's __consumer_offsets records (a copy saved from Spark's Kafka source: Parquet,\n"
              "Delta or JSON with binary key and value, partition and offset; or a catalog table) and list\n"
              "every group: protocol, strategy, generation, members. --out writes the frames as Parquet\n"
              "folders (groups, subscriptions, assignment, offsets, problems); subscriptions is\n"
              "rebalance --subscriptions' input as it is.")
    grp.add_argument("--records", required=True, metavar="PATH|TABLE", help="the records (key, value, partition, offset)")
    grp.add_argument("--out", metavar="DIR", help="write the frames as Parquet folders here (a new folder)")
    grp.add_argument("--topic-ids", dest="topic_ids", metavar="FILE.txt",
                     help="kafka-topics --describe text: the topics' ids, for KIP-848 groups of Kafka 4.1+ "
                          "(their records name topics by id only)")
    grp.add_argument("--limit", type=_count, default=50, metavar="N", help="groups to list (default: %(default)s; 0: all)")

    aud = add("audit", "classic groups whose leader's assignment differs from their strategy's",
              "For every classic consumer group in a copy of __consumer_offsets, recompute the assignment\n"
              "its strategy gives for the same subscriptions and claims, and list how the leader's differs:\n"
              "owned twice, unowned, unsubscribed, not sticky, unbalanced, differs (Kafka's four client\n"
              "assignors are reproduced exactly; a custom one is held to the properties).")
    aud.add_argument("--records", required=True, metavar="PATH|TABLE", help="the records (key, value, partition, offset)")
    aud.add_argument("--topics", required=True, metavar="PATH|TABLE|NAME=P,...",
                     help="the topics' partition counts: rows (topic, num_partitions), kafka-topics --describe "
                          "text, or inline orders=12,payments=6")
    aud.add_argument("--limit", type=_count, default=50, metavar="N",
                     help="findings to list (default: %(default)s; 0: all)")
    aud.add_argument("--fail", action="store_true", help="exit with status 1 when a group differs (for checks in CI)")

    rep = add("report", "the self-contained HTML report of a table",
              "Render every generation of the table as one HTML file (inline SVG charts, no network);\n"
              "a replica table (spark-assign replicas --table) gets the replica report.")
    rep.add_argument("--table", required=True, metavar="PATH|TABLE", help="the state table")
    rep.add_argument("--out", required=True, metavar="FILE.html", help="where to write the report")
    rep.add_argument("--title", help="the page title")
    rep.add_argument("--top", type=_positive, default=25, metavar="N",
                     help="groups listed with their latest assignment (default: %(default)s)")
    return parser

"""Simulations for the ``simulate`` and ``demo`` commands: a scenario, rebalanced into a state table.

A :class:`Plan` is a :class:`~spark_assign.scenario.Scenario` plus the
strategies to run it under. :func:`run_plan` walks the scenario's generations;
for each generation and strategy it builds the subscriptions of every group
and calls :meth:`AssignmentTable.rebalance <spark_assign.state.AssignmentTable.rebalance>`,
which commits one Delta version. When a rebalance leaves cooperative
transfers pending, up to ``follow_ups`` follow-up rebalances run at once with
the same members, as Kafka's consumers rejoin right after revoking.

With more than one strategy, each strategy's groups get their own ids in the
one table: ``<strategy>/<group>`` (``sticky/g03``), since a group has one
strategy at a time.

With ``lag: zipf`` the partitions carry weights that drift from generation to
generation (:class:`~spark_assign.scenario.LagModel`): every rebalance gets
them (the load-aware strategies balance them, the others store them), and
the lag of a stalled member's partitions grows with what each strategy gave it.
Each step then re-plans every group (``force``): a strategy that keeps its
partitions where they are still gets a generation, so the table (and the
report) measures every strategy's load at every step under that step's lag.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..core import DEFAULT_STRATEGY, get_strategy
from ..core.consumer.weights import check_load_options
from ..errors import InvalidInputError, SparkAssignError
from ..report.consumer.load import load_balance
from ..report.consumer.metrics import balance
from ..scenario import Generation, LagModel, Scenario, generate
from .runtime import CliError, Progress
from .tables import format_seconds, format_table

__all__ = ["Plan", "SCENARIO_KEYS", "load_scenario_file", "make_plan", "parse_strategies", "run_plan",
           "summary_table", "summary_legend", "DEFAULT_STRATEGIES"]

#: Strategies of ``simulate`` when neither the flags nor the scenario file name any.
DEFAULT_STRATEGIES = (DEFAULT_STRATEGY,)

#: Keys of a scenario file that are :class:`Scenario` fields.
SCENARIO_KEYS = tuple(f.name for f in fields(Scenario))
#: Other keys a scenario file may hold.
PLAN_KEYS = ("strategies", "follow_ups", "title", "max_count_skew", "min_improvement")
#: The load-aware knobs among them (docs/load-aware.md).
KNOB_KEYS = ("max_count_skew", "min_improvement")

SUBSCRIPTIONS_DDL = "group_id string, member_id string, topic string, group_instance_id string, rack string"
WEIGHTS_DDL = "group_id string, topic string, partition int, weight double"
TOPICS_DDL = "topic string, num_partitions int, replica_racks array<array<string>>"


@dataclass
class Plan:
    """A scenario and how to run it: ``strategies`` in order, ``follow_ups`` per cooperative rebalance."""

    scenario: Scenario
    strategies: List[str]
    follow_ups: int = 1
    title: Optional[str] = None
    knobs: Dict[str, Any] = field(default_factory=dict)     # max_count_skew, min_improvement

    def group_id(self, strategy: str, group: str) -> str:
        """The table's id of ``group`` under ``strategy``: prefixed when several strategies share the table."""
        return f"{strategy}/{group}" if len(self.strategies) > 1 else group

    def scenario_group(self, strategy: str, group_id: str) -> str:
        """The scenario's group of the table's ``group_id`` (see :meth:`group_id`)."""
        prefix = f"{strategy}/"
        return group_id[len(prefix):] if len(self.strategies) > 1 and group_id.startswith(prefix) else group_id

    def describe(self) -> str:
        """One line: the fleet, its churn and the strategies."""
        s = self.scenario
        topics = s.topic_counts()
        sizes = sorted(set(topics.values()))
        shape = f"{_plural(len(topics), 'topic')} x {_plural(sizes[0], 'partition')}" if len(sizes) == 1 else \
            f"{_plural(len(topics), 'topic')} ({_plural(sum(topics.values()), 'partition')})"
        churn = [f"{n} {one if n == 1 else many}"
                 for n, one, many in ((s.joins, "join", "joins"), (s.leaves, "leave", "leaves"),
                                      (s.crashes, "crash", "crashes"),
                                      (s.partition_growth, "new partition", "new partitions")) if n]
        lag = "" if s.lag == "none" else (
            f"; Zipf lag drifting {s.lag_drift:g} per generation"
            + (f", a hot partition from generation {s.hot_partition_at}" if s.hot_partition_at else "")
            + (f", a member stalling from generation {s.stall_at}" if s.stall_at else ""))
        return (f"{_plural(s.groups, 'group')} x {_plural(s.members, 'member')}, {shape}, "
                f"{_plural(s.generations, 'generation')}"
                + (f" ({', '.join(churn)} per generation)" if churn else "")
                + f"{lag}; strategies: {', '.join(self.strategies)}")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def parse_strategies(values: Optional[Sequence[str]]) -> Optional[List[str]]:
    """``--strategy`` values (repeatable, comma lists allowed) as canonical names, in order, without repeats.

    Unknown names raise :class:`~spark_assign.errors.UnknownStrategyError`
    (listing the valid ones) before any Spark work. None when none were given.
    """
    if not values:
        return None
    names: List[str] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            name = get_strategy(part).name
            if name not in names:
                names.append(name)
    if not names:
        raise CliError("--strategy: give at least one strategy name")
    return names


def load_scenario_file(path: str) -> Dict[str, Any]:
    """The settings in a JSON or YAML scenario file (see docs/cli.md), checked for unknown keys.

    Keys may use ``-`` or ``_`` (``partition-growth`` = ``partition_growth``).
    Raises :class:`CliError` for a missing or unreadable file, bad syntax, a
    document that is not a mapping, or an unknown key.
    """
    file = Path(path).expanduser()
    if file.is_dir():
        raise CliError(f"--scenario: {path} is a folder; give a .json or .yaml file")
    if not file.is_file():
        raise CliError(f"--scenario: no such file: {path}")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CliError(f"--scenario: {path} is not a UTF-8 text file") from None
    except OSError as e:
        raise CliError(f"--scenario: cannot read {path}: {e.strerror or e}") from None
    suffix = file.suffix.lower()
    if suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise CliError(f"--scenario: {path} is YAML, and PyYAML is not installed (pip install pyyaml), "
                           "or write the scenario as JSON") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            where = getattr(e, "problem_mark", None)
            at = f" at line {where.line + 1}" if where is not None else ""
            raise CliError(f"--scenario: {path} is not valid YAML{at}: {getattr(e, 'problem', None) or e}") from None
    elif suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CliError(f"--scenario: {path} is not valid JSON: {e.msg} at line {e.lineno}, "
                           f"column {e.colno}") from None
    else:
        raise CliError(f"--scenario: {path}: expected a .json, .yaml or .yml file")
    if data is None:
        raise CliError(f"--scenario: {path} is empty; write settings such as 'groups: 10'")
    if not isinstance(data, Mapping):
        raise CliError(f"--scenario: {path} must hold a mapping of settings, got {type(data).__name__}")
    settings: Dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name not in SCENARIO_KEYS + PLAN_KEYS:
            raise CliError(f"--scenario: {path}: unknown setting {key!r}; valid settings are: "
                           f"{', '.join(SCENARIO_KEYS + PLAN_KEYS)}")
        settings[name] = value
    return settings


def make_plan(file_settings: Mapping[str, Any], flags: Mapping[str, Any], strategies: Optional[List[str]],
              defaults: Optional[Mapping[str, Any]] = None,
              default_strategies: Sequence[str] = DEFAULT_STRATEGIES) -> Plan:
    """A :class:`Plan` from, in increasing priority: ``defaults``, the scenario file, the flags given.

    ``flags`` holds Scenario fields (None: not given) and may hold ``follow_ups``
    and ``title``. Scenario errors become :class:`CliError` naming the setting.
    """
    values: Dict[str, Any] = dict(defaults or {})
    values.update({k: v for k, v in file_settings.items() if k in SCENARIO_KEYS})
    values.update({k: v for k, v in flags.items() if k in SCENARIO_KEYS and v is not None})
    topics = values.get("topics")
    if topics is not None and not isinstance(topics, (int, Mapping)):
        raise CliError(f"bad scenario: topics must be a number of topics or a mapping of topic names to "
                       f"partition counts, got {topics!r}")
    try:
        scenario = Scenario(**values)
    except InvalidInputError as e:
        got = f", got {e.rows[0]!r}" if e.rows else ""
        raise CliError(f"bad scenario: {e.problem}{got}") from None
    except (SparkAssignError, TypeError) as e:  # TypeError: e.g. a topics mapping that is a list
        raise CliError(f"bad scenario: {e}") from None
    names = strategies
    if names is None and file_settings.get("strategies") is not None:
        listed = file_settings["strategies"]
        if isinstance(listed, str):
            listed = [listed]
        if not isinstance(listed, (list, tuple)):
            raise CliError("bad scenario: strategies must be a list of strategy names")
        names = parse_strategies([str(s) for s in listed])
    follow_ups = flags.get("follow_ups")
    if follow_ups is None:
        follow_ups = file_settings.get("follow_ups", 1)
    if isinstance(follow_ups, bool) or not isinstance(follow_ups, int) or follow_ups < 0:
        raise CliError(f"bad scenario: follow_ups must be a non-negative integer, got {follow_ups!r}")
    title = flags.get("title") or file_settings.get("title")
    if title is not None and not isinstance(title, str):
        raise CliError("bad scenario: title must be a string")
    knobs = {k: v for k in KNOB_KEYS
             for v in (flags.get(k) if flags.get(k) is not None else file_settings.get(k),) if v is not None}
    try:
        check_load_options(knobs)
    except InvalidInputError as e:
        raise CliError(f"bad scenario: {e.problem}, got {e.rows[0]!r}") from None
    names = list(names or default_strategies)
    weighted = [n for n in names if get_strategy(n).weighted]
    if weighted and scenario.lag == "none":
        raise CliError(f"bad scenario: {', '.join(weighted)} balance per-partition weights; give the partitions "
                       "a load with lag: zipf (--lag zipf)")
    return Plan(scenario, names, follow_ups, title, knobs)


@dataclass
class StepResult:
    """One rebalance of the simulation: what the table did, and the balance of the groups it recomputed."""

    generation: int
    strategy: str
    follow_up: int
    events: str
    groups: int
    summary: Dict[str, int] = field(default_factory=dict)
    version: Optional[int] = None
    spread_max: Optional[int] = None
    spread_mean: Optional[float] = None
    #: With weights, of the worst group: heaviest / mean load, heaviest / lower bound; and the weight moved
    #: (share of the total).
    imbalance_max: Optional[float] = None
    bound_max: Optional[float] = None
    weight_moved: Optional[float] = None
    seconds: float = 0.0
    #: The subscribed members of the groups it committed: strategy, group_id, generation, member_id (pandas).
    members: Any = None

    def get(self, key: str) -> int:
        """A count of the table's summary (0 when absent)."""
        return int(self.summary.get(key, 0) or 0)

    @property
    def paused(self) -> int:
        """Partitions not consumed during this rebalance (:meth:`~spark_assign.core.consumer.registry.Strategy.paused`)."""
        return int(get_strategy(self.strategy).paused(self.get("kept"), self.get("partitions_moved"),
                                                      self.get("revoked")))


def events_text(gen: Generation, scenario: Optional[Scenario] = None) -> str:
    """What happened before ``gen``: ``start``, or ``20 joins, 10 leaves, +2 partitions``; with the
    ``scenario``'s lag, also ``hot partition``, ``a member stalls``, or ``lag drifts``."""
    if gen.number == 1:
        return "start"
    plural = {"join": "joins", "leave": "leaves", "crash": "crashes"}
    parts = [f"{n} {kind if n == 1 else plural[kind]}" for kind, n in gen.event_counts().items() if n]
    growth = sum(gen.growth.values())
    if growth:
        parts.append(f"+{_plural(growth, 'partition')}")
    if scenario is not None and scenario.lag != "none":
        parts += [text for at, text in ((scenario.hot_partition_at, "hot partition"),
                                        (scenario.stall_at, "a member stalls")) if at == gen.number] \
            or ([] if parts else ["lag drifts"])
    return ", ".join(parts) or "no change"


def _frames(spark, plan: Plan, gen: Generation, strategy: str):
    """The subscriptions and topic metadata of ``gen`` for ``strategy``'s groups, as Spark DataFrames."""
    import pandas as pd

    rows = [(plan.group_id(strategy, g), m.member_id, t, m.group_instance_id, m.rack)
            for g, members in gen.groups.items() for m in members for t in m.topics]
    subs = spark.createDataFrame(pd.DataFrame(rows, columns=["group_id", "member_id", "topic",
                                                             "group_instance_id", "rack"]), SUBSCRIPTIONS_DDL)
    racks = gen.partition_racks()
    if racks is None:
        return subs, dict(gen.topics)
    topics = spark.createDataFrame([(t, n, racks[t]) for t, n in gen.topics.items()], TOPICS_DDL)
    return subs, topics


def _subscribed(step_rows, members: Mapping[str, List[str]], strategy: str):
    """The subscribed members of the groups in ``step_rows`` (pandas: ``group_id``, ``generation``, ...):
    a pandas DataFrame ``(strategy, group_id, generation, member_id)``, from ``members`` (per group id)."""
    import pandas as pd

    generations = step_rows.groupby("group_id")["generation"].first()
    return pd.DataFrame([(strategy, g, int(gen), m) for g, gen in generations.items() for m in members.get(g, ())],
                        columns=["strategy", "group_id", "generation", "member_id"])


def _balance(step_rows, subscribed) -> tuple:
    """(worst, mean) spread over the groups in ``step_rows`` (pandas: ``group_id``, ``member_id``), the
    members in ``subscribed`` counting even when they own nothing (see :func:`~spark_assign.report.consumer.metrics.balance`)."""
    if step_rows is None or len(step_rows) == 0:
        return None, None
    spreads = balance(step_rows, ["group_id"], subscribed)["spread"]
    return int(spreads.max()), round(float(spreads.mean()), 2)


def run_plan(spark, table, plan: Plan, progress: Progress, check_idempotent: bool = False) -> List[StepResult]:
    """Run ``plan`` into ``table`` (an :class:`AssignmentTable`); one :class:`StepResult` per rebalance.

    ``check_idempotent`` re-runs the last generation of each strategy at the
    end and raises :class:`CliError` if that committed anything (the table
    promises it does not).
    """
    results: List[StepResult] = []
    total = plan.scenario.generations
    last: Dict[str, tuple] = {}
    lag = LagModel(plan.scenario) if plan.scenario.lag != "none" else None
    owners: Dict[str, Dict[tuple, Optional[str]]] = {s: {} for s in plan.strategies}
    # One bar over the generations (each rebalance shows its own stage bar below it), on a terminal.
    with progress.bar(total, "simulate", unit="generation") as bar:
        for gen in generate(plan.scenario):
            events = events_text(gen, plan.scenario)
            for strategy in plan.strategies:
                bar.set_postfix_str(f"generation {gen.number}: {strategy}")
                subs, topics = _frames(spark, plan, gen, strategy)
                weights = None if lag is None else _weights(spark, plan, strategy,
                                                            lag.weights(gen, strategy, owners[strategy]))
                members = {plan.group_id(strategy, g): [m.member_id for m in ms] for g, ms in gen.groups.items()}
                for follow_up in range(plan.follow_ups + 1):
                    began = time.perf_counter()
                    # With lag, a step measures every group under its new lag: each is re-planned (force).
                    step = table.rebalance(subs, topics, strategy=strategy, weights=weights,
                                           force=lag is not None and follow_up == 0, **plan.knobs)
                    result = StepResult(gen.number, strategy, follow_up, events if follow_up == 0 else "follow-up",
                                        len(gen.groups), dict(step.summary), step.version)
                    if step.version is not None:
                        rows = step.rows.select("group_id", "generation", "member_id", "topic", "partition",
                                                "status", "weight").toPandas()
                        _measure(result, rows, _subscribed(rows, members, strategy))
                        for g, t, p, m in zip(rows["group_id"], rows["topic"], rows["partition"], rows["member_id"]):
                            owners[strategy][(plan.scenario_group(strategy, g), t, int(p))] = m
                    result.seconds = time.perf_counter() - began
                    results.append(result)
                    progress.say(_progress_line(result, total))
                    if result.get("revoked") == 0:
                        break
                last[strategy] = (subs, topics, weights)
            bar.update()
    if check_idempotent:
        for strategy, (subs, topics, weights) in last.items():
            began = time.perf_counter()
            step = table.rebalance(subs, topics, strategy=strategy, weights=weights, **plan.knobs)
            if step.version is not None:
                raise CliError(f"re-running the last generation of {strategy} committed version {step.version}")
            progress.say(f"[again]  {strategy:<18} re-run of generation {total}: "
                         f"{step.summary.get('groups_unchanged', 0)} groups unchanged, nothing committed "
                         f"({format_seconds(time.perf_counter() - began)})")
    return results


def _weights(spark, plan: Plan, strategy: str, lag: Mapping[str, Mapping[str, List[float]]]):
    """The lag of one generation as the weights DataFrame of ``strategy``'s groups."""
    import pandas as pd

    parts = [(plan.group_id(strategy, g), t, values) for g, topics in lag.items() for t, values in topics.items()]
    frame = pd.DataFrame({
        "group_id": [g for g, _, values in parts for _ in values],
        "topic": [t for _, t, values in parts for _ in values],
        "partition": [p for _, _, values in parts for p in range(len(values))],
        "weight": [w for _, _, values in parts for w in values]})
    return spark.createDataFrame(frame, WEIGHTS_DDL)


def _measure(result: StepResult, rows, subscribed) -> None:
    """The balance (and, with weights, the load) of the groups a step committed (``rows``: pandas)."""
    result.members = subscribed
    result.spread_max, result.spread_mean = _balance(rows, subscribed)
    if rows["weight"].notna().any():
        loads = load_balance(rows, ["group_id"], subscribed)
        result.imbalance_max = round(float(loads["imbalance"].max()), 3)
        result.bound_max = round(float(loads["vs_bound"].max()), 3)
        moving = rows["status"].isin(["moved", "revoked"])
        total = float(rows["weight"].sum())
        result.weight_moved = round(float(rows.loc[moving, "weight"].sum()) / total, 4) if total > 0 else 0.0


def _progress_line(r: StepResult, total: int) -> str:
    label = f"[gen {r.generation}/{total}]" + (" follow-up" if r.follow_up else "")
    if r.version is None:
        return f"{label} {r.strategy}: nothing changed, no commit ({format_seconds(r.seconds)})"
    return (f"{label} {r.strategy}: {r.get('groups_recomputed')}/{r.groups} groups recomputed, "
            f"{r.paused} paused, {r.get('partitions_moved')} moved, {r.get('revoked')} revoked, "
            f"{r.get('assigned')} assigned, "
            f"spread {r.spread_max if r.spread_max is not None else '-'} -> version {r.version} "
            f"({format_seconds(r.seconds)})")


SUMMARY_HEADERS = ["gen", "strategy", "events", "version", "recomputed", "paused", "moved", "revoked", "assigned",
                   "new", "kept", "spread max", "spread mean", "time"]
#: With weights, the summary adds these before ``time``.
LOAD_HEADERS = ["imbalance max", "vs bound max", "weight moved"]


def summary_table(results: Sequence[StepResult]) -> str:
    """The results as one aligned table (a line per step, strategy and follow-up), then what the columns mean.

    ``gen`` is the simulation step, the ``step`` of ``spark-assign history`` and of
    the report; a ``follow-up`` line is a cooperative follow-up of that step. The
    figures are those the report and ``history`` compute from the same rows
    (:func:`~spark_assign.report.consumer.metrics.balance`; the simulation also knows
    members owning nothing, which the rows cannot show).

    Example::

        print(summary_table(run_plan(spark, table, plan, progress)))
    """
    rows = []
    loads = any(r.imbalance_max is not None for r in results)
    for r in results:
        rows.append([r.generation, r.strategy, r.events, r.version,
                     f"{r.get('groups_recomputed')}/{r.groups}", r.paused, r.get("partitions_moved"), r.get("revoked"),
                     r.get("assigned"), r.get("new"), r.get("kept"), r.spread_max, r.spread_mean]
                    + ([r.imbalance_max, r.bound_max,
                        None if r.weight_moved is None else f"{100 * r.weight_moved:.1f}%"] if loads else [])
                    + [format_seconds(r.seconds)])
    headers = SUMMARY_HEADERS[:-1] + (LOAD_HEADERS if loads else []) + SUMMARY_HEADERS[-1:]
    return format_table(headers, rows) + "\n\n" + "\n".join(summary_legend(loads=loads))


def summary_legend(width: int = 100, loads: bool = False) -> List[str]:
    """The lines under the summary table: what ``gen``, ``follow-up`` and each count mean.

    Example::

        summary_legend()[0]   # "gen: the simulation step (the step of `spark-assign history` and of the ..."
    """
    import textwrap

    from ..report import legend_lines

    steps = ("gen: the simulation step (the step of `spark-assign history` and of the report); follow-up: a "
             "cooperative rebalance completing that step's transfers, with the same members. recomputed: groups "
             "whose inputs changed. spread max, mean: of the worst group and over the line's groups.")
    if loads:
        steps += (" imbalance max: heaviest member's load / mean load of the worst group (1 is perfect); vs bound "
                  "max: heaviest load / max(mean load, largest weight), which no assignment beats (1 is optimal); "
                  "weight moved: share of the groups' weight on partitions that changed owner.")
    return textwrap.wrap(steps, width=width) + legend_lines(width)


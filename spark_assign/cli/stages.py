"""``replicas place --stages DIR``: a reassignment as safe stages, one file per stage to execute.

What it writes (:func:`write_stages`; the cutting is
:func:`~spark_assign.core.replicas.stages.plan_stages`):

* ``stage-01.json``, ``stage-02.json``, ...: ``kafka-reassign-partitions``
  JSON, one stage each, data stages first, then (if any) the stage that only
  reorders replicas (new preferred leaders, no data);
* ``leaders.json``: ``kafka-leader-election --path-to-json-file`` input, every
  partition whose preferred leader changed, to elect once the stages are done;
* ``plan.json``: per stage its partitions, replica moves, bytes, the busiest
  broker's moves and the estimated seconds at ``--throttle``, and the commands
  in order (each stage executed with the throttle, then verified until done:
  ``--verify`` also removes the throttle).

``replicas resume`` (:func:`resume_stages`) reads such a folder beside the real
placement now (``kafka-topics --describe``, or any ``--current`` form): a
partition is done when its replicas are its stage's, in order; the stage the
plan is at is the first with a partition not done, and the partitions left are
staged again from where they are into ``DIR/resume``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..core.replicas.stages import DEFAULT_MAX_MOVES_PER_BROKER, StagePlan, plan_stages
from ..kafka.reassignment import format_reassignment, parse_reassignment
from .runtime import CliError
from .tables import format_table

__all__ = ["write_stages", "resume_stages", "check_stage_folder", "format_leader_election"]

#: One changed partition: topic, partition, its new replicas, its replicas before.
Move = Tuple[str, int, List[int], List[int]]


def format_leader_election(partitions: Sequence[Tuple[str, int]]) -> str:
    """``kafka-leader-election --path-to-json-file`` input: ``{"partitions":[{"topic":..,"partition":..}]}``,
    sorted by topic and partition.

    Example::

        format_leader_election([("orders", 1)])     # '{"partitions":[{"topic":"orders","partition":1}]}'
    """
    body = [{"topic": t, "partition": int(p)} for t, p in sorted(set(partitions))]
    return json.dumps({"partitions": body}, separators=(",", ":"), ensure_ascii=False)


def write_stages(ctx, folder: str, moves: Sequence[Move], sizes: Optional[Dict[Tuple[str, int], int]],
                 max_moves_per_broker: int, max_bytes_per_stage: Optional[int],
                 throttle: Optional[int]) -> StagePlan:
    """Cut ``moves`` into stages and write the files of the module docstring into ``folder``
    (created; files of an earlier plan there are replaced). Prints the commands.

    Example::

        write_stages(ctx, "plan/", [("orders", 0, [4, 2], [1, 2])], {("orders", 0): 1 << 30}, 5, None, 50 << 20)
    """
    topics = sorted({m[0] for m in moves})
    index = {t: i for i, t in enumerate(topics)}
    rows: List[List[Move]] = [[] for _ in topics]
    for m in moves:
        rows[index[m[0]]].append(m)
    previous = [_matrix([m[3] for m in r]) for r in rows]
    placed = [_matrix([m[2] for m in r]) for r in rows]
    topic_sizes = None if sizes is None else \
        [np.array([sizes.get((m[0], m[1]), 0) for m in r], dtype=np.int64) for r in rows]
    plan = plan_stages(previous, placed, topic_sizes, max_moves_per_broker, max_bytes_per_stage, throttle)
    path = os.path.abspath(os.path.expanduser(folder))
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if old.startswith("stage-") and old.endswith(".json") or old in ("leaders.json", "plan.json"):
            os.remove(os.path.join(path, old))
    stages: Dict[int, List[Tuple[str, int, List[int]]]] = {}
    for t, p, k in zip(plan.topic.tolist(), plan.partition.tolist(), plan.stage.tolist()):
        m = rows[t][p]
        stages.setdefault(k, []).append((m[0], m[1], m[2]))
    width = max(2, len(str(len(stages))))
    names = []
    for k in sorted(stages):
        name = f"stage-{k + 1:0{width}d}.json"
        _write(path, name, format_reassignment(stages[k]))
        names.append(name)
    elected = [(rows[t][p][0], rows[t][p][1]) for t, p, c in
               zip(plan.topic.tolist(), plan.partition.tolist(), plan.leader_changed.tolist()) if c]
    if elected:
        _write(path, "leaders.json", format_leader_election(elected))
    _write(path, "plan.json", json.dumps(_summary(plan, names, bool(elected), sizes is not None), indent=1,
                                         ensure_ascii=False))
    _print(ctx, path, plan, names, bool(elected))
    return plan


def _matrix(lists: List[List[int]]) -> np.ndarray:
    width = max((len(x) for x in lists), default=0)
    out = np.full((len(lists), width), -1, dtype=np.int64)
    for i, x in enumerate(lists):
        out[i, :len(x)] = x
    return out


def _write(folder: str, name: str, text: str) -> None:
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        f.write(text + "\n")


def _commands(plan: StagePlan, names: List[str], elected: bool) -> List[str]:
    throttle = f" --throttle {plan.throttle}" if plan.throttle else ""
    out = []
    for name in names:
        out.append(f"kafka-reassign-partitions.sh --bootstrap-server HOST:9092 --execute "
                   f"--reassignment-json-file {name}{throttle}")
        out.append(f"kafka-reassign-partitions.sh --bootstrap-server HOST:9092 --verify "
                   f"--reassignment-json-file {name}   # until it reports every partition complete")
    if elected:
        out.append("kafka-leader-election.sh --bootstrap-server HOST:9092 --election-type PREFERRED "
                   "--path-to-json-file leaders.json")
    return out


def _summary(plan: StagePlan, names: List[str], elected: bool, sized: bool) -> Dict[str, Any]:
    return {"version": 1, "max_moves_per_broker": plan.max_moves_per_broker,
            "max_bytes_per_stage": plan.max_bytes_per_stage, "throttle_bytes_per_second": plan.throttle,
            "sizes_known": sized, "stage_bound": plan.stage_bound,
            "estimated_seconds": plan.estimated_seconds,
            "stages": [{**s.as_dict(), "stage": s.stage + 1, "file": n} for s, n in zip(plan.stages, names)],
            "leaders_to_elect": int(plan.leader_changed.sum()), "commands": _commands(plan, names, elected)}


def _print(ctx, path: str, plan: StagePlan, names: List[str], elected: bool) -> None:
    ctx.print()
    if not names:
        ctx.print("No partition changes replicas: no stages written.")
        return
    data = plan.data_stages
    estimate = "" if plan.estimated_seconds is None else \
        f", about {plan.estimated_seconds / 60:.1f} min at {plan.throttle:,} bytes/s per broker"
    reorder = " and one that only reorders replicas" if len(names) > data else ""
    ctx.print(f"{data} data stages (at least {plan.stage_bound}: at most {plan.max_moves_per_broker} moves per "
              f"broker{'' if plan.max_bytes_per_stage is None else f', {plan.max_bytes_per_stage:,} bytes'} per "
              f"stage){reorder}{estimate}: {path}")
    commands = _commands(plan, names[:1], False)
    for command in commands:
        ctx.print(f"  {command.replace(names[0], os.path.join(path, names[0]))}")
    if len(names) > 1:
        ctx.print(f"  then {names[1]}{' ... ' + names[-1] if len(names) > 2 else ''} the same way, each once the one "
                  "before is complete")
    if elected:
        ctx.print(f"  {_commands(plan, [], True)[0].replace('leaders.json', os.path.join(path, 'leaders.json'))}")
    ctx.print(f"  (every command, in order: {os.path.join(path, 'plan.json')})")


def check_stage_folder(folder: str) -> None:
    """Before Spark: ``--stages`` needs a folder it can create or write."""
    path = os.path.abspath(os.path.expanduser(folder))
    if os.path.exists(path) and not os.path.isdir(path):
        raise CliError(f"--stages: {folder} is a file, not a folder")
    if not os.path.isdir(os.path.dirname(path)):
        raise CliError(f"--stages: no such folder: {os.path.dirname(path)}")


def resume_stages(ctx, folder: str, current: Sequence[Tuple[str, int, List[int]]], source: str,
                  sizes: Optional[Dict[Tuple[str, int], int]], max_moves_per_broker: Optional[int],
                  max_bytes_per_stage: Optional[int], throttle: Optional[int]) -> List[Dict[str, Any]]:
    """An interrupted staged plan, resumed from the real placement ``current`` (read from
    ``source``): each stage of ``folder``'s plan with its partitions done (the current replicas are
    the stage's, in order), and the partitions left staged again from where they are now into
    ``folder/resume`` (caps and throttle from the plan unless given). The progress rows.

    Example::

        resume_stages(ctx, "stages", read_current_placement(text, "now.txt").partitions, "now.txt",
                      None, None, None, None)
    """
    path = os.path.abspath(os.path.expanduser(folder))
    plan_file = os.path.join(path, "plan.json")
    if not os.path.isfile(plan_file):
        raise CliError(f"--stages: no plan.json in {folder} (write one with replicas place --stages)")
    with open(plan_file, encoding="utf-8") as f:
        plan = json.load(f)
    now = {(t, int(p)): list(r) for t, p, r in current}
    progress, left, missing = [], [], 0
    for stage in plan.get("stages", []):
        with open(os.path.join(path, stage["file"]), encoding="utf-8") as f:
            rows = parse_reassignment(f.read(), stage["file"])
        done = 0
        for t, p, target in rows:
            there = now.get((t, p))
            if there is None:
                missing += 1
            elif there == list(target):
                done += 1
            else:
                left.append((t, p, list(target), there))
        progress.append({"stage": stage["stage"], "file": stage["file"], "partitions": len(rows), "done": done})
    at = next((row["stage"] for row in progress if row["done"] < row["partitions"]), None)
    ctx.print(format_table(["stage", "file", "partitions", "done"],
                           [[r["stage"], r["file"], r["partitions"], r["done"]] for r in progress],
                           title=f"Progress against {source}:"))
    ctx.print()
    ctx.print("Every stage is complete." if at is None else f"At stage {at} of {len(progress)}.")
    if missing:
        ctx.print(f"{missing} partitions of the plan are not in {source} (deleted topics?): left out.")
    if left:
        write_stages(ctx, os.path.join(path, "resume"), left, sizes,
                     max_moves_per_broker or int(plan.get("max_moves_per_broker") or DEFAULT_MAX_MOVES_PER_BROKER),
                     max_bytes_per_stage if max_bytes_per_stage is not None else plan.get("max_bytes_per_stage"),
                     throttle if throttle is not None else plan.get("throttle_bytes_per_second"))
    return progress

"""Membership events: the *events* form of a streaming rebalance.

A stream of events (:data:`~spark_assign.schema.EVENT_COLUMNS`: ``group_id, member_id, event``,
the topics of a ``join`` or an ``update`` one row each) becomes, per micro-batch, the full
membership of every group the batch mentions: the *snapshot* form that
:class:`~spark_assign.state.consumer.stream.BatchRebalance` rebalances with.

Where the membership lives. Each group's members (their topics, static instance id and rack)
are the streaming query's state (Spark's state store, ``applyInPandasWithState``), kept in its
checkpoint: a batch that Spark runs again after a crash starts from the state before the batch,
so it yields the same membership and its rebalance finds its transaction recorded. A query
started on a fresh checkpoint knows no member: a group's first event in it starts from an empty
group (send a running fleet's members as ``join`` events first, or use the snapshot form).

Rules, per group and micro-batch:

* ``join``: the member's subscription becomes the topics of its rows, with their
  ``group_instance_id`` and ``rack`` (a known member joining again replaces its subscription,
  as a rejoin does in Kafka);
* ``update``: the same, for a member the group has (an unknown member is a bad event);
* ``leave``: the member leaves (no topic on the row; leaving twice is not an error);
* one member's rows in a batch are one event, or several ordered by ``sequence`` (one event per
  sequence value);
* a group whose last member leaves keeps its latest generation (there is nobody to assign to);
  the next ``join`` rebalances it from there.

Bad rows do not raise on an executor: they come out as rows with a ``problem`` (and the column
it is about), and the ``foreachBatch`` function fails the batch with an
:class:`~spark_assign.errors.InvalidInputError` naming them, before anything is committed. The
state of a failed batch is not kept, so a restart once the input is fixed runs it again.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...errors import InvalidInputError
from ...schema import EVENT_COLUMNS, EVENTS
from ...spark.inputs import check_columns
from ...types import spark_ddl

__all__ = ["membership_from_events", "MEMBERSHIP_COLUMNS", "PROBLEM_COLUMN", "raise_problems", "is_events"]

#: The rows :func:`membership_from_events` yields: a group's members after the batch's events
#: (``problem`` null), or a bad event row (``problem`` set, with the ``problem_column`` it is about).
MEMBERSHIP_COLUMNS: List[Tuple[str, str]] = [
    ("group_id", "string"), ("member_id", "string"), ("topic", "string"), ("group_instance_id", "string"),
    ("rack", "string"), ("event", "string"), ("sequence", "bigint"), ("problem", "string"),
    ("problem_column", "string"),
]
PROBLEM_COLUMN = "problem"
#: A group's members in the query's state: parallel arrays, one entry per member and topic.
STATE_COLUMNS: List[Tuple[str, str]] = [
    ("member_id", "array<string>"), ("topic", "array<string>"), ("group_instance_id", "array<string>"),
    ("rack", "array<string>"),
]
#: Bad rows a failing batch names at most.
PROBLEM_SAMPLE = 20
_SUBSCRIBING = ("join", "update")


def is_events(rows: DataFrame) -> bool:
    """Whether ``rows`` is in the events form (it has an ``event`` column)."""
    return "event" in rows.columns


def membership_from_events(events: DataFrame) -> DataFrame:
    """Each micro-batch's events applied to the membership the query keeps: per group the batch
    mentions, its full membership (the rows ``rebalance`` takes), or its bad rows (see the module).

    Example::

        members = membership_from_events(spark.readStream.table("ops.member_events"))
        (members.writeStream.outputMode("update").foreachBatch(table.foreach_batch(topics))
            .option("checkpointLocation", c).start())

    Parameters
    ----------
    events:
        A streaming DataFrame of :data:`~spark_assign.schema.EVENT_COLUMNS`.
    """
    from pyspark.sql.streaming.state import GroupStateTimeout

    present = check_columns(events, "events", EVENT_COLUMNS)

    def column(name: str, kind: str) -> Column:
        return F.col(name).cast(kind) if name in present else F.lit(None).cast(kind)

    group_id = column("group_id", "string") if "group_id" in present else F.lit("default")
    rows = events.select(group_id.alias("group_id"), *(column(n, k).alias(n) for n, k in MEMBERSHIP_COLUMNS[1:7]))
    problem, problem_column = _row_problems()
    rows = rows.withColumn("problem", problem).withColumn("problem_column", problem_column)
    return rows.groupBy("group_id").applyInPandasWithState(
        apply_events, spark_ddl(MEMBERSHIP_COLUMNS), spark_ddl(STATE_COLUMNS), "update",
        GroupStateTimeout.NoTimeout)


def _row_problems() -> Tuple[Column, Column]:
    """What is wrong with an event row on its own (null: nothing), and the column it is about."""
    member, event, topic = F.col("member_id"), F.col("event"), F.col("topic")
    checks = [
        (F.col("group_id").isNull(), "null group_id", "group_id"),
        (member.isNull() | (member == ""), "null or empty member_id", "member_id"),
        (event.isNull() | ~event.isin(*EVENTS),
         "event is not one of join, update, leave (a batch of events holds events only)", "event"),
        (event.isin(*_SUBSCRIBING) & (topic.isNull() | (topic == "")),
         "a join or an update names a topic on each of its rows", "topic"),
        ((event == "leave") & topic.isNotNull(),
         "a leave names no topic (to drop a topic, update the member's topics)", "topic"),
    ]
    problem, about = F.lit(None).cast("string"), F.lit(None).cast("string")
    for condition, text, name in reversed(checks):      # the first check that fails wins
        problem = F.when(condition, F.lit(text)).otherwise(problem)
        about = F.when(condition, F.lit(name)).otherwise(about)
    return problem, about


# ----------------------------------------------------------------------------- on the executors

Members = Dict[str, Tuple[List[str], Optional[str], Optional[str]]]


def apply_events(key: Any, frames: Iterable[Any], state: Any) -> Iterator[Any]:
    """``applyInPandasWithState``'s function: one group's events of a batch applied to its state."""
    import pandas as pd

    batch = pd.concat(list(frames), ignore_index=True)
    members = _members_of(state)
    bad = batch[batch["problem"].notna()]
    problems = [] if len(bad) else _apply(members, batch)
    if len(bad) or problems:
        out = bad if len(bad) else pd.DataFrame(problems)
        yield out.reindex(columns=[n for n, _ in MEMBERSHIP_COLUMNS])
        return
    if not members:
        if state.exists:
            state.remove()
        return
    flat = [(m, t, inst, rack) for m, (topics, inst, rack) in sorted(members.items()) for t in topics]
    state.update(tuple(list(values) for values in zip(*flat)))
    yield pd.DataFrame({"group_id": key[0], "member_id": [r[0] for r in flat], "topic": [r[1] for r in flat],
                        "group_instance_id": [r[2] for r in flat], "rack": [r[3] for r in flat],
                        "event": None, "sequence": None, "problem": None, "problem_column": None},
                       columns=[n for n, _ in MEMBERSHIP_COLUMNS])


def _members_of(state: Any) -> Members:
    members: Members = {}
    if state.exists:
        member_ids, topics, instances, racks = state.get
        for m, t, inst, rack in zip(member_ids, topics, instances, racks):
            members.setdefault(m, ([], inst, rack))[0].append(t)
    return members


def _apply(members: Members, batch: Any) -> List[Dict[str, Any]]:
    """Apply ``batch`` (valid rows) to ``members`` in place, member by member in ``sequence``
    order; returns the problem rows (then ``members`` is not to be kept)."""
    problems: List[Dict[str, Any]] = []
    for member_id, rows in batch.groupby("member_id", sort=True):
        ordered = rows["sequence"].notna()
        if ordered.any() and not ordered.all():
            problems += _bad(rows, "a member's events in one batch are ordered by sequence on every row", "sequence")
            continue
        steps = rows.groupby("sequence", sort=True) if ordered.any() else [(None, rows)]
        for _, step in steps:
            found = _apply_step(members, str(member_id), step)
            if found:
                problems += found
                break
    return problems


def _apply_step(members: Members, member_id: str, step: Any) -> List[Dict[str, Any]]:
    """One event of one member (its rows at one sequence value); returns its problem rows."""
    kinds = sorted(set(step["event"]))
    if len(kinds) > 1:
        return _bad(step, f"member {member_id!r} has {' and '.join(kinds)} at one point of the batch: order them "
                          "with a sequence column", "sequence")
    kind = kinds[0]
    if kind == "leave":
        members.pop(member_id, None)
        return []
    if kind == "update" and member_id not in members:
        return _bad(step, f"update of member {member_id!r}, which the group does not have (join first)", "event")
    for name in ("group_instance_id", "rack"):
        if step[name].nunique(dropna=False) > 1:
            return _bad(step, f"the rows of one {kind} of {member_id!r} differ in {name}", name)
    first = step.iloc[0]
    members[member_id] = (sorted(set(step["topic"])), _text(first["group_instance_id"]), _text(first["rack"]))
    return []


def _text(value: Any) -> Optional[str]:
    return None if value is None or value != value else str(value)     # NaN: pandas' null


def _bad(rows: Any, problem: str, column: str) -> List[Dict[str, Any]]:
    return [dict(r, problem=problem, problem_column=column) for r in rows.to_dict("records")]


# ----------------------------------------------------------------------------- on the driver

def raise_problems(batch: DataFrame) -> None:
    """Fail with an :class:`~spark_assign.errors.InvalidInputError` naming the bad rows of a batch
    of :func:`membership_from_events` (one job; none when the batch has none: nothing raised)."""
    bad = batch.where(F.col(PROBLEM_COLUMN).isNotNull()).limit(PROBLEM_SAMPLE).collect()
    if not bad:
        return
    first = bad[0]
    shown = [f"{r.group_id!r}/{r.member_id!r} {r.event} {r.topic!r} (sequence {r.sequence}): {r.problem}"
             for r in bad]
    raise InvalidInputError(f"bad membership events in this micro-batch ({len(bad)}"
                            f"{'+' if len(bad) == PROBLEM_SAMPLE else ''} rows); the first: {first.problem}",
                            column=first.problem_column, rows=shown)

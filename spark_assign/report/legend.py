"""The words that explain the figures: one text per status and figure, shared by the report and the CLI.

The terminal summary of ``simulate``/``demo``, ``spark-assign history`` and the
HTML report print the same explanations next to the numbers they explain, so
that "0 assigned" beside "new 216" reads as what it is (no transfer was
pending, all 216 partitions had no previous owner), not as a contradiction.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

__all__ = ["STATUS_MEANINGS", "FIGURE_MEANINGS", "LOAD_NOTE", "step_label", "legend_lines"]

#: What each status of a partition row means (the counts ``new``, ``kept``, ... count rows).
STATUS_MEANINGS: Dict[str, str] = {
    "new": "no previous owner: a first assignment or a partition added",
    "kept": "the same owner as in the group's previous generation",
    "moved": "given to another member at once, including the partitions of a member that left",
    "revoked": "taken from its owner and pending: no owner until the follow-up rebalance (cooperative)",
    "assigned": "a revoked partition handed to its new owner by the follow-up: a transfer completed "
                "(not the number of partitions assigned)",
}

#: What the other figures mean.
#: What the load figures mean (rows with weights, see :mod:`.load`).
LOAD_NOTE = ("A member's load is the sum of the weights (lag, bytes/s) of the partitions it owns, as the "
             "rebalance that made the generation was given them. Imbalance is the heaviest member's load over "
             "the group's mean load (1 is perfect balance); the lower bound is max(mean load, largest weight), "
             "which no assignment beats; weight moved is the weight on partitions that changed owner.")

FIGURE_MEANINGS: Dict[str, str] = {
    "step": "one rebalance of the fleet for a change of its inputs (one simulation generation); "
            "a follow-up is the cooperative rebalance that completes its transfers, shown with its step",
    "members": "the members of the group in that generation: owners, members revoking a partition and "
               "members receiving one in the step's follow-up; an old id of a restarted static member is not one",
    "spread": "most minus fewest partitions per member of a group; a pending partition counts for nobody",
    "rebalances": "a group's rebalances for a change of its inputs; its follow-ups are counted apart",
    "paused": "partitions not consumed during the rebalance: with an eager strategy (range, roundrobin, "
              "sticky, load-aware) every partition the group owned, since each member gives up everything "
              "when it rejoins; with cooperative-sticky and KIP-848's uniform and server-range only the "
              "partitions changing owner (moved, revoked)",
}


def step_label(step: int, follow_up: int) -> str:
    """``"3"`` for step 3, ``"3 follow-up"`` for its first follow-up round, ``"3 follow-up 2"`` for the second.

    Example::

        [step_label(3, 0), step_label(3, 1), step_label(3, 2)] == ["3", "3 follow-up", "3 follow-up 2"]
    """
    if follow_up <= 0:
        return str(int(step))
    return f"{int(step)} follow-up" + (f" {int(follow_up)}" if follow_up > 1 else "")


def legend_lines(width: int = 100, figures: Sequence[str] = ()) -> List[str]:
    """What ``figures`` (names of :data:`FIGURE_MEANINGS`) and each status mean, wrapped to ``width``
    characters, for the footer of a terminal table.

    Example::

        print("\\n".join(legend_lines(figures=["step"])))   # step: ...  Partitions by status: new = ...
    """
    import textwrap

    lines: List[str] = []
    for name in figures:
        lines += textwrap.wrap(f"{name}: {FIGURE_MEANINGS[name]}.", width=width)
    parts = [f"{name} = {text}" for name, text in STATUS_MEANINGS.items()]
    parts.append(f"paused = {FIGURE_MEANINGS['paused']}")
    parts.append(f"spread = {FIGURE_MEANINGS['spread']}")
    return lines + textwrap.wrap("Partitions by status: " + "; ".join(parts) + ".", width=width)

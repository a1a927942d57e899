"""Kafka's assignment guarantees as checks, for tests, reports and users.

* validity: every partition of a subscribed topic has exactly one owner, who
  subscribes to its topic (cooperative rebalances may withhold partitions for
  one generation: those have no owner and status ``revoked``);
* balance: with identical subscriptions, member counts differ by at most one;
  otherwise no partition could move to a member subscribed to its topic that
  has 2+ fewer partitions (Kafka's ``isBalanced``);
* stickiness: no topic has partitions moving between two members in both
  directions (Kafka's ``isSticky``), and, with identical subscriptions, every
  member keeps ``min(claimed, quota)`` of its valid claims.

Each ``*_violations``/``*_errors`` function returns a list of readable problems
(empty when the guarantee holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Tuple

import numpy as np

from .context import Context
from .registry import get_strategy
from .result import MOVED, REVOKED, AssignmentResult

__all__ = [
    "validity_errors",
    "balance_violations",
    "is_balanced",
    "stickiness_violations",
    "moves",
    "check_assignment",
    "CheckReport",
]


def _subscribed(result: AssignmentResult) -> np.ndarray:
    g = result.group
    return g.subscription_matrix() if g.num_members else np.zeros((0, g.num_topics), dtype=bool)


def validity_errors(result: AssignmentResult, allow_withheld: bool = True) -> List[str]:
    """Problems with validity; withheld partitions are fine when ``allow_withheld``."""
    g = result.group
    errors: List[str] = []
    owner, topic, part = result.owner, result.topic, result.partition
    missing = np.flatnonzero(owner < 0)
    if len(missing) and not (allow_withheld and (result.status[missing] == REVOKED).all()):
        errors.append(f"{len(missing)} partitions have no owner, e.g. "
                      f"{g.topic_names[topic[missing[0]]]}-{part[missing[0]]}")
    assigned = np.flatnonzero(owner >= 0)
    if len(assigned):
        sub = _subscribed(result)
        bad = assigned[~sub[owner[assigned], topic[assigned]]]
        for pid in bad[:5]:
            errors.append(f"{g.member_ids[owner[pid]]} got {g.topic_names[topic[pid]]}-{part[pid]} "
                          f"without subscribing to {g.topic_names[topic[pid]]}")
    return errors


def balance_violations(result: AssignmentResult) -> List[Tuple[str, str, int]]:
    """Partitions that could move to a subscriber with 2+ fewer partitions.

    Returns ``(from_member, topic, partition)`` triples (at most one per topic).
    With identical subscriptions, a spread above one is reported as such.
    """
    g = result.group
    M = g.num_members
    if M == 0:
        return []
    counts = result.counts()
    sub = _subscribed(result)
    has_parts = g.topic_counts > 0
    out: List[Tuple[str, str, int]] = []
    if sub[:, has_parts].all() and counts.max() - counts.min() > 1:
        out.append((g.member_ids[int(np.argmax(counts))], "*", -1))
        return out
    owner = result.owner
    for t in np.flatnonzero(has_parts):
        subs = np.flatnonzero(sub[:, t])
        pids = np.arange(g.topic_offsets[t], g.topic_offsets[t + 1])
        held = owner[pids]
        held = held[held >= 0]
        if len(held) == 0 or len(subs) == 0:
            continue
        lightest = counts[subs].min()
        heavy = held[counts[held] > lightest + 1]
        if len(heavy):
            pid = pids[owner[pids] == heavy[0]][0]
            out.append((g.member_ids[heavy[0]], g.topic_names[t], int(result.partition[pid])))
    return out


def is_balanced(result: AssignmentResult) -> bool:
    """True when :func:`balance_violations` finds nothing."""
    return not balance_violations(result)


def stickiness_violations(result: AssignmentResult) -> List[str]:
    """Kafka's stickiness: no partition moves both ways between two members within a
    topic; with identical subscriptions, members keep ``min(claimed, quota)``."""
    g = result.group
    problems: List[str] = []
    moved = np.flatnonzero((result.status == MOVED) & (result.previous_owner < g.num_members))
    pairs = {(int(result.topic[p]), int(result.previous_owner[p]), int(result.owner[p])) for p in moved}
    for t, a, b in pairs:
        if (t, b, a) in pairs and a < b:
            problems.append(f"{g.topic_names[t]}: partitions moved both ways between "
                            f"{g.member_ids[a]} and {g.member_ids[b]}")
    sub = _subscribed(result)
    if (get_strategy(result.strategy).keeps_quota and g.num_members and sub.all()
            and not g.has_racks()):
        P, M = g.num_partitions, g.num_members
        min_quota = P // M
        # Kafka keeps no partition that two members of one generation claimed, even
        # when a newer claim took it afterwards.
        owner, doubly_claimed = Context(g).claims
        valid = (owner >= 0) & ~doubly_claimed
        claimed = np.bincount(owner[valid], minlength=M)
        kept = np.bincount(result.owner[valid & (result.owner == owner)], minlength=M)
        short = np.flatnonzero(kept < np.minimum(claimed, min_quota))
        for m in short[:5]:
            problems.append(f"{g.member_ids[m]} kept {kept[m]} of {claimed[m]} claimed partitions, "
                            f"quota {min_quota}")
    return problems


def moves(result: AssignmentResult) -> int:
    """Partitions whose owner changes (or is withheld) this generation."""
    return int(((result.status == MOVED) | ((result.status == REVOKED) & (result.previous_owner >= 0))).sum())


@dataclass
class CheckReport:
    """All checks of one result; ``ok`` when every list is empty."""

    validity: List[str] = field(default_factory=list)
    balance: List[Tuple[str, str, int]] = field(default_factory=list)
    stickiness: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.validity or self.balance or self.stickiness)


def check_assignment(result: AssignmentResult, balance: bool = True, stickiness: bool = True) -> CheckReport:
    """Run the checks that apply to ``result``'s strategy."""
    report = CheckReport(validity=validity_errors(result))
    if balance:
        report.balance = balance_violations(result)
    if stickiness:
        report.stickiness = stickiness_violations(result)
    return report

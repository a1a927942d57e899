"""Auditing one classic group: did its leader hand out what its strategy gives?

A classic group's assignment is computed by one member, its leader, with whatever assignor that
client runs. :func:`audit_group` recomputes it from the same subscriptions and claims with the
strategy the group names and says how the two differ. Findings (:data:`FINDINGS`):

==================== ===========================================================================
``owned twice``      a partition given to two or more members (Kafka never does this)
``unowned``          a partition of a subscribed topic given to nobody, where the strategy gives
                     it to someone (a cooperative rebalance's first round withholds what it
                     revokes: the strategy's own output says which)
``unsubscribed``     a partition of a topic its member does not subscribe to
``not sticky``       a partition a sticky strategy keeps with the member that claims it, given
                     to another
``unbalanced``       the members' partition counts spread wider than the strategy's would
``differs``          a partition given to another member than the strategy gives it
==================== ===========================================================================

``differs`` and ``not sticky`` need the strategy's own answer, so they are for Kafka's four client
assignors (:data:`EXACT_STRATEGIES`: deterministic, and reproduced exactly by this package's
engines). A custom strategy is held to the properties: ``owned twice``, ``unowned`` (every
partition of its topics), ``unsubscribed``, and ``unbalanced`` when all its members subscribe to
the same topics and their counts differ by more than one.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from .api import assign
from .model import Member

__all__ = ["Finding", "audit_group", "FINDINGS", "EXACT_STRATEGIES", "STICKY_STRATEGIES"]

#: Kafka's client assignors by the protocol name a classic group records.
EXACT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")
#: The strategies whose members' claims bind them: only these can be ``not sticky``.
STICKY_STRATEGIES = ("sticky", "cooperative-sticky")
#: The kinds of finding, in the order a report lists them.
FINDINGS = ("owned twice", "unowned", "unsubscribed", "not sticky", "unbalanced", "differs")

TopicPartition = Tuple[str, int]
#: A subscription row: (member_id, topic, group_instance_id, rack, owned_partitions, generation).
SubscriptionRow = Tuple[str, str, Optional[str], Optional[str], Optional[Sequence[int]], Optional[int]]


class Finding(NamedTuple):
    """One way a group's assignment differs: the kind, how many partitions (for ``unbalanced``: the
    spread of the members' counts) and the first of them, written out."""

    finding: str
    partitions: int
    example: str


def _members(rows: Sequence[SubscriptionRow]) -> List[Member]:
    topics: Dict[str, List[str]] = {}
    owned: Dict[str, List[TopicPartition]] = {}
    about: Dict[str, Tuple[Optional[str], Optional[str], Optional[int]]] = {}
    for member, topic, instance, rack, claims, generation in rows:
        topics.setdefault(member, []).append(topic)
        owned.setdefault(member, []).extend((topic, p) for p in claims or [])
        about[member] = (instance, rack, generation)
    return [Member(m, topics=t, owned=owned[m], generation=about[m][2], instance_id=about[m][0], rack=about[m][1])
            for m, t in topics.items()]


def _claimers(rows: Sequence[SubscriptionRow]) -> Dict[TopicPartition, str]:
    """Who claims each partition: the claim of the highest generation (Kafka's sticky assignors
    keep that one), ties to the smallest member id."""
    best: Dict[TopicPartition, Tuple[int, str]] = {}
    for member, topic, _, _, claims, generation in rows:
        for p in claims or []:
            rank = (-(generation if generation is not None else -1), member)
            if (topic, p) not in best or rank < best[(topic, p)]:
                best[(topic, p)] = rank
    return {tp: rank[1] for tp, rank in best.items()}


def _written(tp: TopicPartition, holders: Sequence[str], expected: Optional[str] = None, exact: bool = False) -> str:
    text = f"{tp[0]}-{tp[1]} -> {', '.join(holders) or 'nobody'}"
    return f"{text} (strategy: {expected or 'nobody'})" if exact else text


def _spread(counts: Mapping[str, int], members: Sequence[str]) -> int:
    values = [counts.get(m, 0) for m in members]
    return max(values) - min(values) if values else 0


def audit_group(strategy: Optional[str], subscriptions: Sequence[SubscriptionRow],
                assignment: Sequence[Tuple[str, str, int]], topics: Mapping[str, int]) -> List[Finding]:
    """How a classic group's recorded ``assignment`` differs from what ``strategy`` gives.

    Example
    -------
    >>> subs = [("a", "t", None, None, [], None), ("b", "t", None, None, [], None)]
    >>> audit_group("range", subs, [("a", "t", 0), ("a", "t", 1)], {"t": 2})
    [Finding(finding='unbalanced', partitions=2, example='member counts spread 2, strategy: 0'), \
Finding(finding='differs', partitions=1, example='t-1 -> a (strategy: b)')]

    Parameters
    ----------
    strategy:
        The protocol the group's leader ran (``range``, ``cooperative-sticky``, a custom name).
    subscriptions:
        The members' rows: (member_id, topic, group_instance_id, rack, owned_partitions, generation).
    assignment:
        What the leader gave: (member_id, topic, partition) rows.
    topics:
        Partition counts of the topics (those missing have no partitions).
    """
    exact = strategy in EXACT_STRATEGIES
    members = _members(subscriptions)
    names = [m.member_id for m in members]
    subscribed = {(m.member_id, t) for m in members for t in m.topics}
    group_topics = sorted({t for m in members for t in m.topics})
    universe = {(t, p) for t in group_topics for p in range(topics.get(t, 0))}
    holders: Dict[TopicPartition, List[str]] = {}
    for member, topic, partition in assignment:
        holders.setdefault((topic, partition), []).append(member)
    expected: Dict[TopicPartition, str] = {}
    if exact and members:
        result = assign(members, {t: topics[t] for t in group_topics if t in topics}, str(strategy))
        expected = {tp: m for m, tps in result.assignment.items() for tp in tps}
    found: Dict[str, List[str]] = {}

    def note(kind: str, text: str) -> None:
        found.setdefault(kind, []).append(text)

    for tp in sorted(universe | set(holders)):
        held = sorted(holders.get(tp, []))
        if len(held) >= 2:
            note("owned twice", _written(tp, held, expected.get(tp), exact))
        if not held and tp in universe and (not exact or tp in expected):
            note("unowned", _written(tp, held, expected.get(tp), exact))
        if exact and held != ([expected[tp]] if tp in expected else []):
            note("differs", _written(tp, held, expected.get(tp), exact=True))
    for member, topic, partition in sorted(assignment):
        if (member, topic) not in subscribed:
            note("unsubscribed", _written((topic, partition), [member]))
    if strategy in STICKY_STRATEGIES:
        for tp, claimer in sorted(_claimers(subscriptions).items()):
            if expected.get(tp) == claimer and holders.get(tp) != [claimer]:
                note("not sticky", f"{_written(tp, sorted(holders.get(tp, [])))} (claimed by {claimer})")
    actual = _spread(Counter(m for m, _, _ in assignment), names)
    if exact:
        reference = _spread(Counter(expected.values()), names)
        if actual > reference:
            note("unbalanced", f"member counts spread {actual}, strategy: {reference}")
    elif len({tuple(sorted(m.topics)) for m in members}) == 1 and actual > 1:
        note("unbalanced", f"member counts spread {actual}")
    return [Finding(kind, actual if kind == "unbalanced" else len(found[kind]), found[kind][0])
            for kind in FINDINGS if kind in found]


def audited(strategy: Optional[str]) -> Set[str]:
    """The findings an audit can report for a group of ``strategy``."""
    if strategy in STICKY_STRATEGIES:
        return set(FINDINGS)
    if strategy in EXACT_STRATEGIES:
        return set(FINDINGS) - {"not sticky"}
    return {"owned twice", "unowned", "unsubscribed", "unbalanced"}

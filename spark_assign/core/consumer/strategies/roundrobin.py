"""Kafka's client ``RoundRobinAssignor``.

All partitions, sorted by (topic, partition), are dealt in turn to the members
in ``MemberInfo`` order (static first by instance id, then by member id), one
circular iterator for the whole group; a member not subscribed to a
partition's topic is skipped, and the deal goes on from the member after the
one who took it.

Vectorized per topic: the eligible members of a topic are a sorted set of
positions on the circle, so a topic's partitions go to consecutive eligible
positions starting at the first one at or after the iterator's position.
With identical subscriptions the whole deal is ``pid % M``.
"""

from __future__ import annotations

import numpy as np

from ..context import Context, Outcome

__all__ = ["assign_roundrobin"]


def assign_roundrobin(ctx: Context) -> Outcome:
    g = ctx.group
    P, M = g.num_partitions, g.num_members
    order = np.arange(P, dtype=np.int64)      # Kafka's deal order is (topic, partition)
    if P == 0:
        return Outcome(np.full(0, -1, dtype=np.int64), order)
    by_rank = np.argsort(ctx.member_info_rank)   # circle position -> member
    pos_of = ctx.member_info_rank                # member -> circle position
    has_partitions = g.topic_counts > 0
    per_member = np.bincount(g.sub_member, weights=has_partitions[g.sub_topic], minlength=M)
    if (per_member == has_partitions.sum()).all():
        return Outcome(by_rank[order % M], order)

    # Eligible circle positions per topic, sorted.
    pos = pos_of[g.sub_member]
    o = np.lexsort((pos, g.sub_topic))
    sorted_pos, sorted_topic = pos[o], g.sub_topic[o]
    bounds = np.searchsorted(sorted_topic, np.arange(g.num_topics + 1))
    owner = np.empty(P, dtype=np.int64)
    cursor = 0
    for t in range(g.num_topics):
        n = int(g.topic_counts[t])
        if n == 0:
            continue
        eligible = sorted_pos[bounds[t]:bounds[t + 1]]
        k = len(eligible)
        start = int(np.searchsorted(eligible, cursor)) % k
        take = eligible[(start + np.arange(n)) % k]
        first = int(g.topic_offsets[t])
        owner[first:first + n] = by_rank[take]
        cursor = (int(take[-1]) + 1) % M
    return Outcome(owner, order)

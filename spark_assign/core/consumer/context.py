"""What every strategy may need besides the group: member orders and claims.

Computed lazily and at most once per assignment, because the sticky strategies,
the status column and the checks all ask for the same things.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ..java.util import hashmap_order, java_sort_key, java_string_hash_array
from .model import Group
from .weights import dense_weights

__all__ = ["Context", "Outcome"]


@dataclass
class Outcome:
    """What a strategy returns.

    ``owner[pid]`` is a member index, or -1 for a partition a cooperative
    rebalance withholds this generation. ``order[pid]`` orders each member's
    list (smaller first): Kafka's own order where Kafka defines one.
    """

    owner: np.ndarray
    order: np.ndarray


@dataclass
class Context:
    """A group plus lazily computed, shared facts about it."""

    group: Group
    options: Dict[str, Any] = field(default_factory=dict)

    @cached_property
    def hashmap_member_order(self) -> np.ndarray:
        """Members in the order Kafka's leader iterates its ``HashMap`` of subscriptions.

        Kafka puts subscriptions into a ``HashMap`` keyed by member id; we insert
        them in member id order, so ties within a hash bucket keep that order.
        """
        hashes = java_string_hash_array(self.group.member_ids)
        return np.asarray(hashmap_order(hashes), dtype=np.int64)

    @cached_property
    def member_info_rank(self) -> np.ndarray:
        """Rank of each member in Kafka's ``MemberInfo`` order.

        Static members first, by ``group.instance.id``; then dynamic members by
        member id (KIP-345). Used by range and roundrobin.
        """
        g = self.group
        if g.instance_ids.count(None) == len(g.instance_ids):
            return np.arange(len(g.member_ids), dtype=np.int64)     # member ids are in Java order
        keys = [
            (0, java_sort_key(s)) if s is not None else (1, java_sort_key(m))
            for m, s in zip(g.member_ids, g.instance_ids)
        ]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        rank = np.empty(len(keys), dtype=np.int64)
        rank[order] = np.arange(len(keys), dtype=np.int64)
        return rank

    @cached_property
    def claims(self) -> Tuple[np.ndarray, np.ndarray]:
        """Kafka's reading of the members' ownership claims.

        Returns ``(owner, doubly_claimed)``, both of length P. ``owner[pid]`` is
        the member whose claim stands, or -1. Kafka's rule (AbstractStickyAssignor,
        KAFKA-12984/13081): walking members in the leader's ``HashMap`` order, a
        claim on a partition someone already claimed wins when its generation is
        newer, loses when older, and when equal the partition is taken from
        both and marked as claimed by multiple owners.
        """
        return resolve_claims(self.group, lambda: self.hashmap_member_order)

    @cached_property
    def partition_weights(self) -> np.ndarray:
        """Each pid's weight from the ``weights`` option (checked; 1.0 each without it), see
        :func:`.weights.dense_weights`. Read by the load-aware strategies."""
        return dense_weights(self.group, self.options.get("weights"))

    @cached_property
    def max_generation(self) -> int:
        g = self.group.generation
        return int(max(g.max(), -1)) if len(g) else -1


def resolve_claims(group: Group, member_order: Callable[[], np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """See :attr:`Context.claims`. ``member_order`` is only called when two members
    claim one partition (computing Java's order costs time on large groups)."""
    P = group.num_partitions
    owner = np.full(P, -1, dtype=np.int64)
    multi = np.zeros(P, dtype=bool)
    cm, cp = group.claim_member, group.claim_pid
    if len(cp) == 0:
        return owner, multi
    if not group.claims_overlap:          # encoding found no pid claimed twice
        owner[cp] = cm
        return owner, multi
    claims_per_pid = np.bincount(cp, minlength=P)
    if claims_per_pid.max() <= 1:
        owner[cp] = cm
        return owner, multi
    single = claims_per_pid[cp] == 1
    owner[cp[single]] = cm[single]
    contested = np.flatnonzero(~single)
    if len(contested) == 0:
        return owner, multi
    # Contested partitions: replay Kafka's walk in the leader's member order.
    walk = member_order()
    position = np.empty(len(walk), dtype=np.int64)
    position[walk] = np.arange(len(walk), dtype=np.int64)
    idx = contested[np.lexsort((position[cm[contested]], cp[contested]))]
    gen = group.generation
    last_pid = -1
    holder = -1          # who Kafka's map says holds the partition
    for i in idx:
        pid, m = int(cp[i]), int(cm[i])
        if pid != last_pid:
            last_pid, holder = pid, m
            owner[pid] = m
            continue
        if gen[m] == gen[holder]:
            multi[pid] = True
            owner[pid] = -1
        elif gen[m] > gen[holder]:
            owner[pid] = m
        else:
            continue
        holder = m
    return owner, multi

"""Kafka's server-side ``RangeAssignor`` (KIP-848), registered as ``server-range``.

Not sticky: current assignments are ignored. Members in ``MemberInfo`` order
(static members by instance id first, then dynamic ones by member id); each
topic's subscribers take contiguous ranges, the first ``n % c`` one extra. In a
homogeneous group every topic with the same partition count is therefore
co-partitioned: member k gets the same partition numbers of each. This is the
client range assignor without rack awareness (Kafka removed racks from the
server assignors, KAFKA-16694); the order of a member's list is sorted.
"""

from __future__ import annotations

import numpy as np

from ..context import Context, Outcome
from .range import vectorized_ranges

__all__ = ["assign_server_range"]


def assign_server_range(ctx: Context) -> Outcome:
    g = ctx.group
    owner = vectorized_ranges(ctx)
    return Outcome(owner, np.arange(g.num_partitions, dtype=np.int64))

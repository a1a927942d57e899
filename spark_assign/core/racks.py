"""Rack facts shared by the rack-aware strategies (KIP-881).

Kafka uses rack-aware assignment only when it can help: some member has a
rack, some partition has a replica on one of those racks, and the partitions
are not all on the same set of racks (``AbstractPartitionAssignor
.useRackAwareAssignment``). Kafka's tests can force it on
(``preferRackAwareLogic``); we expose that as the ``prefer_rack_aware`` option.
"""

from __future__ import annotations

from typing import List, Optional, Set

import numpy as np

from .model import Group

__all__ = ["partition_rack_sets", "use_rack_aware"]


def partition_rack_sets(group: Group, pids: Optional[np.ndarray] = None) -> List[Set[int]]:
    """Replica rack ids of each pid (all pids, or those given); empty without rack data."""
    if pids is None:
        pids = np.arange(group.num_partitions)
    off, ids = group.part_rack_offsets, group.part_rack_ids
    if off is None or ids is None:
        return [set() for _ in range(len(pids))]
    return [set(ids[off[p]:off[p + 1]].tolist()) for p in pids.tolist()]


def use_rack_aware(consumer_racks: Set[int], partition_racks: List[Set[int]], prefer: bool) -> bool:
    """Kafka's rule for when rack-aware assignment applies.

    ``consumer_racks``: racks of the members concerned; ``partition_racks``: the
    replica racks of each partition concerned.
    """
    all_partition_racks: Set[int] = set().union(*partition_racks) if partition_racks else set()
    if not consumer_racks or consumer_racks.isdisjoint(all_partition_racks):
        return False
    if prefer:
        return True
    return not all(r == all_partition_racks for r in partition_racks)

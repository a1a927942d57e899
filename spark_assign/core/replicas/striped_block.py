"""A stretch of ``StripedReplicaPlacer.place`` calls between two reshuffles, as arrays.

Between reshuffles the placer draws nothing: partition ``i`` of a stretch starts its
walk at rack ``(offset + i) % racks`` in epoch ``epoch + i``, and every broker list it
touches follows ``BrokerList.next`` (see :mod:`.replica_striped`). In the common
shapes every touch of a list is its first in that epoch, so it returns the broker one
past the list's offset and advances the offset; only a list's first touch in the
stretch can meet the epoch it last saw (the epoch restarts at 0 after a reshuffle, and
starts at 0 on the lists), in which case Kafka neither resets its index nor advances
its offset. Both are computed here from ranks of touches per list.

Shapes computed (others return None, and the caller walks partition by partition):

* several racks, each with an unfenced broker, and a replication factor up to the
  number of racks: partition ``i`` touches the unfenced lists of racks
  ``start, start + 1, ..., start + rf - 1`` once each;
* one rack (no racks given at all), with at least ``rf`` unfenced brokers: partition
  ``i`` takes ``rf`` consecutive brokers of its one list.

A stale first touch whose list was already used up in that epoch (``index`` at its
size) makes Kafka skip the list; that stretch is left to the walk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

if TYPE_CHECKING:                                     # replica_striped imports this module
    from .striped import BrokerList, RackList

__all__ = ["striped_block"]


def striped_block(rack_list: "RackList", partitions: int, replication_factor: int) -> Optional[np.ndarray]:
    """The next ``partitions`` placements of ``rack_list`` (no reshuffle among them), leaving it
    in the state ``partitions`` calls of ``place`` leave; None, with the state untouched, for a
    shape this module does not compute.

    Example::

        from spark_assign.core.java.random import JavaRandom
        from spark_assign.core.replicas.striped import RackList
        striped_block(RackList(JavaRandom(3), [(1, "a", False), (2, "b", False)]), 1, 2)

    Parameters
    ----------
    rack_list:
        The placer's state; its epoch plus ``partitions`` must not pass a reshuffle.
    partitions, replication_factor:
        The stretch's length and replicas per partition (already checked).
    """
    lists = [rack_list.racks[name].unfenced for name in rack_list.rack_names]
    if partitions == 0 or any(not lst.brokers for lst in lists):
        return None
    if len(lists) == 1:
        return _one_rack(rack_list, lists[0], partitions, replication_factor)
    if replication_factor > len(lists):
        return None
    return _rack_per_replica(rack_list, lists, partitions, replication_factor)


def _rack_per_replica(rack_list: "RackList", lists: "list[BrokerList]", n: int, rf: int) -> Optional[np.ndarray]:
    """Several racks, ``rf`` at most their number: one touch per rack per partition."""
    count, epoch = len(lists), rack_list.epoch
    start = 0 if rack_list.offset == count else rack_list.offset
    rack = ((start + np.arange(n)[:, None] + np.arange(rf)) % count).ravel()   # Kafka's order of touches
    order = np.argsort(rack, kind="stable")
    touches = np.bincount(rack, minlength=count)
    firsts = np.cumsum(touches) - touches
    rank = np.empty(len(rack), dtype=np.int64)                                  # k-th touch of its list
    rank[order] = np.arange(len(rack)) - np.repeat(firsts, touches)
    partition = np.arange(len(rack)) // rf
    used = np.flatnonzero(touches)
    first_epoch = np.zeros(count, dtype=np.int64)
    first_epoch[used] = epoch + partition[order[firsts[used]]]
    last_epoch = np.zeros(count, dtype=np.int64)
    last_epoch[used] = epoch + partition[order[firsts[used] + touches[used] - 1]]
    sizes = np.array([len(lst.brokers) for lst in lists], dtype=np.int64)
    offsets = np.array([lst.offset for lst in lists], dtype=np.int64)
    index = np.array([lst.index for lst in lists], dtype=np.int64)
    stale = np.zeros(count, dtype=bool)
    stale[used] = np.array([lists[q].epoch for q in used.tolist()], dtype=np.int64) == first_epoch[used]
    if (stale & (index >= sizes)).any():
        return None
    position = offsets[rack] + rank + 1 - stale[rack]
    again = (rank == 0) & stale[rack]                   # a stale first touch: index on, offset kept
    position[again] = offsets[rack[again]] + index[rack[again]]
    ids = np.concatenate([np.asarray(lst.brokers, dtype=np.int64) for lst in lists])
    base = np.cumsum(sizes) - sizes
    out = ids[base[rack] + position % sizes[rack]].astype(np.int32).reshape(n, rf)
    for q in used.tolist():
        lst, stayed = lists[q], bool(stale[q])
        lst.offset = int((offsets[q] + touches[q] - stayed) % sizes[q])
        lst.index = int(index[q]) + 1 if stayed and touches[q] == 1 else 1
        lst.epoch = int(last_epoch[q])
    rack_list.epoch = epoch + n
    rack_list.offset = (start + n - 1) % count + 1
    return out


def _one_rack(rack_list: "RackList", lst: "BrokerList", n: int, rf: int) -> Optional[np.ndarray]:
    """One rack: each partition takes ``rf`` consecutive brokers of its list, in its own epoch."""
    size, epoch = len(lst.brokers), rack_list.epoch
    stale = lst.epoch == epoch                          # only the first partition can meet it
    if rf > size or (stale and lst.index + rf > size):
        return None
    offset = lst.offset + np.arange(n, dtype=np.int64) + 1 - stale
    begin = np.zeros(n, dtype=np.int64)
    if stale:
        offset[0], begin[0] = lst.offset, lst.index
    position = (offset + begin)[:, None] + np.arange(rf)
    out = np.asarray(lst.brokers, dtype=np.int32)[position % size]
    lst.index = lst.index + rf if stale and n == 1 else rf
    lst.offset = int((lst.offset + n - stale) % size)
    lst.epoch = epoch + n - 1
    rack_list.epoch = epoch + n
    rack_list.offset = 1
    return out

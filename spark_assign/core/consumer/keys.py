"""Integer keys for :func:`~spark_assign.core.consumer.model.encode`: order, uniqueness, subscriptions.

Everything here is vectorized over the input rows (no per-row Python), because
a homogeneous group of 10,000 members and 1,000 topics has 10 million
subscription rows.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ...errors import InvalidInputError

__all__ = ["duplicates", "encode_subscriptions", "shared_topic_row", "run_positions"]


def _strictly_increasing(keys: np.ndarray) -> bool:
    return len(keys) < 2 or bool((keys[1:] > keys[:-1]).all())


def _sorted_unique_keys(keys: np.ndarray, space: int, check_only: bool = False) -> Optional[np.ndarray]:
    """``keys`` (ints in ``[0, space)``) sorted, or None when one repeats.

    A bitmap over the key space when it is small enough (no sort at all),
    else a sort. ``check_only``: return ``keys`` unsorted when they are unique
    (for callers that need the check, not the order).
    """
    if space <= 1 << 26:
        seen = np.zeros(space, dtype=bool)
        seen[keys] = True
        if check_only:
            return keys if np.count_nonzero(seen) == len(keys) else None
        out = seen.nonzero()[0]
    else:
        out = np.unique(keys)
    return out if len(out) == len(keys) else None


def run_positions(lengths: np.ndarray) -> np.ndarray:
    """For runs of ``lengths`` laid end to end, each element's position within its run.

    Example: lengths ``[2, 0, 3]`` give ``[0, 1, 0, 1, 2]``; ``np.repeat(starts, lengths)``
    plus this is the concatenation of ``range(start, start + length)`` over the runs.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def duplicates(keys: np.ndarray) -> np.ndarray:
    """Positions (into ``keys``) of values that occur more than once."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    dup = np.zeros(len(k), dtype=bool)
    same = k[1:] == k[:-1]
    dup[1:] |= same
    dup[:-1] |= same
    return order[dup]


def shared_topic_row(sub_member: np.ndarray, sub_topic: np.ndarray, n: int) -> Optional[np.ndarray]:
    """The topics every member subscribes to, when the rows say so plainly, else None.

    "Plainly": member-major blocks of ``k`` rows (``sub_member`` is ``0 x k, 1 x k,
    ..., n-1 x k``), each block listing the same ``k`` distinct topics in the
    same order, which is how a homogeneous group is usually written. Two
    comparisons over the rows, no sort; any other layout returns None and the
    general path decides (it finds complete groups too, at a higher cost).
    """
    S = len(sub_member)
    if n == 0 or S == 0 or S % n or len(sub_topic) != S:
        return None
    k = S // n
    # Cheap rejections first (the first and last rows' members), then every row.
    if sub_member[0] != 0 or sub_member[S - 1] != n - 1:
        return None
    row = sub_topic[:k]
    if k > 1 and len(set(row.tolist())) != k:
        return None
    if not (sub_member.reshape(n, k) == np.arange(n, dtype=np.int64)[:, None]).all():
        return None
    if n > 1 and not (sub_topic.reshape(n, k) == row).all():
        return None
    return row


def encode_subscriptions(sm: np.ndarray, st: np.ndarray, n: int, member_ids: List[str],
                         uni_names: List[str]) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """Subscription pairs (member index, universe topic) sorted and checked unique;
    None when they are all ``n x T`` pairs."""
    T = max(len(uni_names), 1)
    key = sm * T + st
    if not _strictly_increasing(key):
        complete = len(key) == n * len(uni_names)
        key = _sorted_unique_keys(key, n * T, complete)
        if key is None:
            dup = duplicates(sm * T + st)
            rows = sorted({(member_ids[sm[i]], uni_names[st[i]]) for i in dup})
            raise InvalidInputError("duplicate (member_id, topic) subscription rows",
                                    column="topic", rows=rows)
        if complete:
            return None
        sm, st = np.divmod(key, T)
    elif len(key) == n * len(uni_names):
        return None
    return sm, st

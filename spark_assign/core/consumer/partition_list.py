"""A member's partitions as a result gives them: a read-only list that also holds its arrays.

A stateful caller (a service, a notebook simulating rebalances) feeds each
result back as the next rebalance's claims::

    result = assign(members, topics, "cooperative-sticky")
    members = [Member(m, topics=..., owned=result.assignment[m], generation=2) for m in ...]

For Kafka's large group (a million claims), reading the claims back from
``(topic, partition)`` tuples takes three passes in Python, several times the
assignment itself. A :class:`TopicPartitionList` carries the arrays it was
built from, so :meth:`~.model.GroupInput.from_members` reads those instead. It
is read-only (as a tuple is), so the arrays always match the pairs; anything
else (a plain list, a tuple, pairs decoded from Kafka's protocol) takes the
tuple path, with the same result.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, NoReturn, Optional, Sequence, Tuple

import numpy as np

from ...errors import InvalidInputError, ReadOnlyError
from ..java.limits import MAX_PARTITIONS

__all__ = ["TopicPartitionList"]

_NEW, _EXTEND = list.__new__, list.extend


class TopicPartitionList(List[Tuple[str, int]]):
    """A read-only list of ``(topic, partition)`` pairs, with the same pairs as arrays.

    What :attr:`~.result.AssignmentResult.assignment` returns for each member. It
    is a ``list`` (equal to a plain list of the same pairs, printed as one); the
    methods that would change it raise :class:`~spark_assign.errors.ReadOnlyError` (a
    ``TypeError``, as a tuple's would): copy it with
    ``list(...)`` to edit. Slices, ``+`` and ``*`` give plain lists.

    Example::

        pairs = result.assignment["c1"]          # e.g. [("t", 0), ("t", 2)]
        pairs.partitions                         # array([0, 2])
        [pairs.topic_names[t] for t in pairs.topic_codes] == ["t", "t"]
        Member("c1", topics=["t"], owned=pairs, generation=2)   # read back as arrays

    Attributes
    ----------
    topic_names:
        The names the codes index (the result's topic list, shared by its members' lists).
    topic_codes:
        Per pair, the index of its topic in ``topic_names`` (int64).
    partitions:
        Per pair, its partition (int64).
    """

    # (topic_names, topic_codes, partitions, lo, hi): this list is rows lo:hi of the arrays, which
    # a result's lists share (one tuple per list, no array sliced until asked: a result builds
    # a list per member).
    __slots__ = ("_rows",)
    _rows: Tuple[Sequence[str], np.ndarray, np.ndarray, int, int]

    def __init__(self, *args: object) -> None:
        raise ReadOnlyError("a TopicPartitionList is built by TopicPartitionList.of (or a result), "
                            "not by its constructor, and never re-initialised")

    @property
    def topic_names(self) -> Sequence[str]:
        """The names :attr:`topic_codes` index (shared by a result's lists)."""
        return self._rows[0]

    @property
    def topic_codes(self) -> np.ndarray:
        """Per pair, the index of its topic in :attr:`topic_names` (int64, read-only)."""
        return self._rows[1][self._rows[3]:self._rows[4]]

    @property
    def partitions(self) -> np.ndarray:
        """Per pair, its partition (int64, read-only)."""
        return self._rows[2][self._rows[3]:self._rows[4]]

    @classmethod
    def of(cls, topic_names: Sequence[str], topic_codes: np.ndarray, partitions: np.ndarray) -> "TopicPartitionList":
        """The pairs ``(topic_names[c], p)`` for ``c, p`` in ``zip(topic_codes, partitions)``.

        Example::

            TopicPartitionList.of(["a", "b"], np.array([1, 0]), np.array([3, 5])) == [("b", 3), ("a", 5)]

        Parameters
        ----------
        topic_names:
            Topic names: non-empty strings (copied).
        topic_codes, partitions:
            Equal-length integer arrays (copied); ``topic_codes`` index ``topic_names``,
            partitions are Kafka's (0 to :data:`~.limits.MAX_PARTITIONS`).
        """
        names = tuple(topic_names)
        if not all(type(t) is str and t for t in names):
            raise InvalidInputError("topic names must be non-empty strings", column="topic_names",
                                    rows=[t for t in names if type(t) is not str or not t][:5])
        codes = np.array(topic_codes, dtype=np.int64)            # copies, made read-only below
        parts = np.array(partitions, dtype=np.int64)
        if codes.shape != parts.shape or codes.ndim != 1:
            raise InvalidInputError(f"topic_codes and partitions must be 1-d and of one length, got shapes "
                                    f"{codes.shape} and {parts.shape}", column="partitions")
        if len(codes) and (codes.min() < 0 or codes.max() >= len(names)):
            raise InvalidInputError(f"topic_codes must index topic_names ({len(names)} names)",
                                    column="topic_codes", rows=codes[(codes < 0) | (codes >= len(names))][:5].tolist())
        if len(parts) and (parts.min() < 0 or parts.max() > MAX_PARTITIONS):
            raise InvalidInputError(f"partitions must be 0 to {MAX_PARTITIONS:,}", column="partitions",
                                    rows=parts[(parts < 0) | (parts > MAX_PARTITIONS)][:5].tolist())
        codes.setflags(write=False)
        parts.setflags(write=False)
        pairs = zip(np.asarray(names, dtype=object)[codes].tolist(), parts.tolist())
        return cls.wrap(pairs, names, codes, parts)

    @classmethod
    def wrap(cls, pairs: Iterable[Tuple[str, int]], topic_names: Sequence[str], topic_codes: np.ndarray,
             partitions: np.ndarray, lo: int = 0, hi: Optional[int] = None) -> "TopicPartitionList":
        """:meth:`of` without its checks or copies, the pairs already built: for a caller that
        built them from the arrays (a result building every member's list from one pass, the
        arrays shared).

        Example::

            TopicPartitionList.wrap([("a", 5)], ("a",), np.array([0, 0]), np.array([3, 5]), lo=1)

        Parameters
        ----------
        pairs:
            The pairs: ``(topic_names[topic_codes[i]], partitions[i])`` for ``i`` in ``lo:hi``.
        topic_names, topic_codes, partitions:
            As :meth:`of`'s, kept as they are: the caller makes the arrays read-only and does
            not change the names.
        lo, hi:
            The rows of the arrays this list is (``hi`` None: to the end).
        """
        out = _NEW(cls)                  # list's own: __init__ and extend refuse
        _EXTEND(out, pairs)
        out._rows = (topic_names, topic_codes, partitions, lo, len(topic_codes) if hi is None else hi)
        return out

    @classmethod
    def wrap_runs(cls, keys: Sequence[str], pairs: List[Tuple[str, int]], bounds: Sequence[int],
                  topic_names: Sequence[str], topic_codes: np.ndarray, partitions: np.ndarray
                  ) -> Dict[str, "TopicPartitionList"]:
        """:meth:`wrap` for consecutive runs of one list of pairs: ``{keys[k]: rows bounds[k] to
        bounds[k + 1]}``, in one loop (a result builds a list per member this way).

        Example::

            TopicPartitionList.wrap_runs(["c1", "c2"], [("a", 0), ("a", 1)], [0, 1, 2], ("a",),
                                         np.array([0, 0]), np.array([0, 1]))["c2"] == [("a", 1)]
        """
        out: Dict[str, TopicPartitionList] = {}
        for key, lo, hi in zip(keys, bounds, bounds[1:]):
            listed = _NEW(cls)
            _EXTEND(listed, pairs[lo:hi])
            listed._rows = (topic_names, topic_codes, partitions, lo, hi)
            out[key] = listed
        return out

    def __reduce__(self) -> Tuple[Any, ...]:
        # Pickle and copy rebuild from the arrays (the default would append to a read-only list).
        return (TopicPartitionList.of, (self.topic_names, self.topic_codes, self.partitions))

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise ReadOnlyError("a result's list of partitions is read-only: copy it with list(...) to edit")

    append = extend = insert = pop = remove = clear = sort = reverse = _read_only  # type: ignore[assignment]
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only  # type: ignore[assignment]

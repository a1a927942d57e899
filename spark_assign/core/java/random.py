"""``java.util.Random`` and ``Collections.shuffle``, bit for bit.

Kafka draws its random replica placements from a ``java.util.Random``: the
KRaft controller's ``StripedReplicaPlacer`` (start offsets, reshuffles) and
``AdminUtils.assignReplicasToBrokers`` (start index and replica shift). Given
the same seed, these emulations return the same numbers as OpenJDK (the
algorithm is fixed by the ``Random`` specification, unchanged since Java 1.0):

* state: 48 bits; ``new Random(seed)`` starts at ``(seed ^ 0x5DEECE66D) mod 2^48``;
* ``next(bits)``: ``state = (state * 0x5DEECE66D + 0xB) mod 2^48``, then the top
  ``bits`` bits of the state, as a signed 32-bit int;
* ``nextInt(bound)``: one ``next(31)``; a power-of-two bound takes the high bits
  (``bound * r >> 31``), any other bound takes ``r % bound`` and draws again
  while ``r - r % bound + bound - 1`` overflows a 32-bit int (the rejection that
  makes every residue equally likely);
* ``Collections.shuffle(list, rnd)``: for ``i`` from ``size`` down to 2, swap
  ``list[i - 1]`` with ``list[rnd.nextInt(i)]``.

:func:`random_states` and :func:`next_int_many` draw from many generators at once
(one per topic of a fleet), as NumPy arrays of their 48-bit states: ``uint64``
products wrap modulo 2^64, which keeps the low 48 bits exact.

A subclass may replace :meth:`JavaRandom.next` (as Kafka's tests do with their
``MockRandom``); every other method draws through it.
"""

from __future__ import annotations

from typing import MutableSequence, Optional, Tuple, TypeVar

import numpy as np

__all__ = ["JavaRandom", "java_shuffle", "random_states", "next_int_many", "MULTIPLIER", "ADDEND"]

#: The LCG's multiplier and addend (``java.util.Random``'s 0x5DEECE66D and 0xB).
MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
_MASK48 = (1 << 48) - 1
_INT_MAX = (1 << 31) - 1

T = TypeVar("T")


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class JavaRandom:
    """A ``java.util.Random`` created with ``new Random(seed)``.

    Example::

        rnd = JavaRandom(42)
        [rnd.next_int(10) for _ in range(5)]   # [0, 3, 8, 4, 0], as OpenJDK prints

    Parameters
    ----------
    seed:
        Any Python int; like Java's ``long`` seed, only its low 48 bits matter.
    """

    def __init__(self, seed: int) -> None:
        self._state = (seed ^ MULTIPLIER) & _MASK48

    def next(self, bits: int) -> int:
        """``Random.next(bits)``: the next ``bits`` (1-32) pseudorandom bits, as a signed 32-bit int."""
        self._state = (self._state * MULTIPLIER + ADDEND) & _MASK48
        return _int32(self._state >> (48 - bits))

    def next_int(self, bound: Optional[int] = None) -> int:
        """``nextInt()`` (any int) or ``nextInt(bound)`` (``0 <= value < bound``).

        Example::

            JavaRandom(0).next_int(16) == 11 and JavaRandom(0).next_int(10) == 0

        Parameters
        ----------
        bound:
            The exclusive upper bound, 1 to 2^31 - 1; None for ``nextInt()``.
        """
        if bound is None:
            return self.next(32)
        if not 0 < bound <= _INT_MAX:
            raise ValueError(f"bound must be between 1 and {_INT_MAX}, got {bound}")
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:                       # a power of two: the high bits are the best ones
            return (bound * r) >> 31
        u = r
        r = u % bound
        while _int32(u - r + m) < 0:             # u sits in the last, incomplete run of residues
            u = self.next(31)
            r = u % bound
        return r

    def next_ints(self, bounds: np.ndarray) -> np.ndarray:
        """``nextInt(bounds[0])``, ``nextInt(bounds[1])``, ... in turn: the same values and the
        same final state as that loop, computed as arrays (``int64``).

        The state after ``k`` steps is ``A_k * state + C_k`` modulo 2^48 (the LCG's jump-ahead),
        so the draws up to the first rejection (a value in ``nextInt``'s incomplete last run of
        residues: about one in ``2^31 / bound`` draws) are one array expression; a rejection
        redraws that value one by one, as ``nextInt`` does, and the rest continue from there.
        A subclass that replaces :meth:`next` (Kafka's ``MockRandom``) draws one by one.

        Example::

            rnd = JavaRandom(42)
            rnd.next_ints(np.array([10, 10])).tolist() == [0, 3]

        Parameters
        ----------
        bounds:
            Exclusive upper bounds, each 1 to 2^31 - 1.
        """
        bounds = np.asarray(bounds, dtype=np.int64)
        if type(self).next is not JavaRandom.next:
            return np.array([self.next_int(int(b)) for b in bounds.tolist()], dtype=np.int64)
        if len(bounds) and not (bounds.min() > 0 and bounds.max() <= _INT_MAX):
            raise ValueError(f"bounds must be between 1 and {_INT_MAX}")
        out = np.empty(len(bounds), dtype=np.int64)
        done = 0
        while done < len(bounds):
            step, jump = _jumps(len(bounds) - done)
            states = (step * np.uint64(self._state) + jump) & np.uint64(_MASK48)
            r = (states >> np.uint64(17)).astype(np.int64)          # next(31)
            b = bounds[done:]
            power = b & (b - 1) == 0
            value = np.where(power, (b * r) >> 31, r % b)
            rejected = np.flatnonzero(~power & (r - r % b + (b - 1) > _INT_MAX))
            take = int(rejected[0]) if len(rejected) else len(b)
            out[done:done + take] = value[:take]
            if take == len(b):
                self._state = int(states[-1])
                break
            self._state = int(states[take])                          # the rejected draw is spent
            out[done + take] = self._redraw(int(b[take]))
            done += take + 1
        return out

    def _redraw(self, bound: int) -> int:
        """The rest of ``nextInt(bound)`` after a rejected draw: draw again until accepted."""
        while True:
            u = self.next(31)
            r = u % bound
            if _int32(u - r + bound - 1) >= 0:
                return r

    def next_long(self) -> int:
        """``nextLong()``: two ``next(32)`` draws as one signed 64-bit value."""
        high = self.next(32)
        low = self.next(32)
        value = ((high << 32) + low) & 0xFFFFFFFFFFFFFFFF
        return value - (1 << 64) if value >> 63 else value


def java_shuffle(items: MutableSequence[T], rnd: JavaRandom) -> None:
    """``Collections.shuffle(items, rnd)`` in place: the same permutation Java makes.

    Example::

        names = ["a", "b", "c", "d"]
        java_shuffle(names, JavaRandom(7))

    Parameters
    ----------
    items:
        The list to permute in place.
    rnd:
        The generator to draw from (``size - 1`` draws of ``nextInt``).
    """
    swaps = rnd.next_ints(np.arange(len(items), 1, -1)).tolist()
    for i, j in zip(range(len(items), 1, -1), swaps):
        items[i - 1], items[j] = items[j], items[i - 1]


_JUMPS: Tuple[np.ndarray, np.ndarray] = (np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64))


def _jumps(count: int) -> Tuple[np.ndarray, np.ndarray]:
    """``(A_k, C_k)`` for ``k`` = 1..count: ``k`` LCG steps take ``s`` to ``A_k * s + C_k``
    (mod 2^48; kept as wrapping ``uint64``, whose low 48 bits are exact). Cached, grown by
    doubling."""
    global _JUMPS
    step, jump = _JUMPS
    if len(step) < count:
        size = max(count, 2 * len(step), 1024)
        a, c = np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.uint64)
        x, y = 1, 0
        for k in range(size):
            x, y = (x * MULTIPLIER) & _MASK48, (y * MULTIPLIER + ADDEND) & _MASK48
            a[k], c[k] = x, y
        _JUMPS = step, jump = a, c
    return step[:count], jump[:count]


def random_states(seeds: np.ndarray) -> np.ndarray:
    """The states of ``new Random(seed)`` for each seed (``int64``), as ``uint64``.

    Example::

        values, _ = next_int_many(random_states(np.array([42, 0])), 10)   # [0, 0], as JavaRandom
    """
    return (np.asarray(seeds, dtype=np.int64).view(np.uint64) ^ np.uint64(MULTIPLIER)) & np.uint64(_MASK48)


def next_int_many(states: np.ndarray, bound: int) -> Tuple[np.ndarray, np.ndarray]:
    """``nextInt(bound)`` of every generator: the values (``int64``) and the states after.

    Example::

        states = random_states(np.array([42]))
        first, states = next_int_many(states, 10)
        second, states = next_int_many(states, 10)     # [0] then [3]: JavaRandom(42)'s draws

    Parameters
    ----------
    states:
        ``uint64`` states (from :func:`random_states` or a previous call); not modified.
    bound:
        The exclusive upper bound, 1 to 2^31 - 1, the same for every generator.
    """
    if not 0 < bound <= _INT_MAX:
        raise ValueError(f"bound must be between 1 and {_INT_MAX}, got {bound}")
    mult, add, mask = np.uint64(MULTIPLIER), np.uint64(ADDEND), np.uint64(_MASK48)
    states = (states * mult + add) & mask
    r = (states >> np.uint64(17)).astype(np.int64)          # next(31): never negative
    if bound & (bound - 1) == 0:
        return (bound * r) >> 31, states
    value = r % bound
    again = r - value + (bound - 1) > _INT_MAX               # the rejected, incomplete last run
    while again.any():
        redo = np.flatnonzero(again)
        states[redo] = (states[redo] * mult + add) & mask
        r = (states[redo] >> np.uint64(17)).astype(np.int64)
        value[redo] = r % bound
        again[:] = False
        again[redo] = r - value[redo] + (bound - 1) > _INT_MAX
    return value, states

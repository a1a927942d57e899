"""Kafka's test ``MockRandom`` (server-common ``org.apache.kafka.server.util.MockRandom``), for porting its tests.

It subclasses ``java.util.Random`` and replaces ``next(bits)`` with a 64-bit LCG
(multiplier 2862933555777941757, increment 3037000493, default state 17),
returning the top ``bits`` bits; ``nextInt(bound)`` and ``Collections.shuffle``
then run Java's own code on those bits. Kafka's placement tests assert outputs
drawn from it, so ours must draw the same numbers.
"""

from __future__ import annotations

from spark_assign.core.java.random import JavaRandom

_MASK64 = (1 << 64) - 1


class MockRandom(JavaRandom):
    """``new MockRandom()`` (state 17) or ``new MockRandom(state)``."""

    def __init__(self, state: int = 17) -> None:
        super().__init__(0)
        self.state = state & _MASK64

    def next(self, bits: int) -> int:
        self.state = (self.state * 2862933555777941757 + 3037000493) & _MASK64
        value = self.state >> (64 - bits)                      # Java: (int) (state >>> (64 - bits))
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value

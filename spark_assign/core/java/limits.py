"""Kafka's numeric limits, one home for every check that needs them."""

from __future__ import annotations

__all__ = ["MAX_PARTITIONS", "INT32_MIN"]

#: Kafka's partition ids are 32-bit signed integers (``int32`` in its protocol), so a topic has at most this many.
MAX_PARTITIONS = 2**31 - 1
#: The smallest 32-bit signed integer (Kafka's generation ids are ``int32`` too).
INT32_MIN = -(2**31)

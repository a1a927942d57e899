"""Kafka's group records written, byte for byte as its coordinator writes them: the inverse of
:mod:`.decode`, for test data and benchmarks (``spark_assign.testing``) and for round-trip checks
against the bytes Kafka's own serializers wrote (``tests/data/kafka_consumer_offsets_records.json``).

A value is a ``dict`` with Kafka's field names, as :mod:`.decode` returns it; a field missing from
the dict takes its default (``None`` for nullable ones, the empty list for arrays).

Example
-------
>>> encode_key(2, group="g1")
b'\\x00\\x02\\x00\\x02g1'
"""

from __future__ import annotations

import base64
import struct
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .decode import empty_struct
from .schemas import ASSIGNMENT, KEYS, STICKY_USER_DATA, SUBSCRIPTION, VALUES, Field, Message

__all__ = ["encode_key", "encode_value", "encode_subscription", "encode_assignment", "encode_sticky_user_data",
           "write_message"]


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _length(n: int, flexible: bool, wide: bool) -> bytes:
    if flexible:
        return _uvarint(n + 1)
    return struct.pack(">i" if wide else ">h", n)


def _field(field: Field, value: Any, version: int, flexible: bool) -> bytes:
    kind = field.type
    if kind in ("int8", "int16", "int32", "int64"):
        fmt = {"int8": ">b", "int16": ">h", "int32": ">i", "int64": ">q"}[kind]
        return struct.pack(fmt, field.default if value is None else value)
    if kind == "uuid":
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    if kind == "string":
        if value is None:
            return _length(-1, flexible, False)
        raw = value.encode("utf-8")
        return _length(len(raw), flexible, False) + raw
    if kind == "bytes":
        if value is None:
            return _length(-1, flexible, True)
        return _length(len(value), flexible, True) + bytes(value)
    if kind == "struct":
        tagged = field.tag is not None          # a tagged struct's marker is a varint, else a byte
        if value is None:
            return _uvarint(0) if tagged else struct.pack(">b", -1)
        prefix = (_uvarint(1) if tagged else struct.pack(">b", 1)) if field.nullable(version) else b""
        return prefix + _struct(field.fields, value, version, flexible)
    items = [] if value is None else list(value)
    out = [_length(len(items), flexible, True)]
    for item in items:
        if kind == "[]int32":
            out.append(struct.pack(">i", item))
        elif kind == "[]string":
            out.append(_field(Field("", "string"), item, version, flexible))
        else:
            out.append(_struct(field.fields, item, version, flexible))
    return b"".join(out)


def _struct(fields: Iterable[Field], value: Dict[str, Any], version: int, flexible: bool) -> bytes:
    out: List[bytes] = []
    tagged: List[Tuple[int, bytes]] = []
    for field in fields:
        if not field.in_version(version):
            continue
        if field.tag is not None:
            # Written unless it holds its default (an empty struct): null is written, as a marker.
            given = value.get(field.name, empty_struct(field.fields))
            if given != empty_struct(field.fields):
                tagged.append((field.tag, _field(field, given, version, flexible)))
            continue
        out.append(_field(field, value.get(field.name), version, flexible))
    if flexible:
        out.append(_uvarint(len(tagged)))
        for tag, raw in sorted(tagged):
            out.append(_uvarint(tag) + _uvarint(len(raw)) + raw)
    return b"".join(out)


def write_message(message: Message, value: Dict[str, Any], version: int) -> bytes:
    """``value`` as ``message`` at ``version``, without a version prefix."""
    return _struct(message.fields, value, version, message.flexible(version))


def encode_key(record_type: int, **fields: Any) -> bytes:
    """A record's key: its type, then its fields by Kafka's names (``group``/``GroupId``, ...)."""
    return struct.pack(">h", record_type) + write_message(KEYS[record_type], fields, record_type)


def encode_value(record_type: int, value: Dict[str, Any], version: int) -> bytes:
    """A record's value at ``version``, with its version prefix."""
    return struct.pack(">h", version) + write_message(VALUES[record_type], value, version)


def encode_subscription(value: Dict[str, Any], version: int) -> bytes:
    """A classic consumer's subscription bytes (``ConsumerProtocolSubscription``)."""
    return struct.pack(">h", version) + write_message(SUBSCRIPTION, value, version)


def encode_assignment(value: Dict[str, Any], version: int) -> bytes:
    """A classic consumer's assignment bytes (``ConsumerProtocolAssignment``)."""
    return struct.pack(">h", version) + write_message(ASSIGNMENT, value, version)


def encode_sticky_user_data(claims: Dict[str, List[int]], generation: Optional[int]) -> bytes:
    """``StickyAssignor``'s user data; with a generation, the second form (as Kafka writes it)."""
    value = {"previous_assignment": [{"topic": t, "partitions": p} for t, p in claims.items()],
             "generation": generation}
    return write_message(STICKY_USER_DATA, value, 0 if generation is None else 1)

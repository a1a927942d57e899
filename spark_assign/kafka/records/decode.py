"""One ``__consumer_offsets`` record, decoded: its key, its value, the bytes a classic member embeds.

Every decoder returns a ``dict`` with Kafka's field names (the shape Kafka's own JSON converters
print, bytes as raw ``bytes``) or raises :class:`~spark_assign.errors.RecordFormatError` saying what
it could not read. It reads as Kafka's readers do: a version newer than the known ones is read as
the newest (the coordinator and ``ConsumerProtocol`` both do), bytes past the last field are
ignored, and a record cut short is refused.

Example
-------
>>> key = decode_key(b"\\x00\\x02\\x00\\x02g1")
>>> key.record_type, key.group_id
(2, 'g1')
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional

from ...errors import RecordFormatError
from .schemas import ASSIGNMENT, KEYS, SHARE_GROUP_TYPES, STICKY_USER_DATA, SUBSCRIPTION, VALUES, Field, Message
from .wire import Reader

__all__ = ["RecordKey", "empty_struct", "decode_key", "decode_value", "decode_subscription", "decode_assignment",
           "decode_sticky_user_data", "read_message"]

Decoded = Dict[str, Any]


class RecordKey(NamedTuple):
    """A decoded key: its record type, the group it belongs to, and the rest of it (Kafka's names).

    ``fields`` is empty for a share group's record, which is recognised and not read.
    """

    record_type: int
    group_id: Optional[str]
    fields: Decoded


def read_message(reader: Reader, message: Message, version: int) -> Decoded:
    """Reads ``message`` at ``version`` from ``reader``: each field the version has, in order, then
    (flexible versions) the tagged fields, of which the known ones are decoded."""
    flexible = message.flexible(version)
    return _read_struct(reader, message.fields, version, flexible)


def _read_struct(reader: Reader, fields: "tuple[Field, ...]", version: int, flexible: bool) -> Decoded:
    out: Decoded = {}
    for field in fields:
        if field.tag is not None:
            out[field.name] = empty_struct(field.fields) if field.type == "struct" else field.default
        elif field.in_version(version):
            out[field.name] = _read_field(reader, field, version, flexible)
        elif field.default is not None:
            out[field.name] = field.default
    if flexible:
        tagged = reader.tagged_fields()
        for field in fields:
            if field.tag is not None and field.tag in tagged and field.in_version(version):
                out[field.name] = _read_field(Reader(tagged[field.tag], reader.what), field, version, flexible)
    return out


def _read_field(reader: Reader, field: Field, version: int, flexible: bool) -> Any:
    kind = field.type
    if kind == "int8":
        return reader.int8()
    if kind == "int16":
        return reader.int16()
    if kind == "int32":
        return reader.int32()
    if kind == "int64":
        return reader.int64()
    if kind == "uuid":
        return reader.uuid()
    if kind == "string":
        value = reader.string(flexible)
        return _non_null(value, field, version, reader)
    if kind == "bytes":
        return _non_null(reader.bytes(flexible), field, version, reader)
    if kind == "struct":
        # A nullable struct starts with a marker: a varint 0 (null) or 1 in a tagged field, as
        # Kafka's generated code writes it there; a byte, negative for null, elsewhere.
        if field.nullable(version):
            marker = reader.uvarint() if field.tag is not None else reader.int8()
            if marker <= 0:
                return None
        return _read_struct(reader, field.fields, version, flexible)
    count = reader.length(flexible, wide=True)
    if count < 0:
        return _non_null(None, field, version, reader)
    if count > reader.remaining():           # each element takes at least one byte
        raise RecordFormatError(f"truncated {reader.what}: {field.name} claims {count} elements")
    if kind == "[]int32":
        return [reader.int32() for _ in range(count)]
    if kind == "[]string":
        return [_non_null(reader.string(flexible), field, version, reader) for _ in range(count)]
    return [_read_struct(reader, field.fields, version, flexible) for _ in range(count)]


def empty_struct(fields: "tuple[Field, ...]") -> Decoded:
    """A struct with every field at Kafka's zero value: what a tagged struct field holds when its
    tag is absent (the generated classes start it as ``new Struct()``)."""
    zero = {"int8": 0, "int16": 0, "int32": 0, "int64": 0, "string": "", "bytes": b""}
    return {f.name: empty_struct(f.fields) if f.type == "struct" else zero.get(f.type, [])
            for f in fields if f.tag is None}


def _non_null(value: Any, field: Field, version: int, reader: Reader) -> Any:
    if value is None and not field.nullable(version):
        raise RecordFormatError(f"{reader.what}: {field.name} is null, which version {version} does not allow")
    return value


def decode_key(raw: Optional[bytes]) -> RecordKey:
    """A record's key: its type (the ``int16`` it starts with) and fields.

    Raises :class:`RecordFormatError` for a missing or truncated key or a type Kafka's group
    coordinator does not write.
    """
    if raw is None:
        raise RecordFormatError("a record without a key")
    reader = Reader(raw, "key")
    record_type = reader.int16()
    if record_type in SHARE_GROUP_TYPES:
        return RecordKey(record_type, None, {})
    message = KEYS.get(record_type)
    if message is None:
        raise RecordFormatError(f"unknown record type {record_type} (key version); known: 0-16")
    fields = read_message(reader, message, record_type)
    group = fields.get("group", fields.get("GroupId"))
    return RecordKey(record_type, group, fields)


def decode_value(record_type: int, raw: bytes) -> "tuple[int, Decoded]":
    """A record's value (not a tombstone): its version and fields.

    A version newer than Kafka's known ones is read as the newest known, as Kafka's coordinator
    reads it (its generated readers test ``version >= n`` only; KIP-915 made the group records
    forward compatible: newer versions add tagged fields, which are skipped). Raises
    :class:`RecordFormatError` for a negative version or a value cut short.
    """
    message = VALUES[record_type]
    reader = Reader(raw, message.name)
    version = reader.int16()
    if version < message.low:
        raise RecordFormatError(f"unknown {message.name} version {version} (known: {message.low}-{message.high})")
    return version, read_message(reader, message, min(version, message.high))


def _embedded(message: Message, raw: bytes) -> Decoded:
    reader = Reader(raw, message.name)
    version = reader.int16()
    if version < message.low:
        raise RecordFormatError(f"unsupported {message.name} version {version}")
    return read_message(reader, message, min(version, message.high))


def decode_subscription(raw: bytes) -> Decoded:
    """A classic consumer's ``ConsumerProtocolSubscription`` (what it sent when it joined)."""
    return _embedded(SUBSCRIPTION, raw)


def decode_assignment(raw: bytes) -> Decoded:
    """A classic consumer's ``ConsumerProtocolAssignment`` (what its leader gave it)."""
    return _embedded(ASSIGNMENT, raw)


def decode_sticky_user_data(raw: Optional[bytes]) -> "tuple[List[tuple[str, int]], Optional[int]]":
    """``StickyAssignor``'s user data: the member's previous partitions and its generation.

    As Kafka's ``StickyAssignor.memberData``: no user data is no claim and no generation; the form
    with a generation is tried first, then the one without; user data neither form reads is
    ignored (no claim, generation -1), not an error.
    """
    if not raw:
        return [], None
    for version in (1, 0):
        try:
            data = read_message(Reader(raw, STICKY_USER_DATA.name), STICKY_USER_DATA, version)
        except RecordFormatError:
            continue
        claims = [(t["topic"], p) for t in data["previous_assignment"] for p in t["partitions"]]
        return claims, data.get("generation")
    return [], -1

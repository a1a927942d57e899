"""Kafka's wire primitives, read from bytes: the building blocks of every message it stores.

Kafka writes its messages with two encodings (KIP-482):

* *non-flexible* versions: a string is an ``int16`` length then UTF-8 (``-1`` = null), bytes an
  ``int32`` length (``-1`` = null), an array an ``int32`` count (``-1`` = null);
* *flexible* versions: lengths and counts are unsigned varints holding ``n + 1`` (``0`` = null),
  and every struct ends with a tagged-field section (a varint count, then per field a varint tag,
  a varint size and the field's bytes), which is how a newer writer adds fields an older reader
  may skip.

All integers are big-endian and signed; a ``uuid`` is 16 bytes. :class:`Reader` raises
:class:`~spark_assign.errors.RecordFormatError` on anything that runs past the end, so a truncated
record is named, never half-read.
"""

from __future__ import annotations

import base64
import builtins
import struct
from typing import Dict, Optional

from ...errors import RecordFormatError

__all__ = ["Reader", "uuid_string"]

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


def uuid_string(raw: bytes) -> str:
    """A topic id as Kafka prints it (``Uuid.toString``): URL-safe base64 of its 16 bytes, unpadded."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class Reader:
    """Reads Kafka's primitives from ``data``, front to back.

    Example
    -------
    >>> r = Reader(b"\\x00\\x02\\x00\\x03abc")
    >>> r.int16(), r.string()
    (2, 'abc')
    """

    __slots__ = ("data", "pos", "what")

    def __init__(self, data: bytes, what: str = "record") -> None:
        self.data = memoryview(data)
        self.pos = 0
        self.what = what

    # -- fixed width ----------------------------------------------------------------------------

    def _take(self, n: int) -> memoryview:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise RecordFormatError(f"truncated {self.what}: needs {n} bytes at byte {self.pos}, "
                                    f"has {len(self.data) - self.pos}")
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def int8(self) -> int:
        return int.from_bytes(self._take(1), "big", signed=True)

    def int16(self) -> int:
        value: int = _INT16.unpack(self._take(2))[0]
        return value

    def int32(self) -> int:
        value: int = _INT32.unpack(self._take(4))[0]
        return value

    def int64(self) -> int:
        value: int = _INT64.unpack(self._take(8))[0]
        return value

    def uuid(self) -> str:
        return uuid_string(bytes(self._take(16)))

    def uvarint(self) -> int:
        """An unsigned varint (7 bits a byte, low first), at most 5 bytes as Kafka reads an int."""
        value = shift = 0
        for _ in range(5):
            byte = self._take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
        raise RecordFormatError(f"bad varint in {self.what} at byte {self.pos}")

    # -- lengths, strings, bytes ----------------------------------------------------------------

    def length(self, flexible: bool, wide: bool = False) -> int:
        """A length or count: ``-1`` means null. ``wide``: an ``int32`` (bytes, arrays) before
        flexible versions, else an ``int16`` (strings)."""
        if flexible:
            return self.uvarint() - 1
        return self.int32() if wide else self.int16()

    def string(self, flexible: bool = False) -> Optional[str]:
        n = self.length(flexible)
        if n < 0:
            return None
        raw = self._take(n)
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError as e:
            raise RecordFormatError(f"a string in {self.what} at byte {self.pos - n} is not UTF-8") from e

    def bytes(self, flexible: bool = False) -> "Optional[builtins.bytes]":
        n = self.length(flexible, wide=True)
        return None if n < 0 else builtins.bytes(self._take(n))

    def tagged_fields(self) -> "Dict[int, builtins.bytes]":
        """A flexible struct's tagged fields: tag -> raw bytes (the caller reads the ones it knows)."""
        fields: "Dict[int, builtins.bytes]" = {}
        for _ in range(self.uvarint()):
            tag = self.uvarint()
            fields[tag] = builtins.bytes(self._take(self.uvarint()))
        return fields

    def remaining(self) -> int:
        """Bytes not read yet. Like Kafka's readers, the decoders ignore what a record has past its
        last field (a newer writer's additions); only a record cut short is an error."""
        return len(self.data) - self.pos

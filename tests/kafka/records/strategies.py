"""Hypothesis strategies for Kafka's group records, built from the message definitions themselves
(``spark_assign.kafka.records.schemas``): any value of any message at any version, drawn field by
field, so a failure shrinks to the smallest record that shows it."""

from __future__ import annotations

from typing import Any, Dict

from hypothesis import strategies as st

from spark_assign.kafka.records.schemas import Field, Message
from spark_assign.kafka.records.wire import uuid_string

# Ids as users make them: ASCII, accents, CJK, emoji, long.
TEXT = st.one_of(st.text(max_size=12), st.text(alphabet="abcé注文😀-._", min_size=100, max_size=300))
_INTS = {"int8": (-128, 127), "int16": (-2 ** 15, 2 ** 15 - 1), "int32": (-2 ** 31, 2 ** 31 - 1),
         "int64": (-2 ** 63, 2 ** 63 - 1)}


def field_values(field: Field, version: int, depth: int = 0) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _INTS:
        base: st.SearchStrategy[Any] = st.integers(*_INTS[kind])
    elif kind == "uuid":
        base = st.binary(min_size=16, max_size=16).map(uuid_string)
    elif kind == "string":
        base = TEXT
    elif kind == "bytes":
        base = st.binary(max_size=40)
    elif kind == "[]int32":
        base = st.lists(st.integers(*_INTS["int32"]), max_size=6)
    elif kind == "[]string":
        base = st.lists(TEXT, max_size=4)
    elif kind == "struct":
        base = struct_values(field.fields, version, depth + 1)
    else:
        base = st.lists(struct_values(field.fields, version, depth + 1), max_size=3 if depth == 0 else 2)
    if field.nullable(version):
        return st.one_of(st.none(), base)
    return base


def struct_values(fields: "tuple[Field, ...]", version: int, depth: int = 0) -> st.SearchStrategy[Dict[str, Any]]:
    present = {f.name: field_values(f, version, depth) for f in fields if f.in_version(version)}
    return st.fixed_dictionaries(present)


def message_values(message: Message, version: int) -> st.SearchStrategy[Dict[str, Any]]:
    """A value of ``message`` at ``version``: the fields that version has."""
    return struct_values(message.fields, version)


def as_decoded(message: Message, version: int, value: Dict[str, Any]) -> Dict[str, Any]:
    """``value`` as the decoder returns it: fields absent from ``version`` at their defaults."""
    return _fill(message.fields, version, value)


def _fill(fields: "tuple[Field, ...]", version: int, value: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for f in fields:
        if f.in_version(version):
            v = value.get(f.name)
            if f.type == "[]" and v is not None:
                v = [_fill(f.fields, version, item) for item in v]
            elif f.type == "struct" and v is not None:
                v = _fill(f.fields, version, v)
            out[f.name] = v
        elif f.default is not None or f.tag is not None:
            out[f.name] = f.default
    return out

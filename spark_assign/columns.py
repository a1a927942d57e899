"""The column rules every input shares, Spark or not: names, misnamed columns, unknown columns.

An input (subscriptions, topics, weights, a previous assignment) is checked
against a list of ``(name, type, required)`` (:mod:`spark_assign.schema`).
What depends only on the column *names* lives here, so the DataFrame method
(:func:`spark_assign.spark.inputs.check_columns`, over a Spark schema) and the
Spark-free CLI path (:func:`check_arrow_columns`, over an Arrow schema) refuse
and warn about the same inputs with the same words. No Spark import.
"""

from __future__ import annotations

import difflib
import re
import warnings
from typing import Callable, Dict, List, Mapping, Tuple, TypeVar

import pyarrow as pa

from .errors import SchemaError, UnknownColumnWarning

__all__ = ["COLUMN_ALIASES", "check_names", "check_required", "warn_unknown_columns", "arrow_type_matches",
           "check_arrow_columns", "check_fields"]

#: Other names users give the expected columns (other tools' headers, other spellings), beyond
#: case and separators (``GroupId``, ``group-id``, ``Group_ID`` all read as ``group_id``). An input
#: that has one of these and lacks the expected column named it wrongly: it is refused, not read
#: as a missing optional column (a file with ``group`` but no ``group_id`` would otherwise become
#: one group ``default``).
COLUMN_ALIASES: Dict[str, Tuple[str, ...]] = {
    "group_id": ("group", "consumer_group", "consumergroup", "group_name", "groupname"),
    "member_id": ("member", "consumer_id", "consumerid", "consumer"),
    "topic": ("topic_name", "topicname", "topics"),
    "group_instance_id": ("instance_id", "instanceid", "static_member_id"),
    "owned_partitions": ("owned", "owned_partition", "assigned_partitions"),
    "num_partitions": ("partitions", "partition_count", "partitioncount", "partition_counts"),
}

Columns = List[Tuple[str, str, bool]]
T = TypeVar("T")


def _spelling(name: str) -> str:
    """``name`` without case and separators: ``Group-ID`` and ``group_id`` read the same."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def check_names(what: str, fields: List[str], columns: Columns) -> None:
    """Raise :class:`SchemaError` naming every expected column that is absent while a field carries
    one of its other names (:data:`COLUMN_ALIASES`, or its spelling in another case or with other
    separators).

    Example::

        check_names("subscriptions", ["group", "member_id", "topic"], SUBSCRIPTION_COLUMNS)   # raises
    """
    expected = {c for c, _, _ in columns}
    found: List[Tuple[str, str]] = []
    for name, _, _ in columns:
        if name in fields:
            continue
        spellings = {_spelling(name)} | {_spelling(a) for a in COLUMN_ALIASES.get(name, ())}
        found += [(field, name) for field in fields if field not in expected and _spelling(field) in spellings][:1]
    if found:
        where = ", ".join(f"a column '{field}' where '{name}' is expected" for field, name in found)
        field, name = found[0]
        them = "it" if len(found) == 1 else "them"
        raise SchemaError(f"{what} has {where}; rename {them} (for example df.withColumnRenamed('{field}', "
                          f"'{name}')); its columns: {', '.join(fields)}")


def check_required(what: str, fields: List[str], columns: Columns) -> None:
    """Raise :class:`SchemaError` for the first required column ``fields`` lacks, with the unread
    field closest to its name as a hint."""
    for name, expected, required in columns:
        if required and name not in fields:
            unread = [f for f in fields if f not in {c for c, _, _ in columns}]
            close = difflib.get_close_matches(name, unread, n=1, cutoff=0.6)
            hint = f" (is '{close[0]}' meant to be '{name}'?)" if close else ""
            raise SchemaError(
                f"{what} lacks the required column '{name}' ({expected}){hint}; it has: {', '.join(fields)}")


def warn_unknown_columns(what: str, fields: List[str], columns: Columns, stacklevel: int = 3) -> None:
    """Warn (:class:`UnknownColumnWarning`) about the fields that are none of ``columns``, each
    with the closest expected name: they are ignored, and often a typo."""
    expected = [c for c, _, _ in columns]
    unknown = [f for f in fields if f not in expected]
    if not unknown:
        return
    hints = []
    for field in unknown:
        close = difflib.get_close_matches(field, expected, n=1, cutoff=0.5)
        hints.append(f"'{field}' (closest expected: '{close[0]}')" if close else f"'{field}'")
    warnings.warn(UnknownColumnWarning(
        f"{what} has columns spark-assign does not read, ignored: {', '.join(hints)}; "
        f"the columns it reads: {', '.join(expected)}"), stacklevel=stacklevel)


def arrow_type_matches(dtype: pa.DataType, expected: str) -> bool:
    """Whether an Arrow column of type ``dtype`` is accepted where the project's DDL type
    ``expected`` is written: the Arrow twin of :func:`spark_assign.spark.inputs.type_matches`
    (``int``: any integer width; ``double``: any number; ``string``; ``boolean``;
    ``array<int>``); a column of nulls only (Arrow's ``null`` type) fits any."""
    if pa.types.is_null(dtype):
        return True
    if expected == "string":
        return pa.types.is_string(dtype) or pa.types.is_large_string(dtype)
    if expected == "boolean":
        return pa.types.is_boolean(dtype)
    if expected == "int":
        return pa.types.is_integer(dtype)
    if expected == "double":
        return pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_decimal(dtype)
    if expected == "array<int>":
        return (pa.types.is_list(dtype) or pa.types.is_large_list(dtype)) and pa.types.is_integer(dtype.value_type)
    return False


def check_arrow_columns(table: pa.Table, what: str, columns: Columns, warn_unknown: bool = False) -> Dict[str, pa.DataType]:
    """:func:`spark_assign.spark.inputs.check_columns` for an Arrow table: the same refusals
    (misnamed, missing, mistyped columns) and warning; the present columns' types.

    Example::

        check_arrow_columns(pa.table({"member_id": ["m"], "topic": ["t"]}), "subscriptions", SUBSCRIPTION_COLUMNS)
    """
    return check_fields(what, {f.name: f.type for f in table.schema}, columns, arrow_type_matches, str, warn_unknown)


def check_fields(what: str, fields: Mapping[str, T], columns: Columns, matches: Callable[[T, str], bool],
                 describe: Callable[[T], str], warn_unknown: bool = False) -> Dict[str, T]:
    """The checks of an input's schema, whatever holds it: ``fields`` maps each column name to its
    type (Spark's or Arrow's), ``matches(type, expected)`` says whether a type is accepted where
    ``expected`` (the project's DDL) is written, ``describe`` names a type in an error. Raises
    :class:`SchemaError` for a misnamed, missing or mistyped column; with ``warn_unknown`` warns
    about the columns none of ``columns`` names. Returns the present columns' types."""
    check_names(what, list(fields), columns)
    check_required(what, list(fields), columns)
    present: Dict[str, T] = {}
    for name, expected, _ in columns:
        if name not in fields:
            continue
        if not matches(fields[name], expected):
            raise SchemaError(f"{what} column '{name}' must be {expected}, got {describe(fields[name])}")
        present[name] = fields[name]
    if warn_unknown:                                        # only for an input that is taken
        warn_unknown_columns(what, list(fields), columns, stacklevel=4)
    return present

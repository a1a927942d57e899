"""Offset commits decoded a column at a time: most of ``__consumer_offsets`` is these.

A commit's key and value have fixed layouts per version, so they are read with NumPy over the
Arrow buffers, a million records at once, without a Python object per record:

* key (types 0 and 1): ``int16 type``, ``string group``, ``string topic``, ``int32 partition``;
* value: ``int16 version``, ``int64 offset``, then by version

  ==== ===========================================================================
  0    ``string metadata``, ``int64 commit timestamp``
  1    ``string metadata``, ``int64 commit timestamp``, ``int64 expire timestamp``
  2    ``string metadata``, ``int64 commit timestamp``
  3    ``int32 leader epoch``, ``string metadata``, ``int64 commit timestamp``
  4    as 3, flexible: a varint metadata length, then tagged fields
  ==== ===========================================================================

A record off this fast path (a version-4 metadata of 127 bytes or more, a cut-short record, bytes
that are not UTF-8, an unknown version) is read by the general decoder (:mod:`.decode`), which
gives the same answer or names the problem. Tests hold the two to the same output.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Tuple

import numpy as np
import pyarrow as pa

from ...errors import RecordFormatError
from ...schema import KAFKA_OFFSET_COLUMNS
from ...types import arrow_schema
from .arrays import PAD, flat, int_reader, utf8_strings
from .decode import decode_key, decode_value

__all__ = ["OffsetRows", "decode_offset_commits", "OFFSETS_SCHEMA"]

OFFSETS_SCHEMA = arrow_schema(KAFKA_OFFSET_COLUMNS)


class OffsetRows(NamedTuple):
    """Decoded commits (:data:`OFFSETS_SCHEMA`) and the rows that could not be read."""

    table: pa.Table
    problems: List[Tuple[int, str, str]]   # (row, group id or "", problem)


def decode_offset_commits(keys: pa.Array, values: pa.Array) -> OffsetRows:
    """Offset-commit records (keys of type 0 or 1, values not null) as rows of the offsets frame.

    Example
    -------
    >>> import pyarrow as pa
    >>> key = b"\\x00\\x01\\x00\\x01g\\x00\\x01t\\x00\\x00\\x00\\x03"
    >>> value = b"\\x00\\x03" + (42).to_bytes(8, "big") + (7).to_bytes(4, "big") + b"\\x00\\x00" + (1).to_bytes(8, "big")
    >>> decode_offset_commits(pa.array([key]), pa.array([value])).table.to_pylist()[0]["committed_offset"]
    42
    """
    n = len(keys)
    kdata, ks, ke = flat(keys)
    vdata, vs, ve = flat(values)
    k16, v = int_reader(kdata), int_reader(vdata)
    glen = k16(ks + 2, 2)
    tpos = ks + 4 + np.maximum(glen, 0)
    tlen = k16(tpos, 2)
    ppos = tpos + 2 + np.maximum(tlen, 0)
    version = v(vs, 2)
    epoch = np.where(version >= 3, v(vs + 10, 4), -1)
    mpos = vs + np.where(version >= 3, 14, 10)
    first = vdata[np.clip(mpos, 0, len(vdata) - PAD)].astype(np.int64)
    compact = version == 4
    mlen = np.where(compact, first - 1, v(mpos, 2))
    mstart = mpos + np.where(compact, 1, 2)
    tsend = mstart + np.maximum(mlen, 0) + 8
    need = tsend + np.where(version == 1, 8, 0) + np.where(compact, 1, 0)
    fast = ((glen >= 0) & (tlen >= 0) & (ppos + 4 <= ke) & (version >= 0) & (version <= 4)
            & (mlen >= 0) & (~compact | (first < 0x80)) & (need <= ve))
    rows = np.flatnonzero(fast)
    try:
        table = pa.table([
            utf8_strings(kdata, ks[rows] + 4, glen[rows]),
            utf8_strings(kdata, tpos[rows] + 2, tlen[rows]),
            pa.array(k16(ppos[rows], 4).astype(np.int32)),
            pa.array(v(vs[rows] + 2, 8)),
            pa.array(epoch[rows].astype(np.int32), mask=epoch[rows] == -1),
            utf8_strings(vdata, mstart[rows], mlen[rows]),
            pa.array(v(tsend[rows] - 8, 8)),
        ], schema=OFFSETS_SCHEMA)
    except pa.ArrowInvalid:                # a string that is not UTF-8: let the general decoder name it
        rows, table = rows[:0], OFFSETS_SCHEMA.empty_table()
    slow = np.setdiff1d(np.arange(n), rows)
    if len(slow) == 0:
        return OffsetRows(table, [])
    extra, problems = _decode_slowly(keys, values, slow)
    return OffsetRows(pa.concat_tables([table, extra]), problems)


def _decode_slowly(keys: pa.Array, values: pa.Array, rows: np.ndarray) -> Tuple[pa.Table, List[Tuple[int, str, str]]]:
    """Rows off the fast path, one record at a time."""
    decoded: List[tuple] = []
    problems: List[Tuple[int, str, str]] = []
    for row in rows.tolist():
        group = ""
        try:
            key = decode_key(keys[row].as_py())
            group = key.group_id or ""
            _, value = decode_value(key.record_type, values[row].as_py())
        except RecordFormatError as e:
            problems.append((row, group, str(e)))
            continue
        epoch = value.get("leaderEpoch", -1)
        decoded.append((group, key.fields["topic"], key.fields["partition"], value["offset"],
                        None if epoch == -1 else epoch, value["metadata"], value["commitTimestamp"]))
    columns: List[Any] = list(zip(*decoded)) if decoded else [[] for _ in KAFKA_OFFSET_COLUMNS]
    return pa.table([pa.array(list(c), type=f.type) for c, f in zip(columns, OFFSETS_SCHEMA)],
                    schema=OFFSETS_SCHEMA), problems

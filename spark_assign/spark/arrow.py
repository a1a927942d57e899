"""Arrow arrays and scalars from NumPy and Python values and back, without pyarrow's conversions.

``pa.array``, ``pa.scalar`` (hence ``fill_null`` or ``pc.equal`` given a Python
value) and ``to_numpy`` (hence ``np.asarray`` of an Arrow array) import pandas on
their first call (pyarrow looks whether its argument is a pandas object): about
0.14 s in a new process, on this project's machine, more than the rest of the
worker's imports together. Spark starts a
Python worker per task slot and each pays it on its first task, so a
session's first assignment job paid it once per core. The worker's output is
made from NumPy arrays, so it wraps their memory instead (zero-copy), and
nothing on its path imports pandas (``tests/spark/test_worker_imports.py``
holds that).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["from_numpy", "from_strings", "scalar", "fill_null", "to_numpy"]

#: The Arrow types :func:`from_numpy` builds, and the NumPy type of their values.
_NUMPY_TYPES: Dict[pa.DataType, type] = {
    pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
    pa.uint8(): np.uint8, pa.float32(): np.float32, pa.float64(): np.float64,
}


def from_numpy(values: np.ndarray, type: pa.DataType, null: Optional[np.ndarray] = None) -> pa.Array:
    """``values`` as an Arrow array of ``type`` (cast to its NumPy type; copied only if that
    cast or a non-contiguous layout needs it), null where the boolean ``null`` is true.

    Example::

        from_numpy(np.arange(3), pa.int32(), null=np.array([False, True, False]))   # [0, null, 2]

    Parameters
    ----------
    values:
        A one-dimensional NumPy array of numbers.
    type:
        A fixed-width numeric Arrow type: int8 to int64, float32 or float64.
    null:
        Optional boolean array as long as ``values``: the rows that are null.
    """
    if type not in _NUMPY_TYPES:
        raise ValueError(f"type must be one of {sorted(map(str, _NUMPY_TYPES))}; got {type}")
    data: np.ndarray = np.ascontiguousarray(values, dtype=_NUMPY_TYPES[type])
    if data.ndim != 1:
        raise ValueError(f"values must be one-dimensional; got shape {data.shape}")
    validity, null_count = None, 0
    if null is not None and null.any():
        null_count = int(np.count_nonzero(null))
        validity = pa.py_buffer(np.packbits(~np.asarray(null, dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(type, len(data), [validity, pa.py_buffer(data)], null_count=null_count)


def from_strings(values: Sequence[str]) -> pa.Array:
    """``values`` (Python strings, no None) as an Arrow string array.

    Example::

        from_strings(["assigned", "moved"])
    """
    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def scalar(value: Any, type: pa.DataType) -> pa.Scalar:
    """``value`` (a number, a bool or a string) as an Arrow scalar of ``type``.

    Example::

        pc.equal(status, scalar("revoked", pa.string()))
    """
    if pa.types.is_boolean(type):
        bits = pa.py_buffer(np.packbits(np.array([bool(value)]), bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), 1, [None, bits])[0]
    if pa.types.is_string(type):
        return from_strings([value])[0]
    return from_numpy(np.array([value]), type)[0]


def fill_null(values: Union[pa.Array, pa.ChunkedArray], value: Any) -> Union[pa.Array, pa.ChunkedArray]:
    """``values`` with each null replaced by ``value`` (in ``values``' type), as
    ``values.fill_null(value)`` does.

    Example::

        fill_null(batch.column("kind"), 0)
    """
    if values.null_count == 0:
        return values
    return pc.coalesce(values, scalar(value, values.type))


def to_numpy(values: Union[pa.Array, pa.ChunkedArray], dtype: Any) -> np.ndarray:
    """The values of ``values`` (numbers or booleans, no null: fill them first) as a NumPy array
    of ``dtype``, read from Arrow's buffers (zero-copy, read-only, when the types agree).

    Example::

        to_numpy(fill_null(batch.column("kind"), 0), np.int8)
    """
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if array.null_count:
        raise ValueError(f"values must hold no null; got {array.null_count} of {len(array)}")
    n, start = len(array), array.offset
    if n == 0:
        return np.zeros(0, dtype=dtype)
    data = array.buffers()[1]
    if pa.types.is_boolean(array.type):
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little", count=start + n)
        return bits[start:].astype(dtype)
    if array.type not in _NUMPY_TYPES:
        raise ValueError(f"values must be numbers or booleans; got {array.type}")
    kind = np.dtype(_NUMPY_TYPES[array.type])
    return np.frombuffer(data, dtype=kind, count=n, offset=start * kind.itemsize).astype(dtype, copy=False)

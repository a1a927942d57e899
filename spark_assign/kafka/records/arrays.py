"""Binary Arrow arrays read with NumPy: fixed-width big-endian integers and strings at computed
positions, for many records at once (no Python object per record)."""

from __future__ import annotations

from typing import Callable, Tuple

import numpy as np
import pyarrow as pa

__all__ = ["PAD", "flat", "int_reader", "utf8_strings"]

#: Zero bytes added after the data, so a fixed-width read near the end never overruns.
PAD = 16


def flat(arr: pa.Array) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bytes of a binary array (padded), and each row's start and end in them."""
    arr = arr.cast(pa.large_binary())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data_buffer = arr.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    padded = np.zeros(len(data) + PAD, dtype=np.uint8)
    padded[:len(data)] = data
    return padded, offsets[:-1], offsets[1:]


def int_reader(data: np.ndarray) -> Callable[[np.ndarray, int], np.ndarray]:
    """A reader of the integers in ``data`` (from :func:`flat`) at many positions at once."""
    limit = len(data) - PAD

    def read(pos: np.ndarray, width: int) -> np.ndarray:
        """Big-endian signed integers of ``width`` bytes at ``pos`` (positions past the data read 0)."""
        at = np.clip(pos, 0, limit)
        value = np.zeros(len(pos), dtype=np.uint64)
        for i in range(width):
            value = (value << np.uint64(8)) | data[at + i].astype(np.uint64)
        signed = value.astype(np.int64)
        if width < 8:
            top = np.int64(1) << np.int64(8 * width - 1)
            signed = np.where(signed >= top, signed - (top << np.int64(1)), signed)
        return signed
    return read


def utf8_strings(data: np.ndarray, start: np.ndarray, length: np.ndarray) -> pa.Array:
    """The UTF-8 strings at ``start`` of ``length`` bytes; raises ``pa.ArrowInvalid`` if one is not UTF-8."""
    length = length.astype(np.int64)
    out = np.zeros(len(length) + 1, dtype=np.int64)
    np.cumsum(length, out=out[1:])
    index = np.repeat(start - out[:-1], length) + np.arange(out[-1], dtype=np.int64)
    arr = pa.Array.from_buffers(pa.large_string(), len(length), [None, pa.py_buffer(out), pa.py_buffer(data[index])])
    arr.validate(full=True)
    return arr.cast(pa.string())

"""spark_assign.spark.arrow: the worker's conversions give what pyarrow's own give."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_assign.spark.arrow import fill_null, from_numpy, from_strings, scalar, to_numpy

NUMERIC = [pa.int8(), pa.int32(), pa.int64(), pa.float64()]


@given(values=st.lists(st.tuples(st.integers(-100, 100), st.booleans()), max_size=40),
       kind=st.sampled_from(NUMERIC), start=st.integers(0, 5), stop=st.integers(0, 5))
def test_numbers_round_trip_with_nulls_and_slices(values, kind, start, stop):
    numbers = np.array([v for v, _ in values], dtype=np.int64)
    null = np.array([n for _, n in values], dtype=bool)
    array = from_numpy(numbers, kind, null=null)
    assert array.to_pylist() == pa.array(numbers.tolist(), type=kind, mask=null).to_pylist()
    part = array.slice(start, max(0, len(values) - start - stop))          # offsets into the buffers
    assert to_numpy(fill_null(part, 7), np.int64).tolist() == part.fill_null(7).to_pylist()
    assert to_numpy(part.is_null(), bool).tolist() == part.is_null().to_pylist()   # booleans, offset bits


def test_strings_scalars_and_chunked_arrays():
    names = ["assigned", "ré-équilibré", "", "分区" * 40]
    assert from_strings(names).to_pylist() == names
    assert scalar("moved", pa.string()).as_py() == "moved" and scalar(True, pa.bool_()).as_py() is True
    assert scalar(-1, pa.int32()).type == pa.int32()
    status = pa.array(["revoked", None, "kept"])
    assert fill_null(pc.equal(status, scalar("revoked", pa.string())), False).to_pylist() == [True, False, False]
    chunked = pa.chunked_array([pa.array([1, None], pa.int8()), pa.array([3], pa.int8())])
    assert to_numpy(fill_null(chunked, 0), np.int64).tolist() == [1, 0, 3]
    assert to_numpy(pa.array([], pa.int32()), np.int64).dtype == np.int64


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="type must be one of"):
        from_numpy(np.arange(3), pa.string())
    with pytest.raises(ValueError, match="one-dimensional"):
        from_numpy(np.zeros((2, 2)), pa.int64())
    with pytest.raises(ValueError, match="no null; got 1 of 2"):
        to_numpy(pa.array([1, None]), np.int64)
    with pytest.raises(ValueError, match="numbers or booleans; got string"):
        to_numpy(pa.array(["a"]), np.int64)

"""unstack's rows from candlewick._native (C) and from the Python loop are the same
objects field for field, and rows() refuses what it cannot fill;
tests/array_api/test_manipulation.py runs unstack's results through both, and
test_native_module.py the binding."""

import sys

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.layout import Layout

pytest.importorskip("candlewick._native", reason="candlewick._native was not built here (no C compiler)")


def _fields(rows):
    return [(type(r), r._storage, r._dtype, r._device, r._layout.shape, r._layout.strides, r._layout.offset,
             r._layout._contig, r._layout.dense_size) for r in rows]


@pytest.mark.parametrize("shape,axis,transform", [
    ((5, 4), 0, None), ((5, 4), 1, None), ((2, 3, 4), -1, None), ((4, 6), 0, "flip"), ((4, 6), 1, "T"),
    ((0, 3), 0, None), ((3, 0), 0, None), ((1, 5), 0, None), ((4, 3), 0, "broadcast"), ((6, 4), 0, "offset"),
])
def test_c_rows_equal_python_rows(shape, axis, transform):
    x = cw.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    if transform == "flip":
        x = cw.flip(x, axis=0)
    elif transform == "T":
        x = x.T
    elif transform == "broadcast":
        x = cw.broadcast_to(cw.asarray(np.arange(3, dtype=np.float32)), shape)
    elif transform == "offset":
        x = x[2:]
    python_rows = _core.views(x, x._layout.selections(axis))
    c_rows = _core.row_views(x, axis)
    assert type(c_rows) is tuple
    assert _fields(c_rows) == _fields(python_rows)


def test_c_rows_hold_their_references():
    x = cw.asarray(np.ones((8, 3), np.float32))
    counts = [sys.getrefcount(o) for o in (x._storage, x._dtype, x._device)]
    rows = _core.row_views(x, 0)
    assert [sys.getrefcount(o) for o in (x._storage, x._dtype, x._device)] == [n + 8 for n in counts]
    del rows
    assert [sys.getrefcount(o) for o in (x._storage, x._dtype, x._device)] == counts


def test_c_rows_refuse_what_they_cannot_fill():
    x = cw.asarray(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="not of the bound array class"):
        _core._native.rows(object(), (2,), (1,), 0, 2, 2, True, 2)
    with pytest.raises(ValueError, match="count must be >= 0"):
        _core._native.rows(x, (2,), (1,), 0, 2, -1, True, 2)

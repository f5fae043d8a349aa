"""candlewick._native.sort_finish, the cpu backend's sorted rows finished in one pass (its
results through cw.sort: tests/array_api/test_sorting.py, both forms): every itemsize's
rows reversed, and what it refuses."""

import ml_dtypes
import numpy as np
import pytest

from candlewick import _core

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64])
@pytest.mark.parametrize("length", [1, 2, 7, 8, 9, 17, 33])  # around the 16-byte blocks of its ends
def test_reverses_each_row_of_every_itemsize(dtype, length):
    rows = np.arange(3 * length, dtype=dtype).reshape(3, length)
    s = rows.copy()
    _core._native.sort_finish(s, None, -1, True)
    np.testing.assert_array_equal(s, rows[:, ::-1])


def test_rows_of_a_strided_input_each_take_their_own_ties():
    x = np.array([[0.0, 1.0, -0.0], [-0.0, np.nan, 0.0]], np.float32).T.copy().T  # columns contiguous
    s = np.sort(np.ascontiguousarray(x), axis=-1)
    _core._native.sort_finish(s, x, 2, False)
    bits = s.view(np.uint32)
    assert bits[0, :2].tolist() == [0, 0x80000000] and bits[1, :2].tolist() == [0x80000000, 0]


def test_refuses_what_it_cannot_finish():
    finish = _core._native.sort_finish
    s = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="format must be -1 to 3"):
        finish(s, s.copy(), 4, False)
    with pytest.raises(ValueError, match="x must have s's shape and itemsize"):
        finish(s, np.zeros(5, np.float32), 2, False)
    with pytest.raises(ValueError, match="not the format's"):
        finish(s, s.copy(), 3, False)
    with pytest.raises(ValueError, match="x must have s's shape and itemsize"):
        finish(np.zeros(4, ml_dtypes.bfloat16), s, 1, False)
    with pytest.raises(ValueError, match="not C-contiguous"):  # NumPy's own refusals
        finish(np.zeros(8, np.float32)[::2], s, 2, False)
    read_only = s.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        finish(read_only, s, 2, False)
    with pytest.raises(ValueError, match="s must have an axis"):
        finish(np.zeros((), np.float32), np.zeros((), np.float32), 2, False)

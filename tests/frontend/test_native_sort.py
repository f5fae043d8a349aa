"""candlewick._native.sort_rows, the cpu backend's rows sorted with a stable sort's zero
and NaN runs (its results through cw.sort: tests/array_api/test_sorting.py, with and
without it): rows read forwards, backwards and strided (the vector path and the block
path, a row's tail), runs of every length around the 64-element steps, each row its own
runs, every itemsize reversed, and what it refuses."""

import ml_dtypes
import numpy as np
import pytest

from candlewick import _core
from cpu_backend.ordering import KEYED

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

FORMATS = {np.dtype(np.float16): 0, np.dtype(ml_dtypes.bfloat16): 1, np.dtype(np.float32): 2, np.dtype(np.float64): 3}
#: how x is read: forwards (the vector path), backwards (a descending sort's: read in memory order, its
#: runs written back in reverse), every other (the block path), every other backwards (both)
READS = {"forwards": lambda a: a, "backwards": lambda a: a[..., ::-1], "strided": lambda a: a[..., ::2],
         "strided-backwards": lambda a: a[..., ::-2]}


def bits(a):
    return a.view(f"u{a.dtype.itemsize}")


def tied(dtype, shape, seed, nans=0.1):
    """Values with a third zeros of both signs and a tenth NaNs (or ``nans``) of distinct payloads."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    x[rng.random(shape) < 0.35] = 0
    x[rng.random(shape) < 0.5 * (x == 0)] = -0.0
    udt = f"u{np.dtype(dtype).itemsize}"
    nan = np.array(np.nan, dtype).view(udt)
    payloads = (nan | np.arange(1, 9, dtype=udt)) | (np.arange(8, dtype=udt) % 2 << (8 * np.dtype(dtype).itemsize - 1))
    where = rng.random(shape) < nans
    x[where] = payloads.view(dtype)[rng.integers(0, 8, int(where.sum()))]
    return x


def sorted_rows(s, x):
    """s: x's rows sorted by sort_rows as the cpu backend asks: filled and sorted by NumPy's
    default kind, or (bfloat16, and float16 where NumPy's float16 sort is not its FP16 one:
    cpu_backend.ordering.KEYED) sorted through float32 keys by the caller first."""
    if x.dtype in KEYED:
        s[...] = np.sort(x.astype(np.float32), axis=-1).astype(x.dtype)
        _core._native.sort_rows(s, x, FORMATS[x.dtype], False)
    else:
        _core._native.sort_rows(s, x, FORMATS[x.dtype], False, None)


def stable(x):
    """The stable ascending sort of x's rows (NaN last), bit for bit."""
    wide = x.astype(np.float64) if x.dtype == ml_dtypes.bfloat16 else x
    return np.take_along_axis(x, np.argsort(wide, axis=-1, kind="stable"), -1)


@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("length", [1, 2, 63, 64, 65, 200, 1000, 4099])  # around its 64-element steps
@pytest.mark.parametrize("fills", [True, False], ids=["fills", "sorted-by-caller"])
def test_each_row_holds_its_own_runs_in_the_order_read(dtype, read, length, fills):
    x = READS[read](tied(dtype, (3, 2 * length), length))
    s = np.empty(x.shape, x.dtype)
    if fills:
        sorted_rows(s, x)
    else:  # s sorted by the caller (the cpu backend's half precision through float32 keys)
        s[...] = np.sort(x.astype(np.float32), axis=-1).astype(x.dtype)
        _core._native.sort_rows(s, x, FORMATS[x.dtype], False)
    np.testing.assert_array_equal(bits(s), bits(stable(x)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("nans", [0.01, 0.002])
def test_blocks_without_nans_among_blocks_with_some(dtype, read, nans):
    """A block's first NaN is written whether or not the block holds one (counted only where
    it does): with NaNs sparse, most blocks hold none, some one, a few two or more."""
    x = READS[read](tied(dtype, (2, 2 * 6000), 7, nans))
    s = np.empty(x.shape, x.dtype)
    sorted_rows(s, x)
    np.testing.assert_array_equal(bits(s), bits(stable(x)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("read", ["forwards", "backwards"])
@pytest.mark.parametrize("length", [1, 5, 40, 64, 300])
def test_any_alignment_of_the_copy(dtype, read, length):
    """The vector path starts at the copy's first 64-byte boundary (the elements before it
    by blocks): every offset of s, x at another."""
    size = np.dtype(dtype).itemsize
    x = READS[read](tied(dtype, (2, length), length + 1))
    for offset in range(0, 64, size):
        room = np.empty(x.size * size + 128, np.uint8)
        start = offset - room.ctypes.data % 64 + 64
        s = room[start:start + x.size * size].view(dtype).reshape(x.shape)
        assert s.ctypes.data % 64 == offset
        sorted_rows(s, x)
        np.testing.assert_array_equal(bits(s), bits(stable(x)))


def _payloads(dtype, count):
    udt = f"u{np.dtype(dtype).itemsize}"
    top = 8 * np.dtype(dtype).itemsize - 1
    nan = np.array(np.nan, dtype).view(udt)
    return ((nan | np.arange(1, count + 1, dtype=udt)) | (np.arange(count, dtype=udt) % 2 << top)).view(dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("length", [3, 64, 150])
def test_rows_of_only_zeros_or_only_nans(dtype, read, length):
    """Rows whose runs are the whole row or nothing: zeros of both signs, zeros of one sign,
    NaNs of distinct payloads, one zero among NaNs, no zero or NaN at all."""
    n = 2 * length
    signs = np.arange(n) % 3 == 1
    mixed = np.where(signs, -0.0, 0.0).astype(dtype)
    rows = [mixed, np.zeros(n, dtype), np.full(n, -0.0, dtype), _payloads(dtype, n),
            np.concatenate([_payloads(dtype, n - 1), [-0.0]]).astype(dtype), np.arange(1, n + 1).astype(dtype)]
    x = READS[read](np.stack(rows))
    s = np.empty(x.shape, x.dtype)
    sorted_rows(s, x)
    np.testing.assert_array_equal(bits(s), bits(stable(x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("read", ["forwards", "backwards"])
def test_runs_that_outgrow_their_first_room(dtype, read):
    """One row whose zeros' signs outgrow their first 1024 words (65536 bits) and whose NaNs
    outgrow their first 1024 slots while the vector path runs (it keeps both counts and the
    signs' last word in registers, the structs' fields written back where they grow)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(300_000).astype(dtype)
    x[rng.random(x.size) < 0.6] = 0
    x[rng.random(x.size) < 0.5 * (x == 0)] = -0.0
    where = rng.random(x.size) < 0.05
    x[where] = _payloads(dtype, 8)[rng.integers(0, 8, int(where.sum()))]
    x = READS[read](x)
    s = np.empty(x.shape, x.dtype)
    sorted_rows(s, x)
    np.testing.assert_array_equal(bits(s), bits(stable(x)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("read", ["forwards", "backwards"])
@pytest.mark.parametrize("shape", [(1, 255), (1, 256), (1, 257), (2, 128), (4, 64), (256, 1), (257, 1), (8, 33)])
@pytest.mark.parametrize("what", ["zeros", "nans", "both"])
def test_small_sorts_whose_runs_fill_their_room_on_the_stack(dtype, read, shape, what):
    """Sorts of up to 256 elements (all rows) keep their runs and each row's ends on the
    stack, room for the most the runs can hold: every element a zero or a NaN, in one row
    or in many, at that size and just past it (the runs then on the heap)."""
    n = shape[0] * shape[1]
    zeros = np.where(np.arange(n) % 3 == 1, -0.0, 0.0).astype(dtype)
    nans = _payloads(dtype, n)
    x = {"zeros": zeros, "nans": nans, "both": np.where(np.arange(n) % 2 == 0, zeros, nans)}[what]
    x = READS[read](x.reshape(shape))
    s = np.empty(x.shape, x.dtype)
    sorted_rows(s, x)
    np.testing.assert_array_equal(bits(s), bits(stable(x)))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5)])
def test_empty_rows(shape):
    x = np.zeros(shape, np.float32)
    s = np.full(shape, 7, np.float32)
    assert _core._native.sort_rows(s, x, 2, False, None) is None
    assert _core._native.sort_rows(s, x, 2, True, None) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_reversed_after_their_runs_are_placed(dtype):
    x = tied(dtype, (2, 300), 0)
    s = np.empty(x.shape, x.dtype)
    _core._native.sort_rows(s, x[:, ::-1], FORMATS[np.dtype(dtype)], True, None)
    # a stable descending sort: the ascending stable sort of the rows reversed, read backwards
    np.testing.assert_array_equal(bits(s), bits(stable(x[:, ::-1])[:, ::-1]))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64])
@pytest.mark.parametrize("read", list(READS))
def test_fills_and_sorts_every_itemsize(dtype, read):
    rng = np.random.default_rng(1)
    x = READS[read](rng.integers(0, 100, (4, 260)).astype(dtype))
    s = np.empty(x.shape, x.dtype)
    _core._native.sort_rows(s, x, -1, False, "stable" if x.dtype.itemsize <= 2 else None)
    np.testing.assert_array_equal(s, np.sort(x, axis=-1))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64])
@pytest.mark.parametrize("length", [1, 2, 7, 8, 9, 17, 33])  # around the 16-byte blocks of its ends
def test_reverses_each_row_of_every_itemsize(dtype, length):
    rows = np.arange(3 * length, dtype=dtype).reshape(3, length)
    s = rows.copy()
    _core._native.sort_rows(s, None, -1, True)
    np.testing.assert_array_equal(s, rows[:, ::-1])


def test_the_oracle_sees_what_numpy_default_sort_loses():
    """The cases above can fail: NumPy's default sort alone loses the payloads and the
    zeros' order that sort_rows keeps."""
    x = tied(np.float32, (1, 4000), 2)
    assert not np.array_equal(bits(np.sort(x, axis=-1)), bits(stable(x)))


def test_refuses_what_it_cannot_finish():
    rows = _core._native.sort_rows
    s = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="format must be -1 to 3"):
        rows(s, s.copy(), 4, False)
    with pytest.raises(ValueError, match="x must have s's shape and itemsize"):
        rows(s, np.zeros(5, np.float32), 2, False)
    with pytest.raises(ValueError, match="not the format's"):
        rows(s, s.copy(), 3, False)
    with pytest.raises(ValueError, match="x must have s's shape and itemsize"):
        rows(np.zeros(4, ml_dtypes.bfloat16), s, 1, False)
    with pytest.raises(ValueError, match="not C-contiguous"):  # NumPy's own refusals
        rows(np.zeros(8, np.float32)[::2], s, 2, False)
    read_only = s.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        rows(read_only, s, 2, False)
    with pytest.raises(ValueError, match="s must have an axis"):
        rows(np.zeros((), np.float32), np.zeros((), np.float32), 2, False)
    with pytest.raises(TypeError):  # filling needs an x to read
        rows(s, None, -1, False, None)
    with pytest.raises(ValueError, match="kind"):  # NumPy's sort refuses the kind: nothing kept
        rows(s, s.copy(), 2, False, "no such kind")
    with pytest.raises(TypeError, match="takes"):
        rows(s, s.copy(), 2)
    with pytest.raises(TypeError, match="takes"):
        rows(s, s.copy(), 2, False, None, None)
    with pytest.raises(TypeError):
        rows(s, s.copy(), 2.0, False)

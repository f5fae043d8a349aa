"""The rocm radix sort (families/sort.py) on a device at the sizes the host tests cannot
reach: every sortable dtype at 2^k - 1, 2^k + 1 and a few 10^5 up to 2^22 elements (one tile; a
row in one block up to 4096 float32 keys; past it a count launch, then one onesweep launch a
pass; sort without indices: keys alone), a few dtypes at 2^24 + 3, 8-byte argsorts around the
passes where their items start, rows of a (4096, 4096)
array, both directions, and views of long rows (the keys made from the source by the first kernel
that reads them, at any stride), against the cpu backend's stable sort; values compared bit for
bit (NaN payloads and zeros' signs of a stable sort), indices exactly."""

import ml_dtypes
import numpy as np
import pytest

import candlewick as cw
from eight_byte_keys import tie_halves  # tests/rocm/host is on pytest's pythonpath

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def _data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        return np.where(rng.random(n) < 0.7, wide, rng.integers(0, 6, n).astype(dtype)).reshape(shape)
    x = (rng.standard_normal(n) * 100).astype(np.float32).astype(dtype)
    special = rng.random(n)
    x[special < 0.05] = 0.0
    x[(special >= 0.05) & (special < 0.1)] = -0.0
    x[(special >= 0.1) & (special < 0.12)] = np.inf
    x[(special >= 0.12) & (special < 0.14)] = -np.inf
    nans = np.flatnonzero((special >= 0.14) & (special < 0.17))
    raw = x.view(f"u{dtype.itemsize}")
    quiet = np.array(np.nan, dtype).view(raw.dtype)
    sign = raw.dtype.type(1) << raw.dtype.type(8 * dtype.itemsize - 1)
    raw[nans] = quiet | (nans % 3).astype(raw.dtype) | np.where(nans % 2 == 1, sign, 0).astype(raw.dtype)
    return x.reshape(shape)


def _check(rocm, host, descending):
    x = cw.asarray(host, device=rocm)
    want_idx = cw.to_numpy(cw.argsort(cw.asarray(host, device="cpu"), descending=descending))
    raw = np.dtype(f"u{host.dtype.itemsize}")
    want = np.take_along_axis(host, want_idx, host.ndim - 1).view(raw)
    np.testing.assert_array_equal(cw.to_numpy(cw.argsort(x, descending=descending)), want_idx)
    np.testing.assert_array_equal(cw.to_numpy(cw.sort(x, descending=descending)).view(raw), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_at_sizes_around_powers_of_two(rocm, dtype):
    for n in (0, 1, 2047, 2048, 2049, 4096, 4097, 65535, 65537, 100_003, 1 << 18, (1 << 18) + 1, 300_007,
              (1 << 20) + 1, (1 << 22) + 1):
        host = _data(dtype, (n,), n)
        _check(rocm, host, False)
        _check(rocm, host, True)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16, np.int8, np.bool_], ids=lambda d: np.dtype(d).name)
def test_one_long_row(rocm, dtype):  # thousands of ranges looking back in each onesweep pass
    host = _data(dtype, ((1 << 24) + 3,), 5)
    _check(rocm, host, False)
    _check(rocm, host, True)


def _halves(dtype, n, seed):
    """eight_byte_keys.tie_halves' values mixed half and half with _data's."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n) < 0.5, tie_halves(dtype, n, rng), _data(dtype, (n,), seed))


@pytest.mark.parametrize("dtype, n", [(np.float64, 1 << 22), (np.int64, (1 << 22) + 1), (np.uint64, 1 << 24),
                                      (np.float64, (1 << 24) + 1), (np.float64, (1 << 25) + 1)], ids=str)
def test_eight_byte_argsort_around_its_item_shifts(rocm, dtype, n):
    """An 8-byte argsort gathers its keys' high halves by position in rows up to 2^22 keys
    (families/sort.py's GATHER_MAX); past it, it moves keys and positions until the positions
    fit below the next digit (_item_shift: 24 up to 2^24 keys, else 32), then items of both.
    The carry passes are radix_sweep_carry's (its own look-back window); 2^25 + 1 takes four of
    them, as 2^26 does."""
    host = _halves(dtype, n, n)
    _check(rocm, host, False)
    _check(rocm, host, True)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16], ids=lambda d: np.dtype(d).name)
def test_rows_of_a_square(rocm, dtype):
    host = _data(dtype, (4096, 4096), 4)
    _check(rocm, host, False)
    _check(rocm, host, True)
    _check(rocm, host[:100, :1000], True)  # rows of one tile, from a strided view


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_views_of_long_rows(rocm, dtype):
    wide, tall = _data(dtype, (4, 300_007), 6), _data(dtype, (300_007, 3), 7)
    raw = np.dtype(f"u{wide.dtype.itemsize}")
    cases = (((slice(None, None, 2), slice(None, None, -3)), 1), ((slice(1, 3), slice(5, None)), 1),
             ((slice(None, None, -1), slice(7, 7007)), 1), ((slice(None), slice(None, 9000)), 0))
    for host, (index, axis) in [(wide, case) for case in cases] + [(tall, ((slice(None), slice(None)), 0))]:
        x, on_cpu, view = cw.asarray(host, device=rocm)[index], cw.asarray(host, device="cpu")[index], host[index]
        for descending in (False, True):
            want_idx = cw.to_numpy(cw.argsort(on_cpu, axis=axis, descending=descending))
            want = np.take_along_axis(view, want_idx, axis).view(raw)
            np.testing.assert_array_equal(cw.to_numpy(cw.argsort(x, axis=axis, descending=descending)), want_idx)
            np.testing.assert_array_equal(cw.to_numpy(cw.sort(x, axis=axis, descending=descending)).view(raw), want)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint64], ids=lambda d: np.dtype(d).name)
def test_eight_byte_rows_of_a_range_tile(rocm, dtype):  # sort and argsort by halves, a block a row (radix_block_halves)
    host = _data(dtype, (1024, 4096), 8)
    _check(rocm, host, False)
    _check(rocm, host, True)
    _check(rocm, host[:64, 5:3006], False)  # rows of 3001 from a view
    _check(rocm, host[:64, ::-2], True)  # rows of 2048: one tile each, not by halves

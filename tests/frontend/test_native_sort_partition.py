"""candlewick._native.sort_rows on one long float32/float64 row (16384 elements or more) with
a sixteenth or more zeros and NaNs: the row partitioned at zero as it is copied (below zero
at the front, the rest but the zeros at the back), each side sorted alone, the zero run
written into the gap between them from its signs, the NaN run over the row's end. Each case
against the stable sort bit for bit, read forwards and backwards (a descending sort's),
with either side empty, one zero, only zeros or only NaNs, tails around the vector steps,
and rows below the density or the length the partition asks (the plain copy's)."""

import numpy as np
import pytest

from candlewick import _core

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

FORMATS = {np.dtype(np.float32): 2, np.dtype(np.float64): 3}
READS = {"forwards": lambda a: a, "backwards": lambda a: a[::-1], "strided": lambda a: a[::2]}


def bits(a):
    return a.view(f"u{a.dtype.itemsize}")


def stable(x):
    return x[np.argsort(x, kind="stable")]


def nan_payloads(dtype, k, rng):
    udt = f"u{np.dtype(dtype).itemsize}"
    nan = np.array(np.nan, dtype).view(udt)
    sign = np.array(1, udt) << np.array(8 * np.dtype(dtype).itemsize - 1, udt)
    payload = nan | rng.integers(1, 255, k).astype(udt) | (rng.integers(0, 2, k).astype(udt) * sign)
    return payload.view(dtype)


def row(dtype, n, seed, zeros=0.1, nans=0.02, sign=0):
    """n values of both signs (only positive where sign > 0, only negative where < 0) with
    ``zeros`` of them ±0 and ``nans`` NaNs of distinct payloads and both signs."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype) * 100
    if sign:
        x = np.abs(x) * sign
    z = rng.random(n) < zeros
    x[z] = np.where(rng.random(int(z.sum())) < 0.5, -0.0, 0.0).astype(dtype)
    q = rng.random(n) < nans
    x[q] = nan_payloads(dtype, int(q.sum()), rng)
    return x


def sort_rows(x, reverse=False):
    s = np.empty(x.shape, x.dtype)
    _core._native.sort_rows(s, x, FORMATS[x.dtype], reverse, None)
    return s


@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("n", [16384, 16385, 16384 + 63, 20007, 1 << 17])
def test_a_long_row_with_ties_is_its_stable_sort(dtype, read, n):
    x = READS[read](row(dtype, 2 * n if read == "strided" else n, n))
    np.testing.assert_array_equal(bits(sort_rows(x)), bits(stable(x)))


@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("read", ["forwards", "backwards"])
@pytest.mark.parametrize("case", ["only positive", "only negative", "only zeros", "only nans", "one zero",
                                  "no zeros", "infinities", "few ties", "no ties"])
def test_rows_whose_parts_or_runs_are_empty_or_alone(dtype, read, case):
    n = 1 << 15
    if case == "only positive":
        x = row(dtype, n, 1, sign=1)
    elif case == "only negative":
        x = row(dtype, n, 2, sign=-1)
    elif case == "only zeros":
        x = row(dtype, n, 3, zeros=1.0, nans=0)
    elif case == "only nans":
        x = row(dtype, n, 4, zeros=0, nans=1.0)
    elif case == "one zero":  # (the NaNs make it a row the partition takes)
        x = row(dtype, n, 5, zeros=0, nans=0.2)
        x[n // 3] = -0.0
    elif case == "no zeros":
        x = row(dtype, n, 6, zeros=0, nans=0.2)
    elif case == "infinities":
        x = row(dtype, n, 7)
        x[np.random.default_rng(7).random(n) < 0.2] = np.inf
        x[::97] = -np.inf
    elif case == "few ties":  # below the share of zeros and NaNs the partition asks: the plain copy
        x = row(dtype, n, 8, zeros=0.01, nans=0.002)
    else:
        x = row(dtype, n, 9, zeros=0, nans=0)
    x = READS[read](x)
    np.testing.assert_array_equal(bits(sort_rows(x)), bits(stable(x)))


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_a_partitioned_row_reversed_after_its_runs_are_placed(dtype):
    x = row(dtype, 1 << 15, 10)
    np.testing.assert_array_equal(bits(sort_rows(x, reverse=True)), bits(stable(x)[::-1]))

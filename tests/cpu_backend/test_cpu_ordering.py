"""sort's NaN placement and stability in both directions, for every real dtype."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout

from cpu_helpers import download, upload

REAL = (dt.bool_,) + dt.INTEGER + dt.REAL_FLOATING


def reference_order(keys, descending):
    """Stable order written out: NaN above everything, ties in original order."""
    def rank(i):
        v = keys[i]
        return (1, 0.0) if v != v else (0, float(v))  # v != v: NaN

    sign = -1 if descending else 1
    return sorted(range(len(keys)), key=lambda i: (tuple(sign * c for c in rank(i)), i))


def bits(a):
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind not in "biu" else a


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_keeps_ties_in_order_and_places_nan(dtype, descending):
    rng = np.random.default_rng(0)
    if dtype.is_floating:
        host = rng.integers(-2, 3, 40).astype(dtype.numpy)
        host[[3, 17, 30]] = np.nan
        host[[5, 6]] = np.array([-0.0, 0.0], dtype.numpy)
    else:
        host = rng.integers(0, 2 if dtype.is_bool else 4, 40).astype(dtype.numpy)
    x, lx = upload(host)
    values, indices = x.sort(lx, 0, descending, True)
    keys = [float(v) if dtype.is_floating else int(v) for v in host]
    order = reference_order(keys, descending)
    assert download(indices, (40,)).tolist() == order
    np.testing.assert_array_equal(bits(download(values, (40,))), bits(host[order]))


def test_descending_sort_along_an_inner_axis_of_a_transposed_view():
    host = np.array([[3.0, np.nan, 1.0], [2.0, 2.0, np.nan]])
    x, _ = upload(host)
    transposed = Layout((3, 2), (1, 3), 0)  # host.T
    values, indices = x.sort(transposed, 0, True, True)
    np.testing.assert_array_equal(download(values, (3, 2)), [[np.nan, np.nan], [3.0, 2.0], [1.0, 2.0]])
    np.testing.assert_array_equal(download(indices, (3, 2)), [[1, 2], [0, 0], [2, 1]])


@pytest.mark.parametrize("dtype", [dt.float32, dt.bfloat16])
def test_searchsorted_puts_nan_last(dtype):
    x, lx = upload(np.array([1, 2, 2, 3, np.nan], dtype.numpy))
    v, lv = upload(np.array([2, np.nan, 0, 5], dtype.numpy))
    assert download(x.searchsorted(lx, v, lv, False), (4,)).tolist() == [1, 4, 0, 4]
    assert download(x.searchsorted(lx, v, lv, True), (4,)).tolist() == [3, 5, 0, 4]


NAN32 = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345], np.uint32).view(np.float32)


def tie_rich_row(dtype, n):
    """n values of dtype in -2..2 (a fifth of them zeros, of both signs) and, for floats, a
    twentieth NaNs of four payloads and both signs (a quiet NaN's payload survives the cast)."""
    rng = np.random.default_rng(n)
    host = rng.integers(-2, 3, n).astype(dtype.numpy)
    if dtype.is_floating:
        host[(host == 0) & (rng.random(n) < 0.5)] = -0.0
        nans = rng.random(n) < 0.05
        host[nans] = NAN32[rng.integers(0, 4, int(nans.sum()))].astype(dtype.numpy)
    return host


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64, dt.float16, dt.int64])
@pytest.mark.parametrize("n", [40, 20000])  # (20000: one row the native sort partitions at zero as it copies)
@pytest.mark.parametrize("backwards", [False, True], ids=["whole", "whole-backwards"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_of_one_whole_row_is_the_stable_sort_bit_for_bit(dtype, n, backwards, descending):
    # sort_values takes a whole 1-D buffer, and the whole buffer read backwards (the front
    # end's descending view), straight to the native row sort: -0.0/0.0 and NaN payloads
    # in input order, NaN last (first when descending)
    host = tie_rich_row(dtype, n)
    x, lx = upload(host)
    elements = host
    if backwards:
        lx, elements = Layout((n,), (-1,), n - 1), host[::-1]
    if descending:  # the stable ascending sort of the row reversed, read backwards
        expected = elements[::-1][np.argsort(elements[::-1], kind="stable")][::-1]
    else:
        expected = elements[np.argsort(elements, kind="stable")]
    got = download(x.sort_values(lx, 0, descending, True), (n,))
    np.testing.assert_array_equal(bits(got), bits(expected))

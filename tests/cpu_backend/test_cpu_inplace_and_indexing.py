"""Overlapping assign, and the bounds/duplicate rules of the take/put primitives."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import IndexOutOfBoundsError
from candlewick.layout import Layout
from candlewick.opdefs import UnaryOp

from cpu_helpers import download, upload

OVERLAPS = [
    # (dst layout, src layout) over one 12-element buffer
    (Layout((3,), (2,), 0), Layout((3,), (1,), 0)),  # NumPy alone gets this one wrong
    (Layout((6,), (1,), 1), Layout((6,), (1,), 0)),  # shift right by one
    (Layout((6,), (1,), 0), Layout((6,), (1,), 1)),  # shift left by one
    (Layout((6,), (1,), 0), Layout((6,), (-1,), 5)),  # reverse in place
    (Layout((3, 4), (4, 1), 0), Layout((3, 4), (1, 3), 0)),  # transpose-ish in place
    (Layout((2, 3), (3, 1), 4), Layout((2, 3), (0, 2), 3)),  # broadcast source
]


@pytest.mark.parametrize("dst_layout, src_layout", OVERLAPS)
def test_assign_within_one_storage_reads_the_source_first(dst_layout, src_layout):
    host = np.arange(12, dtype=np.int64) * 10
    storage, _ = upload(host)
    expected = host.copy()
    src = np.lib.stride_tricks.as_strided(host[src_layout.offset:], src_layout.shape,
                                          [s * 8 for s in src_layout.strides]).copy()
    np.lib.stride_tricks.as_strided(expected[dst_layout.offset:], dst_layout.shape,
                                    [s * 8 for s in dst_layout.strides])[...] = src
    storage.assign(dst_layout, storage, src_layout)
    np.testing.assert_array_equal(download(storage, (12,)), expected)


def test_scatter_add_and_index_add_accumulate_duplicates():
    dst, ld = upload(np.zeros((2, 4)))
    idx, li = upload(np.array([[1, 1, -1], [0, 0, 0]], np.int64))
    src, ls = upload(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    dst.scatter_add(ld, idx, li, src, ls, 1)
    np.testing.assert_array_equal(download(dst, (2, 4)), [[0, 3, 0, 3], [15, 0, 0, 0]])
    rows, lr = upload(np.array([0, 0, -1], np.int64))
    add, la = upload(np.ones((3, 4)))
    dst.index_add(ld, rows, lr, add, la, 0)
    np.testing.assert_array_equal(download(dst, (2, 4)), [[2, 5, 2, 5], [16, 1, 1, 1]])


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16])
def test_low_precision_scatter_add_rounds_once(dtype):
    # 2048 + 1 + 1 in float16 step by step stays 2048; accumulated in float32 it is 2050
    dst, ld = upload(np.array([2048.0], dtype.numpy))
    idx, li = upload(np.zeros(2, np.int64))
    src, ls = upload(np.ones(2, dtype.numpy))
    dst.index_add(ld, idx, li, src, ls, 0)
    assert float(download(dst, (1,))[0]) == float(np.array(2050.0, dtype.numpy))


@pytest.mark.parametrize("method", ["index_select", "gather", "scatter", "scatter_add", "index_add"])
@pytest.mark.parametrize("bad", [3, -4, 100])
def test_out_of_range_indices_name_the_primitive_and_write_nothing(method, bad):
    x, lx = upload(np.arange(6.0).reshape(2, 3))
    idx, li = upload(np.array([0, bad], np.int64) if method in ("index_select", "index_add")
                     else np.array([[0, bad], [1, 1]], np.int64))
    src, ls = upload(np.ones((2, 2)))
    with pytest.raises(IndexOutOfBoundsError, match=rf"{method}: index {bad}"):
        if method in ("index_select", "gather"):
            getattr(x, method)(lx, idx, li, 1)
        else:
            getattr(x, method)(lx, idx, li, src, ls, 1)
    np.testing.assert_array_equal(download(x, (2, 3)), np.arange(6.0).reshape(2, 3))


def test_negative_indices_count_from_the_end():
    x, lx = upload(np.arange(10, 16))
    idx, li = upload(np.array([[-1, 0], [-6, 2]], np.int64))
    np.testing.assert_array_equal(download(x.index_select(lx, idx, li, 0), (2, 2)), [[15, 10], [10, 12]])


@pytest.mark.parametrize("kept", [0.0, 0.01, 0.5, 0.99, 1.0])
@pytest.mark.parametrize("shape, contiguous", [((8192,), True), ((4096, 3), True), ((64, 128), False)],
                         ids=["1-d", "rows-of-3", "transposed"])
def test_compress_of_large_arrays_keeps_the_rows_in_order_at_every_mask_density(kept, shape, contiguous):
    """Large compactions take np.compress for mixed masks, one copy for an all-true mask
    and boolean indexing otherwise (and for strided layouts): the same rows, in order, and
    the same count; the mask is 1-D, one flag per row of the leading axis."""
    rng = np.random.default_rng(7)
    host = rng.standard_normal(shape)
    mask_host = rng.random(shape[0]) < kept
    values, layout = upload(host if contiguous else host.T.copy())
    if not contiguous:  # the transposed copy seen as ``shape`` through strides
        layout = Layout(shape, (1, shape[0]), 0)
    mask, mask_layout = upload(mask_host)
    out, count = values.compress(layout, mask, mask_layout)
    assert count == int(mask_host.sum())
    np.testing.assert_array_equal(download(out, (count,) + shape[1:]), host[mask_host])


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite", "signbit"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("step", [2, -1, -3])
def test_classification_into_a_strided_bool_destination(op, dtype, step):
    """NumPy 2.4's SIMD isnan/isinf/isfinite/signbit write the wrong elements of a strided
    bool ``out`` (cpu_backend.ops._NO_STRIDED_OUT): unary_into must not hand them one."""
    n = 100
    rng = np.random.default_rng(7)
    host = rng.standard_normal(n).astype(dtype)
    host[::3], host[1::7], host[2::5] = np.nan, np.inf, -0.0
    src, layout = upload(host)
    dst, _ = upload(np.zeros(n * abs(step), bool))
    view = Layout((n,), (step,), 0 if step > 0 else n * abs(step) - 1)
    dst.unary_into(UnaryOp(op), view, src, layout)
    expected = np.zeros(n * abs(step), bool)
    expected[:: step] = getattr(np, op)(host)
    np.testing.assert_array_equal(download(dst, (n * abs(step),)), expected)

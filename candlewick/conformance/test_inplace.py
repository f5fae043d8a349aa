"""copy, and the in-place assign and fill: results are checked over the *whole* storage,
so a write outside the destination view fails as surely as a wrong value."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .checks import Expected, assert_bitwise_equal, read_flat, read_result
from .strategies import (WRITABLE_KINDS, covered_mask, dtype_params, host_arrays, host_views, scalars,
                         shapes, view_of)

ALL = dtype_params(dt.ALL_DTYPES)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_copy(device, dtype, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    s = x.upload(device)
    out = s.copy(x.layout)
    assert out is not s
    assert_bitwise_equal(read_result(out, dtype, x.layout.shape), x.value())
    # the copy does not alias its source
    out.fill(Layout.contiguous(x.layout.shape), 0)
    assert_bitwise_equal(read_flat(s), x.flat)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_assign(device, dtype, data):
    shape = data.draw(shapes())
    dst, src = data.draw(host_views(dtype, [shape, shape], writable=(0,)), label="dst, src")
    target = dst.upload(device)
    source = src.upload(device)
    assert target.assign(dst.layout, source, src.layout) is None
    expected = dst.flat.copy()
    view_of(expected, dst.layout)[...] = src.value()
    assert_bitwise_equal(read_flat(target), expected)
    assert_bitwise_equal(read_flat(source), src.flat)  # the source is untouched


@pytest.mark.primitive("assign")
@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_assign_overlapping_same_storage(device, dtype, data):
    """src is the destination storage itself: the result is as if src were copied first."""
    shape = data.draw(shapes(min_dims=1))
    dst, src = data.draw(host_views(dtype, [shape, shape], writable=(0,), shared=True),
                         label="dst, src")
    s = dst.upload(device)
    s.assign(dst.layout, s, src.layout)
    expected = dst.flat.copy()
    view_of(expected, dst.layout)[...] = src.value()
    assert_bitwise_equal(read_flat(s), expected)


@pytest.mark.primitive("assign")
@pytest.mark.parametrize("dtype", ALL)
def test_assign_shifted_overlap(device, dtype):
    """The classic memmove cases: destination one element after / before the source."""
    n = 9
    host = np.arange(n + 1).astype(dtype.numpy)
    for dst_off, src_off in ((1, 0), (0, 1)):
        s = device.storage_from_host(host)
        s.assign(Layout((n,), (1,), dst_off), s, Layout((n,), (1,), src_off))
        expected = host.copy()
        expected[dst_off:dst_off + n] = host[src_off:src_off + n]
        assert_bitwise_equal(read_flat(s), expected)
    # reversing a buffer onto itself
    s = device.storage_from_host(host)
    s.assign(Layout((n + 1,), (1,), 0), s, Layout((n + 1,), (-1,), n))
    assert_bitwise_equal(read_flat(s), host[::-1].copy())


@pytest.mark.primitive("assign")
@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_assign_broadcast_source(device, dtype, data):
    shape = data.draw(shapes(min_dims=1))
    (dst,) = data.draw(host_views(dtype, [shape], writable=(0,)), label="dst")
    src = data.draw(host_arrays(dtype, (1,) * len(shape)), label="src")
    bcast = src.layout.broadcast_to(shape)
    target = dst.upload(device)
    target.assign(dst.layout, src.upload(device), bcast)
    expected = dst.flat.copy()
    view_of(expected, dst.layout)[...] = src.value()
    assert_bitwise_equal(read_flat(target), expected)


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_fill(device, dtype, data):
    (dst,) = data.draw(host_views(dtype, [data.draw(shapes())], kinds=WRITABLE_KINDS,
                                  writable=(0,)), label="dst")
    value = data.draw(scalars(dtype), label="value")
    s = dst.upload(device)
    assert s.fill(dst.layout, value) is None
    expected = dst.flat.copy()
    view_of(expected, dst.layout)[...] = value
    got = read_flat(s)
    untouched = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got[untouched], expected[untouched])
    # exact values and signs of zero (a NaN's payload is the host conversion's choice)
    Expected(expected, zero_sign=True).check(got)

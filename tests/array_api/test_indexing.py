"""Indexing: basic (views), integer arrays, boolean masks and ``__setitem__`` in each
form, against NumPy applied to the same host data (take and take_along_axis:
test_indexing_functions)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from array_api_support import (
    ALL, any_arrays, arrays, assert_matches_strict, dt, same_memory, shapes, to_np, to_strict,
    xps,
)


@given(data=st.data())
def test_basic_indexing_is_a_view_with_numpy_semantics(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=0, max_dims=4)), label="x")
    key = data.draw(xps.indices(x.shape, allow_newaxis=True, allow_ellipsis=True), label="key")
    out = x[key]
    expected = to_np(x)[key]
    assert out.shape == expected.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(to_np(out), expected)
    if out.size:
        assert same_memory(out, x), "basic indexing must return a view"


@given(data=st.data())
def test_integer_array_indexing(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    count = data.draw(st.integers(1, x.ndim), label="indexed_axes")
    idx_shape = data.draw(shapes(max_dims=2), label="index_shape")
    index_dtype = data.draw(st.sampled_from(["int64", "int32", "int16", "uint8"]), label="index_dtype")
    indices = []
    for axis in range(count):
        n = x.shape[axis]
        lo = 0 if index_dtype == "uint8" else -n
        indices.append(data.draw(arrays(index_dtype, idx_shape, min_value=lo, max_value=n - 1),
                                 label=f"index{axis}"))
    key = tuple(indices)
    out = x[key]
    expected = to_np(x)[tuple(to_np(i) for i in indices)]
    assert out.shape == expected.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(to_np(out), expected)


@given(data=st.data())
def test_integer_array_with_integers_and_slices(data):
    x = data.draw(any_arrays((3, 4, 2)), label="x")
    idx = data.draw(arrays("int64", (2, 2), min_value=-2, max_value=1), label="idx")
    host = to_np(x)
    for key in [(1, idx), (idx, slice(None)), (slice(None), idx), (Ellipsis, idx[0, :1])]:
        host_key = tuple(to_np(k) if isinstance(k, cw.Array) else k for k in key)
        np.testing.assert_array_equal(to_np(x[key]), host[host_key], err_msg=repr(key))


@pytest.mark.parametrize("bad", [3, -4, 10])
def test_integer_array_index_out_of_bounds(bad):
    """An asynchronous backend may report the bad index at the next synchronization (the
    protocol allows it): reading the result to the host is one."""
    x = cw.ones((3, 2))
    with pytest.raises(IndexError):
        cw.to_numpy(x[cw.asarray([0, bad])])


def _mask_shape(data, dims):
    """``dims``, or now and then with dimensions of size 0: a mask dimension must equal
    the array's or be 0 (the standard's rule and NumPy's; an empty mask selects nothing)."""
    return tuple(0 if n and data.draw(st.integers(0, 3), label="zero-size mask dimension") == 3 else n
                 for n in dims)


@given(data=st.data())
def test_boolean_mask_indexing(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=0, max_dims=3)), label="x")
    leading = data.draw(st.integers(0, x.ndim), label="mask_ndim")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[:leading])), label="mask")
    out = x[mask]
    ref = to_strict(x)[to_strict(mask)]
    assert_matches_strict(out, ref, what="x[mask]: ")
    assert out.device == x.device


# --- __setitem__ ----------------------------------------------------------------------

@given(data=st.data())
def test_setitem_with_basic_keys(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    key = data.draw(xps.indices(x.shape, allow_newaxis=False), label="key")
    host = to_np(x).copy()
    target_shape = host[key].shape
    as_scalar = data.draw(st.booleans(), label="scalar value")
    if as_scalar:
        value = data.draw(xps.from_dtype(dt(name)) if name != "uint64" else st.integers(0, 2**63 - 1),
                          label="value")
        host[key] = value
    else:
        vshape = data.draw(xps.broadcastable_shapes(target_shape, min_side=0, max_dims=len(target_shape))
                           .filter(lambda s: np.broadcast_shapes(s, target_shape) == target_shape),
                           label="value_shape")
        value = data.draw(arrays(name, vshape), label="value")
        host[key] = to_np(value)
    x[key] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_setitem_through_a_view_changes_the_base(data):
    x = data.draw(arrays("float64", (4, 3), allow_nan=False), label="x")
    view = x[1:3, ::-1]
    view[0, 0] = 99.0
    assert to_np(x)[1, 2] == 99.0
    view[...] = cw.asarray([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(to_np(x)[1:3], [[3.0, 2.0, 1.0]] * 2)


@given(data=st.data())
def test_setitem_with_integer_arrays(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=2, min_side=3)), label="x")
    n = x.shape[0]
    # repeated indices make the written value ambiguous: three distinct rows, drawn so
    # (filtering random indices for distinct ones failed Hypothesis's health check), each
    # written as a non-negative or a negative index
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=3, max_size=3, unique=True), label="rows")
    negative = data.draw(st.lists(st.booleans(), min_size=3, max_size=3), label="negative")
    idx = cw.asarray([row - n if neg else row for row, neg in zip(rows, negative)], dtype=cw.int64)
    host = to_np(x).copy()
    value = data.draw(arrays(name, host[to_np(idx)].shape), label="value")
    host[to_np(idx)] = to_np(value)
    x[idx] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_setitem_with_a_boolean_mask(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    leading = data.draw(st.integers(1, x.ndim), label="mask_ndim")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[:leading])), label="mask")
    host = to_np(x).copy()
    value = {"bool": True}.get(name, 1)
    host[to_np(mask)] = value
    x[mask] = value
    np.testing.assert_array_equal(to_np(x), host)


@given(data=st.data())
def test_boolean_mask_with_other_keys(data):
    """A mask beside slices, integers and the ellipsis (the general path), its dimensions
    possibly of size 0, read and written as NumPy does."""
    x = data.draw(arrays("int16", shapes(min_dims=2, max_dims=3)), label="x")
    at = data.draw(st.integers(0, x.ndim - 1), label="mask axis")
    mask = data.draw(arrays("bool", _mask_shape(data, x.shape[at:at + 1])), label="mask")
    key = data.draw(st.sampled_from([(Ellipsis, mask) + (slice(None),) * (x.ndim - at - 1),
                                     (slice(None),) * at + (mask,)]), label="key")
    host = to_np(x).copy()
    host_key = tuple(to_np(k) if isinstance(k, cw.Array) else k for k in key)
    np.testing.assert_array_equal(to_np(x[key]), host[host_key])
    host[host_key] = 7
    x[key] = 7
    np.testing.assert_array_equal(to_np(x), host)


def test_a_mask_whose_size_does_not_match_is_refused():
    x = cw.zeros((2, 3))
    for shape in [(1,), (3,), (2, 2), (0, 2)]:
        with pytest.raises(IndexError):
            x[cw.zeros(shape, dtype=cw.bool)]
        with pytest.raises(IndexError):
            x[cw.zeros(shape, dtype=cw.bool)] = 1.0


def test_setitem_rejects_values_that_would_lose_information():
    x = cw.ones(3, dtype=cw.int8)
    with pytest.raises(TypeError):
        x[0] = 1.5
    with pytest.raises(TypeError):
        x[:] = cw.asarray([1.0, 2.0, 3.0])
    with pytest.raises(OverflowError):
        x[0] = 1000
    with pytest.raises(ValueError):
        x[:] = cw.asarray([1, 2], dtype=cw.int8)


@pytest.mark.parametrize("key", [(0, 0), 3, -4, (slice(None), 1), (..., ...), 1.5, "a", True])
def test_invalid_basic_keys(key):
    x = cw.ones(3)
    with pytest.raises(IndexError):
        x[key]


def test_zero_dim_indexing():
    x = cw.asarray(5)
    assert to_np(x[()]) == 5 and x[...].shape == () and x[None].shape == (1,)
    x[()] = 6
    assert int(x) == 6

"""sort (stable and unstable, both directions, NaN placement) and searchsorted."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt

from .checks import Expected, assert_bitwise_equal, read_result
from .strategies import dtype_params, host_arrays, shapes, view_of

ORDERED = dtype_params((dt.bool_,) + dt.INTEGER + dt.REAL_FLOATING)  # complex is not asked


def _orderable(x):
    """Values in a NumPy dtype that sorts them as the contract does (NaN above +inf)."""
    if x.dtype.kind == "b":
        return x.astype(np.int64)
    return x if x.dtype.kind in "iu" else x.astype(np.float64)


def ranks(x, axis):
    """Dense rank of each element along ``axis``: equal values (-0.0 == 0.0, NaN == NaN)
    share a rank, NaN ranks above everything."""
    v = np.moveaxis(_orderable(x), axis, -1)
    order = np.argsort(v, axis=-1, kind="stable")
    s = np.take_along_axis(v, order, axis=-1)
    same = s[..., 1:] == s[..., :-1]
    if s.dtype.kind == "f":
        same |= np.isnan(s[..., 1:]) & np.isnan(s[..., :-1])
    dense = np.concatenate([np.zeros(s.shape[:-1] + (1,), np.int64),
                            np.cumsum(~same, axis=-1)], axis=-1) if s.shape[-1] else s.astype(np.int64)
    r = np.empty(v.shape, np.int64)
    np.put_along_axis(r, order, dense, axis=-1)
    return np.moveaxis(r, -1, axis)


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", ORDERED)
@given(data=st.data())
def test_sort(device, dtype, descending, stable, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=6))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    x = data.draw(host_arrays(dtype, shape), label="x")
    values, indices = x.upload(device).sort(x.layout, axis, descending, stable)
    got_values = read_result(values, dtype, shape)
    got_indices = read_result(indices, dt.int64, shape)

    v = x.value()
    key = ranks(v, axis)
    key = -key if descending else key
    expected_indices = np.argsort(key, axis=axis, kind="stable")
    expected_values = np.take_along_axis(v, expected_indices, axis=axis)
    if stable:
        Expected(expected_indices).check(got_indices)
        assert_bitwise_equal(got_values, expected_values)
        return
    # unstable: the values in order (ties of equal values interchangeable), and indices
    # that are a permutation along the axis reproducing those values
    Expected(expected_values).check(got_values)
    n = shape[axis]
    perm = np.sort(got_indices, axis=axis)
    assert (perm == np.arange(n).reshape((n,) + (1,) * (len(shape) - axis - 1))).all(), (
        "sort indices are not a permutation along the axis")
    assert_bitwise_equal(np.take_along_axis(v, got_indices, axis=axis), got_values)


@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
@pytest.mark.parametrize("dtype", ORDERED)
@given(data=st.data())
def test_searchsorted(device, dtype, right, data):
    n = data.draw(st.integers(0, 12), label="n")
    x = data.draw(host_arrays(dtype, (n,)), label="sorted x")
    # sort the viewed elements in place (NaN last), whatever the layout
    view_of(x.flat, x.layout)[...] = np.sort(x.value())
    sorted_x = x.value()
    vshape = data.draw(shapes(max_dims=2), label="values shape")
    values = data.draw(host_arrays(dtype, vshape), label="values")
    if n and data.draw(st.booleans(), label="search existing values"):
        pick = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        values.view[...] = pick.choice(sorted_x, vshape)
    out = x.upload(device).searchsorted(x.layout, values.upload(device), values.layout, right)
    got = read_result(out, dt.int64, vshape)
    side = "right" if right else "left"
    Expected(np.searchsorted(_orderable(sorted_x), _orderable(values.value()), side=side)).check(got)

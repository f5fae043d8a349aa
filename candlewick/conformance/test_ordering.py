"""sort, sort_values and argsort (stable and unstable, both directions, NaN placement)
and searchsorted."""

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


def _expected_order(v, axis, descending):
    """(indices, values) of the stable sort of v along axis in the contract's order."""
    key = ranks(v, axis)
    key = -key if descending else key
    indices = np.argsort(key, axis=axis, kind="stable")
    return indices, np.take_along_axis(v, indices, axis=axis)


def _check_permutation(got_indices, shape, axis):
    n = shape[axis]
    perm = np.sort(got_indices, axis=axis)
    assert (perm == np.arange(n).reshape((n,) + (1,) * (len(shape) - axis - 1))).all(), (
        "sort indices are not a permutation along the axis")


def _draw_case(data):
    return data.draw(shapes(min_dims=1, max_dims=3, max_side=6))


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", ORDERED)
@given(data=st.data())
def test_sort(device, dtype, descending, stable, data):
    shape = _draw_case(data)
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    x = data.draw(host_arrays(dtype, shape), label="x")
    values, indices = x.upload(device).sort(x.layout, axis, descending, stable)
    got_values = read_result(values, dtype, shape)
    got_indices = read_result(indices, dt.int64, shape)

    v = x.value()
    expected_indices, expected_values = _expected_order(v, axis, descending)
    if stable:
        Expected(expected_indices).check(got_indices)
        assert_bitwise_equal(got_values, expected_values)
        return
    # unstable: the values in order (ties of equal values interchangeable), and indices
    # that are a permutation along the axis reproducing those values
    Expected(expected_values).check(got_values)
    _check_permutation(got_indices, shape, axis)
    assert_bitwise_equal(np.take_along_axis(v, got_indices, axis=axis), got_values)


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", ORDERED)
@given(data=st.data())
def test_sort_values(device, dtype, descending, stable, data):
    shape = _draw_case(data)
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    x = data.draw(host_arrays(dtype, shape), label="x")
    got = read_result(x.upload(device).sort_values(x.layout, axis, descending, stable), dtype, shape)
    _, expected = _expected_order(x.value(), axis, descending)
    if stable:
        assert_bitwise_equal(got, expected)
    else:  # ties of equal values (-0.0 and 0.0, NaN payloads) interchangeable
        Expected(expected).check(got)


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", ORDERED)
@given(data=st.data())
def test_argsort(device, dtype, descending, stable, data):
    shape = _draw_case(data)
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    x = data.draw(host_arrays(dtype, shape), label="x")
    got = read_result(x.upload(device).argsort(x.layout, axis, descending, stable), dt.int64, shape)
    v = x.value()
    expected, _ = _expected_order(v, axis, descending)
    if stable:
        Expected(expected).check(got)
        return
    _check_permutation(got, shape, axis)
    key = ranks(v, axis)
    key = -key if descending else key
    # any order of ties: the ranks read through the indices are the sorted ranks
    Expected(np.sort(key, axis=axis)).check(np.take_along_axis(key, got, axis=axis))


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


def _unique_reference(flat):
    """(order, starts) of the 1-D host array: its stable ascending order (complex by real,
    then imaginary part, NaN last in each) and where runs of ``==`` elements start in it."""
    if flat.dtype.kind == "c":
        wide = flat.astype(np.complex128)
        order = np.lexsort((wide.imag, wide.real))
    else:
        wide = _orderable(flat)
        order = np.argsort(wide, kind="stable")
    s = wide[order]
    return order, np.concatenate([[True], s[1:] != s[:-1]])


@pytest.mark.parametrize("dtype", dtype_params(dt.ALL_DTYPES))
@given(data=st.data())
def test_unique(device, dtype, data):
    shape = data.draw(shapes(min_dims=0, max_dims=3, allow_empty=False))
    few = data.draw(st.booleans(), label="repeated values")
    x = data.draw(host_arrays(dtype, shape), label="x")
    if few and x.value().size > 1:  # many repeats: the values of a few of the elements
        pick = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        x.view[...] = pick.choice(x.value().reshape(-1), shape)
    indices, inverse, counts = (data.draw(st.booleans(), label=f) for f in ("indices", "inverse", "counts"))
    values, count, first, inv, sizes = x.upload(device).unique(x.layout, indices, inverse, counts)
    flat = x.value().reshape(-1)
    order, starts = _unique_reference(flat)
    assert count == int(starts.sum())
    got = read_result(values, dtype, (count,))
    if indices:  # each value is its first occurrence, bit for bit
        assert_bitwise_equal(got, flat[order][starts])
    else:  # any element of its group: -0.0 or 0.0
        Expected(flat[order][starts]).check(got)
    groups = np.cumsum(starts) - 1
    for flag, storage, want, n in ((indices, first, order[starts], count),
                                   (inverse, inv, groups[np.argsort(order)], flat.size),
                                   (counts, sizes, np.diff(np.flatnonzero(np.append(starts, True))), count)):
        if not flag:
            assert storage is None, "a result not asked for is None"
        else:
            Expected(want.astype(np.int64)).check(read_result(storage, dt.int64, (n,)))


@pytest.mark.parametrize("dtype", dtype_params([d for d in dt.ALL_DTYPES if not d.is_complex]))
@given(data=st.data())
def test_isin(device, dtype, data):
    """Each element of x against the elements of y (either may be empty), by ``==``:
    NaN is in nothing, -0.0 is 0.0; y often holds x's values, few or many of them."""
    x = data.draw(host_arrays(dtype, data.draw(shapes(max_dims=3), label="x shape")), label="x")
    y = data.draw(host_arrays(dtype, data.draw(shapes(max_dims=2), label="y shape")), label="y")
    flat = x.value().reshape(-1)
    if flat.size and y.view.size and data.draw(st.booleans(), label="y from x"):
        pick = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        y.view[...] = pick.choice(flat, y.view.shape)
    invert = data.draw(st.booleans(), label="invert")
    out = x.upload(device).isin(x.layout, y.upload(device), y.layout, invert)
    keys = _orderable(y.value().reshape(-1))
    want = np.isin(_orderable(x.value()), keys[keys == keys], invert=invert)  # NaN in nothing
    Expected(want).check(read_result(out, dt.bool_, x.layout.shape))

"""Indexing functions, both oracles: take and take_along_axis against array-api-strict
on drawn arrays and indices, then index dtypes, layouts, negative indices and errors
against NumPy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make, raises_index_error
from array_api_support import ALL, arrays, assert_matches_strict, shapes, to_strict


# === array-api-strict: drawn arrays =======================================================

@given(data=st.data())
def test_take(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) if x.ndim > 1 else st.none() | st.just(0), label="axis")
    n = x.size if axis is None else x.shape[axis]
    idx = data.draw(arrays("int64", shapes(min_dims=1, max_dims=1), min_value=-n, max_value=n - 1), label="indices")
    out = cw.take(x, idx, axis=axis)
    ref = xs.take(to_strict(x), to_strict(idx), axis=axis)
    assert_matches_strict(out, ref, what=f"take(axis={axis}): ")


@given(data=st.data())
def test_take_along_axis(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3, min_side=1)), label="x")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    idx_shape = list(x.shape)
    idx_shape[axis] = data.draw(st.integers(0, 4), label="k")
    n = x.shape[axis]
    idx = data.draw(arrays("int64", tuple(idx_shape), min_value=-n, max_value=n - 1), label="indices")
    out = cw.take_along_axis(x, idx, axis=axis)
    ref = xs.take_along_axis(to_strict(x), to_strict(idx), axis=axis)
    assert_matches_strict(out, ref, what=f"take_along_axis(axis={axis}): ")


# === NumPy: index dtypes, layouts, errors =================================================

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("idx_dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_take_axes(dev, layout, idx_dtype):
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = make(data, dev, layout)
    for axis, idx in ((0, [1, 0, 1]), (1, [2, 2]), (2, [3, 0, 1, 1]), (-1, [0]), (1, [])):
        indices = np.asarray(idx, dtype=idx_dtype)
        assert_same(cw.take(x, make(indices, dev), axis=axis), np.take(data, indices, axis=axis))


def test_take_negative_1d_and_views(dev):
    data = np.array([10, 20, 30, 40], np.int16)
    idx = np.array([-1, 0, -4, 2])
    assert_same(cw.take(make(data, dev), make(idx, dev)), np.take(data, idx))
    assert_same(cw.take(make(data, dev, "flipped"), make(idx, dev, "flipped")), np.take(data, idx))
    # multi-dimensional indices behave as in NumPy
    idx2 = np.array([[0, 1], [3, -2]])
    assert_same(cw.take(make(data, dev), make(idx2, dev), axis=0), np.take(data, idx2, axis=0))
    assert_same(cw.take(make(np.zeros((0, 3)), dev), make(np.array([1]), dev), axis=1),
                np.zeros((0, 1)))


def test_take_errors(dev):
    x = make(np.arange(6).reshape(2, 3), dev)
    with pytest.raises(ValueError):
        cw.take(x, make(np.array([0]), dev))  # axis needed for 2-D
    with raises_index_error(dev):
        cw.take(x, make(np.array([3]), dev), axis=1)
    with raises_index_error(dev):
        cw.take(x, make(np.array([-4]), dev), axis=1)
    with pytest.raises(IndexError):
        cw.take(x, make(np.array([0]), dev), axis=2)
    with pytest.raises(TypeError):
        cw.take(x, make(np.array([0.0]), dev), axis=0)
    with pytest.raises(TypeError):
        cw.take(x, [0], axis=0)
    with raises_index_error(dev):
        cw.take(make(np.zeros(0), dev), make(np.array([0]), dev))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_axis_matches_numpy(dev, layout):
    rng = np.random.default_rng(6)
    data = rng.standard_normal((3, 4, 5))
    x = make(data, dev, layout)
    for axis in (0, 1, 2, -1):
        order = np.argsort(data, axis=axis)
        assert_same(cw.take_along_axis(x, make(order, dev), axis=axis),
                    np.take_along_axis(data, order, axis=axis))


def test_take_along_axis_broadcast_and_negative(dev):
    data = np.arange(12).reshape(3, 4)
    idx = np.array([[-1, 0, 2]])  # broadcasts over axis 0
    assert_same(cw.take_along_axis(make(data, dev), make(idx, dev), axis=1),
                np.take_along_axis(data, idx, axis=1))
    col = np.arange(4).reshape(1, 4)
    assert_same(cw.take_along_axis(make(data[:1], dev), make(np.array([[0], [0]]), dev), axis=0),
                np.take_along_axis(data[:1], np.array([[0], [0]]), axis=0))
    idx3 = np.array([[0], [2], [-3]])
    x = make(np.broadcast_to(col, (3, 4)).copy(), dev)
    assert_same(cw.take_along_axis(x, make(idx3, dev), axis=0),
                np.take_along_axis(np.broadcast_to(col, (3, 4)), idx3, axis=0))
    # x broadcasts along a non-axis dimension too
    assert_same(cw.take_along_axis(make(col, dev), make(np.array([[1], [3]]), dev), axis=1),
                np.array([[1], [3]]))
    assert_same(cw.take_along_axis(make(data, dev), make(np.zeros((3, 0), np.int64), dev), axis=1),
                np.zeros((3, 0), data.dtype))


def test_take_along_axis_errors(dev):
    x = make(np.arange(6).reshape(2, 3), dev)
    with pytest.raises(ValueError):
        cw.take_along_axis(x, make(np.array([0]), dev))  # ndim differs
    with raises_index_error(dev):
        cw.take_along_axis(x, make(np.array([[3]]), dev), axis=1)
    with raises_index_error(dev):
        cw.take_along_axis(x, make(np.array([[-4]]), dev), axis=1)
    with pytest.raises(ValueError):
        cw.take_along_axis(x, make(np.zeros((3, 1), np.int64), dev), axis=1)
    with pytest.raises(IndexError):
        cw.take_along_axis(x, make(np.zeros((2, 1), np.int64), dev), axis=2)
    with pytest.raises(TypeError):
        cw.take_along_axis(x, make(np.zeros((2, 1)), dev), axis=1)
    with pytest.raises(ValueError):
        cw.take_along_axis(make(np.float64(1.0), dev), make(np.int64(0), dev), axis=0)

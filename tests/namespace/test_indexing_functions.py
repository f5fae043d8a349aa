"""take and take_along_axis on every backend."""

import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make, raises_index_error


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("idx_dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_take_axes(device, layout, idx_dtype):
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = make(data, device, layout)
    for axis, idx in ((0, [1, 0, 1]), (1, [2, 2]), (2, [3, 0, 1, 1]), (-1, [0]), (1, [])):
        indices = np.asarray(idx, dtype=idx_dtype)
        assert_same(cw.take(x, make(indices, device), axis=axis), np.take(data, indices, axis=axis))


def test_take_negative_1d_and_views(device):
    data = np.array([10, 20, 30, 40], np.int16)
    idx = np.array([-1, 0, -4, 2])
    assert_same(cw.take(make(data, device), make(idx, device)), np.take(data, idx))
    assert_same(cw.take(make(data, device, "flipped"), make(idx, device, "flipped")), np.take(data, idx))
    # multi-dimensional indices behave as in NumPy
    idx2 = np.array([[0, 1], [3, -2]])
    assert_same(cw.take(make(data, device), make(idx2, device), axis=0), np.take(data, idx2, axis=0))
    assert_same(cw.take(make(np.zeros((0, 3)), device), make(np.array([1]), device), axis=1),
                np.zeros((0, 1)))


def test_take_errors(device):
    x = make(np.arange(6).reshape(2, 3), device)
    with pytest.raises(ValueError):
        cw.take(x, make(np.array([0]), device))  # axis needed for 2-D
    with raises_index_error(device):
        cw.take(x, make(np.array([3]), device), axis=1)
    with raises_index_error(device):
        cw.take(x, make(np.array([-4]), device), axis=1)
    with pytest.raises(IndexError):
        cw.take(x, make(np.array([0]), device), axis=2)
    with pytest.raises(TypeError):
        cw.take(x, make(np.array([0.0]), device), axis=0)
    with pytest.raises(TypeError):
        cw.take(x, [0], axis=0)
    with raises_index_error(device):
        cw.take(make(np.zeros(0), device), make(np.array([0]), device))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_axis_matches_numpy(device, layout):
    rng = np.random.default_rng(6)
    data = rng.standard_normal((3, 4, 5))
    x = make(data, device, layout)
    for axis in (0, 1, 2, -1):
        order = np.argsort(data, axis=axis)
        assert_same(cw.take_along_axis(x, make(order, device), axis=axis),
                    np.take_along_axis(data, order, axis=axis))


def test_take_along_axis_broadcast_and_negative(device):
    data = np.arange(12).reshape(3, 4)
    idx = np.array([[-1, 0, 2]])  # broadcasts over axis 0
    assert_same(cw.take_along_axis(make(data, device), make(idx, device), axis=1),
                np.take_along_axis(data, idx, axis=1))
    col = np.arange(4).reshape(1, 4)
    assert_same(cw.take_along_axis(make(data[:1], device), make(np.array([[0], [0]]), device), axis=0),
                np.take_along_axis(data[:1], np.array([[0], [0]]), axis=0))
    idx3 = np.array([[0], [2], [-3]])
    x = make(np.broadcast_to(col, (3, 4)).copy(), device)
    assert_same(cw.take_along_axis(x, make(idx3, device), axis=0),
                np.take_along_axis(np.broadcast_to(col, (3, 4)), idx3, axis=0))
    # x broadcasts along a non-axis dimension too
    assert_same(cw.take_along_axis(make(col, device), make(np.array([[1], [3]]), device), axis=1),
                np.array([[1], [3]]))
    assert_same(cw.take_along_axis(make(data, device), make(np.zeros((3, 0), np.int64), device), axis=1),
                np.zeros((3, 0), data.dtype))


def test_take_along_axis_errors(device):
    x = make(np.arange(6).reshape(2, 3), device)
    with pytest.raises(ValueError):
        cw.take_along_axis(x, make(np.array([0]), device))  # ndim differs
    with raises_index_error(device):
        cw.take_along_axis(x, make(np.array([[3]]), device), axis=1)
    with raises_index_error(device):
        cw.take_along_axis(x, make(np.array([[-4]]), device), axis=1)
    with pytest.raises(ValueError):
        cw.take_along_axis(x, make(np.zeros((3, 1), np.int64), device), axis=1)
    with pytest.raises(IndexError):
        cw.take_along_axis(x, make(np.zeros((2, 1), np.int64), device), axis=2)
    with pytest.raises(TypeError):
        cw.take_along_axis(x, make(np.zeros((2, 1)), device), axis=1)
    with pytest.raises(ValueError):
        cw.take_along_axis(make(np.float64(1.0), device), make(np.int64(0), device), axis=0)

"""all, any, diff on every backend."""

import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make

NAN = float("nan")
DTYPES = [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fname", ["all", "any"])
def test_all_any_every_dtype(device, fname, dtype, layout):
    rng = np.random.default_rng(3)
    data = rng.integers(0, 2, size=(3, 4)).astype(dtype)
    data[1] = 1  # one all-true row
    data[2] = 0  # one all-false row
    x = make(data, device, layout)
    fn, ref = getattr(cw, fname), getattr(np, fname)
    for axis in (None, 0, 1, -1, (0, 1), ()):
        for keepdims in (False, True):
            assert_same(fn(x, axis=axis, keepdims=keepdims), ref(data, axis=axis, keepdims=keepdims))


def test_all_any_special_values(device):
    data = np.array([NAN, -0.0])
    assert_same(cw.any(make(data, device)), np.True_)  # NaN is non-zero
    assert_same(cw.all(make(data, device)), np.False_)  # -0.0 is zero
    assert_same(cw.all(make(np.array([1j, 1 + 0j]), device)), np.True_)
    assert_same(cw.any(make(np.array([0j, -0j]), device)), np.False_)
    assert_same(cw.all(make(np.zeros(0), device)), np.True_)
    assert_same(cw.any(make(np.zeros(0), device)), np.False_)
    assert_same(cw.all(make(np.zeros((2, 0)), device), axis=1), np.ones(2, bool))
    assert_same(cw.any(make(np.float32(2.0), device)), np.True_)


def test_all_any_errors(device):
    with pytest.raises(IndexError):
        cw.all(make(np.ones(3), device), axis=1)
    with pytest.raises(ValueError):
        cw.any(make(np.ones((2, 2)), device), axis=(0, 0))
    with pytest.raises(TypeError):
        cw.all([True])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.float32, np.complex128, np.bool_])
def test_diff_orders_and_axes(device, dtype, layout):
    rng = np.random.default_rng(4)
    data = rng.integers(0, 9, size=(4, 5)).astype(dtype)
    x = make(data, device, layout)
    for axis in (0, 1, -1, -2):
        for n in (0, 1, 2, 4, 7):
            assert_same(cw.diff(x, axis=axis, n=n), np.diff(data, axis=axis, n=n))


def test_diff_prepend_append(device):
    data = np.array([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]])
    pre = np.array([[0.0], [10.0]])
    app = np.array([[16.0, 25.0], [8.0, 13.0]])
    x = make(data, device)
    assert_same(cw.diff(x, prepend=make(pre, device)), np.diff(data, prepend=pre))
    assert_same(cw.diff(x, append=make(app, device), n=2), np.diff(data, append=app, n=2))
    assert_same(cw.diff(x, axis=0, prepend=make(pre.T[:, :1].T.repeat(3, 1), device)),
                np.diff(data, axis=0, prepend=pre.T[:, :1].T.repeat(3, 1)))
    assert_same(cw.diff(x, prepend=0.0, append=100.0), np.diff(data, prepend=0.0, append=100.0))
    # a 0-d array broadcasts like a scalar; int prepend promotes with a float x? no: same kind only
    assert_same(cw.diff(x, prepend=make(np.float64(1.0), device)), np.diff(data, prepend=1.0))
    i = np.array([3, 1, 7], np.int16)
    assert_same(cw.diff(make(i, device), prepend=make(np.array([1], np.int32), device)),
                np.diff(i, prepend=np.array([1], np.int32)))


def test_diff_special(device):
    data = np.array([1.0, NAN, np.inf, np.inf])
    with np.errstate(invalid="ignore"):  # the oracle's inf - inf
        want = np.diff(data)
    assert_same(cw.diff(make(data, device)), want)
    assert_same(cw.diff(make(np.zeros(0), device)), np.zeros(0))
    assert_same(cw.diff(make(np.zeros((3, 0)), device), axis=0), np.zeros((2, 0)))
    u = np.array([5, 2], np.uint8)
    assert_same(cw.diff(make(u, device)), np.diff(u))  # wraps modulo 256


def test_diff_errors(device):
    x = make(np.ones((2, 3)), device)
    with pytest.raises(ValueError):
        cw.diff(make(np.float64(1.0), device))
    with pytest.raises(ValueError):
        cw.diff(x, n=-1)
    with pytest.raises(TypeError):
        cw.diff(x, n=1.5)
    with pytest.raises(IndexError):
        cw.diff(x, axis=2)
    with pytest.raises(ValueError):
        cw.diff(x, prepend=make(np.ones((3, 1)), device))
    with cw.promotion_mode("strict"), pytest.raises(TypeError):  # mixed kinds
        cw.diff(x, append=make(np.ones((2, 1), np.int64), device))
    with pytest.raises(TypeError):
        cw.diff(x, append="a")

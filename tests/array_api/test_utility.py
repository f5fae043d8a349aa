"""Utility functions, both oracles: all, any and diff against array-api-strict on drawn
arrays, then every dtype, layouts, special values and errors against NumPy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make
from array_api_support import (
    ALL, NUMERIC, arrays, assert_matches_strict, axes_for, finite_arrays, quiet, shapes, to_strict,
)


# === array-api-strict: drawn arrays =======================================================

@pytest.mark.parametrize("fname", ["all", "any"])
@given(data=st.data())
def test_all_and_any(fname, data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    shape = data.draw(shapes(max_dims=3), label="shape")
    x = data.draw(arrays(name, shape), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = getattr(cw, fname)(x, axis=axis, keepdims=keepdims)
    ref = quiet(getattr(xs, fname), to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, what=f"{fname}(axis={axis}): ")


@given(data=st.data())
def test_diff(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_dims=3), label="shape")
    x = data.draw(finite_arrays(name, shape, magnitude=100.0), label="x")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    n = data.draw(st.integers(1, 3), label="n")
    kwargs = {"axis": axis, "n": n}
    strict_kwargs = dict(kwargs)
    if data.draw(st.booleans(), label="prepend"):
        pshape = list(shape)
        pshape[axis] = data.draw(st.integers(0, 2), label="prepend_len")
        pre = data.draw(finite_arrays(name, tuple(pshape), magnitude=100.0), label="prepend")
        kwargs["prepend"], strict_kwargs["prepend"] = pre, to_strict(pre)
    out = cw.diff(x, **kwargs)
    ref = quiet(xs.diff, to_strict(x), **strict_kwargs)
    assert_matches_strict(out, ref, rtol=1e-5 if name in ("float32", "complex64") else 1e-12,
                          what=f"diff(axis={axis}, n={n}): ")


# === NumPy: every dtype, layouts, special values ==========================================

NAN = float("nan")
DTYPES = [np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fname", ["all", "any"])
def test_all_any_every_dtype(dev, fname, dtype, layout):
    rng = np.random.default_rng(3)
    data = rng.integers(0, 2, size=(3, 4)).astype(dtype)
    data[1] = 1  # one all-true row
    data[2] = 0  # one all-false row
    x = make(data, dev, layout)
    fn, ref = getattr(cw, fname), getattr(np, fname)
    for axis in (None, 0, 1, -1, (0, 1), ()):
        for keepdims in (False, True):
            assert_same(fn(x, axis=axis, keepdims=keepdims), ref(data, axis=axis, keepdims=keepdims))


def test_all_any_special_values(dev):
    data = np.array([NAN, -0.0])
    assert_same(cw.any(make(data, dev)), np.True_)  # NaN is non-zero
    assert_same(cw.all(make(data, dev)), np.False_)  # -0.0 is zero
    assert_same(cw.all(make(np.array([1j, 1 + 0j]), dev)), np.True_)
    assert_same(cw.any(make(np.array([0j, -0j]), dev)), np.False_)
    assert_same(cw.all(make(np.zeros(0), dev)), np.True_)
    assert_same(cw.any(make(np.zeros(0), dev)), np.False_)
    assert_same(cw.all(make(np.zeros((2, 0)), dev), axis=1), np.ones(2, bool))
    assert_same(cw.any(make(np.float32(2.0), dev)), np.True_)


def test_all_any_errors(dev):
    with pytest.raises(IndexError):
        cw.all(make(np.ones(3), dev), axis=1)
    with pytest.raises(ValueError):
        cw.any(make(np.ones((2, 2)), dev), axis=(0, 0))
    with pytest.raises(TypeError):
        cw.all([True])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.float32, np.complex128, np.bool_])
def test_diff_orders_and_axes(dev, dtype, layout):
    rng = np.random.default_rng(4)
    data = rng.integers(0, 9, size=(4, 5)).astype(dtype)
    x = make(data, dev, layout)
    for axis in (0, 1, -1, -2):
        for n in (0, 1, 2, 4, 7):
            assert_same(cw.diff(x, axis=axis, n=n), np.diff(data, axis=axis, n=n))


def test_diff_prepend_append(dev):
    data = np.array([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]])
    pre = np.array([[0.0], [10.0]])
    app = np.array([[16.0, 25.0], [8.0, 13.0]])
    x = make(data, dev)
    assert_same(cw.diff(x, prepend=make(pre, dev)), np.diff(data, prepend=pre))
    assert_same(cw.diff(x, append=make(app, dev), n=2), np.diff(data, append=app, n=2))
    assert_same(cw.diff(x, axis=0, prepend=make(pre.T[:, :1].T.repeat(3, 1), dev)),
                np.diff(data, axis=0, prepend=pre.T[:, :1].T.repeat(3, 1)))
    assert_same(cw.diff(x, prepend=0.0, append=100.0), np.diff(data, prepend=0.0, append=100.0))
    # a 0-d array broadcasts like a scalar; int prepend promotes with a float x? no: same kind only
    assert_same(cw.diff(x, prepend=make(np.float64(1.0), dev)), np.diff(data, prepend=1.0))
    i = np.array([3, 1, 7], np.int16)
    assert_same(cw.diff(make(i, dev), prepend=make(np.array([1], np.int32), dev)),
                np.diff(i, prepend=np.array([1], np.int32)))


def test_diff_special(dev):
    data = np.array([1.0, NAN, np.inf, np.inf])
    with np.errstate(invalid="ignore"):  # the oracle's inf - inf
        want = np.diff(data)
    assert_same(cw.diff(make(data, dev)), want)
    assert_same(cw.diff(make(np.zeros(0), dev)), np.zeros(0))
    assert_same(cw.diff(make(np.zeros((3, 0)), dev), axis=0), np.zeros((2, 0)))
    u = np.array([5, 2], np.uint8)
    assert_same(cw.diff(make(u, dev)), np.diff(u))  # wraps modulo 256


def test_diff_errors(dev):
    x = make(np.ones((2, 3)), dev)
    with pytest.raises(ValueError):
        cw.diff(make(np.float64(1.0), dev))
    with pytest.raises(ValueError):
        cw.diff(x, n=-1)
    with pytest.raises(TypeError):
        cw.diff(x, n=1.5)
    with pytest.raises(IndexError):
        cw.diff(x, axis=2)
    with pytest.raises(ValueError):
        cw.diff(x, prepend=make(np.ones((3, 1)), dev))
    with cw.promotion_mode("strict"), pytest.raises(TypeError):  # mixed kinds
        cw.diff(x, append=make(np.ones((2, 1), np.int64), dev))
    with pytest.raises(TypeError):
        cw.diff(x, append="a")

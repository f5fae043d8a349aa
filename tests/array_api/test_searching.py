"""Searching functions, both oracles: argmax, argmin, count_nonzero, nonzero,
searchsorted and where against array-api-strict on drawn arrays, then on fixed cases,
layouts and special values against NumPy and array-api-strict."""

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, host, make, raises_index_error
from array_api_support import (
    ALL, REAL, REAL_FLOAT, arrays, assert_matches_strict, axes_for, axis_for, shapes, small_arrays,
    to_strict, xps,
)


def _no_nan(name, shape):
    return arrays(name, shape, **({"allow_nan": False} if name in REAL_FLOAT else {}))


# === array-api-strict: drawn arrays =======================================================

@pytest.mark.parametrize("fname", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin(fname, data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    shape = data.draw(shapes(max_dims=3, min_side=1), label="shape")
    # few distinct values so ties are common: the first occurrence must win
    x = data.draw(small_arrays(name, shape, 0, 3), label="x")
    axis = data.draw(axis_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = getattr(cw, fname)(x, axis=axis, keepdims=keepdims)
    ref = getattr(xs, fname)(to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, what=f"{fname}(axis={axis}, keepdims={keepdims}): ")


@given(data=st.data())
def test_count_nonzero(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    shape = data.draw(shapes(max_dims=3), label="shape")
    x = data.draw(arrays(name, shape), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = cw.count_nonzero(x, axis=axis, keepdims=keepdims)
    ref = xs.count_nonzero(to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, what=f"count_nonzero(axis={axis}): ")


@given(data=st.data())
def test_nonzero(data):
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x = data.draw(arrays(name, shapes(min_dims=1, max_dims=3)), label="x")
    out = cw.nonzero(x)
    ref = xs.nonzero(to_strict(x))
    assert isinstance(out, tuple) and len(out) == len(ref) == x.ndim
    for got, exp in zip(out, ref):
        assert_matches_strict(got, exp, what="nonzero: ")
        assert got.device == x.device


def test_nonzero_of_a_0d_array_is_an_error():
    with pytest.raises(ValueError):
        cw.nonzero(cw.asarray(1))


@given(data=st.data())
def test_searchsorted(data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    haystack = data.draw(_no_nan(name, shapes(min_dims=1, max_dims=1)), label="x1")
    needles = data.draw(_no_nan(name, shapes(max_dims=2)), label="x2")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    use_sorter = data.draw(st.booleans(), label="use_sorter")
    if use_sorter:
        sorter = cw.argsort(haystack)
        out = cw.searchsorted(haystack, needles, side=side, sorter=sorter)
        ref = xs.searchsorted(to_strict(haystack), to_strict(needles), side=side, sorter=to_strict(sorter))
    else:
        haystack = cw.sort(haystack)
        out = cw.searchsorted(haystack, needles, side=side)
        ref = xs.searchsorted(to_strict(haystack), to_strict(needles), side=side)
    assert_matches_strict(out, ref, what=f"searchsorted(side={side}): ")


def test_searchsorted_rejects_nd_haystacks_and_bad_sides():
    with pytest.raises(ValueError):
        cw.searchsorted(cw.ones((2, 2)), cw.ones(2))
    with pytest.raises(ValueError):
        cw.searchsorted(cw.ones(2), cw.ones(2), side="middle")


@given(data=st.data())
def test_where(data):
    s = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=3), label="shapes").input_shapes
    cond = data.draw(arrays("bool", s[0]), label="condition")
    name = data.draw(st.sampled_from(ALL), label="dtype")
    x1 = data.draw(arrays(name, s[1]), label="x1")
    use_scalar = data.draw(st.booleans(), label="scalar x2")
    if use_scalar:
        scalar = {"bool": True}.get(name, 1)
        out = cw.where(cond, x1, scalar)
        ref = xs.where(to_strict(cond), to_strict(x1), scalar)
    else:
        x2 = data.draw(arrays(name, s[2]), label="x2")
        out = cw.where(cond, x1, x2)
        ref = xs.where(to_strict(cond), to_strict(x1), to_strict(x2))
    assert_matches_strict(out, ref, what="where: ")


def test_where_needs_a_bool_condition():
    with pytest.raises(TypeError):
        cw.where(cw.asarray([1, 0]), cw.asarray([1.0, 2.0]), cw.asarray([3.0, 4.0]))


# === fixed cases and layouts: NumPy and array-api-strict ==================================

NAN = float("nan")


# --- argmax / argmin -------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_axes(dev, fname, layout):
    data = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 9]], dtype=np.int32)
    x = make(data, dev, layout)
    fn, ref = getattr(cw, fname), getattr(np, fname)
    assert_same(fn(x), ref(data))
    for axis in (0, 1, -1):
        assert_same(fn(x, axis=axis), ref(data, axis=axis))
        assert_same(fn(x, axis=axis, keepdims=True), ref(data, axis=axis, keepdims=True))
    assert_same(fn(x, keepdims=True), ref(data, keepdims=True))


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_nan_ties_and_0d(dev, fname):
    fn, ref = getattr(cw, fname), getattr(np, fname)
    data = np.array([1.0, NAN, 7.0, NAN, -2.0])
    assert_same(fn(make(data, dev)), ref(data))  # first NaN wins
    ties = np.array([2, 7, 7, 2, 7], dtype=np.uint8)
    assert_same(fn(make(ties, dev)), ref(ties))  # first of equal extremes
    assert_same(fn(make(np.float32(5.0), dev)), np.int64(0))
    assert_same(fn(make(np.array([True, False, True]), dev)), ref([True, False, True]))


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_errors(dev, fname):
    fn = getattr(cw, fname)
    with pytest.raises(ValueError):
        fn(make(np.zeros((0,)), dev))
    with pytest.raises(ValueError):
        fn(make(np.zeros((2, 0)), dev), axis=1)
    with pytest.raises(IndexError):
        fn(make(np.zeros((2, 3)), dev), axis=2)
    with pytest.raises(TypeError):
        fn(make(np.array([1 + 2j]), dev))
    with pytest.raises(TypeError):
        fn(np.array([1, 2]))


# --- count_nonzero ---------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint64, np.float32, np.complex64])
def test_count_nonzero_layouts(dev, dtype, layout):
    rng = np.random.default_rng(0)
    data = (rng.integers(0, 3, size=(3, 4, 2)) * (rng.integers(0, 2, size=(3, 4, 2)))).astype(dtype)
    x = make(data, dev, layout)
    for axis in (None, 0, 1, (0, 2), (), -1):
        for keepdims in (False, True):
            assert_same(cw.count_nonzero(x, axis=axis, keepdims=keepdims),
                        np.count_nonzero(data, axis=axis, keepdims=keepdims), dtype=cw.int64)


def test_count_nonzero_special(dev):
    data = np.array([NAN, 0.0, -0.0, complex(0, 1).imag])
    assert_same(cw.count_nonzero(make(data, dev)), np.int64(2))
    assert_same(cw.count_nonzero(make(np.array([0j, 1j, 1 + 0j]), dev)), np.int64(2))
    assert_same(cw.count_nonzero(make(np.zeros((0, 3)), dev), axis=0), np.zeros(3, np.int64))
    assert_same(cw.count_nonzero(make(np.int8(3), dev)), np.int64(1))
    with pytest.raises(IndexError):
        cw.count_nonzero(make(np.ones(3), dev), axis=1)


# --- nonzero ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (0,), (3, 0), (1, 1, 5)])
def test_nonzero_matches_numpy(dev, shape, layout):
    rng = np.random.default_rng(1)
    data = rng.integers(-1, 2, size=shape).astype(np.float64)
    result = cw.nonzero(make(data, dev, layout))
    expected = np.nonzero(data)
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected):
        assert_same(r, e, dtype=cw.int64)


def test_nonzero_dtypes_and_special(dev):
    for data in (np.array([True, False, True, True]), np.array([0j, 1j, 0, 2 + 0j]),
                 np.array([NAN, 0.0, -0.0, 1.0]), np.array([0, 255, 0], np.uint8),
                 np.zeros((2, 2)), np.ones((2, 2), np.int64)):
        for r, e in zip(cw.nonzero(make(data, dev)), np.nonzero(data)):
            assert_same(r, e, dtype=cw.int64)


def test_nonzero_rejects_0d(dev):
    with pytest.raises(ValueError):
        cw.nonzero(make(np.float64(1.0), dev))


def test_nonzero_results_are_independent(dev):
    # the per-axis results must not share storage
    data = np.array([[0, 1], [1, 0]])
    rows, cols = cw.nonzero(make(data, dev))
    rows[0] = 9
    assert host(cols).tolist() == [1, 0]


# --- searchsorted ------------------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
def test_searchsorted_fixed_cases(dev, side, dtype):
    sorted_ = np.array([1, 2, 2, 2, 5, 7, 9], dtype=dtype)
    values = np.array([[0, 1, 2], [3, 7, 10]], dtype=dtype)
    got = cw.searchsorted(make(sorted_, dev), make(values, dev), side=side)
    assert_same(got, np.searchsorted(sorted_, values, side=side), dtype=cw.int64)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_and_sorter(dev, side):
    data = np.array([3.0, NAN, 1.0, 2.0, 2.0])
    sorter = np.argsort(data, kind="stable")
    values = np.array([NAN, 2.0, -np.inf, np.inf, 1.5])
    got = cw.searchsorted(make(data, dev), make(values, dev), side=side,
                          sorter=make(sorter, dev))
    assert_same(got, np.searchsorted(data, values, side=side, sorter=sorter), dtype=cw.int64)
    # strict oracle on a sorted array with a NaN at the end
    s = np.sort(data)
    ref = xs.searchsorted(xs.asarray(s), xs.asarray(values), side=side)
    assert_same(cw.searchsorted(make(s, dev, "flipped"), make(values, dev), side=side),
                np.asarray(ref), dtype=cw.int64)


def test_searchsorted_scalar_empty_and_promotion(dev):
    s = make(np.array([1, 3, 5], np.int16), dev)
    assert_same(cw.searchsorted(s, 4), np.int64(2))
    assert_same(cw.searchsorted(s, make(np.array([2, 6], np.int64), dev)), np.array([1, 3]))
    assert_same(cw.searchsorted(make(np.zeros(0), dev), make(np.array([1.0]), dev)),
                np.array([0]))
    assert_same(cw.searchsorted(s, make(np.zeros((0, 2), np.int16), dev)), np.zeros((0, 2), np.int64))


def test_searchsorted_errors(dev):
    s = make(np.array([1.0, 2.0]), dev)
    with pytest.raises(ValueError):
        cw.searchsorted(make(np.ones((2, 2)), dev), s)
    with pytest.raises(ValueError):
        cw.searchsorted(s, s, side="middle")
    with pytest.raises(TypeError):
        cw.searchsorted(make(np.array([1j]), dev), make(np.array([1j]), dev))
    with pytest.raises(ValueError):
        cw.searchsorted(s, s, sorter=make(np.array([0]), dev))
    with pytest.raises(TypeError):
        cw.searchsorted(s, s, sorter=make(np.array([0.0, 1.0]), dev))
    with raises_index_error(dev):
        cw.searchsorted(s, s, sorter=make(np.array([0, 5]), dev))


# --- where -------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_where_broadcast_and_promotion(dev, layout):
    cond = np.array([[True, False, True]])
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = np.array([[100], [-100]], dtype=np.int32)
    got = cw.where(make(cond, dev, layout), make(a, dev, layout), make(b, dev))
    assert_same(got, np.where(cond, a, b))


def test_where_scalars(dev):
    cond = np.array([True, False, True])
    x = np.array([1.5, 2.5, 3.5], np.float32)
    assert_same(cw.where(make(cond, dev), make(x, dev), 0.0), np.where(cond, x, np.float32(0)))
    assert_same(cw.where(make(cond, dev), -1, make(x, dev)), np.where(cond, np.float32(-1), x))
    i = make(np.array([1, 2, 3], np.uint8), dev)
    assert_same(cw.where(make(cond, dev), i, 7), np.array([1, 7, 3], np.uint8))
    got = cw.where(make(cond, dev), make(x, dev), 1j)
    assert_same(got, np.where(cond, x.astype(np.complex64), 1j).astype(np.complex64))
    b = make(np.array([True, True, False]), dev)
    assert_same(cw.where(make(cond, dev), b, False), np.array([True, False, False]))
    assert_same(cw.where(make(np.bool_(True), dev), make(np.float64(2.0), dev), 3.0), np.float64(2.0))
    assert_same(cw.where(make(np.zeros((0, 3), bool), dev), make(x, dev), 1.0), np.zeros((0, 3), np.float32))


def test_where_nan_passthrough(dev):
    cond = np.array([True, False])
    x = np.array([NAN, 1.0])
    assert_same(cw.where(make(cond, dev), make(x, dev), make(x[::-1].copy(), dev)),
                np.where(cond, x, x[::-1]))


def test_where_errors(dev):
    x = make(np.array([1.0, 2.0]), dev)
    with pytest.raises(TypeError):
        cw.where(make(np.array([1, 0]), dev), x, x)  # condition must be bool
    with pytest.raises(TypeError):
        cw.where(make(np.array([True, False]), dev), 1.0, 2.0)  # no array operand
    with cw.promotion_mode("strict"):  # mixed kinds (docs/promotion.md)
        with pytest.raises(TypeError):
            cw.where(make(np.array([True, False]), dev), make(np.array([1, 2]), dev), 0.5)
        with pytest.raises(TypeError):
            cw.where(make(np.array([True, False]), dev), x, make(np.array([1, 2], np.int64), dev))
    with pytest.raises(ValueError):
        cw.where(make(np.array([True, False, True]), dev), x, x)
    with pytest.raises(OverflowError):
        cw.where(make(np.array([True, False]), dev), make(np.array([1, 2], np.int8), dev), 300)

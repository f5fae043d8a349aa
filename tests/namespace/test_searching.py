"""argmax, argmin, count_nonzero, nonzero, searchsorted, where on every backend."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, host, make, raises_index_error

NAN = float("nan")


# --- argmax / argmin -------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_axes(device, fname, layout):
    data = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 9]], dtype=np.int32)
    x = make(data, device, layout)
    fn, ref = getattr(cw, fname), getattr(np, fname)
    assert_same(fn(x), ref(data))
    for axis in (0, 1, -1):
        assert_same(fn(x, axis=axis), ref(data, axis=axis))
        assert_same(fn(x, axis=axis, keepdims=True), ref(data, axis=axis, keepdims=True))
    assert_same(fn(x, keepdims=True), ref(data, keepdims=True))


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_nan_ties_and_0d(device, fname):
    fn, ref = getattr(cw, fname), getattr(np, fname)
    data = np.array([1.0, NAN, 7.0, NAN, -2.0])
    assert_same(fn(make(data, device)), ref(data))  # first NaN wins
    ties = np.array([2, 7, 7, 2, 7], dtype=np.uint8)
    assert_same(fn(make(ties, device)), ref(ties))  # first of equal extremes
    assert_same(fn(make(np.float32(5.0), device)), np.int64(0))
    assert_same(fn(make(np.array([True, False, True]), device)), ref([True, False, True]))


@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_argextreme_errors(device, fname):
    fn = getattr(cw, fname)
    with pytest.raises(ValueError):
        fn(make(np.zeros((0,)), device))
    with pytest.raises(ValueError):
        fn(make(np.zeros((2, 0)), device), axis=1)
    with pytest.raises(IndexError):
        fn(make(np.zeros((2, 3)), device), axis=2)
    with pytest.raises(TypeError):
        fn(make(np.array([1 + 2j]), device))
    with pytest.raises(TypeError):
        fn(np.array([1, 2]))


# --- count_nonzero ---------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint64, np.float32, np.complex64])
def test_count_nonzero(device, dtype, layout):
    rng = np.random.default_rng(0)
    data = (rng.integers(0, 3, size=(3, 4, 2)) * (rng.integers(0, 2, size=(3, 4, 2)))).astype(dtype)
    x = make(data, device, layout)
    for axis in (None, 0, 1, (0, 2), (), -1):
        for keepdims in (False, True):
            assert_same(cw.count_nonzero(x, axis=axis, keepdims=keepdims),
                        np.count_nonzero(data, axis=axis, keepdims=keepdims), dtype=cw.int64)


def test_count_nonzero_special(device):
    data = np.array([NAN, 0.0, -0.0, complex(0, 1).imag])
    assert_same(cw.count_nonzero(make(data, device)), np.int64(2))
    assert_same(cw.count_nonzero(make(np.array([0j, 1j, 1 + 0j]), device)), np.int64(2))
    assert_same(cw.count_nonzero(make(np.zeros((0, 3)), device), axis=0), np.zeros(3, np.int64))
    assert_same(cw.count_nonzero(make(np.int8(3), device)), np.int64(1))
    with pytest.raises(IndexError):
        cw.count_nonzero(make(np.ones(3), device), axis=1)


# --- nonzero ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (0,), (3, 0), (1, 1, 5)])
def test_nonzero_matches_numpy(device, shape, layout):
    rng = np.random.default_rng(1)
    data = rng.integers(-1, 2, size=shape).astype(np.float64)
    result = cw.nonzero(make(data, device, layout))
    expected = np.nonzero(data)
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected):
        assert_same(r, e, dtype=cw.int64)


def test_nonzero_dtypes_and_special(device):
    for data in (np.array([True, False, True, True]), np.array([0j, 1j, 0, 2 + 0j]),
                 np.array([NAN, 0.0, -0.0, 1.0]), np.array([0, 255, 0], np.uint8),
                 np.zeros((2, 2)), np.ones((2, 2), np.int64)):
        for r, e in zip(cw.nonzero(make(data, device)), np.nonzero(data)):
            assert_same(r, e, dtype=cw.int64)


def test_nonzero_rejects_0d(device):
    with pytest.raises(ValueError):
        cw.nonzero(make(np.float64(1.0), device))


def test_nonzero_results_are_independent(device):
    # the per-axis results must not share storage
    data = np.array([[0, 1], [1, 0]])
    rows, cols = cw.nonzero(make(data, device))
    rows[0] = 9
    assert host(cols).tolist() == [1, 0]


# --- searchsorted ------------------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
def test_searchsorted(device, side, dtype):
    sorted_ = np.array([1, 2, 2, 2, 5, 7, 9], dtype=dtype)
    values = np.array([[0, 1, 2], [3, 7, 10]], dtype=dtype)
    got = cw.searchsorted(make(sorted_, device), make(values, device), side=side)
    assert_same(got, np.searchsorted(sorted_, values, side=side), dtype=cw.int64)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_and_sorter(device, side):
    data = np.array([3.0, NAN, 1.0, 2.0, 2.0])
    sorter = np.argsort(data, kind="stable")
    values = np.array([NAN, 2.0, -np.inf, np.inf, 1.5])
    got = cw.searchsorted(make(data, device), make(values, device), side=side,
                          sorter=make(sorter, device))
    assert_same(got, np.searchsorted(data, values, side=side, sorter=sorter), dtype=cw.int64)
    # strict oracle on a sorted array with a NaN at the end
    s = np.sort(data)
    ref = xp.searchsorted(xp.asarray(s), xp.asarray(values), side=side)
    assert_same(cw.searchsorted(make(s, device, "flipped"), make(values, device), side=side),
                np.asarray(ref), dtype=cw.int64)


def test_searchsorted_scalar_empty_and_promotion(device):
    s = make(np.array([1, 3, 5], np.int16), device)
    assert_same(cw.searchsorted(s, 4), np.int64(2))
    assert_same(cw.searchsorted(s, make(np.array([2, 6], np.int64), device)), np.array([1, 3]))
    assert_same(cw.searchsorted(make(np.zeros(0), device), make(np.array([1.0]), device)),
                np.array([0]))
    assert_same(cw.searchsorted(s, make(np.zeros((0, 2), np.int16), device)), np.zeros((0, 2), np.int64))


def test_searchsorted_errors(device):
    s = make(np.array([1.0, 2.0]), device)
    with pytest.raises(ValueError):
        cw.searchsorted(make(np.ones((2, 2)), device), s)
    with pytest.raises(ValueError):
        cw.searchsorted(s, s, side="middle")
    with pytest.raises(TypeError):
        cw.searchsorted(make(np.array([1j]), device), make(np.array([1j]), device))
    with pytest.raises(ValueError):
        cw.searchsorted(s, s, sorter=make(np.array([0]), device))
    with pytest.raises(TypeError):
        cw.searchsorted(s, s, sorter=make(np.array([0.0, 1.0]), device))
    with raises_index_error(device):
        cw.searchsorted(s, s, sorter=make(np.array([0, 5]), device))


# --- where -------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_where_broadcast_and_promotion(device, layout):
    cond = np.array([[True, False, True]])
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = np.array([[100], [-100]], dtype=np.int32)
    got = cw.where(make(cond, device, layout), make(a, device, layout), make(b, device))
    assert_same(got, np.where(cond, a, b))


def test_where_scalars(device):
    cond = np.array([True, False, True])
    x = np.array([1.5, 2.5, 3.5], np.float32)
    assert_same(cw.where(make(cond, device), make(x, device), 0.0), np.where(cond, x, np.float32(0)))
    assert_same(cw.where(make(cond, device), -1, make(x, device)), np.where(cond, np.float32(-1), x))
    i = make(np.array([1, 2, 3], np.uint8), device)
    assert_same(cw.where(make(cond, device), i, 7), np.array([1, 7, 3], np.uint8))
    got = cw.where(make(cond, device), make(x, device), 1j)
    assert_same(got, np.where(cond, x.astype(np.complex64), 1j).astype(np.complex64))
    b = make(np.array([True, True, False]), device)
    assert_same(cw.where(make(cond, device), b, False), np.array([True, False, False]))
    assert_same(cw.where(make(np.bool_(True), device), make(np.float64(2.0), device), 3.0), np.float64(2.0))
    assert_same(cw.where(make(np.zeros((0, 3), bool), device), make(x, device), 1.0), np.zeros((0, 3), np.float32))


def test_where_nan_passthrough(device):
    cond = np.array([True, False])
    x = np.array([NAN, 1.0])
    assert_same(cw.where(make(cond, device), make(x, device), make(x[::-1].copy(), device)),
                np.where(cond, x, x[::-1]))


def test_where_errors(device):
    x = make(np.array([1.0, 2.0]), device)
    with pytest.raises(TypeError):
        cw.where(make(np.array([1, 0]), device), x, x)  # condition must be bool
    with pytest.raises(TypeError):
        cw.where(make(np.array([True, False]), device), 1.0, 2.0)  # no array operand
    with cw.promotion_mode("strict"):  # mixed kinds (docs/promotion.md)
        with pytest.raises(TypeError):
            cw.where(make(np.array([True, False]), device), make(np.array([1, 2]), device), 0.5)
        with pytest.raises(TypeError):
            cw.where(make(np.array([True, False]), device), x, make(np.array([1, 2], np.int64), device))
    with pytest.raises(ValueError):
        cw.where(make(np.array([True, False, True]), device), x, x)
    with pytest.raises(OverflowError):
        cw.where(make(np.array([True, False]), device), make(np.array([1, 2], np.int8), device), 300)

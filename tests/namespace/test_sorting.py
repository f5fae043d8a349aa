"""sort and argsort on every backend: stability in both directions, NaN placement,
every real dtype, views, empty and error cases."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make

NAN = float("nan")
REAL = [np.bool_, np.int8, np.int64, np.uint16, np.uint64, np.float32, np.float64]


def _data(dtype, shape=(4, 6)):
    rng = np.random.default_rng(2)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    # few distinct values so ties are common (stability is observable)
    return rng.integers(0, 4, size=shape).astype(dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_sort_and_argsort_match_strict(device, dtype, descending, axis, layout):
    data = _data(dtype)
    x = make(data, device, layout)
    # array-api-strict does not sort bool (NumPy does): its oracle sorts the 0/1 values
    ref_x = xp.asarray(data.astype(np.uint8) if dtype is np.bool_ else data)
    expected = np.asarray(xp.sort(ref_x, axis=axis, descending=descending)).astype(dtype)
    assert_same(cw.sort(x, axis=axis, descending=descending), expected)
    # stable is the default: the argsort is fully determined, ties included
    assert_same(cw.argsort(x, axis=axis, descending=descending),
                np.asarray(xp.argsort(ref_x, axis=axis, descending=descending)), dtype=cw.int64)


@pytest.mark.parametrize("descending", [False, True])
def test_nan_inf_and_signed_zero_order(device, descending):
    data = np.array([NAN, 1.0, -np.inf, NAN, np.inf, -1.0, 0.0], dtype=np.float32)
    got = cw.sort(make(data, device), descending=descending)
    expected = np.sort(data)
    if descending:
        expected = expected[::-1]  # NaN first when descending
    assert_same(got, expected)
    order = cw.argsort(make(data, device), descending=descending)
    assert_same(order, np.asarray(xp.argsort(xp.asarray(data), descending=descending)), dtype=cw.int64)


def test_low_precision_and_unstable(device):
    data = np.array([3.0, -1.0, 2.5, 2.5, 0.0], dtype=np.float16)
    assert_same(cw.sort(make(data, device)), np.sort(data))
    # stable=False may order ties either way, but the values still sort
    idx = cw.argsort(make(data, device), stable=False)
    assert sorted(cw.to_numpy(idx).tolist()) == list(range(5))
    np.testing.assert_array_equal(data[cw.to_numpy(idx)], np.sort(data))


def test_sort_empty_and_one(device):
    for shape, axis in (((0,), -1), ((3, 0), 1), ((0, 4), 0), ((1,), 0)):
        data = np.zeros(shape, np.int32)
        assert_same(cw.sort(make(data, device), axis=axis), data)
        assert_same(cw.argsort(make(data, device), axis=axis), np.zeros(shape, np.int64))


def test_sort_does_not_touch_input(device):
    data = np.array([3, 1, 2])
    x = make(data, device)
    cw.sort(x)
    assert cw.to_numpy(x).tolist() == [3, 1, 2]


def test_sort_errors(device):
    with pytest.raises(IndexError):
        cw.sort(make(np.float64(1.0), device))  # 0-d: no axis -1
    with pytest.raises(IndexError):
        cw.argsort(make(np.ones((2, 2)), device), axis=2)
    with pytest.raises(TypeError):
        cw.sort(make(np.array([1j, 2j]), device))
    with pytest.raises(TypeError):
        cw.argsort(make(np.array([1.0]), device), descending="yes")
    with pytest.raises(TypeError):
        cw.sort([3, 1, 2])


from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(deadline=None)
@given(data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
                       elements=st.sampled_from([0.0, 1.0, -1.0, np.inf, -np.inf, np.nan])),
       descending=st.booleans(), axis=st.integers(-1, 2))
def test_random_argsort_matches_strict(device, data, descending, axis):
    axis = axis % data.ndim
    ref = xp.argsort(xp.asarray(data), axis=axis, descending=descending)
    assert_same(cw.argsort(make(data, device, "strided"), axis=axis, descending=descending),
                np.asarray(ref), dtype=cw.int64)

"""std, var, cumulative_sum, cumulative_prod (and the reductions they build on) on every
backend."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make

NAN = float("nan")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy oracles warn on NaN results


# --- var / std ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fname", ["var", "std"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_std_axes_and_correction(device, fname, dtype, layout):
    rng = np.random.default_rng(7)
    data = rng.standard_normal((3, 4, 5)).astype(dtype)
    x = make(data, device, layout)
    fn, ref = getattr(cw, fname), getattr(xp, fname)
    rtol = 1e-5 if dtype is np.float32 else 1e-12
    for axis in (None, 0, (0, 2), -1, ()):
        for correction in (0, 1, 0.5):
            for keepdims in (False, True):
                expected = np.asarray(ref(xp.asarray(data), axis=axis, correction=correction,
                                          keepdims=keepdims))
                assert_same(fn(x, axis=axis, correction=correction, keepdims=keepdims), expected,
                            rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("fname", ["var", "std"])
def test_var_std_special_cases(device, fname):
    fn = getattr(cw, fname)
    # N - correction <= 0 gives NaN (the standard's special case)
    two = make(np.array([1.0, 3.0]), device)
    assert np.isnan(cw.to_numpy(fn(two, correction=2)))
    assert np.isnan(cw.to_numpy(fn(two, correction=5.5)))
    assert np.isnan(cw.to_numpy(fn(make(np.zeros(0), device))))
    assert_same(fn(make(np.zeros((0, 3)), device), axis=0), np.full(3, NAN))
    # NaN propagates; a constant has zero spread
    assert np.isnan(cw.to_numpy(fn(make(np.array([1.0, NAN]), device))))
    assert_same(fn(make(np.full(4, 2.5, np.float32), device)), np.float32(0.0))
    assert_same(fn(make(np.float64(3.0), device)), np.float64(0.0))  # 0-d: one element


def test_var_low_precision_integer_and_complex(device):
    data = np.array([1.0, 2.0, 4.0, 8.0], np.float16)
    assert_same(cw.var(make(data, device)), np.var(data.astype(np.float32)).astype(np.float16),
                rtol=2e-3)
    ints = np.array([1, 2, 3, 4], np.int32)
    assert_same(cw.var(make(ints, device)), np.var(ints), rtol=1e-12)  # NumPy: default float
    z = np.array([1 + 1j, 2 - 1j, -3j])
    assert_same(cw.var(make(z, device)), np.var(z), rtol=1e-12)
    assert_same(cw.std(make(z.astype(np.complex64), device)), np.std(z).astype(np.float32), rtol=1e-6)


def test_var_errors(device):
    x = make(np.ones((2, 2)), device)
    with pytest.raises(IndexError):
        cw.var(x, axis=2)
    with pytest.raises(TypeError):
        cw.std(x, correction="1")
    with pytest.raises(TypeError):
        cw.var(x, correction=True)
    with pytest.raises(ValueError):
        cw.std(x, axis=(1, 1))


# --- cumulative_sum / cumulative_prod ----------------------------------------------------------

def _strict_cumulative(fname, data, **kw):
    return np.asarray(getattr(xp, fname)(xp.asarray(data), **kw))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.complex128, np.bool_])
def test_cumulative_matches_strict(device, fname, dtype, include_initial, layout):
    rng = np.random.default_rng(8)
    data = rng.integers(0, 3, size=(3, 4)).astype(dtype)
    x = make(data, device, layout)
    fn = getattr(cw, fname)
    for axis in (0, 1, -1):
        if dtype is np.bool_:
            # array-api-strict refuses bool; NumPy's rule is the standard's: default integer
            expected = getattr(np, "cumsum" if fname == "cumulative_sum" else "cumprod")(
                data.astype(np.int64), axis=axis)
            if include_initial:
                pad = np.zeros if fname == "cumulative_sum" else np.ones
                edge = list(data.shape)
                edge[axis] = 1
                expected = np.concatenate([pad(edge, np.int64), expected], axis=axis)
        else:
            expected = _strict_cumulative(fname, data, axis=axis, include_initial=include_initial)
        assert_same(fn(x, axis=axis, include_initial=include_initial), expected,
                    rtol=1e-6 if dtype is np.float32 else 0)


@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_1d_dtype_and_special(device, fname):
    fn = getattr(cw, fname)
    data = np.array([1.5, NAN, 2.0], np.float64)
    assert_same(fn(make(data, device)), _strict_cumulative(fname, data))
    ints = np.array([3, 2, 1], np.int16)
    assert_same(fn(make(ints, device), dtype=cw.float32),
                _strict_cumulative(fname, ints, dtype=xp.float32))
    assert_same(fn(make(ints, device)), _strict_cumulative(fname, ints))  # int16 -> int64
    u = np.array([3, 2], np.uint8)
    assert_same(fn(make(u, device)), _strict_cumulative(fname, u))  # uint8 -> uint64
    f16 = np.array([1.0, 2.0, 3.0], np.float16)
    assert_same(fn(make(f16, device)), getattr(np, "cumsum" if "sum" in fname else "cumprod")(f16))
    empty = np.zeros(0)
    assert_same(fn(make(empty, device)), np.zeros(0))
    initial = 0.0 if fname == "cumulative_sum" else 1.0
    assert_same(fn(make(empty, device), include_initial=True), np.array([initial]))
    assert_same(fn(make(np.zeros((2, 0)), device), axis=1, include_initial=True),
                np.full((2, 1), initial))


@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_errors(device, fname):
    fn = getattr(cw, fname)
    with pytest.raises(ValueError):
        fn(make(np.ones((2, 2)), device))  # axis required for ndim > 1
    with pytest.raises(ValueError):
        fn(make(np.float64(1.0), device))
    with pytest.raises(IndexError):
        fn(make(np.ones(3), device), axis=1)
    with pytest.raises(TypeError):
        fn(make(np.array([1j]), device), dtype=cw.float64)
    with pytest.raises(TypeError):
        fn(make(np.array([1, 2]), device), dtype=cw.bool)


@pytest.mark.parametrize("dtype", [cw.float16, cw.bfloat16])
def test_half_statistics_are_computed_in_float32(device, dtype):
    """A float16 sum of these 4096 values is past float16's largest finite (65504): the
    mean, var and std are computed in float32 and rounded once to the input's dtype."""
    data = np.where(np.arange(4096) % 3 == 0, 3.0, 125.0).reshape(64, 64)
    x = make(data.astype(dtype.numpy), device)
    wide = data.astype(np.float32)
    for fname, kwargs in (("mean", {}), ("var", {}), ("std", {"correction": 1}),
                          ("mean", {"axis": 0}), ("var", {"axis": 1, "keepdims": True})):
        got = getattr(cw, fname)(x, **kwargs)
        want = getattr(xp, fname)(xp.asarray(wide), **kwargs)
        assert got.dtype == dtype
        np.testing.assert_array_equal(cw.to_numpy(got).astype(np.float32),
                                      np.asarray(want).astype(dtype.numpy).astype(np.float32))


# --- the reductions statistical.py already had (regression checks) --------------------------

def test_sum_prod_mean_min_max(device):
    data = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    x = make(data, device, "flipped")
    assert_same(cw.sum(x), np.int64(21))
    assert_same(cw.sum(x, axis=0, dtype=cw.int8), data.sum(axis=0, dtype=np.int8))
    assert_same(cw.prod(make(np.array([True, True]), device)), np.int64(1))
    assert_same(cw.mean(make(data.astype(np.float32), device), axis=1, keepdims=True),
                data.astype(np.float32).mean(axis=1, keepdims=True))
    assert_same(cw.mean(make(np.array([1j, 3j]), device)), np.complex128(2j))
    assert np.isnan(cw.to_numpy(cw.mean(make(np.zeros(0), device))))
    assert_same(cw.max(x, axis=1), data.max(axis=1))
    assert_same(cw.min(make(np.zeros((2, 0)), device), axis=0), np.zeros(0))
    with pytest.raises(ValueError):
        cw.max(make(np.zeros((2, 0)), device), axis=1)
    with pytest.raises(TypeError):
        cw.min(make(np.array([1j]), device))
    with pytest.raises(TypeError):
        cw.sum(x, dtype=cw.bool)

"""Statistical functions, both oracles: sum, prod, min, max, mean, std, var,
cumulative_sum, cumulative_prod against array-api-strict on drawn arrays,
then std, var and the cumulative functions (and the reductions they build on) on fixed
cases, layouts and special values against array-api-strict and NumPy."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _namespace_helpers import LAYOUTS, assert_same, make
from array_api_support import (
    FLOAT, INTEGER, NUMERIC, REAL, REAL_FLOAT, arrays, assert_matches_strict, axes_for,
    dt, finite_arrays, quiet, sdt, shapes, to_strict,
)


# === array-api-strict: drawn arrays =======================================================

def _reduced_size(shape, axis):
    if axis is None:
        axes = range(len(shape))
    elif isinstance(axis, int):
        axes = [axis]
    else:
        axes = axis
    return math.prod(shape[a] for a in axes)


def _tolerance(name, x):
    """Reductions reorder additions: allow error relative to the sum of magnitudes."""
    if name in INTEGER or name == "bool":
        return 0.0
    return 1e-4 if name in ("float32", "complex64") else 1e-10


def _draw_case(data, names, *, magnitude=64.0, min_side=0):
    name = data.draw(st.sampled_from(names), label="dtype")
    shape = data.draw(shapes(max_dims=3, min_side=min_side), label="shape")
    x = data.draw(finite_arrays(name, shape, magnitude=magnitude), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    return name, x, axis, keepdims


@pytest.mark.parametrize("fname", ["sum", "prod"])
@given(data=st.data())
def test_sum_and_prod(fname, data):
    name, x, axis, keepdims = _draw_case(data, NUMERIC, magnitude=4.0)
    dtype = data.draw(st.none() | st.sampled_from([n for n in NUMERIC if xs.can_cast(sdt(name), sdt(n))]),
                      label="dtype_kwarg")
    kwargs = {"axis": axis, "keepdims": keepdims}
    out = getattr(cw, fname)(x, dtype=None if dtype is None else dt(dtype), **kwargs)
    ref = quiet(getattr(xs, fname), to_strict(x), dtype=None if dtype is None else sdt(dtype), **kwargs)
    tol = _tolerance(str(ref.dtype).rsplit(".", 1)[-1], x)
    assert_matches_strict(out, ref, rtol=tol, atol=tol, what=f"{fname}(axis={axis}): ")


@pytest.mark.parametrize("fname", ["min", "max"])
@given(data=st.data())
def test_min_and_max(fname, data):
    name = data.draw(st.sampled_from(REAL), label="dtype")
    shape = data.draw(shapes(max_dims=3), label="shape")
    x = data.draw(arrays(name, shape), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    assume(_reduced_size(shape, axis) > 0)
    keepdims = data.draw(st.booleans(), label="keepdims")
    out = getattr(cw, fname)(x, axis=axis, keepdims=keepdims)
    ref = quiet(getattr(xs, fname), to_strict(x), axis=axis, keepdims=keepdims)
    assert_matches_strict(out, ref, rtol=0.0, what=f"{fname}(axis={axis}): ")


@pytest.mark.parametrize("fname", ["min", "max", "argmin", "argmax"])
def test_zero_size_reductions_without_identity_raise(fname):
    with pytest.raises(ValueError):
        getattr(cw, fname)(cw.zeros((0, 3)), axis=0)


@given(data=st.data())
def test_mean(data):
    name, x, axis, keepdims = _draw_case(data, FLOAT, min_side=1)
    out = cw.mean(x, axis=axis, keepdims=keepdims)
    ref = quiet(xs.mean, to_strict(x), axis=axis, keepdims=keepdims)
    tol = _tolerance(name, x)
    assert_matches_strict(out, ref, rtol=tol, atol=tol, what=f"mean(axis={axis}): ")


@pytest.mark.parametrize("fname", ["std", "var"])
@given(data=st.data())
def test_std_and_var(fname, data):
    name, x, axis, keepdims = _draw_case(data, REAL_FLOAT, min_side=1)
    correction = data.draw(st.sampled_from([0, 1, 0.5, 0.0]), label="correction")
    assume(_reduced_size(x.shape, axis) > correction)
    out = getattr(cw, fname)(x, axis=axis, correction=correction, keepdims=keepdims)
    ref = quiet(getattr(xs, fname), to_strict(x), axis=axis, correction=correction, keepdims=keepdims)
    tol = _tolerance(name, x) * 10
    assert_matches_strict(out, ref, rtol=tol, atol=tol, what=f"{fname}(axis={axis}, correction={correction}): ")


@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@given(data=st.data())
def test_cumulative(fname, data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    shape = data.draw(shapes(max_dims=3), label="shape")
    x = data.draw(finite_arrays(name, shape, magnitude=3.0), label="x")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1) if len(shape) > 1 else
                     (st.none() | st.sampled_from([0, -1]) if shape else st.none()), label="axis")
    include_initial = data.draw(st.booleans(), label="include_initial")
    dtype = data.draw(st.none() | st.sampled_from([n for n in NUMERIC if xs.can_cast(sdt(name), sdt(n))]),
                      label="dtype_kwarg")
    kwargs = {"axis": axis, "include_initial": include_initial}
    if not shape:
        # 0-d input: the standard needs at least one dimension
        with pytest.raises((ValueError, TypeError, IndexError)):
            getattr(cw, fname)(x, **kwargs)
        return
    out = getattr(cw, fname)(x, dtype=None if dtype is None else dt(dtype), **kwargs)
    ref = quiet(getattr(xs, fname), to_strict(x), dtype=None if dtype is None else sdt(dtype), **kwargs)
    tol = _tolerance(str(ref.dtype).rsplit(".", 1)[-1], x)
    assert_matches_strict(out, ref, rtol=tol, atol=tol, what=f"{fname}(axis={axis}): ")


def test_cumulative_needs_an_axis_for_nd_input():
    with pytest.raises((ValueError, TypeError)):
        cw.cumulative_sum(cw.ones((2, 3)))


@pytest.mark.parametrize("fname", ["sum", "prod", "mean", "max", "min", "all", "any", "std", "var"])
def test_reductions_reject_out_of_range_and_repeated_axes(fname):
    x = cw.ones((2, 3))
    with pytest.raises(IndexError):
        getattr(cw, fname)(x, axis=2)
    with pytest.raises(ValueError):
        getattr(cw, fname)(x, axis=(0, -2))


@pytest.mark.parametrize("fname", ["max", "min"])
def test_min_and_max_reject_complex(fname):
    with pytest.raises(TypeError):
        getattr(cw, fname)(cw.ones(3, dtype=cw.complex64))


# === fixed cases and layouts: array-api-strict and NumPy ==================================

NAN = float("nan")
# the NumPy oracles below warn on NaN results
numpy_oracle_warns = pytest.mark.filterwarnings("ignore::RuntimeWarning")


# --- var / std ---------------------------------------------------------------------------

@numpy_oracle_warns
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fname", ["var", "std"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_std_axes_and_correction(dev, fname, dtype, layout):
    rng = np.random.default_rng(7)
    data = rng.standard_normal((3, 4, 5)).astype(dtype)
    x = make(data, dev, layout)
    fn, ref = getattr(cw, fname), getattr(xs, fname)
    rtol = 1e-5 if dtype is np.float32 else 1e-12
    for axis in (None, 0, (0, 2), -1, ()):
        for correction in (0, 1, 0.5):
            for keepdims in (False, True):
                expected = np.asarray(ref(xs.asarray(data), axis=axis, correction=correction,
                                          keepdims=keepdims))
                assert_same(fn(x, axis=axis, correction=correction, keepdims=keepdims), expected,
                            rtol=rtol, atol=1e-6)


@numpy_oracle_warns
@pytest.mark.parametrize("fname", ["var", "std"])
def test_var_std_special_cases(dev, fname):
    fn = getattr(cw, fname)
    # N - correction <= 0 gives NaN (the standard's special case)
    two = make(np.array([1.0, 3.0]), dev)
    assert np.isnan(cw.to_numpy(fn(two, correction=2)))
    assert np.isnan(cw.to_numpy(fn(two, correction=5.5)))
    assert np.isnan(cw.to_numpy(fn(make(np.zeros(0), dev))))
    assert_same(fn(make(np.zeros((0, 3)), dev), axis=0), np.full(3, NAN))
    # NaN propagates; a constant has zero spread
    assert np.isnan(cw.to_numpy(fn(make(np.array([1.0, NAN]), dev))))
    assert_same(fn(make(np.full(4, 2.5, np.float32), dev)), np.float32(0.0))
    assert_same(fn(make(np.float64(3.0), dev)), np.float64(0.0))  # 0-d: one element


@numpy_oracle_warns
def test_var_low_precision_integer_and_complex(dev):
    data = np.array([1.0, 2.0, 4.0, 8.0], np.float16)
    assert_same(cw.var(make(data, dev)), np.var(data.astype(np.float32)).astype(np.float16),
                rtol=2e-3)
    ints = np.array([1, 2, 3, 4], np.int32)
    assert_same(cw.var(make(ints, dev)), np.var(ints), rtol=1e-12)  # NumPy: default float
    z = np.array([1 + 1j, 2 - 1j, -3j])
    assert_same(cw.var(make(z, dev)), np.var(z), rtol=1e-12)
    assert_same(cw.std(make(z.astype(np.complex64), dev)), np.std(z).astype(np.float32), rtol=1e-6)


@numpy_oracle_warns
def test_var_errors(dev):
    x = make(np.ones((2, 2)), dev)
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
    return np.asarray(getattr(xs, fname)(xs.asarray(data), **kw))


@numpy_oracle_warns
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.complex128, np.bool_])
def test_cumulative_matches_strict(dev, fname, dtype, include_initial, layout):
    rng = np.random.default_rng(8)
    data = rng.integers(0, 3, size=(3, 4)).astype(dtype)
    x = make(data, dev, layout)
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


@numpy_oracle_warns
@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_1d_dtype_and_special(dev, fname):
    fn = getattr(cw, fname)
    data = np.array([1.5, NAN, 2.0], np.float64)
    assert_same(fn(make(data, dev)), _strict_cumulative(fname, data))
    ints = np.array([3, 2, 1], np.int16)
    assert_same(fn(make(ints, dev), dtype=cw.float32),
                _strict_cumulative(fname, ints, dtype=xs.float32))
    assert_same(fn(make(ints, dev)), _strict_cumulative(fname, ints))  # int16 -> int64
    u = np.array([3, 2], np.uint8)
    assert_same(fn(make(u, dev)), _strict_cumulative(fname, u))  # uint8 -> uint64
    f16 = np.array([1.0, 2.0, 3.0], np.float16)
    assert_same(fn(make(f16, dev)), getattr(np, "cumsum" if "sum" in fname else "cumprod")(f16))
    empty = np.zeros(0)
    assert_same(fn(make(empty, dev)), np.zeros(0))
    initial = 0.0 if fname == "cumulative_sum" else 1.0
    assert_same(fn(make(empty, dev), include_initial=True), np.array([initial]))
    assert_same(fn(make(np.zeros((2, 0)), dev), axis=1, include_initial=True),
                np.full((2, 1), initial))


@numpy_oracle_warns
@pytest.mark.parametrize("fname", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_errors(dev, fname):
    fn = getattr(cw, fname)
    with pytest.raises(ValueError):
        fn(make(np.ones((2, 2)), dev))  # axis required for ndim > 1
    with pytest.raises(ValueError):
        fn(make(np.float64(1.0), dev))
    with pytest.raises(IndexError):
        fn(make(np.ones(3), dev), axis=1)
    with pytest.raises(TypeError):
        fn(make(np.array([1j]), dev), dtype=cw.float64)
    with pytest.raises(TypeError):
        fn(make(np.array([1, 2]), dev), dtype=cw.bool)


@numpy_oracle_warns
@pytest.mark.parametrize("dtype", [cw.float16, cw.bfloat16])
def test_half_statistics_are_computed_in_float32(dev, dtype):
    """A float16 sum of these 4096 values is past float16's largest finite (65504): the
    mean, var and std are computed in float32 and rounded once to the input's dtype."""
    data = np.where(np.arange(4096) % 3 == 0, 3.0, 125.0).reshape(64, 64)
    x = make(data.astype(dtype.numpy), dev)
    wide = data.astype(np.float32)
    for fname, kwargs in (("mean", {}), ("var", {}), ("std", {"correction": 1}),
                          ("mean", {"axis": 0}), ("var", {"axis": 1, "keepdims": True})):
        got = getattr(cw, fname)(x, **kwargs)
        want = getattr(xs, fname)(xs.asarray(wide), **kwargs)
        assert got.dtype == dtype
        np.testing.assert_array_equal(cw.to_numpy(got).astype(np.float32),
                                      np.asarray(want).astype(dtype.numpy).astype(np.float32))


# --- the reductions statistical.py already had (regression checks) --------------------------

@numpy_oracle_warns
def test_sum_prod_mean_min_max(dev):
    data = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    x = make(data, dev, "flipped")
    assert_same(cw.sum(x), np.int64(21))
    assert_same(cw.sum(x, axis=0, dtype=cw.int8), data.sum(axis=0, dtype=np.int8))
    assert_same(cw.prod(make(np.array([True, True]), dev)), np.int64(1))
    assert_same(cw.mean(make(data.astype(np.float32), dev), axis=1, keepdims=True),
                data.astype(np.float32).mean(axis=1, keepdims=True))
    assert_same(cw.mean(make(np.array([1j, 3j]), dev)), np.complex128(2j))
    assert np.isnan(cw.to_numpy(cw.mean(make(np.zeros(0), dev))))
    assert_same(cw.max(x, axis=1), data.max(axis=1))
    assert_same(cw.min(make(np.zeros((2, 0)), dev), axis=0), np.zeros(0))
    with pytest.raises(ValueError):
        cw.max(make(np.zeros((2, 0)), dev), axis=1)
    with pytest.raises(TypeError):
        cw.min(make(np.array([1j]), dev))
    with pytest.raises(TypeError):
        cw.sum(x, dtype=cw.bool)

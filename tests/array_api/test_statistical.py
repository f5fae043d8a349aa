"""Statistical and utility reductions against array-api-strict: sum, prod, min, max,
mean, std, var, cumulative_sum, cumulative_prod, all, any, diff."""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    ALL, FLOAT, INTEGER, NUMERIC, REAL, REAL_FLOAT, arrays, assert_matches_strict, axes_for,
    dt, finite_arrays, quiet, sdt, shapes, to_strict,
)


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

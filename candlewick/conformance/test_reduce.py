"""reduce (every ReduceOp, several axis sets, empty reductions), var and scan."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import ReduceOp, ScanOp

from .checks import Expected, accumulation_dtype, eps_of, read_result, sum_tolerance
from .strategies import dtype_params, host_arrays, op_dtype_params, shapes

#: min/max/argmin/argmax of an empty set is never asked
NEEDS_ELEMENTS = {ReduceOp.MIN, ReduceOp.MAX, ReduceOp.ARGMIN, ReduceOp.ARGMAX}
VALUES = {ReduceOp.SUM: "moderate", ReduceOp.PROD: "unit"}


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _product_tolerance(expected, count, dtype):
    """A product of ``count`` factors: relative error (count + 1) eps of the accumulator."""
    eps = eps_of(accumulation_dtype(dtype))
    mag = np.abs(expected)
    return np.where(np.isfinite(mag), mag * eps * (count + 1) * (2 if dtype.is_complex else 1), 0.0)


def reduce_expected(op, dtype, x, axes):
    count = math.prod(x.shape[a] for a in axes)
    with np.errstate(all="ignore"):
        if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):
            (axis,) = axes
            fn = np.argmin if op is ReduceOp.ARGMIN else np.argmax
            return Expected(fn(x, axis=axis).astype(np.int64))  # first extreme, first NaN
        if op is ReduceOp.ANY:
            return Expected(np.any(x, axis=axes))
        if op is ReduceOp.ALL:
            return Expected(np.all(x, axis=axes))
        if op is ReduceOp.COUNT_NONZERO:  # NaN counts, -0.0 does not
            return Expected(np.asarray(np.count_nonzero(x, axis=axes), np.int64))
        if op in (ReduceOp.MIN, ReduceOp.MAX):
            fn = np.min if op is ReduceOp.MIN else np.max  # NaN propagates
            return Expected(fn(x, axis=axes))
        if dtype.is_integer:  # wrapping arithmetic in the dtype
            fn = np.sum if op is ReduceOp.SUM else np.prod
            return Expected(fn(x, axis=axes, dtype=dtype.numpy))
        if op is ReduceOp.SUM:
            exact = _wide(x).sum(axis=axes)
            atol = sum_tolerance(np.abs(_wide(x)).sum(axis=axes), count, dtype)
        else:
            exact = _wide(x).prod(axis=axes)
            atol = _product_tolerance(exact, count, dtype)
        atol = np.where(np.isfinite(atol), atol, 0.0)
        return Expected(exact.astype(dtype.numpy), ulps=1, atol=atol,
                        mask=_complex_product_defined(op, x, lambda f: f.all(axis=axes)))


def _complex_product_defined(op, x, reduce_all):
    """Which results of a complex product are order-independent: a product of complex
    infinities/NaNs lands in the inf or the NaN class depending on the order of the
    multiplications, so only products of finite factors are checked."""
    if op not in (ReduceOp.PROD, ScanOp.PROD) or x.dtype.kind != "c":
        return None
    return reduce_all(np.isfinite(x))


@st.composite
def reduction_cases(draw, op, dtype):
    if op in (ReduceOp.ARGMIN, ReduceOp.ARGMAX):
        shape = draw(shapes(min_dims=1))
        candidates = [a for a, n in enumerate(shape) if n > 0]
        assume(candidates)
        axes = (draw(st.sampled_from(candidates)),)
    else:
        shape = draw(shapes())
        allowed = [a for a, n in enumerate(shape) if n > 0 or op not in NEEDS_ELEMENTS]
        axes = tuple(sorted(draw(st.lists(st.sampled_from(allowed), unique=True)) if allowed else ()))
    x = draw(host_arrays(dtype, shape, values=VALUES.get(op, "any")), label="x")
    return x, axes


@pytest.mark.parametrize("op,dtype", op_dtype_params(ReduceOp))
@given(data=st.data())
def test_reduce(device, op, dtype, data):
    x, axes = data.draw(reduction_cases(op, dtype), label="x, axes")
    out = x.upload(device).reduce(op, x.layout, axes)
    out_shape = tuple(n for a, n in enumerate(x.layout.shape) if a not in axes)
    got = read_result(out, op.result_dtype(dtype), out_shape)
    reduce_expected(op, dtype, x.value(), axes).check(got)


@pytest.mark.primitive("reduce")
@pytest.mark.parametrize("op,dtype", [p for p in op_dtype_params(ReduceOp)
                                      if p.values[0] not in NEEDS_ELEMENTS])
def test_reduce_empty(device, op, dtype):
    """Reductions over an empty set: 0 for sum and count_nonzero, 1 for prod, False for any,
    True for all."""
    identity = {ReduceOp.SUM: 0, ReduceOp.PROD: 1, ReduceOp.ANY: False, ReduceOp.ALL: True,
                ReduceOp.COUNT_NONZERO: 0}[op]
    out_dtype = op.result_dtype(dtype)
    for shape, axes, out_shape in (((0,), (0,), ()), ((2, 0, 3), (1,), (2, 3)),
                                   ((0, 4), (0, 1), ())):
        s = device.zeros(shape, dtype)
        got = read_result(s.reduce(op, Layout.contiguous(shape), axes), out_dtype, out_shape)
        Expected(np.full(out_shape, identity, out_dtype.numpy)).check(got)


def var_expected(dtype, x, axes, correction, root):
    """The variance (standard deviation) in double precision, and the two-pass formula's
    error: the deviations' rounding (a few eps of each square), the sum of the squares
    and the mean's error (second order), over ``N - correction``. NaN where that is not
    positive or a value is NaN or infinite (a complex one may also give +inf: |d| of a
    NaN part beside an infinite one)."""
    count = math.prod(x.shape[a] for a in axes)
    dof = count - correction
    out_shape = tuple(n for a, n in enumerate(x.shape) if a not in axes)
    real = dt.real_dtype_of(dtype)
    eps = eps_of(dtype)
    with np.errstate(all="ignore"):
        if dof <= 0:
            return Expected(np.full(out_shape, np.nan, real.numpy))
        wide = _wide(x)
        mean = wide.sum(axis=axes, keepdims=True) / count
        squares = np.abs(wide - mean) ** 2
        total = squares.sum(axis=axes)
        mean_error = sum_tolerance(np.abs(wide).sum(axis=axes, keepdims=True), count, dtype) / max(count, 1)
        err = (sum_tolerance(total, count, dtype) + 4 * eps * total
               + count * mean_error.reshape(total.shape) ** 2) / dof
        value = total / dof
        if root:
            err = np.sqrt(value + err) - np.sqrt(value)
            value = np.sqrt(value)
        finite = np.isfinite(x).all(axis=axes)
        value = np.where(finite, value, np.nan)
    atol = np.where(np.isfinite(err), err, 0.0)
    mask = finite if dtype.is_complex else None
    return Expected(value.astype(real.numpy), ulps=2, atol=atol, mask=mask)


@pytest.mark.parametrize("dtype", dtype_params([dt.float32, dt.float64, dt.complex64, dt.complex128]))
@pytest.mark.parametrize("root", [False, True], ids=["var", "std"])
@given(data=st.data())
def test_var(device, dtype, root, data):
    """var over any axis set (none, all, empty sets) with corrections 0, 1, a fraction or
    more than N; std (root) its square root."""
    shape = data.draw(shapes(), label="shape")
    axes = tuple(sorted(data.draw(st.lists(st.sampled_from(range(len(shape))), unique=True)
                                  if shape else st.just([]), label="axes")))
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2.5, 7]), label="correction")
    x = data.draw(host_arrays(dtype, shape, values="moderate"), label="x")
    out = x.upload(device).var(x.layout, axes, correction, root)
    out_shape = tuple(n for a, n in enumerate(x.layout.shape) if a not in axes)
    got = read_result(out, dt.real_dtype_of(dtype), out_shape)
    var_expected(dtype, x.value(), axes, correction, root).check(got)


def scan_expected(op, dtype, x, axis):
    with np.errstate(all="ignore"):
        if dtype.is_integer:
            fn = np.cumsum if op is ScanOp.SUM else np.cumprod
            return Expected(fn(x, axis=axis, dtype=dtype.numpy))
        n = x.shape[axis]
        if op is ScanOp.SUM:
            exact = np.cumsum(_wide(x), axis=axis)
            atol = sum_tolerance(np.cumsum(np.abs(_wide(x)), axis=axis), n, dtype)
        else:
            exact = np.cumprod(_wide(x), axis=axis)
            atol = _product_tolerance(exact, n, dtype)
        atol = np.where(np.isfinite(atol), atol, 0.0)
        defined = _complex_product_defined(
            op, x, lambda f: np.logical_and.accumulate(f, axis=axis))
        return Expected(exact.astype(dtype.numpy), ulps=1, atol=atol, mask=defined)


@pytest.mark.parametrize("op,dtype", op_dtype_params(ScanOp))
@given(data=st.data())
def test_scan(device, op, dtype, data):
    shape = data.draw(shapes(min_dims=1))
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    profile = "moderate" if op is ScanOp.SUM else "unit"
    x = data.draw(host_arrays(dtype, shape, values=profile), label="x")
    got = read_result(x.upload(device).scan(op, x.layout, axis), dtype, shape)
    scan_expected(op, dtype, x.value(), axis).check(got)

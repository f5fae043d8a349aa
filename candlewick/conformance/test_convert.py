"""astype (every dtype pair the front end may ask), affine and clip."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt

from .checks import Expected, accumulation_dtype, eps_of, read_result
from .strategies import dtype_params, host_arrays, scalars, shapes

REAL_NUMERIC = dt.INTEGER + dt.REAL_FLOATING
HALF = (dt.float16, dt.bfloat16)


def _astype_pairs():
    # complex -> real is never asked (backend.py); complex -> bool is "!= 0"
    return [
        pytest.param(src, dst, id=f"{src.name}-to-{dst.name}")
        for src in dt.ALL_DTYPES for dst in dt.ALL_DTYPES
        if not (src.is_complex and not (dst.is_complex or dst.is_bool))
    ]


def _astype_expected(src, dst, x):
    with np.errstate(all="ignore"):
        values = x.astype(dst.numpy)
    if dst.is_integer and (src.is_floating or src.is_complex):
        # NaN, inf and out-of-range values are unspecified (they must only not fault)
        info = np.iinfo(dst.numpy)
        with np.errstate(invalid="ignore"):
            t = np.trunc(x.astype(np.float64))
            mask = np.isfinite(t) & (t >= float(info.min)) & (t <= float(info.max))
            # float64 cannot tell 2**63 - 1 from 2**63: stay off the upper edge
            mask &= t < float(info.max) * (1 - 2**-52) if dst.bits == 64 else True
        return Expected(values, mask=mask)
    if dst in HALF and not (src.is_bool or src in HALF or src.bits <= 8):
        # NumPy / ml_dtypes may round twice (through float32 or float64) where a
        # device converts directly: allow the one-ulp difference that makes
        return Expected(values, ulps=1)
    return Expected(values, zero_sign=not dst.is_bool)


@pytest.mark.parametrize("src,dst", _astype_pairs())
@given(data=st.data())
def test_astype(device, src, dst, data):
    x = data.draw(host_arrays(src, data.draw(shapes())), label="x")
    out = x.upload(device).astype(x.layout, dst)
    got = read_result(out, dst, x.layout.shape)
    _astype_expected(src, dst, x.value()).check(got)


@pytest.mark.parametrize("dtype", dtype_params(REAL_NUMERIC))
@given(data=st.data())
def test_affine(device, dtype, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    mul = data.draw(scalars(dtype), label="mul")
    add = data.draw(scalars(dtype), label="add")
    got = read_result(x.upload(device).affine(x.layout, mul, add), dtype, x.layout.shape)
    v = x.value()
    with np.errstate(all="ignore"):
        if dtype.is_integer:
            # integer arithmetic wraps in the dtype
            expected = v * np.array(mul, dtype.numpy) + np.array(add, dtype.numpy)
            Expected(expected.astype(dtype.numpy)).check(got)
            return
        wide = v.astype(np.float64) * mul + add
        # the product may be rounded before the add (or fused): one extra rounding
        # of the product in the compute precision
        atol = eps_of(accumulation_dtype(dtype)) * np.abs(v.astype(np.float64) * mul)
        atol = np.where(np.isfinite(atol), atol, 0.0)
        Expected(wide.astype(dtype.numpy), ulps=1, atol=atol).check(got)


@pytest.mark.parametrize("dtype", dtype_params(REAL_NUMERIC))
@given(data=st.data())
def test_clip(device, dtype, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    lo = data.draw(st.none() | scalars(dtype), label="lo")
    hi = data.draw(st.none() | scalars(dtype), label="hi")
    got = read_result(x.upload(device).clip(x.layout, lo, hi), dtype, x.layout.shape)
    expected = x.value()
    with np.errstate(all="ignore"):
        if lo is not None:
            expected = np.maximum(expected, np.array(lo, dtype.numpy))
        if hi is not None:
            expected = np.minimum(expected, np.array(hi, dtype.numpy))
    Expected(expected).check(got)

"""The optional "reduce_dtype" group: reduce_as and scan_as, sum and prod into a requested
dtype, checked against ``astype`` followed by ``reduce``/``scan`` (the oracles of
test_reduce.py on the converted values) over every layout kind and axis set.

The pairs are the conversions the front end asks for (NumPy's ``dtype=``): wider floats
and integers (scikit-learn's float64 accumulators of float32 data), integers and bool
into floats, complex into wider complex, real into complex, and narrowing ones that
round (float64 into float32) or wrap (int64 into int32). Float into integer is left out:
out-of-range values convert to unspecified integers (astype-conversions).
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.opdefs import ReduceOp, ScanOp

from .checks import read_result, require_capability
from .strategies import host_arrays, shapes
from .test_reduce import reduce_expected, scan_expected

PAIRS = [
    (dt.float32, dt.float64), (dt.float16, dt.float32), (dt.bfloat16, dt.float64), (dt.float64, dt.float32),
    (dt.int8, dt.int64), (dt.uint8, dt.int32), (dt.int64, dt.int32), (dt.int32, dt.float64),
    (dt.bool_, dt.float32), (dt.bool_, dt.int64), (dt.complex64, dt.complex128), (dt.float32, dt.complex128),
]
PAIR_PARAMS = [pytest.param(src, dst, id=f"{src.name}-to-{dst.name}") for src, dst in PAIRS]
#: values whose sums stay moderate and products near one in every dtype of a pair
VALUES = {ReduceOp.SUM: "moderate", ReduceOp.PROD: "unit", ScanOp.SUM: "moderate", ScanOp.PROD: "unit"}


def _converted(x, dst):
    """x's values as ``astype(dst)`` gives them, on the host."""
    return x.astype(dst.numpy)


@pytest.mark.primitive("reduce_as")
@pytest.mark.parametrize("op", [ReduceOp.SUM, ReduceOp.PROD], ids=lambda op: op.value)
@pytest.mark.parametrize("src,dst", PAIR_PARAMS)
@given(data=st.data())
def test_reduce_as(device, op, src, dst, data):
    require_capability(device, "reduce_dtype")
    shape = data.draw(shapes(), label="shape")
    axes = tuple(sorted(data.draw(st.lists(st.sampled_from(range(len(shape))), unique=True)
                                  if shape else st.just([]), label="axes")))
    x = data.draw(host_arrays(src, shape, values=VALUES[op]), label="x")
    out = x.upload(device).reduce_as(op, x.layout, axes, dst)
    out_shape = tuple(n for a, n in enumerate(shape) if a not in axes)
    got = read_result(out, dst, out_shape)
    reduce_expected(op, dst, _converted(x.value(), dst), axes).check(got)


@pytest.mark.primitive("scan_as")
@pytest.mark.parametrize("op", [ScanOp.SUM, ScanOp.PROD], ids=lambda op: op.value)
@pytest.mark.parametrize("src,dst", PAIR_PARAMS)
@given(data=st.data())
def test_scan_as(device, op, src, dst, data):
    require_capability(device, "reduce_dtype")
    shape = data.draw(shapes(min_dims=1), label="shape")
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    x = data.draw(host_arrays(src, shape, values=VALUES[op]), label="x")
    got = read_result(x.upload(device).scan_as(op, x.layout, axis, dst), dst, shape)
    scan_expected(op, dst, _converted(x.value(), dst), axis).check(got)

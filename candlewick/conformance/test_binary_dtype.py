"""The optional "binary_dtype" group: binary_as, an element-wise op of operands of two
dtypes, each converted to the computing dtype, checked against ``binary``'s oracle on the
converted values, for every op the computing dtype takes, operands of any layout kind.

The pairs are the ones promotion makes (NumPy's mixed-dtype ufunc calls): float32 with
float64 (scikit-learn's ``X - mean``), the half dtypes and integers or bool with floats,
real with complex.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp

from . import elementwise_reference as ref
from .checks import read_result, require_capability
from .strategies import host_views, shapes

#: (lhs dtype, rhs dtype, the dtype they are computed in)
TRIPLES = [
    (dt.float32, dt.float64, dt.float64), (dt.float64, dt.float32, dt.float64), (dt.float16, dt.float32, dt.float32),
    (dt.bfloat16, dt.float64, dt.float64), (dt.int32, dt.float64, dt.float64), (dt.bool_, dt.float32, dt.float32),
    (dt.uint8, dt.float32, dt.float32), (dt.float32, dt.complex64, dt.complex64),
    (dt.complex64, dt.float64, dt.complex128), (dt.complex128, dt.float32, dt.complex128),
]
PARAMS = [pytest.param(op, a, b, c, id=f"{op.value}-{a.name}-{b.name}-in-{c.name}")
          for a, b, c in TRIPLES for op in BinaryOp if op.accepts(c)]


@pytest.mark.primitive("binary_as")
@pytest.mark.parametrize("op,lhs_dtype,rhs_dtype,dtype", PARAMS)
@given(data=st.data())
def test_binary_as(device, op, lhs_dtype, rhs_dtype, dtype, data):
    require_capability(device, "binary_dtype")
    shape = data.draw(shapes(), label="shape")
    (a,) = data.draw(host_views(lhs_dtype, [shape]), label="lhs")
    (b,) = data.draw(host_views(rhs_dtype, [shape]), label="rhs")
    out = a.upload(device).binary_as(op, a.layout, b.upload(device), b.layout, dtype)
    got = read_result(out, op.result_dtype(dtype), shape)
    ref.binary(op, dtype, a.value().astype(dtype.numpy), b.value().astype(dtype.numpy)).check(got)

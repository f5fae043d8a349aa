"""unary, binary, binary_scalar, compare, compare_scalar and where: every op x every
accepted dtype."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp

from . import elementwise_reference as ref
from .checks import assert_bitwise_equal, read_result
from .strategies import dtype_params, host_arrays, host_views, op_dtype_params, scalars, shapes


@pytest.mark.parametrize("op,dtype", op_dtype_params(UnaryOp))
@given(data=st.data())
def test_unary(device, op, dtype, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    out = x.upload(device).unary(op, x.layout)
    got = read_result(out, op.result_dtype(dtype), x.layout.shape)
    ref.unary(op, dtype, x.value()).check(got)


@pytest.mark.parametrize("op,dtype", op_dtype_params(BinaryOp))
@given(data=st.data())
def test_binary(device, op, dtype, data):
    shape = data.draw(shapes())
    shared = data.draw(st.booleans(), label="lhs and rhs in one storage")
    a, b = data.draw(host_views(dtype, [shape, shape], shared=shared), label="lhs, rhs")
    lhs = a.upload(device)
    rhs = lhs if shared else b.upload(device)
    got = read_result(lhs.binary(op, a.layout, rhs, b.layout), dtype, shape)
    ref.binary(op, dtype, a.value(), b.value()).check(got)


@pytest.mark.parametrize("reflected", [False, True], ids=["x_op_s", "s_op_x"])
@pytest.mark.parametrize("op,dtype", op_dtype_params(BinaryOp))
@given(data=st.data())
def test_binary_scalar(device, op, dtype, reflected, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    scalar = data.draw(scalars(dtype), label="scalar")
    out = x.upload(device).binary_scalar(op, x.layout, scalar, reflected)
    got = read_result(out, dtype, x.layout.shape)
    s = np.full(x.layout.shape, scalar, dtype.numpy)
    a, b = (s, x.value()) if reflected else (x.value(), s)
    ref.binary(op, dtype, a, b).check(got)


@pytest.mark.parametrize("op,dtype", op_dtype_params(CompareOp))
@given(data=st.data())
def test_compare(device, op, dtype, data):
    shape = data.draw(shapes())
    a, b = data.draw(host_views(dtype, [shape, shape]), label="lhs, rhs")
    if data.draw(st.booleans(), label="equal operands"):
        # random values are rarely equal: copy some of lhs into rhs
        b.view[...] = np.where(np.arange(b.view.size).reshape(shape) % 2 == 0, a.view, b.view)
    out = a.upload(device).compare(op, a.layout, b.upload(device), b.layout)
    ref.compare(op, a.value(), b.value()).check(read_result(out, dt.bool_, shape))


@pytest.mark.parametrize("reflected", [False, True], ids=["x_op_s", "s_op_x"])
@pytest.mark.parametrize("op,dtype", op_dtype_params(CompareOp))
@given(data=st.data())
def test_compare_scalar(device, op, dtype, reflected, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    scalar = data.draw(scalars(dtype), label="scalar")
    if data.draw(st.booleans(), label="scalar taken from x") and x.value().size:
        scalar = x.value().reshape(-1)[0].item()
    out = x.upload(device).compare_scalar(op, x.layout, scalar, reflected)
    s = np.full(x.layout.shape, scalar, dtype.numpy)
    a, b = (s, x.value()) if reflected else (x.value(), s)
    ref.compare(op, a, b).check(read_result(out, dt.bool_, x.layout.shape))


@pytest.mark.parametrize("dtype", dtype_params(dt.ALL_DTYPES))
@given(data=st.data())
def test_where(device, dtype, data):
    shape = data.draw(shapes())
    cond = data.draw(host_arrays(dt.bool_, shape), label="cond")
    x, y = data.draw(host_views(dtype, [shape, shape]), label="x, y")
    out = cond.upload(device).where(cond.layout, x.upload(device), x.layout,
                                    y.upload(device), y.layout)
    expected = np.where(cond.value(), x.value(), y.value())
    assert_bitwise_equal(read_result(out, dtype, shape), expected)

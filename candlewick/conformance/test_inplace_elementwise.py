"""The optional "inplace" group: unary_into, binary_into, binary_scalar_into, compare_into,
compare_scalar_into and where_into, every op x every accepted dtype.

The destination is checked over its *whole* storage: the viewed elements against the
out-of-place oracle, every other element bit for bit unchanged. Operands are drawn
separate from the destination, the destination itself (``x += y``), or views into the
destination's own buffer with any layouts (overlapping it arbitrarily): the result must
be NumPy's, as if every operand were read whole before the first write.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, CompareOp, UnaryOp

from . import elementwise_reference as ref
from .checks import assert_bitwise_equal, read_flat, require_capability
from .strategies import (WRITABLE_KINDS, covered_mask, dtype_params, host_arrays, host_views,
                         op_dtype_params, scalars, shapes, view_of)

#: how the operands meet the destination
SEPARATE, IS_DST, SHARED = "separate", "the destination itself", "views into the destination's buffer"


def check_written(storage, dst, expected):
    """``storage`` (the destination's, uploaded from ``dst``) holds ``expected`` (an
    ``Expected`` of dst's shape) where ``dst.layout`` views it and its old bits elsewhere."""
    got = read_flat(storage)
    untouched = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got[untouched], dst.flat[untouched])
    expected.check(np.array(view_of(got, dst.layout)))


def _operands(data, dtype, shape, n, mode):
    """(dst, [operand HostViews]) with ``n`` operands of ``dtype`` meeting dst as ``mode``
    says (dst has ``dtype`` unless mode is SEPARATE, when the caller draws it)."""
    if mode == SHARED:
        views = data.draw(host_views(dtype, [shape] * (n + 1), writable=(0,), shared=True),
                          label="dst, operands (one buffer)")
        return views[0], views[1:]
    if mode == IS_DST:
        dst = data.draw(host_arrays(dtype, shape, kinds=WRITABLE_KINDS, writable=True), label="dst")
        rest = data.draw(host_views(dtype, [shape] * (n - 1)), label="other operands") if n > 1 else []
        return dst, [dst, *rest]
    return None, data.draw(host_views(dtype, [shape] * n), label="operands")


def _upload(device, dst, operands, result_dtype, data, shape):
    """(destination storage, dst HostView, operand storages): an operand that lives in
    dst's buffer is the destination storage itself."""
    if dst is None:
        dst = data.draw(host_arrays(result_dtype, shape, kinds=WRITABLE_KINDS, writable=True), label="dst")
    target = dst.upload(device)
    storages = [target if v.flat is dst.flat else v.upload(device) for v in operands]
    return target, dst, storages


def _modes(same_dtype):
    return st.sampled_from((SEPARATE, IS_DST, SHARED) if same_dtype else (SEPARATE,))


@pytest.mark.parametrize("op,dtype", op_dtype_params(UnaryOp))
@given(data=st.data())
def test_unary_into(device, op, dtype, data):
    require_capability(device, "inplace")
    result = op.result_dtype(dtype)
    shape = data.draw(shapes())
    mode = data.draw(_modes(result is dtype), label="mode")
    dst, (x,) = _operands(data, dtype, shape, 1, mode)
    target, dst, (xs,) = _upload(device, dst, [x], result, data, shape)
    assert target.unary_into(op, dst.layout, xs, x.layout) is None
    check_written(target, dst, ref.unary(op, dtype, x.value()))


def _check_pair_into(device, data, op, dtype, result, name, oracle):
    """``name`` (binary_into or compare_into) of two operands into a ``result`` destination."""
    require_capability(device, "inplace")
    shape = data.draw(shapes())
    mode = data.draw(_modes(result is dtype), label="mode")
    dst, (a, b) = _operands(data, dtype, shape, 2, mode)
    if mode == IS_DST and data.draw(st.booleans(), label="dst on the right"):
        a, b = b, a
    if mode == SEPARATE and data.draw(st.booleans(), label="equal operands"):
        # random values are rarely equal: copy some of lhs into rhs
        b.view[...] = np.where(np.arange(b.view.size).reshape(shape) % 2 == 0, a.view, b.view)
    target, dst, (sa, sb) = _upload(device, dst, [a, b], result, data, shape)
    assert getattr(target, name)(op, dst.layout, sa, a.layout, sb, b.layout) is None
    check_written(target, dst, oracle(a.value(), b.value()))


def _check_scalar_into(device, data, op, dtype, reflected, result, name, oracle):
    """``name`` (binary_scalar_into or compare_scalar_into) into a ``result`` destination."""
    require_capability(device, "inplace")
    shape = data.draw(shapes())
    mode = data.draw(_modes(result is dtype), label="mode")
    dst, (x,) = _operands(data, dtype, shape, 1, mode)
    scalar = data.draw(scalars(dtype), label="scalar")
    if data.draw(st.booleans(), label="scalar taken from x") and x.value().size:
        scalar = x.value().reshape(-1)[0].item()
    target, dst, (xs,) = _upload(device, dst, [x], result, data, shape)
    assert getattr(target, name)(op, dst.layout, xs, x.layout, scalar, reflected) is None
    s = np.full(shape, scalar, dtype.numpy)
    check_written(target, dst, oracle(*((s, x.value()) if reflected else (x.value(), s))))


@pytest.mark.parametrize("op,dtype", op_dtype_params(BinaryOp))
@given(data=st.data())
def test_binary_into(device, op, dtype, data):
    _check_pair_into(device, data, op, dtype, dtype, "binary_into", lambda a, b: ref.binary(op, dtype, a, b))


@pytest.mark.parametrize("reflected", [False, True], ids=["x_op_s", "s_op_x"])
@pytest.mark.parametrize("op,dtype", op_dtype_params(BinaryOp))
@given(data=st.data())
def test_binary_scalar_into(device, op, dtype, reflected, data):
    _check_scalar_into(device, data, op, dtype, reflected, dtype, "binary_scalar_into",
                       lambda a, b: ref.binary(op, dtype, a, b))


@pytest.mark.parametrize("op,dtype", op_dtype_params(CompareOp))
@given(data=st.data())
def test_compare_into(device, op, dtype, data):
    _check_pair_into(device, data, op, dtype, dt.bool_, "compare_into", lambda a, b: ref.compare(op, a, b))


@pytest.mark.parametrize("reflected", [False, True], ids=["x_op_s", "s_op_x"])
@pytest.mark.parametrize("op,dtype", op_dtype_params(CompareOp))
@given(data=st.data())
def test_compare_scalar_into(device, op, dtype, reflected, data):
    _check_scalar_into(device, data, op, dtype, reflected, dt.bool_, "compare_scalar_into",
                       lambda a, b: ref.compare(op, a, b))


@pytest.mark.parametrize("dtype", dtype_params(dt.ALL_DTYPES))
@given(data=st.data())
def test_where_into(device, dtype, data):
    require_capability(device, "inplace")
    shape = data.draw(shapes())
    mode = data.draw(st.sampled_from((SEPARATE, "y is dst", "x is dst", SHARED)), label="mode")
    if mode == SHARED:  # x, y (and for bool the condition too) in the destination's buffer
        dst, *operands = data.draw(host_views(dtype, [shape] * (4 if dtype is dt.bool_ else 3),
                                              writable=(0,), shared=True), label="dst, x, y[, cond]")
        x, y = operands[:2]
        cond = operands[2] if dtype is dt.bool_ else data.draw(host_arrays(dt.bool_, shape), label="cond")
    else:
        cond = data.draw(host_arrays(dt.bool_, shape), label="cond")
        dst = None if mode == SEPARATE else data.draw(
            host_arrays(dtype, shape, kinds=WRITABLE_KINDS, writable=True), label="dst")
        x, y = data.draw(host_views(dtype, [shape, shape]), label="x, y")
        if mode == "y is dst":
            y = dst
        elif mode == "x is dst":
            x = dst
    target, dst, (sc, sx, sy) = _upload(device, dst, [cond, x, y], dtype, data, shape)
    assert target.where_into(dst.layout, sc, cond.layout, sx, x.layout, sy, y.layout) is None
    expected = np.where(cond.value(), x.value(), y.value())
    got = read_flat(target)
    untouched = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got[untouched], dst.flat[untouched])
    assert_bitwise_equal(np.array(view_of(got, dst.layout)), expected)


@pytest.mark.primitive("where_into")
@pytest.mark.parametrize("dtype", dtype_params(dt.ALL_DTYPES))
@given(data=st.data())
def test_where_into_a_scalar(device, dtype, data):
    """``x`` a Python scalar (``x_layout`` None), as ``x[mask] = 0.5`` passes it: stored
    where cond holds, y elsewhere (y the destination itself, or separate, or a view into
    the destination's buffer)."""
    require_capability(device, "inplace")
    shape = data.draw(shapes())
    mode = data.draw(st.sampled_from((SEPARATE, "y is dst", SHARED)), label="mode")
    dst, (y,) = _operands(data, dtype, shape, 1, IS_DST if mode == "y is dst" else mode)
    cond = data.draw(host_arrays(dt.bool_, shape), label="cond")
    value = data.draw(scalars(dtype), label="value")
    target, dst, (sc, sy) = _upload(device, dst, [cond, y], dtype, data, shape)
    assert target.where_into(dst.layout, sc, cond.layout, value, None, sy, y.layout) is None
    expected = np.where(cond.value(), np.full(shape, value, dtype.numpy), y.value())
    got = read_flat(target)
    untouched = ~covered_mask(dst.flat.size, dst.layout)
    assert_bitwise_equal(got[untouched], dst.flat[untouched])
    assert_bitwise_equal(np.array(view_of(got, dst.layout)), expected)


@pytest.mark.primitive("binary_into", "binary_scalar_into")
@pytest.mark.parametrize("dtype", dtype_params(dt.ALL_DTYPES))
def test_into_classic_overlaps(device, dtype):
    """NumPy's results for ``x[1:] += x[:-1]``, ``x[:-1] += x[1:]``, ``x += x[::-1]``,
    ``x += x.T`` and ``x[::2] += 1`` (or ``|=`` for bool)."""
    require_capability(device, "inplace")
    op = BinaryOp.BITWISE_OR if dtype is dt.bool_ else BinaryOp.ADD
    ufunc = np.bitwise_or if dtype is dt.bool_ else np.add
    n = 7
    host = (np.arange(n * n) % 5 == 1) if dtype is dt.bool_ else (np.arange(n * n) % 13).astype(dtype.numpy)
    line, grid = Layout.contiguous((n,)), Layout.contiguous((n, n))
    cases = [  # (dst layout, operand layout, NumPy's spelling on a flat buffer h)
        (Layout((n - 1,), (1,), 1), Layout((n - 1,), (1,), 0), lambda h: ufunc(h[1:n], h[: n - 1], out=h[1:n])),
        (Layout((n - 1,), (1,), 0), Layout((n - 1,), (1,), 1), lambda h: ufunc(h[: n - 1], h[1:n], out=h[: n - 1])),
        (line, Layout((n,), (-1,), n - 1), lambda h: ufunc(h[:n], h[n - 1 :: -1], out=h[:n])),
        (grid, grid.permute((1, 0)), lambda h: ufunc(h.reshape(n, n), h.reshape(n, n).T, out=h.reshape(n, n))),
    ]
    for dst_layout, src_layout, numpy_spelling in cases:
        s = device.storage_from_host(host)
        s.binary_into(op, dst_layout, s, dst_layout, s, src_layout)
        expected = host.copy()
        numpy_spelling(expected)
        assert_bitwise_equal(read_flat(s), expected)
    s = device.storage_from_host(host)
    stepped = Layout(((n * n + 1) // 2,), (2,), 0)
    s.binary_scalar_into(op, stepped, s, stepped, True if dtype is dt.bool_ else 1, False)
    expected = host.copy()
    ufunc(expected[::2], expected.dtype.type(1), out=expected[::2])
    assert_bitwise_equal(read_flat(s), expected)


@pytest.mark.primitive("unary_into", "binary_into", "where_into")
def test_into_writes_nothing_for_empty_destinations(device):
    require_capability(device, "inplace")
    host = np.arange(4)  # (int64: every device declares it)
    s = device.storage_from_host(host)
    empty = Layout((0, 3), (3, 1), 0)
    s.unary_into(UnaryOp.NEGATIVE, empty, s, empty)
    s.binary_into(BinaryOp.ADD, empty, s, empty, s, empty)
    cond = device.storage_from_host(np.zeros(0, bool))
    s.where_into(empty, cond, empty, s, empty, s, empty)
    assert_bitwise_equal(read_flat(s), host)

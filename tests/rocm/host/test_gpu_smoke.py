"""Quick breadth check of the ROCm backend on a real device (skipped without one):
one call of every primitive family on awkward layouts, against NumPy."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick import registry
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def dev():
    ok, reason = registry.get_backend("rocm").probe() if _available() else (False, "")
    if not _available():
        pytest.skip("rocm backend unavailable")
    return registry.get_device("rocm")


def _available():
    return any(i.name == "rocm" and i.available for i in registry.backends())


def _up(dev, a):
    return dev.storage_from_host(np.ascontiguousarray(a)), Layout.contiguous(a.shape)


def test_roundtrip_and_strided_views(dev):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    s, l = _up(dev, a)
    np.testing.assert_array_equal(s.to_host(l), a)
    t = l.transpose_last2()
    np.testing.assert_array_equal(s.to_host(t), a.T)
    f = l.flip((0, 1))
    np.testing.assert_array_equal(s.to_host(f), a[::-1, ::-1])
    np.testing.assert_array_equal(s.copy(l.slice(1, 1, 5, 2)).to_host(Layout.contiguous((4, 2))), a[:, 1:5:2])


@pytest.mark.parametrize("d", dt.ALL_DTYPES, ids=lambda d: d.name)
def test_unary_binary_compare_all_dtypes(dev, d):
    rng = np.random.default_rng(0)
    if d.is_bool:
        a = rng.integers(0, 2, (5, 7)).astype(bool)
    elif d.is_integer:
        a = rng.integers(1, 50, (5, 7)).astype(d.numpy)
    elif d.is_complex:
        a = (rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))).astype(d.numpy)
    else:
        a = rng.standard_normal((5, 7)).astype(d.numpy)
    s, l = _up(dev, a)
    tol = 2e-2 if d in (dt.float16, dt.bfloat16) else 1e-5
    for op in UnaryOp:
        if op.accepts(d) and op in (UnaryOp.NEGATIVE, UnaryOp.ABS, UnaryOp.SQUARE, UnaryOp.EXP, UnaryOp.LOGICAL_NOT):
            out = s.unary(op, l.transpose_last2()).to_host(Layout.contiguous((7, 5)))
            ref = {"negative": np.negative, "abs": np.abs, "square": np.square, "exp": np.exp,
                   "logical_not": np.logical_not}[op.value](a.T)
            np.testing.assert_allclose(out.astype(np.complex128), ref.astype(np.complex128), rtol=tol, atol=tol)
    for op in (BinaryOp.ADD, BinaryOp.MULTIPLY):
        if op.accepts(d):
            out = s.binary(op, l, s, l.flip((1,))).to_host(l)
            ref = (a + a[:, ::-1]) if op is BinaryOp.ADD else (a * a[:, ::-1])
            np.testing.assert_allclose(out.astype(np.complex128), ref.astype(np.complex128), rtol=tol, atol=tol)
    out = s.compare(CompareOp.EQUAL, l, s, l.flip((0,))).to_host(l)
    np.testing.assert_array_equal(out, a == a[::-1])


def test_reduce_shapes(dev):
    a = np.random.default_rng(1).standard_normal((33, 1000)).astype(np.float32)
    s, l = _up(dev, a)
    for axes in ((0,), (1,), (0, 1)):
        out = s.reduce(ReduceOp.SUM, l, axes).to_host(Layout.contiguous(np.sum(a, axis=axes).shape))
        np.testing.assert_allclose(out, a.sum(axis=axes, dtype=np.float64), rtol=1e-4, atol=1e-3)
    out = s.reduce(ReduceOp.ARGMAX, l, (1,)).to_host(Layout.contiguous((33,)))
    np.testing.assert_array_equal(out, a.argmax(axis=1))
    big = np.random.default_rng(2).standard_normal(1 << 22).astype(np.float32)
    sb, lb = _up(dev, big)
    out = sb.reduce(ReduceOp.SUM, lb, (0,)).to_host(Layout.contiguous(()))
    np.testing.assert_allclose(out, big.sum(dtype=np.float64), rtol=1e-4)


def test_scan_sort_search_index(dev):
    a = np.random.default_rng(3).standard_normal((3, 3000)).astype(np.float32)
    a[0, 5] = np.nan
    s, l = _up(dev, a)
    out = s.scan(ScanOp.SUM, l, 1).to_host(l)
    np.testing.assert_allclose(out[1:], np.cumsum(a[1:], axis=1), rtol=1e-4, atol=1e-3)
    vals, idx = s.sort(l, 1, False, True)
    np.testing.assert_array_equal(vals.to_host(l), np.sort(a, axis=1))
    np.testing.assert_array_equal(idx.to_host(l), np.argsort(a, axis=1, kind="stable"))
    x = np.sort(a[1])
    sx, lx = _up(dev, x)
    v = a[2]
    sv, lv = _up(dev, v)
    np.testing.assert_array_equal(sx.searchsorted(lx, sv, lv, False).to_host(lv), np.searchsorted(x, v))
    idx = np.array([2, -1, 0], dtype=np.int64)
    si, li = _up(dev, idx)
    out = s.index_select(l, si, li, 1).to_host(Layout.contiguous((3, 3)))
    np.testing.assert_array_equal(out, a[:, idx])


def test_matmul_and_random(dev):
    rng = np.random.default_rng(4)
    for d in (np.float32, np.float64, np.complex64, np.int32):
        a = (rng.standard_normal((2, 17, 9)) * 4).astype(d)
        b = (rng.standard_normal((9, 5)) * 4).astype(d)
        sa, la = _up(dev, a)
        sb, lb = _up(dev, b)
        lb2 = lb.broadcast_to((2, 9, 5))
        out = sa.matmul(sb, la, lb2).to_host(Layout.contiguous((2, 17, 5)))
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3)
    r = dev.rand_uniform((1001,), dt.float32, 42, 0, 0.0, 1.0)
    u = r.to_host(Layout.contiguous((1001,)))
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05

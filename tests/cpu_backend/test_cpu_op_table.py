"""The op table is generated from candlewick.opdefs, and no kernel lets a NumPy
RuntimeWarning escape on the IEEE special values."""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp
from cpu_backend import ops

from cpu_helpers import download, upload

TABLES = [(UnaryOp, ops.UNARY_RAW), (BinaryOp, ops.BINARY_RAW), (CompareOp, ops.COMPARE_RAW),
          (ReduceOp, ops.REDUCE), (ScanOp, ops.SCAN)]


def test_no_op_is_missing():
    assert ops.missing_ops() == []


@pytest.mark.parametrize("enum, table", TABLES)
def test_each_op_serves_exactly_the_dtypes_opdefs_declares(enum, table):
    assert set(table) == {op.value for op in enum}
    for op in enum:
        assert tuple(table[op.value]) == tuple(d.name for d in op.dtypes())
        # (the last item of an entry: element-wise (kernel, loud, result), the others (kernel, result))
        assert all(table[op.value][d.name][-1] is op.result_dtype(d) for d in op.dtypes())


def test_an_op_outside_its_domain_is_unsupported_and_named():
    x, lx = upload(np.array([True, False]))
    with pytest.raises(UnsupportedOperation, match="'sin'.*bool.*'cpu'"):
        x.unary(UnaryOp.SIN, lx)
    with pytest.raises(UnsupportedOperation, match="'add'"):
        x.binary(BinaryOp.ADD, lx, x, lx)


def special_values(dtype):
    np_dtype = dtype.numpy
    if dtype.is_bool:
        return np.array([True, False, True, False, True, True, False, False, True])
    if dtype.is_integer:
        info = np.iinfo(np_dtype)
        return np.array([0, 1, info.max, info.min, 2, info.max - 1, 3, 0, 1][:9], np_dtype)
    real = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3e38, 1e-40]
    if dtype.is_complex:
        imag = [np.inf, 0.0, np.nan, -1.0, 2.0, -np.inf, 0.0, 3e38, 1.0]
        with np.errstate(all="ignore"):
            return np.array(real, np.complex128) + 1j * np.array(imag)
    info = ml_dtypes.finfo(np_dtype) if np_dtype == dt.bfloat16.numpy else np.finfo(np_dtype)
    real[7] = float(info.max)
    with np.errstate(all="ignore"):
        return np.array(real).astype(np_dtype)


def all_entries():
    for enum, table in TABLES:
        for op in enum:
            for dtype in op.dtypes():
                yield pytest.param(enum, op, dtype, id=f"{op.value}-{dtype.name}")


@pytest.mark.parametrize("enum, op, dtype", all_entries())
def test_special_values_raise_no_warnings(enum, op, dtype):
    host = special_values(dtype).astype(dtype.numpy)
    x, lx = upload(host)
    y, ly = upload(host[::-1].copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if enum is UnaryOp:
            x.unary(op, lx)
        elif enum in (BinaryOp, CompareOp):
            (x.binary if enum is BinaryOp else x.compare)(op, lx, y, ly)
            if enum is BinaryOp:
                for scalar, reflected in itertools.product(host[[0, 2, 4]].tolist(), (False, True)):
                    x.binary_scalar(op, lx, scalar, reflected)
        elif enum is ReduceOp:
            x.reduce(op, lx, (0,))
        else:
            x.scan(op, lx, 0)


def test_identity_ops_do_not_alias_their_input():
    x, lx = upload(np.array([1, 2, 3], np.int32))
    for op in (UnaryOp.CEIL, UnaryOp.ROUND, UnaryOp.REAL, UnaryOp.CONJ):
        out = x.unary(op, lx)
        assert not np.shares_memory(out.buf, x.buf)
    z, lz = upload(np.array([1 + 2j, 3 - 4j]))
    assert not np.shares_memory(z.unary(UnaryOp.REAL, lz).buf, z.buf)
    assert download(z.unary(UnaryOp.IMAG, lz), (2,)).tolist() == [2.0, -4.0]


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16])
def test_low_precision_rounds_once_from_float32(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(64).astype(dtype.numpy)
    b = rng.standard_normal(64).astype(dtype.numpy)
    sa, la = upload(a)
    sb, lb = upload(b)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    got = download(sa.binary(BinaryOp.ADD, la, sb, lb), (64,))
    np.testing.assert_array_equal(got, (a32 + b32).astype(dtype.numpy))
    got = download(sa.unary(UnaryOp.EXP, la), (64,))
    np.testing.assert_array_equal(got, np.exp(a32).astype(dtype.numpy))
    got = download(sa.reduce(ReduceOp.SUM, la, (0,)), ())
    assert got == np.add.reduce(a32, dtype=np.float32).astype(dtype.numpy)


@pytest.mark.parametrize("dtype", [dt.float16, dt.bfloat16])
def test_nextafter_steps_in_the_narrow_type(dtype):
    one, lo = upload(np.array([1.0, 0.0], dtype.numpy))
    two, lt = upload(np.array([2.0, -1.0], dtype.numpy))
    got = download(one.binary(BinaryOp.NEXTAFTER, lo, two, lt), (2,))
    expected = np.nextafter(np.array([1.0, 0.0], dtype.numpy), np.array([2.0, -1.0], dtype.numpy))
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))
    assert float(got[0]) > 1.0 and float(got[0]) < 1.01


LAYOUTS = {
    "transposed": (Layout((3, 4), (1, 3), 0), lambda h: h[:12].reshape(4, 3).T),
    "stepped": (Layout((2, 3), (8, 2), 1), lambda h: h[1 + 8 * np.arange(2)[:, None] + 2 * np.arange(3)]),
    "broadcast": (Layout((3, 4), (0, 1), 2), lambda h: np.broadcast_to(h[2:6], (3, 4))),
    "negative": (Layout((4,), (-3,), 15), lambda h: h[15::-3][:4]),
    "zero-d": (Layout((), (), 7), lambda h: h[7]),
    "empty": (Layout((0, 3), (3, 1), 16), lambda h: h[:0].reshape(0, 3)),
}


@pytest.mark.parametrize("kind", LAYOUTS)
def test_strided_views_feed_the_kernels(kind):
    host = np.arange(16, dtype=np.float64) - 5.5
    x, _ = upload(host)
    layout, ref = LAYOUTS[kind]
    expected = np.asarray(ref(host))
    np.testing.assert_array_equal(x.to_host(layout), expected)
    out = x.unary(UnaryOp.NEGATIVE, layout)
    np.testing.assert_array_equal(download(out, layout.shape), -expected)
    out = x.binary(BinaryOp.MULTIPLY, layout, x, layout)
    np.testing.assert_array_equal(download(out, layout.shape), expected * expected)
    axes = tuple(range(len(layout.shape)))
    assert download(x.reduce(ReduceOp.SUM, layout, axes), ()) == expected.sum()

"""The reduction kernels of rocm_backend/hip/reduce.hip, run on the CPU end to end.

No GPU here: host_exec.py has g++ compile reduce.hip for the host (every thread of a
block a fiber: real barriers, warp shuffles of width 32 or 64, shared memory; blocks one
after another in a chosen order) and a fake HIP runtime hand each reduction launch of
the backend to it, so what runs is the backend's own host path (kernel choice, launch
geometry, splits, argument packing) and the kernels' own code. Inputs are small integers, so
every expected result is exact: comparisons are bitwise, and so are the checks that the
block order (which block finishes last) changes nothing.
"""

import ctypes

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import ReduceOp
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.families import reduce_plan, reductions

REDUCE_SPECS = [s for s in ops.TABLE.values() if s.key[0] in ("reduce", "reduce_as")]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return build(tmp_path_factory.mktemp("reduce_host"), ["reduce.hip"], REDUCE_SPECS)


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)


# ---- inputs and exact expectations ------------------------------------------------------

def _values(dtype, shape, rng, op):
    """Small integers (exact sums and products in every dtype), a few NaNs for the
    floating extremes."""
    n = int(np.prod(shape))
    if dtype is dt.bool_:
        a = rng.random(n) < (0.97 if op is ReduceOp.ALL else 0.03)
        return a.reshape(shape)
    lo, hi = (-1, 2) if op is ReduceOp.PROD else (-3, 4)
    if dtype.is_integer and dtype.numpy.kind == "u":
        lo = 0
    a = rng.integers(lo, hi, n)
    if op is ReduceOp.PROD:  # mostly ones: products stay small
        a = np.where(rng.random(n) < 0.9, 1, a)
    if op in (ReduceOp.ANY,):
        a = np.where(rng.random(n) < 0.97, 0, a)
    if op in (ReduceOp.ALL,):
        a = np.where(a == 0, 1, a)
        a[rng.random(n) < 0.002] = 0
    if dtype.is_complex:
        b = rng.integers(lo, hi, n)
        a = a + 1j * np.where(rng.random(n) < 0.5, 0, b)
    a = a.astype(dtype.numpy).reshape(shape)
    if _floating(a):
        if op in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.ARGMAX, ReduceOp.ARGMIN, ReduceOp.COUNT_NONZERO) and a.size > 40:
            flat = a.reshape(-1)
            flat[rng.integers(0, n, max(1, n // 500))] = np.nan
    return a


def _floating(a):
    return a.dtype.kind == "f" or a.dtype == dt.bfloat16.numpy


def _expected(op, a, axes):
    """NumPy's answer (exact: integer-valued inputs), NaN-first for arg extremes."""
    if op in (ReduceOp.SUM, ReduceOp.PROD):
        fn = np.sum if op is ReduceOp.SUM else np.prod
        if a.dtype.kind in "iu":
            return fn(a, axis=axes, dtype=a.dtype)  # wrapping, as the kernels do
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        return fn(a.astype(wide), axis=axes).astype(a.dtype)
    if op in (ReduceOp.ANY, ReduceOp.ALL):
        return (np.any if op is ReduceOp.ANY else np.all)(a, axis=axes)
    if op is ReduceOp.COUNT_NONZERO:  # NaN counts, -0.0 does not
        return np.asarray(np.count_nonzero(a, axis=axes), np.int64)
    with np.errstate(invalid="ignore"):
        if op in (ReduceOp.MAX, ReduceOp.MIN):
            return (np.max if op is ReduceOp.MAX else np.min)(a, axis=axes)
        (axis,) = axes
        b = a.astype(np.float64) if _floating(a) else a
        return (np.argmax if op is ReduceOp.ARGMAX else np.argmin)(b, axis=axis)


def _run(dev, op, a, layout, axes, out_shape):
    s = dev.storage_from_host(a)
    out = s.reduce(op, layout, tuple(axes))
    return out.to_host(Layout.contiguous(out_shape))


def _check(dev, op, base, view, axes):
    """Reduce ``view`` (a numpy view of ``base``) over ``axes`` on the fake device."""
    itemsize = base.dtype.itemsize
    strides = tuple(s // itemsize for s in view.strides)
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // itemsize
    layout = Layout(view.shape, strides, offset)
    want = np.asarray(_expected(op, view, axes))
    got = _run(dev, op, base, layout, axes, want.shape)
    if _floating(want) or want.dtype.kind == "c":
        np.testing.assert_array_equal(got.astype(np.complex128), want.astype(np.complex128))
    else:
        np.testing.assert_array_equal(got, want)
    return got


# ---- every op and dtype: whole array, rows, columns, a generic layout --------------------

OP_DTYPES = [(op, d) for op in ReduceOp for d in op.dtypes()]


@pytest.mark.parametrize("op,dtype", OP_DTYPES, ids=[f"{o.value}-{d.name}" for o, d in OP_DTYPES])
def test_every_op_and_dtype(device, op, dtype, monkeypatch):
    monkeypatch.setitem(reduce_plan.TUNING, "seg_min", 512)
    monkeypatch.setitem(reduce_plan.TUNING, "cols_rows_min", 2)
    rt, dev = device(warp=64)
    rng = np.random.default_rng(hash((op.value, dtype.name)) % 2**32)
    flat = _values(dtype, (6001,), rng, op)
    _check(dev, op, flat, flat, (0,))  # split: the last block combines
    _check(dev, op, flat, flat[5:], (0,))  # contiguous from an unaligned first element
    m = _values(dtype, (37, 203), rng, op)
    _check(dev, op, m, m, (1,))  # rows
    _check(dev, op, m, m, (0,))  # cols
    _check(dev, op, m, m[:, 3:], (1,))  # rows starting off vector alignment
    c = _values(dtype, (5, 300, 8), rng, op)
    _check(dev, op, c, c, (1,))  # cols, generic (two output axes)
    k = _values(dtype, (700, 8), rng, op)
    _check(dev, op, k, k, (1,))  # a few elements per output: cols, one thread each
    _check(dev, op, k, k[:9].T, (1,))  # the outputs contiguous, 9 elements each
    if op not in (ReduceOp.ARGMAX, ReduceOp.ARGMIN):
        _check(dev, op, c, c, (0, 2))  # rows, generic (two reduced axes)
        _check(dev, op, c, c, (0, 1, 2))  # everything, contiguous
    kinds = {name.split("_" + op.value + "_")[0] for name, _, _ in rt.launches}
    assert {"reduce_rows_vec", "reduce_cols_vec", "reduce_cols"} <= kinds, kinds


# ---- reduce_as: the input read in its dtype, accumulated in the wider one -------------------

AS_CASES = [(op, src, dst) for src, dst in ops.REDUCE_AS_PAIRS for op in (ReduceOp.SUM, ReduceOp.PROD)]


def _check_as(dev, op, base, view, axes, into):
    itemsize = base.dtype.itemsize
    layout = Layout(view.shape, tuple(st // itemsize for st in view.strides),
                    (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // itemsize)
    fn = np.sum if op is ReduceOp.SUM else np.prod
    want = np.asarray(fn(view.astype(np.float64), axis=axes)).astype(into.numpy)
    out = dev.storage_from_host(base).reduce_as(op, layout, tuple(axes), into)
    assert out.dtype is into
    np.testing.assert_array_equal(out.to_host(Layout.contiguous(want.shape)), want)


@pytest.mark.parametrize("op,src,dst", AS_CASES, ids=[f"{o.value}-{s.name}-{d.name}" for o, s, d in AS_CASES])
def test_reduce_as_reads_the_input_and_accumulates_in_the_wider_dtype(device, op, src, dst, monkeypatch):
    """The reduce kernels instantiated with the input's type and the wider accumulator
    (ops.REDUCE_AS_PAIRS): every kernel shape, splits included; a float32 sum past 2**24
    that only a float64 accumulator gets right."""
    monkeypatch.setitem(reduce_plan.TUNING, "seg_min", 512)
    monkeypatch.setitem(reduce_plan.TUNING, "cols_rows_min", 2)
    rt, dev = device(warp=64)
    rng = np.random.default_rng(hash((op.value, src.name, dst.name)) % 2**32)
    flat = _values(src, (6001,), rng, op)
    _check_as(dev, op, flat, flat, (0,), dst)  # split: the last block combines
    _check_as(dev, op, flat, flat[5:], (0,), dst)
    m = _values(src, (37, 203), rng, op)
    _check_as(dev, op, m, m, (1,), dst)  # rows
    _check_as(dev, op, m, m, (0,), dst)  # cols
    c = _values(src, (5, 300, 8), rng, op)
    _check_as(dev, op, c, c, (1,), dst)  # cols, generic
    _check_as(dev, op, c, c, (0, 2), dst)  # rows, generic
    kinds = {name.split("_" + op.value + "_")[0] for name, _, _ in rt.launches}
    assert {"reduce_as_rows_vec", "reduce_as_cols_vec", "reduce_as_cols"} <= kinds, kinds
    if op is ReduceOp.SUM and (src, dst) == (dt.float32, dt.float64):
        big = np.ones(6001, np.float32)
        big[0] = 2.0 ** 24  # float32 sums stop counting the ones there
        _check_as(dev, op, big, big, (0,), dst)
        assert float(np.sum(big, dtype=np.float32)) != 2.0 ** 24 + 6000  # (the case bites)


# ---- launch geometry knobs, warp widths, block orders -------------------------------------

KNOBS = [  # (warp, block, rows_group, cols_bx, grid cap)
    (64, 256, 0, 32, None), (32, 256, 0, 32, None), (32, 256, 1, 1, None), (64, 128, 4, 8, 3),
    (32, 128, 64, 256, 2), (64, 256, 128, 16, 2), (32, 64, 32, 4, None), (64, 64, 256, 64, 1),
]


@pytest.mark.parametrize("warp,block,group,bx,cap", KNOBS)
def test_knobs_and_warp_widths(device, monkeypatch, warp, block, group, bx, cap):
    for key, value in (("block", block), ("rows_group", group), ("cols_bx", bx), ("seg_min", 256),
                       ("cols_rows_min", 1)):
        monkeypatch.setitem(reduce_plan.TUNING, key, value)
    if cap:  # few blocks: the kernels loop over the rest of the items and tiles
        monkeypatch.setattr(reduce_plan, "GRID_CAP", cap)
    rt, dev = device(warp=warp, occupancy=3)
    rng = np.random.default_rng(warp + block + group + bx)
    for op, dtype in ((ReduceOp.SUM, dt.int32), (ReduceOp.ARGMAX, dt.float32), (ReduceOp.ARGMIN, dt.int16),
                      (ReduceOp.SUM, dt.complex128), (ReduceOp.MAX, dt.float16)):
        flat = _values(dtype, (3001,), rng, op)
        _check(dev, op, flat, flat, (0,))
        for shape in ((50, 130), (3, 1000), (1000, 12), (2, 4)):
            m = _values(dtype, shape, rng, op)
            _check(dev, op, m, m, (1,))
            _check(dev, op, m, m, (0,))
        c = _values(dtype, (4, 90, 6), rng, op)
        _check(dev, op, c, c[:, :, 1:], (1,))
        _check(dev, op, c, c.transpose(2, 0, 1), (2,))
    assert any(g[1] > 1 for name, g, _ in rt.launches if "cols" in name)  # split cols ran


def test_block_order_changes_no_bit(device, monkeypatch):
    """Float sums round differently in another combine order: results must not depend on
    which block finishes last."""
    monkeypatch.setitem(reduce_plan.TUNING, "seg_min", 256)
    monkeypatch.setitem(reduce_plan.TUNING, "cols_rows_min", 1)
    rt, dev = device(warp=32, occupancy=4)
    rng = np.random.default_rng(3)
    cases = [((20011,), (0,)), ((3, 5000), (1,)), ((4000, 16), (0,)), ((2000, 7), (0,)), ((6, 50, 40), (0, 2))]
    for shape, axes in cases:
        a = rng.standard_normal(shape).astype(np.float32)
        s = dev.storage_from_host(a)
        want = np.sum(a.astype(np.float64), axis=axes)
        results = []
        for order in ("forward", "reverse", "shuffle", "shuffle"):
            rt.order = order
            results.append(s.reduce(ReduceOp.SUM, Layout.contiguous(shape), axes).to_host(Layout.contiguous(want.shape)))
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])
        np.testing.assert_allclose(results[0], want, rtol=1e-4, atol=1e-3)
    assert any(g[0] * g[1] > 1 and "cols_vec" in name for name, g, _ in rt.launches)


def test_arg_extremes_give_the_first_index(device, monkeypatch):
    monkeypatch.setitem(reduce_plan.TUNING, "seg_min", 256)
    rt, dev = device(warp=64, occupancy=2)
    n = 5003
    for dtype in (dt.float32, dt.float64, dt.int8, dt.bfloat16, dt.bool_):
        for op in (ReduceOp.ARGMAX, ReduceOp.ARGMIN):
            a = np.zeros(n, dtype.numpy)
            _check(dev, op, a, a, (0,))  # all equal: index 0
            for where in ((n - 1,), (1, n - 1), (2999, 3000, 4000), (257, 4999)):
                b = a.copy()
                b[list(where)] = True if dtype is dt.bool_ else (5 if op is ReduceOp.ARGMAX else -5)
                if dtype is dt.bool_ and op is ReduceOp.ARGMIN:
                    b = ~b
                _check(dev, op, b, b, (0,))
                m = np.stack([b, b[::-1], np.roll(b, 7)])
                _check(dev, op, m, m, (1,))
                mt = np.ascontiguousarray(m.T)
                _check(dev, op, mt, mt, (0,))
            if _floating(a):
                b = np.arange(n).astype(dtype.numpy)
                b[[4000, 1500, 4500]] = np.nan  # the first NaN is the extreme
                got = _run(dev, op, b, Layout.contiguous((n,)), (0,), ())
                assert int(got) == 1500


def test_empty_reductions_and_counters_left_at_zero(device, monkeypatch):
    monkeypatch.setitem(reduce_plan.TUNING, "seg_min", 256)
    rt, dev = device(warp=32, occupancy=2)
    a = np.ones((0, 5), np.float32)
    got = _run(dev, ReduceOp.SUM, a, Layout.contiguous((0, 5)), (0,), (5,))
    np.testing.assert_array_equal(got, np.zeros(5, np.float32))
    got = _run(dev, ReduceOp.PROD, a, Layout.contiguous((0, 5)), (0,), (5,))
    np.testing.assert_array_equal(got, np.ones(5, np.float32))
    assert _run(dev, ReduceOp.SUM, a, Layout.contiguous((0, 5)), (1,), (0,)).shape == (0,)
    b = np.arange(40000, dtype=np.int64).reshape(4, 10000)
    for axes in ((1,), (0, 1)):
        _check(dev, ReduceOp.SUM, b, b, axes)
    c = np.ones((3000, 8), np.float64)
    _check(dev, ReduceOp.SUM, c, c, (0,))
    assert all(name.startswith("reduce_") for name, _, _ in rt.launches)
    tickets = np.empty(reduce_plan.TICKETS, np.uint32)
    ctypes.memmove(tickets.ctypes.data, reductions.scratch(dev).tickets, tickets.nbytes)
    assert not tickets.any()


def test_zero_dim_and_no_axes(device):
    rt, dev = device(warp=32, occupancy=2)
    rng = np.random.default_rng(5)
    for op, dtype in ((ReduceOp.SUM, dt.float32), (ReduceOp.PROD, dt.int64), (ReduceOp.MAX, dt.float64),
                      (ReduceOp.ANY, dt.complex64), (ReduceOp.ALL, dt.bool_)):
        a0 = _values(dtype, (), rng, op)
        _check(dev, op, a0, a0, ())  # a 0-d array: one element
        m = _values(dtype, (7, 9), rng, op)
        _check(dev, op, m, m, ())  # no axis: every element its own output
        _check(dev, op, m, m.T, ())


def test_a_few_elements_per_output_take_one_thread_each(device):
    """argmin over the 8 columns of a matrix (the KMeans-like loop's nearest center): the
    cols kernel with blocks one lane tall (each thread reduces its output's elements, no
    combine through shared memory), NumPy's first index on ties and at a NaN."""
    rt, dev = device(warp=64)
    rng = np.random.default_rng(3)
    d = rng.integers(0, 4, (5000, 8)).astype(np.float32)  # many ties
    d[17, 5] = np.nan
    del rt.launches[:]
    _check(dev, ReduceOp.ARGMIN, d, d, (1,))
    assert [(name.decode() if isinstance(name, bytes) else name, block[1]) for name, _, block in rt.launches] == [
        ("reduce_cols_argmin_float32", 1)]

"""Complex matmul on the ROCm backend as one real GEMM plus a combine (rocblas.py),
checked on the CPU: the fake HIP runtime gets a NumPy "device memory", and the only
device work this path queues (element-wise copy/subtract/add launches and
hipblasGemmStridedBatchedEx, column-major as hipBLAS defines it) is mirrored in NumPy.

What this proves: the operand views and copies, the GEMM arguments (transposes,
leading dimensions, batch strides, broadcast batches) and the combine offsets are
right, and special values come out as the explicit product sum gives them (where
complex BLAS gave NaN for inf). What it cannot prove: the real kernels and hipBLAS
compute what the mirror computes (the GPU conformance run does that).
"""

import ctypes
import importlib.util
import pathlib
import types

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp

_spec = importlib.util.spec_from_file_location("rocm_fake_hip", pathlib.Path(__file__).with_name("fake_hip.py"))
fake_hip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_hip)

_BASE = 0x10000
_ARENA_BYTES = 64 << 20
_DATA_TYPES = {"HIP_R_16F": np.float16, "HIP_R_32F": np.float32, "HIP_R_64F": np.float64}


class Mirror:
    """NumPy device memory (one arena, bump-allocated) and the device calls on it."""

    def __init__(self):
        self.arena = np.zeros(_ARENA_BYTES, np.uint8)
        self.next = 0
        self.launches = []  # (key[0], key[1:]) of every element-wise launch
        self.gemms = []  # the argument tuples of every GEMM call

    def addr(self, ptr):
        assert _BASE <= ptr < _BASE + _ARENA_BYTES, hex(ptr)
        return self.arena.ctypes.data + ptr - _BASE

    def view(self, dtype, ptr, offset, shape, strides):
        item = np.dtype(dtype).itemsize
        start = ptr - _BASE + offset * item
        first = self.arena[start:start + item].view(dtype)
        return np.lib.stride_tricks.as_strided(first, tuple(shape), tuple(s * item for s in strides))

    # --- hip ---------------------------------------------------------------------
    def malloc(self, size):
        ptr = _BASE + self.next
        self.next += (size + 4095) // 4096 * 4096
        assert self.next <= _ARENA_BYTES, "mirror arena exhausted"
        return (fake_hip.OK, ptr)

    def htod(self, dst, src, n, stream):
        ctypes.memmove(self.addr(dst), src, n)
        return (fake_hip.OK,)

    def dtoh(self, dst, src, n, stream):
        ctypes.memmove(dst, self.addr(src), n)
        return (fake_hip.OK,)

    def dtod(self, dst, src, n, stream):
        ctypes.memmove(self.addr(dst), self.addr(src), n)
        return (fake_hip.OK,)

    def memset(self, ptr, byte, n, stream):
        ctypes.memset(self.addr(ptr), byte, n)
        return (fake_hip.OK,)

    # --- element-wise launches (storage.launch_ew's signature) ---------------------
    def launch_ew(self, device, key, shape, operands, scalar=b"", flags=0, name=None, dtype=None, blocks=None):
        self.launches.append(key)
        family = key[0]
        if family == "copy":
            raw = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[key[1]]
            (dp, do, ds), (sp, so, ss) = operands
            self.view(raw, dp, do, shape, ds)[...] = self.view(raw, sp, so, shape, ss)
        elif family == "row_copy":  # rows of key[1]-byte units, source row r (a strided copy)
            unit = key[1]
            (dp, _, (ds,)), (sp, _, _), _, _ = operands
            src_stride, _, row, _ = (int(v) for v in np.frombuffer(scalar, np.int64)[:4])
            for r in range(shape[0] // row):
                ctypes.memmove(self.addr(dp + r * ds * unit), self.addr(sp + r * src_stride * unit), row * unit)
        elif family == "binary" and key[1] in (BinaryOp.ADD, BinaryOp.SUBTRACT):
            t = key[2].numpy
            (dp, do, ds), (ap, ao, as_), (bp, bo, bs) = operands
            fn = np.add if key[1] is BinaryOp.ADD else np.subtract
            with np.errstate(all="ignore"):
                self.view(t, dp, do, shape, ds)[...] = fn(self.view(t, ap, ao, shape, as_),
                                                          self.view(t, bp, bo, shape, bs))
        else:
            raise AssertionError(f"the mirror has no kernel {key}")

    # --- hipBLAS -----------------------------------------------------------------
    def gemm(self, handle, transa, transb, m, n, k, alpha, a, atype, lda, stride_a, b, btype, ldb, stride_b,
             beta, c, ctype, ldc, stride_c, count, compute, algo):
        """Column-major C = alpha op(A) op(B) + beta C over ``count`` strided batches."""
        self.gemms.append((transa, transb, m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c, count))
        assert atype == btype == ctype
        t = _DATA_TYPES[atype]
        al = np.frombuffer(ctypes.string_at(alpha, np.dtype(t).itemsize), t)[0]
        be = np.frombuffer(ctypes.string_at(beta, np.dtype(t).itemsize), t)[0]
        assert (al, be) == (1, 0)
        for i in range(count):
            # column-major X (rows x cols, leading dimension ld) = row-major strides (1, ld)
            sa = (m, k) if transa == "N" else (k, m)
            sb = (k, n) if transb == "N" else (n, k)
            opa = self.view(t, a, i * stride_a, sa, (1, lda))
            opb = self.view(t, b, i * stride_b, sb, (1, ldb))
            opa, opb = (opa if transa == "N" else opa.T), (opb if transb == "N" else opb.T)
            with np.errstate(all="ignore"):
                prod = (opa[:, :, None] * opb[None, :, :]).sum(axis=1)  # no zero skipping
            self.view(t, c, i * stride_c, (m, n), (1, ldc))[...] = prod
        return (fake_hip.OK,)


@pytest.fixture
def mirror(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_hip.install(monkeypatch)
    mem = Mirror()
    for name, fn in (("hipMalloc", mem.malloc), ("hipMemcpyHtoDAsync", mem.htod), ("hipMemcpyDtoHAsync", mem.dtoh),
                     ("hipMemcpyDtoDAsync", mem.dtod), ("hipMemsetAsync", mem.memset)):
        monkeypatch.setattr(rt.hip, name, fn)
    monkeypatch.setattr(rt.hip, "hipDataType", types.SimpleNamespace(**{n: n for n in _DATA_TYPES}), raising=False)
    enums = {
        "hipblasComputeType_t": ("HIPBLAS_COMPUTE_32F", "HIPBLAS_COMPUTE_64F"),
        "hipblasOperation_t": ("HIPBLAS_OP_N", "HIPBLAS_OP_T"),
        "hipblasGemmAlgo_t": ("HIPBLAS_GEMM_DEFAULT",),
    }
    for enum, names in enums.items():
        ns = types.SimpleNamespace(**{n: n.rsplit("_", 1)[-1] for n in names})
        monkeypatch.setattr(rt.hipblas, enum, ns, raising=False)
    monkeypatch.setattr(rt.hipblas, "hipblasGemmStridedBatchedEx", mem.gemm, raising=False)
    from rocm_backend import RocmBackend, rocblas
    from rocm_backend.families import copies

    monkeypatch.setattr(rocblas, "launch_ew", mem.launch_ew)
    monkeypatch.setattr(copies, "launch_ew", mem.launch_ew)
    return mem, RocmBackend().device(0)


def _oracle(a, b):
    """The conformance oracle: explicit complex products, summed (complex128)."""
    with np.errstate(all="ignore"):
        return (a.astype(np.complex128)[..., :, :, None] * b.astype(np.complex128)[..., None, :, :]).sum(axis=-2)


def _check(got, expected, dtype):
    for part in (np.real, np.imag):
        g, e = part(got).astype(np.float64), part(expected)
        assert np.array_equal(np.isnan(g), np.isnan(e)), (got, expected)
        inf = np.isinf(e)
        assert np.array_equal(g[inf], e[inf]) and not np.isinf(g[~inf]).any(), (got, expected)
        fin = np.isfinite(e)
        eps = np.finfo(dt.real_dtype_of(dtype).numpy).eps
        np.testing.assert_allclose(g[fin], e[fin], rtol=0, atol=64 * eps * max(1.0, np.abs(e[fin]).max(initial=0)))


def _run(dev, dtype, host_a, a_layout, host_b, b_layout):
    a = dev.storage_from_host(host_a.reshape(-1))
    b = dev.storage_from_host(host_b.reshape(-1))
    out = a.matmul(b, a_layout, b_layout)
    *batch, m, _ = a_layout.shape
    shape = tuple(batch) + (m, b_layout.shape[-1])
    assert out.dtype is dtype and out.size == int(np.prod(shape))
    return out.to_host(Layout.contiguous(shape))


def _view(host, layout):
    item = host.itemsize
    flat = host.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[layout.offset:], layout.shape, [s * item for s in layout.strides])


@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128])
def test_infinities_follow_the_product_sum(mirror, dtype):
    """The GPU failure: K=1, a=-5.5+0.97j, b=inf-2.5j gives -inf+inf j, not nan+nan j."""
    _, dev = mirror
    t = dtype.numpy
    a = np.array([[-5.5 + 0.97j]], t)
    b = np.array([[complex(np.inf, -2.5)]], t)
    got = _run(dev, dtype, a, Layout.contiguous((1, 1)), b, Layout.contiguous((1, 1)))
    assert got[0, 0].real == -np.inf and got[0, 0].imag == np.inf
    rng = np.random.default_rng(1)
    a = (rng.normal(size=(3, 4, 5)) + 1j * rng.normal(size=(3, 4, 5))).astype(t)
    b = (rng.normal(size=(3, 5, 2)) + 1j * rng.normal(size=(3, 5, 2))).astype(t)
    a[0, 1, 2] = complex(np.inf, 1.0)
    a[1, 0, 0] = complex(0.0, -np.inf)
    b[1, 3, 1] = complex(np.nan, 0.0)
    b[2, 4, 0] = complex(np.inf, np.inf)
    a[2, 3, 4] = 0
    got = _run(dev, dtype, a, Layout.contiguous(a.shape), b, Layout.contiguous(b.shape))
    _check(got, _oracle(a, b), dtype)


LAYOUTS = {
    # name: (A storage shape, A layout, B storage shape, B layout); M=3, K=4, N=5
    "contiguous": ((2, 3, 4), Layout.contiguous((2, 3, 4)), (2, 4, 5), Layout.contiguous((2, 4, 5))),
    "A.T broadcast": ((4, 3), Layout((2, 3, 4), (0, 1, 3), 0), (2, 4, 5), Layout.contiguous((2, 4, 5))),
    "B.T": ((2, 3, 4), Layout.contiguous((2, 3, 4)), (2, 5, 4), Layout((2, 4, 5), (20, 1, 4), 0)),
    "B broadcast, offsets": ((2, 3, 5), Layout((2, 3, 4), (15, 5, 1), 1), (4, 6), Layout((2, 4, 5), (0, 6, 1), 1)),
    "negative and odd strides": ((2, 3, 8), Layout((2, 3, 4), (-24, 8, 2), 24), (2, 4, 5),
                                 Layout((2, 4, 5), (20, -5, 1), 15)),
    "2 batch dims, one broadcast": ((3, 1, 3, 4), Layout((3, 2, 3, 4), (12, 0, 4, 1), 0), (2, 5, 4),
                                    Layout((3, 2, 4, 5), (0, 20, 1, 4), 0)),
    "M = 1, N = 1": ((2, 1, 4), Layout.contiguous((2, 1, 4)), (2, 4, 1), Layout.contiguous((2, 4, 1))),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128])
def test_layouts_and_batches(mirror, dtype, name):
    _, dev = mirror
    a_shape, a_layout, b_shape, b_layout = LAYOUTS[name]
    rng = np.random.default_rng(2)
    t = dtype.numpy
    host_a = (rng.normal(size=a_shape) + 1j * rng.normal(size=a_shape)).astype(t)
    host_b = (rng.normal(size=b_shape) + 1j * rng.normal(size=b_shape)).astype(t)
    host_b.reshape(-1)[7] = complex(np.inf, 0.5)
    got = _run(dev, dtype, host_a, a_layout, host_b, b_layout)
    _check(got, _oracle(_view(host_a, a_layout), _view(host_b, b_layout)), dtype)


def test_launch_count_is_modest(mirror):
    """Row-major A and B: one copy (A's parts), one GEMM, two combines; A.T needs no copy."""
    mem, dev = mirror
    a = np.ones((8, 3, 4), np.complex64)
    b = np.ones((8, 4, 5), np.complex64)
    _run(dev, dt.complex64, a, Layout.contiguous(a.shape), b, Layout.contiguous(b.shape))
    assert [k[0] for k in mem.launches] == ["copy", "binary", "binary"]
    assert len(mem.gemms) == 1 and mem.gemms[0][-1] == 8
    mem.launches.clear()
    mem.gemms.clear()
    _run(dev, dt.complex64, a, Layout((8, 3, 4), (12, 1, 3), 0), b, Layout.contiguous(b.shape))
    assert [k[0] for k in mem.launches] == ["binary", "binary"] and len(mem.gemms) == 1


def test_real_matmul_path_is_unchanged(mirror):
    mem, dev = mirror
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 3, 4)).astype(np.float32)
    b = rng.normal(size=(4, 5)).astype(np.float32)
    got = _run(dev, dt.float32, a, Layout((2, 3, 4), (12, 1, 3), 0), b, Layout((2, 4, 5), (0, 5, 1), 0))
    np.testing.assert_allclose(got, np.swapaxes(a.reshape(2, 4, 3), -1, -2) @ b, rtol=1e-5)
    assert mem.launches == []


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64])
def test_a_product_made_again_keeps_its_gemm_arguments(mirror, dtype):
    """A real product of a dtype and layouts made before (a loop's) makes the first one's
    GEMM from the arguments kept then (rocblas.matmul's memo, per stream), each operand's
    own storage and offset read; another layout or dtype works its own out."""
    mem, dev = mirror
    rng = np.random.default_rng(5)
    a_shape, b_layout = Layout((6, 4), (1, 6), 0), Layout((4, 3), (5, 1), 0)  # a transposed lhs, a row-strided rhs
    for a_offset in (0, 7, 3):
        a = rng.normal(size=a_offset + 24).astype(dtype.numpy)
        b = rng.normal(size=20).astype(dtype.numpy)
        a_layout = Layout(a_shape.shape, a_shape.strides, a_offset)
        mem.gemms.clear()
        got = _run(dev, dtype, a, a_layout, b, b_layout)
        want = a[a_offset:].reshape(4, 6).T.astype(np.float64) @ b.reshape(4, 5)[:, :3]
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert len(mem.gemms) == 1
        if a_offset == 0:
            first = mem.gemms[0]
        assert mem.gemms[0] == first  # the same GEMM, from the kept arguments
    kept = [k for k in dev.launches if k[0] == "gemm"]
    assert kept == [("gemm", dtype.name, (6, 4), (1, 6), (4, 3), (5, 1), dev._current.stream.index)]
    mem.gemms.clear()
    _run(dev, dtype, np.ones(24, dtype.numpy), Layout.contiguous((6, 4)), np.ones(20, dtype.numpy), b_layout)
    assert mem.gemms[0][:2] != first[:2]  # another layout: its own transposes


@pytest.mark.parametrize("dtype", [dt.float32, dt.float64, dt.complex64])
def test_reversed_batches_reach_blas_with_positive_strides(mirror, dtype):
    """A batch axis running backwards is copied first: cuBLAS's float16 GEMMs read out of
    bounds with a negative batch stride (seen on the GPU), and no BLAS documents one."""
    mem, dev = mirror
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 4, (3, 4, 5)).astype(dtype.numpy)
    b = rng.integers(-3, 4, (3, 5, 2)).astype(dtype.numpy)
    got = _run(dev, dtype, a, Layout((3, 4, 5), (-20, 5, 1), 40), b, Layout((3, 5, 2), (-10, 1, 5), 20))
    want = _oracle(a[::-1], b.reshape(3, 2, 5)[::-1].transpose(0, 2, 1))
    np.testing.assert_array_equal(got.astype(np.complex128), want)
    assert mem.gemms and all(g[8] >= 0 and g[9] >= 0 for g in mem.gemms), mem.gemms

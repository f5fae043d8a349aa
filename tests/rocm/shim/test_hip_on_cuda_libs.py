"""The shim's hipBLAS (-> cuBLAS) and MIOpen (-> cuDNN) against NumPy.

hipBLAS goes through hip-python's bindings; MIOpen through a small ctypes
binding (tests/rocm/shim/miopen_ctypes.py), as the rocm backend's MIOpen use does.
"""

import ctypes as C

import numpy as np
import pytest

from .conftest import ok, status

pytestmark = pytest.mark.gpu

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)


def rng():
    return np.random.default_rng()


def rel_err(out, ref):
    out, ref = np.asarray(out, np.complex128), np.asarray(ref, np.complex128)
    return np.linalg.norm(out - ref) / np.linalg.norm(ref)


def to_device(hip, arr):
    arr = np.ascontiguousarray(arr)
    host = arr.view(np.uint16) if arr.dtype == BF16 else arr
    ptr = ok(hip.hipMalloc(max(arr.nbytes, 1)))
    ok(hip.hipMemcpyHtoD(ptr, host, arr.nbytes))
    return ptr


def from_device(hip, ptr, shape, dtype):
    dtype = np.dtype(dtype)
    out = np.empty(shape, np.uint16 if dtype == BF16 else dtype)
    ok(hip.hipMemcpyDtoH(out, ptr, out.nbytes))
    return out.view(dtype) if dtype == BF16 else out


# ---------------------------------------------------------------- hipBLAS


@pytest.fixture(scope="module")
def blas(hip, hipblas):
    handle = ok(hipblas.hipblasCreate())
    stream = ok(hip.hipStreamCreate())
    ok(hipblas.hipblasSetStream(handle, stream))
    assert int(ok(hipblas.hipblasGetStream(handle))) == int(stream)
    ok(hipblas.hipblasSetPointerMode(handle, hipblas.hipblasPointerMode_t.HIPBLAS_POINTER_MODE_HOST))
    yield handle, stream
    ok(hipblas.hipblasDestroy(handle))
    ok(hip.hipStreamDestroy(stream))


# dtype, hipDataType name, compute type name, scalar dtype, tolerance
GEMM_CASES = [
    (np.float16, "HIP_R_16F", "HIPBLAS_COMPUTE_32F", np.float32, 1e-2),
    (BF16, "HIP_R_16BF", "HIPBLAS_COMPUTE_32F", np.float32, 2e-2),
    (np.float32, "HIP_R_32F", "HIPBLAS_COMPUTE_32F", np.float32, 1e-5),
    (np.float64, "HIP_R_64F", "HIPBLAS_COMPUTE_64F", np.float64, 1e-12),
    (np.complex64, "HIP_C_32F", "HIPBLAS_COMPUTE_32F", np.complex64, 1e-5),
    (np.complex128, "HIP_C_64F", "HIPBLAS_COMPUTE_64F", np.complex128, 1e-12),
]


def random(shape, dtype):
    g = rng()
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype)
    return g.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype,dt,ct,scalar,tol", GEMM_CASES, ids=lambda v: str(v))
def test_gemm_strided_batched_ex_matches_numpy(hip, hipblas, blas, dtype, dt, ct, scalar, tol):
    handle, stream = blas
    batch, M, N, K = 3, 67, 45, 129
    a, b = random((batch, M, K), dtype), random((batch, K, N), dtype)
    c0 = random((batch, M, N), dtype)
    alpha, beta = np.array([1.5], scalar), np.array([-0.5], scalar)
    da, db, dc = to_device(hip, a), to_device(hip, b), to_device(hip, c0)
    T, HD, CT = hipblas.hipblasOperation_t, hip.hipDataType, hipblas.hipblasComputeType_t
    # row-major C = A @ B is column-major C^T = B^T @ A^T
    ok(hipblas.hipblasGemmStridedBatchedEx(
        handle, T.HIPBLAS_OP_N, T.HIPBLAS_OP_N, N, M, K, alpha,
        db, getattr(HD, dt), N, K * N, da, getattr(HD, dt), K, M * K, beta,
        dc, getattr(HD, dt), N, M * N, batch, getattr(CT, ct),
        hipblas.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT))
    ok(hip.hipStreamSynchronize(stream))
    out = from_device(hip, dc, (batch, M, N), dtype)
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    ref = 1.5 * (a.astype(wide) @ b.astype(wide)) - 0.5 * c0.astype(wide)
    assert rel_err(out, ref) < tol
    for p in (da, db, dc):
        ok(hip.hipFree(p))


def test_gemm_ex_and_transposes(hip, hipblas, blas):
    handle, stream = blas
    T = hipblas.hipblasOperation_t
    M, N, K = 33, 21, 17
    a, bt, c0 = random((M, K), np.float32), random((N, K), np.float32), random((N, M), np.float32)
    da, db, dc = to_device(hip, a), to_device(hip, bt), to_device(hip, c0)
    # column-major: A is K x M (op T -> M x K), Bt is K x N, C is M x N
    ok(hipblas.hipblasSgemm(handle, T.HIPBLAS_OP_T, T.HIPBLAS_OP_N, M, N, K,
                            np.array([2.0], np.float32), da, K, db, K,
                            np.array([0.5], np.float32), dc, M))
    ok(hip.hipStreamSynchronize(stream))
    out = from_device(hip, dc, (N, M), np.float32)
    ref = (2.0 * (a.astype(np.float64) @ bt.T.astype(np.float64))).T + 0.5 * c0
    assert rel_err(out, ref) < 1e-5
    ca, cb = random((M, K), np.complex64), random((N, K), np.complex64)
    dca, dcb, dcc = to_device(hip, ca), to_device(hip, cb), ok(hip.hipMalloc(M * N * 8))
    ok(hipblas.hipblasCgemm(handle, T.HIPBLAS_OP_C, T.HIPBLAS_OP_N, M, N, K,
                            np.array([1.0], np.complex64), dca, K, dcb, K,
                            np.array([0.0], np.complex64), dcc, M))
    ok(hip.hipStreamSynchronize(stream))
    out = from_device(hip, dcc, (N, M), np.complex64)
    ref = (np.conj(ca).astype(np.complex128) @ cb.T.astype(np.complex128)).T
    assert rel_err(out, ref) < 1e-5
    for p in (da, db, dc, dca, dcb, dcc):
        ok(hip.hipFree(p))


def test_hipblas_statuses(hip, hipblas, blas):
    handle, _ = blas
    T, HD, CT = hipblas.hipblasOperation_t, hip.hipDataType, hipblas.hipblasComputeType_t
    S = hipblas.hipblasStatus_t
    one = np.array([1.0], np.float32)
    err = hipblas.hipblasSgemm(handle, T.HIPBLAS_OP_N, T.HIPBLAS_OP_N, -1, 4, 4, one, None, 4,
                               None, 4, one, None, 4)
    assert status(err) == S.HIPBLAS_STATUS_INVALID_VALUE
    err = hipblas.hipblasGemmEx(handle, T.HIPBLAS_OP_N, T.HIPBLAS_OP_N, 4, 4, 4, one,
                                None, HD.HIP_R_8F_E4M3_FNUZ, 4, None, HD.HIP_R_8F_E4M3_FNUZ, 4, one,
                                None, HD.HIP_R_32F, 4, CT.HIPBLAS_COMPUTE_32F,
                                hipblas.hipblasGemmAlgo_t.HIPBLAS_GEMM_DEFAULT)
    assert status(err) == S.HIPBLAS_STATUS_NOT_SUPPORTED
    assert status(hipblas.hipblasDestroy(None)) == S.HIPBLAS_STATUS_HANDLE_IS_NULLPTR


# ---------------------------------------------------------------- MIOpen (ctypes)


def ref_conv(x, w, pad, stride, dil, groups):
    """Cross-correlation, NC + spatial layout, float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    span = [d * (kk - 1) + 1 for d, kk in zip(dil, k)]
    win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + nsp)))
    sl = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
    win = win[sl]
    win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in dil)]
    cg, kg = x.shape[1] // groups, w.shape[0] // groups
    outs = []
    letters = "hwd"[:nsp]
    for g in range(groups):
        xs = win[:, g * cg:(g + 1) * cg]
        ws = w[g * kg:(g + 1) * kg]
        spec = f"nc{letters}{letters.upper()},kc{letters.upper()}->nk{letters}"
        outs.append(np.einsum(spec, xs, ws))
    return np.concatenate(outs, axis=1)


def ref_conv_transpose(x, w, pad, stride):
    """2-D transposed convolution (the adjoint of ref_conv), w: [Cin, Cout, kh, kw]."""
    n, cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    full = np.zeros((n, cout, (h - 1) * stride[0] + kh, (wd - 1) * stride[1] + kw))
    for i in range(h):
        for j in range(wd):
            contrib = np.einsum("nc,cokl->nokl", x[:, :, i, j].astype(np.float64), w)
            full[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += contrib
    return full[:, :, pad[0]:full.shape[2] - pad[0], pad[1]:full.shape[3] - pad[1]]


class MI:
    """Owns a MIOpen handle and frees what a test creates."""

    def __init__(self, lib, hip):
        self.lib, self.hip = lib, hip
        self.handle = C.c_void_p()
        self.call("miopenCreate", C.byref(self.handle))
        self.stream = ok(hip.hipStreamCreate())
        self.call("miopenSetStream", self.handle, C.c_void_p(int(self.stream)))
        self.freed = []

    def call(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        assert rc == 0, f"{name}: {self.lib.miopenGetErrorString(rc).decode()}"

    def tensor(self, dtype, shape):
        d = C.c_void_p()
        self.call("miopenCreateTensorDescriptor", C.byref(d))
        dims = (C.c_int * len(shape))(*shape)
        strides = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1]
        st = (C.c_int * len(shape))(*[int(s) for s in strides])
        self.call("miopenSetTensorDescriptor", d, dtype, len(shape), dims, st)
        return d

    def close(self):
        self.call("miopenDestroy", self.handle)
        ok(self.hip.hipStreamDestroy(self.stream))


MIOPEN_TYPES = [(np.float32, 1, 1e-5), (np.float64, 6, 1e-12), (np.float16, 0, 1e-2),
                (BF16, 5, 2e-2)]


@pytest.fixture
def mi(miopen, hip):
    m = MI(miopen, hip)
    yield m
    m.close()


def vp(pointer):
    """A device pointer (or None) as the c_void_p MIOpen's entry points take."""
    return C.c_void_p(int(pointer) if pointer is not None else 0)


class ConvProblem:
    """One MIOpen convolution of x with w set up on the device: descriptors (xd, wd, cd, yd),
    the output ``shape``, the workspace GetWorkSpaceSize asks for (``ws``, ``ws_size``) and
    x, w uploaded (``dx``, ``dw``). ``close()`` frees all of it."""

    def __init__(self, mi, hip, x, w, pad, stride, dil, groups, mtype, mode):
        self.mi, self.hip = mi, hip
        self.xd, self.wd = mi.tensor(mtype, x.shape), mi.tensor(mtype, w.shape)
        self.cd = C.c_void_p()
        mi.call("miopenCreateConvolutionDescriptor", C.byref(self.cd))
        nsp = x.ndim - 2
        arr = lambda v: (C.c_int * nsp)(*v)  # noqa: E731
        mi.call("miopenInitConvolutionNdDescriptor", self.cd, nsp, arr(pad), arr(stride), arr(dil), mode)
        mi.call("miopenSetConvolutionGroupCount", self.cd, groups)
        nd, dims = C.c_int(), (C.c_int * 8)()
        mi.call("miopenGetConvolutionNdForwardOutputDim", self.cd, self.xd, self.wd, C.byref(nd), dims)
        self.shape = tuple(dims[: nd.value])
        self.yd = mi.tensor(mtype, self.shape)
        size = C.c_size_t()
        mi.call("miopenConvolutionForwardGetWorkSpaceSize", mi.handle, self.wd, self.xd, self.cd, self.yd,
                C.byref(size))
        self.ws_size = size.value
        self.ws = ok(hip.hipMalloc(self.ws_size)) if self.ws_size else None
        self.dx, self.dw = to_device(hip, x), to_device(hip, w)

    def find(self, y):
        """miopenFindConvolutionForwardAlgorithm with ``y`` as the output; the best perf entry."""
        perf, count = (self.mi.lib.binding.ConvAlgoPerf * 4)(), C.c_int()
        self.mi.call("miopenFindConvolutionForwardAlgorithm", self.mi.handle, self.xd, vp(self.dx), self.wd,
                     vp(self.dw), self.cd, self.yd, vp(y), 4, C.byref(count), perf, vp(self.ws), self.ws_size,
                     False)
        assert count.value >= 1 and perf[0].fwd_algo in (0, 1, 2, 3, 5)
        return perf[0]

    def forward(self, y, algo, ws_size):
        one, zero = C.c_float(1.0), C.c_float(0.0)
        self.mi.call("miopenConvolutionForward", self.mi.handle, C.byref(one), self.xd, vp(self.dx), self.wd,
                     vp(self.dw), self.cd, algo, C.byref(zero), self.yd, vp(y), vp(self.ws), ws_size)
        ok(self.hip.hipStreamSynchronize(self.mi.stream))

    def close(self):
        for p in (self.dx, self.dw, self.ws):
            if p is not None:
                ok(self.hip.hipFree(p))
        for d in (self.xd, self.wd, self.yd):
            self.mi.call("miopenDestroyTensorDescriptor", d)
        self.mi.call("miopenDestroyConvolutionDescriptor", self.cd)


def run_conv(mi, hip, x, w, pad, stride, dil, groups, mtype, mode=0):
    prob = ConvProblem(mi, hip, x, w, pad, stride, dil, groups, mtype, mode)
    dy = ok(hip.hipMalloc(int(np.prod(prob.shape)) * x.dtype.itemsize))
    best = prob.find(dy)
    prob.forward(dy, best.fwd_algo, prob.ws_size)
    out = from_device(hip, dy, prob.shape, x.dtype)
    ok(hip.hipFree(dy))
    prob.close()
    return out


@pytest.mark.parametrize("dtype,mtype,tol", MIOPEN_TYPES, ids=lambda v: str(v))
def test_conv2d_find_then_forward(mi, hip, dtype, mtype, tol):
    x, w = random((2, 4, 9, 11), dtype), random((6, 2, 3, 3), dtype)
    out = run_conv(mi, hip, x, w, (1, 1), (2, 2), (1, 1), 2, mtype)
    ref = ref_conv(x, w, (1, 1), (2, 2), (1, 1), 2)
    assert out.shape == ref.shape
    assert rel_err(out, ref) < tol


def test_conv1d_dilated_through_nd_descriptors(mi, hip):
    x, w = random((2, 3, 50), np.float32), random((5, 3, 4), np.float32)
    out = run_conv(mi, hip, x, w, (2,), (1,), (2,), 1, 1)
    ref = ref_conv(x, w, (2,), (1,), (2,), 1)
    assert out.shape == ref.shape and rel_err(out, ref) < 1e-5


def test_conv_transpose2d(mi, hip):
    x, w = random((1, 4, 5, 5), np.float32), random((4, 3, 3, 3), np.float32)
    out = run_conv(mi, hip, x, w, (1, 1), (2, 2), (1, 1), 1, 1, mode=1)
    ref = ref_conv_transpose(x, w, (1, 1), (2, 2))
    assert out.shape == ref.shape and rel_err(out, ref) < 1e-5


def ref_pool(x, mode, k, pad, stride):
    x = x.astype(np.float64)
    fill = -np.inf if mode == 0 else 0.0
    xp = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])], constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), [(pad[0], pad[0]), (pad[1], pad[1])])
    win = np.lib.stride_tricks.sliding_window_view(xp, k, axis=(2, 3))[:, :, ::stride[0], ::stride[1]]
    cnt = np.lib.stride_tricks.sliding_window_view(ones, k)[::stride[0], ::stride[1]].sum(axis=(2, 3))
    if mode == 0:
        return win.max(axis=(4, 5))
    total = win.sum(axis=(4, 5))
    return total / cnt if mode == 1 else total / (k[0] * k[1])


@pytest.mark.parametrize("mode", [0, 1, 2], ids=["max", "avg_exclude_pad", "avg_include_pad"])
@pytest.mark.parametrize("dtype,mtype,tol", MIOPEN_TYPES[:3], ids=lambda v: str(v))
def test_pooling_forward(mi, hip, mode, dtype, mtype, tol):
    x = random((2, 3, 10, 9), dtype)
    k, pad, stride = (3, 3), (1, 1), (2, 2)
    pool = C.c_void_p()
    mi.call("miopenCreatePoolingDescriptor", C.byref(pool))
    mi.call("miopenSet2dPoolingDescriptor", pool, mode, *k, *pad, *stride)
    mi.call("miopenSetPoolingIndexType", pool, 2)
    mi.call("miopenSetPoolingWorkSpaceIndexMode", pool, 1)
    xd = mi.tensor(mtype, x.shape)
    n, c, h, w = C.c_int(), C.c_int(), C.c_int(), C.c_int()
    mi.call("miopenGetPoolingForwardOutputDim", pool, xd, *(C.byref(v) for v in (n, c, h, w)))
    shape = (n.value, c.value, h.value, w.value)
    ref = ref_pool(x, mode, k, pad, stride)
    assert shape == ref.shape
    yd = mi.tensor(mtype, shape)
    ws = C.c_size_t()
    mi.call("miopenPoolingGetWorkSpaceSizeV2", pool, yd, C.byref(ws))
    dx, dy = to_device(hip, x), ok(hip.hipMalloc(int(np.prod(shape)) * x.dtype.itemsize))
    one, zero = C.c_float(1.0), C.c_float(0.0)
    mi.call("miopenPoolingForward", mi.handle, pool, C.byref(one), xd, C.c_void_p(int(dx)),
            C.byref(zero), yd, C.c_void_p(int(dy)), False, None, 0)
    ok(hip.hipStreamSynchronize(mi.stream))
    out = from_device(hip, dy, shape, x.dtype)
    assert rel_err(out, ref) < tol
    rc = mi.lib.miopenPoolingForward(mi.handle, pool, C.byref(one), xd, C.c_void_p(int(dx)),
                                     C.byref(zero), yd, C.c_void_p(int(dy)), True, None, 0)
    assert rc == 6  # do_backward (index workspace) is not forwarded: NotImplemented
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dy))
    for d in (xd, yd):
        mi.call("miopenDestroyTensorDescriptor", d)
    mi.call("miopenDestroyPoolingDescriptor", pool)


def test_miopen_unsupported_type_is_not_implemented(mi, hip):
    xd, wd, yd = mi.tensor(2, (1, 1, 4, 4)), mi.tensor(2, (1, 1, 3, 3)), mi.tensor(2, (1, 1, 2, 2))
    conv = C.c_void_p()
    mi.call("miopenCreateConvolutionDescriptor", C.byref(conv))
    mi.call("miopenInitConvolutionDescriptor", conv, 0, 0, 0, 1, 1, 1, 1)
    size = C.c_size_t()
    rc = mi.lib.miopenConvolutionForwardGetWorkSpaceSize(mi.handle, wd, xd, conv, yd, C.byref(size))
    assert rc == 6  # int32 convolution: miopenStatusNotImplemented
    assert mi.lib.miopenGetErrorString(rc) == b"miopenStatusNotImplemented"

"""The rocm linalg and fft op families end to end on the CPU: host_exec runs the backend's
own kernels (copies, transposes, where, compares, reductions) on host memory, and the
library calls go to a model of hipSOLVER / hipBLAS's batched LU / hipFFT that computes
with LAPACK (scipy.linalg.lapack, column-major like hipSOLVER) and numpy.fft on the same
memory through the addresses the backend passes. What this checks is the backend's side:
the column-major/row-major readings, leading dimensions, batch strides, pointer arrays,
plan layouts and the composition of det/slogdet/triangles; that the real libraries
compute the same is for the GPU runs (bench/results)."""

import ctypes
import sys
import types

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, UnaryOp
from host_exec import build, device_factory
from rocm_backend import ops

lapack = pytest.importorskip("scipy.linalg.lapack")

DTYPES = (dt.float64, dt.complex128)
_NP = {"S": np.float32, "D": np.float64, "C": np.complex64, "Z": np.complex128}
OK = (0,)


def _wanted(spec):
    k = spec.key
    fam = k[0]
    if fam in ("copy", "where", "transpose", "fill"):
        return True
    if fam == "arange":
        return k[1] in (dt.int64, dt.int32)
    if fam == "compare":
        return k[2] in (dt.int64, dt.int32) and k[1] in (CompareOp.GREATER_EQUAL, CompareOp.LESS_EQUAL,
                                                           CompareOp.NOT_EQUAL)
    if fam == "astype":
        return k[1] is dt.bool_ and k[2] in DTYPES
    if fam == "binary":
        return k[2] in DTYPES and k[1] in (BinaryOp.MULTIPLY, BinaryOp.ADD)
    if fam == "unary":
        return k[2] in DTYPES and k[1] in (UnaryOp.SIGN, UnaryOp.ABS, UnaryOp.LOG, UnaryOp.CONJ)
    if fam == "reduce":
        return k[3] in DTYPES and k[2] in (ReduceOp.PROD, ReduceOp.SUM)
    return False


def _mem(addr, count, np_dtype):
    """``count`` elements at ``addr`` as a writable numpy array (host_exec's device memory)."""
    item = np.dtype(np_dtype).itemsize
    return np.frombuffer((ctypes.c_char * (count * item)).from_address(int(addr)), np_dtype)


def _colmajor(addr, rows, cols, ld, np_dtype):
    """The rows x cols column-major matrix at addr (leading dimension ld), as a view."""
    flat = _mem(addr, ld * (cols - 1) + rows, np_dtype)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (flat.itemsize, ld * flat.itemsize))


def _solver_module():
    mod = types.ModuleType("hip.hipsolver")
    mod.hipsolverFillMode_t = types.SimpleNamespace(HIPBLAS_FILL_MODE_UPPER=121, HIPBLAS_FILL_MODE_LOWER=122)
    mod.hipsolverOperation_t = types.SimpleNamespace(HIPBLAS_OP_N=111, HIPBLAS_OP_T=112, HIPBLAS_OP_C=113)
    mod.hipsolverEigMode_t = types.SimpleNamespace(HIPSOLVER_EIG_MODE_VECTOR=202)
    mod.hipsolverCreate = lambda: (0, "solver-handle")
    mod.hipsolverSetStream = lambda h, s: OK
    mod.hipsolverCreateSyevjInfo = lambda: (0, "syevj-info")
    mod.hipsolverCreateGesvdjInfo = lambda: (0, "gesvdj-info")
    for p, t in _NP.items():
        lp = p.lower()
        cplx = p in "CZ"

        def size(*a):
            return (0, 1)

        def getrf(h, m, n, A, lda, work, lwork, ipiv, info, lp=lp, t=t):
            a = _colmajor(A, m, n, lda, t)
            lu, piv, inf = getattr(lapack, lp + "getrf")(np.array(a, order="F"))
            a[...] = lu
            _mem(ipiv, min(m, n), np.int32)[:] = piv + 1
            _mem(info, 1, np.int32)[0] = inf
            return OK

        def getrs(h, trans, n, k, A, lda, ipiv, B, ldb, work, lwork, info, lp=lp, t=t):
            lu = np.array(_colmajor(A, n, n, lda, t), order="F")
            b = _colmajor(B, n, k, ldb, t)
            x, inf = getattr(lapack, lp + "getrs")(lu, _mem(ipiv, n, np.int32) - 1, np.array(b, order="F"),
                                                   trans=trans - 111)
            b[...] = x
            return OK

        def potrf(h, uplo, n, A, lda, work, lwork, info, lp=lp, t=t):
            a = _colmajor(A, n, n, lda, t)
            c, inf = getattr(lapack, lp + "potrf")(np.array(a, order="F"), lower=uplo == 122, clean=0)
            a[...] = c
            _mem(info, 1, np.int32)[0] = inf
            return OK

        def potrf_batched(h, uplo, n, ptrs, lda, work, lwork, info, batch, potrf=potrf):
            for i, addr in enumerate(_mem(ptrs, batch, np.int64)):
                potrf(h, uplo, n, addr, lda, work, lwork, info + 4 * i)
            return OK

        def geqrf(h, m, n, A, lda, tau, work, lwork, info, lp=lp, t=t):
            a = _colmajor(A, m, n, lda, t)
            qr, tu, _, inf = getattr(lapack, lp + "geqrf")(np.array(a, order="F"))
            a[...] = qr
            _mem(tau, min(m, n), t)[:] = tu
            return OK

        def orgqr(h, m, n, k, A, lda, tau, work, lwork, info, lp=lp, t=t, cplx=cplx):
            a = _colmajor(A, m, n, lda, t)
            q, _, inf = getattr(lapack, lp + ("ungqr" if cplx else "orgqr"))(np.array(a, order="F"),
                                                                              np.array(_mem(tau, k, t)))
            a[...] = q
            return OK

        def gesvd(h, ju, jv, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, rwork, info, t=t):
            a = np.array(_colmajor(A, m, n, lda, t))
            u, s, vh = np.linalg.svd(a, full_matrices=chr(ju) == "A")
            k = min(m, n)
            _mem(S, k, s.dtype)[:] = s
            _colmajor(U, m, u.shape[1], ldu, t)[...] = u
            _colmajor(V, n, n, ldv, t)[...] = vh  # jobv 'A': all n rows of V^H
            _mem(info, 1, np.int32)[0] = 0
            return OK

        def syevd(h, jobz, uplo, n, A, lda, W, work, lwork, info, t=t):
            a = _colmajor(A, n, n, lda, t)
            w, v = np.linalg.eigh(np.array(a), UPLO="L" if uplo == 122 else "U")
            _mem(W, n, w.dtype)[:] = w
            a[...] = v
            _mem(info, 1, np.int32)[0] = 0
            return OK

        def syevj_batched(h, jobz, uplo, n, A, lda, W, work, lwork, info, params, batch, t=t, syevd=syevd):
            item, ritem = np.dtype(t).itemsize, np.dtype(t).itemsize // (2 if np.dtype(t).kind == "c" else 1)
            for i in range(batch):
                syevd(h, jobz, uplo, n, A + i * lda * n * item, lda, W + i * n * ritem, work, lwork, info + 4 * i)
            return OK

        def gesvdj_batched(h, jobz, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params, batch, t=t):
            item = np.dtype(t).itemsize
            k = min(m, n)
            for i in range(batch):
                a = np.array(_colmajor(A + i * lda * n * item, m, n, lda, t))
                u, s, vh = np.linalg.svd(a)
                _mem(S + i * k * item // (2 if np.dtype(t).kind == "c" else 1), k, s.dtype)[:] = s
                _colmajor(U + i * ldu * m * item, m, m, ldu, t)[...] = u
                _colmajor(V + i * ldv * n * item, n, n, ldv, t)[...] = vh.conj().T
                _mem(info + 4 * i, 1, np.int32)[0] = 0
            return OK

        names = {"getrf": getrf, "getrs": getrs, "potrf": potrf, "potrfBatched": potrf_batched, "geqrf": geqrf,
                 ("ungqr" if cplx else "orgqr"): orgqr, "gesvd": gesvd, ("heevd" if cplx else "syevd"): syevd,
                 ("heevjBatched" if cplx else "syevjBatched"): syevj_batched, "gesvdjBatched": gesvdj_batched}
        for name, fn in names.items():
            setattr(mod, f"hipsolver{p}{name}", fn)
            setattr(mod, f"hipsolver{p}{name}_bufferSize", size)
    return mod


def _blas_lu(mod, solver):
    for p, t in _NP.items():
        def getrf_batched(h, n, ptrs, lda, ipiv, info, batch, p=p):
            for i, addr in enumerate(_mem(ptrs, batch, np.int64)):
                getattr(solver, f"hipsolver{p}getrf")(None, n, n, addr, lda, 0, 0, ipiv + 4 * n * i, info + 4 * i)
            return OK

        def getrs_batched(h, trans, n, k, a_ptrs, lda, ipiv, b_ptrs, ldb, info, batch, p=p):
            for i, (a, b) in enumerate(zip(_mem(a_ptrs, batch, np.int64), _mem(b_ptrs, batch, np.int64))):
                getattr(solver, f"hipsolver{p}getrs")(None, trans, n, k, a, lda, ipiv + 4 * n * i, b, ldb, 0, 0, 0)
            return OK

        setattr(mod, f"hipblas{p}getrfBatched", getrf_batched)
        setattr(mod, f"hipblas{p}getrsBatched", getrs_batched)
    mod.hipblasOperation_t = types.SimpleNamespace(HIPBLAS_OP_N=111, HIPBLAS_OP_T=112)


def _fft_module():
    mod = types.ModuleType("hip.hipfft")
    mod.HIPFFT_FORWARD, mod.HIPFFT_BACKWARD = -1, 1
    mod.hipfftType_t = types.SimpleNamespace(**{f"HIPFFT_{k}": k for k in ("C2C", "Z2Z", "R2C", "D2Z", "C2R", "Z2D")})
    mod.hipfftPlanMany = lambda rank, n, inembed, istride, idist, onembed, ostride, odist, kind, batch: (
        0, (kind, n[0], inembed[0], istride, idist, onembed[0], ostride, odist, batch))
    mod.hipfftSetStream = lambda plan, s: OK
    mod.hipfftDestroy = lambda plan: OK
    types_of = {"C2C": (np.complex64, np.complex64), "Z2Z": (np.complex128, np.complex128),
                "R2C": (np.float32, np.complex64), "D2Z": (np.float64, np.complex128),
                "C2R": (np.complex64, np.float32), "Z2D": (np.complex128, np.float64)}

    def run(plan, src, dst, direction=None):
        kind, n, n_in, istride, idist, n_out, ostride, odist, batch = plan
        ti, to = types_of[kind]
        inp = _mem(src, (batch - 1) * idist + (n_in - 1) * istride + 1, ti)
        out = _mem(dst, (batch - 1) * odist + (n_out - 1) * ostride + 1, to)
        for b in range(batch):
            x = inp[b * idist + np.arange(n_in) * istride]
            if kind in ("C2C", "Z2Z"):
                y = np.fft.fft(x) if direction == -1 else np.fft.ifft(x) * n
            elif kind in ("R2C", "D2Z"):
                y = np.fft.rfft(x)
            else:
                y = np.fft.irfft(x, n) * n
            out[b * odist + np.arange(n_out) * ostride] = y
        return OK

    for kind in types_of:
        if kind in ("C2C", "Z2Z"):
            setattr(mod, f"hipfftExec{kind}", lambda plan, s, d, direction: run(plan, s, d, direction))
        else:
            setattr(mod, f"hipfftExec{kind}", lambda plan, s, d: run(plan, s, d))
    return mod


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if _wanted(s)]
    return build(tmp_path_factory.mktemp("linalg_fft_exec"), ["transpose.hip", "reduce.hip"], specs)


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    from rocm_backend import fft as rfft
    from rocm_backend import linalg_common, linalg_spectral, solver_fft_calls

    rt, dev = device_factory(lib, monkeypatch, tmp_path)()
    solver = _solver_module()
    _blas_lu(rt.hipblas, solver)
    rt.hipblas.hipblasCreate = lambda: (0, "blas-handle")
    monkeypatch.setattr(solver_fft_calls, "_modules", {"hipsolver": solver, "hipfft": _fft_module(),
                                                       "hipblas": rt.hipblas})
    monkeypatch.setattr(linalg_common, "_handles", {})
    monkeypatch.setattr(linalg_spectral, "_params", {})
    monkeypatch.setattr(rfft, "_caches", {})
    return dev


def _h(m):
    return np.conj(np.swapaxes(m, -1, -2))


def _strided(dev, a):
    """``a`` uploaded as a transposed view with an offset (a non-contiguous layout)."""
    buf = np.zeros(a.size + 3, a.dtype)
    t = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    buf[3:] = t.reshape(-1)
    s = dev.storage_from_host(buf)
    shape = t.shape
    strides = list(Layout.contiguous(shape).strides)
    strides[-1], strides[-2] = strides[-2], strides[-1]
    return s, Layout(shape[:-2] + (shape[-1], shape[-2]), tuple(strides), 3)


def _random(rng, dtype, shape):
    m = rng.standard_normal(shape)
    return (m + 1j * rng.standard_normal(shape) if dtype.is_complex else m).astype(dtype.numpy)


def _read(s, shape):
    return s.to_host(Layout.contiguous(shape))


@pytest.mark.parametrize("batch", [(), (3,)], ids=["one", "batched"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_decompositions_and_solves(device, dtype, batch):
    rng = np.random.default_rng(1)
    n = 5
    a = _random(rng, dtype, batch + (n, n)) + 3 * n * np.eye(n)
    s, lay = _strided(device, a)
    x = _read(s.inv(lay), batch + (n, n))
    np.testing.assert_allclose(a @ x, np.broadcast_to(np.eye(n), a.shape), atol=1e-10)
    b = _random(rng, dtype, batch + (n, 2))
    r, r_lay = _strided(device, b)
    np.testing.assert_allclose(a @ _read(s.solve(lay, r, r_lay), batch + (n, 2)), b, atol=1e-10)
    np.testing.assert_allclose(_read(s.det(lay), batch), np.linalg.det(a), rtol=1e-10)
    sign, logabs = s.slogdet(lay)
    ref_sign, ref_log = np.linalg.slogdet(a)
    np.testing.assert_allclose(_read(sign, batch), ref_sign, rtol=1e-10)
    np.testing.assert_allclose(_read(logabs, batch), ref_log, rtol=1e-10)
    spd = a @ _h(a)
    p, p_lay = _strided(device, spd)
    for upper in (False, True):
        f = _read(p.cholesky(p_lay, upper), batch + (n, n))
        np.testing.assert_allclose(f, _h(np.linalg.cholesky(spd)) if upper else np.linalg.cholesky(spd),
                                   atol=1e-10)
    herm = (a + _h(a)) / 2
    e, e_lay = _strided(device, herm)
    w_s, v_s = e.eigh(e_lay)
    w, v = _read(w_s, batch + (n,)), _read(v_s, batch + (n, n))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(herm), atol=1e-10)
    np.testing.assert_allclose(herm @ v, v * w[..., None, :], atol=1e-9)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 6, 4), (3, 4, 6)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_qr_and_svd(device, dtype, shape):
    rng = np.random.default_rng(2)
    a = _random(rng, dtype, shape)
    s, lay = _strided(device, a)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    for complete in (False, True):
        q_s, r_s = s.qr(lay, complete)
        kq = m if complete else k
        q, r = _read(q_s, batch + (m, kq)), _read(r_s, batch + (kq, n))
        np.testing.assert_allclose(q @ r, a, atol=1e-10)
        np.testing.assert_allclose(_h(q) @ q, np.broadcast_to(np.eye(kq), batch + (kq, kq)), atol=1e-10)
        assert (np.tril(r, -1) == 0).all()
    for full in (False, True):
        u_s, sv_s, vh_s = s.svd(lay, full)
        u = _read(u_s, batch + (m, m if full else k))
        sv = _read(sv_s, batch + (k,))
        vh = _read(vh_s, batch + (n if full else k, n))
        np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-10)
        np.testing.assert_allclose((u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :], a, atol=1e-10)


def test_singular_and_not_positive_definite_raise(device):
    s = device.storage_from_host(np.array([1.0, 2.0, 2.0, 4.0]))
    lay = Layout.contiguous((2, 2))
    with pytest.raises(LinAlgError, match="singular"):
        s.inv(lay)
    with pytest.raises(LinAlgError, match="positive definite"):
        device.storage_from_host(-np.eye(3).reshape(-1)).cholesky(Layout.contiguous((3, 3)), False)
    sign, logabs = s.slogdet(lay)
    assert _read(sign, ()) == 0 and _read(logabs, ()) == -np.inf


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_fft_rfft_irfft_on_views(device, axis):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 4)) + 1j * rng.standard_normal((3, 5, 4))
    s, lay = _strided(device, x)  # x as a transposed view of its storage, offset 3
    for inverse in (False, True):
        got = _read(s.fft(lay, axis, inverse), x.shape)
        n = x.shape[axis]
        want = np.fft.ifft(x, axis=axis) * n if inverse else np.fft.fft(x, axis=axis)
        np.testing.assert_allclose(got, want, atol=1e-10)
    real = np.ascontiguousarray(x.real)
    rs, rlay = _strided(device, real)
    spec_shape = list(real.shape)
    spec_shape[axis] = real.shape[axis] // 2 + 1
    spec = _read(rs.rfft(rlay, axis), tuple(spec_shape))
    np.testing.assert_allclose(spec, np.fft.rfft(real, axis=axis), atol=1e-10)
    n = real.shape[axis]
    half, half_lay = _strided(device, np.ascontiguousarray(spec))
    back = half.irfft(half_lay, axis, n)
    np.testing.assert_allclose(_read(back, real.shape), real * n, atol=1e-9)
    # a shorter half spectrum is zero-padded, as numpy.fft.irfft does
    short = device.storage_from_host(np.ascontiguousarray(spec))
    longer = short.irfft(Layout.contiguous(tuple(spec_shape)), axis, 2 * n + 3)
    out_shape = list(real.shape)
    out_shape[axis] = 2 * n + 3
    np.testing.assert_allclose(_read(longer, tuple(out_shape)), np.fft.irfft(spec, 2 * n + 3, axis=axis) * (2 * n + 3),
                               atol=1e-9)

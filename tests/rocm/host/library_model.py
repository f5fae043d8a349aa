"""A model of hipSOLVER, hipBLAS's batched LU, GEMM and trsm, and hipFFT for tests on the CPU: each call
computes with LAPACK (scipy.linalg.lapack, column-major as hipSOLVER) or numpy.fft on the
memory at the addresses it is given (host_exec's "device" memory is host memory), with
hip-python's calling conventions (status first in the returned tuple; enums as plain
ints). It models the arguments' meaning, not the libraries' numerics or errors beyond
``info``."""

import ctypes
import types

import numpy as np
from scipy.linalg import lapack

OK = (0,)
_NP = {"S": np.float32, "D": np.float64, "C": np.complex64, "Z": np.complex128}


def _mem(addr, count, np_dtype):
    """``count`` elements at ``addr`` as a writable numpy array (host_exec's device memory)."""
    item = np.dtype(np_dtype).itemsize
    return np.frombuffer((ctypes.c_char * (count * item)).from_address(int(addr)), np_dtype)


def _colmajor(addr, rows, cols, ld, np_dtype):
    """The rows x cols column-major matrix at addr (leading dimension ld), as a view."""
    flat = _mem(addr, ld * (cols - 1) + rows, np_dtype)
    return np.lib.stride_tricks.as_strided(flat, (rows, cols), (flat.itemsize, ld * flat.itemsize))


def solver_module():
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

        def gesvdj(h, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params, t=t):
            """One matrix; ``fake_gesvdj_info`` (a module attribute) sets its info (non-convergence)."""
            a = np.array(_colmajor(A, m, n, lda, t))
            u, s, vh = np.linalg.svd(a, full_matrices=not econ)
            _mem(S, min(m, n), s.dtype)[:] = s
            _colmajor(U, m, u.shape[1], ldu, t)[...] = u
            _colmajor(V, n, vh.shape[0], ldv, t)[...] = vh.conj().T
            _mem(info, 1, np.int32)[0] = getattr(mod, "fake_gesvdj_info", 0)
            return OK

        names = {"getrf": getrf, "getrs": getrs, "potrf": potrf, "potrfBatched": potrf_batched, "geqrf": geqrf,
                 ("ungqr" if cplx else "orgqr"): orgqr, "gesvd": gesvd, ("heevd" if cplx else "syevd"): syevd,
                 ("heevjBatched" if cplx else "syevjBatched"): syevj_batched, "gesvdjBatched": gesvdj_batched,
                 "gesvdj": gesvdj}
        for name, fn in names.items():
            setattr(mod, f"hipsolver{p}{name}", fn)
            setattr(mod, f"hipsolver{p}{name}_bufferSize", size)
    return mod


def add_blas_lu(mod, solver):
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


_GEMM_TYPES = {"HIP_R_32F": np.float32, "HIP_R_64F": np.float64}


def add_blas_gemm(hip, hipblas):
    """hipblasGemmStridedBatchedEx (real types) on host memory, column-major, with the
    enums hipBLAS's binding reads (plain strings here)."""
    hip.hipDataType = types.SimpleNamespace(**{n: n for n in _GEMM_TYPES})
    hipblas.hipblasComputeType_t = types.SimpleNamespace(HIPBLAS_COMPUTE_32F="32F", HIPBLAS_COMPUTE_64F="64F")
    hipblas.hipblasOperation_t = types.SimpleNamespace(HIPBLAS_OP_N="N", HIPBLAS_OP_T="T")
    hipblas.hipblasGemmAlgo_t = types.SimpleNamespace(HIPBLAS_GEMM_DEFAULT="default")

    def gemm(h, ta, tb, m, n, k, alpha, a, atype, lda, sa, b, btype, ldb, sb, beta, c, ctype, ldc, sc, count,
             compute, algo):
        t = _GEMM_TYPES[atype]
        item = np.dtype(t).itemsize
        for i in range(count):
            opa = _colmajor(a + i * sa * item, *((m, k) if ta == "N" else (k, m)), lda, t)
            opb = _colmajor(b + i * sb * item, *((k, n) if tb == "N" else (n, k)), ldb, t)
            with np.errstate(all="ignore"):  # IEEE, as the GPU's: NaN and inf without a warning
                prod = (opa if ta == "N" else opa.T) @ (opb if tb == "N" else opb.T)
            _colmajor(c + i * sc * item, m, n, ldc, t)[...] = prod  # alpha 1, beta 0: the binding's
        return OK

    hipblas.hipblasGemmStridedBatchedEx = gemm


def add_blas_trsm(hipblas):
    """hipblas{S,D}trsm (op N, non-unit diagonal) on host memory, column-major, in place
    on B, through BLAS's own trsm (IEEE arithmetic: a zero on the diagonal gives
    infinities, not an error); only A's named triangle is read. Install ``add_blas_gemm``
    first: it sets the hipblasOperation_t enum this one checks."""
    from scipy.linalg import blas

    hipblas.hipblasSideMode_t = types.SimpleNamespace(HIPBLAS_SIDE_LEFT="L", HIPBLAS_SIDE_RIGHT="R")
    hipblas.hipblasFillMode_t = types.SimpleNamespace(HIPBLAS_FILL_MODE_UPPER="U", HIPBLAS_FILL_MODE_LOWER="Lo")
    hipblas.hipblasDiagType_t = types.SimpleNamespace(HIPBLAS_DIAG_NON_UNIT="NU", HIPBLAS_DIAG_UNIT="U")
    for p in "SD":
        def trsm(h, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb, p=p):
            assert trans == hipblas.hipblasOperation_t.HIPBLAS_OP_N and diag == "NU", (trans, diag)
            t = _NP[p]
            k = m if side == "L" else n
            rhs = _colmajor(b, m, n, ldb, t)
            rhs[...] = getattr(blas, f"{p.lower()}trsm")(_mem(alpha, 1, t)[0], np.array(_colmajor(a, k, k, lda, t)),
                                                         np.array(rhs), side=int(side == "R"), lower=int(uplo == "Lo"))
            return OK

        setattr(hipblas, f"hipblas{p}trsm", trsm)


def fft_module():
    mod = types.ModuleType("hip.hipfft")
    mod.HIPFFT_FORWARD, mod.HIPFFT_BACKWARD = -1, 1
    mod.hipfftType_t = types.SimpleNamespace(**{f"HIPFFT_{k}": k for k in ("C2C", "Z2Z", "R2C", "D2Z", "C2R", "Z2D")})
    def plan_many(rank, n, inembed, istride, idist, onembed, ostride, odist, kind, batch):
        dims = tuple(int(d) for d in n[:rank])
        if inembed is None and onembed is None:  # the basic layout: strides and distances ignored
            half = dims[:-1] + (dims[-1] // 2 + 1,)
            n_in = half if kind in ("C2R", "Z2D") else dims
            n_out = half if kind in ("R2C", "D2Z") else dims
            return 0, (kind, dims, n_in, 1, int(np.prod(n_in)), n_out, 1, int(np.prod(n_out)), batch)
        return 0, (kind, dims, tuple(inembed[:rank]), istride, idist, tuple(onembed[:rank]), ostride, odist, batch)

    mod.hipfftPlanMany = plan_many
    mod.hipfftSetStream = lambda plan, s: OK
    mod.hipfftDestroy = lambda plan: OK
    types_of = {"C2C": (np.complex64, np.complex64), "Z2Z": (np.complex128, np.complex128),
                "R2C": (np.float32, np.complex64), "D2Z": (np.float64, np.complex128),
                "C2R": (np.complex64, np.float32), "Z2D": (np.complex128, np.float64)}

    def linear(dims):
        """Each element's offset (in strides) in a row-major array of ``dims`` (the
        advanced layout's embedding, which the backend gives as the data's extents)."""
        return np.ravel_multi_index(np.indices(dims).reshape(len(dims), -1), dims).reshape(dims)

    def run(plan, src, dst, direction=None):
        kind, n, n_in, istride, idist, n_out, ostride, odist, batch = plan
        ti, to = types_of[kind]
        lin_in, lin_out = linear(n_in) * istride, linear(n_out) * ostride
        inp = _mem(src, (batch - 1) * idist + int(lin_in.max()) + 1, ti)
        out = _mem(dst, (batch - 1) * odist + int(lin_out.max()) + 1, to)
        size = int(np.prod(n))
        for b in range(batch):
            x = inp[b * idist + lin_in]
            if kind in ("C2C", "Z2Z"):
                y = np.fft.fftn(x) if direction == -1 else np.fft.ifftn(x) * size
            elif kind in ("R2C", "D2Z"):
                y = np.fft.rfftn(x)
            else:
                y = np.fft.irfftn(x, n, axes=tuple(range(len(n)))) * size
            out[b * odist + lin_out] = y
        return OK

    for kind in types_of:
        if kind in ("C2C", "Z2Z"):
            setattr(mod, f"hipfftExec{kind}", lambda plan, s, d, direction: run(plan, s, d, direction))
        else:
            setattr(mod, f"hipfftExec{kind}", lambda plan, s, d: run(plan, s, d))
    return mod

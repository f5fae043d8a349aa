"""[families] The optional ``linalg`` group, part 2: QR (geqrf + orgqr/ungqr; our kernel for
batches of small real matrices, ``qr_householder``; CholeskyQR2 for one tall real matrix,
``qr_tall``), SVD (gesvd; gesvdjBatched for
batches of small matrices, our kernel for real ones, ``svd_jacobi``) and the Hermitian
eigenproblem (syevd/heevd; syevjBatched/heevjBatched for batches of small matrices),
through hipSOLVER. Layout conventions: ``linalg_common``. The only host read is the
``info`` check (a non-converged SVD or eigensolver raises LinAlgError)."""

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides
from candlewick.opdefs import UnaryOp

from ..bindings import hipsolver
from . import creation, qr_householder, qr_tall, svd_jacobi, svd_tall
from . import linalg_common as lc

# batched Jacobi (one call for the whole batch) for batches of matrices up to this size;
# larger ones, or a single matrix, go through the divide-and-conquer syevd per matrix
EIGH_JACOBI_MAX_N = 64
# likewise for the SVD (gesvdjBatched: full U and V of each matrix, then sliced)
SVD_JACOBI_MAX_N = 64
# single-precision matrices try the one-matrix Jacobi SVD (gesvdj) first, gesvd when it
# does not converge, as PyTorch does: cuSOLVER's Sgesvdj took 1115 ms at n = 4096 where
# Sgesvd took 1251 (H100, bench/results/linalg_fft_nvidia-h100.md); in double precision
# the two were even, so gesvd stays
SVD_JACOBI_FIRST = (dt.float32, dt.complex64)


def _eye_fill(storage, batch, rows, cols):
    """Set the main diagonal of contiguous (batch..., rows, cols) ``storage`` to 1."""
    k = min(rows, cols)
    if k and storage.size:
        bstrides = contiguous_strides(tuple(batch) + (rows, cols))[:-2]
        storage.fill(Layout(tuple(batch) + (k,), bstrides + (cols + 1,), 0), 1)


def qr(a, layout, complete):
    """geqrf on A column-major (m x n, lda m) in a buffer with room for Q's columns, R read
    from its upper part before orgqr/ungqr turns the reflectors into Q, which is returned
    in that buffer column-major where the buffer holds exactly Q (not a wide A's reduced Q)."""
    lc.require("qr", a)
    batch, count, m, n = lc.split(layout.shape)
    lc.check_sizes("qr", a.dtype, m, n)
    k = min(m, n)
    kq = m if complete else k
    kr = m if complete else k
    device, dtype = a.device, a.dtype
    if count == 0 or k == 0:
        q = creation.full(device, batch + (m, kq), dtype, 0)
        _eye_fill(q, batch, m, kq)
        return q, creation.full(device, batch + (kr, n), dtype, 0)
    if qr_householder.fits(count, m, n, dtype):
        return qr_householder.qr(a, layout, complete, count)
    if qr_tall.fits(count, m, n, dtype, complete) and device.capture is None:  # (it reads the host)
        done = qr_tall.qr(a, layout)
        if done is not None:
            return done
    cols = max(n, kq)
    per = m * cols
    if cols == n:
        w = lc.column_major(a, layout)
    else:  # complete Q of a tall A: m columns, A in the first n
        w = device.storage_type.empty(device, dtype, count * per)
        w.assign(lc.colmajor_as_rowmajor(batch, m, n, m, per), a, layout)
    letter, item = lc.LETTER[dtype], dtype.itemsize
    h = device.solver
    tau = device.storage_type.empty(device, dtype, count * k)
    info = lc.ints(device, count)
    lwork = max(hipsolver.workspace_size(letter, "geqrf", h, m, n, w.ptr, m),
                hipsolver.workspace_size(letter, "orgqr", h, m, kq, k, w.ptr, m, tau.ptr))
    ws = lc.workspace(device, dtype, lwork)
    for i in range(count):
        hipsolver.solver(letter, "geqrf", h, m, n, w.ptr + i * per * item, m, tau.ptr + i * k * item,
                     ws.ptr, lwork, info.ptr + 4 * i)
    # R from w's upper part, in one pass (queued before orgqr overwrites it)
    r = lc.keep_triangle(w, batch + (kr, n), False, lc.colmajor_as_rowmajor(batch, kr, n, m, per))
    for i in range(count):
        hipsolver.solver(letter, "orgqr", h, m, kq, k, w.ptr + i * per * item, m, tau.ptr + i * k * item,
                     ws.ptr, lwork, info.ptr + 4 * i)
    q_layout = lc.colmajor_as_rowmajor(batch, m, kq, m, per)
    if cols == kq:  # w holds Q and nothing else: Q is w read column-major, no copy (the protocol's pair)
        return (w, q_layout), r
    return w.copy(q_layout), r


def svd(a, layout, full_matrices):
    """gesvd wants rows >= cols. For a wide or square A (n >= m) it runs on the
    C-contiguous copy, which column-major is A^T = U1 S V1^H: then A's U is conj(V1),
    exactly V1^H's buffer read row-major, and Vh = U1^T, U1's buffer read row-major: no
    transposes. A tall A runs column-major (a transposed copy); U and Vh are returned in
    their buffers with column-major layouts (the protocol's pairs)."""
    lc.require("svd", a)
    batch, count, m, n = lc.split(layout.shape)
    lc.check_sizes("svd", a.dtype, m, n)
    k = min(m, n)
    device, dtype = a.device, a.dtype
    real = dt.real_dtype_of(dtype)
    ku = m if full_matrices else k
    kv = n if full_matrices else k
    if count == 0 or k == 0:
        u, vh = creation.full(device, batch + (m, ku), dtype, 0), creation.full(device, batch + (kv, n), dtype, 0)
        _eye_fill(u, batch, m, ku)
        _eye_fill(vh, batch, kv, n)
        return u, creation.full(device, batch + (k,), real, 0), vh
    if svd_jacobi.fits(count, m, n, dtype, full_matrices):
        return svd_jacobi.svd(a, layout, count)
    if use_batched_svd(count, m, n):
        return _svd_jacobi_batched(a, layout, full_matrices)
    if svd_tall.fits(count, m, n, dtype, full_matrices):
        done = svd_tall.svd(a, layout, lambda r, r_layout: svd(r, r_layout, False))
        if done is not None:
            return done
    if dtype in SVD_JACOBI_FIRST:
        done = _svd_gesvdj(a, layout, full_matrices)
        if done is not None:
            return done
    wide = n >= m
    rows, cols = (n, m) if wide else (m, n)
    w = a.copy(layout) if wide else lc.column_major(a, layout)
    job_left = ord("A") if full_matrices else ord("S")
    left_cols = rows if full_matrices else cols
    left = device.storage_type.empty(device, dtype, count * rows * left_cols)
    right = device.storage_type.empty(device, dtype, count * cols * cols)
    s = device.storage_type.empty(device, real, count * k)
    letter, item = lc.LETTER[dtype], dtype.itemsize
    h = device.solver
    lwork = hipsolver.workspace_size(letter, "gesvd", h, job_left, ord("A"), rows, cols)
    ws = lc.workspace(device, dtype, lwork)
    rwork = lc.workspace(device, real, k)
    info = lc.ints(device, count)
    for i in range(count):
        hipsolver.solver(letter, "gesvd", h, job_left, ord("A"), rows, cols, w.ptr + i * rows * cols * item, rows,
                     s.ptr + i * k * real.itemsize, left.ptr + i * rows * left_cols * item, rows,
                     right.ptr + i * cols * cols * item, cols, ws.ptr, lwork, rwork.ptr, info.ptr + 4 * i)
    lc.raise_on_info(info, count, "svd", "the SVD did not converge")
    if wide:  # U = V1^H's buffer (m x m), Vh = U1's buffer (left_cols x n)
        return right, s, left
    # U and Vh are the buffers read column-major (the protocol's pairs: no copies)
    return (left, lc.colmajor_as_rowmajor(batch, m, left_cols, m, m * left_cols)), s, \
        (right, lc.colmajor_as_rowmajor(batch, n, n, n, n * n))


def use_batched_svd(count, m, n):
    """Whether svd runs one batched Jacobi call rather than gesvd per matrix."""
    return count >= 2 and max(m, n) <= SVD_JACOBI_MAX_N


def _svd_jacobi_batched(a, layout, full_matrices):
    """gesvdjBatched on A column-major: U (m x m) and V (n x n, not V^H) column-major;
    U is read back row-major (its first k columns when reduced), Vh = conj(V)^T is V's
    buffer read row-major and conjugated (its first k rows when reduced)."""
    batch, count, m, n = lc.split(layout.shape)
    k = min(m, n)
    device, dtype = a.device, a.dtype
    real = dt.real_dtype_of(dtype)
    letter = lc.LETTER[dtype]
    w = lc.column_major(a, layout)
    u = device.storage_type.empty(device, dtype, count * m * m)
    v = device.storage_type.empty(device, dtype, count * n * n)
    s = device.storage_type.empty(device, real, count * k)
    h, params, jobz = device.solver, _jacobi_params("gesvdj", device), hipsolver.eig_vectors()
    lwork = hipsolver.workspace_size(letter, "gesvdjBatched", h, jobz, m, n, w.ptr, m, s.ptr, u.ptr, m, v.ptr, n,
                                 params, count)
    ws = lc.workspace(device, dtype, lwork)
    info = lc.ints(device, count)
    hipsolver.solver(letter, "gesvdjBatched", h, jobz, m, n, w.ptr, m, s.ptr, u.ptr, m, v.ptr, n, ws.ptr, lwork,
                 info.ptr, params, count)
    lc.raise_on_info(info, count, "svd", "the SVD did not converge")
    ku = m if full_matrices else k
    kv = n if full_matrices else k
    u_out = u.copy(lc.colmajor_as_rowmajor(batch, m, ku, m, m * m))
    bstrides = tuple(st * n * n for st in contiguous_strides(batch))
    v_rows = Layout(batch + (kv, n), bstrides + (n, 1), 0)
    vh = v.unary(UnaryOp.CONJ, v_rows) if dtype.is_complex else v.copy(v_rows)
    return u_out, s, vh


def _svd_gesvdj(a, layout, full_matrices):
    """gesvdj per matrix on A column-major (U, and V rather than V^H, column-major, read
    back as in ``_svd_jacobi_batched``); None when a matrix did not converge (the caller
    then runs gesvd). The info check is the one host read."""
    batch, count, m, n = lc.split(layout.shape)
    k = min(m, n)
    device, dtype = a.device, a.dtype
    real = dt.real_dtype_of(dtype)
    letter, item = lc.LETTER[dtype], dtype.itemsize
    ku = m if full_matrices else k
    kv = n if full_matrices else k
    w = lc.column_major(a, layout)
    u = device.storage_type.empty(device, dtype, count * m * ku)
    v = device.storage_type.empty(device, dtype, count * n * kv)
    s = device.storage_type.empty(device, real, count * k)
    h, params, jobz = device.solver, _jacobi_params("gesvdj", device), hipsolver.eig_vectors()
    econ = 0 if full_matrices else 1
    lwork = hipsolver.workspace_size(letter, "gesvdj", h, jobz, econ, m, n, w.ptr, m, s.ptr, u.ptr, m, v.ptr, n,
                                 params)
    ws = lc.workspace(device, dtype, lwork)
    info = lc.ints(device, count)
    for i in range(count):
        hipsolver.solver(letter, "gesvdj", h, jobz, econ, m, n, w.ptr + i * m * n * item, m,
                     s.ptr + i * k * real.itemsize, u.ptr + i * m * ku * item, m, v.ptr + i * n * kv * item, n,
                     ws.ptr, lwork, info.ptr + 4 * i, params)
    if (info.to_host(Layout.contiguous((count,))) != 0).any():
        return None
    # U is gesvdj's buffer read column-major (the protocol's pair: no copy of a 200000 x 256
    # U, which PCA, Ridge and LDA make); V's column-major buffer read row-major is V^T,
    # C-contiguous: Vh itself for a real A, conjugated for a complex one
    u_out = (u, lc.colmajor_as_rowmajor(batch, m, ku, m, m * ku))
    vh = v.unary(UnaryOp.CONJ, Layout.contiguous(batch + (kv, n))) if dtype.is_complex else v
    return u_out, s, vh


def _jacobi_params(kind, device):
    """The device's Jacobi parameter object (default tolerance and sweeps), made once."""
    create = hipsolver.create_syevj_info if kind == "syevj" else hipsolver.create_gesvdj_info
    return device.family_state(("hipsolver", kind), lambda _: create())


def use_batched_jacobi(count, n):
    """Whether eigh runs one batched Jacobi call rather than syevd per matrix."""
    return count >= 2 and n <= EIGH_JACOBI_MAX_N


def eigh(a, layout):
    """On A column-major (its lower triangle, as NumPy's UPLO='L'); eigenvalues come
    ascending, eigenvectors column-major, copied back row-major."""
    lc.require("eigh", a)
    batch, count, n, _ = lc.split(layout.shape)
    lc.check_sizes("eigh", a.dtype, n)
    device, dtype = a.device, a.dtype
    real = dt.real_dtype_of(dtype)
    w = device.storage_type.empty(device, real, count * n)
    if count == 0 or n == 0:
        return w, creation.full(device, layout.shape, dtype, 0)
    v = lc.column_major(a, layout)
    letter, item = lc.LETTER[dtype], dtype.itemsize
    h = device.solver
    jobz, lower = hipsolver.eig_vectors(), hipsolver.fill_mode(upper=False)
    info = lc.ints(device, count)
    if use_batched_jacobi(count, n):
        params = _jacobi_params("syevj", device)
        lwork = hipsolver.workspace_size(letter, "syevjBatched", h, jobz, lower, n, v.ptr, n, w.ptr, params, count)
        ws = lc.workspace(device, dtype, lwork)
        hipsolver.solver(letter, "syevjBatched", h, jobz, lower, n, v.ptr, n, w.ptr, ws.ptr, lwork, info.ptr,
                     params, count)
    else:
        lwork = hipsolver.workspace_size(letter, "syevd", h, jobz, lower, n, v.ptr, n, w.ptr)
        ws = lc.workspace(device, dtype, lwork)
        for i in range(count):
            hipsolver.solver(letter, "syevd", h, jobz, lower, n, v.ptr + i * n * n * item, n,
                         w.ptr + i * n * real.itemsize, ws.ptr, lwork, info.ptr + 4 * i)
    lc.raise_on_info(info, count, "eigh", "the eigensolver did not converge")
    return w, v.copy(lc.colmajor_as_rowmajor(batch, n, n, n, n * n))

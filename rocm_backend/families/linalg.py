"""[families] The optional ``linalg`` group, part 1: LU (hipSOLVER getrf/getrs; hipBLAS
getrfBatched/ getrsBatched for batches of small matrices, through ``rocblas``) for solve,
inv, det and slogdet, and Cholesky (potrf, potrfBatched), through hipSOLVER
(``linalg_common`` says how row-major storages meet its column-major routines). QR, SVD
and eigh: ``linalg_spectral``.

The data stays on the device; the ``info`` ints (a singular matrix in solve/inv, a failed
Cholesky) are the only host read: queued behind the factorization (``lc.queue_info``) and
checked once the rest of the call is queued, waiting for that copy alone. Read between
the factorization and the solve, they left the GPU idle while the host queued the rest
(batched solve 0.87 of CuPy's speed on an H200); read at the end with a synchronize, the
call waited for its last kernels too.
"""

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.shapes import contiguous_strides
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, UnaryOp

from .. import rocblas
from ..bindings import hipsolver
from . import creation
from . import linalg_common as lc

# potrfBatched (one call for the batch, pointer array) from this many matrices on
POTRF_BATCHED_MIN = 2
# hipBLAS's batched LU is built for small matrices; larger ones go through getrf per matrix
LU_BATCHED_MAX_N = 128
#: what a positive potrf info says
NOT_POSITIVE_DEFINITE = "the matrix is not positive definite"


def cholesky(a, layout, upper):
    """The Cholesky factor (``cholesky_queued``'s), its matrices' ``info`` checked: LinAlgError
    where one is not positive definite."""
    factor, check = cholesky_queued(a, layout, upper)
    check.raise_if_failed("cholesky", NOT_POSITIVE_DEFINITE)
    return factor


def cholesky_queued(a, layout, upper, overwrite=False):
    """(factor, its ``lc.InfoCheck``, not yet checked: the factor is not a Cholesky factor
    where a matrix's info is not zero). cholesky_qr checks two passes' at once, with its other
    host read (one wait, not three). ``overwrite``: ``a`` (upper, ``layout`` contiguous) is
    the caller's scratch, factored in place (cholesky_qr's G: no copy).

    Every factorization is potrf/potrfBatched with fill LOWER on column-major matrices:
    cuSOLVER's UPPER ran 1.5x (potrfBatched, 1024 x 64 x 64) to 2.5x (Xpotrf, n = 4096)
    slower on an H100, where PyTorch, which calls LOWER, was that much faster, and CuPy,
    which calls UPPER, as slow as UPPER here.

    Lower factor: the C-contiguous copy of the transposed view is A column-major; LOWER
    leaves L there, column-major, so the row-major result is that buffer read transposed:
    the pass that zeroes the other triangle reads it so (no transposing pass of its own).
    Upper factor: the C-contiguous copy is, column-major, A^T = conj(A); LOWER gives conj(L)
    column-major, whose row-major reading is conj(L)^T = L^H = U: read as it is. Either way
    potrf reads A's lower (upper) triangle only, as NumPy's does."""
    count, n, letter, batched, read = _cholesky_plan(a, tuple(layout.shape), upper)
    if overwrite and upper and layout.is_contiguous and layout.offset == 0:
        work = a
    else:
        work = a.copy(layout if upper else layout.transpose_last2())
    if count == 0 or n == 0:
        return work, lc.InfoCheck(None)
    device, item = a.device, a.dtype.itemsize
    h = device.solver
    fill = hipsolver.fill_mode(upper=False)
    info = lc.ints(device, count)
    if batched:
        ptrs = lc.pointer_array(device, work.ptr, count, n * n * item)
        lwork = lc.constant(device, ("lwork", letter, "potrfBatched", n, count),  # sizes only
                            lambda: hipsolver.workspace_size(letter, "potrfBatched", h, fill, n, ptrs.ptr, n, count))
        ws = lc.workspace(device, a.dtype, lwork)
        hipsolver.solver(letter, "potrfBatched", h, fill, n, ptrs.ptr, n, ws.ptr, lwork, info.ptr, count)
    else:
        lwork = lc.constant(device, ("lwork", letter, "potrf", n),  # sizes only
                            lambda: hipsolver.workspace_size(letter, "potrf", h, fill, n, work.ptr, n))
        ws = lc.workspace(device, a.dtype, lwork)
        hipsolver.solver(letter, "potrf", h, fill, n, work.ptr, n, ws.ptr, lwork, info.ptr)
    check = lc.queue_info(info, count)
    return lc.keep_triangle(work, layout.shape, lower=not upper, layout=read), check


def _cholesky_plan(a, shape, upper):
    """(count, n, type letter, batched, layout reading the factored buffer as the result)
    of a Cholesky of ``shape``: checked and worked out once per (device, dtype, shape,
    upper), kept in ``linalg_common.constant``'s cache."""
    def make():
        lc.require("cholesky", a)
        _, count, n, _ = lc.split(shape)
        lc.check_sizes("cholesky", a.dtype, n)
        read = Layout.contiguous(shape)
        return count, n, lc.LETTER[a.dtype], count >= POTRF_BATCHED_MIN, read if upper else read.transpose_last2()

    return lc.constant(a.device, ("cholesky", a.dtype.name, shape, upper), make)


def use_batched_lu(count, n):
    """Whether LU runs as one hipBLAS getrfBatched/getrsBatched call (many small
    matrices) rather than hipSOLVER's getrf/getrs per matrix."""
    return count >= 2 and n <= LU_BATCHED_MAX_N


def _lu(a, layout, op):
    """LU of every matrix of the C-contiguous copy (column-major A^T: det and solves
    with op T need no transpose). Returns (lu, ipiv, info, count, n); info not read."""
    lc.require(op, a)
    batch, count, n, _ = lc.split(layout.shape)
    lc.check_sizes(op, a.dtype, n)
    lu = a.copy(layout)
    device, letter = a.device, lc.LETTER[a.dtype]
    ipiv, info = lc.ints(device, count * n), lc.ints(device, count)
    step, item = n * n * a.dtype.itemsize, 4 * n
    if count and not n:  # nothing to factor: no info written, so none to report
        info.buffer.memset(0)
    if count and n and use_batched_lu(count, n):
        ptrs = lc.pointer_array(device, lu.ptr, count, step)
        rocblas.getrf_batched(device, letter, n, ptrs.ptr, ipiv.ptr, info.ptr, count)
    elif count and n:
        h = device.solver
        lwork = hipsolver.workspace_size(letter, "getrf", h, n, n, lu.ptr, n)
        ws = lc.workspace(device, a.dtype, lwork)
        for i in range(count):  # hipSOLVER has no batched getrf in its regular API
            hipsolver.solver(letter, "getrf", h, n, n, lu.ptr + i * step, n, ws.ptr, lwork,
                         ipiv.ptr + i * item, info.ptr + 4 * i)
    return lu, ipiv, info, count, n


def _getrs(a, lu, ipiv, count, n, rhs, k, transpose):
    """Solve in place: rhs holds ``count`` column-major n x k blocks."""
    if not (count and n and k):
        return
    device, letter, item = a.device, lc.LETTER[a.dtype], a.dtype.itemsize
    trans = hipsolver.operation(transpose)
    if use_batched_lu(count, n):
        a_ptrs = lc.pointer_array(device, lu.ptr, count, n * n * item)
        b_ptrs = lc.pointer_array(device, rhs.ptr, count, n * k * item)
        rocblas.getrs_batched(device, letter, trans, n, k, a_ptrs.ptr, ipiv.ptr, b_ptrs.ptr, count)
        return
    h = device.solver
    lwork = hipsolver.workspace_size(letter, "getrs", h, trans, n, k, lu.ptr, n, ipiv.ptr, rhs.ptr, n)
    ws = lc.workspace(device, a.dtype, lwork)
    info = lc.ints(device, count)
    for i in range(count):
        hipsolver.solver(letter, "getrs", h, trans, n, k, lu.ptr + i * n * n * item, n, ipiv.ptr + 4 * i * n,
                     rhs.ptr + i * n * k * item, n, ws.ptr, lwork, info.ptr + 4 * i)


def solve(a, layout, b, b_layout):
    """lu holds A^T column-major, so getrs with op T solves A X = B; B goes in (and X
    comes out) column-major through transposed copies."""
    lu, ipiv, info, count, n = _lu(a, layout, "solve")
    check = lc.queue_info(info, count)
    batch, _, _, k = lc.split(b_layout.shape)
    x = lc.column_major(b, b_layout)
    _getrs(a, lu, ipiv, count, n, x, k, transpose=True)
    result = x.copy(lc.colmajor_as_rowmajor(batch, n, k, n, n * k))
    check.raise_if_failed("solve", "the matrix is singular")
    return result


def inv(a, layout):
    """getrs with op N on the identity solves A^T Y = I: Y = inv(A)^T column-major, which
    read row-major is inv(A) itself."""
    lu, ipiv, info, count, n = _lu(a, layout, "inv")
    check = lc.queue_info(info, count)
    y = creation.eye(a.device, layout.shape, a.dtype)
    _getrs(a, lu, ipiv, count, n, y, n, transpose=False)
    check.raise_if_failed("inv", "the matrix is singular")
    return y


def _lu_parts(a, layout, op):
    """(diagonal of U as a strided layout over lu, lu, the permutation's sign (storage of
    shape batch, dtype of a), batch)."""
    lu, ipiv, _, count, n = _lu(a, layout, op)
    batch = tuple(layout.shape[:-2])
    bstrides = contiguous_strides(batch + (n, n))[:-2]
    diag = Layout(batch + (n,), bstrides + (n + 1,), 0)
    # the permutation's sign: -1 for every row i swapped (ipiv[i] != i+1, 1-based), product
    device = a.device
    one_based = creation.arange(device, 1, 1, n, dt.int32)
    shape = batch + (n,)
    moved = ipiv.compare(CompareOp.NOT_EQUAL, Layout.contiguous(shape), one_based,
                         Layout(shape, (0,) * len(batch) + (1,), 0))
    flips = moved.astype(Layout.contiguous(shape), a.dtype)
    flips = flips.binary_scalar(BinaryOp.MULTIPLY, Layout.contiguous(shape), -2, False)
    flips = flips.binary_scalar(BinaryOp.ADD, Layout.contiguous(shape), 1, False)
    axis = (len(batch),)
    perm = flips.reduce(ReduceOp.PROD, Layout.contiguous(shape), axis)
    return diag, lu, perm, batch


def det(a, layout):
    if layout.shape[-1] == 0:
        return creation.full(a.device, layout.shape[:-2], a.dtype, 1)
    diag, lu, perm, batch = _lu_parts(a, layout, "det")
    prod = lu.reduce(ReduceOp.PROD, diag, (len(batch),))
    out = Layout.contiguous(batch)
    return prod.binary(BinaryOp.MULTIPLY, out, perm, out)


def slogdet(a, layout):
    """sign = prod(sign(u_ii)) * sign(P), log|det| = sum(log|u_ii|): a zero pivot gives
    sign 0 (sign(0) = 0 for real and complex) and -inf."""
    real = dt.real_dtype_of(a.dtype)
    if layout.shape[-1] == 0:
        batch = layout.shape[:-2]
        return creation.full(a.device, batch, a.dtype, 1), creation.full(a.device, batch, real, 0)
    diag, lu, perm, batch = _lu_parts(a, layout, "slogdet")
    axis = (len(batch),)
    n = layout.shape[-1]
    flat = Layout.contiguous(batch + (n,))
    signs = lu.unary(UnaryOp.SIGN, diag).reduce(ReduceOp.PROD, flat, axis)
    out = Layout.contiguous(batch)
    sign = signs.binary(BinaryOp.MULTIPLY, out, perm, out)
    logabs = lu.unary(UnaryOp.ABS, diag).unary(UnaryOp.LOG, flat).reduce(ReduceOp.SUM, flat, axis)
    return sign, logabs


"""[families] The reduced SVD of one tall single-precision matrix through a Cholesky QR.

Why: gesvdj of a 200000 x 256 float32 A took 20.6 ms on an H200 (PyTorch's, the same
cuSOLVER call, 21.4), of which about 6.5 ms is the Jacobi SVD of a 256 x 256 matrix and
the rest grows with the rows (1024 rows: 6.6 ms; 100000: 15.7). geqrf + orgqr through
cuSOLVER take as long (QR first and then gesvdj on R ran 20.5 ms): their panels are
narrow and slow. GEMMs are not: A^T A of that A is one 26 GFLOP product. This way the
SVD took 10.2 ms, and scikit-learn's LinearDiscriminantAnalysis fit+predict on that A
18.3 ms against PyTorch's 29.1 (PCA full 11.9 against 24.1; probe s18lda_2).

How (CholeskyQR2, Yamamoto et al. 2015): G = A^T A, G = R1^T R1 (Cholesky), Q1 = A R1^-1;
the same again on Q1 (the second pass repairs the orthogonality the first loses to
cond(A)^2), A = Q R with R = R2 R1; then R = Ur S Vh (the library's SVD of an n x n
matrix) and U = Q Ur. Every step on the rows is a GEMM. R^-1 is a triangular solve on
the n x n identity (trsm): Q = A R^-1 as one trsm in place on the rows (m x n) instead ran
14.2 ms at 200000 x 256 against 10.5 (cuBLAS's trsm with 200000 right-hand sides is far
slower than the GEMM), though it won below; LU's inverse (getrf + getrs) cost a host read
of its info per pass (probe s19svd_1). A layout hipBLAS cannot read is copied once, up
front.

When it may not be used: a Cholesky that fails (A rank-deficient or too ill-conditioned
for single precision), or a Q whose orthogonality max|Q^T Q - I| is past ``ORTH_TOL``
(measured, not assumed: rounding beyond the theory's bound, or non-finite input). Then
``svd`` answers None and the caller runs gesvdj on A itself, as before: on the H200 a
20000 x 64 A of condition up to 10^3 kept this path, 10^4 kept it once and fell back once
(the measured orthogonality at the tolerance), 10^6 and a rank-deficient A fell back
(their answers as gesvdj's; probes s18lda_2 and _3). A fall back costs the passes on
top of gesvdj (+0.7 to 1.7 ms at 20000 x 64 while a failed Cholesky stopped them at once;
both passes and the check run now, potrf's infos read with the check: one host wait).
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp, UnaryOp

from .. import rocblas
from . import creation, linalg
from . import linalg_common as lc

DTYPES = (dt.float32,)
#: where it pays: rows at least this many times the columns and at least MIN_ELEMENTS
#: elements. Probe s21mends_2 (H200, float32, this path forced beside gesvdj on A, 31 rounds
#: in a shuffled order, each timed call after an untimed one, median of the per-round ratio
#: path / gesvdj [quartiles], singular values within 8 n eps of float64's, no fall back): at
#: 2^20 elements it won at every shape, 4 to 4096 rows a column: 65536 x 16 0.701 [0.673,
#: 0.735], 4096 x 256 0.855, 8192 x 128 0.872 [0.841, 0.907], 2048 x 512 0.909, 16384 x 64
#: 0.932 [0.911, 0.944]; from 2^21 on 0.47 to 0.89 (131072 x 16 0.470, 200000 x 256 0.461);
#: at 2^19 it won at n = 256 and 512 (0.96) and lost at n = 16 to 128 (1.03 to 1.46, the more
#: the fewer columns). s20mends_1 had put the bound at 2^21 on a run whose fixed rotation timed
#: the path mostly right after torch's turn (the first call after another library's costs
#: more, s20lazyfft_2) and on the path's wait a pass. 4 rows a column: the fewest measured at
#: 2^20 and over (2048 x 512 won; 1024 x 512, 2 rows a column, won at 2^19)
MIN_RATIO = 4
MIN_ELEMENTS = 1 << 20
#: the largest max|Q^T Q - I| kept, in units of n * eps: gesvdj's own U of the shapes
#: measured was 2 to 4 n eps from orthogonal (probe s18lda_1); this one's Q of LDA's
#: 200000 x 256 A was 7e-7 (0.02 n eps) from it in a float32 run of the steps on the CPU
ORTH_TOL = 4


def fits(count, m, n, dtype, full_matrices):
    """Whether ``svd`` tries this matrix: one tall real single-precision matrix, reduced SVD."""
    # m > n whatever the thresholds: the SVD of the n x n R (the caller's svd) never comes back
    return (count == 1 and dtype in DTYPES and not full_matrices and 0 < n < m and m >= MIN_RATIO * n
            and m * n >= MIN_ELEMENTS)


def svd(a, layout, square_svd):
    """(U, S, Vh) of the reduced SVD of the (m, n) matrix ``a[layout]``, or None where the
    Cholesky QR does not hold (the caller then factors A itself). ``square_svd``: the SVD
    of an n x n storage (the caller's ``svd``)."""
    m, n = layout.shape[-2:]
    sq = Layout.contiguous((n, n))
    rows = Layout.contiguous((m, n))
    if not rocblas.blas_reads(layout):  # copied once here, not by each GEMM of the first pass
        a, layout = a.copy(layout), rows
    q, q_layout, r, checks = a, layout, None, []
    for _ in range(2):
        g = rocblas.matmul(q, q, q_layout.transpose_last2(), q_layout)
        factor, check = linalg.cholesky_queued(g, sq, True, overwrite=True)
        checks.append(check)
        q, q_layout = rocblas.matmul(q, _upper_inverse(factor, n), q_layout, sq), rows
        r = factor if r is None else rocblas.matmul(factor, r, sq, sq)
    # one host wait, the orthogonality's read: it drains the stream, so potrf's infos,
    # queued before it, are there too (a wait for each pass's left the GPU idle while the
    # host queued the next; probe s21mends_2, with the launches cut below: 0.89 to 0.96 of
    # the waits' time at n = 16 to 128, 0.97 to 0.99 at n = 256 and 512, the same bits)
    orthogonal = _orthogonal(q, rows, n)
    factored = [_factored(check) for check in checks]  # (every read taken: their slots back)
    if not (all(factored) and orthogonal):  # a pass after a failed one ran on no factor
        return None
    ur, s, vh = square_svd(r, sq)
    ur, ur_layout = ur if isinstance(ur, tuple) else (ur, sq)
    return rocblas.matmul(q, ur, rows, ur_layout), s, vh


def _factored(check):
    """Whether a pass's potrf factored G (its info 0), read without a wait (the stream
    drained since); a G not positive definite is not for this method."""
    try:
        check.raise_if_failed("svd", linalg.NOT_POSITIVE_DEFINITE, drained=True)
    except LinAlgError:
        return False
    return True


def _upper_inverse(factor, n):
    """R^-1 of the upper triangular n x n ``factor``: one trsm on the identity (no LU, no
    pivots, no info to read)."""
    inverse = _identity(factor.device, factor.dtype, n, writable=True)
    rocblas.solve_upper_right(inverse, factor, n, n, "svd")
    return inverse


def _identity(device, dtype, n, writable=False):
    """The n x n identity, kept per (dtype, n) while small (``lc.constant``): the solves
    copy it, the check reads it (three made a call before, two launches each).
    ``writable``: one the caller may overwrite, a copy of the kept one only where one is
    kept (past the bound a fresh one is already the caller's own)."""
    kept = n * n <= lc.MASK_CACHE_MAX
    eye = lc.constant(device, ("identity", dtype.name, n), lambda: creation.eye(device, (n, n), dtype), kept)
    return eye.copy(Layout.contiguous((n, n))) if writable and kept else eye


def _orthogonal(q, rows, n):
    """Whether max|Q^T Q - I| <= ORTH_TOL * n * eps (False for a NaN: one host read)."""
    sq = Layout.contiguous((n, n))
    eye = _identity(q.device, q.dtype, n)
    gram = rocblas.matmul(q, q, rows.transpose_last2(), rows)
    err = gram.binary(BinaryOp.SUBTRACT, sq, eye, sq).unary(UnaryOp.ABS, sq).reduce(ReduceOp.MAX, sq, (0, 1))
    worst = float(err.to_host(Layout.contiguous(()))[()])
    return worst <= ORTH_TOL * n * float(np.finfo(q.dtype.numpy).eps)  # NaN: False

"""[families] The reduced SVD of one tall single-precision matrix through a Cholesky QR.

Why: gesvdj of a 200000 x 256 float32 A took 20.6 ms on an H200 (PyTorch's, the same
cuSOLVER call, 21.4), of which about 6.5 ms is the Jacobi SVD of a 256 x 256 matrix and
the rest grows with the rows (1024 rows: 6.6 ms; 100000: 15.7). geqrf + orgqr through
cuSOLVER take as long (QR first and then gesvdj on R ran 20.5 ms): their panels are
narrow and slow. GEMMs are not: A^T A of that A is one 26 GFLOP product. This way the
SVD took 10.2 ms, and scikit-learn's LinearDiscriminantAnalysis fit+predict on that A
18.3 ms against PyTorch's 29.1 (PCA full 11.9 against 24.1; probe s18lda_2).

How: A = Q R by CholeskyQR2 (``cholesky_qr``, shared with the tall QR: its measured
reasons are there), then R = Ur S Vh (the library's SVD of an n x n matrix) and U = Q Ur.

When it may not be used: where ``cholesky_qr.factor`` does not hold (a failed Cholesky, or
Q past its orthogonality tolerance) ``svd`` answers None and the caller runs gesvdj on A
itself, as before: on the H200 a 20000 x 64 A of condition up to 10^3 kept this path, 10^4
kept it once and fell back once (the measured orthogonality at the tolerance), 10^6 and a
rank-deficient A fell back (their answers as gesvdj's; probes s18lda_2 and _3). A fall back
costs the passes on top of gesvdj (+0.7 to 1.7 ms at 20000 x 64).
"""

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .. import rocblas
from . import cholesky_qr

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
    done = cholesky_qr.factor(a, layout, "svd")
    if done is None:
        return None
    sq = Layout.contiguous((n, n))
    ur, s, vh = square_svd(done.r, sq)
    ur, ur_layout = ur if isinstance(ur, tuple) else (ur, sq)
    return rocblas.matmul(done.q, ur, Layout.contiguous((m, n)), ur_layout), s, vh

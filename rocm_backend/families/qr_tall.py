"""[families] The reduced QR of one tall real matrix through CholeskyQR2, with LAPACK's signs.

Why: geqrf + orgqr of one 200000 x 26 float32 A took 4.4 ms on an H200 (cuSOLVER's
``geqr2_gmem_domino``; PyTorch's, the same calls, 4.5), 33 of the 39 ms of device time of
scikit-learn's PCA(svd_solver="randomized") on a 200000 x 256 X (probe pca_1), where
CholeskyQR2 (``cholesky_qr``) is a few bandwidth-bound GEMMs over A.

Signs: CholeskyQR gives R a positive diagonal; geqrf (LAPACK's, NumPy's, cuSOLVER's) gives
R_jj = beta_j = -sign(alpha_j) * norm, or alpha_j itself where the column is already reduced
(dlarfg's tau = 0). For an orthonormal Q' with A = Q' R', Householder QR of A makes the
same reflectors as Householder QR of Q' (scaling a column by a nonzero factor keeps its
reflector), and for an orthonormal Q' that process only needs its leading n x n block M
(Ballard et al. 2014, "Reconstructing Householder vectors from TSQR"): each step is an LU
step on M with the pivot shifted by the step's sign S_j, and Q' = (H_0 .. H_n-1) diag(S),
so geqrf's factors are Q = Q' diag(S), R = diag(S) R'. M comes back with the orthogonality
check's read (no second wait); S is applied on the device (a column scale of Q, a row
scale of R).

Whether a column is already reduced (the reduced column exactly zero below its diagonal) is
decided from exact zeros: M's entries below the pivot, and for the rows past n whether Q's
were all zero there (a count on the device), carried through the steps as the LU update
carries M's rows. A test on |M_jj| == 1 alone took A[:, 0] = (2, 0, .., 1e-6, ..) as
reduced in float32 (M_00 rounds to 1) where LAPACK reflects it: the opposite sign.
"""

import math

import numpy as np

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp

from . import cholesky_qr

DTYPES = (dt.float32, dt.float64)
#: where it pays (probe s23qr_2, H200, the path forced beside geqrf + orgqr and torch.linalg.qr,
#: 9-11 interleaved rounds, median of the per-round ratio to torch): from 65536 rows up to 128
#: columns, float32: 65536 x 16 0.87-0.97 (trsm / GEMM second pass), 65536 x 26 0.54, 200000 x 16 /
#: 26 / 64 / 128 0.29 / 0.19 / 0.30 / 0.55, 1M x 26 0.045; float64 200000 x 26 0.18, 1M x 26 0.037.
#: Below, the path's fixed cost (about 0.75 ms at n = 26: launches, the wait, the signs on the host)
#: is more than geqrf's whole call (16384 x 26 2.2x, 20000 x 64 1.4x float32); at 256 columns the
#: host's sign steps alone took 17 ms (200000 x 256 1.16x)
MIN_ROWS = 65536
MAX_COLUMNS = 128
#: the second pass solved in place (``cholesky_qr.factor``'s ``solve_second``) up to this many
#: columns: there the trsm took 0.89x (n = 16) to 1.14x (n = 26) the GEMM's time and the call holds
#: one m x n buffer beside A, not two (PCA randomized's peak 235.0 MiB against torch's 255.7,
#: probe s23qr_1); from 64 columns it took 1.2x (float32) to 1.42x (float64, 200000 x 64) the GEMM's
SOLVE_SECOND_MAX_N = 32


def fits(count, m, n, dtype, complete):
    """Whether ``qr`` tries this matrix: one tall real matrix, reduced Q (a complete Q's
    m - n further columns are orgqr's, from reflectors this path never forms)."""
    return (count == 1 and dtype in DTYPES and not complete and 0 < n < m and m >= MIN_ROWS
            and n <= MAX_COLUMNS)


def qr(a, layout):
    """(Q, R) of the reduced QR of the (m, n) matrix ``a[layout]`` (of a batch of one),
    C-contiguous, as geqrf + orgqr give them up to rounding; None where the Cholesky QR
    does not hold (the caller then runs geqrf on A itself)."""
    m, n = layout.shape[-2:]
    done = cholesky_qr.factor(a, layout, "qr", top=True, solve_second=n <= SOLVE_SECOND_MAX_N)
    if done is None:
        return None
    signs = householder_signs(done.top, done.tail_zero)
    if (signs > 0).all():
        return done.q, done.r
    s = a.device.storage_from_host(signs.astype(a.dtype.numpy))
    # in place: Q and R are the path's own (no third m x n buffer at the call's peak)
    q, r, rows, sq = done.q, done.r, Layout.contiguous((m, n)), Layout.contiguous((n, n))
    q.binary_into(BinaryOp.MULTIPLY, rows, q, rows, s, Layout((m, n), (0, 1), 0))
    r.binary_into(BinaryOp.MULTIPLY, sq, r, sq, s, Layout((n, n), (1, 0), 0))
    return q, r


def householder_signs(top, tail_zero):
    """S (n values of +-1) with Householder QR of an orthonormal Q' (leading block ``top``;
    ``tail_zero[j]``: Q'[n:, j] is all zero) = Q' diag(S), R = S: S_j = beta_j of dlarfg on
    the reduced column j, -1 if its pivot is >= 0 else +1, or the pivot's own sign where the
    column is zero below it (tau = 0: no reflector, nothing updated); a pivot of -0.0
    counts as negative, as NumPy's LAPACK reads it (Q's -0.0 seldom survives the GEMM that
    makes it: a sum of signed zeros is +0.0). Host work on the path's wait: two NumPy
    calls a column where no tail is zero (the usual case), Python floats for the scalars."""
    m = np.array(top, dtype=np.float64)
    n = m.shape[0]
    tail = ~np.asarray(tail_zero, dtype=bool)  # a reduced column's rows past n not all zero
    every = bool(tail.all())  # the usual case: no column is ever reduced already
    signs = np.empty(n)
    for j in range(n):
        pivot = float(m[j, j])
        negative = math.copysign(1.0, pivot) < 0
        if not every and not tail[j] and not m[j + 1:, j].any():
            signs[j] = -1.0 if negative else 1.0
            continue
        s = 1.0 if negative else -1.0
        signs[j] = s
        if j + 1 < n:
            right = m[j, j + 1:]
            m[j + 1:, j + 1:] -= np.multiply.outer(m[j + 1:, j] * (1.0 / (pivot - s)), right)
            if not every:  # the rows past n take the same update: zero only where both terms are
                tail[j + 1:] |= tail[j] & (right != 0)
    return signs

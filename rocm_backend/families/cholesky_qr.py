"""[families] CholeskyQR2 of one tall real matrix: the reduced A = Q R that the tall SVD
(``svd_tall``) and the tall QR (``qr_tall``) both start from, every step on the rows a GEMM.

Why: cuSOLVER's geqrf + orgqr on a tall, narrow A run narrow panels (``geqr2_gmem_domino``:
4.4 ms for one 200000 x 26 float32 A on an H200, 33 of PCA randomized's 39 ms of device
time, probe pca_1; geqrf + orgqr of 200000 x 256 took as long as gesvdj of it, 20.5 ms,
probe s18lda_2), where A^T A of that A is one bandwidth-bound product.

How (Yamamoto et al. 2015): G = A^T A, G = R1^T R1 (potrf), Q1 = A R1^-1; the same again on
Q1 (the second pass repairs the orthogonality the first loses to cond(A)^2); R = R2 R1.
R^-1 is one trsm on the n x n identity and Q = A R^-1 a GEMM: one trsm in place on the m
rows instead ran 14.2 ms at 200000 x 256 against 10.5 (cuBLAS's trsm with 200000
right-hand sides is far slower than the GEMM); LU's inverse cost a host read of its info
per pass (probe s19svd_1). A layout hipBLAS cannot read is copied once, up front.

When it does not hold: a Cholesky that fails (A rank-deficient, or too ill-conditioned for
the precision: cond(A)^2 past 1/eps), or a Q whose orthogonality max|Q^T Q - I| is past
``ORTH_TOL`` (measured, not assumed: rounding beyond the theory's bound, or non-finite
input). Then ``factor`` answers None and the caller runs the library on A itself. Both
passes and the check always run and potrf's infos are read with the check: one host wait
(a wait a pass left the GPU idle while the host queued the next: probe s21mends_2, 0.89
to 0.96 of the waits' time at n = 16 to 128).
"""

import numpy as np

from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp, UnaryOp

from .. import rocblas
from . import creation, linalg
from . import linalg_common as lc

#: the largest max|Q^T Q - I| kept, in units of n * eps: gesvdj's own U of the shapes
#: measured was 2 to 4 n eps from orthogonal (probe s18lda_1); this one's Q of LDA's
#: 200000 x 256 A was 7e-7 (0.02 n eps) from it in a float32 run of the steps on the CPU
ORTH_TOL = 4


class Factored:
    """A = Q R: ``q`` the (m, n) Q C-contiguous, ``r`` the (n, n) upper triangular R
    C-contiguous; ``top`` (when asked for) Q's leading n x n block and, for each column,
    whether Q's rows n..m-1 of it are all exactly zero, read on the host with the check."""

    __slots__ = ("q", "r", "top", "tail_zero")

    def __init__(self, q, r, top=None, tail_zero=None):
        self.q, self.r, self.top, self.tail_zero = q, r, top, tail_zero


def factor(a, layout, op, top=False, solve_second=False):
    """CholeskyQR2 of the (m, n) matrix ``a[layout]`` (m > n, a dtype hipBLAS's GEMM and
    trsm and hipSOLVER's potrf take), a ``Factored``, or None where it does not hold.
    ``op``: the user's function (errors name it). ``top``: bring Q's leading block and its
    rows' zero pattern back with the check's read (``qr_tall``'s signs). ``solve_second``:
    the second pass's Q = Q1 R2^-1 as one trsm in place on Q1 (the path's own buffer)
    rather than a GEMM into a second m x n buffer: the call then holds one m x n buffer
    beside A, as geqrf + orgqr's copy of A does."""
    m, n = layout.shape[-2:]
    sq = Layout.contiguous((n, n))
    rows = Layout.contiguous((m, n))
    if not rocblas.blas_reads(layout):  # copied once here, not by each GEMM of the first pass
        a, layout = a.copy(layout), rows
    q, q_layout, r, checks = a, layout, None, []
    for second in (False, True):
        g = rocblas.matmul(q, q, q_layout.transpose_last2(), q_layout)
        f, check = linalg.cholesky_queued(g, sq, True, overwrite=True)
        checks.append(check)
        if second and solve_second:  # q is Q1, C-contiguous and the path's own
            rocblas.solve_upper_right(q, f, m, n, op)
        else:
            q, q_layout = rocblas.matmul(q, _upper_inverse(f, n, op), q_layout, sq), rows
        r = f if r is None else rocblas.matmul(f, r, sq, sq)
    # one host wait, the check's read: it drains the stream, so potrf's infos, queued
    # before it, are there too
    worst, block, tail_zero = _check(q, m, n, top)
    factored = [_factored(check, op) for check in checks]  # (every read taken: their slots back)
    # a pass after a failed one ran on no factor; NaN compares False
    if not (all(factored) and worst <= ORTH_TOL * n * float(np.finfo(q.dtype.numpy).eps)):
        return None
    return Factored(q, r, block, tail_zero)


def _factored(check, op):
    """Whether a pass's potrf factored G (its info 0), read without a wait (the stream
    drained since); a G not positive definite is not for this method."""
    try:
        check.raise_if_failed(op, linalg.NOT_POSITIVE_DEFINITE, drained=True)
    except LinAlgError:
        return False
    return True


def _upper_inverse(f, n, op):
    """R^-1 of the upper triangular n x n ``f``: one trsm on the identity (no LU, no
    pivots, no info to read)."""
    inverse = _identity(f.device, f.dtype, n, writable=True)
    rocblas.solve_upper_right(inverse, f, n, n, op)
    return inverse


def _identity(device, dtype, n, writable=False):
    """The n x n identity, kept per (dtype, n) while small (``lc.constant``): the solves
    copy it, the check reads it (three made a call before, two launches each).
    ``writable``: one the caller may overwrite, a copy of the kept one only where one is
    kept (past the bound a fresh one is already the caller's own)."""
    kept = n * n <= lc.MASK_CACHE_MAX
    eye = lc.constant(device, ("identity", dtype.name, n), lambda: creation.eye(device, (n, n), dtype), kept)
    return eye.copy(Layout.contiguous((n, n))) if writable and kept else eye


def _check(q, m, n, top):
    """(max|Q^T Q - I|, Q's top block, its columns' zero tails) in one host read; the last
    two None unless ``top``. The block and the tails ride in the scalar's buffer: one
    transfer, no second wait."""
    sq = Layout.contiguous((n, n))
    eye = _identity(q.device, q.dtype, n)
    gram = rocblas.matmul(q, q, Layout.contiguous((m, n)).transpose_last2(), Layout.contiguous((m, n)))
    err = gram.binary(BinaryOp.SUBTRACT, sq, eye, sq).unary(UnaryOp.ABS, sq).reduce(ReduceOp.MAX, sq, (0, 1))
    if not top:
        return float(err.to_host(Layout.contiguous(()))[()]), None, None
    # nonzeros of rows n..m-1, column by column (exact: a count, not a sum of squares that
    # underflows), converted to Q's dtype to share its buffer
    tail = q.reduce(ReduceOp.COUNT_NONZERO, Layout((m - n, n), (n, 1), n * n), (0,))
    packed = q.device.storage_type.empty(q.device, q.dtype, n * n + n + 1)
    packed.assign(Layout.contiguous((n * n,)), q, Layout.contiguous((n * n,)))
    packed.assign(Layout((n,), (1,), n * n), tail.astype(Layout.contiguous((n,)), q.dtype), Layout.contiguous((n,)))
    packed.assign(Layout((1,), (1,), n * n + n), err, Layout.contiguous((1,)))
    host = packed.to_host(Layout.contiguous((n * n + n + 1,)))
    return float(host[-1]), host[:n * n].reshape(n, n), host[n * n:n * n + n] == 0

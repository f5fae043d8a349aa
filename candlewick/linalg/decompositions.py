"""Factorizations and solvers: each is one call of an optional "linalg" primitive.

The front end checks dtypes and shapes and that the device declares the capability;
the primitive does the numerics, batched over the leading dimensions.
"""

from .. import dtypes as _dt
from .._core import promote_pair, require_array, wrap
from ..errors import ArgumentValueError, ShapeError, short_repr
from ..layout import broadcast_shapes
from ._common import (
    EighResult, QRResult, SlogdetResult, SVDResult, require_capability, require_floating,
    require_matrices,
)


def _square_input(x, fname):
    require_floating(x, fname)
    require_matrices(x, fname, square=True)
    require_capability(x, "linalg", fname)
    return x


def _matrix_input(x, fname):
    require_floating(x, fname)
    require_matrices(x, fname)
    require_capability(x, "linalg", fname)
    return x


def cholesky(x, /, *, upper=False):
    """Cholesky factor of Hermitian positive-definite matrices: lower ``L`` with
    ``x = L L^H``, or upper ``U = L^H`` with ``x = U^H U`` when ``upper``."""
    _square_input(x, "cholesky")
    storage = x._storage.cholesky(x._layout, bool(upper))
    return wrap(storage, x.shape, x._dtype, x._device)


def qr(x, /, *, mode="reduced"):
    """QR factorization ``x = Q R``; ``mode`` 'reduced' gives Q ``(..., M, K)``, R
    ``(..., K, N)`` with K = min(M, N); 'complete' gives Q ``(..., M, M)``, R ``(..., M, N)``."""
    if mode not in ("reduced", "complete"):
        raise ArgumentValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {short_repr(mode)}")
    _matrix_input(x, "qr")
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = m if mode == "complete" else min(m, n)
    q, r = x._storage.qr(x._layout, mode == "complete")
    return QRResult(
        wrap(q, batch + (m, k), x._dtype, x._device),
        wrap(r, batch + (k, n), x._dtype, x._device),
    )


def svd(x, /, *, full_matrices=True):
    """Singular value decomposition ``x = U diag(S) Vh`` with S real and descending."""
    _matrix_input(x, "svd")
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = min(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    u, s, vh = x._storage.svd(x._layout, bool(full_matrices))
    real = _dt.real_dtype_of(x._dtype)
    return SVDResult(
        wrap(u, batch + (m, u_cols), x._dtype, x._device),
        wrap(s, batch + (k,), real, x._device),
        wrap(vh, batch + (vh_rows, n), x._dtype, x._device),
    )


def svdvals(x, /):
    """Singular values of each matrix, descending, shape ``(..., min(M, N))``."""
    return svd(x, full_matrices=False).S


def eigh(x, /):
    """Eigenvalues (real, ascending) and eigenvectors (columns) of Hermitian matrices."""
    _square_input(x, "eigh")
    shape = x.shape
    values, vectors = x._storage.eigh(x._layout)
    return EighResult(
        wrap(values, shape[:-1], _dt.real_dtype_of(x._dtype), x._device),
        wrap(vectors, shape, x._dtype, x._device),
    )


def eigvalsh(x, /):
    """Eigenvalues (real, ascending) of Hermitian matrices."""
    return eigh(x).eigenvalues


def inv(x, /):
    """Inverse of each square matrix; LinAlgError for a singular one."""
    _square_input(x, "inv")
    return wrap(x._storage.inv(x._layout), x.shape, x._dtype, x._device)


def det(x, /):
    """Determinant of each square matrix, shape ``x.shape[:-2]``."""
    _square_input(x, "det")
    return wrap(x._storage.det(x._layout), x.shape[:-2], x._dtype, x._device)


def slogdet(x, /):
    """(sign, log|det|) of each square matrix; sign has x's dtype (a unit complex number
    for complex x), logabsdet is real; a singular matrix gives sign 0, logabsdet -inf."""
    _square_input(x, "slogdet")
    sign, logabs = x._storage.slogdet(x._layout)
    batch = x.shape[:-2]
    return SlogdetResult(
        wrap(sign, batch, x._dtype, x._device),
        wrap(logabs, batch, _dt.real_dtype_of(x._dtype), x._device),
    )


def solve(x1, x2, /):
    """Solve ``x1 @ out = x2`` for square ``x1`` ``(..., M, M)``. ``x2`` is ``(..., M, K)``
    (batch dims broadcast) or, when 1-D, a single ``(M,)`` right-hand side giving
    ``out`` of shape ``(..., M)``."""
    require_array(x1, "linalg.solve", "x1")
    require_array(x2, "linalg.solve", "x2")
    x1, x2 = promote_pair(x1, x2, "linalg.solve")
    require_floating(x1, "solve", "x1")
    require_matrices(x1, "solve", square=True)
    if x2.ndim == 0:
        raise ShapeError("linalg.solve: x2 must have at least 1 dimension")
    require_capability(x1, "linalg", "solve")
    m = x1.shape[-1]
    vector_rhs = x2.ndim == 1
    l1, l2 = x1._layout, x2._layout
    if vector_rhs:
        l2 = l2.expand_dims(1)
    if l2.shape[-2] != m:
        raise ShapeError(
            f"linalg.solve: x2 must have {m} rows to match x1 of shape {x1.shape}, got shape {x2.shape}"
        )
    k = l2.shape[-1]
    batch = broadcast_shapes(l1.shape[:-2], l2.shape[:-2])
    l1 = l1.broadcast_to(batch + (m, m))
    l2 = l2.broadcast_to(batch + (m, k))
    storage = x1._storage.solve(l1, x2._storage, l2)
    out_shape = batch + ((m,) if vector_rhs else (m, k))
    return wrap(storage, out_shape, x1._dtype, x1._device)

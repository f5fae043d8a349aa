"""Factorizations and solvers: each is one call of an optional "linalg" primitive.

The front end checks dtypes and shapes and that the device declares the capability;
the primitive does the numerics, batched over the leading dimensions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core import promote_pair, require_array
from ..array import wrap
from ..api_version import requires
from ..errors import ArgumentValueError, ShapeError, short_repr
from ..layout import broadcast_shapes
from ._common import (
    EigResult, EighResult, QRResult, SlogdetResult, SVDResult, require_capability, require_floating,
    require_matrices,
)

if TYPE_CHECKING:
    from ..array import Array
    from ._common import EighResult, QRResult, SVDResult, SlogdetResult


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


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices: lower ``L`` with
    ``x = L L^H``, or upper ``U = L^H`` with ``x = U^H U`` when ``upper``.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.
    upper : bool
        Return the upper factor U instead of L.

    Returns
    -------
    Array
        The triangular factor, of x's shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    LinAlgError
        If a matrix is not positive definite.
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> L = cw.linalg.cholesky(a)
    >>> bool(cw.all(cw.abs(L @ L.mT - a) < 1e-12))
    True
    """
    _square_input(x, "cholesky")
    storage = x._storage.cholesky(x._layout, bool(upper))
    return wrap(storage, x.shape, x._dtype, x._device)


def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """QR factorization ``x = Q R``; ``mode`` 'reduced' gives Q ``(..., M, K)``, R
    ``(..., K, N)`` with K = min(M, N); 'complete' gives Q ``(..., M, M)``, R ``(..., M, N)``.

    Parameters
    ----------
    x : Array
        Input array of matrices ``(..., M, N)``.
    mode : {'reduced', 'complete'}
        The shapes of Q and R.

    Returns
    -------
    QRResult
        ``Q`` (orthonormal columns) and ``R`` (upper triangular).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    ValueError
        If mode is unknown.
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> q, r = cw.linalg.qr(a)
    >>> q.shape, r.shape
    ((2, 2), (2, 2))
    """
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


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U diag(S) Vh`` with S real and descending.

    Parameters
    ----------
    x : Array
        Input array of matrices ``(..., M, N)``.
    full_matrices : bool
        U ``(..., M, M)`` and Vh ``(..., N, N)`` when True, else reduced to K = min(M, N).

    Returns
    -------
    SVDResult
        ``U``, ``S`` (real, descending) and ``Vh``.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> u, s, vh = cw.linalg.svd(cw.ones((3, 2)), full_matrices=False)
    >>> u.shape, s.shape, vh.shape
    ((3, 2), (2,), (2, 2))
    """
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


def svdvals(x: Array, /) -> Array:
    """Singular values of each matrix, descending, shape ``(..., min(M, N))``.

    Parameters
    ----------
    x : Array
        Input array of matrices ``(..., M, N)``.

    Returns
    -------
    Array
        Real singular values ``(..., K)``.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.svdvals(cw.asarray([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    return svd(x, full_matrices=False).S


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (real, ascending) and eigenvectors (columns) of Hermitian matrices.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    EighResult
        ``eigenvalues`` (real, ascending) and ``eigenvectors`` (columns).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.eigh(cw.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    _square_input(x, "eigh")
    shape = x.shape
    values, vectors = x._storage.eigh(x._layout)
    return EighResult(
        wrap(values, shape[:-1], _dt.real_dtype_of(x._dtype), x._device),
        wrap(vectors, shape, x._dtype, x._device),
    )


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (real, ascending) of Hermitian matrices.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    Array
        Real eigenvalues ``(..., M)``, ascending.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.eigvalsh(cw.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return eigh(x).eigenvalues


def _eig(x, fname):
    _square_input(x, fname)
    values, vectors = x._storage.eig(x._layout)
    dtype = x._dtype if x._dtype.is_complex else _dt.complex_dtype_of(x._dtype)
    shape = x.shape
    return EigResult(wrap(values, shape[:-1], dtype, x._device), wrap(vectors, shape, dtype, x._device))


@requires("2025.12")
def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors (columns, unit 2-norm) of general square
    matrices (2025.12); both complex: complex64 for float32/complex64 x, complex128 for
    float64/complex128. Their order is the backend's (LAPACK geev's), not sorted.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    EigResult
        ``eigenvalues`` ``(..., M)`` and ``eigenvectors`` ``(..., M, M)``, both complex.

    Raises
    ------
    ArgumentTypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions or the matrices are not square.
    ApiVersionError
        If the namespace follows the 2024.12 revision, which has no ``eig``.
    UnsupportedOperation
        If the device lacks the primitive.

    Examples
    --------
    >>> import candlewick as cw
    >>> w, v = cw.linalg.eig(cw.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> sorted(w.tolist(), key=abs), v.shape
    ([(2+0j), (3+0j)], (2, 2))
    """
    return _eig(x, "eig")


@requires("2025.12")
def eigvals(x: Array, /) -> Array:
    """Eigenvalues of general square matrices (2025.12), complex, as ``eig`` gives them.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    Array
        Complex eigenvalues ``(..., M)``, in the backend's order.

    Raises
    ------
    ArgumentTypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions or the matrices are not square.
    ApiVersionError
        If the namespace follows the 2024.12 revision, which has no ``eigvals``.
    UnsupportedOperation
        If the device lacks the primitive.

    Examples
    --------
    >>> import candlewick as cw
    >>> sorted(cw.linalg.eigvals(cw.asarray([[2.0, 0.0], [0.0, 3.0]])).tolist(), key=abs)
    [(2+0j), (3+0j)]
    """
    return _eig(x, "eigvals").eigenvalues


def inv(x: Array, /) -> Array:
    """Inverse of each square matrix; LinAlgError for a singular one.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    Array
        The inverses, of x's shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    LinAlgError
        If a matrix is singular.
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.inv(cw.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    _square_input(x, "inv")
    return wrap(x._storage.inv(x._layout), x.shape, x._dtype, x._device)


def det(x: Array, /) -> Array:
    """Determinant of each square matrix, shape ``x.shape[:-2]``.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    Array
        The determinants.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> round(float(cw.linalg.det(a)), 6)
    8.0
    """
    _square_input(x, "det")
    return wrap(x._storage.det(x._layout), x.shape[:-2], x._dtype, x._device)


def slogdet(x: Array, /) -> SlogdetResult:
    """(sign, log|det|) of each square matrix; sign has x's dtype (a unit complex number
    for complex x), logabsdet is real; a singular matrix gives sign 0, logabsdet -inf.

    Parameters
    ----------
    x : Array
        Input array of square matrices ``(..., M, M)``.

    Returns
    -------
    SlogdetResult
        ``sign`` and ``logabsdet`` (real).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If x has fewer than 2 dimensions (or the matrices are not square).
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> cw.linalg.slogdet(a).sign.item()
    1.0
    """
    _square_input(x, "slogdet")
    sign, logabs = x._storage.slogdet(x._layout)
    batch = x.shape[:-2]
    return SlogdetResult(
        wrap(sign, batch, x._dtype, x._device),
        wrap(logabs, batch, _dt.real_dtype_of(x._dtype), x._device),
    )


def solve(x1: Array, x2: Array, /) -> Array:
    """Solve ``x1 @ out = x2`` for square ``x1`` ``(..., M, M)``. ``x2`` is ``(..., M, K)``
    (batch dims broadcast) or, when 1-D, a single ``(M,)`` right-hand side giving
    ``out`` of shape ``(..., M)``.

    Parameters
    ----------
    x1 : Array
        Square coefficient matrices ``(..., M, M)``.
    x2 : Array
        Right-hand sides ``(..., M, K)`` or ``(M,)``.

    Returns
    -------
    Array
        The solutions.

    Raises
    ------
    TypeError
        If an operand is not a candlewick array.
    DTypeError
        If x is not floating point.
    ShapeError
        If the shapes do not fit.
    LinAlgError
        If x1 is singular.
    UnsupportedOperation
        If the device lacks the linalg primitives.

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> cw.linalg.solve(a, cw.asarray([8.0, 7.0])).tolist()
    [1.25, 1.5]
    """
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

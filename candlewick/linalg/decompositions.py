"""The factorizations: cholesky, qr, svd, svdvals, each one call of an optional "linalg"
primitive (eigen-decompositions are in ``eigen``; inverse, determinants and solve in
``linear_systems``).

The front end checks dtypes and shapes and that the device declares the capability;
the primitive does the numerics, batched over the leading dimensions.
"""

from __future__ import annotations

from .. import dtypes as _dt
from .._core import result_array
from ..arguments import flag, one_of
from ..array import Array, wrap
from ..docstrings import shared_doc
from ._common import LINALG_DOCS, QRResult, SVDResult, require_linalg_input


@shared_doc(LINALG_DOCS)
def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices: lower ``L`` with
    ``x = L L^H``, or upper ``U = L^H`` with ``x = U^H U`` when ``upper``.

    {linalg_params_square}
    upper : bool
        Return the upper factor U instead of L.

    Returns
    -------
    Array
        The triangular factor, of x's shape.

    {linalg_raises_head}
    LinAlgError
        If a matrix is not positive definite.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> L = cw.linalg.cholesky(a)
    >>> bool(cw.all(cw.abs(L @ L.mT - a) < 1e-12))
    True
    """
    require_linalg_input(x, "cholesky", square=True)
    storage = x._storage.cholesky(x._layout, flag(upper, "linalg.cholesky", "upper"))
    return wrap(storage, x.shape, x._dtype, x._device)


@shared_doc(LINALG_DOCS)
def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """QR factorization ``x = Q R``; ``mode`` 'reduced' gives Q ``(..., M, K)``, R
    ``(..., K, N)`` with K = min(M, N); 'complete' gives Q ``(..., M, M)``, R ``(..., M, N)``.

    {linalg_params_matrices}
    mode : {'reduced', 'complete'}
        The shapes of Q and R.

    Returns
    -------
    QRResult
        ``Q`` (orthonormal columns) and ``R`` (upper triangular).

    {linalg_raises_head}
    ValueError
        If mode is unknown.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> q, r = cw.linalg.qr(a)
    >>> q.shape, r.shape
    ((2, 2), (2, 2))
    """
    one_of(mode, ("reduced", "complete"), "linalg.qr", "mode")
    require_linalg_input(x, "qr")
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = m if mode == "complete" else min(m, n)
    q, r = x._storage.qr(x._layout, mode == "complete")
    return QRResult(
        # Q may come with its layout (column-major, as LAPACK leaves it): see the protocol
        result_array(Array, q, batch + (m, k), x._dtype, x._device, "linalg.qr"),
        wrap(r, batch + (k, n), x._dtype, x._device),
    )


@shared_doc(LINALG_DOCS)
def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U diag(S) Vh`` with S real and descending.

    {linalg_params_matrices}
    full_matrices : bool
        U ``(..., M, M)`` and Vh ``(..., N, N)`` when True, else reduced to K = min(M, N).

    Returns
    -------
    SVDResult
        ``U``, ``S`` (real, descending) and ``Vh``.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> u, s, vh = cw.linalg.svd(cw.ones((3, 2)), full_matrices=False)
    >>> u.shape, s.shape, vh.shape
    ((3, 2), (2,), (2, 2))
    """
    require_linalg_input(x, "svd")
    full_matrices = flag(full_matrices, "linalg.svd", "full_matrices")
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = min(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    u, s, vh = x._storage.svd(x._layout, bool(full_matrices))
    real = _dt.real_dtype_of(x._dtype)
    return SVDResult(  # U and Vh may come with their layouts: see the protocol
        result_array(Array, u, batch + (m, u_cols), x._dtype, x._device, "linalg.svd"),
        wrap(s, batch + (k,), real, x._device),
        result_array(Array, vh, batch + (vh_rows, n), x._dtype, x._device, "linalg.svd"),
    )


@shared_doc(LINALG_DOCS)
def svdvals(x: Array, /) -> Array:
    """Singular values of each matrix, descending, shape ``(..., min(M, N))``.

    {linalg_params_matrices}

    Returns
    -------
    Array
        Real singular values ``(..., K)``.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.svdvals(cw.asarray([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    return svd(x, full_matrices=False).S

"""Eigen-decompositions: eigh and eigvalsh of Hermitian matrices, eig and eigvals
(2025.12) of general square ones, each one call of an optional "linalg" primitive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as _dt
from ..array import wrap
from ..api_version import requires
from ..docstrings import shared_doc
from ._common import LINALG_DOCS, EigResult, EighResult, require_linalg_input

if TYPE_CHECKING:
    from ..array import Array


@shared_doc(LINALG_DOCS)
def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (real, ascending) and eigenvectors (columns) of Hermitian matrices.

    {linalg_params_square}

    Returns
    -------
    EighResult
        ``eigenvalues`` (real, ascending) and ``eigenvectors`` (columns).

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.eigh(cw.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    require_linalg_input(x, "eigh", square=True)
    shape = x.shape
    values, vectors = x._storage.eigh(x._layout)
    return EighResult(
        wrap(values, shape[:-1], _dt.real_dtype_of(x._dtype), x._device),
        wrap(vectors, shape, x._dtype, x._device),
    )


@shared_doc(LINALG_DOCS)
def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (real, ascending) of Hermitian matrices.

    {linalg_params_square}

    Returns
    -------
    Array
        Real eigenvalues ``(..., M)``, ascending.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.eigvalsh(cw.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return eigh(x).eigenvalues


def _eig(x, fname):
    require_linalg_input(x, fname, square=True)
    values, vectors = x._storage.eig(x._layout)
    dtype = x._dtype if x._dtype.is_complex else _dt.complex_dtype_of(x._dtype)
    shape = x.shape
    return EigResult(wrap(values, shape[:-1], dtype, x._device), wrap(vectors, shape, dtype, x._device))


@requires("2025.12")
@shared_doc(LINALG_DOCS)
def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors (columns, unit 2-norm) of general square
    matrices (2025.12); both complex: complex64 for float32/complex64 x, complex128 for
    float64/complex128. Their order is the backend's (LAPACK geev's), not sorted.

    {linalg_params_square}

    Returns
    -------
    EigResult
        ``eigenvalues`` ``(..., M)`` and ``eigenvectors`` ``(..., M, M)``, both complex.

    {linalg_raises_head}
    ApiVersionError
        If the namespace follows the 2024.12 revision, which has no ``eig``.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> w, v = cw.linalg.eig(cw.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> sorted(w.tolist(), key=abs), v.shape
    ([(2+0j), (3+0j)], (2, 2))
    """
    return _eig(x, "eig")


@requires("2025.12")
@shared_doc(LINALG_DOCS)
def eigvals(x: Array, /) -> Array:
    """Eigenvalues of general square matrices (2025.12), complex, as ``eig`` gives them.

    {linalg_params_square}

    Returns
    -------
    Array
        Complex eigenvalues ``(..., M)``, in the backend's order.

    {linalg_raises_head}
    ApiVersionError
        If the namespace follows the 2024.12 revision, which has no ``eigvals``.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> sorted(cw.linalg.eigvals(cw.asarray([[2.0, 0.0], [0.0, 3.0]])).tolist(), key=abs)
    [(2+0j), (3+0j)]
    """
    return _eig(x, "eigvals").eigenvalues

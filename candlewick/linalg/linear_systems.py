"""Inverse, determinants and linear solves of square matrices (inv, det, slogdet, solve),
each one call of an optional "linalg" primitive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core import promote_pair, require_array
from ..array import wrap
from ..docstrings import shared_doc
from ..errors import ShapeError
from ..shapes import broadcast_shapes
from ._common import (
    LINALG_DOCS, SlogdetResult, require_capability, require_floating, require_linalg_input, require_matrices,
)

if TYPE_CHECKING:
    from ..array import Array


@shared_doc(LINALG_DOCS)
def inv(x: Array, /) -> Array:
    """Inverse of each square matrix; LinAlgError for a singular one.

    {linalg_params_square}

    Returns
    -------
    Array
        The inverses, of x's shape.

    {linalg_raises_head}
    LinAlgError
        If a matrix is singular.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.inv(cw.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    require_linalg_input(x, "inv", square=True)
    return wrap(x._storage.inv(x._layout), x.shape, x._dtype, x._device)


@shared_doc(LINALG_DOCS)
def det(x: Array, /) -> Array:
    """Determinant of each square matrix, shape ``x.shape[:-2]``.

    {linalg_params_square}

    Returns
    -------
    Array
        The determinants.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> round(float(cw.linalg.det(a)), 6)
    8.0
    """
    require_linalg_input(x, "det", square=True)
    return wrap(x._storage.det(x._layout), x.shape[:-2], x._dtype, x._device)


@shared_doc(LINALG_DOCS)
def slogdet(x: Array, /) -> SlogdetResult:
    """(sign, log|det|) of each square matrix; sign has x's dtype (a unit complex number
    for complex x), logabsdet is real; a singular matrix gives sign 0, logabsdet -inf.

    {linalg_params_square}

    Returns
    -------
    SlogdetResult
        ``sign`` and ``logabsdet`` (real).

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> a = cw.asarray([[4.0, 2.0], [2.0, 3.0]])
    >>> cw.linalg.slogdet(a).sign.item()
    1.0
    """
    require_linalg_input(x, "slogdet", square=True)
    sign, logabs = x._storage.slogdet(x._layout)
    batch = x.shape[:-2]
    return SlogdetResult(
        wrap(sign, batch, x._dtype, x._device),
        wrap(logabs, batch, _dt.real_dtype_of(x._dtype), x._device),
    )


@shared_doc(LINALG_DOCS)
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
    {raises_operand_not_array}
    DTypeError
        If x is not floating point.
    ShapeError
        If the shapes do not fit.
    LinAlgError
        If x1 is singular.
    {linalg_raises_unsupported}

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

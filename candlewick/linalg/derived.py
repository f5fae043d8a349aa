"""Functions composed from the decompositions and core primitives: pinv, matrix_rank,
matrix_power, matrix_norm, vector_norm."""

from __future__ import annotations

import math
import numbers
import operator

from .. import dtypes as _dt
from .. import elementwise as _ew
from .. import statistical as _st
from .._core import contiguous_layout, require_array, view
from ..arguments import flag
from ..array import Array, wrap
from ..data_types import finfo
from ..docstrings import shared_doc
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, short_repr
from ..layout import Layout
from ..shapes import normalize_axes
from ..matrix_products import matmul
from .decompositions import svd, svdvals
from .linear_systems import inv
from ._common import LINALG_DOCS, require_floating, require_matrices, require_numeric, select


def _conj_transpose(x):
    t = view(x, x._layout.transpose_last2())
    return _ew.conj(t) if x._dtype.is_complex else t


def _cutoff(s, x, rtol, fname):
    """``rtol * max(S)`` per matrix, shaped to broadcast against S ``(..., K)``."""
    real = s._dtype
    if rtol is None:
        rtol = max(x.shape[-2:]) * finfo(real).eps
    largest = _st.max(s, axis=-1, keepdims=True)
    if isinstance(rtol, Array):
        if not rtol._dtype.is_floating:
            raise DTypeError(f"linalg.{fname}: rtol must have a real floating dtype, got {rtol._dtype.name}")
        rtol = view(rtol, rtol._layout.expand_dims(rtol.ndim)).astype(real, copy=False)
        return _ew.multiply(largest, rtol)
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise ArgumentTypeError(f"linalg.{fname}: rtol must be a float, an array or None, got {type(rtol).__name__}")
    return _ew.multiply(largest, float(rtol))


@shared_doc(LINALG_DOCS)
def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse ``V diag(1/S) U^H`` from the SVD, singular values
    at or below ``rtol * max(S)`` (default ``max(M, N) * eps``) treated as zero.

    {linalg_params_rtol}

    Returns
    -------
    Array
        The pseudo-inverses ``(..., N, M)``.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.pinv(cw.asarray([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    require_floating(x, "pinv")
    require_matrices(x, "pinv")
    *batch, m, n = x.shape
    if m == 0 or n == 0:
        shape = tuple(batch) + (n, m)
        return wrap(x._device.zeros(shape, x._dtype), shape, x._dtype, x._device)
    u, s, vh = svd(x, full_matrices=False)
    keep = _ew.greater(s, _cutoff(s, x, rtol, "pinv"))
    s_inv = select(keep, _ew.reciprocal(s), _zero(s))
    s_inv = s_inv.astype(x._dtype, copy=False)
    scaled = _ew.multiply(view(s_inv, s_inv._layout.expand_dims(s_inv.ndim)), _conj_transpose(u))
    return matmul(_conj_transpose(vh), scaled)


def _zero(like):
    return wrap(like._device.zeros((), like._dtype), (), like._dtype, like._device)


@shared_doc(LINALG_DOCS)
def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Number of singular values above ``rtol * max(S)`` (default ``max(M, N) * eps``).

    {linalg_params_rtol}

    Returns
    -------
    Array
        int64 ranks.

    {linalg_raises}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.matrix_rank(cw.ones((3, 3))).item()
    1
    """
    require_floating(x, "matrix_rank")
    require_matrices(x, "matrix_rank")
    if min(x.shape[-2:]) == 0:
        shape = x.shape[:-2]
        return wrap(x._device.zeros(shape, _dt.DEFAULT_INDEX), shape, _dt.DEFAULT_INDEX, x._device)
    s = svdvals(x)
    return _st.sum(_ew.greater(s, _cutoff(s, x, rtol, "matrix_rank")), axis=-1, dtype=_dt.DEFAULT_INDEX)


@shared_doc(LINALG_DOCS)
def matrix_power(x: Array, n: int, /) -> Array:
    """``x`` raised to the integer power ``n`` by repeated squaring (``n = 0`` gives the
    identity, ``n < 0`` the power of the inverse, which needs a floating dtype).

    {linalg_params_square}
    n : int
        The power; negative powers invert first.

    Returns
    -------
    Array
        The powers, of x's shape.

    Raises
    ------
    {raises_x_not_array}
    TypeError
        If n is not an int.
    {linalg_raises_shape}
    LinAlgError
        If n < 0 and a matrix is singular.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.matrix_power(cw.asarray([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    require_numeric(x, "matrix_power")
    require_matrices(x, "matrix_power", square=True)
    if isinstance(n, bool):
        raise ArgumentTypeError("linalg.matrix_power: n must be an integer, got bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise ArgumentTypeError(f"linalg.matrix_power: n must be an integer, got {type(n).__name__}") from None
    if n == 0:
        return _identity_like(x)
    if n < 0:
        if not (x._dtype.is_floating or x._dtype.is_complex):
            raise DTypeError(f"linalg.matrix_power: n < 0 needs a floating-point dtype, got {x._dtype.name}")
        x, n = inv(x), -n
    result = None
    base = x
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    if result is x:  # n == 1: a new array, never the input itself
        result = wrap(x._storage.copy(x._layout), x.shape, x._dtype, x._device)
    return result


def _identity_like(x):
    m = x.shape[-1]
    eye = x._device.zeros((m, m), x._dtype)
    if m:
        # the diagonal of a C-contiguous (m, m) matrix is a 1-D view of stride m + 1
        eye.fill(Layout((m,), (m + 1,), 0), True if x._dtype.is_bool else 1)
    spread = contiguous_layout((m, m)).broadcast_to(x.shape)
    return wrap(eye.copy(spread), x.shape, x._dtype, x._device)


def _sum_of_squares(x, axes, keepdims):
    """``sum(|x|**2)`` over ``axes``. For real x reduced over trailing axes that view as
    one contiguous run this is one batched matmul ``(*B, 1, K) @ (*B, K, 1)``; otherwise
    square (of abs, for complex) and sum."""
    ndim = x.ndim
    shape = x._layout.shape
    if x._dtype.is_floating and axes == tuple(range(ndim - len(axes), ndim)):
        batch = shape[: ndim - len(axes)]
        k = 1
        for a in axes:
            k *= shape[a]
        rows = x._layout.reshape(batch + (k,))
        if rows is not None:
            b = len(batch)
            storage = x._storage.matmul(x._storage, rows.expand_dims(b), rows.expand_dims(b + 1))
            out_shape = batch + (1,) * len(axes) if keepdims else batch
            return wrap(storage, out_shape, x._dtype, x._device)
    squares = _ew.square(_ew.abs(x) if x._dtype.is_complex else x)
    return _st.sum(squares, axis=axes, keepdims=keepdims)


_NORM_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


@shared_doc(LINALG_DOCS)
def matrix_norm(x: Array, /, *, keepdims: bool = False, ord: int | float | str = "fro") -> Array:
    """Matrix norm of each matrix: 'fro' (default), 'nuc', 1/-1 (max/min column sum),
    2/-2 (largest/smallest singular value), inf/-inf (max/min row sum). Real result.

    {linalg_params_matrices}
    keepdims : bool
        Keep the two matrix axes as length 1.
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}
        The norm.

    Returns
    -------
    Array
        Real norms.

    {linalg_raises_head}
    ValueError
        If ord is not one of the above.
    {linalg_raises_unsupported}

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.matrix_norm(cw.asarray([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    require_floating(x, "matrix_norm")
    keepdims = flag(keepdims, "linalg.matrix_norm", "keepdims")
    require_matrices(x, "matrix_norm")
    if isinstance(ord, bool) or not isinstance(ord, (str, numbers.Real)) or ord not in _NORM_ORDERS:
        raise ArgumentValueError(f"linalg.matrix_norm: ord must be one of {_NORM_ORDERS}, got {short_repr(ord)}")
    if ord == "fro":
        out = _ew.sqrt(_sum_of_squares(x, (x.ndim - 2, x.ndim - 1), False))
    elif ord in ("nuc", 2, -2):
        s = svdvals(x)
        if ord == "nuc":
            out = _st.sum(s, axis=-1)
        else:
            out = (_st.max if ord == 2 else _st.min)(s, axis=-1)
    else:
        # 1: sums over rows (axis -2) per column; inf: sums over columns per row
        sums = _st.sum(_ew.abs(x), axis=-2 if ord in (1, -1) else -1)
        out = (_st.max if ord > 0 else _st.min)(sums, axis=-1)
    if keepdims:
        out = view(out, out._layout.expand_dims(out.ndim).expand_dims(out.ndim + 1))
    return out


@shared_doc(LINALG_DOCS)
def vector_norm(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: int | float = 2) -> Array:
    """p-norm over ``axis`` (None: all elements): ``ord`` inf/-inf (max/min ``|x|``), 0 (count
    of non-zeros), 1, 2, or any other p (``sum(|x|**p)**(1/p)``). Real result.

    Parameters
    ----------
    {param_x}
    axis : int, tuple of int or None
        The axes; None for all elements.
    keepdims : bool
        Keep the reduced axes as length 1.
    ord : int or float
        The p of the p-norm (inf, -inf, 0 included).

    Returns
    -------
    Array
        Real norms.

    Raises
    ------
    {raises_x_not_array}
    DTypeError
        If x is not numeric.
    AxisError
        If an axis is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linalg.vector_norm(cw.asarray([3.0, 4.0])).item()
    5.0
    """
    require_array(x, "linalg.vector_norm")
    keepdims = flag(keepdims, "linalg.vector_norm", "keepdims")
    if not (x._dtype.is_floating or x._dtype.is_complex):
        raise DTypeError(f"linalg.vector_norm: x must have a floating-point dtype, got {x._dtype.name}")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ArgumentTypeError(f"linalg.vector_norm: ord must be an int or float, got {type(ord).__name__}")
    axes = normalize_axes(axis, x.ndim)
    if ord == 2:
        return _ew.sqrt(_sum_of_squares(x, axes, keepdims))
    a = _ew.abs(x)
    if ord == math.inf:
        if any(x.shape[i] == 0 for i in axes):  # NumPy and array-api-strict: 0 for no elements
            return _st.sum(a, axis=axes, keepdims=keepdims)
        return _st.max(a, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return _st.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        nonzero = _ew.not_equal(a, 0.0).astype(a._dtype)
        return _st.sum(nonzero, axis=axes, keepdims=keepdims)
    if ord == 1:
        return _st.sum(a, axis=axes, keepdims=keepdims)
    total = _st.sum(_ew.pow(a, float(ord)), axis=axes, keepdims=keepdims)
    return _ew.pow(total, 1.0 / ord)

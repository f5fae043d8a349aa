"""Matrices by their diagonal, of the Array API's creation functions: ``eye`` (ones on
one diagonal) and ``tril``/``triu`` (one triangle of each matrix kept, through a cached
mask and ``where``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import check_dtype_on, contiguous_layout, require_array
from .allocation import check_allocation
from .arguments import integer
from .array import wrap
from .errors import ShapeError
from .layout import Layout
from .opdefs import CompareOp
from .registry import get_device

if TYPE_CHECKING:
    from ._types import DTypeLike, DeviceLike
    from .array import Array


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: DTypeLike | None = None,
        device: DeviceLike | None = None) -> Array:
    """A ``(n_rows, n_cols)`` array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    n_cols : int or None
        Number of columns; None for n_rows.
    k : int
        The diagonal: 0 the main one, > 0 above it, < 0 below it.
    dtype : DType or None
        The dtype of the result; None for the default floating dtype.
    device : str, device or None
        The device of the result; None for the default device.

    Returns
    -------
    Array
        A new 2-D array.

    Raises
    ------
    TypeError
        If a size or k is not an int.
    ValueError
        If a size is negative.
    DTypeError
        If dtype names no candlewick dtype.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    n_rows = integer(n_rows, "eye", "n_rows", 0)
    n_cols = n_rows if n_cols is None else integer(n_cols, "eye", "n_cols", 0)
    k = integer(k, "eye", "k")
    dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype)
    device = get_device(device)
    check_dtype_on(device, dtype)
    shape = (n_rows, n_cols)
    check_allocation("eye", shape, dtype, device)
    storage = device.zeros(shape, dtype)
    if k >= 0:
        length, offset = min(n_rows, n_cols - k), k
    else:
        length, offset = min(n_rows + k, n_cols), -k * n_cols
    if length > 0:
        # the k-th diagonal of a C-contiguous matrix is a 1-D view of stride n_cols + 1
        # (contiguous only when it holds one element: its C-order flag set here, not derived)
        storage.fill(Layout((length,), (n_cols + 1,), offset, length == 1), True if dtype.is_bool else 1)
    return wrap(storage, shape, dtype, device)


def _triangle(x, k, keep_lower, fname):
    require_array(x, fname)
    k = integer(k, fname, "k")
    if x.ndim < 2:
        raise ShapeError(f"{fname}: x must have at least 2 dimensions, got shape {x.shape}")
    m, n = x.shape[-2:]
    device, dtype = x._device, x._dtype
    # clamping k keeps i + k inside int64 without changing which elements are kept
    k = max(-m - 1, min(k, n + 1))
    mask = _triangle_mask(device, m, n, k, keep_lower)
    shape = x._layout.shape
    batch = len(shape) - 2
    mask_l = Layout(shape, (0,) * batch + (n, 1), 0) if batch else contiguous_layout(shape)
    zero_l = Layout(shape, (0,) * len(shape), 0)
    zero = device.zeros((), dtype)
    return wrap(mask.where(mask_l, x._storage, x._layout, zero, zero_l), shape, dtype, device)


_MASKS: dict[tuple, object] = {}


def _triangle_mask(device, m, n, k, keep_lower):
    """Bool (m, n) storage: j <= i + k (lower) or j >= i + k (upper). Small masks are
    kept (they are never written), so repeated tril/triu of one shape cost one ``where``."""
    key = (device, m, n, k, keep_lower)
    mask = _MASKS.get(key)
    if mask is not None:
        return mask
    # the narrowest signed type holding k - 1 ... m + n + 1: a narrower compare is faster
    reach = m + n + 2
    idx = _dt.int16 if reach < 2**15 else _dt.int32 if reach < 2**31 else _dt.int64
    rows_plus_k = device.arange(k, 1, m, idx)
    cols = device.arange(0, 1, n, idx)
    op = CompareOp.LESS_EQUAL if keep_lower else CompareOp.GREATER_EQUAL
    mn = (m, n)
    mask = cols.compare(op, Layout(mn, (0, 1), 0), rows_plus_k, Layout(mn, (1, 0), 0))
    if m * n <= 4096:
        if len(_MASKS) >= 256:
            _MASKS.clear()
        _MASKS[key] = mask
    return mask


def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of each matrix in ``x`` (elements above the k-th diagonal zeroed).

    Parameters
    ----------
    x : Array
        Input array of at least 2 dimensions.
    k : int
        The diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns
    -------
    Array
        A new array of x's shape and dtype.

    Raises
    ------
    TypeError
        If x is not a candlewick array or k is not an int.
    ShapeError
        If x has fewer than 2 dimensions.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.tril(cw.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return _triangle(x, k, True, "tril")


def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of each matrix in ``x`` (elements below the k-th diagonal zeroed).

    Parameters
    ----------
    x : Array
        Input array of at least 2 dimensions.
    k : int
        The diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns
    -------
    Array
        A new array of x's shape and dtype.

    Raises
    ------
    TypeError
        If x is not a candlewick array or k is not an int.
    ShapeError
        If x has fewer than 2 dimensions.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.triu(cw.ones((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    return _triangle(x, k, False, "triu")

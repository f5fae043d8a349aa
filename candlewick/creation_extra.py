"""Creation functions built from layouts and primitives: eye, linspace, meshgrid, tril, triu.

(``from_dlpack`` lives in ``candlewick.dlpack`` with the rest of the DLPack exchange.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import operator

from . import dtypes as _dt
from ._core import check_dtype_on, contiguous_layout, require_array
from .array import wrap
from .api_version import revision_sequence
from .allocation import check_allocation
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, DTypeError, ShapeError, short_repr
from .layout import Layout
from .opdefs import BinaryOp, CompareOp
from .registry import get_device
from .shapes import check_ndim

if TYPE_CHECKING:
    from ._types import DTypeLike, DeviceLike
    from .array import Array


def _int_arg(value, fname, argname, minimum=None):
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{fname}: {argname} must be an integer, got {type(value).__name__}") from None
    if minimum is not None and value < minimum:
        raise ArgumentValueError(f"{fname}: {argname} must be >= {minimum}, got {value}")
    return value


def _dtype_arg(dtype: DTypeLike | None, default: _dt.DType) -> _dt.DType:
    if dtype is None:
        return default
    if not isinstance(dtype, _dt.DType):
        return _dt.as_dtype(dtype)
    return dtype


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
    n_rows = _int_arg(n_rows, "eye", "n_rows", 0)
    n_cols = n_rows if n_cols is None else _int_arg(n_cols, "eye", "n_cols", 0)
    k = _int_arg(k, "eye", "k")
    dtype = _dtype_arg(dtype, _dt.DEFAULT_FLOAT)
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


def linspace(start: int | float | complex, stop: int | float | complex, /, num: int, *,
             dtype: DTypeLike | None = None, device: DeviceLike | None = None,
             endpoint: bool = True) -> Array:
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive when ``endpoint``).

    Values are ``start + i * step`` computed in float64 (per component for complex) and
    rounded once to ``dtype``; with ``endpoint`` the last value is exactly ``stop``.

    Parameters
    ----------
    start : int, float or complex
        The first value.
    stop : int, float or complex
        The last value (or the end, excluded).
    num : int
        The number of values (>= 0).
    dtype : DType or None
        The dtype of the result; None for the default floating dtype.
    device : str, device or None
        The device of the result; None for the default device.
    endpoint : bool
        Include stop as the last value.

    Returns
    -------
    Array
        A 1-D array of num values.

    Raises
    ------
    TypeError
        If start or stop is not a number, or num is not an int.
    ValueError
        If num is negative.
    DTypeError
        If dtype cannot hold the values (complex bounds with a real dtype).

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
            raise ArgumentTypeError(f"linspace: {name} must be an int, float or complex, got {type(v).__name__}")
    num = _int_arg(num, "linspace", "num", 0)
    if not isinstance(endpoint, bool):
        raise ArgumentTypeError(f"linspace: endpoint must be a bool, got {type(endpoint).__name__}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    dtype = _dtype_arg(dtype, _dt.DEFAULT_COMPLEX if is_complex else _dt.DEFAULT_FLOAT)
    if not (dtype.is_floating or dtype.is_complex):
        raise DTypeError(f"linspace: dtype must be a floating-point dtype, got {dtype.name}")
    if is_complex and not dtype.is_complex:
        raise DTypeError(f"linspace: complex start/stop need a complex dtype, got {dtype.name}")
    device = get_device(device)
    check_dtype_on(device, dtype)
    check_allocation("linspace", (num,), dtype, device)
    div = (num - 1) if endpoint else num
    if dtype.is_complex:
        start, stop = complex(start), complex(stop)
        real = _spaced(device, start.real, stop.real, num, div, _dt.real_dtype_of(dtype))
        imag = _spaced(device, start.imag, stop.imag, num, div, _dt.real_dtype_of(dtype))
        layout = contiguous_layout((num,))
        real = real.astype(layout, dtype)
        imag = imag.astype(layout, dtype).binary_scalar(BinaryOp.MULTIPLY, layout, 1j, False)
        storage = real.binary(BinaryOp.ADD, layout, imag, layout)
    else:
        storage = _spaced(device, float(start), float(stop), num, div, dtype)  # type: ignore[arg-type]  # complex took the branch above
    if endpoint and num > 1:
        storage.fill(Layout((1,), (1,), num - 1), complex(stop) if dtype.is_complex else float(stop))  # type: ignore[arg-type]
    return wrap(storage, (num,), dtype, device)


def _spaced(device, start, stop, num, div, dtype):
    step = (stop - start) / div if div > 0 else 0.0
    return device.arange(start, step, num, dtype)


def meshgrid(*arrays: Array, indexing: str = "xy") -> list[Array]:
    """Coordinate matrices from 1-D arrays (``'xy'``: Cartesian, ``'ij'``: matrix indexing).
    Each output is a new contiguous array (not a broadcast view), as NumPy's default.

    Parameters
    ----------
    *arrays : Array
        1-D arrays of one dtype and device.
    indexing : {'xy', 'ij'}
        Cartesian or matrix indexing.

    Returns
    -------
    list of Array
        One array per input, each of the grid's shape.

    Raises
    ------
    ValueError
        If indexing is neither 'xy' nor 'ij', or an array is not 1-D.
    TypeError
        If an argument is not a candlewick array.
    DTypeError
        If the arrays differ in dtype.
    DeviceMismatchError
        If the arrays are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> xs, ys = cw.meshgrid(cw.asarray([1, 2, 3]), cw.asarray([4, 5]))
    >>> xs.shape
    (2, 3)
    """
    if indexing not in ("xy", "ij"):
        raise ArgumentValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {short_repr(indexing)}")
    for a in arrays:
        require_array(a, "meshgrid", "arrays")
        if a.ndim != 1:
            raise ShapeError(f"meshgrid: every array must be 1-D, got shape {a.shape}")
    if not arrays:
        return revision_sequence(())
    first = arrays[0]
    for a in arrays[1:]:
        if a._dtype is not first._dtype:
            raise DTypeError(f"meshgrid: arrays must share one dtype, got {first._dtype.name} and {a._dtype.name}")
        if a._device is not first._device:
            raise DeviceMismatchError("meshgrid: arrays must be on one device")
    sizes = [a.shape[0] for a in arrays]
    axis_of = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
        axis_of[0], axis_of[1] = 1, 0
    out_shape = tuple(sizes)
    check_ndim(len(out_shape))
    check_allocation("meshgrid", out_shape, first._dtype, first._device, count=len(arrays))
    out = []
    for a, axis in zip(arrays, axis_of):
        lay = a._layout
        strides = [0] * len(out_shape)
        strides[axis] = lay.strides[0]
        spread = Layout(out_shape, tuple(strides), lay.offset)
        out.append(wrap(a._storage.copy(spread), out_shape, a._dtype, a._device))
    return revision_sequence(out)


def _triangle(x, k, keep_lower, fname):
    require_array(x, fname)
    k = _int_arg(k, fname, "k")
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

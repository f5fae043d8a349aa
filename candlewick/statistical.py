"""Statistical functions of the Array API, on the ``reduce`` and ``scan`` primitives:
sum, prod, max, min, mean, std, var, cumulative_sum, cumulative_prod."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import RESULT, check_accepts, contiguous_layout, require_array
from .array import wrap
from .elementwise import binary, unary
from .arguments import flag
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from .layout import normalize_axes, normalize_axis
from .opdefs import BinaryOp, ReduceOp, ScanOp, UnaryOp

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, DTypeLike


def _keep(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    if len(axes) == len(shape):
        return ()
    return tuple(n for i, n in enumerate(shape) if i not in axes)


_NO_IDENTITY = (ReduceOp.MIN, ReduceOp.MAX)


def reduce_array(op, x, axis, keepdims, fname):
    """Apply a ReduceOp over ``axis`` (None, int or tuple) with keepdims handling."""
    require_array(x, fname)
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape), f"{fname}: axis")
    keepdims = flag(keepdims, fname, "keepdims")
    out_dtype = RESULT[op].get(x._dtype) or check_accepts(op, x._dtype, fname)
    if op in _NO_IDENTITY and 0 in shape and any(shape[a] == 0 for a in axes):
        raise ArgumentValueError(f"{fname}: zero-size reduction has no identity (array shape {shape}, axes {axes})")
    storage = x._storage.reduce(op, x._layout, axes)
    return wrap(storage, _keep(shape, axes, keepdims), out_dtype, x._device)


def _accumulation_dtype(x, dtype, fname):
    """sum/prod/cumulative_* result dtype: ``dtype`` if given; else bool and signed
    integers accumulate in the default integer, unsigned in uint64, others keep theirs."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype, "dtype")
        if dtype.is_bool:
            raise DTypeError(f"{fname}: dtype must be numeric, got bool")
        if x._dtype.is_complex and not dtype.is_complex:
            raise DTypeError(f"{fname}: dtype {dtype.name} cannot hold a complex {x._dtype.name} result")
        return dtype
    return _DEFAULT_ACCUMULATION[x._dtype]


_DEFAULT_ACCUMULATION = {
    d: _dt.DEFAULT_INT if d.is_bool or d in _dt.SIGNED else _dt.uint64 if d in _dt.UNSIGNED else d
    for d in _dt.ALL_DTYPES
}


def _sum_like(op, x, axis, dtype, keepdims, fname):
    require_array(x, fname)
    acc = _accumulation_dtype(x, dtype, fname)
    if acc is not x._dtype:
        x = x.astype(acc)
    return reduce_array(op, x, axis, keepdims, fname)


def sum(x: Array, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
        keepdims: bool = False) -> Array:
    """Sum over ``axis``; integers accumulate in the default integer dtype.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    dtype : DType or None
        The accumulation and result dtype; None for x's dtype, widened to the default
        integer dtype for bool and integers.
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If dtype is of a lower kind than x's.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.sum(x, axis=0).tolist()
    [4.0, 6.0]
    """
    return _sum_like(ReduceOp.SUM, x, axis, dtype, keepdims, "sum")


def prod(x: Array, /, *, axis: Axes | None = None, dtype: DTypeLike | None = None,
         keepdims: bool = False) -> Array:
    """Product over ``axis``; integers accumulate in the default integer dtype.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    dtype : DType or None
        The accumulation and result dtype; None for x's dtype, widened to the default
        integer dtype for bool and integers.
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If dtype is of a lower kind than x's.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.prod(x, axis=1).tolist()
    [2.0, 12.0]
    """
    return _sum_like(ReduceOp.PROD, x, axis, dtype, keepdims, "prod")


def max(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Maximum over ``axis``; NaN propagates; zero-size reductions raise ValueError.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If x is complex.
    ValueError
        If the reduction is over zero elements.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.max(x).item()
    4.0
    """
    _no_complex(x, "max")
    return reduce_array(ReduceOp.MAX, x, axis, keepdims, "max")


def min(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Minimum over ``axis``; NaN propagates; zero-size reductions raise ValueError.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If x is complex.
    ValueError
        If the reduction is over zero elements.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.min(x, axis=1, keepdims=True).shape
    (2, 1)
    """
    _no_complex(x, "min")
    return reduce_array(ReduceOp.MIN, x, axis, keepdims, "min")


def _no_complex(x, fname):
    require_array(x, fname)
    if x._dtype.is_complex:
        raise DTypeError(f"{fname}: complex numbers have no order; got {x._dtype.name}")


def _scale(a, factor):
    """``a * factor`` for a Python float factor, in a's dtype."""
    if a._dtype.is_complex:
        storage = a._storage.binary_scalar(BinaryOp.MULTIPLY, a._layout, complex(factor), False)
    else:
        storage = a._storage.affine(a._layout, factor, 0.0)
    return wrap(storage, a._layout.shape, a._dtype, a._device)


def _divide(a, count):
    """``a / count`` in a's dtype (a true division, as NumPy's mean; 0/0 gives NaN)."""
    divisor = complex(count) if a._dtype.is_complex else float(count)
    storage = a._storage.binary_scalar(BinaryOp.DIVIDE, a._layout, divisor, False)
    return wrap(storage, a._layout.shape, a._dtype, a._device)


def _floating(x, fname):
    """x as a floating (or complex) array: bool and integers use the default float."""
    require_array(x, fname)
    if x._dtype.is_bool or x._dtype.is_integer:
        return x.astype(_dt.DEFAULT_FLOAT)
    return x


def _count(shape, axes):
    count = 1
    for a in axes:
        count *= shape[a]
    return count


#: float16 and bfloat16 statistics are computed in float32 and rounded once at the end
#: (NumPy's and PyTorch's rule): their sums alone overflow or lose the low digits
_HALF = (_dt.float16, _dt.bfloat16)


def _in_compute_dtype(x, fname):
    """(x, as float32 when it is a half dtype; that half dtype, or None)."""
    x = _floating(x, fname)
    if x._dtype in _HALF:
        return x.astype(_dt.float32), x._dtype
    return x, None


def _rounded(a, half):
    return a if half is None else a.astype(half)


def mean(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over ``axis`` (floating or complex; integers use the default float);
    the mean of nothing is NaN.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If x is bool or integer in strict promotion mode.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.mean(x).item()
    2.5
    """
    x, half = _in_compute_dtype(x, "mean")
    return _rounded(_mean(x, axis, keepdims), half)


def _mean(x, axis, keepdims):
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    total = reduce_array(ReduceOp.SUM, x, axes, keepdims, "mean")
    return _divide(total, _count(shape, axes))


def var(x: Array, /, *, axis: Axes | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Variance ``sum(|x - mean|**2) / (N - correction)`` over ``axis``; NaN where
    ``N - correction <= 0``. Complex input gives a real result.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    correction : int or float
        Subtracted from the number of elements N in the divisor (1 for the sample variance).
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If x is bool or integer in strict promotion mode.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.var(x, axis=0).tolist()
    [1.0, 1.0]
    """
    x, half = _in_compute_dtype(x, "var")
    return _rounded(_var(x, axis, correction, keepdims), half)


def _var(x, axis, correction, keepdims):
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise ArgumentTypeError(f"var: correction must be an int or float, got {type(correction).__name__}")
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape))
    count = _count(shape, axes)
    center = _mean(x, axes, True)
    deviation = binary(BinaryOp.SUBTRACT, x, center, "var")
    if deviation._dtype.is_complex:
        deviation = unary(UnaryOp.ABS, deviation, "var")
    squares = unary(UnaryOp.SQUARE, deviation, "var")
    total = reduce_array(ReduceOp.SUM, squares, axes, keepdims, "var")
    dof = count - correction
    return _scale(total, 1.0 / dof if dof > 0 else float("nan"))


def std(x: Array, /, *, axis: Axes | None = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Array:
    """Standard deviation: the square root of ``var`` with the same arguments.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reduce; None for all of them.
    correction : int or float
        Subtracted from the number of elements N in the divisor (1 for the sample deviation).
    keepdims : bool
        Keep the reduced axes as dimensions of length 1.

    Returns
    -------
    Array
        The reduced array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)`` or repeated.
    DTypeError
        If x is bool or integer in strict promotion mode.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.std(x, axis=0).tolist()
    [1.0, 1.0]
    """
    x, half = _in_compute_dtype(x, "std")
    v = _var(x, axis, correction, keepdims)
    return _rounded(wrap(v._storage.unary(UnaryOp.SQRT, v._layout), v._layout.shape, v._dtype, v._device), half)


def _cumulative(op, x, axis, dtype, include_initial, fname):
    require_array(x, fname)
    shape = x._layout.shape
    if not shape:
        raise ShapeError(f"{fname}: x must have at least one dimension")
    if axis is None:
        if len(shape) > 1:
            raise ArgumentValueError(f"{fname}: axis must be given for a {len(shape)}-D array")
        axis = 0
    axis = normalize_axis(axis, len(shape))
    acc = _accumulation_dtype(x, dtype, fname)
    if acc is not x._dtype:
        x = x.astype(acc)
    check_accepts(op, acc, fname)
    scanned = x._storage.scan(op, x._layout, axis)
    if not include_initial:
        return wrap(scanned, shape, acc, x._device)
    out_shape = shape[:axis] + (shape[axis] + 1,) + shape[axis + 1 :]
    device = x._device
    out = device.zeros(out_shape, acc) if op is ScanOp.SUM else device.ones(out_shape, acc)
    body = contiguous_layout(out_shape).slice(axis, 1, shape[axis] + 1, 1)
    out.assign(body, scanned, contiguous_layout(shape))
    return wrap(out, out_shape, acc, device)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                   include_initial: bool = False) -> Array:
    """Inclusive running sum along ``axis`` (optional for 1-D); ``include_initial``
    prepends the empty sum 0. dtype rules as for ``sum``.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int or None
        The axis to accumulate along; may be None only for a 1-D x.
    dtype : DType or None
        The accumulation and result dtype; rules as for ``sum``.
    include_initial : bool
        Prepend the empty sum (0): the result is one longer along ``axis``.

    Returns
    -------
    Array
        The running sums, of x's shape (one longer along ``axis`` with include_initial).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If axis is None and x is not 1-D.
    AxisError
        If axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumulative_sum(cw.asarray([1, 2, 3, 4])).tolist()
    [1, 3, 6, 10]
    """
    return _cumulative(ScanOp.SUM, x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(x: Array, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                    include_initial: bool = False) -> Array:
    """Inclusive running product along ``axis`` (optional for 1-D); ``include_initial``
    prepends the empty product 1. dtype rules as for ``prod``.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int or None
        The axis to accumulate along; may be None only for a 1-D x.
    dtype : DType or None
        The accumulation and result dtype; rules as for ``prod``.
    include_initial : bool
        Prepend the empty product (1): the result is one longer along ``axis``.

    Returns
    -------
    Array
        The running products, of x's shape (one longer along ``axis`` with include_initial).

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If axis is None and x is not 1-D.
    AxisError
        If axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.cumulative_prod(cw.asarray([1, 2, 3, 4])).tolist()
    [1, 2, 6, 24]
    """
    return _cumulative(ScanOp.PROD, x, axis, dtype, include_initial, "cumulative_prod")


__all__ = ["sum", "prod", "max", "min", "mean", "var", "std", "cumulative_sum", "cumulative_prod"]

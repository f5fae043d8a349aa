"""Utility functions of the Array API: all, any, diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import RESULT, contiguous_layout, is_scalar, require_array, view
from .array import Array, wrap
from .creation import full
from .docstrings import FRAGMENTS, shared_doc
from .arguments import flag
from .errors import ArgumentTypeError, ArgumentValueError, ShapeError
from .shapes import normalize_axes, normalize_axis, reduced_shape
from .statistical import reduction_in_c
from .joining import concat
from .opdefs import BinaryOp, CompareOp, ReduceOp

if TYPE_CHECKING:
    from ._types import Axes, Scalar


def _truth_reduce(op, x, axis, keepdims, fname):
    require_array(x, fname)
    shape = x._layout.shape
    axes = normalize_axes(axis, len(shape), f"{fname}: axis")
    keepdims = flag(keepdims, fname, "keepdims")
    storage = x._storage.reduce(op, x._layout, axes)
    out_shape = reduced_shape(shape, axes, keepdims)
    return wrap(storage, out_shape, _dt.bool_, x._device)


#: the sections all and any share (filled in by ``docstrings.shared_doc``)
_DOCS = {
    "truth_sections": (
        FRAGMENTS["params_x_axes"] + "\n" + FRAGMENTS["param_keepdims"] + "\n\n"
        "Returns\n-------\nArray\n    A bool array.\n\n" + FRAGMENTS["raises_x_axes"]
    ),
}


@shared_doc(_DOCS)
def all(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Whether every element over ``axis`` is non-zero (True for an empty reduction);
    NaN counts as non-zero, complex as non-zero when either part is.

    {truth_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.all(x > 1, axis=1).tolist()
    [False, True]
    """
    return _truth_reduce(ReduceOp.ALL, x, axis, keepdims, "all")


@shared_doc(_DOCS)
def any(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Whether some element over ``axis`` is non-zero (False for an empty reduction).

    {truth_sections}

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> cw.any(x > 3).item()
    True
    """
    return _truth_reduce(ReduceOp.ANY, x, axis, keepdims, "any")


# their common case in C where candlewick._native was built (statistical.reduction_in_c;
# in lazy mode _truth_reduce's, which calls x's own storage)
all = reduction_in_c(all, ReduceOp.ALL, {d.name: r for d, r in RESULT[ReduceOp.ALL].items()}, operand=False)
any = reduction_in_c(any, ReduceOp.ANY, {d.name: r for d, r in RESULT[ReduceOp.ANY].items()}, operand=False)


def _edge(value, x, axis, argname):
    """``prepend``/``append`` as an array of x's shape off ``axis``: an array is taken
    as is (its shape is checked by concat); a Python scalar fills one slice like NumPy."""
    if isinstance(value, Array):
        if value.ndim == 0:
            shape = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
            return view(value, value._layout.broadcast_to(shape))
        return value
    if is_scalar(value):
        shape = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
        dtype = x._dtype
        if isinstance(value, float) and not (dtype.is_floating or dtype.is_complex):
            dtype = _dt.DEFAULT_FLOAT
        elif isinstance(value, complex) and not dtype.is_complex:
            dtype = _dt.DEFAULT_COMPLEX
        return full(shape, value, dtype=dtype, device=x._device)
    raise ArgumentTypeError(f"diff: {argname} must be an array or a Python scalar, got {type(value).__name__}")


@shared_doc()
def diff(x: Array, /, *, axis: int = -1, n: int = 1, prepend: Array | Scalar | None = None,
         append: Array | Scalar | None = None) -> Array:
    """The ``n``-th forward difference ``x[i+1] - x[i]`` along ``axis``; ``prepend`` and
    ``append`` are joined to x along ``axis`` first. bool arrays give ``x[i+1] != x[i]``
    (as NumPy does).

    Parameters
    ----------
    x : Array
        Input array (at least 1-D).
    axis : int
        The axis along which to take differences.
    n : int
        How many times to difference (>= 0).
    prepend : Array, Python scalar or None
        Values joined before x along axis (a scalar is broadcast).
    append : Array, Python scalar or None
        Values joined after x along axis (a scalar is broadcast).

    Returns
    -------
    Array
        The differences: ``n`` shorter than x (with prepend/append) along axis.

    Raises
    ------
    {raises_x_not_array}
    ValueError
        If n is negative or x is 0-d.
    ShapeError
        If prepend or append does not fit x's other dimensions.
    AxisError
        If axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.diff(cw.asarray([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    """
    require_array(x, "diff")
    if x.ndim == 0:
        raise ShapeError("diff: x must have at least one dimension")
    if isinstance(n, bool) or not isinstance(n, int):
        raise ArgumentTypeError(f"diff: n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ArgumentValueError(f"diff: n must be non-negative, got {n}")
    axis = normalize_axis(axis, x.ndim)
    if prepend is not None or append is not None:
        parts = []
        if prepend is not None:
            parts.append(_edge(prepend, x, axis, "prepend"))
        parts.append(x)
        if append is not None:
            parts.append(_edge(append, x, axis, "append"))
        x = concat(parts, axis=axis)
    # each pass: one storage call over two slices of x's own layout (one dtype, one shape:
    # nothing to promote or broadcast)
    storage, layout, dtype = x._storage, x._layout, x._dtype
    for _ in range(n):
        length = layout.shape[axis]
        if length == 0:
            break
        hi, lo = layout.slice(axis, 1, length, 1), layout.slice(axis, 0, length - 1, 1)
        if dtype.is_bool:
            storage = storage.compare(CompareOp.NOT_EQUAL, hi, storage, lo)
        else:
            storage = storage.binary(BinaryOp.SUBTRACT, hi, storage, lo)
        layout = contiguous_layout(hi.shape)
    if storage is x._storage:  # n == 0, or nothing to difference: x itself, as before
        return x
    return wrap(storage, layout.shape, dtype, x._device)


__all__ = ["all", "any", "diff"]

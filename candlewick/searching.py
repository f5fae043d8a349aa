"""Searching functions of the Array API: argmax, argmin, count_nonzero, nonzero,
searchsorted (``where`` is in ``selection``). ``nonzero`` is one call of its primitive (the
count read on the host)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import (
    ArrayBase, new_array, promote_pair, require_array,
    scalar_array, scalar_for,
)
from .arguments import flag
from .errors import ArgumentValueError, DTypeError, ShapeError, short_repr
from .shapes import ALL_AXES, normalize_axes, normalize_axis, reduced_shape
from .indexing_functions import take
from .compaction import flatten
from .opdefs import ReduceOp

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, Scalar

_int64 = _dt.int64
_COUNT_NONZERO = ReduceOp.COUNT_NONZERO  # (read through the Enum class, a member costs ~50 ns a call)


# --- argmax / argmin ---------------------------------------------------------------------

def _arg_reduce(op, x, axis, keepdims, fname):
    require_array(x, fname)
    if x._dtype.is_complex:
        raise DTypeError(f"{fname}: complex numbers have no order; got {x._dtype.name}")
    keepdims = flag(keepdims, fname, "keepdims")
    layout = x._layout
    shape = layout.shape
    if axis is None:
        if len(shape) != 1:
            if layout.size == 0:
                raise ArgumentValueError(f"{fname}: attempt to get {fname} of an empty array")
            x = flatten(x)
            layout = x._layout
        elif not shape[0]:
            raise ArgumentValueError(f"{fname}: attempt to get {fname} of an empty array")
        storage = x._storage.reduce(op, layout, (0,))
        return new_array(type(x), storage, (1,) * len(shape) if keepdims else (), _int64, x._device)
    axis = normalize_axis(axis, len(shape), f"{fname}: axis")
    if shape[axis] == 0:
        raise ArgumentValueError(f"{fname}: attempt to get {fname} of an empty sequence (axis {axis} has size 0)")
    storage = x._storage.reduce(op, layout, (axis,))
    if keepdims:
        out_shape = shape[:axis] + (1,) + shape[axis + 1 :]
    else:
        out_shape = shape[:axis] + shape[axis + 1 :]
    return new_array(type(x), storage, out_shape, _int64, x._device)


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first maximum along ``axis`` (the flattened array when None); the
    first NaN counts as the maximum.

    Parameters
    ----------
    x : Array
        Input array of a real dtype.
    axis : int or None
        The axis to search; None for the flattened array.
    keepdims : bool
        Keep the searched axis as a dimension of length 1.

    Returns
    -------
    Array
        int64 indices.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is complex.
    ValueError
        If the searched axis is empty.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.argmax(cw.asarray([[1, 5], [7, 2]]), axis=1).tolist()
    [1, 0]
    """
    return _arg_reduce(ReduceOp.ARGMAX, x, axis, keepdims, "argmax")


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index of the first minimum along ``axis`` (the flattened array when None); the
    first NaN counts as the minimum.

    Parameters
    ----------
    x : Array
        Input array of a real dtype.
    axis : int or None
        The axis to search; None for the flattened array.
    keepdims : bool
        Keep the searched axis as a dimension of length 1.

    Returns
    -------
    Array
        int64 indices.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    DTypeError
        If x is complex.
    ValueError
        If the searched axis is empty.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.argmin(cw.asarray([3, 1, 2])).item()
    1
    """
    return _arg_reduce(ReduceOp.ARGMIN, x, axis, keepdims, "argmin")


# --- count_nonzero / nonzero ---------------------------------------------------------------

def count_nonzero(x: Array, /, *, axis: Axes | None = None, keepdims: bool = False) -> Array:
    """Number of non-zero elements over ``axis`` (int64).

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to count over; None for all.
    keepdims : bool
        Keep the counted axes as dimensions of length 1.

    Returns
    -------
    Array
        int64 counts.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.count_nonzero(cw.asarray([0, 3, 0, 4])).item()
    2
    """
    require_array(x, "count_nonzero")
    keepdims = flag(keepdims, "count_nonzero", "keepdims")
    layout = x._layout
    shape = layout.shape
    axes = ALL_AXES[len(shape)] if axis is None else normalize_axes(axis, len(shape))
    out_shape = () if axis is None and not keepdims else reduced_shape(shape, axes, keepdims)
    storage = x._storage.reduce(_COUNT_NONZERO, layout, axes)  # one pass, no mask
    return new_array(type(x), storage, out_shape, _int64, x._device)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one int64 array per dimension, in C order.

    Parameters
    ----------
    x : Array
        Input array of at least one dimension.

    Returns
    -------
    tuple of Array
        ``x.ndim`` 1-D int64 arrays of equal length.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If x is 0-d.

    Examples
    --------
    >>> import candlewick as cw
    >>> [a.tolist() for a in cw.nonzero(cw.asarray([[0, 1], [2, 0]]))]
    [[0, 1], [1, 0]]
    """
    require_array(x, "nonzero")
    layout = x._layout
    if not layout.shape:
        raise ArgumentValueError("nonzero: 0-d arrays are not allowed; use nonzero on a reshaped array")
    coords, count = x._storage.nonzero(layout)  # one primitive call: every axis's coordinates
    cls, device, shape = type(x), x._device, (count,)
    return tuple([new_array(cls, c, shape, _int64, device) for c in coords])


# --- searchsorted ------------------------------------------------------------------------

def searchsorted(x1: Array, x2: Array | Scalar, /, *, side: str = "left",
                 sorter: Array | None = None) -> Array:
    """Insertion indices of ``x2`` into the ascending 1-D ``x1`` (or ``x1[sorter]``).

    Parameters
    ----------
    x1 : Array
        A 1-D array, ascending (or ascending through ``sorter``).
    x2 : Array or Python scalar
        The values to insert.
    side : {"left", "right"}
        "left": the first suitable index; "right": the last.
    sorter : Array or None
        int64 indices that sort x1.

    Returns
    -------
    Array
        int64 indices of x2's shape.

    Raises
    ------
    TypeError
        If x1 is not a candlewick array.
    ValueError
        If x1 is not 1-D or side is neither "left" nor "right".
    DTypeError
        If x1 and x2 do not promote, or sorter is not an integer array.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.searchsorted(cw.asarray([1, 3, 5]), cw.asarray([0, 3, 6])).tolist()
    [0, 1, 3]
    """
    if (sorter is None and type(x1) is type(x2) and isinstance(x1, ArrayBase) and x1._dtype is x2._dtype
            and x1._device is x2._device and type(side) is str and (side == "left" or side == "right")):
        # the common case, two arrays of one real dtype: no promotion, one primitive call
        layout, dtype = x1._layout, x1._dtype
        if len(layout.shape) == 1 and not (dtype.is_bool or dtype.is_complex):
            storage = x1._storage.searchsorted(layout, x2._storage, x2._layout, side == "right")
            return new_array(type(x1), storage, x2._layout.shape, _int64, x1._device)
    require_array(x1, "searchsorted", "x1")
    if not isinstance(side, str) or side not in ("left", "right"):
        raise ArgumentValueError(f"searchsorted: side must be 'left' or 'right', got {short_repr(side)}")
    if x1.ndim != 1:
        raise ShapeError(f"searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if not isinstance(x2, ArrayBase):
        value, dtype = scalar_for(x2, x1._dtype, "searchsorted")
        x2 = scalar_array(x1, value, dtype, x1._device)
    if x1._dtype.is_complex or x2._dtype.is_complex:
        raise DTypeError("searchsorted: complex numbers have no order")
    if sorter is not None:
        require_array(sorter, "searchsorted", "sorter")
        if sorter.ndim != 1 or sorter.shape[0] != x1.shape[0]:
            raise ShapeError(
                f"searchsorted: sorter must be 1-D with x1's length {x1.shape[0]}, got shape {sorter.shape}"
            )
        x1 = take(x1, sorter, axis=0)
    x1, x2 = promote_pair(x1, x2, "searchsorted")
    if x1._dtype.is_bool:
        x1, x2 = x1.astype(_dt.uint8), x2.astype(_dt.uint8)
    storage = x1._storage.searchsorted(x1._layout, x2._storage, x2._layout, side == "right")
    return new_array(type(x1), storage, x2._layout.shape, _int64, x1._device)


__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted"]

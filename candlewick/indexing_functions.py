"""Indexing functions of the Array API: take and take_along_axis.

``take`` is the ``index_select`` primitive; ``take_along_axis`` is ``gather`` after
broadcasting x and the indices against each other on every axis but ``axis``.
Indices may be negative (counting from the end); the primitives reject out-of-range
ones with IndexError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core import contiguous_layout, new_array, require_array, same_device, scalar_array
from .errors import ArgumentValueError, DTypeError, IndexOutOfBoundsError, ShapeError, short_repr
from .layout import Layout
from .shapes import check_ndim, normalize_axis

if TYPE_CHECKING:
    from .array import Array


def index_storage(indices, fname, argname="indices"):
    """An int64 (storage, layout) for an integer index array (any other dtype raises)."""
    if not indices._dtype.is_integer:
        raise DTypeError(f"{fname}: {argname} must have an integer dtype, got {indices._dtype.name}")
    if indices._dtype is _dt.int64:
        return indices._storage, indices._layout
    storage = indices._storage.astype(indices._layout, _dt.int64)
    return storage, contiguous_layout(indices._layout.shape)


def take(x: Array, indices: Array | int, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis`` (optional only for 1-D x). A Python
    int is one index (NumPy's ``take(x, 0, axis=1)``, which cubed calls): axis is dropped.

    Parameters
    ----------
    x : Array
        Input array.
    indices : Array or int
        Integer indices (negative count from the end), or one int.
    axis : int or None
        The axis to select along; None only for a 1-D x.

    Returns
    -------
    Array
        x with axis replaced by the indices' dimensions.

    Raises
    ------
    TypeError
        If x or indices is not a candlewick array.
    DTypeError
        If indices is not integer.
    ValueError
        If axis is None for a multi-dimensional x.
    IndexOutOfBoundsError
        If an index is out of range.
    AxisError
        If axis is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.take(cw.asarray([10, 20, 30]), cw.asarray([2, 0])).tolist()
    [30, 10]
    """
    require_array(x, "take")
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, (bool, np.bool_)):
        if not -(2**63) <= indices < 2**63:  # past every axis (and past int64, the indices' dtype)
            raise IndexOutOfBoundsError(f"take: index {short_repr(indices)} is outside every axis")
        indices = scalar_array(x, int(indices), _dt.int64, x._device)
    require_array(indices, "take", "indices")
    same_device(x, indices, "take")
    if axis is None:
        if x.ndim != 1:
            raise ArgumentValueError(f"take: axis must be given for a {x.ndim}-D x (it may be omitted only for 1-D)")
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    idx, idx_layout = index_storage(indices, "take")
    shape = x._layout.shape
    out_shape = shape[:axis] + idx_layout.shape + shape[axis + 1 :]
    check_ndim(len(out_shape))
    storage = x._storage.index_select(x._layout, idx, idx_layout, axis)
    return new_array(type(x), storage, out_shape, x._dtype, x._device)


def _broadcast_except(layout, shape, axis, argname):
    """``layout`` broadcast to ``shape`` on every axis but ``axis`` (kept as is)."""
    own = layout.shape
    if own[:axis] == shape[:axis] and own[axis + 1 :] == shape[axis + 1 :]:
        return layout  # nothing to broadcast (its contiguity stays known)
    strides = list(layout.strides)
    for d, (n, target) in enumerate(zip(layout.shape, shape)):
        if d == axis or n == target:
            continue
        if n != 1:
            raise ShapeError(
                f"take_along_axis: {argname} of shape {layout.shape} does not broadcast to {shape} "
                f"off axis {axis}"
            )
        strides[d] = 0
    out_shape = tuple(target if d != axis else n for d, (n, target) in enumerate(zip(layout.shape, shape)))
    return Layout(out_shape, tuple(strides), layout.offset)


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """``out[p] = x[p with p[axis] = indices[p]]``; x and indices broadcast on the other axes.

    Parameters
    ----------
    x : Array
        Input array.
    indices : Array
        Integer indices with x's number of dimensions.
    axis : int
        The axis to select along.

    Returns
    -------
    Array
        Of the broadcast shape, with indices' length along axis.

    Raises
    ------
    TypeError
        If x or indices is not a candlewick array.
    DTypeError
        If indices is not integer.
    ShapeError
        If x is 0-d or the shapes do not fit.
    IndexOutOfBoundsError
        If an index is out of range.

    Examples
    --------
    >>> import candlewick as cw
    >>> x = cw.asarray([[3, 1], [2, 4]])
    >>> cw.take_along_axis(x, cw.argsort(x, axis=1), axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    require_array(x, "take_along_axis")
    require_array(indices, "take_along_axis", "indices")
    same_device(x, indices, "take_along_axis")
    if x.ndim == 0:
        raise ShapeError("take_along_axis: x must have at least one dimension")
    if indices.ndim != x.ndim:
        raise ShapeError(
            f"take_along_axis: indices must have x's number of dimensions ({x.ndim}), got {indices.ndim}"
        )
    axis = normalize_axis(axis, x.ndim)
    idx, idx_layout = index_storage(indices, "take_along_axis")
    xs, ids = x._layout.shape, idx_layout.shape
    shape = []
    for d, (a, b) in enumerate(zip(xs, ids)):
        if d == axis:
            shape.append(b)
        elif a == b or b == 1:
            shape.append(a)
        elif a == 1:
            shape.append(b)
        else:
            raise ShapeError(
                f"take_along_axis: x of shape {xs} and indices of shape {ids} do not broadcast "
                f"off axis {axis} (dimension {d}: {a} and {b})"
            )
    shape = tuple(shape)  # type: ignore[assignment]  # the list built above, frozen
    x_layout = _broadcast_except(x._layout, shape, axis, "x")
    idx_layout = _broadcast_except(idx_layout, shape, axis, "indices")
    storage = x._storage.gather(x_layout, idx, idx_layout, axis)
    return new_array(type(x), storage, shape, x._dtype, x._device)


__all__ = ["take", "take_along_axis"]

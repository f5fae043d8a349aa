"""Joining functions of the Array API: concat and stack (one ``concat`` primitive call)
and unstack (views)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import ArrayBase, contiguous_layout, require_array, row_views
from .allocation import check_allocation
from .array import Array, wrap
from .errors import ArgumentValueError, DeviceMismatchError, ShapeError
from .shapes import check_ndim, normalize_axis
from .compaction import flatten
from .type_promotion import promote_types

if TYPE_CHECKING:
    from collections.abc import Sequence


def _join_inputs(arrays, fname):
    """(dtype, device, shapes, mixed) of checked ``arrays``: a non-empty list or tuple of
    arrays on one device (one pass), their promoted dtype, their shapes and whether their
    dtypes differ."""
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ArgumentValueError(f"{fname}: arrays must be a non-empty list or tuple of arrays")
    first = require_array(arrays[0], fname, "arrays")
    dtype, device = first._dtype, first._device
    shapes = []
    mixed = False
    for a in arrays:
        if not isinstance(a, ArrayBase):
            require_array(a, fname, "arrays")  # raises, naming the argument
        if a._device is not device:
            raise DeviceMismatchError(f"{fname}: arrays are on different devices")
        if a._dtype is not dtype:
            dtype = promote_types(dtype, a._dtype)
            mixed = True
        shapes.append(a._layout.shape)
    return dtype, device, shapes, mixed


def concat(arrays: Sequence[Array], /, *, axis: int | None = 0) -> Array:
    """Join arrays along an existing axis (``axis=None`` flattens first).

    Parameters
    ----------
    arrays : sequence of Array
        Arrays on one device whose shapes agree except along axis.
    axis : int or None
        The axis to join along; None joins the flattened arrays.

    Returns
    -------
    Array
        A new array, in the arrays' promoted dtype.

    Raises
    ------
    TypeError
        If an element is not a candlewick array.
    ShapeError
        If the shapes disagree off the axis.
    DTypeError
        If the dtypes do not promote.
    DeviceMismatchError
        If the arrays are on different devices.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.concat([cw.asarray([1, 2]), cw.asarray([3])]).tolist()
    [1, 2, 3]
    """
    dtype, device, shapes, mixed = _join_inputs(arrays, "concat")
    if axis is None:
        arrays = [flatten(a) for a in arrays]
        shapes = [a._layout.shape for a in arrays]
        axis = 0
    shape = shapes[0]
    ndim = len(shape)
    if ndim == 0:
        raise ArgumentValueError("concat: 0-d arrays cannot be concatenated; use stack")
    if axis or type(axis) is not int:
        axis = normalize_axis(axis, ndim)
    if ndim == 1:  # the common case: lengths add up
        total = 0
        for s in shapes:
            if len(s) != 1:
                raise ShapeError(f"concat: shapes {shapes} differ off axis {axis}")
            total += s[0]
        out_shape = (total,)
    else:
        before, after = shape[:axis], shape[axis + 1 :]
        total = 0
        for s in shapes:
            if len(s) != ndim or s[:axis] != before or s[axis + 1 :] != after:
                raise ShapeError(f"concat: shapes {shapes} differ off axis {axis}")
            total += s[axis]
        out_shape = before + (total,) + after
    return _joined(arrays, None, axis, out_shape, dtype, device, "concat", mixed)


def _joined(arrays, layouts, axis, out_shape, dtype, device, fname, mixed):
    """The one ``concat`` primitive call of checked arrays seen through ``layouts`` (None:
    their own layouts); ``mixed``: whether some must be converted to ``dtype`` first."""
    check_allocation(fname, out_shape, dtype, device)
    if layouts is None and not mixed:
        # one dtype (the common case): every part as it is
        first = arrays[0]
        storage = first._storage.concat(first._layout, [(a._storage, a._layout) for a in arrays[1:]], axis)
        return wrap(storage, out_shape, dtype, device)
    if layouts is None:
        layouts = [a._layout for a in arrays]
    parts = [(a._storage, lay) if a._dtype is dtype else (a._storage.astype(lay, dtype), contiguous_layout(lay.shape))
             for a, lay in zip(arrays, layouts)]
    storage = parts[0][0].concat(parts[0][1], parts[1:], axis)
    return wrap(storage, out_shape, dtype, device)


def stack(arrays: Sequence[Array], /, *, axis: int = 0) -> Array:
    """Join arrays of one shape along a new axis.

    Parameters
    ----------
    arrays : sequence of Array
        Arrays of one shape on one device.
    axis : int
        The position of the new axis in the result.

    Returns
    -------
    Array
        A new array with one more dimension, in the arrays' promoted dtype.

    Raises
    ------
    TypeError
        If an element is not a candlewick array.
    ShapeError
        If the shapes differ.
    DeviceMismatchError
        If the arrays are on different devices.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.stack([cw.asarray([1, 2]), cw.asarray([3, 4])], axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    dtype, device, shapes, mixed = _join_inputs(arrays, "stack")
    shape = shapes[0]
    if shapes.count(shape) != len(shapes):
        raise ShapeError(f"stack: arrays must share one shape, got {shapes}")
    if axis or type(axis) is not int:
        axis = normalize_axis(axis, len(shape) + 1)
    out_shape = shape[:axis] + (len(arrays),) + shape[axis:]
    check_ndim(len(out_shape))
    if not axis and shape:
        # along a new leading axis the result's C-order elements are those of the
        # arrays joined along their own first axis: no size-1 axis to insert
        return _joined(arrays, None, 0, out_shape, dtype, device, "stack", mixed)
    layouts = [a._layout.expand_dims(axis) for a in arrays]
    return _joined(arrays, layouts, axis, out_shape, dtype, device, "stack", mixed)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The sub-arrays of ``x`` along ``axis`` (views), the inverse of ``stack``.

    Parameters
    ----------
    x : Array
        Input array.
    axis : int
        The axis to split along.

    Returns
    -------
    tuple of Array
        ``x.shape[axis]`` views with that axis removed.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If x is 0-d.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> [a.tolist() for a in cw.unstack(cw.asarray([[1, 2], [3, 4]]))]
    [[1, 2], [3, 4]]
    """
    require_array(x, "unstack")
    if x.ndim == 0:
        raise ArgumentValueError("unstack: x must have at least one dimension")
    lay = x._layout
    axis = normalize_axis(axis, len(lay.shape))
    return row_views(x, axis)


__all__ = ["concat", "stack", "unstack"]

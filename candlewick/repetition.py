"""Repetition functions of the Array API: repeat, tile and roll (copies via ``assign``)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import contiguous_layout, require_array
from .allocation import check_allocation
from .array import Array, wrap
from .errors import ArgumentTypeError, ArgumentValueError, DeviceMismatchError, ShapeError, short_repr
from .layout import Layout
from .shapes import MAX_NDIM, normalize_axis
from .opdefs import ReduceOp, ScanOp
from .compaction import arange_int64, flatten

if TYPE_CHECKING:
    from ._types import Axes


def _int_arg(value, fname, argname):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ArgumentTypeError(f"{fname}: {argname} must be an int, got {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:  # a type, or a NumPy array of several elements
        raise ArgumentTypeError(f"{fname}: {argname} must be an int, got {short_repr(value)}") from None


_INT_ONLY = frozenset({int})


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element of ``x`` along ``axis`` (the flattened x when None): ``repeats``
    is an int, or an integer array of length 1 or ``x.shape[axis]`` (one host read of
    the total, as the result's length depends on the data).

    Parameters
    ----------
    x : Array
        Input array.
    repeats : int or Array
        How often each element repeats (non-negative).
    axis : int or None
        The axis to repeat along; None for the flattened x.

    Returns
    -------
    Array
        A new array, longer along axis.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If a repeat count is negative or repeats has the wrong length.
    DTypeError
        If repeats is an array of a non-integer dtype.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.repeat(cw.asarray([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    """
    require_array(x, "repeat")
    if axis is None:
        x = flatten(x)  # (x itself when 1-D)
        axis = 0
    else:
        axis = normalize_axis(axis, x.ndim)
    lay = x._layout
    shape = lay.shape
    n = shape[axis]
    if not isinstance(repeats, Array):
        r = repeats if type(repeats) is int else _int_arg(repeats, "repeat", "repeats")
        if r < 0:
            raise ArgumentValueError(f"repeat: repeats must be non-negative, got {r}")
        # each element followed by r-1 copies of itself: a stride-0 axis after ``axis``
        # (of length > 1 over elements that exist: never C-contiguous)
        inner = shape[axis + 1 :]
        spread_shape = shape[: axis + 1] + (r,) + inner
        check_allocation("repeat", spread_shape, x._dtype, x._device)
        spread = _within_ndim_limit(Layout(spread_shape, lay.strides[: axis + 1] + (0,) + lay.strides[axis + 1 :],
                                           lay.offset, False if r > 1 and 0 not in shape else None))
        out_shape = shape[:axis] + (n * r,) + inner
        return wrap(x._storage.copy(spread), out_shape, x._dtype, x._device)
    return _repeat_by_array(x, repeats, axis)


def _repeat_by_array(x, repeats, axis):
    if repeats._device is not x._device:
        raise DeviceMismatchError("repeat: repeats must be on x's device")
    if not repeats._dtype.is_integer:
        raise ArgumentTypeError(f"repeat: repeats must have an integer dtype, got {repeats._dtype.name}")
    n = x.shape[axis]
    if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, n)):
        raise ShapeError(
            f"repeat: repeats of shape {repeats.shape} does not broadcast to x's axis of length {n}"
        )
    device = x._device
    reps = repeats.astype(_dt.int64) if repeats._dtype is not _dt.int64 else repeats
    line = contiguous_layout((n,))
    bounds = reps._storage.scan(ScanOp.SUM, reps._layout.broadcast_to((n,)), 0) if n else None
    total = 0
    if n:
        # one host read: the total length and the smallest repeat count together
        lowest = reps._storage.reduce(ReduceOp.MIN, reps._layout.broadcast_to((n,)), (0,))
        pair = device.empty((2,), _dt.int64)
        pair.assign(Layout((1,), (1,), 0, True), bounds, Layout((1,), (1,), n - 1, True))
        pair.assign(Layout((1,), (1,), 1, True), lowest, contiguous_layout((1,)))
        total, least = (int(v) for v in pair.to_host(contiguous_layout((2,))))
        if least < 0:
            raise ArgumentValueError(f"repeat: repeats must be non-negative, got a minimum of {least}")
    shape = x._layout.shape
    out_shape = shape[:axis] + (total,) + shape[axis + 1 :]
    check_allocation("repeat", out_shape, x._dtype, device)
    if not total:
        return wrap(device.empty(out_shape, x._dtype), out_shape, x._dtype, device)
    # output position j comes from the first source i whose running total exceeds j
    positions = arange_int64(device, total)
    source = bounds.searchsorted(line, positions, contiguous_layout((total,)), True)
    storage = x._storage.index_select(x._layout, source, contiguous_layout((total,)), axis)
    return wrap(storage, out_shape, x._dtype, device)


def tile(x: Array, repetitions: int | tuple[int, ...], /) -> Array:
    """``x`` repeated ``repetitions[i]`` times along each axis i (shapes aligned at the
    right; the shorter of x.shape and repetitions is padded with leading ones).

    Parameters
    ----------
    x : Array
        Input array.
    repetitions : int or tuple of int
        Non-negative repetition counts per axis.

    Returns
    -------
    Array
        A new array.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If a count is negative.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.tile(cw.asarray([1, 2]), 2).tolist()
    [1, 2, 1, 2]
    """
    require_array(x, "tile")
    if isinstance(repetitions, int) and not isinstance(repetitions, bool):
        repetitions = (repetitions,)
    if not isinstance(repetitions, (tuple, list)):
        raise ArgumentTypeError(f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}")
    if type(repetitions) is tuple and set(map(type, repetitions)) <= _INT_ONLY:
        reps = repetitions  # the common spelling, checked in C-speed passes
    else:
        reps = tuple(_int_arg(r, "tile", "repetitions") for r in repetitions)
    if reps and min(reps) < 0:
        raise ArgumentValueError(f"tile: repetitions must be non-negative, got {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    lay = x._layout
    pad = ndim - lay.ndim
    shape = (1,) * pad + lay.shape
    strides = (0,) * pad + lay.strides
    # (r0, n0, r1, n1, ...) with the r axes of stride 0, copied once, then merged
    spread_shape, spread_strides = [], []
    for r, n, s in zip(reps, shape, strides):
        spread_shape += [r, n]
        spread_strides += [0, s]
    # (a stride-0 axis of length > 1 over elements that exist: never C-contiguous)
    broadcast = bool(reps) and 0 not in shape and max(reps) > 1
    spread = _within_ndim_limit(Layout(tuple(spread_shape), tuple(spread_strides), lay.offset,
                                       False if broadcast else None))
    out_shape = tuple([r * n for r, n in zip(reps, shape)])
    check_allocation("tile", out_shape, x._dtype, x._device)
    return wrap(x._storage.copy(spread), out_shape, x._dtype, x._device)


def _within_ndim_limit(spread):
    """A spread layout (one more axis per repeated axis) of more than ``MAX_NDIM`` axes
    without its length-1 axes, which change neither its elements nor their C order: the
    backend (NumPy) cannot view past 64 dimensions, and an addressable result has fewer
    than 64 axes longer than 1."""
    if spread.ndim <= MAX_NDIM:
        return spread
    kept = [(n, s) for n, s in zip(spread.shape, spread.strides) if n != 1]
    return Layout(tuple(n for n, _ in kept), tuple(s for _, s in kept), spread.offset, spread._contig)


def roll(x: Array, /, shift: int | tuple[int, ...], *, axis: Axes | None = None) -> Array:
    """Shift elements along ``axis`` with wrap-around (the flattened x when None).
    ``shift`` and ``axis`` may be tuples (of equal length, or one of them an int);
    shifts on a repeated axis add up.

    Parameters
    ----------
    x : Array
        Input array.
    shift : int or tuple of int
        The number of places to shift (negative: backwards).
    axis : int, tuple of int or None
        The axes to shift; None for the flattened x.

    Returns
    -------
    Array
        A new array of x's shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If shift and axis are tuples of different lengths.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.roll(cw.asarray([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    require_array(x, "roll")
    if axis is None:
        if not isinstance(shift, int) or isinstance(shift, bool):
            shifts = tuple(shift) if isinstance(shift, (tuple, list)) else None
            if shifts is None or len(shifts) != 1:
                raise ArgumentValueError("roll: with axis=None, shift must be a single int")
            shift = shifts[0]
        shift = _int_arg(shift, "roll", "shift")
        return wrap(_rolled(flatten(x), {0: shift}), x._layout.shape, x._dtype, x._device)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shifts = tuple(_int_arg(s, "roll", "shift") for s in shifts)
    axes = tuple(normalize_axis(a, x.ndim) for a in axes)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        else:
            raise ArgumentValueError(f"roll: shift {short_repr(shift)} and axis {short_repr(axis)} must have the same length")
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes):
        total[a] = total.get(a, 0) + s
    return wrap(_rolled(x, total), x._layout.shape, x._dtype, x._device)


def _rolled(x, total):
    """x rolled by ``total`` (axis -> shift) as a new contiguous storage: per rolled axis,
    one ``concat`` of its last k entries and the rest (a copy when nothing moves)."""
    storage, layout = x._storage, x._layout
    shape = layout.shape
    for a, s in total.items():
        n = shape[a]
        k = s % n if n else 0
        if k:
            tail, head = layout.slice(a, n - k, n, 1), layout.slice(a, 0, n - k, 1)
            storage, layout = storage.concat(tail, [(storage, head)], a), contiguous_layout(shape)
    return storage.copy(layout) if storage is x._storage else storage



__all__ = ["repeat", "tile", "roll"]

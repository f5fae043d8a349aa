"""Manipulation functions of the Array API: views where possible, copies via ``assign``."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import as_shape, contiguous_layout, operator_index, promote_pair, require_array, view
from .api_version import requires, revision_sequence
from .array import Array, wrap
from .allocation import check_allocation
from .errors import ArgumentTypeError, ArgumentValueError, AxisError, DeviceMismatchError, ShapeError, short_repr
from .layout import Layout, normalize_axes, normalize_axis
from .layout import broadcast_shapes as _broadcast_shapes
from .opdefs import ReduceOp, ScanOp
from .searching import arange_int64

if TYPE_CHECKING:
    from collections.abc import Sequence
    from ._types import Axes, ShapeLike


def _contiguous(x):
    return wrap(x._storage.copy(x._layout), x._layout.shape, x._dtype, x._device)


def reshape(x: Array, /, shape: ShapeLike, *, copy: bool | None = None) -> Array:
    """Reshape; a view when the layout allows, else a copy (``copy=False`` then raises).

    Parameters
    ----------
    x : Array
        Input array.
    shape : int or tuple of int
        The new shape; one size may be -1 (inferred).
    copy : bool or None
        True always copies; False never (ValueError when needed); None when needed.

    Returns
    -------
    Array
        x's elements in C order with the new shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If the sizes differ, or copy=False and a copy is needed.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.reshape(cw.arange(6), (2, 3)).shape
    (2, 3)
    """
    require_array(x, "reshape")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise ArgumentTypeError(f"reshape: shape must be a tuple of ints, got {type(shape).__name__}")
    shape = tuple(operator_index(n, "reshape", "shape") for n in shape)
    size = x._layout.size
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ArgumentValueError(f"reshape: at most one dimension may be -1, got {shape}")
    known = 1
    for n in shape:
        if n != -1:
            if n < 0:
                raise ArgumentValueError(f"reshape: shape must hold non-negative ints (or one -1), got {shape}")
            known *= n
    if unknown:
        if known == 0 or size % known:
            raise ShapeError(f"reshape: cannot reshape array of size {size} into shape {shape}")
        shape = shape[: unknown[0]] + (size // known,) + shape[unknown[0] + 1 :]
    elif known != size:
        raise ShapeError(f"reshape: cannot reshape array of size {size} into shape {shape}")
    if copy:
        return wrap(x._storage.copy(x._layout), shape, x._dtype, x._device)
    layout = x._layout.reshape(shape)
    if layout is None:
        if copy is False:
            raise ArgumentValueError("reshape: copy=False but the layout cannot be reshaped without a copy")
        return wrap(x._storage.copy(x._layout), shape, x._dtype, x._device)
    return view(x, layout)


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """The dimensions of ``x`` reordered: result dimension i is x's dimension ``axes[i]`` (a view).

    Parameters
    ----------
    x : Array
        Input array.
    axes : tuple of int
        A permutation of ``range(x.ndim)``.

    Returns
    -------
    Array
        A view of x with permuted dimensions.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If axes is not a permutation of the dimensions.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.permute_dims(cw.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    require_array(x, "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise ArgumentTypeError(f"permute_dims: axes must be a tuple of ints, got {short_repr(axes)}")
    axes = tuple(normalize_axis(a, x.ndim, "axes") for a in axes)
    if len(axes) != x.ndim:
        raise ArgumentValueError(f"permute_dims: axes {axes} must name each of the {x.ndim} dimensions once")
    return view(x, x._layout.permute(axes))


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """``x`` with a new dimension of length 1 inserted at ``axis``, or at each position of
    a tuple ``axis`` (2025.12) (a view).

    Parameters
    ----------
    x : Array
        Input array.
    axis : int or tuple of int
        The position of the new dimension in the result: in ``[-M, M)`` with
        ``M = x.ndim + len(axis)`` for a tuple (unique once normalized), in
        ``[-ndim-1, ndim]`` for an int.

    Returns
    -------
    Array
        A view of x with ``ndim + 1`` dimensions.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.expand_dims(cw.zeros((2, 3)), 1).shape
    (2, 1, 3)
    """
    require_array(x, "expand_dims")
    if not isinstance(axis, tuple):
        return view(x, x._layout.expand_dims(normalize_axis(axis, x.ndim + 1)))
    ndim = x.ndim + len(axis)
    positions = sorted(normalize_axis(a, ndim) for a in axis)
    if len(set(positions)) != len(positions):
        raise AxisError(f"expand_dims: axis {axis} names a position twice (once normalized: {positions})")
    layout = x._layout
    for p in positions:  # ascending, so each insertion leaves the earlier ones in place
        layout = layout.expand_dims(p)
    return view(x, layout)


def squeeze(x: Array, /, axis: Axes) -> Array:
    """``x`` without the given dimensions of length 1 (a view).

    Parameters
    ----------
    x : Array
        Input array.
    axis : int or tuple of int
        The dimensions to remove; each must have length 1.

    Returns
    -------
    Array
        A view of x with those dimensions removed.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If a named dimension does not have length 1.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.squeeze(cw.zeros((2, 1, 3)), 1).shape
    (2, 3)
    """
    require_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim)
    return view(x, x._layout.squeeze(axes))


def broadcast_to(x: Array, /, shape: ShapeLike) -> Array:
    """``x`` broadcast to ``shape`` (a read-only-by-convention view with zero strides).

    Parameters
    ----------
    x : Array
        Input array.
    shape : int or tuple of int
        The target shape, which x's shape broadcasts to.

    Returns
    -------
    Array
        A view of x with the given shape.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ShapeError
        If x's shape does not broadcast to shape.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.broadcast_to(cw.asarray([1, 2]), (3, 2)).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    require_array(x, "broadcast_to")
    shape = as_shape(shape, "broadcast_to")
    return view(x, x._layout.broadcast_to(shape))


def broadcast_arrays(*arrays: Array) -> list[Array]:
    """The arrays broadcast against each other (views of one common shape).

    Parameters
    ----------
    *arrays : Array
        Arrays on one device.

    Returns
    -------
    list of Array
        One view per input, all of the broadcast shape.

    Raises
    ------
    TypeError
        If an argument is not a candlewick array.
    ShapeError
        If the shapes do not broadcast.
    DeviceMismatchError
        If the arrays are on different devices.

    Examples
    --------
    >>> import candlewick as cw
    >>> a, b = cw.broadcast_arrays(cw.zeros((2, 1)), cw.zeros(3))
    >>> a.shape, b.shape
    ((2, 3), (2, 3))
    """
    for a in arrays:
        require_array(a, "broadcast_arrays", "arrays")
        if a._device is not arrays[0]._device:
            raise DeviceMismatchError("broadcast_arrays: arrays are on different devices")
    shape = _broadcast_shapes(*(a.shape for a in arrays))
    return revision_sequence(view(a, a._layout.broadcast_to(shape)) for a in arrays)


@requires("2025.12")
def broadcast_shapes(*shapes: ShapeLike) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to (``()`` for no shapes), 2025.12.

    Parameters
    ----------
    *shapes : tuple of int
        The shapes to broadcast together.

    Returns
    -------
    tuple of int
        The broadcast shape.

    Raises
    ------
    ShapeError
        If the shapes do not broadcast (a ValueError).
    ArgumentTypeError
        If a shape is not a tuple of ints.
    ApiVersionError
        If the namespace follows the 2024.12 revision.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    checked = [as_shape(s, "broadcast_shapes", "shapes") for s in shapes]
    return _broadcast_shapes(*checked)  # its ShapeError names this function (errors.CandlewickError)


def flip(x: Array, /, *, axis: Axes | None = None) -> Array:
    """``x`` with the order of elements reversed along ``axis`` (a view).

    Parameters
    ----------
    x : Array
        Input array.
    axis : int, tuple of int or None
        The axes to reverse; None for all.

    Returns
    -------
    Array
        A view of x.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.flip(cw.asarray([1, 2, 3])).tolist()
    [3, 2, 1]
    """
    require_array(x, "flip")
    return view(x, x._layout.flip(normalize_axes(axis, x.ndim)))


def moveaxis(x: Array, source: Axes, destination: Axes, /) -> Array:
    """``x`` with the dimensions ``source`` moved to positions ``destination`` (a view).

    Parameters
    ----------
    x : Array
        Input array.
    source : int or tuple of int
        The dimensions to move.
    destination : int or tuple of int
        Their positions in the result (as many as source).

    Returns
    -------
    Array
        A view of x.

    Raises
    ------
    TypeError
        If x is not a candlewick array.
    ValueError
        If source and destination differ in length or repeat an axis.
    AxisError
        If an axis is outside ``[-ndim, ndim)``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.moveaxis(cw.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    require_array(x, "moveaxis")
    for argname, value in (("source", source), ("destination", destination)):
        if not isinstance(value, (int, tuple, list)) or isinstance(value, bool):
            raise ArgumentTypeError(f"moveaxis: {argname} must be an int or a tuple of ints, got {short_repr(value)}")
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ArgumentValueError("moveaxis: source and destination must have the same number of axes")
    src = tuple(normalize_axis(a, x.ndim, "source") for a in src)
    dst = tuple(normalize_axis(a, x.ndim, "destination") for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ArgumentValueError("moveaxis: source and destination must not repeat an axis")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return view(x, x._layout.permute(order))


def _join_inputs(arrays, fname):
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ArgumentValueError(f"{fname}: arrays must be a non-empty list or tuple of arrays")
    for a in arrays:
        require_array(a, fname, "arrays")
    first = arrays[0]
    dtype = first._dtype
    for a in arrays[1:]:
        if a._device is not first._device:
            raise DeviceMismatchError(f"{fname}: arrays are on different devices")
        dtype = _dt.promote_types(dtype, a._dtype)
    return dtype, first._device


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
    dtype, device = _join_inputs(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ArgumentValueError("concat: 0-d arrays cannot be concatenated; use stack")
    axis = normalize_axis(axis, ndim)
    base = list(arrays[0].shape)
    total = 0
    for a in arrays:
        s = list(a.shape)
        if len(s) != ndim or s[:axis] + s[axis + 1 :] != base[:axis] + base[axis + 1 :]:
            raise ShapeError(f"concat: shapes {[x.shape for x in arrays]} differ off axis {axis}")
        total += s[axis]
    base[axis] = total
    out_shape = tuple(base)
    storage = device.empty(out_shape, dtype)
    out_layout = contiguous_layout(out_shape)
    start = 0
    for a in arrays:
        n = a.shape[axis]
        if n:
            if a._dtype is not dtype:
                a = a.astype(dtype)
            dst = out_layout.slice(axis, start, start + n, 1)
            storage.assign(dst, a._storage, a._layout)
        start += n
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
    _join_inputs(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ShapeError(f"stack: arrays must share one shape, got {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, len(shape) + 1)
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


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
    axis = normalize_axis(axis, x.ndim)
    return tuple(view(x, x._layout.select(axis, i)) for i in range(x.shape[axis]))


# --- repeat, tile, roll --------------------------------------------------------------------

def _int_arg(value, fname, argname):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ArgumentTypeError(f"{fname}: {argname} must be an int, got {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:  # a type, or a NumPy array of several elements
        raise ArgumentTypeError(f"{fname}: {argname} must be an int, got {short_repr(value)}") from None


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
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis(axis, x.ndim)
    shape = x._layout.shape
    n = shape[axis]
    if not isinstance(repeats, Array):
        r = _int_arg(repeats, "repeat", "repeats")
        if r < 0:
            raise ArgumentValueError(f"repeat: repeats must be non-negative, got {r}")
        check_allocation("repeat", (x._layout.size, r), x._dtype, x._device)
        # each element followed by r-1 copies of itself: a stride-0 axis after ``axis``
        lay = x._layout
        spread = Layout(shape[: axis + 1] + (r,) + shape[axis + 1 :],
                        lay.strides[: axis + 1] + (0,) + lay.strides[axis + 1 :], lay.offset)
        out_shape = shape[:axis] + (n * r,) + shape[axis + 1 :]
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
    reps = tuple(_int_arg(r, "tile", "repetitions") for r in repetitions)
    if any(r < 0 for r in reps):
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
    spread = Layout(tuple(spread_shape), tuple(spread_strides), lay.offset)
    out_shape = tuple(r * n for r, n in zip(reps, shape))
    check_allocation("tile", out_shape, x._dtype, x._device)
    return wrap(x._storage.copy(spread), out_shape, x._dtype, x._device)


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
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shift, axis=0), x._layout.shape)
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
    shape = x._layout.shape
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes):
        total[a] = total.get(a, 0) + s
    # per axis: the (source start, destination start, length) pieces of the rotation
    pieces = [[(0, 0, n)] for n in shape]
    for a, s in total.items():
        n = shape[a]
        k = s % n if n else 0
        if k:
            pieces[a] = [(0, k, n - k), (n - k, 0, k)]
    storage = x._device.empty(shape, x._dtype)
    out_layout = contiguous_layout(shape)
    blocks: list[tuple[tuple, tuple]] = [((), ())]
    for d, parts in enumerate(pieces):
        blocks = [(src + ((s0, ln),), dst + ((d0, ln),)) for src, dst in blocks for s0, d0, ln in parts]
    for src, dst in blocks:
        src_l, dst_l = x._layout, out_layout
        for d, ((s0, ln), (d0, _)) in enumerate(zip(src, dst)):
            if (s0, d0, ln) != (0, 0, shape[d]):
                src_l = src_l.slice(d, s0, s0 + ln, 1)
                dst_l = dst_l.slice(d, d0, d0 + ln, 1)
        if src_l.size:
            storage.assign(dst_l, x._storage, src_l)
    return wrap(storage, shape, x._dtype, x._device)


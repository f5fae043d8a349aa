"""Manipulation functions of the Array API that change a layout (reshape, permute_dims,
expand_dims, squeeze, flip, moveaxis): views where possible. Broadcasting lives in
``broadcasting``, joining in ``joining``, repetition in ``repetition``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import operator_index, require_array, view
from .arguments import copy_flag
from .array import Array, wrap
from .errors import ArgumentTypeError, ArgumentValueError, AxisError, ShapeError, short_repr
from .shapes import MAX_NDIM, check_ndim, normalize_axes, normalize_axis

if TYPE_CHECKING:
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
    copy = copy_flag(copy, "reshape")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise ArgumentTypeError(f"reshape: shape must be a tuple of ints, got {type(shape).__name__}")
    shape = tuple(operator_index(n, "reshape", "shape") for n in shape)
    check_ndim(len(shape))
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
        check_ndim(x.ndim + 1)
        return view(x, x._layout.expand_dims(normalize_axis(axis, x.ndim + 1)))
    ndim = x.ndim + len(axis)
    if ndim > MAX_NDIM:  # (before the axes are looked at: each insertion below costs O(ndim))
        check_ndim(ndim)
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

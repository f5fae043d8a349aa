"""NumPy's ``lib.stride_tricks.sliding_window_view`` on candlewick arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core import require_array
from ..conversion import asarray
from ..errors import ArgumentTypeError, ArgumentValueError, short_repr
from ..indexing_functions import take
from ..manipulation import moveaxis, reshape
from ..shapes import normalize_axis

if TYPE_CHECKING:
    from ..array import Array


def _several(value):
    """window_shape or axis as a tuple: a list, tuple or NumPy array of them, else one
    (not any iterable: one could be endless or a string)."""
    if isinstance(value, (list, tuple)) or isinstance(value, np.ndarray) and value.ndim:
        return tuple(value)
    return (value,)


def sliding_window_view(x: Array, window_shape: int | tuple[int, ...], axis: int | tuple[int, ...] | None = None, *,
                        subok: bool = False, writeable: bool = False) -> Array:
    """NumPy's ``sliding_window_view``: every window of ``window_shape`` along ``axis``,
    the window's dimensions appended after x's (each axis shortened to n - w + 1).

    Parameters
    ----------
    x : Array
        The array to take windows of.
    window_shape : int or tuple of int
        The window's length along each axis of ``axis``.
    axis : int, tuple of int or None
        The axes the windows slide along (None: every axis, one length each).
    subok : bool
        Accepted for NumPy's signature.
    writeable : bool
        Accepted for NumPy's signature: the windows are a copy, so writing to them never
        reaches x (NumPy's are a read-only view).

    Returns
    -------
    Array
        The windows, of shape ``x.shape`` (shortened along ``axis``) + ``window_shape``.

    Raises
    ------
    TypeError
        If x is not a candlewick array or window_shape does not hold ints.
    ValueError
        If window_shape and axis differ in length, or a window is longer than its axis.

    Examples
    --------
    >>> import candlewick as cw
    >>> from candlewick.lib.stride_tricks import sliding_window_view
    >>> sliding_window_view(cw.arange(5), 3).tolist()
    [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    """
    require_array(x, "sliding_window_view")
    windows: tuple[Any, ...] = _several(window_shape)
    if any(isinstance(w, bool) or not isinstance(w, (int, np.integer)) for w in windows):
        raise ArgumentTypeError(f"sliding_window_view: window_shape must hold ints, got {short_repr(window_shape)}")
    axes: tuple[Any, ...]
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = _several(axis)
    if len(axes) != len(windows):
        raise ArgumentValueError(f"sliding_window_view: {len(windows)} window lengths for {len(axes)} axes")
    result = x
    for ax, w in zip(axes, windows):
        ax = normalize_axis(ax, x.ndim)
        n = result.shape[ax]
        if w < 0 or w > n:
            raise ArgumentValueError(f"sliding_window_view: a window of {w} does not fit axis {ax} of length {n}")
        starts = n - w + 1
        index = (np.arange(starts)[:, None] + np.arange(w)[None, :]).reshape(-1)
        taken = take(result, asarray(index, device=x.device), axis=ax)
        split = reshape(taken, taken.shape[:ax] + (starts, w) + taken.shape[ax + 1:])
        result = moveaxis(split, ax + 1, -1)  # the window's dimension goes last
    return result


__all__ = ["sliding_window_view"]

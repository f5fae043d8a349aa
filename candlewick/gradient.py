"""NumPy's ``gradient`` on candlewick arrays: second-order central differences inside,
first- or second-order one-sided differences at the edges, with unit, scalar or
coordinate spacing per axis (xarray's ``differentiate`` passes the coordinate)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from ._core import require_array
from .array import Array
from .arguments import real_number
from .conversion import asarray, to_numpy
from .data_types import astype
from .errors import ArgumentTypeError, ArgumentValueError, ShapeError, short_repr
from .joining import concat
from .manipulation import reshape
from .shapes import normalize_axes


def _along(x, axis, start, stop):
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _column(values, f, axis):
    """1-D coefficients (host or candlewick) shaped to broadcast along ``axis`` of f."""
    shape = [1] * f.ndim
    shape[axis] = -1
    return reshape(asarray(values, dtype=f.dtype, device=f.device), tuple(shape))


def _spacing(value, f, axis):
    """A scalar step, or the 1-D steps between the coordinates (host arrays stay on the host)."""
    if isinstance(value, (int, float, np.generic)) or getattr(value, "ndim", None) == 0:
        return real_number(value, "gradient", "varargs", nonzero=True), True
    if not isinstance(value, (Array, np.ndarray, list, tuple)):
        raise ArgumentTypeError(f"gradient: a spacing must be a number or a 1-D coordinate array, got {type(value).__name__}")
    # the steps of a coordinate array (1-D, small) are computed on the host: a candlewick
    # array is copied there explicitly
    try:
        host = np.asarray(to_numpy(value) if isinstance(value, Array) else value)
    except (TypeError, ValueError, RecursionError):
        host = np.asarray([None])
    if host.dtype.kind not in "biuf":
        raise ArgumentTypeError(f"gradient: a coordinate array must hold real numbers, got {host.dtype}")
    host = host.astype(np.float64)
    if host.ndim != 1 or host.shape[0] != f.shape[axis]:
        raise ShapeError(f"gradient: the coordinates of axis {axis} must be 1-D of length {f.shape[axis]}, "
                         f"got shape {host.shape}")
    steps = np.diff(host)
    if steps.size and (steps == steps[0]).all():  # uniform coordinates: NumPy's scalar path
        return float(steps[0]), True
    return steps, False


def _one_axis(f, axis, step, uniform, edge_order):
    n = f.shape[axis]

    def part(a, b):
        return _along(f, axis, a, b)

    if uniform:
        inner = (part(2, n) - part(0, n - 2)) / (2.0 * step)
        if edge_order == 1:
            left = (part(1, 2) - part(0, 1)) / step
            right = (part(n - 1, n) - part(n - 2, n - 1)) / step
        else:
            left = (-1.5 * part(0, 1) + 2.0 * part(1, 2) - 0.5 * part(2, 3)) / step
            right = (0.5 * part(n - 3, n - 2) - 2.0 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / step
        return concat([left, inner, right], axis=axis)
    dx1, dx2 = step[:-1], step[1:]
    with np.errstate(all="ignore"):  # repeated coordinates: IEEE's inf/nan, silently as candlewick's arithmetic
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
    inner = _column(a, f, axis) * part(0, n - 2) + _column(b, f, axis) * part(1, n - 1) + _column(c, f, axis) * part(2, n)
    if edge_order == 1:
        left = (part(1, 2) - part(0, 1)) / float(step[0])
        right = (part(n - 1, n) - part(n - 2, n - 1)) / float(step[-1])
    else:
        d1, d2 = float(step[0]), float(step[1])
        left = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * part(0, 1) + (d1 + d2) / (d1 * d2) * part(1, 2)
                - d1 / (d2 * (d1 + d2)) * part(2, 3))
        d1, d2 = float(step[-2]), float(step[-1])
        right = (d2 / (d1 * (d1 + d2)) * part(n - 3, n - 2) - (d2 + d1) / (d1 * d2) * part(n - 2, n - 1)
                 + (2 * d2 + d1) / (d2 * (d1 + d2)) * part(n - 1, n))
    return concat([left, inner, right], axis=axis)


def gradient(f: Array, *varargs: Any, axis: int | tuple[int, ...] | None = None, edge_order: int = 1) -> Any:
    """NumPy's ``gradient``: the derivative of ``f`` along each axis, by second-order
    central differences inside and one-sided differences of ``edge_order`` at the ends.

    Parameters
    ----------
    f : Array
        The sampled function (integers are differentiated as the default float).
    *varargs : scalar or 1-D array
        The spacing: none (1), one scalar for every axis, or one scalar or coordinate
        array (NumPy or candlewick) per axis differentiated.
    axis : int, tuple of int or None
        The axes to differentiate along; None for all of them.
    edge_order : int
        1 or 2: the order of the differences at the edges.

    Returns
    -------
    Array or tuple of Array
        The derivative along the one axis asked for, else a tuple (one per axis), as NumPy 2.

    Raises
    ------
    TypeError
        If f is not a candlewick array.
    ValueError
        If edge_order is not 1 or 2, the spacing count is wrong, or an axis is shorter
        than edge_order + 1.
    ShapeError
        If a coordinate array does not match its axis.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.gradient(cw.asarray([1.0, 2.0, 4.0, 7.0])).tolist()
    [1.0, 1.5, 2.5, 3.0]
    """
    require_array(f, "gradient", "f")
    if isinstance(edge_order, bool) or not isinstance(edge_order, int) or edge_order not in (1, 2):
        raise ArgumentValueError(f"gradient: edge_order must be 1 or 2, got {short_repr(edge_order)}")
    axes = normalize_axes(axis, f.ndim) if axis is not None else tuple(range(f.ndim))
    if not varargs:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and (isinstance(varargs[0], (int, float, np.generic)) or getattr(varargs[0], "ndim", 1) == 0):
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise ArgumentTypeError(f"gradient: {len(varargs)} spacings given for {len(axes)} axes")
    if not (f.dtype.is_floating or f.dtype.is_complex):
        f = astype(f, _dt.DEFAULT_FLOAT)
    results = []
    for ax, spacing in zip(axes, spacings):
        if f.shape[ax] < edge_order + 1:
            raise ArgumentValueError(f"gradient: axis {ax} has {f.shape[ax]} samples; edge_order {edge_order} "
                                     f"needs at least {edge_order + 1}")
        step, uniform = _spacing(spacing, f, ax)
        results.append(_one_axis(f, ax, step, uniform, edge_order))
    return results[0] if len(results) == 1 else tuple(results)


__all__ = ["gradient"]

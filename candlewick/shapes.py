"""Shape and axis arithmetic, on plain tuples: C-contiguous strides, element counts,
axis normalization (an axis argument checked against an array's rank), the shape a
reduction leaves and the shape operands broadcast to. ``Layout`` (``layout.py``) builds on
these; namespace functions and backends use them without a layout."""

import operator

from .errors import ArgumentTypeError, ArgumentValueError, AxisError, ShapeError, short_repr

__all__ = [
    "ALL_AXES", "MAX_NDIM", "broadcast_shapes", "check_ndim", "contiguous_strides", "normalize_axes", "normalize_axis",
    "reduced_shape", "shape_size",
]


#: the most dimensions an array may have: NumPy's limit (NPY_MAXDIMS), which CuPy shares.
#: An array past it could be made as a layout, but the cpu backend (NumPy) could never
#: compute on it nor ``to_numpy`` return it, so the call that would create one refuses.
MAX_NDIM = 64


def check_ndim(ndim):
    """Raise ShapeError if a result of ``ndim`` dimensions is past ``MAX_NDIM``."""
    if ndim > MAX_NDIM:
        raise ShapeError(f"an array has at most {MAX_NDIM} dimensions (as in NumPy); the result would have {ndim}")


def contiguous_strides(shape):
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n if n > 1 else 1
    return tuple(reversed(strides))


def shape_size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


def normalize_axis(axis, ndim, argname="axis"):
    if not isinstance(axis, int) or isinstance(axis, bool):
        try:
            if isinstance(axis, (bool, type)):
                raise TypeError
            axis = operator.index(axis)
        except TypeError:  # also what a NumPy array of several elements raises
            raise ArgumentTypeError(f"{argname} must be an integer, got {short_repr(axis)}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(f"{argname} {axis} is out of range for an array of {ndim} dimension(s)")
    return axis + ndim if axis < 0 else axis


class _AxesOfRank(dict):
    """``ALL_AXES[ndim]``: ``tuple(range(ndim))``, made once per ndim (every reduction
    over a whole array asks; a hot caller reads it without normalize_axes's call)."""

    def __missing__(self, ndim):
        axes = self[ndim] = tuple(range(ndim))
        return axes


ALL_AXES = _AxesOfRank()


def normalize_axes(axes, ndim, argname="axis"):
    """None -> all axes; int or sequence -> sorted unique tuple; duplicates raise."""
    if axes is None:
        return ALL_AXES[ndim]
    if isinstance(axes, (list, tuple)):
        if len(axes) == 1:
            return (normalize_axis(axes[0], ndim, argname),)
        out = tuple([normalize_axis(a, ndim, argname) for a in axes])
        if len(set(out)) != len(out):
            raise ArgumentValueError(f"{argname} contains a repeated axis: {short_repr(axes)}")
        return tuple(sorted(out))
    return (normalize_axis(axes, ndim, argname),)


def reduced_shape(shape, axes, keepdims):
    """The shape left by a reduction over ``axes`` (normalized): the axes dropped, or
    kept as 1 with ``keepdims``."""
    if keepdims:
        return tuple([1 if i in axes else n for i, n in enumerate(shape)])
    if len(axes) == len(shape):
        return ()
    return tuple([n for i, n in enumerate(shape) if i not in axes])


def broadcast_shapes(*shapes):
    if len(shapes) == 2:  # the common case (every binary op), in two C-speed passes
        a, b = shapes
        if a == b:
            return tuple(a)
        pad = len(a) - len(b)
        if pad:
            a, b = ((1,) * -pad + tuple(a), b) if pad < 0 else (a, (1,) * pad + tuple(b))
        out = []
        for n, m in zip(a, b):
            if m == 1 or n == m:
                out.append(n)
            elif n == 1:
                out.append(m)
            else:
                break  # a mismatch: the general loop below names it
        else:
            return tuple(out)
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        pad = ndim - len(s)
        for i, n in enumerate(s):
            cur = out[pad + i]
            if n == cur or n == 1:
                continue
            if cur == 1:
                out[pad + i] = n
            else:
                raise ShapeError(
                    # NumPy's words ("cannot be broadcast"), which callers match on
                    f"shapes {' and '.join(str(tuple(x)) for x in shapes)} cannot be broadcast together: "
                    f"dimension {pad + i} has sizes {cur} and {n}"
                )
    return tuple(out)

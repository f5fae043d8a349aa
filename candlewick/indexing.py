"""``__getitem__`` / ``__setitem__``: basic indexing as layout views; integer-array and
boolean-mask indexing composed from the index primitives."""

import numpy as np

from . import dtypes as _dt
from ._core import array_type, scalar_for, view
from .writes import check_writable
from .errors import DeviceMismatchError, DTypeError, IndexKeyError, IndexOutOfBoundsError, short_repr
from .layout import Layout


def _as_int(k):
    if isinstance(k, bool):
        raise IndexKeyError("a bool is not a valid index; use a bool array as a mask")
    if isinstance(k, (int, np.integer)):
        return int(k)
    Array = array_type()
    if isinstance(k, Array) and k.ndim == 0 and k._dtype.is_integer:
        return int(k)
    return None


def is_basic(key, Array=None):
    """Whether ``key`` holds only ints, slices, ``...``, None and 0-d integer arrays."""
    if Array is None:
        Array = array_type()
    for k in key if type(key) is tuple else (key,):
        t = type(k)
        if t is int or t is slice or k is None or k is Ellipsis:
            continue
        if t is Array:
            if k._layout.shape or not k._dtype.is_integer:
                return False
        elif t is list or t is np.ndarray or isinstance(k, (Array, np.ndarray, list)):
            return False
    return True


def basic_layout(layout, key):
    """The layout that ``x[key]`` views, for keys of ints, slices, ``...`` and ``None``."""
    items = key if isinstance(key, tuple) else (key,)
    ellipses = sum(1 for k in items if k is Ellipsis)
    if ellipses > 1:
        raise IndexKeyError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    ndim = len(layout.shape)
    if consumed > ndim:
        raise IndexKeyError(f"too many indices: array is {ndim}-dimensional, but {consumed} were indexed")
    if not ellipses:
        items = items + (Ellipsis,)
    shape, strides = [], []
    offset = layout.offset
    axis = 0
    for k in items:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        if k is Ellipsis:
            fill = ndim - consumed
            shape.extend(layout.shape[axis : axis + fill])
            strides.extend(layout.strides[axis : axis + fill])
            axis += fill
            continue
        n, s = layout.shape[axis], layout.strides[axis]
        if isinstance(k, slice):
            start, stop, step = _slice_bounds(k, n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            shape.append(length)
            strides.append(s * step)
            axis += 1
            continue
        i = _as_int(k)
        if i is None:
            raise IndexKeyError(
                f"only integers, slices, '...', None and integer or boolean arrays are valid "
                f"indices, got {type(k).__name__}"
            )
        if not -n <= i < n:
            raise IndexOutOfBoundsError(f"index {i} is out of bounds for axis {axis} with size {n}")
        offset += (i + n if i < 0 else i) * s
        axis += 1
    if 0 in shape:
        offset = layout.offset  # an empty view reads nothing: keep it inside the buffer
    return Layout(tuple(shape), tuple(strides), offset)


def getitem(x, key):
    Array = type(x)
    if type(key) is int:
        # the commonest key: one integer on the first axis
        layout = x._layout
        if not layout.shape:
            raise IndexKeyError("too many indices: array is 0-dimensional, but 1 was indexed")
        n = layout.shape[0]
        if not -n <= key < n:
            raise IndexOutOfBoundsError(f"index {key} is out of bounds for axis 0 with size {n}")
        return view(x, layout.select(0, key + n if key < 0 else key))
    if type(key) is slice and x._layout.shape:
        layout = x._layout
        return view(x, layout.slice(0, *_slice_bounds(key, layout.shape[0])))
    if is_basic(key, Array):
        return view(x, basic_layout(x._layout, key))
    return advanced_getitem(x, key)


def _value_for(x, value, fname="__setitem__"):
    """``value`` as (storage, layout) of x's dtype or as a converted Python scalar."""
    Array = array_type()
    if isinstance(value, Array):
        if value._device is not x._device:
            raise DeviceMismatchError(
                f"{fname}: value is on {value._device.name} but the array is on {x._device.name}"
            )
        if value._dtype is not x._dtype:
            if _dt.promote_types(x._dtype, value._dtype) is not x._dtype:
                raise DTypeError(
                    f"{fname}: a {value._dtype.name} value cannot be stored in a {x._dtype.name} "
                    f"array without losing information; cast it with astype first"
                )
            value = value.astype(x._dtype)
        return value
    if isinstance(value, np.generic):
        value = value.item()
    scalar, dtype = scalar_for(value, x._dtype, fname)
    if dtype is not x._dtype:
        raise DTypeError(f"{fname}: a {type(value).__name__} cannot be stored in a {x._dtype.name} array")
    return scalar


def fit_value(layout, shape):
    """The value's layout broadcast to the target ``shape``; like NumPy, leading size-1
    axes beyond the target's dimensions are dropped first."""
    extra = layout.ndim - len(shape)
    if extra > 0 and all(n == 1 for n in layout.shape[:extra]):
        layout = layout.squeeze(tuple(range(extra)))
    return layout.broadcast_to(shape)


def _slice_bounds(k, n):
    """``k.indices(n)`` with candlewick's errors for a zero step or non-integer bounds."""
    if k.step is not None and _as_int(k.step) == 0:
        raise IndexKeyError(f"slice step must not be zero, got {short_repr(k)}")
    try:
        return k.indices(n)
    except TypeError:
        raise IndexKeyError(
            f"slice bounds must be integers or None, got {short_repr(k)}"
        ) from None


def setitem(x, key, value):
    check_writable(x, "__setitem__")
    Array = type(x)
    if not is_basic(key, Array):
        return advanced_setitem(x, key, value)
    dst = basic_layout(x._layout, key)
    value = _value_for(x, value)
    if isinstance(value, Array):
        x._storage.assign(dst, value._storage, fit_value(value._layout, dst.shape))
    else:
        x._storage.fill(dst, value)


# at the bottom: advanced_indexing builds on basic_layout and _value_for above
from .advanced_indexing import advanced_getitem, advanced_setitem  # noqa: E402

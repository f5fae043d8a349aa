"""Basic indexing (ints, slices, ``...``, None, 0-d integer arrays) as layout views, and
the value checks that every ``__setitem__`` shares."""

import operator

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, scalar_into
from .errors import DeviceMismatchError, DTypeError, IndexKeyError, IndexOutOfBoundsError, short_repr
from .layout import Layout
from .shapes import check_ndim
from .promotion_mode import is_strict
from .type_promotion import standard_promotion


# the key errors every indexing path raises, built in one place (only on the error path:
# the hot loops test inline and call these to raise)
def too_many_indices(ndim, consumed):
    verb = "was" if consumed == 1 else "were"
    return IndexKeyError(f"too many indices: array is {ndim}-dimensional, but {consumed} {verb} indexed")


def several_ellipses():
    return IndexKeyError("an index can only have a single ellipsis ('...')")


def not_an_index(k):
    return IndexKeyError(
        f"only integers, slices, '...', None and integer or boolean arrays are valid indices, got {type(k).__name__}"
    )


def out_of_bounds(i, axis, n):
    return IndexOutOfBoundsError(f"index {i} is out of bounds for axis {axis} with size {n}")


def indexes_empty_axis(axis):
    """An integer index array that selects along an axis of length 0: every index is out
    of bounds (NumPy's IndexError), though the result may have no elements for a kernel
    to check (``x[:, [0]]`` of a (0, 0) array)."""
    return IndexOutOfBoundsError(f"index array indexes axis {axis}, which has size 0: "
                                 f"every index is out of bounds for it")


def as_int_index(k):
    """``k`` as a Python int when it is an integer index (int, NumPy integer, 0-d integer
    array, any object with ``__index__``, as the standard and Python's sequences take),
    else None; a bool raises (a bool array is a mask, a bool scalar is not an index)."""
    if isinstance(k, bool):
        raise IndexKeyError("a bool is not a valid index; use a bool array as a mask")
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, ArrayBase):
        return int(k) if k.ndim == 0 and k._dtype.is_integer else None
    if hasattr(type(k), "__index__") and not isinstance(k, (np.ndarray, np.bool_)):
        try:
            index = operator.index(k)
        except TypeError:  # an __index__ that refuses (or returns a non-int)
            return None
        return int(index)
    return None


def is_basic(key, Array):
    """Whether ``key`` holds only ints, slices, ``...``, None and 0-d integer arrays
    (``Array``: the indexed array's class)."""
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
        raise several_ellipses()
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    ndim = len(layout.shape)
    if consumed > ndim:
        raise too_many_indices(ndim, consumed)
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
            start, stop, step = slice_bounds(k, n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            shape.append(length)
            # an axis of one element never steps: its stride is irrelevant, and a huge step
            # (x[::2**62]) must not leave a stride no backend can address
            strides.append(s * step if length > 1 else 0)
            axis += 1
            continue
        i = as_int_index(k)
        if i is None:
            raise not_an_index(k)
        if not -n <= i < n:
            raise out_of_bounds(i, axis, n)
        offset += (i + n if i < 0 else i) * s
        axis += 1
    if 0 in shape:
        offset = layout.offset  # an empty view reads nothing: keep it inside the buffer
    check_ndim(len(shape))
    return Layout(tuple(shape), tuple(strides), offset)


def element_layout(layout, key):
    """The 0-d layout of ``x[key]`` for a tuple of one Python int per axis."""
    offset = layout.offset
    for axis, (i, n, s) in enumerate(zip(key, layout.shape, layout.strides)):
        if not -n <= i < n:
            raise out_of_bounds(i, axis, n)
        offset += (i + n if i < 0 else i) * s
    return Layout((), (), offset)


def setitem_value(x, value, fname="__setitem__"):
    """``value`` as (storage, layout) of x's dtype or as a converted Python scalar."""
    if isinstance(value, ArrayBase):
        if value._device is not x._device:
            raise DeviceMismatchError(
                f"{fname}: value is on {value._device.name} but the array is on {x._device.name}"
            )
        if value._dtype is not x._dtype:
            # storing never changes x's dtype: the value is cast to it, as NumPy and PyTorch
            # do; strict mode takes only values x's dtype holds (the standard's lattice)
            if is_strict() and standard_promotion(x._dtype, value._dtype) is not x._dtype:
                raise DTypeError(
                    f"{fname}: a {value._dtype.name} value cannot be stored in a {x._dtype.name} "
                    f"array without losing information in strict promotion mode; cast it with "
                    f"astype first"
                )
            value = value.astype(x._dtype)
        return value
    return scalar_into(value, x._dtype, fname)


def fit_value(layout, shape):
    """The value's layout broadcast to the target ``shape``; like NumPy, leading size-1
    axes beyond the target's dimensions are dropped first."""
    extra = layout.ndim - len(shape)
    if extra > 0 and all(n == 1 for n in layout.shape[:extra]):
        layout = layout.squeeze(tuple(range(extra)))
    return layout.broadcast_to(shape)


def slice_bounds(k, n):
    """``k.indices(n)`` with candlewick's errors for a zero step or non-integer bounds."""
    step = k.step
    if step is not None and (type(step) is not int or not step) and as_int_index(step) == 0:
        raise IndexKeyError(f"slice step must not be zero, got {short_repr(k)}")
    try:
        return k.indices(n)
    except TypeError:
        raise IndexKeyError(f"slice bounds must be integers or None, got {short_repr(k)}") from None

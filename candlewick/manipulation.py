"""Manipulation functions of the Array API: views where possible, copies via ``assign``."""

from . import dtypes as _dt
from ._core import as_shape, promote_pair, require_array, view, wrap, contiguous_layout
from .errors import DeviceMismatchError, ShapeError
from .layout import Layout, broadcast_shapes, normalize_axes, normalize_axis


def _contiguous(x):
    return wrap(x._storage.copy(x._layout), x._layout.shape, x._dtype, x._device)


def reshape(x, /, shape, *, copy=None):
    """Reshape; a view when the layout allows, else a copy (``copy=False`` then raises)."""
    require_array(x, "reshape")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    shape = tuple(shape)
    size = x._layout.size
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError(f"reshape: at most one dimension may be -1, got {shape}")
    known = 1
    for n in shape:
        if n != -1:
            if not isinstance(n, int) or n < 0:
                raise ValueError(f"reshape: shape must hold non-negative ints (or one -1), got {shape}")
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
            raise ValueError("reshape: copy=False but the layout cannot be reshaped without a copy")
        return wrap(x._storage.copy(x._layout), shape, x._dtype, x._device)
    return view(x, layout)


def permute_dims(x, /, axes):
    require_array(x, "permute_dims")
    axes = tuple(normalize_axis(a, x.ndim, "axes") for a in axes)
    if len(axes) != x.ndim:
        raise ValueError(f"permute_dims: axes {axes} must name each of the {x.ndim} dimensions once")
    return view(x, x._layout.permute(axes))


def expand_dims(x, /, axis=0):
    require_array(x, "expand_dims")
    axis = normalize_axis(axis, x.ndim + 1)
    return view(x, x._layout.expand_dims(axis))


def squeeze(x, /, axis):
    require_array(x, "squeeze")
    axes = normalize_axes(axis, x.ndim)
    return view(x, x._layout.squeeze(axes))


def broadcast_to(x, /, shape):
    require_array(x, "broadcast_to")
    shape = as_shape(shape, "broadcast_to")
    return view(x, x._layout.broadcast_to(shape))


def broadcast_arrays(*arrays):
    for a in arrays:
        require_array(a, "broadcast_arrays", "arrays")
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return [view(a, a._layout.broadcast_to(shape)) for a in arrays]


def flip(x, /, *, axis=None):
    require_array(x, "flip")
    return view(x, x._layout.flip(normalize_axes(axis, x.ndim)))


def moveaxis(x, source, destination, /):
    require_array(x, "moveaxis")
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    src = tuple(normalize_axis(a, x.ndim, "source") for a in src)
    dst = tuple(normalize_axis(a, x.ndim, "destination") for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis: source and destination must not repeat an axis")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return view(x, x._layout.permute(order))


def _join_inputs(arrays, fname):
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise ValueError(f"{fname}: arrays must be a non-empty list or tuple of arrays")
    for a in arrays:
        require_array(a, fname, "arrays")
    first = arrays[0]
    dtype = first._dtype
    for a in arrays[1:]:
        if a._device is not first._device:
            raise DeviceMismatchError(f"{fname}: arrays are on different devices")
        dtype = _dt.promote_types(dtype, a._dtype)
    return dtype, first._device


def concat(arrays, /, *, axis=0):
    """Join arrays along an existing axis (``axis=None`` flattens first)."""
    dtype, device = _join_inputs(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("concat: 0-d arrays cannot be concatenated; use stack")
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


def stack(arrays, /, *, axis=0):
    """Join arrays of one shape along a new axis."""
    _join_inputs(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ShapeError(f"stack: arrays must share one shape, got {[a.shape for a in arrays]}")
    axis = normalize_axis(axis, len(shape) + 1)
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def unstack(x, /, *, axis=0):
    require_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim)
    return tuple(view(x, x._layout.select(axis, i)) for i in range(x.shape[axis]))

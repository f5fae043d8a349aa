"""Integer-array and boolean-mask indexing (``x[key]`` / ``x[key] = value``) with NumPy's
semantics, composed from the ``index_select``, ``scatter``, ``where`` and ``scan``
primitives.

How a key is taken apart:

1. Lists and NumPy arrays in the key become candlewick arrays on x's device; the
   ellipsis is expanded.
2. A boolean array covering k dimensions becomes the k integer arrays of its
   ``nonzero`` (one host read of the count). A 0-d boolean adds an axis of length 1 or 0.
3. Slices and ``None`` make a view ``v`` of x (no copy) in which every array-indexed
   axis is still whole. Python ints next to arrays are advanced indices too (NumPy's
   rule): they broadcast with the arrays.
4. The advanced indices broadcast to one shape B. One advanced axis is an
   ``index_select``/``scatter`` along it. Several are merged into one axis of ``v``
   (moved to the front) indexed by the flattened index ``sum(i_j * stride_j)``, each
   term looked up in a stride table of its own axis' length, so an index out of range
   on its own axis raises IndexError (from the primitive, without a host read).
5. Placement (NumPy): if the advanced axes are adjacent, B replaces them where they
   stood; otherwise B leads the result.

A key that is a single boolean array (the common ``x[mask]``) skips the integer
detour: the rows of x under the mask are one ``compress`` primitive call.

Bad indices raise IndexError from the primitives. On an asynchronous backend that
error arrives at the next synchronizing call (the protocol allows it), and a failed
assignment with several index arrays may by then have written other elements.
"""

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, check_dtype_on, contiguous_layout, new_array, scalar_array, view
from .basic_indexing import _as_int, _value_for, basic_layout, fit_value
from .elementwise import binary
from .errors import DeviceMismatchError, IndexKeyError, IndexOutOfBoundsError, ShapeError, short_repr
from .layout import Layout, broadcast_shapes, shape_size
from .opdefs import BinaryOp
from .searching import nonzero

_int64 = _dt.int64


# --- key normalization ------------------------------------------------------------------

def _to_array(item, x):
    """Lists and NumPy arrays in a key become index arrays on x's device."""
    if isinstance(item, ArrayBase):
        if item._device is not x._device:
            raise DeviceMismatchError(
                f"index array is on {item._device.name} but the array is on {x._device.name}"
            )
        return item
    if isinstance(item, (list, np.ndarray)):
        try:
            host = np.asarray(item)
        except ValueError:
            raise IndexKeyError(f"an index list must be rectangular (like an array), got {short_repr(item)}") from None
        if host.size == 0 and host.dtype.kind == "f":
            host = host.astype(np.int64)  # an empty list indexes nothing; NumPy takes it as int
        if host.dtype.kind not in "biu":
            raise IndexKeyError(
                f"arrays used as indices must be of integer or boolean type, got {host.dtype}"
            )
        dtype = check_dtype_on(x._device, _dt.from_numpy(host.dtype))
        if not host.flags.c_contiguous:
            host = host.copy(order="C")  # (np.ascontiguousarray would turn 0-d into 1-d)
        return new_array(type(x), x._device.storage_from_host(host), host.shape, dtype, x._device)
    return item


def _normalize(x, key):
    """The key as a list of None / slice / int / index Array, with the ellipsis expanded
    and boolean arrays replaced by their nonzero integer arrays."""
    items = [_to_array(k, x) for k in (key if isinstance(key, tuple) else (key,))]
    consumed = 0
    ellipses = 0
    for k in items:
        if k is None:
            continue
        if k is Ellipsis:
            ellipses += 1
        elif isinstance(k, ArrayBase):
            if not (k._dtype.is_integer or k._dtype.is_bool):
                raise IndexKeyError(
                    f"arrays used as indices must be of integer or boolean type, got {k._dtype.name}"
                )
            consumed += k.ndim if k._dtype.is_bool else 1
        else:
            consumed += 1
    if ellipses > 1:
        raise IndexKeyError("an index can only have a single ellipsis ('...')")
    ndim = x.ndim
    if consumed > ndim:
        raise IndexKeyError(f"too many indices: array is {ndim}-dimensional, but {consumed} were indexed")
    fill = [slice(None)] * (ndim - consumed)
    if ellipses:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        items[at : at + 1] = fill
    else:
        items.extend(fill)
    out = []
    axis = 0
    for k in items:
        if isinstance(k, ArrayBase) and k._dtype.is_bool:
            if k.ndim == 0:
                # x[..., True] adds an axis of length 1, x[..., False] one of length 0
                out.append(None)
                out.append(_Zeros(1 if bool(k) else 0))
                continue
            want = x.shape[axis : axis + k.ndim]
            if k.shape != want:
                raise IndexKeyError(
                    f"boolean index of shape {k.shape} does not match the indexed dimensions "
                    f"{want} of the array (starting at axis {axis})"
                )
            out.extend(nonzero(k))
            axis += k.ndim
            continue
        out.append(k)
        if k is not None:
            axis += 1
    return out


class _Zeros:
    """An index array of ``n`` zeros (made lazily on the right device)."""

    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n


class _Plan:
    """The view ``v`` and the advanced indices of a normalized key."""

    __slots__ = ("view", "axes", "indices", "shape", "adjacent")

    def __init__(self, x, items):
        basic = []
        self.axes = []  # axis of v each advanced index applies to
        self.indices = []  # int64 Array or Python int (already bounds-checked)
        v_axis = 0
        x_axis = 0
        for k in items:
            if k is None:
                basic.append(None)
                v_axis += 1
                continue
            if isinstance(k, slice):
                basic.append(k)
                v_axis += 1
                x_axis += 1
                continue
            if isinstance(k, _Zeros):
                # indexes the size-1 axis that the None just before it inserted
                self.axes.append(v_axis - 1)
                zeros = x._device.zeros((k.n,), _int64)
                self.indices.append(new_array(type(x), zeros, (k.n,), _int64, x._device))
                continue
            n = x.shape[x_axis]
            basic.append(slice(None))
            self.axes.append(v_axis)
            if isinstance(k, ArrayBase) and k.ndim > 0:
                if k._dtype is not _int64:
                    k = k.astype(_int64)
                self.indices.append(k)
            else:
                i = _as_int(k)
                if i is None:
                    raise IndexKeyError(
                        f"only integers, slices, '...', None and integer or boolean arrays are "
                        f"valid indices, got {type(k).__name__}"
                    )
                if not -n <= i < n:
                    raise IndexOutOfBoundsError(f"index {i} is out of bounds for axis {x_axis} with size {n}")
                self.indices.append(i + n if i < 0 else i)
            v_axis += 1
            x_axis += 1
        self.view = basic_layout(x._layout, tuple(basic))
        try:
            self.shape = broadcast_shapes(*(k.shape for k in self.indices if not isinstance(k, int)))
        except ShapeError as exc:
            raise IndexKeyError(f"shape mismatch: index arrays could not be broadcast together: {exc}") from None
        self.adjacent = self.axes == list(range(self.axes[0], self.axes[0] + len(self.axes)))

    def rest_shape(self):
        return tuple(n for d, n in enumerate(self.view.shape) if d not in self.axes)

    def result_shape(self):
        """The shape of ``x[key]`` (NumPy placement of the broadcast index shape)."""
        rest = self.rest_shape()
        if self.adjacent:
            p = self.axes[0]
            return rest[:p] + self.shape + rest[p:]
        return self.shape + rest

    def single(self):
        """The one advanced index as an int64 Array, when there is exactly one array."""
        if len(self.indices) == 1 and not isinstance(self.indices[0], int):
            return self.indices[0]
        return None

    def merged(self):
        """(layout of v with the advanced axes first, merged into one; or None when their
        strides do not allow a view) and the merged axis length."""
        rest_axes = [d for d in range(self.view.ndim) if d not in self.axes]
        front = self.view.permute(self.axes + rest_axes)
        sizes = [self.view.shape[a] for a in self.axes]
        total = shape_size(sizes)
        return front, front.reshape((total,) + self.rest_shape()), total

    def flat_index(self, device):
        """The int64 flat index (shape B) into the merged axis: the sum over the advanced
        indices of ``i_j * stride_j``. Each term is an ``index_select`` from the table
        ``[0, stride_j, 2 stride_j, ...]`` of its axis' length, so negative indices wrap
        and out-of-range ones raise IndexError against their own axis."""
        sizes = [self.view.shape[a] for a in self.axes]
        stride = shape_size(sizes)
        flat = None
        constant = 0
        for idx, n in zip(self.indices, sizes):
            stride = stride // n if n else 0
            if isinstance(idx, int):
                constant += idx * stride
                continue
            table = device.arange(0, stride, n, _int64)
            # broadcast first: an empty B looks nothing up (NumPy checks no bounds then)
            term = table.index_select(contiguous_layout((n,)), idx._storage,
                                      idx._layout.broadcast_to(self.shape), 0)
            term = new_array(type(idx), term, self.shape, _int64, device)
            flat = term if flat is None else binary(BinaryOp.ADD, flat, term, "index")
        if constant:
            flat = binary(BinaryOp.ADD, flat, constant, "index")
        return flat


def _plan(x, key):
    return _Plan(x, _normalize(x, key))


def _single_mask(x, key):
    """The boolean array when ``key`` is one boolean array of ndim >= 1 (or a 1-tuple)."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, ArrayBase) and key._dtype.is_bool and key.ndim >= 1:
        if key._device is not x._device:
            raise DeviceMismatchError(
                f"boolean index is on {key._device.name} but the array is on {x._device.name}"
            )
        if key.shape != x.shape[: key.ndim]:
            raise IndexKeyError(
                f"boolean index of shape {key.shape} does not match the array's leading "
                f"dimensions {x.shape[: key.ndim]}"
            )
        return key
    return None


def _rows(x, k):
    """x with its first k axes merged into one: (storage, layout), copying if needed."""
    shape = x._layout.shape
    rows = (shape_size(shape[:k]),) + shape[k:]
    layout = x._layout.reshape(rows)
    if layout is None:
        return x._storage.copy(x._layout), contiguous_layout(rows)
    return x._storage, layout


# --- getitem -------------------------------------------------------------------------------

def advanced_getitem(x, key):
    if isinstance(key, ArrayBase) and key._layout.shape:
        if key._dtype.is_integer:
            return _take_rows(x, key)
        shape = x._layout.shape
        if (key._dtype.is_bool and len(key._layout.shape) == 1 and key._device is x._device and shape
                and key._layout.shape[0] == shape[0]):
            # x[mask] with a 1-D mask over x's first axis: one compress, nothing to check
            out, count = x._storage.compress(x._layout, key._storage, key._layout)
            return new_array(type(x), out, (count,) + shape[1:], x._dtype, x._device)
    mask = _single_mask(x, key)
    if mask is not None:
        return _mask_getitem(x, mask)
    plan = _plan(x, key)
    device = x._device
    idx = plan.single()
    if idx is not None:
        a = plan.axes[0]
        storage = x._storage.index_select(plan.view, idx._storage, idx._layout, a)
        return new_array(type(x), storage, plan.result_shape(), x._dtype, device)
    front, merged, total = plan.merged()
    storage = x._storage
    if merged is None:
        storage = storage.copy(front)
        merged = contiguous_layout((total,) + plan.rest_shape())
    flat = plan.flat_index(device)
    out = storage.index_select(merged, flat._storage, flat._layout, 0)
    b = len(plan.shape)
    rest = plan.rest_shape()
    result = new_array(type(x), out, plan.shape + rest, x._dtype, device)
    p = plan.axes[0]
    if plan.adjacent and p:
        order = list(range(b, b + p)) + list(range(b)) + list(range(b + p, b + len(rest)))
        result = view(result, result._layout.permute(order))
    return result


def _take_rows(x, idx):
    """``x[idx]`` for one integer array: an ``index_select`` along axis 0."""
    if idx._device is not x._device:
        raise DeviceMismatchError(f"index array is on {idx._device.name} but the array is on {x._device.name}")
    layout = x._layout
    if not layout.shape:
        raise IndexKeyError("too many indices: array is 0-dimensional, but 1 was indexed")
    if idx._dtype is not _int64:
        idx = idx.astype(_int64)
    storage = x._storage.index_select(layout, idx._storage, idx._layout, 0)
    shape = layout.shape
    return new_array(type(x), storage, idx._layout.shape + shape[1:] if len(shape) > 1 else idx._layout.shape,
                     x._dtype, x._device)


def _mask_getitem(x, mask):
    k = mask.ndim
    if k == 1:  # the common case: x's rows are its leading axis already
        storage, layout, m_storage, m_layout = x._storage, x._layout, mask._storage, mask._layout
        out, count = storage.compress(layout, m_storage, m_layout)
        return new_array(type(x), out, (count,) + layout.shape[1:], x._dtype, x._device)
    storage, layout = _rows(x, k)
    n = layout.shape[0]
    m_layout = mask._layout.reshape((n,))
    m_storage = mask._storage
    if m_layout is None:
        m_storage, m_layout = m_storage.copy(mask._layout), contiguous_layout((n,))
    out, count = storage.compress(layout, m_storage, m_layout)
    return new_array(type(x), out, (count,) + layout.shape[1:], x._dtype, x._device)


# --- setitem -------------------------------------------------------------------------------

def advanced_setitem(x, key, value):
    value = _value_for(x, value)
    mask = _single_mask(x, key)
    if mask is None and isinstance(key, ArrayBase) and key._dtype.is_bool and key.ndim == 0:
        mask = key
    if mask is not None and _mask_value_fits(x, mask, value):
        return _mask_setitem(x, mask, value)
    plan = _plan(x, key)
    device = x._device
    shape = plan.result_shape()
    if not isinstance(value, ArrayBase):
        value = scalar_array(x, value, x._dtype, device)
    src = fit_value(value._layout, shape)
    b = len(plan.shape)
    rest = plan.rest_shape()
    k = shape_size(plan.shape)
    idx = plan.single()
    if idx is not None:
        a = plan.axes[0]
        flat_idx = _flat_storage(idx._storage, idx._layout.broadcast_to(plan.shape), k)
        dst = plan.view
        keyed = dst.shape[:a] + (k,) + dst.shape[a + 1 :]
        idx_layout = Layout(keyed, tuple(1 if d == a else 0 for d in range(len(keyed))), 0)
        src_storage, src_layout = _reshaped(value._storage, src, keyed)
        x._storage.scatter(dst, flat_idx, idx_layout, src_storage, src_layout, a)
        return
    p = plan.axes[0]
    if plan.adjacent and p:
        # the value is laid out like the result; put B first, as the merged view has it
        order = list(range(p, p + b)) + list(range(p)) + list(range(p + b, b + len(rest)))
        src = src.permute(order)
    front, merged, total = plan.merged()
    flat = plan.flat_index(device)
    flat_idx = _flat_storage(flat._storage, flat._layout, k)
    keyed = (k,) + rest
    idx_layout = Layout(keyed, (1,) + (0,) * len(rest), 0)
    src_storage, src_layout = _reshaped(value._storage, src, keyed)
    if merged is not None:
        x._storage.scatter(merged, flat_idx, idx_layout, src_storage, src_layout, 0)
        return
    # the advanced axes cannot be merged in place: scatter into a copy, write it back
    work = x._storage.copy(front)
    work_layout = contiguous_layout((total,) + rest)
    work.scatter(work_layout, flat_idx, idx_layout, src_storage, src_layout, 0)
    x._storage.assign(front, work, contiguous_layout(front.shape))


def _flat_storage(storage, layout, k):
    """An int64 storage holding ``layout``'s k elements contiguously (C order)."""
    if layout.is_contiguous and layout.offset == 0 and not layout.has_broadcast:
        return storage
    return storage.copy(layout) if k else storage


def _reshaped(storage, layout, shape):
    """``layout`` reshaped to ``shape`` as (storage, layout), copying when no view exists."""
    lay = layout.reshape(shape)
    if lay is None:
        return storage.copy(layout), contiguous_layout(shape)
    return storage, lay


def _mask_value_fits(x, mask, value):
    """Whether ``x[mask] = value`` can be a ``where``: the value must not depend on how
    many elements the mask selects (a scalar, or an array broadcasting to the rest)."""
    if not isinstance(value, ArrayBase):
        return True
    rest = x.shape[mask.ndim :]
    vshape = value.shape
    if len(vshape) > len(rest) + 1 or (len(vshape) == len(rest) + 1 and vshape[0] != 1):
        return False
    vshape = vshape[1:] if len(vshape) == len(rest) + 1 else vshape
    try:
        return broadcast_shapes(vshape, rest) == rest
    except ValueError:
        return False


def _mask_setitem(x, mask, value):
    shape = x._layout.shape
    k = mask.ndim
    if not isinstance(value, ArrayBase):
        value = scalar_array(x, value, x._dtype, x._device)
    vlayout = value._layout
    if vlayout.ndim == len(shape) - k + 1:
        vlayout = vlayout.squeeze((0,))
    vlayout = vlayout.broadcast_to(shape)
    m = mask._layout
    cond = Layout(shape, m.strides + (0,) * (len(shape) - k), m.offset)
    new = mask._storage.where(cond, value._storage, vlayout, x._storage, x._layout)
    x._storage.assign(x._layout, new, contiguous_layout(shape))

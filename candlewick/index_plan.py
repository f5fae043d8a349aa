"""The indexing plan of an integer-array or boolean-mask key: the key normalized
(``make_plan``) and the single-boolean-array test (``single_mask``), for
``advanced_indexing``'s get and set paths.

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
"""

import numpy as np

from . import dtypes as _dt
from ._core import ArrayBase, check_dtype_on, contiguous_layout, new_array
from .basic_indexing import (as_int_index, basic_layout, indexes_empty_axis, not_an_index, out_of_bounds,
                             several_ellipses, too_many_indices)
from .elementwise import binary
from .errors import DeviceMismatchError, IndexKeyError, ShapeError, short_repr
from .shapes import broadcast_shapes, check_ndim, shape_size
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
        raise several_ellipses()
    ndim = x.ndim
    if consumed > ndim:
        raise too_many_indices(ndim, consumed)
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
            if not mask_fits(k.shape, want):
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
        empty_axis = None  # the first x axis of length 0 that an index array selects along
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
                if n == 0 and empty_axis is None:
                    empty_axis = x_axis
                if k._dtype is not _int64:
                    k = k.astype(_int64)
                self.indices.append(k)
            else:
                i = as_int_index(k)
                if i is None:
                    raise not_an_index(k)
                if not -n <= i < n:
                    raise out_of_bounds(i, x_axis, n)
                self.indices.append(i + n if i < 0 else i)
            v_axis += 1
            x_axis += 1
        self.view = basic_layout(x._layout, tuple(basic))
        try:
            self.shape = broadcast_shapes(*(k.shape for k in self.indices if not isinstance(k, int)))
        except ShapeError as exc:
            raise IndexKeyError(f"shape mismatch: index arrays could not be broadcast together: {exc}") from None
        if empty_axis is not None and shape_size(self.shape):
            # NumPy checks the indices the broadcast uses, even where the result is empty
            # (no kernel would see them); an empty broadcast uses none
            raise indexes_empty_axis(empty_axis)
        self.adjacent = self.axes == list(range(self.axes[0], self.axes[0] + len(self.axes)))
        check_ndim(len(self.shape) + self.view.ndim - len(self.axes))

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


def make_plan(x, key):
    """The ``_Plan`` of ``x[key]``."""
    return _Plan(x, _normalize(x, key))


def single_mask(x, key):
    """The boolean array when ``key`` is one boolean array of ndim >= 1 (or a 1-tuple)."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, ArrayBase) and key._dtype.is_bool and key.ndim >= 1:
        if key._device is not x._device:
            raise DeviceMismatchError(
                f"boolean index is on {key._device.name} but the array is on {x._device.name}"
            )
        lead = x.shape[: key.ndim]
        if key.shape == lead:
            return key
        if not mask_fits(key.shape, lead):
            raise IndexKeyError(
                f"boolean index of shape {key.shape} does not match the array's leading "
                f"dimensions {lead}"
            )
        # an empty mask selects nothing whatever the length it stands against: the
        # all-False mask of the leading dimensions does the same on the usual path
        return new_array(type(x), x._device.zeros(lead, _dt.bool_), lead, _dt.bool_, x._device)
    return None


def mask_fits(mask_shape, dims):
    """Whether a boolean index of ``mask_shape`` can index ``dims``: each of its
    dimensions equals the array's or is 0 (the standard's rule, and NumPy's: an empty
    mask selects nothing from an axis of any length)."""
    return len(mask_shape) == len(dims) and all(m == n or m == 0 for m, n in zip(mask_shape, dims))

"""Integer-array and boolean-mask indexing (``x[key]`` / ``x[key] = value``) with NumPy's
semantics, composed from the ``index_select``, ``scatter``, ``compress``, ``where`` and
``scan`` primitives: the get path (``advanced_getitem``) and the set path
(``advanced_setitem``). How a key is taken apart into a view and advanced indices is
``index_plan``'s (its docstring has the steps).

A key that is a single boolean array (the common ``x[mask]``) skips the integer
detour: the rows of x under the mask are one ``compress`` primitive call, and
``x[mask] = value`` one ``where`` when the value does not depend on the count.

Bad indices raise IndexError from the primitives. On an asynchronous backend that
error arrives at the next synchronizing call (the protocol allows it), and a failed
assignment with several index arrays may by then have written other elements.
"""

from . import dtypes as _dt
from ._core import ArrayBase, contiguous_layout, new_array, scalar_array, view
from .basic_indexing import fit_value, indexes_empty_axis, setitem_value, too_many_indices
from .errors import DeviceMismatchError
from .index_plan import make_plan, single_mask
from .inplace import GROUP, declares_inplace, write
from .layout import Layout
from .lazy_gate import GATE
from .shapes import broadcast_shapes, check_ndim, shape_size
from .writes import check_writable

_int64 = _dt.int64


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
    mask = single_mask(x, key)
    if mask is not None:
        return _mask_getitem(x, mask)
    plan = make_plan(x, key)
    device = x._device
    idx = plan.single()
    if idx is not None:
        a = plan.axes[0]
        if not shape_size(plan.result_shape()):
            check_in_range(device, idx, plan.view.shape[a])
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
        raise too_many_indices(0, 1)
    check_ndim(idx.ndim + len(layout.shape) - 1)
    if layout.shape[0] == 0 and idx.size:
        raise indexes_empty_axis(0)
    if idx._dtype is not _int64:
        idx = idx.astype(_int64)
    shape = layout.shape
    out_shape = idx._layout.shape + shape[1:] if len(shape) > 1 else idx._layout.shape
    if not shape_size(out_shape):
        check_in_range(x._device, idx, shape[0])
    storage = x._storage.index_select(layout, idx._storage, idx._layout, 0)
    return new_array(type(x), storage, out_shape, x._dtype, x._device)


def check_in_range(device, idx, n):
    """Look the indices up in a table of length ``n`` (IndexError from the primitive for
    one outside [-n, n)): where the result has no elements, no kernel would see them,
    and NumPy checks them still (``x[:, [5]]`` of a (0, 3) array raises)."""
    if idx.size:
        table = device.zeros((n,), _dt.int8)
        table.index_select(contiguous_layout((n,)), idx._storage, idx._layout, 0)


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


def _rows(x, k):
    """x with its first k axes merged into one: (storage, layout), copying if needed."""
    shape = x._layout.shape
    rows = (shape_size(shape[:k]),) + shape[k:]
    layout = x._layout.reshape(rows)
    if layout is None:
        return x._storage.copy(x._layout), contiguous_layout(rows)
    return x._storage, layout


# --- setitem -------------------------------------------------------------------------------

def mask_fill(x, mask, value):
    """``x[mask] = value`` in its common case, in one step: ``mask`` a boolean array of
    x's shape (ndim >= 1) and device, ``value`` a Python float with x real floating, the
    group "inplace" declared, lazy mode off or idle (nothing pending, neither storage
    recorded: the write is eager mode's). Returns False, having done nothing, for
    anything else: the general path (``advanced_setitem``), which gives this case the
    same call. Why: the general path's dozen steps (key analysis, value conversion, the
    checks of ``write``) cost ~2 us of a 12 us update on a GPU (bench/inplace.py, rocm)."""
    dtype = x._dtype
    layout = x._layout
    device = x._device
    if GATE.on and not GATE.idle(x, mask):
        return False  # (a pending call may read x, or make mask: the general path runs them first)
    if (not mask._dtype.is_bool or dtype.level != 2 or mask._device is not device
            or mask._layout.shape != layout.shape or not layout.shape or GROUP not in device.capabilities):
        return False
    check_writable(x, "__setitem__")
    storage = x._storage
    storage.where_into(layout, mask._storage, mask._layout, value, None, storage, layout)
    return True


def advanced_setitem(x, key, value):
    value = setitem_value(x, value)
    mask = single_mask(x, key)
    if mask is None and isinstance(key, ArrayBase) and key._dtype.is_bool and key.ndim == 0:
        mask = key
    if mask is not None and _mask_value_fits(x, mask, value):
        return _mask_setitem(x, mask, value)
    if mask is not None and mask.ndim == 1 and isinstance(value, ArrayBase):
        return _mask_rows_setitem(x, mask, value)
    plan = make_plan(x, key)
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
        if not shape_size(shape):
            check_in_range(device, idx, plan.view.shape[a])
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


def mask_rows(x, mask, value):
    """``x[mask] = value`` for a 1-D boolean mask over x's first axis and a value of x's
    dtype and device with a row per selected element (its shape ``(count,) + x.shape[1:]``,
    count not 1), lazy mode off or idle (as ``mask_fill``'s): ``_mask_rows_setitem``
    straight from ``__setitem__``. Returns False, having done nothing, for anything else:
    the general path (``advanced_setitem``), which gives this case the same calls and
    errors. Why: scikit-learn's StandardScaler stores ``var[zeros] = new_var[zeros]`` once
    a fit, where the general path's key analysis and value checks made it ~55 Python
    frames on cpu (this path ~30: 8 us against 5 at 64 elements on this project's VM,
    2026-12-07, and ~40 us once NumPy's calls over the data have evicted the frames;
    NumPy: 0.5 us)."""
    if GATE.on and not (GATE.idle(x, mask) and GATE.idle(x, value)):
        return False  # (a pending call may read x or make the operands: the general path)
    shape = x._layout.shape
    vshape = value._layout.shape
    device = x._device
    if (value._dtype is not x._dtype or value._device is not device or mask._device is not device
            or not mask._dtype.is_bool or not shape or mask._layout.shape != shape[:1]
            or len(vshape) != len(shape) or vshape[0] == 1 or vshape[1:] != shape[1:]):
        return False
    check_writable(x, "__setitem__")
    _mask_rows_setitem(x, mask, value)
    return True


def _mask_rows_setitem(x, mask, value):
    """``x[mask] = value`` for a 1-D mask of x's first axis's length and an array value of
    x's dtype with a row per selected element, or one to broadcast along the rest: the
    mask's ``nonzero`` and one ``scatter`` of the rows (the scatter make_plan would make of
    it, without the plan's normalization); the value fitted to the selected rows raises
    the ShapeError where the count decides against it, before anything is written."""
    (idx,), count = mask._storage.nonzero(mask._layout)
    keyed = (count,) + x._layout.shape[1:]
    src = fit_value(value._layout, keyed)
    if count:
        # (a 1-D index is contiguous: said, so that the backend's view need not test it)
        idx_layout = Layout(keyed, (1,) + (0,) * (len(keyed) - 1), 0, True if len(keyed) == 1 else None)
        x._storage.scatter(x._layout, idx, idx_layout, value._storage, src, 0)


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
    m = mask._layout
    cond = m if k == len(shape) else Layout(shape, m.strides + (0,) * (len(shape) - k), m.offset)
    if not isinstance(value, ArrayBase):
        if declares_inplace(x._device):
            # the group's where_into takes the Python scalar itself (no device array of it)
            write(x, x._dtype, shape, x._device, "__setitem__", "where", (), mask._storage, cond,
                  (value, None, x._storage, x._layout))
            return
        value = scalar_array(x, value, x._dtype, x._device)
    vlayout = value._layout
    if vlayout.ndim == len(shape) - k + 1:
        vlayout = vlayout.squeeze((0,))
    vlayout = vlayout.broadcast_to(shape)
    # where(mask, value, x) written into x: only the masked elements change
    write(x, x._dtype, shape, x._device, "__setitem__", "where", (), mask._storage, cond,
          (value._storage, vlayout, x._storage, x._layout))

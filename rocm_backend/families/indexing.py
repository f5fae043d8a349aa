"""[families] Indexing (index_select, gather, scatter, scatter_add, index_add) on the
take/put kernels.

Out-of-range indices set the device's error flag; the next synchronizing call raises
IndexOutOfBoundsError naming the operation (the backend is asynchronous). A scatter,
scatter_add or index_add with such an index writes nothing: its indices are checked by
a first launch before the writes.

``select_in_range`` and ``scatter_in_range`` are for this backend's own compositions
(compress, unique, isin), whose indices it computed itself and knows to be in range
(sort orders, ranks, clipped insertion points): no flag slot, so the next host read
has no flag to read back, and a scatter is one launch, not a check and a write.
"""

import struct

from candlewick.shapes import contiguous_strides, shape_size

from ..abi.ew_operands import coalesce
from ..abi.structs import FLAG_A
from .copies import launch_row_copy, operand
from .ew_launch import launch_ew


def _zero_axis(strides, axis):
    s = list(strides)
    s[axis] = 0
    return tuple(s)


def index_select(x, layout, indices, idx_layout, axis, checked=True):
    shape, strides = tuple(layout.shape), tuple(layout.strides)
    k = idx_layout.ndim
    out_shape = shape[:axis] + tuple(idx_layout.shape) + shape[axis + 1:]
    out = x.device.storage_type.empty(x.device, x.dtype, shape_size(out_shape))
    if shape_size(out_shape) and _take_rows(x, out, layout, indices, idx_layout, axis, checked):
        return out
    pre, post = axis, len(shape) - axis - 1
    x_strides = strides[:axis] + (0,) * k + strides[axis + 1:]
    idx_strides = (0,) * pre + tuple(idx_layout.strides) + (0,) * post
    _take(x, out, out_shape, x_strides, layout.offset, indices, idx_strides, idx_layout.offset,
          strides[axis], shape[axis], "index_select", checked)
    return out


def select_in_range(x, layout, indices, idx_layout, axis):
    """``index_select`` of indices known to be in range (the module docstring)."""
    return index_select(x, layout, indices, idx_layout, axis, checked=False)


def _take_rows(x, out, layout, indices, idx_layout, axis, checked):
    """index_select through row_copy (index.hip) where it applies: nothing before ``axis``
    but length-1 dimensions, the dimensions after it one C-contiguous run, the indices one
    strided line. Returns whether it launched."""
    shape, strides = tuple(layout.shape), tuple(layout.strides)
    if shape_size(shape[:axis]) != 1:
        return False
    rest = shape[axis + 1:]
    if tuple(s for s, n in zip(strides[axis + 1:], rest) if n != 1) != tuple(
            st for st, n in zip(contiguous_strides(rest), rest) if n != 1):
        return False
    idx_shape, (idx_strides,) = coalesce(tuple(idx_layout.shape), [tuple(idx_layout.strides)])
    if len(idx_shape) > 1:
        return False
    item, row = x.dtype.itemsize, shape_size(rest)
    launch_row_copy(x.device, item, idx_shape[0] if idx_shape else 1, row, out.ptr, row,
                    x.ptr + layout.offset * item, strides[axis] if shape[axis] > 1 else 0, shape[axis],
                    indices, idx_layout.offset, idx_strides[0] if idx_strides else 0, "index_select", checked)
    return True


def gather(x, layout, indices, idx_layout, axis):
    out_shape = tuple(idx_layout.shape)
    out = x.device.storage_type.empty(x.device, x.dtype, shape_size(out_shape))
    _take(x, out, out_shape, _zero_axis(layout.strides, axis), layout.offset, indices,
          tuple(idx_layout.strides), idx_layout.offset, layout.strides[axis], layout.shape[axis], "gather")
    return out


def _take(x, out, out_shape, x_strides, x_offset, indices, idx_strides, idx_offset, axis_stride, n, name,
          checked=True):
    if shape_size(out_shape) == 0:
        return
    device = x.device
    out_strides = contiguous_strides(out_shape)
    flag = device.error_flag(name) if checked else 0
    launch_ew(device, ("take", x.dtype.itemsize), out_shape,
              [(out.ptr, 0, out_strides), (x.ptr, x_offset, x_strides), (indices.ptr, idx_offset, idx_strides),
               (flag, 0, out_strides)],
              struct.pack("<qq", axis_stride, n), name=name, dtype=x.dtype)


def scatter(dst, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=False, checked=True):
    dst.buffer.version += 1  # in place: voids what pad_fixup_cache learnt
    name = "scatter_add" if accumulate else "scatter"
    _put(dst, _zero_axis(dst_layout.strides, axis), dst_layout, indices, tuple(idx_layout.strides),
         idx_layout.offset, src, src_layout, axis, accumulate, name, checked)


def scatter_in_range(dst, dst_layout, indices, idx_layout, src, src_layout, axis):
    """``scatter`` of indices known to be in range (the module docstring)."""
    scatter(dst, dst_layout, indices, idx_layout, src, src_layout, axis, checked=False)


def scatter_add(dst, dst_layout, indices, idx_layout, src, src_layout, axis):
    scatter(dst, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate=True)


def index_add(dst, dst_layout, indices, idx_layout, src, src_layout, axis):
    dst.buffer.version += 1  # in place: voids what pad_fixup_cache learnt
    idx_strides = [0] * src_layout.ndim
    idx_strides[axis] = idx_layout.strides[0]
    _put(dst, _zero_axis(dst_layout.strides, axis), dst_layout, indices, tuple(idx_strides),
         idx_layout.offset, src, src_layout, axis, True, "index_add")


def _put(dst, dst_strides, dst_layout, indices, idx_strides, idx_offset, src, src_layout, axis, accumulate, name,
         checked=True):
    shape = tuple(src_layout.shape)
    if shape_size(shape) == 0:
        return
    device = dst.device
    key = ("put_add", dst.dtype) if accumulate else ("put", dst.dtype.itemsize)
    flag = device.error_flag(name) if checked else 0
    operands = [(dst.ptr, dst_layout.offset, dst_strides), (indices.ptr, idx_offset, idx_strides),
                operand(src, src_layout), (flag, 0, idx_strides)]
    bounds = struct.pack("<qq", dst_layout.strides[axis], dst_layout.shape[axis])
    # first every index is checked (FLAG_A), then the writes run unless one was out of
    # range: a bad index leaves the destination as it was (hip/index.hip); unchecked, the
    # writes alone (with no flag, the write pass never skips)
    for flags in (FLAG_A, 0) if checked else (0,):
        launch_ew(device, key, shape, operands, bounds, flags, name=name, dtype=dst.dtype)

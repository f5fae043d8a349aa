"""Indexing (index_select, gather, scatter, scatter_add, index_add) and ordering
(sort, searchsorted) on the take/put/sort kernels.

Out-of-range indices set the device's error flag; the next synchronizing call raises
IndexOutOfBoundsError naming the operation (the backend is asynchronous). A scatter,
scatter_add or index_add with such an index writes nothing: its indices are checked by
a first launch before the writes.
"""

import struct

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import contiguous_strides, shape_size

from . import ops
from .argpack import FLAG_A, ew_values
from .kernels import runtime
from .storage import RocmStorage, launch_ew


def _zero_axis(strides, axis):
    s = list(strides)
    s[axis] = 0
    return tuple(s)


def index_select(x, layout, indices, idx_layout, axis):
    shape, strides = tuple(layout.shape), tuple(layout.strides)
    k = idx_layout.ndim
    out_shape = shape[:axis] + tuple(idx_layout.shape) + shape[axis + 1:]
    out = RocmStorage.empty(x.device, x.dtype, shape_size(out_shape))
    pre, post = axis, len(shape) - axis - 1
    x_strides = strides[:axis] + (0,) * k + strides[axis + 1:]
    idx_strides = (0,) * pre + tuple(idx_layout.strides) + (0,) * post
    _take(x, out, out_shape, x_strides, layout.offset, indices, idx_strides, idx_layout.offset,
          strides[axis], shape[axis], "index_select")
    return out


def gather(x, layout, indices, idx_layout, axis):
    out_shape = tuple(idx_layout.shape)
    out = RocmStorage.empty(x.device, x.dtype, shape_size(out_shape))
    _take(x, out, out_shape, _zero_axis(layout.strides, axis), layout.offset, indices,
          tuple(idx_layout.strides), idx_layout.offset, layout.strides[axis], layout.shape[axis], "gather")
    return out


def _take(x, out, out_shape, x_strides, x_offset, indices, idx_strides, idx_offset, axis_stride, n, name):
    if shape_size(out_shape) == 0:
        return
    device = x.device
    out_strides = contiguous_strides(out_shape)
    flag = device.error_flag(name)
    launch_ew(device, ("take", x.dtype.itemsize), out_shape,
              [(out.ptr, 0, out_strides), (x.ptr, x_offset, x_strides), (indices.ptr, idx_offset, idx_strides),
               (flag, 0, out_strides)],
              struct.pack("<qq", axis_stride, n), name=name, dtype=x.dtype)


def scatter(dst, dst_layout, indices, idx_layout, src, src_layout, axis, accumulate):
    name = "scatter_add" if accumulate else "scatter"
    _put(dst, _zero_axis(dst_layout.strides, axis), dst_layout, indices, tuple(idx_layout.strides),
         idx_layout.offset, src, src_layout, axis, accumulate, name)


def index_add(dst, dst_layout, indices, idx_layout, src, src_layout, axis):
    idx_strides = [0] * src_layout.ndim
    idx_strides[axis] = idx_layout.strides[0]
    _put(dst, _zero_axis(dst_layout.strides, axis), dst_layout, indices, tuple(idx_strides),
         idx_layout.offset, src, src_layout, axis, True, "index_add")


def _put(dst, dst_strides, dst_layout, indices, idx_strides, idx_offset, src, src_layout, axis, accumulate, name):
    shape = tuple(src_layout.shape)
    if shape_size(shape) == 0:
        return
    device = dst.device
    key = ("put_add", dst.dtype) if accumulate else ("put", dst.dtype.itemsize)
    flag = device.error_flag(name)
    operands = [(dst.ptr, dst_layout.offset, dst_strides), (indices.ptr, idx_offset, idx_strides),
                src.operand(src_layout), (flag, 0, idx_strides)]
    bounds = struct.pack("<qq", dst_layout.strides[axis], dst_layout.shape[axis])
    # first every index is checked (FLAG_A), then the writes run unless one was out of
    # range: a bad index leaves the destination as it was (hip/index.hip)
    for flags in (FLAG_A, 0):
        launch_ew(device, key, shape, operands, bounds, flags, name=name, dtype=dst.dtype)


# ------------------------------------------------------------------------------ ordering

def sort(x, layout, axis, descending):
    """(values, int64 indices) along ``axis``; always stable (index tie-break)."""
    device = x.device
    shape = tuple(layout.shape)
    n = shape_size(shape)
    values = RocmStorage.empty(device, x.dtype, n)
    indices = RocmStorage.empty(device, dt.int64, n)
    if n == 0:
        return values, indices
    if x.dtype.is_complex:
        raise UnsupportedOperation("sort", x.dtype, "rocm", "complex sort is not defined")
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    pshape = tuple(shape[i] for i in perm)
    pstrides = tuple(layout.strides[i] for i in perm)
    length = shape[axis]
    rows = n // length
    padded = 1 << max(0, (length - 1).bit_length())
    keys = RocmStorage.empty(device, dt.uint64, rows * padded)
    order = RocmStorage.empty(device, dt.int64, rows * padded)
    if padded != length:  # padding sorts last: largest key, index past every real one
        keys.slice.memset(0xFF)
        order.slice.memset(0x7F)
    buf_strides = tuple(s * padded for s in contiguous_strides(pshape[:-1])) + (1,)
    launch_ew(device, ("sort_keys", x.dtype), pshape,
              [(keys.ptr, 0, buf_strides), (x.ptr, layout.offset, pstrides), (order.ptr, 0, buf_strides)],
              struct.pack("<q", length), FLAG_A if descending else 0, name="sort", dtype=x.dtype)
    _bitonic(device, keys, order, rows, padded)
    out_strides = contiguous_strides(shape)
    pout = tuple(out_strides[i] for i in perm)
    launch_ew(device, ("take", x.dtype.itemsize), pshape,
              [(values.ptr, 0, pout), (x.ptr, layout.offset, pstrides[:-1] + (0,)), (order.ptr, 0, buf_strides),
               (0, 0, ())],
              struct.pack("<qq", pstrides[-1], length), name="sort", dtype=x.dtype)
    launch_ew(device, ("copy", 8), pshape, [(indices.ptr, 0, pout), (order.ptr, 0, buf_strides)])
    return values, indices


def _bitonic(device, keys, order, rows, padded):
    rt = runtime(device)
    total = rows * padded
    seg = min(padded, ops.SORT_SEGMENT)
    if seg < 2:
        return
    block = min(ops.SORT_BLOCK, seg)
    segments = total // seg
    grid = min(segments, 1 << 16)

    def values(k, j):
        return ew_values((total,), [(keys.ptr, 0, (1,)), (order.ptr, 0, (1,))], struct.pack("<qqqq", padded, k, j, seg))

    rt.launch(ops.lookup(("sort_network", "shared")), grid, values(seg, 0), block=(block, 1, 1))
    step = ops.lookup(("sort_network", "step"))
    tail = ops.lookup(("sort_network", "tail"))
    k = seg * 2
    while k <= padded:
        j = k // 2
        while j >= seg:
            rt.launch(step, min(-(-total // step.block), 1 << 20), values(k, j))
            j //= 2
        rt.launch(tail, grid, values(k, 0), block=(block, 1, 1))
        k *= 2


def searchsorted(x, layout, values, values_layout, right):
    device = x.device
    shape = tuple(values_layout.shape)
    out = RocmStorage.empty(device, dt.int64, shape_size(shape))
    strides = contiguous_strides(shape)
    stride = layout.strides[0] if layout.ndim else 0
    length = layout.shape[0] if layout.ndim else 1
    launch_ew(device, ("searchsorted", x.dtype), shape,
              [(out.ptr, 0, strides), values.operand(values_layout), (x.ptr, layout.offset, (0,) * len(shape))],
              struct.pack("<qq", stride, length), FLAG_A if right else 0, name="searchsorted", dtype=x.dtype)
    return out

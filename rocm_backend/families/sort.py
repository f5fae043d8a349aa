"""[families] Ordering: sort (bitonic network over padded rows of 64-bit keys) and searchsorted."""

import struct

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.shapes import contiguous_strides, shape_size

from .. import ops
from ..abi import structs
from ..abi.ew_operands import ew_values
from ..abi.structs import EW_ARGS, FLAG_A, GRID_LOOP_CAP
from ..kernels import kernel
from .copies import operand
from .ew_launch import launch_ew


def sort(x, layout, axis, descending, stable=True, values_wanted=True, indices_wanted=True):
    """(values, int64 indices) along ``axis``; always stable (index tie-break). An output
    not wanted (sort_values, argsort) is None, and its last pass is not launched."""
    device = x.device
    shape = tuple(layout.shape)
    n = shape_size(shape)
    values = device.storage_type.empty(device, x.dtype, n) if values_wanted else None
    indices = device.storage_type.empty(device, dt.int64, n) if indices_wanted else None
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
    keys = device.storage_type.empty(device, dt.uint64, rows * padded)
    order = device.storage_type.empty(device, dt.int64, rows * padded)
    if padded != length:  # padding sorts last: largest key, index past every real one
        keys.buffer.memset(0xFF)
        order.buffer.memset(0x7F)
    buf_strides = tuple(s * padded for s in contiguous_strides(pshape[:-1])) + (1,)
    launch_ew(device, ("sort_keys", x.dtype), pshape,
              [(keys.ptr, 0, buf_strides), (x.ptr, layout.offset, pstrides), (order.ptr, 0, buf_strides)],
              struct.pack("<q", length), FLAG_A if descending else 0, name="sort", dtype=x.dtype)
    _bitonic(device, keys, order, rows, padded)
    out_strides = contiguous_strides(shape)
    pout = tuple(out_strides[i] for i in perm)
    if values_wanted:
        launch_ew(device, ("take", x.dtype.itemsize), pshape,
                  [(values.ptr, 0, pout), (x.ptr, layout.offset, pstrides[:-1] + (0,)),
                   (order.ptr, 0, buf_strides), (0, 0, ())],
                  struct.pack("<qq", pstrides[-1], length), name="sort", dtype=x.dtype)
    if indices_wanted:
        launch_ew(device, ("copy", 8), pshape, [(indices.ptr, 0, pout), (order.ptr, 0, buf_strides)])
    return values, indices


def sort_values(x, layout, axis, descending, stable=True):
    """The values of ``sort`` (its network is stable whatever ``stable`` says), without
    the pass that writes the indices."""
    return sort(x, layout, axis, descending, stable, indices_wanted=False)[0]


def argsort(x, layout, axis, descending, stable=True):
    """The indices of ``sort``, without the gather of the values."""
    return sort(x, layout, axis, descending, stable, values_wanted=False)[1]


def _bitonic(device, keys, order, rows, padded):
    launcher = device.launcher
    total = rows * padded
    seg = min(padded, structs.SORT_SEGMENT)
    if seg < 2:
        return
    block = min(ops.SORT_BLOCK, seg)
    segments = total // seg
    grid = min(segments, 1 << 16)

    def values(k, j):
        return ew_values((total,), [(keys.ptr, 0, (1,)), (order.ptr, 0, (1,))], struct.pack("<qqqq", padded, k, j, seg))

    launcher.launch(kernel(device, ("sort_network", "shared")), grid, block, EW_ARGS, values(seg, 0))
    step = kernel(device, ("sort_network", "step"))
    tail = kernel(device, ("sort_network", "tail"))
    k = seg * 2
    while k <= padded:
        j = k // 2
        while j >= seg:
            launcher.launch(step, min(-(-total // step.block), GRID_LOOP_CAP), None, EW_ARGS, values(k, j))
            j //= 2
        launcher.launch(tail, grid, block, EW_ARGS, values(k, 0))
        k *= 2


def searchsorted(x, layout, values, values_layout, right):
    device = x.device
    shape = tuple(values_layout.shape)
    out = device.storage_type.empty(device, dt.int64, shape_size(shape))
    strides = contiguous_strides(shape)
    stride = layout.strides[0] if layout.ndim else 0
    length = layout.shape[0] if layout.ndim else 1
    launch_ew(device, ("searchsorted", x.dtype), shape,
              [(out.ptr, 0, strides), operand(values, values_layout), (x.ptr, layout.offset, (0,) * len(shape))],
              struct.pack("<qq", stride, length), FLAG_A if right else 0, name="searchsorted", dtype=x.dtype)
    return out

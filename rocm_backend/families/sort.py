"""[families] Ordering: sort (an LSD radix sort of each row, hip/sort.hip) and searchsorted.

The sorted axis is made the last one and every row gets unsigned keys (order-preserving:
NaN above +inf, -0.0 equal to +0.0, bool in one bit; descending inverts the bits). A row of
at most one tile (``TILE`` keys) is sorted in shared memory, every 4-bit digit in turn,
in one launch: a block takes as many such rows at a time as a tile holds (sorted by key,
then by row). Longer rows take one pass per 8-bit digit. A row of at most ``FUSED_TILES``
tiles is cut into at most ``FUSED_BLOCKS`` ranges and a pass is one launch: each block
counts the digits of its whole row, scans them, and sorts its range. Longer rows take
three launches a pass: each block counts the digits of its range of a row, one block per
row turns the counts into first places (digit by digit, range by range), and each block
sorts its range tile by tile in shared memory and writes each digit's run to its places.
Every pass is stable and the keys' row positions (u32) ride along, so the result is a
stable sort's whatever ``stable`` says: the values are gathered from the source by those
positions (-0.0 and NaN payloads as they were) and the positions are the indices (an
argsort along the last axis has its last pass write them in place). An integer sort
without indices moves the keys alone: they are their values (bijectively).
"""

import struct

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.shapes import contiguous_strides, shape_size

from ..abi import structs
from ..abi.structs import FLAG_A, GRID_LOOP_CAP, RADIX_ARGS
from ..kernels import kernel
from .copies import operand
from .ew_launch import launch_ew

TILE = structs.RADIX_BLOCK * structs.RADIX_ITEMS  # keys one block sorts in shared memory
#: blocks per multiprocessor the long-row passes aim for (ranges of a row, at least a tile each)
BLOCKS_PER_CU = 8
#: rows of at most FUSED_TILES tiles take one launch a pass, in at most FUSED_BLOCKS ranges
#: (each of which reads its whole row to count the digits)
FUSED_TILES = 128
FUSED_BLOCKS = 32
_ROW_MAX = 1 << 32  # positions in a row are u32


def sort(x, layout, axis, descending, stable=True, values_wanted=True, indices_wanted=True):
    """(values, int64 indices) along ``axis``; always stable. An output not wanted
    (sort_values, argsort) is None, and nothing writes it."""
    device = x.device
    shape = tuple(layout.shape)
    n = shape_size(shape)
    values = device.storage_type.empty(device, x.dtype, n) if values_wanted else None
    indices = device.storage_type.empty(device, dt.int64, n) if indices_wanted else None
    if n == 0:
        return values, indices
    if x.dtype.is_complex:
        raise UnsupportedOperation("sort", x.dtype, "rocm", "complex sort is not defined")
    length = shape[axis]
    if length >= _ROW_MAX:
        raise UnsupportedOperation("sort", x.dtype, "rocm", f"rows of {length} elements (at most {_ROW_MAX - 1})")
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    pshape = tuple(shape[i] for i in perm)
    pstrides = tuple(layout.strides[i] for i in perm)
    rows = n // length
    key_bytes = 8 if x.dtype.itemsize == 8 else 4
    bits = 1 if x.dtype.is_bool else 8 * x.dtype.itemsize
    keys = device.storage_type.empty(device, dt.uint64 if key_bytes == 8 else dt.uint32, n)
    buf_strides = contiguous_strides(pshape)
    launch_ew(device, ("radix_keys", x.dtype), pshape, [(keys.ptr, 0, buf_strides), (x.ptr, layout.offset, pstrides)],
              b"", FLAG_A if descending else 0, name="sort", dtype=x.dtype)
    # an argsort along the last axis: the last pass writes the int64 indices in their places
    direct = indices.ptr if not values_wanted and axis == len(shape) - 1 else 0
    if length <= TILE:
        order = None if direct else device.storage_type.empty(device, dt.uint32, n)
        tiles = -(-rows // (TILE // length))  # rows per tile: TILE // length
        device.launcher.launch(kernel(device, ("radix", "rows", key_bytes)), min(tiles, GRID_LOOP_CAP), None,
                               RADIX_ARGS, (keys.ptr, 0, 0, direct or order.ptr, 0, length, rows, length, 1, 0, bits,
                                            int(bool(direct))))
    else:
        keys_only = not indices_wanted and x.dtype.is_integer
        order, keys = _passes(device, keys, key_bytes, bits, rows, length, not keys_only, direct)
    if direct:
        return values, indices
    out_strides = contiguous_strides(shape)
    pout = tuple(out_strides[i] for i in perm)
    if order is None:
        launch_ew(device, ("radix_values", x.dtype), pshape, [(values.ptr, 0, pout), (keys.ptr, 0, buf_strides)],
                  b"", FLAG_A if descending else 0, name="sort", dtype=x.dtype)
        return values, indices
    launch_ew(device, ("radix_out", x.dtype.itemsize), pshape,
              [(values.ptr if values_wanted else 0, 0, pout), (x.ptr, layout.offset, pstrides[:-1] + (0,)),
               (order.ptr, 0, buf_strides), (indices.ptr if indices_wanted else 0, 0, pout)],
              struct.pack("<q", pstrides[-1]), name="sort", dtype=x.dtype)
    return values, indices


def sort_values(x, layout, axis, descending, stable=True):
    """The values of ``sort`` (stable whatever ``stable`` says), without the indices."""
    return sort(x, layout, axis, descending, stable, indices_wanted=False)[0]


def argsort(x, layout, axis, descending, stable=True):
    """The indices of ``sort``, without the gather of the values."""
    return sort(x, layout, axis, descending, stable, values_wanted=False)[1]


def _passes(device, keys, key_bytes, bits, rows, length, positions, direct=0):
    """(the u32 row positions of ``keys`` (rows x length, contiguous) in sorted order, or
    None without ``positions``; the sorted keys, or the last ones written with positions),
    one pass per 8-bit digit between two pairs of buffers. ``direct``: the int64 buffer
    the last pass writes the positions to instead (the first of the pair is then None)."""
    empty = device.storage_type.empty
    n = rows * length
    tiles = -(-length // TILE)
    blocks = max(1, min(tiles, device.multiprocessors * BLOCKS_PER_CU // rows))
    fused = tiles <= FUSED_TILES
    if fused:
        blocks = min(blocks, FUSED_BLOCKS)
    chunk = -(-tiles // blocks) * TILE
    blocks = -(-length // chunk)
    grid = min(rows * blocks, GRID_LOOP_CAP)
    if fused:
        counts = 0
        stages = [(kernel(device, ("radix", "pass", key_bytes)), grid)]
    else:
        counts = empty(device, dt.uint32, rows * blocks * 256).ptr
        stages = [(kernel(device, ("radix", "hist", key_bytes)), grid),
                  (kernel(device, ("radix", "scan")), min(rows, GRID_LOOP_CAP)),
                  (kernel(device, ("radix", "scatter", key_bytes)), grid)]
    spare = empty(device, keys.dtype, n)
    order = order_spare = None
    if positions:
        order, order_spare = empty(device, dt.uint32, n), empty(device, dt.uint32, n)
    launch = device.launcher.launch
    idx_in = 0
    for shift in range(0, bits, 8):
        keys_out = 0 if positions and shift + 8 >= bits else spare.ptr  # the last keys: read only without positions
        wide = bool(direct) and shift + 8 >= bits
        head = (keys.ptr, idx_in, keys_out, direct if wide else order.ptr if positions else 0, counts, length, rows,
                chunk, blocks, shift, bits, int(wide))
        for stage, stage_grid in stages:
            launch(stage, stage_grid, None, RADIX_ARGS, head)
        keys, spare = spare, keys
        if positions:
            idx_in = order.ptr
            order, order_spare = order_spare, order
    return None if direct else order_spare, keys


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
